//===- TmaBox.h - TMA boxes that write a shared-memory tile -----*- C++ -*-===//
//
// Part of tilec. A TMA load (cp.async.bulk.tensor, sm_90) writes one box of
// a global tensor into shared memory densely, innermost dimension fastest,
// then XORs the 16-byte chunk index of every byte's address with the row
// index within the swizzle pattern (swizzle widths 32, 64, 128 bytes: the
// address bits [4, 4 + log2(W/16)) ^= bits [7, 7 + log2(W/16)), as the
// wgmma canonical layouts do, WgmmaOperand.h). This file decides whether
// the shared layout tilec chose for a ring of pipelined 2-D tiles is what a
// sequence of such boxes writes, and with which box and swizzle, so that a
// copy into it can be a handful of TMA instructions issued by one thread.
// Checked by enumerating every element of every stage: the answer is exact,
// not a pattern match on the layout's parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_TMABOX_H
#define TILE_LAYOUT_TMABOX_H

#include "tile/Layout/SharedLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tile::layout {

/// How TMA boxes fill one stage of a ring of R x C tiles.
struct TmaBoxPlan {
  unsigned swizzleBytes = 0; ///< 0 (none), 32, 64 or 128.
  int64_t boxRows = 0;       ///< Box extent along the tile's rows.
  int64_t boxCols = 0;       ///< Box extent along its columns (innermost),
                             ///< in the map's elements (unitBits each).
  /// Bits of one element of the tensor map: the tile's element width, or 8
  /// for sub-byte tiles, whose map reads bytes (a column offset of c
  /// elements is then the map coordinate c * bits / 8).
  unsigned unitBits = 0;
  int64_t stageBytes = 0;    ///< Bytes from one stage to the next.
  /// One box per boxCols columns: box b covers columns [b * boxCols,
  /// (b + 1) * boxCols) and starts at boxOffsets[b] bytes into the stage.
  llvm::SmallVector<int64_t> boxOffsets;
  /// Alignment the buffer needs for the swizzle to act on the offsets
  /// (8 * swizzle bytes; 128 without a swizzle, TMA's minimum).
  int64_t alignment = 128;
  /// Bytes one stage receives (what its mbarrier expects).
  int64_t bytesPerStage() const { return stageBytes; }
};

/// The byte offset TMA writes box byte `offset` to, for a box placed at a
/// pattern-aligned address, with swizzle width `swizzleBytes` (0: none).
int64_t tmaSwizzle(int64_t offset, unsigned swizzleBytes);

/// Plans the boxes for `layout`, the layout of a ring buffer S x R x C (or
/// S x 1 x ... x 1 x R x C: tiles of an N-D tensor with unit dimensions, up
/// to rank 5 in all; or one tile R x C) of `elemBits`-bit elements: for
/// every stage s, row r and column c (unit indices 0), layout.offset(s, r,
/// c) in bytes must equal s * stageBytes +
/// boxOffsets[c / boxCols] + tmaSwizzle(r * boxCols * E + (c % boxCols) * E).
/// Tries the swizzle widths 128, 64, 32 (box columns = one swizzle row) and
/// then no swizzle (one box of whole rows). Tiles of 1- to 7-bit elements
/// (packed weights) are copied as bytes: their layout must be dense rows
/// (no swizzle, no padding) of a multiple of 16 bytes, at most 256, each
/// one box row of `cols * elemBits / 8` bytes. Fails, saying why, for other
/// element sizes, more than 256 rows or box columns, rows of fewer than 16
/// bytes, or a layout no box sequence writes.
llvm::Expected<TmaBoxPlan> planTmaBoxes(const SharedLayout &layout,
                                        unsigned elemBits);

/// The layout tilec gives a ring (stages x tile, or one tile) that TMA
/// copies fill, and its plan: the wgmma row-major layout of the tile
/// (WgmmaOperand.h) with its swizzle; for tiles of fewer than 8 rows (a
/// scale row, a few groups' scales), whose stages cannot each start a
/// swizzle pattern, dense rows when the swizzled ring has no plan; dense
/// rows for sub-byte tiles (copied as bytes). Fails, saying why, where no
/// TMA box sequence writes it.
struct TmaRing {
  SharedLayout layout;
  TmaBoxPlan plan;
};
llvm::Expected<TmaRing> planTmaRing(llvm::ArrayRef<int64_t> ringShape,
                                    unsigned elemBits);

} // namespace tile::layout

#endif // TILE_LAYOUT_TMABOX_H
