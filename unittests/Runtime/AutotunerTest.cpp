//===- AutotunerTest.cpp - Tests of the autotuner -------------------------===//
//
// Part of tilec. A fake cost model stands in for compilation and launches:
// the tests check the choice, pruning, failures, the parallel compile phase
// and the progress lines.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Autotuner.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>

using namespace tile::rt;

namespace {

std::vector<TuneConfig> space() {
  std::vector<TuneConfig> S;
  for (int BM : {16, 32, 64})
    for (const char *T : {"u4", "u8"})
      S.push_back({{"BM", BM}, {"T", T}});
  return S;
}

TuneOptions options(unsigned Warmup, unsigned Repeats, unsigned Jobs = 1) {
  TuneOptions O;
  O.Warmup = Warmup;
  O.Repeats = Repeats;
  O.Jobs = Jobs;
  return O;
}

/// A fake cost model: time = |BM - 32| + (T == u8) + 0.5; BM = 64 with u8
/// fails to compile; every third run is an outlier the median ignores.
Autotuner::Compile fakeCompiler(std::atomic<int> &Compiles,
                                std::atomic<int> &Runs) {
  return [&](const TuneConfig &C) -> Expected<Autotuner::Candidate> {
    ++Compiles;
    int64_t BM = C.at("BM").getInteger();
    bool U8 = C.at("T").getString() == "u8";
    if (BM == 64 && U8)
      return makeError("too much shared memory");
    double Base = std::abs(BM - 32) + (U8 ? 1.0 : 0.0) + 0.5;
    auto Count = std::make_shared<int>(0);
    Autotuner::Candidate Cand;
    Cand.Summary = "BM " + std::to_string(BM);
    Cand.Run = [&Runs, Base, Count]() -> Expected<double> {
      ++Runs;
      return Base + ((*Count)++ % 3 == 0 ? 100.0 : 0.0);
    };
    return Cand;
  };
}

TEST(AutotunerTest, PicksTheFastestAndRecordsFailures) {
  std::atomic<int> Compiles{0}, Runs{0};
  Autotuner T(options(1, 5));
  Expected<TuneResult> R = T.tune(space(), fakeCompiler(Compiles, Runs));
  ASSERT_TRUE(R) << R.message();
  EXPECT_EQ(configToString(R->Best), "BM=32 T=u4");
  EXPECT_DOUBLE_EQ(R->TimeMs, 0.5);
  ASSERT_EQ(R->Rows.size(), 6u);
  EXPECT_EQ(R->count(TuneStatus::Timed), 5u);
  EXPECT_EQ(R->count(TuneStatus::Failed), 1u);
  const TuneRow &Failed = R->Rows[5];
  EXPECT_EQ(configToString(Failed.Config), "BM=64 T=u8");
  EXPECT_EQ(Failed.Status, TuneStatus::Failed);
  EXPECT_EQ(Failed.Reason, "compile failed: too much shared memory");
  EXPECT_EQ(R->Rows[0].Summary, "BM 16");
  EXPECT_DOUBLE_EQ(R->Rows[1].TimeMs, 17.5); // BM=16 u8.
  EXPECT_EQ(Compiles, 6);
  EXPECT_EQ(Runs, 5 * 6); // 1 warm-up + 5 timed for each that compiled.
}

TEST(AutotunerTest, PruningBeforeAndAfterCompiling) {
  std::atomic<int> Compiles{0}, Runs{0};
  TuneOptions O = options(1, 3);
  O.Prune = [](const TuneConfig &C) -> std::string {
    return C.at("BM").getInteger() == 32 ? "BM = 32 is too small" : "";
  };
  Autotuner::Compile Inner = fakeCompiler(Compiles, Runs);
  Autotuner::Compile WithReason =
      [&](const TuneConfig &C) -> Expected<Autotuner::Candidate> {
    Expected<Autotuner::Candidate> Cand = Inner(C);
    if (Cand && C.at("T").getString() == "u8")
      Cand->PruneReason = "spills";
    return Cand;
  };
  // The whole-space pass prunes the first remaining candidate.
  Autotuner::PruneAll All =
      [](const std::vector<const Autotuner::Candidate *> &C) {
        std::vector<std::string> Why(C.size());
        EXPECT_EQ(C.size(), 6u);
        EXPECT_EQ(C[2], nullptr); // Pruned before compiling.
        EXPECT_EQ(C[1], nullptr); // Pruned by its compilation.
        Why[0] = "grid too small";
        return Why;
      };
  Autotuner T(O);
  Expected<TuneResult> R = T.tune(space(), WithReason, All);
  ASSERT_TRUE(R) << R.message();
  EXPECT_EQ(Compiles, 4); // BM = 32 never compiled.
  EXPECT_EQ(R->Rows[2].Reason, "BM = 32 is too small");
  EXPECT_EQ(R->Rows[1].Reason, "spills");
  EXPECT_EQ(R->Rows[0].Reason, "grid too small");
  EXPECT_EQ(R->count(TuneStatus::Pruned), 4u);
  EXPECT_EQ(R->count(TuneStatus::Failed), 1u);
  EXPECT_EQ(configToString(R->Best), "BM=64 T=u4");
  EXPECT_DOUBLE_EQ(R->TimeMs, 32.5);
}

TEST(AutotunerTest, RunFailuresAreRecordedAndAllFailingIsAnError) {
  Autotuner T(options(0, 3));
  auto Failing = [](const TuneConfig &) -> Expected<Autotuner::Candidate> {
    Autotuner::Candidate C;
    C.Run = []() -> Expected<double> { return makeError("launch failed"); };
    return C;
  };
  Expected<TuneResult> R = T.tune(space(), Failing);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.message(), "autotune: none of the 6 configurations could be "
                         "timed (0 pruned, 6 failed); first: BM=16 T=u4: run "
                         "failed: launch failed");
  EXPECT_EQ(T.tune({}, Failing).message(),
            "autotune: empty configuration space");
}

TEST(AutotunerTest, CompilesOnSeveralThreadsAndReportsProgress) {
  std::vector<TuneConfig> Space;
  for (int I = 0; I < 24; ++I)
    Space.push_back({{"X", I}});
  std::mutex Lock;
  std::set<std::thread::id> Threads;
  std::atomic<int> InFlight{0}, MaxInFlight{0};
  auto Compile = [&](const TuneConfig &C) -> Expected<Autotuner::Candidate> {
    int Now = ++InFlight;
    for (int Seen = MaxInFlight;
         Now > Seen && !MaxInFlight.compare_exchange_weak(Seen, Now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    {
      std::lock_guard<std::mutex> G(Lock);
      Threads.insert(std::this_thread::get_id());
    }
    --InFlight;
    double Ms = double((C.at("X").getInteger() * 7) % 24) + 1;
    Autotuner::Candidate Cand;
    Cand.Run = [Ms]() -> Expected<double> { return Ms; };
    return Cand;
  };
  char *Log = nullptr;
  size_t LogSize = 0;
  FILE *Progress = open_memstream(&Log, &LogSize);
  TuneOptions O = options(0, 1, 4);
  O.Progress = Progress;
  Expected<TuneResult> R = Autotuner(O).tune(Space, Compile);
  std::fclose(Progress);
  std::string Text(Log, LogSize);
  std::free(Log);
  ASSERT_TRUE(R) << R.message();
  EXPECT_EQ(configToString(R->Best), "X=0");
  EXPECT_GT(Threads.size(), 1u);
  EXPECT_GT(MaxInFlight.load(), 1);
  EXPECT_NE(Text.find("compiled 8/24: 0 pruned, 0 failed ("), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("compiled 24/24: 0 pruned, 0 failed ("),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("timing 24 of 24 configurations (0 pruned, 0 failed)"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("[24/24] X=23: "), std::string::npos) << Text;
  EXPECT_NE(Text.find("| best 1.000000 ms (X=0) | ~0 s left"),
            std::string::npos)
      << Text;
}

} // namespace
