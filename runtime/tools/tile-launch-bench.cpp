//===- tile-launch-bench.cpp - Host overhead of a kernel launch -----------===//
//
// Part of tilec. Usage:
//   tile-launch-bench BUNDLE_DIR [--device D] [--kernel NAME] [--test I]
//                     [--launches N]
// Prepares the inputs of one recorded test once, then launches the kernel N
// times (default 10000) back to back on a stream, three ways, and prints the
// host time per launch of each: already bound arguments (Kernel::launch with
// BoundArgs), binding every time (what a framework wrapper does with new
// tensors: Kernel::launch with ArgValues), and the C API's
// tile_launch_async. On a GPU the kernels queue up: the figure is the
// runtime's cost per launch plus the driver's (issue #16's goal: at most
// 3 us, 1.5 us hoped for); on the host and the emulators each launch also
// runs the kernel.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Bundle.h"
#include "tile/runtime/TestRun.h"
#include "tile/runtime/tile_runtime.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

using namespace tile::rt;

namespace {

struct Options {
  std::string Bundle, Device = "host", Kernel;
  int Test = 0;
  long Launches = 10000;
};

bool parse(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto value = [&]() -> const char * {
      return I + 1 < Argc ? Argv[++I] : nullptr;
    };
    const char *V = nullptr;
    if (A == "--device" && (V = value()))
      O.Device = V;
    else if (A == "--kernel" && (V = value()))
      O.Kernel = V;
    else if (A == "--test" && (V = value()))
      O.Test = std::atoi(V);
    else if (A == "--launches" && (V = value()))
      O.Launches = std::atol(V);
    else if (A[0] != '-' && O.Bundle.empty())
      O.Bundle = A;
    else
      return false;
  }
  return !O.Bundle.empty() && O.Launches > 0;
}

/// Runs \p Launch N times; host microseconds per launch, or -1 on failure.
double perLaunchUs(long N, const std::function<bool()> &Launch) {
  auto Start = std::chrono::steady_clock::now();
  for (long I = 0; I < N; ++I)
    if (!Launch())
      return -1;
  std::chrono::duration<double, std::micro> T =
      std::chrono::steady_clock::now() - Start;
  return T.count() / double(N);
}

int fail(const std::string &Message) {
  std::fprintf(stderr, "tile-launch-bench: %s\n", Message.c_str());
  return 1;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parse(Argc, Argv, O)) {
    std::fprintf(stderr, "usage: tile-launch-bench BUNDLE_DIR [--device D] "
                         "[--kernel NAME] [--test I] [--launches N]\n");
    return 2;
  }
  Expected<Device> D = Device::open(O.Device);
  if (!D)
    return fail(D.message());
  Expected<Bundle> B = Bundle::load(O.Bundle);
  if (!B)
    return fail(B.message());
  const KernelInfo *Info = nullptr;
  for (const KernelInfo &K : B->manifest().Kernels)
    if ((O.Kernel.empty() || K.name() == O.Kernel) &&
        targetRunsOn(K.Target, K.Kind, *D) && !Info)
      Info = &K;
  if (!Info)
    return fail("no kernel of the bundle runs on " + D->name());
  if (O.Test < 0 || size_t(O.Test) >= Info->Tests.size())
    return fail(Info->name() + " has no test " + std::to_string(O.Test));
  Expected<Kernel> K = B->loadKernel(*D, *Info);
  if (!K)
    return fail(K.message());
  Expected<PreparedRun> Run =
      prepareRun(Info->Signature, Info->Tests[O.Test], *D, O.Bundle);
  if (!Run)
    return fail(Run.message());
  Expected<Stream> S = D->createStream();
  if (!S)
    return fail(S.message());

  // The same arguments three ways.
  std::vector<ArgValue> Args;
  std::vector<tile_value> Values;
  size_t Tensor = 0;
  for (const ParamInfo &P : Info->Signature.Params) {
    if (P.Kind == ParamKind::Dim)
      continue;
    if (P.Kind == ParamKind::Scalar) {
      double X = Info->Tests[O.Test].Scalars.at(P.Name);
      Args.push_back(ArgValue::scalar(X));
      Values.push_back(tile_value{0, 0, 0, nullptr, nullptr, 0, nullptr, X});
      continue;
    }
    const TensorArg &T = Run->Tensors[Tensor++];
    Args.push_back(
        ArgValue::tensor(T.Buf.address(), T.Bytes, T.Shape, P.DType));
    Values.push_back(tile_value{1, T.Buf.address(), T.Bytes, T.Shape.data(),
                                nullptr, int(T.Shape.size()), P.DType.c_str(),
                                0});
  }
  tile_device *CDev = tile_device_open(O.Device.c_str());
  tile_bundle *CBundle =
      CDev ? tile_bundle_load(CDev, O.Bundle.c_str()) : nullptr;
  if (!CBundle)
    return fail(tile_last_error());

  std::string Error;
  auto check = [&](tile::rt::Error E) {
    if (E && Error.empty())
      Error = E.message();
    return !E;
  };
  // Warm up every path once (module loads, first-launch costs).
  check(K->launch(Run->Bound, &*S));
  check(S->synchronize());
  double Bound = perLaunchUs(O.Launches,
                             [&] { return check(K->launch(Run->Bound, &*S)); });
  check(S->synchronize());
  double Binding =
      perLaunchUs(O.Launches, [&] { return check(K->launch(Args, {}, &*S)); });
  check(S->synchronize());
  double CApi = perLaunchUs(O.Launches, [&] {
    return tile_launch_async(CBundle, Info->name().c_str(), Values.data(),
                             Values.size(), S->nativeHandle()) == 0;
  });
  check(S->synchronize());
  if (CApi < 0)
    Error = tile_last_error();
  if (!Error.empty())
    return fail(Error);
  std::printf("%s on %s, %ld launches, grid [%u, %u, %u]\n",
              Info->name().c_str(), D->name().c_str(), O.Launches,
              Run->Bound.Grid[0], Run->Bound.Grid[1], Run->Bound.Grid[2]);
  std::printf("bound arguments:     %8.3f us per launch\n", Bound);
  std::printf("binding each launch: %8.3f us per launch\n", Binding);
  std::printf("tile_launch_async:   %8.3f us per launch\n", CApi);
  tile_bundle_free(CBundle);
  tile_device_close(CDev);
  return 0;
}
