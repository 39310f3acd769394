//===- TmaBox.cpp - TMA boxes that write a shared-memory tile -------------===//
//
// Part of tilec. See TmaBox.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/TmaBox.h"
#include "tile/Layout/WgmmaOperand.h"

#include "llvm/ADT/Twine.h"

using namespace tile::layout;

static llvm::Error fail(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

int64_t tile::layout::tmaSwizzle(int64_t offset, unsigned swizzleBytes) {
  if (swizzleBytes == 0)
    return offset;
  int64_t mask = swizzleBytes / 16 - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

/// Whether boxes of `boxCols` columns with swizzle `swizzleBytes` write
/// `layout` (stages x 1 x ... x 1 x rows x cols, or rows x cols; elements
/// of `bytes` bytes); fills `plan`.
static bool matches(const SharedLayout &layout, int64_t bytes,
                    unsigned swizzleBytes, int64_t boxCols, TmaBoxPlan &plan) {
  llvm::ArrayRef<int64_t> shape = layout.shape();
  bool ring = shape.size() >= 3;
  int64_t stages = ring ? shape[0] : 1, rows = shape[shape.size() - 2],
          cols = shape.back();
  llvm::SmallVector<int64_t, 5> index(shape.size(), 0);
  auto offsetOf = [&](int64_t s, int64_t r, int64_t c) {
    if (ring)
      index.front() = s;
    index[shape.size() - 2] = r;
    index.back() = c;
    return layout.offset(index) * bytes;
  };
  plan = TmaBoxPlan();
  plan.unitBits = unsigned(bytes * 8);
  plan.swizzleBytes = swizzleBytes;
  plan.boxRows = rows;
  plan.boxCols = boxCols;
  plan.stageBytes = rows * cols * bytes;
  plan.alignment = swizzleBytes ? 8 * swizzleBytes : 128;
  for (int64_t c0 = 0; c0 < cols; c0 += boxCols) {
    int64_t start = offsetOf(0, 0, c0);
    // The swizzle acts on address bits: a box must start on a pattern.
    if (start % plan.alignment != 0)
      return false;
    plan.boxOffsets.push_back(start);
  }
  // Each stage's boxes start where its swizzle pattern does (TMA writes
  // shared memory from 128-byte aligned addresses).
  if (ring && plan.stageBytes % plan.alignment != 0)
    return false;
  int64_t rowBytes = boxCols * bytes;
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t want =
            s * plan.stageBytes + plan.boxOffsets[c / boxCols] +
            tmaSwizzle(r * rowBytes + (c % boxCols) * bytes, swizzleBytes);
        if (offsetOf(s, r, c) != want)
          return false;
      }
  return true;
}

/// The plan for a ring of sub-byte tiles (planTmaBoxes): one unswizzled
/// box of whole rows per stage, read as bytes, where the layout is dense
/// (element (s, r, c) at s * rows * cols + r * cols + c).
static llvm::Expected<TmaBoxPlan> planPackedBoxes(const SharedLayout &layout,
                                                  unsigned elemBits) {
  llvm::ArrayRef<int64_t> shape = layout.shape();
  bool ring = shape.size() >= 3;
  int64_t stages = ring ? shape[0] : 1, rows = shape[shape.size() - 2],
          cols = shape.back();
  if ((cols * elemBits) % 128 != 0 || cols * elemBits > 256 * 8)
    return fail("a TMA box of " + llvm::Twine(elemBits) +
                "-bit elements is whole rows of bytes: " + llvm::Twine(cols) +
                " columns are " + llvm::Twine(cols * elemBits) +
                " bits, not a multiple of 16 bytes of at most 256");
  if (rows > 256)
    return fail("a TMA box has at most 256 rows, the tile has " +
                llvm::Twine(rows));
  llvm::SmallVector<int64_t, 5> index(shape.size(), 0);
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        if (ring)
          index.front() = s;
        index[shape.size() - 2] = r;
        index.back() = c;
        if (layout.offset(index) != (s * rows + r) * cols + c)
          return fail("TMA copies " + llvm::Twine(elemBits) +
                      "-bit elements as dense rows of bytes; the layout " +
                      layout.str() + " is not");
      }
  if (ring && rows * cols * elemBits / 8 % 128 != 0)
    return fail("a TMA copy writes shared memory from 128-byte aligned "
                "addresses: stages of " +
                llvm::Twine(rows * cols * elemBits / 8) + " bytes are not");
  TmaBoxPlan plan;
  plan.unitBits = 8;
  plan.boxRows = rows;
  plan.boxCols = cols * elemBits / 8;
  plan.stageBytes = rows * cols * elemBits / 8;
  plan.boxOffsets.push_back(0);
  return plan;
}

llvm::Expected<TmaBoxPlan>
tile::layout::planTmaBoxes(const SharedLayout &layout, unsigned elemBits) {
  llvm::ArrayRef<int64_t> shape = layout.shape();
  if (shape.size() < 2)
    return fail("TMA boxes are planned for 2-D tiles (or rings of them), "
                "not a rank-" +
                llvm::Twine(shape.size()) + " buffer");
  // A ring of N-D tiles whose dimensions but the last two are 1 (attention's
  // 1 x 1 x BN x D tiles of a [B, H, N, D] tensor): one 2-D box per stage.
  for (size_t d = 1; d + 2 < shape.size(); ++d)
    if (shape[d] != 1)
      return fail("TMA boxes are planned for tiles whose dimensions but the "
                  "last two are 1; dimension " +
                  llvm::Twine(d) + " of " + layout.str() + " is " +
                  llvm::Twine(shape[d]));
  if (elemBits >= 1 && elemBits < 8)
    return planPackedBoxes(layout, elemBits);
  if (elemBits != 8 && elemBits != 16 && elemBits != 32 && elemBits != 64)
    return fail("TMA copies whole bytes: " + llvm::Twine(elemBits) +
                "-bit elements do not qualify");
  int64_t bytes = elemBits / 8, rows = shape[shape.size() - 2],
          cols = shape.back();
  if (rows > 256)
    return fail("a TMA box has at most 256 rows, the tile has " +
                llvm::Twine(rows));
  for (unsigned swizzle : {128u, 64u, 32u}) {
    int64_t boxCols = swizzle / bytes;
    if (cols % boxCols != 0)
      continue;
    TmaBoxPlan plan;
    if (matches(layout, bytes, swizzle, boxCols, plan))
      return plan;
  }
  if (cols * bytes % 16 != 0 || cols > 256)
    return fail("the tile's layout is no TMA swizzle pattern, and its " +
                llvm::Twine(cols * bytes) +
                "-byte rows are no unswizzled box (a multiple of 16 bytes, "
                "at most 256 elements)");
  TmaBoxPlan plan;
  if (matches(layout, bytes, 0, cols, plan))
    return plan;
  return fail("no sequence of TMA boxes writes the layout " + layout.str());
}

llvm::Expected<TmaRing>
tile::layout::planTmaRing(llvm::ArrayRef<int64_t> ringShape,
                          unsigned elemBits) {
  if (ringShape.size() < 2)
    return fail("TMA boxes are planned for 2-D tiles (or rings of them)");
  SharedLayout dense = SharedLayout::rowMajor(ringShape);
  if (elemBits < 8) {
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(dense, elemBits);
    if (!plan)
      return plan.takeError();
    return TmaRing{dense, *plan};
  }
  bool shortTile = ringShape[ringShape.size() - 2] < 8;
  llvm::Expected<SharedLayout> tile =
      wgmmaRowMajorLayout(ringShape.take_back(2), elemBits);
  if (!tile && !shortTile)
    return tile.takeError();
  if (tile) {
    SharedLayout swizzled = dense.withSwizzle(tile->swizzle());
    llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(swizzled, elemBits);
    if (plan)
      return TmaRing{swizzled, *plan};
    if (!shortTile)
      return plan.takeError();
    llvm::consumeError(plan.takeError());
  } else {
    llvm::consumeError(tile.takeError());
  }
  llvm::Expected<TmaBoxPlan> plan = planTmaBoxes(dense, elemBits);
  if (!plan)
    return plan.takeError();
  return TmaRing{dense, *plan};
}
