//===- AutotunerTest.cpp - Tests of the autotuner skeleton ----------------===//

#include "tile/runtime/Autotuner.h"

#include "gtest/gtest.h"

#include <cstdio>

using namespace tile::rt;

namespace {

std::vector<TuneConfig> space() {
  std::vector<TuneConfig> S;
  for (int BM : {16, 32, 64})
    for (const char *T : {"u4", "u8"})
      S.push_back({{"BM", BM}, {"T", T}});
  return S;
}

/// A fake cost model: time = |BM - 32| + (T == u8), and BM = 64 with u8
/// fails to compile; every timing varies by run to exercise the median.
Autotuner::Compile fakeCompiler(int &Compiles, int &Runs) {
  return [&](const TuneConfig &C) -> Expected<Autotuner::Runner> {
    ++Compiles;
    int64_t BM = C.at("BM").getInteger();
    bool U8 = C.at("T").getString() == "u8";
    if (BM == 64 && U8)
      return makeError("too much shared memory");
    double Base = std::abs(BM - 32) + (U8 ? 1.0 : 0.0) + 0.5;
    auto Count = std::make_shared<int>(0);
    return Autotuner::Runner([&Runs, Base, Count]() -> Expected<double> {
      ++Runs;
      // Outliers on every third run; the median ignores them.
      return Base + ((*Count)++ % 3 == 0 ? 100.0 : 0.0);
    });
  };
}

TEST(AutotunerTest, PicksTheFastestAndSkipsFailures) {
  int Compiles = 0, Runs = 0;
  Autotuner T(TuneOptions{1, 5, nullptr, ""});
  Expected<TuneResult> R = T.tune("k", space(), fakeCompiler(Compiles, Runs));
  ASSERT_TRUE(R) << R.message();
  EXPECT_EQ(configToString(R->Best), "BM=32 T=u4");
  EXPECT_DOUBLE_EQ(R->TimeMs, 0.5);
  EXPECT_FALSE(R->FromCache);
  ASSERT_EQ(R->Skipped.size(), 1u);
  EXPECT_EQ(configToString(R->Skipped[0].first), "BM=64 T=u8");
  EXPECT_EQ(R->Skipped[0].second, "compile failed: too much shared memory");
  EXPECT_EQ(R->Timings.size(), 5u);
  EXPECT_EQ(Compiles, 6);
  EXPECT_EQ(Runs, 5 * 6); // 1 warm-up + 5 timed for each that compiled.
}

TEST(AutotunerTest, PrunedConfigurationsAreNotCompiled) {
  int Compiles = 0, Runs = 0;
  TuneOptions O{1, 3, nullptr, ""};
  O.Prune = [](const TuneConfig &C) -> std::string {
    return C.at("BM").getInteger() == 32 ? "BM = 32 is too small" : "";
  };
  Autotuner T(O);
  Expected<TuneResult> R = T.tune("k", space(), fakeCompiler(Compiles, Runs));
  ASSERT_TRUE(R) << R.message();
  EXPECT_EQ(Compiles, 4);
  ASSERT_EQ(R->Skipped.size(), 3u);
  EXPECT_EQ(R->Skipped[0].second, "pruned: BM = 32 is too small");
  // Without BM = 32 the best is BM = 16 or 64 with u4 (16.5 ms each); the
  // first one found is kept.
  EXPECT_EQ(configToString(R->Best), "BM=16 T=u4");
  EXPECT_DOUBLE_EQ(R->TimeMs, 16.5);
}

TEST(AutotunerTest, RunFailuresAreSkippedAndAllFailingIsAnError) {
  Autotuner T(TuneOptions{0, 3, nullptr, ""});
  auto Failing = [](const TuneConfig &) -> Expected<Autotuner::Runner> {
    return Autotuner::Runner(
        []() -> Expected<double> { return makeError("launch failed"); });
  };
  Expected<TuneResult> R = T.tune("k", space(), Failing);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.message(), "autotune k: all 6 configurations failed");
  EXPECT_EQ(T.tune("k", {}, Failing).message(),
            "autotune k: empty configuration space");
}

TEST(AutotunerTest, PersistsTheWinner) {
  std::string Path = testing::TempDir() + "/tile_tune_cache.json";
  std::remove(Path.c_str());
  char *Log = nullptr;
  size_t LogSize = 0;
  FILE *Progress = open_memstream(&Log, &LogSize);
  int Compiles = 0, Runs = 0;
  {
    Autotuner T(TuneOptions{1, 3, Progress, Path});
    EXPECT_FALSE(T.lookup("key1"));
    ASSERT_TRUE(T.tune("key1", space(), fakeCompiler(Compiles, Runs)));
  }
  int CompilesAfterFirst = Compiles;
  {
    Autotuner T(TuneOptions{1, 3, Progress, Path});
    Expected<TuneResult> R =
        T.tune("key1", space(), fakeCompiler(Compiles, Runs));
    ASSERT_TRUE(R);
    EXPECT_TRUE(R->FromCache);
    EXPECT_EQ(configToString(R->Best), "BM=32 T=u4");
    EXPECT_EQ(Compiles, CompilesAfterFirst); // Nothing recompiled.
    // A second key lands in the same file next to the first.
    std::vector<TuneConfig> Small = {{{"BM", 64}, {"T", "u4"}}};
    ASSERT_TRUE(T.tune("key2", Small, fakeCompiler(Compiles, Runs)));
  }
  std::fclose(Progress);
  std::string Text(Log, LogSize);
  std::free(Log);
  EXPECT_NE(Text.find("[6/6] BM=64 T=u8: skipped: compile failed"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("autotune key1: best BM=32 T=u4 (0.5000 ms)"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("autotune key1: cached BM=32 T=u4"), std::string::npos);

  Expected<json::Value> Cache = json::readFile(Path);
  ASSERT_TRUE(Cache) << Cache.message();
  const json::Value *Entries = Cache->find("entries");
  ASSERT_TRUE(Entries);
  ASSERT_TRUE(Entries->find("key1"));
  ASSERT_TRUE(Entries->find("key2"));
  EXPECT_EQ(*Entries->find("key2")->find("config"),
            json::Value(json::Object{{"BM", 64}, {"T", "u4"}}));

  // A corrupt cache is reported, not silently overwritten.
  {
    FILE *F = std::fopen(Path.c_str(), "w");
    std::fputs("{broken", F);
    std::fclose(F);
  }
  Autotuner T(TuneOptions{0, 1, nullptr, Path});
  Expected<TuneResult> R =
      T.tune("key3", space(), fakeCompiler(Compiles, Runs));
  ASSERT_FALSE(R);
  EXPECT_EQ(R.message(), "autotune: " + Path +
                             ": line 1, column 2: expected a string key in "
                             "object");
  std::remove(Path.c_str());
}

} // namespace
