//===- MmaInFlight.h - MMA groups in flight across iterations ---*- C++ -*-===//
//
// Part of tilec. The name of the discardable attribute tile-pipeline puts on
// a tile.dot (an i64, 1) when it pipelined the dot's loop with one stage
// fewer ahead than it has buffers: every stage a group of asynchronous MMAs
// (wgmma) of the previous iteration may still read is then left alone by
// the copies of the next one, so the GPU lowering may leave that many groups
// in flight at the end of an iteration (`wgmma.wait_group 1`) instead of
// waiting for all of them, and waits for the rest after the loop. The tile
// dialect verifies it; docs/Passes.md, tile-pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_MMAINFLIGHT_H
#define TILE_DIALECT_TILE_IR_MMAINFLIGHT_H

#include "llvm/ADT/StringRef.h"

namespace tile {

inline constexpr llvm::StringLiteral kMmaInFlightAttr = "tile.mma_in_flight";

} // namespace tile

#endif // TILE_DIALECT_TILE_IR_MMAINFLIGHT_H
