//===- tile-run.cpp - Run and check the kernels of a bundle ---------------===//
//
// Part of tilec. Usage:
//   tile-run BUNDLE_DIR [--device host|cuda[:N]|hip[:N]|cuda-emu|hip-emu]
//            [--kernel NAME] [--test I[,J...]] [--repeat N] [--warmup N]
//            [--flush-l2 MIB | --rotate MIB] [--timing-csv FILE] [--save DIR]
// For every kernel runnable on the device and every recorded test (or the
// tests selected by index): generate the seeded inputs, poison the outputs,
// launch, compare each output with the reference stored in the bundle
// (--save writes every tensor as .npy), optionally time: --warmup launches
// (default 2), then N launches each between two events, optionally after
// overwriting a MIB-sized scratch buffer so that the inputs are not served
// from the L2 cache, or (--rotate) N windows of launches back to back over
// copies of the test's tensors that fill MIB, the way a model's layers
// follow each other (timeRotatingLaunches); prints the median and spread,
// and with --timing-csv a CSV row per test (tile/runtime/Timing.h). Prints a
// line per check and a final "N passed, N failed, N skipped" line; exits 1 when
// a check failed or nothing was checked.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Compare.h"
#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"
#include "tile/runtime/TestRun.h"
#include "tile/runtime/Timing.h"

#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace tile::rt;

namespace {

struct Options {
  std::string BundleDir;
  std::string Device = "host";
  std::string Kernel;
  int Repeat = 0;
  int Warmup = 2;
  int FlushMiB = 0;
  int RotateMiB = 0;
  std::set<int> Tests; ///< Test indices to run (empty: all).
  std::string TimingCsv;
  std::string SaveDir;
};

struct Counts {
  int Passed = 0, Failed = 0, Skipped = 0;
};

void usage() {
  std::fprintf(stderr,
               "usage: tile-run BUNDLE_DIR [--device "
               "host|cuda[:N]|hip[:N]|cuda-emu|hip-emu] "
               "[--kernel NAME] [--test I[,J...]] [--repeat N] [--warmup N] "
               "[--flush-l2 MIB | --rotate MIB] [--timing-csv FILE] "
               "[--save DIR]\n");
}

/// Parses a count in [0, Max] given to option \p Opt.
bool parseCount(const std::string &Opt, const std::string &V, long Max,
                long &N) {
  char *End = nullptr;
  N = std::strtol(V.c_str(), &End, 10);
  if (V.empty() || *End || N < 0 || N > Max) {
    std::fprintf(stderr, "tile-run: %s wants a count, not '%s'\n", Opt.c_str(),
                 V.c_str());
    return false;
  }
  return true;
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
    } else if (A == "--repeat" || A == "--warmup" || A == "--flush-l2" ||
               A == "--rotate") {
      long N = 0;
      if (!value(V) || !parseCount(A, V, 100000, N))
        return false;
      (A == "--repeat"     ? O.Repeat
       : A == "--warmup"   ? O.Warmup
       : A == "--flush-l2" ? O.FlushMiB
                           : O.RotateMiB) = static_cast<int>(N);
    } else if (A == "--test") {
      if (!value(V))
        return false;
      size_t Pos = 0;
      do {
        size_t Comma = V.find(',', Pos);
        long N = 0;
        if (!parseCount(A, V.substr(Pos, Comma - Pos), 1000000, N))
          return false;
        O.Tests.insert(static_cast<int>(N));
        Pos = Comma == std::string::npos ? Comma : Comma + 1;
      } while (Pos != std::string::npos);
    } else if (A == "--timing-csv") {
      if (!value(O.TimingCsv))
        return false;
    } else if (A == "--save") {
      if (!value(O.SaveDir))
        return false;
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
  if (O.FlushMiB > 0 && O.RotateMiB > 0) {
    std::fprintf(stderr, "tile-run: --flush-l2 and --rotate are two timing "
                         "methods; give one of them\n");
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

/// "K=4096;M=1;N=4096": the sizes of a test, for the timing CSV.
std::string sizesField(const TestCase &T) {
  std::string S;
  for (const auto &[Name, Size] : T.Sizes)
    S += (S.empty() ? "" : ";") + Name + "=" + std::to_string(Size);
  return S;
}

/// Writes every tensor of \p Run to DIR/KERNEL.tI.NAME.npy (inputs as
/// generated, outputs as the kernel left them).
Error saveTensors(const std::string &Dir, const KernelInfo &Info, int Index,
                  PreparedRun &Run) {
  auto save = [&](const TensorArg &TD, const std::string &Name,
                  const std::vector<uint8_t> &Bytes) -> Error {
    Expected<NpyArray> A = toNpy(TD.Param->DType, TD.Shape, Bytes);
    if (!A)
      return A.takeError();
    return writeNpy(Dir + "/" + Info.name() + ".t" + std::to_string(Index) +
                        "." + Name + ".npy",
                    *A);
  };
  for (TensorArg &TD : Run.Tensors) {
    // A mut tensor that was also an input (inout): its generated values too.
    if (TD.Param->Mut && !TD.Poisoned)
      if (Error E = save(TD, TD.Param->Name + ".in", TD.Initial))
        return E;
    std::vector<uint8_t> Bytes = TD.Initial;
    if (TD.Param->Mut) {
      Expected<std::vector<uint8_t>> Got = TD.Buf.read();
      if (!Got)
        return Got.takeError();
      Bytes = std::move(*Got);
    }
    if (Error E = save(TD, TD.Param->Name, Bytes))
      return E;
  }
  return Error::success();
}

/// What runTest needs besides the test: the device, the options, where
/// the timing rows go and the L2 scratch buffer.
struct RunContext {
  Device &D;
  const Options &O;
  std::ofstream *Csv = nullptr;
  Buffer *Scratch = nullptr;
  Counts C;
};

/// Times \p O.Repeat launches after \p O.Warmup warm-up launches
/// (timeLaunches(); with \p Scratch the L2 cache is evicted before each).
/// With --rotate, times windows of launches over \p Run and copies of its
/// tensors prepared from the same test (timeRotatingLaunches()); \p Sets
/// is set to the number of argument sets.
Expected<TimingStats> timeKernel(Kernel &K, PreparedRun &Run,
                                 const KernelInfo &Info, const TestCase &T,
                                 const Bundle &B, RunContext &Ctx,
                                 unsigned &Sets) {
  const Options &O = Ctx.O;
  Expected<std::vector<double>> Times = std::vector<double>();
  if (O.RotateMiB == 0) {
    Sets = 0;
    Times = timeLaunches(K, Run.Bound, Ctx.D, unsigned(O.Warmup),
                         unsigned(O.Repeat), Ctx.Scratch);
  } else {
    uint64_t SetBytes = 0;
    for (const TensorArg &TA : Run.Tensors)
      SetBytes += TA.Bytes;
    Sets = rotatingSets(SetBytes, uint64_t(O.RotateMiB) << 20);
    std::vector<PreparedRun> Copies;
    std::vector<BoundArgs *> Bound{&Run.Bound};
    Copies.reserve(Sets - 1);
    for (unsigned I = 1; I < Sets; ++I) {
      Expected<PreparedRun> Copy =
          prepareRun(Info.Signature, T, Ctx.D, B.directory());
      if (!Copy)
        return Copy.takeError();
      Copies.push_back(std::move(*Copy));
      Bound.push_back(&Copies.back().Bound);
    }
    Times = timeRotatingLaunches(K, Bound, Ctx.D, unsigned(O.Warmup),
                                 unsigned(O.Repeat));
  }
  if (!Times)
    return Times.takeError();
  return summarizeTimes(std::move(*Times));
}

/// Runs test \p Index of \p Info; prints its checks and counts them.
void runTest(const Bundle &B, Kernel &K, const KernelInfo &Info, int Index,
             RunContext &Ctx) {
  const TestCase &T = Info.Tests[Index];
  Device &D = Ctx.D;
  Counts &C = Ctx.C;
  std::string Label = label(Info, T);
  auto fail = [&](const std::string &What) {
    std::printf("FAIL %s: %s\n", Label.c_str(), What.c_str());
    ++C.Failed;
  };

  Expected<PreparedRun> Run = prepareRun(Info.Signature, T, D, B.directory());
  if (!Run)
    return fail(Run.message());
  BoundArgs *Bound = &Run->Bound;
  if (K.runsFallback(*Bound))
    std::printf("NOTE %s: runs the kernel's copy without TMA (no tensor map "
                "fits these tensors)\n",
                Label.c_str());
  if (Error E = K.launch(*Bound))
    return fail(E.message());
  if (Error E = D.synchronize())
    return fail(E.message());
  if (!Ctx.O.SaveDir.empty())
    if (Error E = saveTensors(Ctx.O.SaveDir, Info, Index, *Run))
      return fail("saving tensors: " + E.message());

  int Checked = 0, Bad = 0;
  auto bad = [&](const std::string &Out, const std::string &What) {
    std::printf("FAIL %s: %s\n", Out.c_str(), What.c_str());
    ++C.Failed;
    ++Bad;
  };
  for (TensorArg &TD : Run->Tensors) {
    const ParamInfo &P = *TD.Param;
    auto It = T.ExpectedFiles.find(P.Name);
    if (It == T.ExpectedFiles.end())
      continue;
    ++Checked;
    std::string Out = Label + " " + P.Name;
    Expected<NpyArray> A = readNpy(B.path(It->second));
    if (!A) {
      bad(Out, A.message());
      continue;
    }
    Expected<std::vector<uint8_t>> Want = fromNpy(*A, P.DType, TD.Shape);
    Expected<std::vector<uint8_t>> Got = TD.Buf.read();
    if (!Want || !Got) {
      bad(Out,
          !Want ? B.path(It->second) + ": " + Want.message() : Got.message());
      continue;
    }
    if (TD.Poisoned) {
      // A reference that was not written passes any kernel that does not
      // write either (both hold the poison).
      Expected<int64_t> Left =
          poisonLeft(P.DType, Want->data(), TD.NumElements);
      if (!Left || *Left >= 0) {
        bad(Out, !Left ? Left.message()
                       : "the reference still holds the poison pattern at "
                         "element " +
                             std::to_string(*Left) + " (" + B.path(It->second) +
                             " was not written there)");
        continue;
      }
    }
    auto TolIt = T.OutputTol.find(P.Name);
    Tolerance Tol = TolIt != T.OutputTol.end() ? TolIt->second : T.Tol;
    Expected<CompareStats> S =
        compareTensors(P.DType, Got->data(), Want->data(), TD.NumElements, Tol);
    if (!S) {
      bad(Out, S.message());
      continue;
    }
    if (S->Mismatches) {
      bad(Out, (S->Exact ? "exact, " : "") + S->summary());
      continue;
    }
    std::printf("PASS %s: %s%s\n", Out.c_str(), S->Exact ? "exact, " : "",
                S->summary().c_str());
    ++C.Passed;
  }
  if (Checked == 0) {
    std::printf("PASS %s: launched (no reference outputs recorded)\n",
                Label.c_str());
    ++C.Passed;
  }

  if (Ctx.O.Repeat == 0)
    return;
  if (Bad) {
    std::printf("NOTE %s: not timed (wrong output)\n", Label.c_str());
    return;
  }
  unsigned Sets = 0;
  Expected<TimingStats> S = timeKernel(K, *Run, Info, T, B, Ctx, Sets);
  if (!S)
    return fail("timing: " + S.message());
  std::string How = Ctx.Scratch ? " (L2 flushed)" : "";
  if (Sets)
    How = " (windows over " + std::to_string(Sets) +
          " copies of the tensors, per launch)";
  std::printf("TIME %s: median %.4f ms, min %.4f ms, p10 %.4f ms, p90 %.4f "
              "ms, max %.4f ms over %d runs%s\n",
              Label.c_str(), S->MedianMs, S->MinMs, S->P10Ms, S->P90Ms,
              S->MaxMs, S->Runs, How.c_str());
  if (Ctx.Csv) {
    TimingRecord R;
    R.Kernel = Info.name();
    R.Target = Info.Target;
    R.Device = D.name();
    R.Arch = D.arch();
    R.TestIndex = Index;
    R.Sizes = sizesField(T);
    R.Seed = T.Seed;
    R.Checked = Checked > 0;
    R.FlushedL2 = Ctx.Scratch != nullptr;
    R.RotateSets = Sets;
    R.Stats = *S;
    *Ctx.Csv << timingCsvRow(R) << "\n" << std::flush;
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

  std::ofstream CsvFile;
  if (!O.TimingCsv.empty()) {
    // A new file gets the header; an existing one is appended to, so that
    // several bundles can share one CSV.
    bool Fresh = !std::ifstream(O.TimingCsv).good();
    CsvFile.open(O.TimingCsv, std::ios::app);
    if (!CsvFile) {
      std::fprintf(stderr, "tile-run: cannot write %s\n", O.TimingCsv.c_str());
      return 1;
    }
    if (Fresh)
      CsvFile << timingCsvHeader() << "\n";
  }
  Buffer Scratch;
  if (O.FlushMiB > 0 && O.Repeat > 0) {
    Expected<Buffer> S = D->allocate(uint64_t(O.FlushMiB) << 20);
    if (!S) {
      std::fprintf(stderr, "tile-run: L2 flush buffer: %s\n",
                   S.message().c_str());
      return 1;
    }
    Scratch = *S;
  }
  RunContext Ctx{*D,
                 O,
                 CsvFile.is_open() ? &CsvFile : nullptr,
                 Scratch ? &Scratch : nullptr,
                 {}};
  Counts &C = Ctx.C;
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
    for (int I = 0, E = int(Info.Tests.size()); I < E; ++I)
      if (O.Tests.empty() || O.Tests.count(I))
        runTest(*B, *K, Info, I, Ctx);
  }
  for (int I : O.Tests) {
    bool Any = false;
    for (const KernelInfo &Info : B->manifest().Kernels)
      Any |= (O.Kernel.empty() || Info.name() == O.Kernel) &&
             I < int(Info.Tests.size());
    if (!Any) {
      std::fprintf(stderr, "tile-run: no test %d in the selected kernels\n", I);
      return 1;
    }
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
