//===- TmaBoxTest.cpp - TMA boxes for shared-memory tiles -----------------===//
//
// What a TMA box writes is written here from the PTX ISA's description
// (dense box, innermost dimension fastest, then the swizzle on address bits
// [4, 4 + b) XOR [7, 7 + b)), bit by bit, independently of lib/Layout; the
// plans for the layouts tilec gives wgmma operands must reproduce every
// element's offset, and layouts no box writes must be refused.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/TmaBox.h"
#include "tile/Layout/WgmmaOperand.h"

#include "LayoutTestUtils.h"

#include "gtest/gtest.h"

using namespace tile::layout;

namespace {

/// The layout AllocateShared gives a ring of wgmma operand tiles.
SharedLayout wgmmaRing(std::vector<int64_t> shape, unsigned bits) {
  llvm::Expected<SharedLayout> tile =
      wgmmaRowMajorLayout(llvm::ArrayRef<int64_t>(shape).take_back(2), bits);
  EXPECT_TRUE(static_cast<bool>(tile)) << llvm::toString(tile.takeError());
  return SharedLayout::rowMajor(shape).withSwizzle(tile->swizzle());
}

/// Checks `plan` against the boxes' bytes as TMA writes them.
void expectBoxesWrite(const SharedLayout &ring, const TmaBoxPlan &plan,
                      int64_t bytes) {
  llvm::ArrayRef<int64_t> shape = ring.shape();
  for (int64_t s = 0; s < shape[0]; ++s)
    for (int64_t r = 0; r < shape[1]; ++r)
      for (int64_t c = 0; c < shape[2]; ++c) {
        int64_t box = c / plan.boxCols, inBox = c % plan.boxCols;
        int64_t dense = (r * plan.boxCols + inBox) * bytes;
        int64_t base = s * plan.stageBytes + plan.boxOffsets[box];
        ASSERT_EQ(base % plan.alignment, 0);
        ASSERT_EQ(ring.offset({s, r, c}) * bytes,
                  base + test::hardwareSwizzle(dense, plan.swizzleBytes))
            << "stage " << s << " row " << r << " col " << c;
      }
}

// A B operand 64 x 256 f16 (four 128-byte column blocks): four boxes of 64
// columns with the 128-byte swizzle, 8 KB apart.
TEST(TmaBox, WideWgmmaOperandIsFourSwizzledBoxes) {
  SharedLayout ring = wgmmaRing({3, 64, 256}, 16);
  llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(ring, 16);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->swizzleBytes, 128u);
  EXPECT_EQ(plan->boxCols, 64);
  EXPECT_EQ(plan->boxRows, 64);
  EXPECT_EQ(plan->stageBytes, 64 * 256 * 2);
  EXPECT_EQ(plan->alignment, 1024);
  ASSERT_EQ(plan->boxOffsets.size(), 4u);
  EXPECT_EQ(plan->boxOffsets[1], 64 * 128);
  expectBoxesWrite(ring, *plan, 2);
}

// An A operand 128 x 64 f16 and an f8 one 128 x 128: one box each; a
// 32-column f16 tile uses the 64-byte swizzle.
TEST(TmaBox, NarrowOperandsAreOneBox) {
  for (auto [shape, bits, swizzle] :
       {std::tuple<std::vector<int64_t>, unsigned, unsigned>{
            {4, 128, 64}, 16, 128},
        {{2, 128, 128}, 8, 128},
        {{3, 64, 32}, 16, 64}}) {
    SharedLayout ring = wgmmaRing(shape, bits);
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(ring, bits);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->swizzleBytes, swizzle);
    EXPECT_EQ(plan->boxOffsets.size(), 1u);
    expectBoxesWrite(ring, *plan, bits / 8);
  }
}

// A plain row-major tile is one unswizzled box of whole rows.
TEST(TmaBox, RowMajorTileIsOneUnswizzledBox) {
  SharedLayout ring = SharedLayout::rowMajor({2, 16, 64});
  llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(ring, 16);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->swizzleBytes, 0u);
  EXPECT_EQ(plan->boxCols, 64);
  EXPECT_EQ(plan->alignment, 128);
  expectBoxesWrite(ring, *plan, 2);
}

// Attention's K and V tiles are 1 x 1 x BN x D tiles of [B, H, N, D]
// tensors: a ring 2 x 1 x 1 x 64 x 128 f16 is two 128-byte swizzled boxes
// per stage, placed as in the ring of the 2-D tiles; a non-unit middle
// dimension is refused.
TEST(TmaBox, RingsOfTilesWithUnitDimensionsAreBoxesOfTheirLastTwo) {
  SharedLayout flat = wgmmaRing({2, 64, 128}, 16);
  llvm::Expected<TmaBoxPlan> flatPlan = planTmaBoxes(flat, 16);
  ASSERT_TRUE(static_cast<bool>(flatPlan))
      << llvm::toString(flatPlan.takeError());
  SharedLayout ring = wgmmaRing({2, 1, 1, 64, 128}, 16);
  llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(ring, 16);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->swizzleBytes, 128u);
  EXPECT_EQ(plan->boxRows, 64);
  EXPECT_EQ(plan->boxCols, 64);
  EXPECT_EQ(plan->stageBytes, 64 * 128 * 2);
  EXPECT_EQ(plan->boxOffsets, flatPlan->boxOffsets);
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t r = 0; r < 64; ++r)
      for (int64_t c = 0; c < 128; ++c) {
        int64_t dense = (r * plan->boxCols + c % plan->boxCols) * 2;
        ASSERT_EQ(ring.offset({s, 0, 0, r, c}) * 2,
                  s * plan->stageBytes + plan->boxOffsets[c / plan->boxCols] +
                      test::hardwareSwizzle(dense, plan->swizzleBytes))
            << "stage " << s << " row " << r << " col " << c;
      }
  llvm::Expected<TmaBoxPlan> tile =
      planTmaBoxes(wgmmaRing({1, 1, 64, 128}, 16), 16);
  ASSERT_TRUE(static_cast<bool>(tile)) << llvm::toString(tile.takeError());
  EXPECT_EQ(tile->boxOffsets, flatPlan->boxOffsets);
  llvm::Expected<TmaBoxPlan> wide =
      planTmaBoxes(SharedLayout::rowMajor({2, 2, 16, 64}), 16);
  ASSERT_FALSE(static_cast<bool>(wide));
  EXPECT_NE(llvm::toString(wide.takeError()).find("dimension 1"),
            std::string::npos);
}

// Padded rows, sub-byte rows of no whole 16 bytes, stages off 128-byte
// boundaries, tall tiles and short rows are refused, saying why.
TEST(TmaBox, LayoutsNoBoxWritesAreRefused) {
  auto why = [](const SharedLayout &l, unsigned bits) {
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(l, bits);
    EXPECT_FALSE(static_cast<bool>(plan));
    return plan ? std::string() : llvm::toString(plan.takeError());
  };
  EXPECT_NE(why(SharedLayout::rowMajor({2, 16, 64}, 8), 16)
                .find("no sequence of TMA boxes"),
            std::string::npos);
  // Sub-byte rows of 40 x 3 bits are 15 bytes; padded ones are no box.
  EXPECT_NE(why(SharedLayout::rowMajor({2, 16, 40}), 3).find("3-bit"),
            std::string::npos);
  EXPECT_NE(why(SharedLayout::rowMajor({2, 16, 64}, 8), 4).find("dense rows"),
            std::string::npos);
  // Stages of 1 x 32 f16 (64 bytes) or 1 x 128 u2 (32 bytes) would start
  // TMA writes off 128-byte boundaries.
  EXPECT_NE(why(SharedLayout::rowMajor({3, 1, 128}), 2).find("128-byte"),
            std::string::npos);
  EXPECT_FALSE(
      static_cast<bool>(planTmaBoxes(SharedLayout::rowMajor({3, 1, 32}), 16)));
  EXPECT_NE(why(SharedLayout::rowMajor({300, 64}), 16).find("256 rows"),
            std::string::npos);
  EXPECT_NE(why(SharedLayout::rowMajor({16, 4}), 16).find("8-byte rows"),
            std::string::npos);
}

// Packed weights (1- to 7-bit elements) are copied as bytes: a ring of
// dense rows is one unswizzled box per stage whose columns count bytes
// (u4 128 x 64: 32 bytes a row; u3 64 x 256: 96), and every element's bit
// offset is where the box's bytes put it.
TEST(TmaBox, PackedTilesAreBoxesOfBytes) {
  for (auto [shape, bits] :
       {std::pair<std::vector<int64_t>, unsigned>{{3, 128, 64}, 4},
        {{3, 64, 256}, 3},
        {{2, 64, 512}, 1},
        {{4, 32, 128}, 6}}) {
    SharedLayout ring = SharedLayout::rowMajor(shape);
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(ring, bits);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_EQ(plan->unitBits, 8u);
    EXPECT_EQ(plan->swizzleBytes, 0u);
    EXPECT_EQ(plan->boxRows, shape[1]);
    EXPECT_EQ(plan->boxCols, shape[2] * bits / 8);
    EXPECT_EQ(plan->stageBytes, shape[1] * shape[2] * bits / 8);
    ASSERT_EQ(plan->boxOffsets.size(), 1u);
    for (int64_t st = 0; st < shape[0]; ++st)
      for (int64_t r = 0; r < shape[1]; ++r)
        for (int64_t c = 0; c < shape[2]; ++c)
          ASSERT_EQ(ring.offset({st, r, c}) * bits,
                    (st * plan->stageBytes + r * plan->boxCols) * 8 + c * bits)
              << "stage " << st << " row " << r << " col " << c;
  }
  // Whole bytes keep their element: an f16 plan counts f16 columns.
  llvm::Expected<TmaBoxPlan> f16 =
      planTmaBoxes(SharedLayout::rowMajor({2, 16, 64}), 16);
  ASSERT_TRUE(static_cast<bool>(f16));
  EXPECT_EQ(f16->unitBits, 16u);
}

// planTmaRing: the wgmma layout's swizzle for whole-byte tiles (as
// AllocateShared gives wgmma operands); dense rows for packed tiles and for
// tiles of fewer than 8 rows whose swizzled stages have no plan (a row of
// 128 scales: 256 bytes a stage, no 1024-byte swizzle pattern each).
TEST(TmaBox, RingsTmaFills) {
  llvm::Expected<TmaRing> operand = planTmaRing({3, 128, 64}, 16);
  ASSERT_TRUE(static_cast<bool>(operand))
      << llvm::toString(operand.takeError());
  EXPECT_EQ(operand->layout, wgmmaRing({3, 128, 64}, 16));
  EXPECT_EQ(operand->plan.swizzleBytes, 128u);
  llvm::Expected<TmaRing> scales = planTmaRing({3, 1, 128}, 16);
  ASSERT_TRUE(static_cast<bool>(scales)) << llvm::toString(scales.takeError());
  EXPECT_EQ(scales->layout, SharedLayout::rowMajor({3, 1, 128}));
  EXPECT_EQ(scales->plan.swizzleBytes, 0u);
  EXPECT_EQ(scales->plan.stageBytes, 256);
  llvm::Expected<TmaRing> packed = planTmaRing({3, 64, 256}, 2);
  ASSERT_TRUE(static_cast<bool>(packed)) << llvm::toString(packed.takeError());
  EXPECT_EQ(packed->layout, SharedLayout::rowMajor({3, 64, 256}));
  EXPECT_EQ(packed->plan.boxCols, 64);
  // Half a scale row per stage (64 bytes): no plan, swizzled or not.
  EXPECT_FALSE(static_cast<bool>(planTmaRing({3, 1, 32}, 16)));
}

} // namespace
