//===- tile-run.cpp - Run and check the kernels of a bundle ---------------===//
//
// Part of tilec. Usage:
//   tile-run BUNDLE_DIR [--device host|cuda[:N]|hip[:N]] [--kernel NAME]
//            [--repeat N]
// For every kernel runnable on the device and every recorded test: generate
// the seeded inputs, poison the outputs, launch, compare each output with
// the reference stored in the bundle, optionally time (2 warm-up launches,
// then the median of N timed launches). Prints a line per check and a final
// "N passed, N failed, N skipped" line; exits 1 when a check failed or
// nothing was checked.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Compare.h"
#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"
#include "tile/runtime/TestRun.h"

#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tile::rt;

namespace {

struct Options {
  std::string BundleDir;
  std::string Device = "host";
  std::string Kernel;
  int Repeat = 0;
};

struct Counts {
  int Passed = 0, Failed = 0, Skipped = 0;
};

void usage() {
  std::fprintf(stderr,
               "usage: tile-run BUNDLE_DIR [--device host|cuda[:N]|hip[:N]] "
               "[--kernel NAME] [--repeat N]\n");
}

bool parseOptions(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto value = [&](std::string &Out) {
      if (I + 1 >= Argc) {
        std::fprintf(stderr, "tile-run: %s needs a value\n", A.c_str());
        return false;
      }
      Out = Argv[++I];
      return true;
    };
    std::string V;
    if (A == "--device") {
      if (!value(O.Device))
        return false;
    } else if (A == "--kernel") {
      if (!value(O.Kernel))
        return false;
    } else if (A == "--repeat") {
      if (!value(V))
        return false;
      char *End = nullptr;
      long N = std::strtol(V.c_str(), &End, 10);
      if (V.empty() || *End || N < 0 || N > 100000) {
        std::fprintf(stderr, "tile-run: --repeat wants a count, not '%s'\n",
                     V.c_str());
        return false;
      }
      O.Repeat = static_cast<int>(N);
    } else if (A == "-h" || A == "--help") {
      usage();
      std::exit(0);
    } else if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "tile-run: unknown option %s\n", A.c_str());
      return false;
    } else if (O.BundleDir.empty()) {
      O.BundleDir = A;
    } else {
      std::fprintf(stderr, "tile-run: more than one bundle given\n");
      return false;
    }
  }
  if (O.BundleDir.empty()) {
    usage();
    return false;
  }
  return true;
}

std::string label(const KernelInfo &K, const TestCase &T) {
  std::string S = K.name() + "[";
  bool First = true;
  for (const auto &[Name, Size] : T.Sizes) {
    S += (First ? "" : ",") + Name + "=" + std::to_string(Size);
    First = false;
  }
  return S + " seed=" + std::to_string(T.Seed) + "]";
}

/// One tensor argument of a test.
/// Times \p N launches after two warm-up launches; returns the median.
Expected<float> timeKernel(Kernel &K, BoundArgs &B, Device &D, int N,
                           float &Min) {
  Stream S = D.defaultStream();
  for (int I = 0; I < 2; ++I)
    if (Error E = K.launch(B, &S))
      return E;
  std::vector<float> Times;
  for (int I = 0; I < N; ++I) {
    Expected<Event> Start = S.record();
    if (!Start)
      return Start.takeError();
    if (Error E = K.launch(B, &S))
      return E;
    Expected<Event> End = S.record();
    if (!End)
      return End.takeError();
    Expected<float> Ms = Event::elapsedMs(*Start, *End);
    if (!Ms)
      return Ms.takeError();
    Times.push_back(*Ms);
  }
  std::sort(Times.begin(), Times.end());
  Min = Times.front();
  return N % 2 ? Times[N / 2] : (Times[N / 2 - 1] + Times[N / 2]) / 2;
}

/// Runs one test; prints its checks and adds them to \p C.
void runTest(const Bundle &B, Kernel &K, const KernelInfo &Info,
             const TestCase &T, Device &D, const Options &O, Counts &C) {
  std::string Label = label(Info, T);
  auto fail = [&](const std::string &What) {
    std::printf("FAIL %s: %s\n", Label.c_str(), What.c_str());
    ++C.Failed;
  };

  Expected<PreparedRun> Run = prepareRun(Info.Signature, T, D, B.directory());
  if (!Run)
    return fail(Run.message());
  BoundArgs *Bound = &Run->Bound;
  if (Error E = K.launch(*Bound))
    return fail(E.message());
  if (Error E = D.synchronize())
    return fail(E.message());

  int Checked = 0;
  for (TensorArg &TD : Run->Tensors) {
    const ParamInfo &P = *TD.Param;
    auto It = T.ExpectedFiles.find(P.Name);
    if (It == T.ExpectedFiles.end())
      continue;
    ++Checked;
    std::string Out = Label + " " + P.Name;
    Expected<NpyArray> A = readNpy(B.path(It->second));
    if (!A) {
      std::printf("FAIL %s: %s\n", Out.c_str(), A.message().c_str());
      ++C.Failed;
      continue;
    }
    Expected<std::vector<uint8_t>> Want = fromNpy(*A, P.DType, TD.Shape);
    Expected<std::vector<uint8_t>> Got = TD.Buf.read();
    if (!Want || !Got) {
      std::printf(
          "FAIL %s: %s\n", Out.c_str(),
          (!Want ? B.path(It->second) + ": " + Want.message() : Got.message())
              .c_str());
      ++C.Failed;
      continue;
    }
    auto TolIt = T.OutputTol.find(P.Name);
    Tolerance Tol = TolIt != T.OutputTol.end() ? TolIt->second : T.Tol;
    Expected<CompareStats> S =
        compareTensors(P.DType, Got->data(), Want->data(), TD.NumElements, Tol);
    if (!S) {
      std::printf("FAIL %s: %s\n", Out.c_str(), S.message().c_str());
      ++C.Failed;
      continue;
    }
    bool Ok = S->Mismatches == 0;
    std::printf("%s %s: %s%s\n", Ok ? "PASS" : "FAIL", Out.c_str(),
                S->Exact ? "exact, " : "", S->summary().c_str());
    ++(Ok ? C.Passed : C.Failed);
  }
  if (Checked == 0) {
    std::printf("PASS %s: launched (no reference outputs recorded)\n",
                Label.c_str());
    ++C.Passed;
  }

  if (O.Repeat > 0) {
    float Min = 0;
    Expected<float> Median = timeKernel(K, *Bound, D, O.Repeat, Min);
    if (!Median)
      return fail("timing: " + Median.message());
    std::printf("TIME %s: median %.4f ms, min %.4f ms over %d runs\n",
                Label.c_str(), *Median, Min, O.Repeat);
  }
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parseOptions(Argc, Argv, O))
    return 1;
  Expected<Bundle> B = Bundle::load(O.BundleDir);
  if (!B) {
    std::fprintf(stderr, "tile-run: %s\n", B.message().c_str());
    return 1;
  }
  Expected<Device> D = Device::open(O.Device);
  if (!D) {
    std::fprintf(stderr, "tile-run: %s\n", D.message().c_str());
    return 1;
  }
  std::printf("bundle %s (%s), device %s [%s]\n", O.BundleDir.c_str(),
              B->manifest().Compiler.c_str(), D->name().c_str(),
              D->arch().c_str());

  Counts C;
  bool Found = O.Kernel.empty();
  for (const KernelInfo &Info : B->manifest().Kernels) {
    if (!O.Kernel.empty() && Info.name() != O.Kernel)
      continue;
    Found = true;
    if (!targetRunsOn(Info.Target, Info.Kind, *D)) {
      std::printf("SKIP %s: %s code for %s does not run on %s\n",
                  Info.name().c_str(), objectKindName(Info.Kind),
                  Info.Target.c_str(), D->arch().c_str());
      ++C.Skipped;
      continue;
    }
    Expected<Kernel> K = B->loadKernel(*D, Info);
    if (!K) {
      std::printf("FAIL %s (%s): %s\n", Info.name().c_str(),
                  Info.Target.c_str(), K.message().c_str());
      ++C.Failed;
      continue;
    }
    if (Info.Tests.empty())
      std::printf("NOTE %s: no tests recorded\n", Info.name().c_str());
    for (const TestCase &T : Info.Tests)
      runTest(*B, *K, Info, T, *D, O, C);
  }
  if (!Found) {
    std::fprintf(stderr, "tile-run: no kernel named '%s' in the bundle\n",
                 O.Kernel.c_str());
    return 1;
  }
  std::printf("%d passed, %d failed, %d skipped\n", C.Passed, C.Failed,
              C.Skipped);
  if (C.Passed + C.Failed == 0) {
    std::printf("nothing was checked\n");
    return 1;
  }
  return C.Failed ? 1 : 0;
}
