//===- LinearLayoutTest.cpp - F2 forms against brute force ----------------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/LinearLayout.h"

#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;

/// Power-of-two products of rank 2.
const std::vector<Sample> &pow2Set() {
  static const std::vector<Sample> set =
      products(primitives({1, 2, 4}, {2}), 3, 64);
  return set;
}

uint64_t bruteApply(llvm::ArrayRef<uint64_t> cols, uint64_t x) {
  uint64_t y = 0;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (x >> i & 1)
      y ^= cols[i];
  }
  return y;
}

F2Map randomMap(std::mt19937 &rng, unsigned in, unsigned out) {
  std::vector<uint64_t> cols;
  for (unsigned i = 0; i < in; ++i)
    cols.push_back(rng() & ((uint64_t(1) << out) - 1));
  return F2Map(in, out, cols);
}

TEST(F2Map, ApplyComposeRankMatchBruteForce) {
  std::mt19937 rng(3);
  for (int iter = 0; iter < 400; ++iter) {
    unsigned a = rng() % 7, b = rng() % 7, c = rng() % 7;
    F2Map f = randomMap(rng, a, b), g = randomMap(rng, b, c);
    F2Map gf = g.compose(f);
    std::set<uint64_t> image;
    for (uint64_t x = 0; x < (uint64_t(1) << a); ++x) {
      ASSERT_EQ(f.apply(x), bruteApply(f.columns(), x));
      ASSERT_EQ(gf.apply(x), g.apply(f.apply(x)));
      image.insert(f.apply(x));
    }
    // rank = log2 |image|.
    ASSERT_EQ(uint64_t(1) << f.rank(), image.size());
    ASSERT_EQ(f.isSurjective(), image.size() == (uint64_t(1) << b));
    for (uint64_t y = 0; y < (uint64_t(1) << b); ++y)
      ASSERT_EQ(f.inImage(y), image.count(y) == 1);
  }
}

TEST(F2Map, InverseAndRightInverse) {
  std::mt19937 rng(9);
  int bijective = 0, surjective = 0;
  for (int iter = 0; iter < 600; ++iter) {
    unsigned in = rng() % 7, out = rng() % 7;
    F2Map f = randomMap(rng, in, out);
    auto r = f.rightInverse();
    ASSERT_EQ(r.has_value(), f.isSurjective());
    if (r) {
      ++surjective;
      for (uint64_t y = 0; y < (uint64_t(1) << out); ++y)
        ASSERT_EQ(f.apply(r->apply(y)), y);
    }
    auto inv = f.invert();
    ASSERT_EQ(inv.has_value(), in == out && f.isInjective());
    if (inv) {
      ++bijective;
      for (uint64_t x = 0; x < (uint64_t(1) << in); ++x) {
        ASSERT_EQ(inv->apply(f.apply(x)), x);
        ASSERT_EQ(f.apply(inv->apply(x)), x);
      }
    }
  }
  EXPECT_GT(bijective, 20);
  EXPECT_GT(surjective, bijective);
}

TEST(F2Map, RightInversePrefersLowInputs) {
  // Bits 0 and 2 both map to output bit 0: the preimage uses bit 0.
  F2Map f(3, 2, {1, 2, 1});
  auto r = f.rightInverse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->apply(1), 1u);
  EXPECT_EQ(r->apply(3), 3u);
}

TEST(LinearLayout, RoundTripsAndMatchesTables) {
  int converted = 0;
  for (const Sample &s : pow2Set()) {
    for (int64_t w : {1, 2, 4, 8}) {
      auto ll = LinearLayout::fromDistributed(s.layout, w);
      if (s.table.threads % w != 0) {
        ASSERT_FALSE(static_cast<bool>(ll));
        consumeError(ll.takeError());
        continue;
      }
      ASSERT_TRUE(static_cast<bool>(ll)) << s.text;
      ++converted;
      EXPECT_EQ(int64_t(1) << ll->regBits(), s.table.slots);
      EXPECT_EQ(int64_t(1) << ll->laneBits(), w);
      EXPECT_EQ(int64_t(1) << (ll->laneBits() + ll->warpBits()),
                s.table.threads);
      // Linearity: every (t, l) is the XOR of the bases of its bits.
      for (int64_t t = 0; t < s.table.threads; ++t) {
        for (int64_t l = 0; l < s.table.slots; ++l) {
          auto c = ll->apply(t, l);
          ASSERT_EQ(Coord(c.begin(), c.end()), s.table(t, l)) << s.text;
        }
      }
      auto back = ll->toDistributed();
      ASSERT_TRUE(static_cast<bool>(back)) << s.text;
      ASSERT_EQ(*back, s.layout) << s.text;
    }
  }
  EXPECT_GT(converted, 1000);
}

TEST(LinearLayout, InvertAndComposeInverse) {
  std::mt19937 rng(1);
  const auto &set = pow2Set();
  std::uniform_int_distribution<size_t> pick(0, set.size() - 1);
  int checked = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const Sample &a = set[pick(rng)], &b = set[pick(rng)];
    if (a.table.shape != b.table.shape)
      continue;
    auto la = LinearLayout::fromDistributed(a.layout, 1);
    auto lb = LinearLayout::fromDistributed(b.layout, 1);
    ASSERT_TRUE(la && lb);
    // Bijective layouts invert exactly.
    auto inv = la->invert();
    ASSERT_EQ(inv.has_value(),
              a.layout.replication() == 1 &&
                  a.table.threads * a.table.slots == product(a.table.shape));
    if (inv) {
      for (int64_t t = 0; t < a.table.threads; ++t) {
        for (int64_t l = 0; l < a.table.slots; ++l) {
          ASSERT_EQ(inv->apply(la->applyFlat(t, l)),
                    uint64_t(l) | uint64_t(t) << la->regBits());
        }
      }
    }
    // a's inputs -> b's inputs holding the same element.
    auto m = la->composeInverse(*lb);
    ASSERT_TRUE(m);
    for (int64_t t = 0; t < a.table.threads; ++t) {
      for (int64_t l = 0; l < a.table.slots; ++l) {
        uint64_t x = m->apply(uint64_t(l) | uint64_t(t) << la->regBits());
        int64_t tb = x >> lb->regBits(), lbSlot = x & (b.table.slots - 1);
        ASSERT_EQ(b.table(tb, lbSlot), a.table(t, l));
        // ... and it is the lowest holder.
        auto hs = b.layout.holders(a.table(t, l));
        ASSERT_EQ(hs.front().thread, tb);
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(LinearLayout, RejectsWhatItCannotRepresent) {
  auto nonPow2 = LinearLayout::fromDistributed(DL::spatial({3, 4}), 4);
  ASSERT_FALSE(static_cast<bool>(nonPow2));
  EXPECT_NE(toString(nonPow2.takeError()).find("not a power of two"),
            std::string::npos);
  auto badWarp = LinearLayout::fromDistributed(DL::spatial({8, 4}), 6);
  ASSERT_FALSE(static_cast<bool>(badWarp));
  consumeError(badWarp.takeError());
  auto fewThreads = LinearLayout::fromDistributed(DL::spatial({4, 4}), 32);
  ASSERT_FALSE(static_cast<bool>(fewThreads));
  EXPECT_NE(toString(fewThreads.takeError()).find("multiple of the warp"),
            std::string::npos);
  // A swizzled (XOR) map is linear but not a distributed layout.
  LinearLayout xorL({2, 2}, 0, 2, 0, F2Map(2, 2, {1, 3}));
  auto x = xorL.toDistributed();
  ASSERT_FALSE(static_cast<bool>(x));
  EXPECT_NE(toString(x.takeError()).find("XOR"), std::string::npos);
  // A register broadcast (zero register basis).
  LinearLayout bcast({2}, 1, 1, 0, F2Map(2, 1, {0, 1}));
  auto y = bcast.toDistributed();
  ASSERT_FALSE(static_cast<bool>(y));
  EXPECT_NE(toString(y.takeError()).find("register"), std::string::npos);
  // Two inputs on the same output bit.
  LinearLayout dup({2}, 1, 1, 0, F2Map(2, 1, {1, 1}));
  auto z = dup.toDistributed();
  ASSERT_FALSE(static_cast<bool>(z));
  consumeError(z.takeError());
}

TEST(LinearLayout, MmaAccumulatorBases) {
  // Triton's linear layout of the m16n8 accumulator: reg bits (0,1),(8,0);
  // lane bits (0,2),(0,4),(1,0),(2,0),(4,0).
  DL c = DL::local({2, 1}) * DL::spatial({8, 4}) * DL::local({1, 2});
  auto ll = LinearLayout::fromDistributed(c, 32);
  ASSERT_TRUE(static_cast<bool>(ll));
  EXPECT_EQ(ll->str(),
            "reg=[(0,1),(8,0)] lane=[(0,2),(0,4),(1,0),(2,0),(4,0)] warp=[]");
}

} // namespace
