//===- MmaAtomsTest.cpp - Atoms against the ISA fragment maps -------------===//
//
// The expected maps are the formulas printed in the PTX ISA ("Matrix
// Fragments for mma.m16n8k16 with floating point type", "... mma.m16n8k32",
// "ldmatrix") and the AMD CDNA3 ISA / AMD matrix instruction calculator
// (wave64 MFMA operand and result maps), written out independently of the
// library's product-of-primitives form.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/MmaAtoms.h"

#include "gtest/gtest.h"

#include <functional>
#include <set>
#include <tuple>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using Formula = std::function<Coord(int64_t lane, int64_t i)>;

void expectAtom(const DistributedLayout &l, const std::vector<int64_t> &shape,
                int64_t lanes, int64_t perLane, const Formula &f) {
  ASSERT_EQ(std::vector<int64_t>(l.shape().begin(), l.shape().end()), shape);
  ASSERT_EQ(l.numThreads(), lanes);
  ASSERT_EQ(l.localSize(), perLane);
  std::set<Coord> covered;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    for (int64_t i = 0; i < perLane; ++i) {
      auto c = l.apply(lane, i);
      Coord want = f(lane, i);
      ASSERT_EQ(Coord(c.begin(), c.end()), want)
          << "lane " << lane << " element " << i << " of " << l.str();
      covered.insert(want);
    }
  }
  // Every atom holds each element exactly once.
  EXPECT_EQ(static_cast<int64_t>(covered.size()), lanes * perLane);
  EXPECT_EQ(static_cast<int64_t>(covered.size()), product(shape));
}

// PTX: groupID = laneid >> 2, threadID_in_group = laneid % 4.
int64_t group(int64_t lane) { return lane >> 2; }
int64_t tig(int64_t lane) { return lane % 4; }

TEST(MmaAtoms, NvidiaM16N8K16) {
  expectAtom(nvidiaMmaM16N8K16(MmaOperand::A), {16, 16}, 32, 8,
             [](int64_t lane, int64_t i) {
               int64_t row =
                   (i < 2 || (i >= 4 && i < 6)) ? group(lane) : group(lane) + 8;
               int64_t col = tig(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0);
               return Coord{row, col};
             });
  expectAtom(nvidiaMmaM16N8K16(MmaOperand::B), {16, 8}, 32, 4,
             [](int64_t lane, int64_t i) {
               int64_t row = tig(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0);
               return Coord{row, group(lane)};
             });
  expectAtom(nvidiaMmaM16N8K16(MmaOperand::C), {16, 8}, 32, 4,
             [](int64_t lane, int64_t i) {
               int64_t row = i < 2 ? group(lane) : group(lane) + 8;
               return Coord{row, tig(lane) * 2 + (i & 1)};
             });
}

TEST(MmaAtoms, NvidiaM16N8K32Int8) {
  expectAtom(nvidiaMmaM16N8K32Int8(MmaOperand::A), {16, 32}, 32, 16,
             [](int64_t lane, int64_t i) {
               int64_t row = (i < 4 || (i >= 8 && i < 12)) ? group(lane)
                                                           : group(lane) + 8;
               int64_t col = tig(lane) * 4 + (i & 3) + (i >= 8 ? 16 : 0);
               return Coord{row, col};
             });
  expectAtom(nvidiaMmaM16N8K32Int8(MmaOperand::B), {32, 8}, 32, 8,
             [](int64_t lane, int64_t i) {
               int64_t row = tig(lane) * 4 + (i & 3) + (i >= 4 ? 16 : 0);
               return Coord{row, group(lane)};
             });
  expectAtom(nvidiaMmaM16N8K32Int8(MmaOperand::C), {16, 8}, 32, 4,
             [](int64_t lane, int64_t i) {
               int64_t row = i < 2 ? group(lane) : group(lane) + 8;
               return Coord{row, tig(lane) * 2 + (i & 1)};
             });
}

TEST(MmaAtoms, NvidiaWgmmaAccumulator) {
  // PTX ISA, "Matrix fragments for wgmma.m64nNk16" (accumulator D): thread
  // t of the warpgroup holds d[i], i < N / 2, at
  //   row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i % 4) / 2),
  //   col = 8 * (i / 4) + 2 * (t % 4) + i % 2.
  for (unsigned n : {8u, 16u, 64u, 128u, 256u}) {
    auto d = nvidiaWgmmaAccumulator(n);
    ASSERT_TRUE(static_cast<bool>(d));
    expectAtom(*d, {64, int64_t(n)}, 128, n / 2, [](int64_t t, int64_t i) {
      int64_t row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i % 4) / 2);
      int64_t col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
      return Coord{row, col};
    });
  }
  // The mma.sync layout of a 128 x 64 tile with its 4 warps along M
  // (tile-infer-layouts' choice) is two m64n64 accumulators, one per 64
  // rows.
  DistributedLayout tile = DistributedLayout::local({2, 8}) *
                           DistributedLayout::spatial({4, 1}) *
                           nvidiaMmaM16N8K16(MmaOperand::C);
  auto quotient = tile.divideRight(*nvidiaWgmmaAccumulator(64));
  ASSERT_TRUE(quotient.has_value());
  EXPECT_EQ(*quotient, DistributedLayout::local({2, 1}));
  for (unsigned bad : {0u, 12u, 264u}) {
    auto e = nvidiaWgmmaAccumulator(bad);
    ASSERT_FALSE(static_cast<bool>(e));
    consumeError(e.takeError());
  }
}

TEST(MmaAtoms, NvidiaLdmatrix) {
  // Matrix j is register j; a register holds two b16 (slots 2j, 2j+1).
  // Without .trans thread t gets row t/4, cols 2(t%4), 2(t%4)+1 of each
  // matrix; with .trans the transpose.
  for (unsigned num : {1u, 2u, 4u}) {
    for (unsigned rows : {1u, 2u, 4u}) {
      if (num % rows)
        continue;
      for (bool trans : {false, true}) {
        auto l = nvidiaLdmatrix(num, trans, rows);
        ASSERT_TRUE(static_cast<bool>(l));
        int64_t cols = num / rows;
        expectAtom(*l, {8 * rows, 8 * cols}, 32, 2 * num,
                   [&](int64_t lane, int64_t i) {
                     int64_t j = i / 2, half = i % 2;
                     int64_t r = lane / 4, c = 2 * (lane % 4) + half;
                     if (trans)
                       std::swap(r, c);
                     return Coord{8 * (j % rows) + r, 8 * (j / rows) + c};
                   });
      }
    }
  }
  // ldmatrix.x4 in 2x2 blocks is exactly the mma A fragment, and .x2.trans
  // stacked vertically is exactly the mma B fragment.
  EXPECT_EQ(*nvidiaLdmatrix(4, false, 2), nvidiaMmaM16N8K16(MmaOperand::A));
  EXPECT_EQ(*nvidiaLdmatrix(2, true, 2), nvidiaMmaM16N8K16(MmaOperand::B));
  auto bad = nvidiaLdmatrix(3, false);
  ASSERT_FALSE(static_cast<bool>(bad));
  consumeError(bad.takeError());
  auto badRows = nvidiaLdmatrix(4, false, 3);
  ASSERT_FALSE(static_cast<bool>(badRows));
  consumeError(badRows.takeError());
}

TEST(MmaAtoms, AmdMfmaWave64) {
  // AMD matrix instruction calculator, f16/bf16 MFMA on wave64:
  //  A[i][k]: lane = i + M * (k / kPer), item = k % kPer, kPer = K*M/64;
  //  B[k][j]: lane = j + N * (k / kPer), item = k % kPer;
  //  D[i][j]: lane = j + N * ((i / 4) % (64 / N)),
  //           item = i % 4 + 4 * (i / (4 * 64 / N)).
  struct Shape {
    int64_t m, n, k;
  };
  for (Shape s : {Shape{16, 16, 16}, Shape{32, 32, 8}, Shape{16, 16, 32},
                  Shape{32, 32, 16}}) {
    int64_t kPer = s.k * s.m / 64;
    auto a = amdMfma(s.m, s.n, s.k, MmaOperand::A);
    ASSERT_TRUE(static_cast<bool>(a));
    expectAtom(*a, {s.m, s.k}, 64, kPer, [&](int64_t lane, int64_t item) {
      return Coord{lane % s.m, (lane / s.m) * kPer + item};
    });
    auto b = amdMfma(s.m, s.n, s.k, MmaOperand::B);
    ASSERT_TRUE(static_cast<bool>(b));
    expectAtom(*b, {s.k, s.n}, 64, kPer, [&](int64_t lane, int64_t item) {
      return Coord{(lane / s.n) * kPer + item, lane % s.n};
    });
    auto c = amdMfma(s.m, s.n, s.k, MmaOperand::C);
    ASSERT_TRUE(static_cast<bool>(c));
    int64_t groups = 64 / s.n;
    expectAtom(
        *c, {s.m, s.n}, 64, s.m * s.n / 64, [&](int64_t lane, int64_t item) {
          int64_t row = item % 4 + 4 * (lane / s.n) + 4 * groups * (item / 4);
          return Coord{row, lane % s.n};
        });
  }
  auto bad = amdMfma(16, 16, 8, MmaOperand::A);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(toString(bad.takeError()).find("16x16x8"), std::string::npos);
}

TEST(MmaAtoms, AmdMfmaInt8Wave64) {
  // CDNA3 ISA (v_mfma_i32_16x16x32_i8, v_mfma_i32_32x32x16_i8) and CDNA4 ISA
  // (v_mfma_i32_16x16x64_i8, v_mfma_i32_32x32x32_i8): SRC0 of lane l is a
  // 64-bit (128-bit) register of kPer = K * M / 64 bytes; byte b holds
  //  A[l % M][(l / M) * kPer + b], and SRC1 byte b holds
  //  B[(l / N) * kPer + b][l % N]; the i32 result D as for f16.
  struct Shape {
    int64_t m, n, k, registerBits;
  };
  for (Shape s : {Shape{16, 16, 32, 64}, Shape{32, 32, 16, 64},
                  Shape{16, 16, 64, 128}, Shape{32, 32, 32, 128}}) {
    int64_t kPer = s.registerBits / 8;
    ASSERT_EQ(kPer, s.k * s.m / 64);
    auto a = amdMfmaInt8(s.m, s.n, s.k, MmaOperand::A);
    ASSERT_TRUE(static_cast<bool>(a));
    expectAtom(*a, {s.m, s.k}, 64, kPer, [&](int64_t lane, int64_t byte) {
      return Coord{lane % s.m, (lane / s.m) * kPer + byte};
    });
    auto b = amdMfmaInt8(s.m, s.n, s.k, MmaOperand::B);
    ASSERT_TRUE(static_cast<bool>(b));
    expectAtom(*b, {s.k, s.n}, 64, kPer, [&](int64_t lane, int64_t byte) {
      return Coord{(lane / s.n) * kPer + byte, lane % s.n};
    });
    auto c = amdMfmaInt8(s.m, s.n, s.k, MmaOperand::C);
    ASSERT_TRUE(static_cast<bool>(c));
    expectAtom(
        *c, {s.m, s.n}, 64, s.m * s.n / 64, [&](int64_t lane, int64_t item) {
          // 16x16: D[4 (l / 16) + item][l % 16]; 32x32: item = 4 j + r
          // covers rows 8 j + 4 (l / 32) + r.
          int64_t row = s.m == 16 ? 4 * (lane / 16) + item
                                  : 8 * (item / 4) + 4 * (lane / 32) + item % 4;
          return Coord{row, lane % s.n};
        });
  }
  // Spot checks written out by hand: 32x32x16 lane 37 byte 5 is A[5][13];
  // 16x16x64 lane 50 byte 15 is B[63][2].
  auto a = amdMfmaInt8(32, 32, 16, MmaOperand::A);
  ASSERT_TRUE(static_cast<bool>(a));
  auto at = a->apply(37, 5);
  EXPECT_EQ(Coord(at.begin(), at.end()), (Coord{5, 13}));
  auto b = amdMfmaInt8(16, 16, 64, MmaOperand::B);
  ASSERT_TRUE(static_cast<bool>(b));
  auto bt = b->apply(50, 15);
  EXPECT_EQ(Coord(bt.begin(), bt.end()), (Coord{63, 2}));
  // The f16 shapes with 4 elements per lane have no i8 counterpart.
  for (auto [m, n, k] : {std::tuple<unsigned, unsigned, unsigned>{16, 16, 16},
                         {32, 32, 8},
                         {16, 16, 8}}) {
    auto bad = amdMfmaInt8(m, n, k, MmaOperand::A);
    ASSERT_FALSE(static_cast<bool>(bad));
    EXPECT_NE(toString(bad.takeError()).find("no i8 MFMA"), std::string::npos);
  }
}

TEST(MmaAtoms, TileLayoutsDivideByAtoms) {
  // A 64x32 warp tile of mma A fragments (4 x 2 atoms, atom-major in
  // registers) divides by the atom and the quotient is local(4,2).
  auto atom = nvidiaMmaM16N8K16(MmaOperand::A);
  auto tile = DistributedLayout::local({4, 2}) * atom;
  auto q = tile.divideRight(atom);
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, DistributedLayout::local({4, 2}));
  // A coalesced row layout does not.
  auto rows =
      DistributedLayout::spatial({16, 2}) * DistributedLayout::local({1, 8});
  EXPECT_FALSE(rows.divideRight(atom).has_value());
}

} // namespace
