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

// Padded rows, sub-byte elements, tall tiles and short rows are refused,
// saying why.
TEST(TmaBox, LayoutsNoBoxWritesAreRefused) {
  auto why = [](const SharedLayout &l, unsigned bits) {
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(l, bits);
    EXPECT_FALSE(static_cast<bool>(plan));
    return plan ? std::string() : llvm::toString(plan.takeError());
  };
  EXPECT_NE(why(SharedLayout::rowMajor({2, 16, 64}, 8), 16)
                .find("no sequence of TMA boxes"),
            std::string::npos);
  EXPECT_NE(why(SharedLayout::rowMajor({2, 16, 64}), 4).find("4-bit"),
            std::string::npos);
  EXPECT_NE(why(SharedLayout::rowMajor({300, 64}), 16).find("256 rows"),
            std::string::npos);
  EXPECT_NE(why(SharedLayout::rowMajor({16, 4}), 16).find("8-byte rows"),
            std::string::npos);
}

} // namespace
