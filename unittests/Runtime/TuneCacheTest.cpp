//===- TuneCacheTest.cpp - Tests of the tune cache file -------------------===//
//
// Part of tilec. Shape buckets, keys, persistence, a corrupt file rebuilt
// with a warning, and concurrent writers (threads and processes) that all
// land in one readable file.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/TuneCache.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tile::rt;

namespace {

TEST(TuneCacheTest, ShapeBuckets) {
  EXPECT_EQ(shapeBucket(1), 1);
  EXPECT_EQ(shapeBucket(7), 7);
  EXPECT_EQ(shapeBucket(16), 16);
  EXPECT_EQ(shapeBucket(17), 32);
  EXPECT_EQ(shapeBucket(32), 32);
  EXPECT_EQ(shapeBucket(33), 64);
  EXPECT_EQ(shapeBucket(4096), 4096);
  EXPECT_EQ(shapeBucket(4097), 8192);
  EXPECT_EQ(shapeBucket(14336), 16384);
  EXPECT_EQ(bucketText({{"N", 14336}, {"M", 3}, {"K", 4096}}),
            "K=4096,M=3,N=16384");
  Expected<DimMap> D = parseBucketText("K=4096,M=3,N=16384");
  ASSERT_TRUE(D) << D.message();
  EXPECT_EQ(*D, (DimMap{{"K", 4096}, {"M", 3}, {"N", 16384}}));
  EXPECT_EQ(parseBucketText("K=4096,M").message(),
            "bad shape bucket part 'M' in 'K=4096,M' (expected NAME=SIZE,...)");
  EXPECT_EQ(parseBucketText("K=x").message(),
            "bad shape bucket part 'K=x' in 'K=x' (expected NAME=SIZE,...)");
}

TuneEntry entry(const std::string &Bucket, int64_t BN, double Ms) {
  TuneEntry E;
  E.Key = {"Fake GPU", "sm_90",  "tilec test", "abc",
           "gemm",     "sm_90a", "T=u4",       Bucket};
  E.Config = {{"BN", BN}, {"T", "u4"}};
  E.TimeMs = Ms;
  return E;
}

std::string tempPath(const char *Name) {
  std::string P = testing::TempDir() + "/tilec-tune-" +
                  std::to_string(getpid()) + "/" + Name;
  std::remove(P.c_str());
  return P;
}

TEST(TuneCacheTest, StoresLooksUpAndReplaces) {
  std::string Path = tempPath("store.json");
  TuneCache C(Path);
  EXPECT_TRUE(C.entries().empty()); // A missing file is empty.
  ASSERT_FALSE(C.store(entry("K=4096,M=1,N=4096", 64, 0.03)));
  TuneEntry Second = entry("K=4096,M=16,N=4096", 128, 0.05);
  Second.DefaultMs = 0.09;
  ASSERT_FALSE(C.store(Second));
  // Another object on the same file sees both.
  TuneCache D(Path);
  std::optional<TuneEntry> Hit =
      D.lookup(entry("K=4096,M=16,N=4096", 0, 0).Key);
  ASSERT_TRUE(Hit);
  EXPECT_EQ(configToString(Hit->Config), "BN=128 T=u4");
  EXPECT_DOUBLE_EQ(Hit->TimeMs, 0.05);
  EXPECT_DOUBLE_EQ(Hit->DefaultMs, 0.09);
  // Any field of the key distinguishes entries.
  TuneKey Other = Hit->Key;
  Other.Device = "Other GPU";
  EXPECT_FALSE(D.lookup(Other));
  Other = Hit->Key;
  Other.Defines = "T=u8";
  EXPECT_FALSE(D.lookup(Other));
  // Storing the same key again replaces it.
  ASSERT_FALSE(D.store(entry("K=4096,M=1,N=4096", 32, 0.02)));
  std::vector<TuneEntry> All = C.entries();
  ASSERT_EQ(All.size(), 2u);
  EXPECT_EQ(configToString(All[0].Config), "BN=32 T=u4");
}

TEST(TuneCacheTest, ACorruptFileIsReportedAndRebuilt) {
  std::string Path = tempPath("corrupt.json");
  TuneCache Writer(Path);
  ASSERT_FALSE(Writer.store(entry("M=1", 64, 0.03))); // Creates the folder.
  std::ofstream(Path) << "{\"format\": \"tilec-tune-cache\", \"vers";
  char *Log = nullptr;
  size_t LogSize = 0;
  FILE *Warnings = open_memstream(&Log, &LogSize);
  {
    TuneCache C(Path, Warnings);
    EXPECT_FALSE(C.lookup(entry("M=1", 0, 0).Key));
    EXPECT_TRUE(C.entries().empty());
    ASSERT_FALSE(C.store(entry("M=2", 64, 0.04)));
    std::optional<TuneEntry> Hit = C.lookup(entry("M=2", 0, 0).Key);
    ASSERT_TRUE(Hit);
  }
  std::fclose(Warnings);
  std::string Text(Log, LogSize);
  std::free(Log);
  EXPECT_EQ(Text, "warning: unreadable tune cache " + Path +
                      ": line 1, column 37: unterminated string; it is "
                      "ignored and rebuilt by the next tuning\n");
  // A well-formed file of another format is also refused, not clobbered
  // silently.
  std::ofstream(Path) << "{\"version\": 1, \"entries\": {}}\n";
  FILE *Null = std::fopen("/dev/null", "w");
  TuneCache C(Path, Null);
  EXPECT_TRUE(C.entries().empty());
  std::fclose(Null);
}

TEST(TuneCacheTest, ConcurrentWritersAllLand) {
  std::string Path = tempPath("concurrent.json");
  // Four processes with four threads each store 8 entries apiece.
  std::vector<pid_t> Children;
  for (int P = 0; P < 4; ++P) {
    pid_t Pid = fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0) {
      std::vector<std::thread> Threads;
      bool Ok = true;
      for (int T = 0; T < 4; ++T)
        Threads.emplace_back([&, T] {
          TuneCache C(Path);
          for (int I = 0; I < 8; ++I)
            if (C.store(entry("M=" + std::to_string(P * 100 + T * 10 + I), I,
                              0.01 * I)))
              Ok = false;
        });
      for (std::thread &T : Threads)
        T.join();
      std::_Exit(Ok ? 0 : 1);
    }
    Children.push_back(Pid);
  }
  for (pid_t Pid : Children) {
    int Status = 0;
    ASSERT_EQ(waitpid(Pid, &Status, 0), Pid);
    EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0);
  }
  TuneCache C(Path);
  EXPECT_EQ(C.entries().size(), 4u * 4 * 8);
  std::optional<TuneEntry> Hit = C.lookup(entry("M=317", 0, 0).Key);
  ASSERT_TRUE(Hit);
  EXPECT_EQ(configToString(Hit->Config), "BN=7 T=u4");
}

} // namespace
