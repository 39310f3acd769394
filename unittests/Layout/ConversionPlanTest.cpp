//===- ConversionPlanTest.cpp - Plans executed on a simulated machine -----===//

#include "LayoutTestUtils.h"

#include "tile/Layout/ConversionPlan.h"
#include "tile/Layout/LinearLayout.h"
#include "tile/Layout/MmaAtoms.h"

#include "gtest/gtest.h"

#include <map>
#include <random>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;
using Regs = std::vector<std::vector<int64_t>>; // [thread][slot]

/// A distinct value per tile element (its flat index * 7 + 3, never 0).
int64_t valueOf(const std::vector<int64_t> &shape, const Coord &c) {
  return ravel(shape, c) * 7 + 3;
}

Regs fill(const DL &l) {
  Table t = tableOf(l);
  Regs r(t.threads, std::vector<int64_t>(t.slots));
  for (int64_t th = 0; th < t.threads; ++th) {
    for (int64_t s = 0; s < t.slots; ++s)
      r[th][s] = valueOf(t.shape, t(th, s));
  }
  return r;
}

/// Runs a plan the way a code generator would, following the documented
/// semantics of ConversionPlan and nothing else. Returns false (with a
/// failure) on a malformed plan.
Regs execute(const ConversionPlan &plan, const DL &src, const DL &dst,
             const Regs &in, unsigned elemBits) {
  int64_t t = plan.numThreads, lDst = plan.dstLocalSize;
  Regs out(t, std::vector<int64_t>(lDst, -1));
  switch (plan.kind) {
  case ConversionKind::NoOp:
    return in;
  case ConversionKind::RegisterPermutation:
  case ConversionKind::WarpShuffle: {
    for (int64_t th = 0; th < t; ++th) {
      for (int64_t l = 0; l < lDst; ++l) {
        int64_t s = plan.localSource[th * lDst + l];
        if (s >= 0)
          out[th][l] = in[th][s];
      }
    }
    for (const ShuffleRound &r : plan.rounds) {
      EXPECT_EQ(static_cast<int64_t>(r.srcLane.size()), t);
      for (int64_t th = 0; th < t; ++th) {
        int64_t lane = r.srcLane[th];
        EXPECT_TRUE(lane >= 0 && lane < plan.warpSize);
        int64_t from = th - th % plan.warpSize + lane;
        int64_t v = in[from][r.sendSlot];
        if (r.dstSlot[th] >= 0)
          out[th][r.dstSlot[th]] = v;
      }
    }
    return out;
  }
  case ConversionKind::SharedMemory: {
    std::vector<int64_t> smem(plan.smem.cosize(), -1);
    Table ts = tableOf(src), td = tableOf(dst);
    // Stores in vectors: the vector's slots must be contiguous offsets.
    for (int64_t th = 0; th < t; ++th) {
      if (src.replicaIndex(th) != 0)
        continue;
      for (int64_t g = 0; g < ts.slots / plan.storeVec; ++g) {
        int64_t base = plan.smem.offset(ts(th, g * plan.storeVec));
        EXPECT_EQ(base % plan.storeVec, 0);
        for (int64_t k = 0; k < plan.storeVec; ++k) {
          int64_t s = g * plan.storeVec + k;
          EXPECT_EQ(plan.smem.offset(ts(th, s)), base + k);
          EXPECT_EQ(smem[base + k], -1) << "element stored twice";
          smem[base + k] = in[th][s];
        }
      }
    }
    for (int64_t th = 0; th < t; ++th) {
      for (int64_t g = 0; g < td.slots / plan.loadVec; ++g) {
        int64_t base = plan.smem.offset(td(th, g * plan.loadVec));
        EXPECT_EQ(base % plan.loadVec, 0);
        for (int64_t k = 0; k < plan.loadVec; ++k)
          out[th][g * plan.loadVec + k] = smem[base + k];
      }
    }
    EXPECT_LE(plan.storeVec * elemBits, 128u);
    return out;
  }
  }
  return out;
}

/// The cheapest kind, from the tables alone.
ConversionKind refKind(const Table &src, const Table &dst, int64_t w) {
  if (src == dst)
    return ConversionKind::NoOp;
  bool local = true, warp = true;
  for (int64_t t = 0; t < dst.threads; ++t) {
    for (int64_t l = 0; l < dst.slots; ++l) {
      bool inThread = false, inWarp = false;
      for (int64_t t2 = 0; t2 < src.threads; ++t2) {
        for (int64_t l2 = 0; l2 < src.slots; ++l2) {
          if (src(t2, l2) == dst(t, l)) {
            inThread |= t2 == t;
            inWarp |= t2 / w == t / w;
          }
        }
      }
      local &= inThread;
      warp &= inWarp;
    }
  }
  if (local)
    return ConversionKind::RegisterPermutation;
  return warp ? ConversionKind::WarpShuffle : ConversionKind::SharedMemory;
}

void checkPlan(const DL &src, const DL &dst, int64_t w, unsigned bits,
               const BankConfig &banks = BankConfig::nvidia()) {
  auto plan = planConversion(src, dst, w, bits, banks);
  ASSERT_TRUE(static_cast<bool>(plan))
      << src.str() << " -> " << dst.str() << ": " << toString(plan.takeError());
  Table ts = tableOf(src), td = tableOf(dst);
  ASSERT_EQ(plan->kind, refKind(ts, td, w)) << src.str() << " -> " << dst.str();
  Regs out = execute(*plan, src, dst, fill(src), bits);
  ASSERT_EQ(out, fill(dst)) << src.str() << " -> " << dst.str() << " as "
                            << stringifyConversionKind(plan->kind).str();
  // Each round moves one element per receiving thread and is useful.
  for (const ShuffleRound &r : plan->rounds) {
    bool any = false;
    for (int64_t s : r.dstSlot)
      any |= s >= 0;
    ASSERT_TRUE(any);
  }
}

/// Groups a set of samples by (shape, threads) so pairs are convertible.
std::map<std::pair<std::vector<int64_t>, int64_t>, std::vector<DL>>
groups(const std::vector<Sample> &set) {
  std::map<std::pair<std::vector<int64_t>, int64_t>, std::vector<DL>> g;
  for (const Sample &s : set) {
    g[{padRank(s.table, 2).shape, s.table.threads}].push_back(
        padTo(s.layout, 2));
  }
  return g;
}

TEST(ConversionPlan, EveryPlanExecutesCorrectly) {
  auto set = products(primitives({1, 2, 3}, {2}), 3, 48);
  std::mt19937 rng(17);
  std::map<ConversionKind, int> seen;
  int pairs = 0;
  for (auto &[key, layouts] : groups(set)) {
    std::uniform_int_distribution<size_t> pick(0, layouts.size() - 1);
    int64_t threads = key.second;
    int n = std::min<int>(60, layouts.size() * layouts.size());
    for (int i = 0; i < n; ++i) {
      const DL &a = layouts[pick(rng)], &b = layouts[pick(rng)];
      for (int64_t w : {1, 2, 3, 4}) {
        if (threads % w)
          continue;
        checkPlan(a, b, w, 32);
        if (HasFatalFailure())
          return;
        ++seen[refKind(tableOf(a), tableOf(b), w)];
        ++pairs;
      }
    }
  }
  EXPECT_GT(pairs, 1000);
  // All four kinds occur.
  EXPECT_GT(seen[ConversionKind::NoOp], 10);
  EXPECT_GT(seen[ConversionKind::RegisterPermutation], 10);
  EXPECT_GT(seen[ConversionKind::WarpShuffle], 10);
  EXPECT_GT(seen[ConversionKind::SharedMemory], 10);
}

TEST(ConversionPlan, F2ClassificationAgreesWithTables) {
  auto set = products(primitives({1, 2, 4}, {2}), 3, 64);
  std::mt19937 rng(23);
  int checked = 0;
  for (auto &[key, layouts] : groups(set)) {
    std::uniform_int_distribution<size_t> pick(0, layouts.size() - 1);
    for (int i = 0; i < 80; ++i) {
      const DL &a = layouts[pick(rng)], &b = layouts[pick(rng)];
      for (int64_t w : {1, 2, 4, 8}) {
        if (key.second % w)
          continue;
        auto la = LinearLayout::fromDistributed(a, w);
        auto lb = LinearLayout::fromDistributed(b, w);
        ASSERT_TRUE(la && lb);
        auto kind = classifyConversion(*la, *lb);
        ASSERT_TRUE(static_cast<bool>(kind));
        ASSERT_EQ(*kind, refKind(tableOf(a), tableOf(b), w))
            << a.str() << " -> " << b.str() << " w=" << w;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2000);
}

TEST(ConversionPlan, RealisticConversions) {
  // mma accumulator -> a coalesced row layout over 4 warps of 32.
  DL mmaC = DL::local({2, 1}) * DL::spatial({8, 4}) * DL::local({1, 2});
  DL acc = DL::spatial({2, 2}) * mmaC * DL::local({1, 1}); // 32x16, 4 warps
  DL rows = DL::spatial({32, 4}) * DL::local({1, 4});      // 32x16
  checkPlan(acc, rows, 32, 32);
  checkPlan(acc, rows, 32, 16);
  checkPlan(rows, acc, 32, 16);
  auto viaSmem = planConversion(acc, rows, 32, 16);
  ASSERT_TRUE(static_cast<bool>(viaSmem));
  EXPECT_EQ(viaSmem->kind, ConversionKind::SharedMemory);
  EXPECT_TRUE(viaSmem->storeCost.conflictFree());
  EXPECT_TRUE(viaSmem->loadCost.conflictFree());
  EXPECT_EQ(viaSmem->loadVec, 4);
  // Transposed register order inside a thread: a register permutation.
  auto plan =
      planConversion(DL::spatial({8, 4}) * DL::local({2, 2}),
                     DL::spatial({8, 4}) * DL::columnLocal({2, 2}), 32, 16);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->kind, ConversionKind::RegisterPermutation);
  EXPECT_TRUE(plan->uniformLocalSource);
  // Two accumulators side by side are the mma A operand layout (the
  // flash-attention "P as A" reuse needs no data movement).
  DL a = nvidiaMmaM16N8K16(MmaOperand::A);
  DL c2 = DL::local({1, 2}) * nvidiaMmaM16N8K16(MmaOperand::C); // 16x16
  EXPECT_EQ(c2, a);
  checkPlan(c2, a, 32, 16);
  // The B operand from a 16x8 accumulator needs lanes of the same warp.
  DL cB = DL::local({2, 1}) * nvidiaMmaM16N8K16(MmaOperand::C); // 32x8
  DL b2 = DL::local({2, 1}) * nvidiaMmaM16N8K16(MmaOperand::B); // 32x8
  auto shuffle = planConversion(cB, b2, 32, 16);
  ASSERT_TRUE(static_cast<bool>(shuffle));
  EXPECT_EQ(shuffle->kind, ConversionKind::WarpShuffle);
  checkPlan(cB, b2, 32, 16);
  // AMD: a wave64 layout transposed through LDS with 64 banks.
  auto mfmaC = amdMfma(32, 32, 8, MmaOperand::C);
  ASSERT_TRUE(static_cast<bool>(mfmaC));
  DL rowsAmd = DL::spatial({32, 2}) * DL::local({1, 16});
  checkPlan(*mfmaC, rowsAmd, 64, 16, BankConfig::amdCDNA());
  checkPlan(DL::spatial({2, 1}) * *mfmaC, DL::spatial({2, 1}) * rowsAmd, 64, 16,
            BankConfig::amdCDNA());
}

TEST(ConversionPlan, Errors) {
  auto shape = planConversion(DL::spatial({4}), DL::spatial({2}), 2, 32);
  ASSERT_FALSE(static_cast<bool>(shape));
  EXPECT_NE(toString(shape.takeError()).find("tile shapes"), std::string::npos);
  auto threads = planConversion(DL::spatial({4}), DL::local({4}), 1, 32);
  ASSERT_FALSE(static_cast<bool>(threads));
  EXPECT_NE(toString(threads.takeError()).find("threads"), std::string::npos);
  auto warp = planConversion(DL::spatial({4}), DL::spatial({4}), 3, 32);
  ASSERT_FALSE(static_cast<bool>(warp));
  EXPECT_NE(toString(warp.takeError()).find("warp size"), std::string::npos);
  // 4-bit elements spread one per thread cannot use byte accesses.
  auto sub =
      planConversion(DL::spatial({4, 2}), DL::columnSpatial({4, 2}), 1, 4);
  ASSERT_FALSE(static_cast<bool>(sub));
  EXPECT_NE(toString(sub.takeError()).find("byte"), std::string::npos);
}

} // namespace
