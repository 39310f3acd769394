//===- TimingTest.cpp - Timing statistics and CSV rows --------------------===//
//
// summarizeTimes() against statistics worked out by hand, and the CSV rows
// tile-run writes for bench/run.sh.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Timing.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace tile::rt;

namespace {

TEST(Timing, OddCountStatistics) {
  // Unsorted on purpose; sorted: 1 2 3 4 10.
  Expected<TimingStats> S = summarizeTimes({3, 1, 10, 2, 4});
  ASSERT_TRUE(S) << S.message();
  EXPECT_EQ(S->Runs, 5);
  EXPECT_DOUBLE_EQ(S->MedianMs, 3);
  EXPECT_DOUBLE_EQ(S->MinMs, 1);
  EXPECT_DOUBLE_EQ(S->MaxMs, 10);
  EXPECT_DOUBLE_EQ(S->MeanMs, 4);
  // Sample variance: (9 + 4 + 1 + 0 + 36) / 4 = 12.5.
  EXPECT_DOUBLE_EQ(S->StdevMs, std::sqrt(12.5));
  // Rank 0.1 * 4 = 0.4: 1 + 0.4 * (2 - 1); rank 3.6: 4 + 0.6 * (10 - 4).
  EXPECT_DOUBLE_EQ(S->P10Ms, 1.4);
  EXPECT_DOUBLE_EQ(S->P90Ms, 7.6);
}

TEST(Timing, EvenCountMedianAndSingleRun) {
  Expected<TimingStats> S = summarizeTimes({0.5, 0.25, 1.0, 0.75});
  ASSERT_TRUE(S);
  EXPECT_DOUBLE_EQ(S->MedianMs, 0.625);
  Expected<TimingStats> One = summarizeTimes({2.5});
  ASSERT_TRUE(One);
  EXPECT_EQ(One->Runs, 1);
  EXPECT_DOUBLE_EQ(One->MedianMs, 2.5);
  EXPECT_DOUBLE_EQ(One->P10Ms, 2.5);
  EXPECT_DOUBLE_EQ(One->P90Ms, 2.5);
  EXPECT_DOUBLE_EQ(One->StdevMs, 0);
}

TEST(Timing, BadInputsAreErrors) {
  EXPECT_EQ(summarizeTimes({}).message(), "no timed runs to summarize");
  EXPECT_EQ(summarizeTimes({1, -2}).message(), "invalid time -2 ms");
  EXPECT_EQ(
      summarizeTimes({std::numeric_limits<double>::quiet_NaN()}).message(),
      "invalid time nan ms");
}

TEST(Timing, RotatingSetsCoverTheAskedBytes) {
  // 8 MiB sets over 256 MiB: 32; a partial set rounds up; never under two
  // (the next launch must not find the last one's tensors in the cache),
  // never over the cap.
  EXPECT_EQ(rotatingSets(8 << 20, 256 << 20), 32u);
  EXPECT_EQ(rotatingSets((8 << 20) + 1, 256 << 20), 32u);
  EXPECT_EQ(rotatingSets(9 << 20, 256 << 20), 29u);
  EXPECT_EQ(rotatingSets(300 << 20, 256 << 20), 2u);
  EXPECT_EQ(rotatingSets(1000, 256 << 20), 64u);
  EXPECT_EQ(rotatingSets(1000, 256 << 20, 16), 16u);
  EXPECT_EQ(rotatingSets(0, 256 << 20), 64u);
}

TEST(Timing, CsvFieldsAreQuotedWhereNeeded) {
  EXPECT_EQ(csvField("plain"), "plain");
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
}

TEST(Timing, CsvRowMatchesTheHeader) {
  TimingRecord R;
  R.Kernel = "gemm_f16";
  R.Target = "sm_90a";
  R.Device = "NVIDIA H100 80GB HBM3, rev 1";
  R.Arch = "sm_90";
  R.TestIndex = 2;
  R.Sizes = "K=4096;M=1;N=4096";
  R.Seed = 7;
  R.Checked = true;
  R.FlushedL2 = true;
  Expected<TimingStats> S = summarizeTimes({0.125, 0.25, 0.5});
  ASSERT_TRUE(S);
  R.Stats = *S;
  EXPECT_EQ(timingCsvRow(R),
            "gemm_f16,sm_90a,\"NVIDIA H100 80GB HBM3, rev 1\",sm_90,2,"
            "K=4096;M=1;N=4096,7,1,1,3,0.25,0.125,0.5,0.291667,0.190941,"
            "0.15,0.45,0");
  // As many fields as the header names (the quoted comma is one field).
  size_t HeaderFields = 1;
  for (char C : timingCsvHeader())
    HeaderFields += C == ',';
  EXPECT_EQ(HeaderFields, 18u);
  EXPECT_NE(timingCsvHeader().find(",rotate_sets"), std::string::npos);
  R.FlushedL2 = false;
  R.RotateSets = 32;
  EXPECT_EQ(timingCsvRow(R),
            "gemm_f16,sm_90a,\"NVIDIA H100 80GB HBM3, rev 1\",sm_90,2,"
            "K=4096;M=1;N=4096,7,1,0,3,0.25,0.125,0.5,0.291667,0.190941,"
            "0.15,0.45,32");
}

} // namespace
