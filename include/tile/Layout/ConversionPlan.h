//===- ConversionPlan.h - Planning layout conversions -----------*- C++ -*-===//
//
// Part of tilec. Plans the data movement that turns a tile held in one
// distributed layout into the same tile held in another, as plain data a
// code generator follows. See docs/Layouts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_CONVERSIONPLAN_H
#define TILE_LAYOUT_CONVERSIONPLAN_H

#include "tile/Layout/SharedLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tile::layout {

class DistributedLayout;
class LinearLayout;

/// The cheapest mechanism a conversion needs, from cheapest to dearest.
enum class ConversionKind {
  NoOp,                ///< Same layout: nothing to do.
  RegisterPermutation, ///< Every thread already holds what it needs.
  WarpShuffle,         ///< Every element comes from a lane of the same warp.
  SharedMemory,        ///< Store to shared memory, barrier, load back.
};

llvm::StringRef stringifyConversionKind(ConversionKind kind);

/// One round of intra-warp shuffles. Every thread t offers its source
/// register `sendSlot` and reads the value offered by lane `srcLane[t]` of
/// its own warp (shfl.idx / ds_bpermute); if `dstSlot[t] >= 0` the value
/// goes to destination register dstSlot[t], otherwise it is dropped.
struct ShuffleRound {
  int64_t sendSlot = 0;
  llvm::SmallVector<int64_t, 0> srcLane; ///< Indexed by thread id.
  llvm::SmallVector<int64_t, 0> dstSlot; ///< Indexed by thread id.
};

/// A conversion plan. Semantics, with src[t][l] the registers before and
/// dst[t][l] after (all reads are from src, so steps may run in any order):
///  - NoOp: dst = src.
///  - RegisterPermutation and WarpShuffle: for every thread t and slot l
///    with localSource[t * dstLocalSize + l] >= 0,
///    dst[t][l] = src[t][localSource[...]]; then every shuffle round writes
///    the remaining destination registers.
///  - SharedMemory: every thread t with src.replicaIndex(t) == 0 stores
///    each src[t][l] at offset smem.offset(src.apply(t, l)), in vectors of
///    storeVec slots (other replicas hold the same values and skip the
///    store); barrier; every (t, l) loads dst[t][l] from
///    smem.offset(dst.apply(t, l)) in vectors of loadVec slots.
struct ConversionPlan {
  ConversionKind kind = ConversionKind::NoOp;
  int64_t numThreads = 0, warpSize = 0;
  int64_t srcLocalSize = 0, dstLocalSize = 0;

  /// Register moves inside a thread (RegisterPermutation, WarpShuffle).
  llvm::SmallVector<int64_t, 0> localSource;
  /// Whether localSource is the same for every thread (a static register
  /// renaming, no selects needed).
  bool uniformLocalSource = true;
  /// Shuffle rounds (WarpShuffle).
  llvm::SmallVector<ShuffleRound, 4> rounds;

  /// Shared-memory round trip (SharedMemory).
  SharedLayout smem;
  int64_t storeVec = 0, loadVec = 0;
  AccessCost storeCost, loadCost;
};

/// Plans the conversion of a tile from `src` to `dst` (same tile shape, same
/// thread count T, a multiple of `warpSize`), for elements of `elemBits`
/// bits, choosing a bank-conflict-minimizing shared layout (row-major or
/// another dimension contiguous, then the best swizzle) when shared memory
/// is needed. Works for any layouts (no power-of-two requirement).
llvm::Expected<ConversionPlan>
planConversion(const DistributedLayout &src, const DistributedLayout &dst,
               int64_t warpSize, unsigned elemBits,
               const BankConfig &banks = BankConfig::nvidia());

/// The kind of conversion needed, decided purely in F2 (Triton's method):
/// RegisterPermutation iff span(dst.reg) is inside span(src.reg) and every
/// thread basis of dst differs from src's by a vector of span(src.reg);
/// WarpShuffle likewise with span(src.reg, src.lane) and the warp bases.
/// Requires the same shape and bit counts; returns an error otherwise.
llvm::Expected<ConversionKind> classifyConversion(const LinearLayout &src,
                                                  const LinearLayout &dst);

} // namespace tile::layout

#endif // TILE_LAYOUT_CONVERSIONPLAN_H
