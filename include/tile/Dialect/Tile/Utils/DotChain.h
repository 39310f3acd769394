//===- DotChain.h - Products whose operands are other products --*- C++ -*-===//
//
// Part of tilec. Which tile.dot ops are chained (attention's S = Q K^T,
// whose softmax P is the A operand of P V): layout inference puts the warps
// of such products along M so that an accumulator becomes the next A
// without leaving its warp, and the Hopper path gives them wgmma only in
// FlashAttention-3's shape (LayoutChoice.h, fitsWarpgroupMma).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_UTILS_DOTCHAIN_H
#define TILE_DIALECT_TILE_UTILS_DOTCHAIN_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace tile {

/// Ops whose tensor results have the layout of their tensor operands: casts
/// and elementwise ops with only tensor results.
bool isElementwiseOnTiles(mlir::Operation *op);

/// Whether \p dot's result reaches the A operand of a tile.dot, or its A
/// operand comes from a tile.dot's result, through elementwise ops, layout
/// conversions and scf.if results (a value yielded by a branch: attention's
/// masks applied only to the key blocks that need them).
bool isChainedProduct(DotOp dot);

} // namespace tile

#endif // TILE_DIALECT_TILE_UTILS_DOTCHAIN_H
