//===- MmaInFlight.h - MMA groups in flight across iterations ---*- C++ -*-===//
//
// Part of tilec. The name of the discardable attribute tile-pipeline puts on
// a tile.dot (an i64, 1) when it pipelined the dot's loop so that the
// copies of an iteration come after the dot and a barrier: the stage a
// group of asynchronous MMAs (wgmma) of the previous iteration read is
// refilled only once every warp retired that group, so the GPU lowering
// may leave that many groups in flight at the end of the dot
// (`wgmma.wait_group 1`, which retires the previous iteration's) instead of
// waiting for all of them, and waits for the rest after the loop. A dot
// whose A the loop computes in registers is issued as two groups, each
// waited for with one pending (the first at the top of the next
// iteration), the second half's A computed after the first wait, so that
// no running group's A registers are written. The tile
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
