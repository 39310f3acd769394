//===- LinearLayout.h - F2-linear form of power-of-two layouts --*- C++ -*-===//
//
// Part of tilec. For power-of-two layouts the map (register, lane, warp) ->
// coordinate is linear over F2 (Triton's "linear layouts"): every input bit
// has a basis vector and the coordinate of an input is the XOR of the basis
// vectors of its set bits. See docs/Layouts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_LINEARLAYOUT_H
#define TILE_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tile::layout {

class DistributedLayout;

/// A linear map F2^inBits -> F2^outBits, stored by columns: `column(i)` is
/// the image of input bit i (bit j of a column is output bit j). At most 63
/// bits on either side.
class F2Map {
public:
  F2Map() = default;
  F2Map(unsigned inBits, unsigned outBits, llvm::ArrayRef<uint64_t> columns);
  /// The identity on `bits` bits.
  static F2Map identity(unsigned bits);

  unsigned inBits() const { return cols.size(); }
  unsigned outBits() const { return outBitCount; }
  llvm::ArrayRef<uint64_t> columns() const { return cols; }
  uint64_t column(unsigned i) const { return cols[i]; }

  /// The image of `x` (an inBits-bit vector).
  uint64_t apply(uint64_t x) const;
  /// Rank of the map (dimension of its image).
  unsigned rank() const;
  bool isInjective() const { return rank() == inBits(); }
  bool isSurjective() const { return rank() == outBits(); }

  /// `this` after `first`: x -> this(first(x)). Requires
  /// first.outBits() == inBits().
  F2Map compose(const F2Map &first) const;
  /// The inverse of a bijective map; nullopt otherwise.
  std::optional<F2Map> invert() const;
  /// A right inverse R (this(R(y)) == y for every y) of a surjective map,
  /// nullopt otherwise. Among the preimages of y it picks the one whose
  /// high input bits are zero wherever possible (input bits are preferred
  /// from the least significant up), so with inputs ordered
  /// (register, lane, warp) replicated copies resolve to the lowest thread.
  std::optional<F2Map> rightInverse() const;
  /// Whether `y` is in the span of the columns.
  bool inImage(uint64_t y) const;

  bool operator==(const F2Map &o) const {
    return outBitCount == o.outBitCount && cols == o.cols;
  }

private:
  unsigned outBitCount = 0;
  llvm::SmallVector<uint64_t, 16> cols;
};

/// The F2-linear form of a distributed layout whose mode sizes are all
/// powers of two. Input bits are ordered register bits (log2 L), then lane
/// bits (log2 W), then warp bits (log2 (T / W)), each least significant
/// first. The output is the row-major flattened tile index (the tile shape
/// is a power of two in every dimension, so XOR on the flat index is XOR on
/// every coordinate).
class LinearLayout {
public:
  LinearLayout() = default;
  LinearLayout(llvm::ArrayRef<int64_t> shape, unsigned regBits,
               unsigned laneBits, unsigned warpBits, F2Map map);

  /// Converts a layout. Fails if a mode size or the warp size is not a power
  /// of two, or if T is not a multiple of `warpSize`.
  static llvm::Expected<LinearLayout>
  fromDistributed(const DistributedLayout &layout, int64_t warpSize);
  /// Converts back. Fails unless every basis vector is zero (replication;
  /// thread bits only) or a single output bit, and the nonzero ones are
  /// distinct and cover every output bit.
  llvm::Expected<DistributedLayout> toDistributed() const;

  llvm::ArrayRef<int64_t> shape() const { return tileShape; }
  unsigned regBits() const { return regBitCount; }
  unsigned laneBits() const { return laneBitCount; }
  unsigned warpBits() const { return warpBitCount; }
  const F2Map &map() const { return basisMap; }

  /// Basis vectors (flat tile indices) of the register / lane / warp bits.
  llvm::ArrayRef<uint64_t> regBases() const {
    return basisMap.columns().slice(0, regBitCount);
  }
  llvm::ArrayRef<uint64_t> laneBases() const {
    return basisMap.columns().slice(regBitCount, laneBitCount);
  }
  llvm::ArrayRef<uint64_t> warpBases() const {
    return basisMap.columns().slice(regBitCount + laneBitCount, warpBitCount);
  }

  /// The flat tile index held by (thread, slot), thread = warp * W + lane.
  uint64_t applyFlat(int64_t thread, int64_t slot) const;
  /// The coordinate held by (thread, slot).
  llvm::SmallVector<int64_t, 4> apply(int64_t thread, int64_t slot) const;
  /// Row-major flat index of a coordinate of the tile.
  uint64_t flatten(llvm::ArrayRef<int64_t> coord) const;

  /// For a bijective layout, the map flat index -> input bits
  /// (register | lane << regBits | warp << (regBits + laneBits)).
  std::optional<F2Map> invert() const { return basisMap.invert(); }
  /// The map from the inputs of `this` to the inputs of `other` that hold
  /// the same element: other^+ o this, where other^+ is `other`'s right
  /// inverse (lowest replica). Requires the same tile shape.
  std::optional<F2Map> composeInverse(const LinearLayout &other) const;

  /// A readable dump of the bases, e.g. "reg=[(0,1),(0,2)] lane=[...]".
  std::string str() const;

  bool operator==(const LinearLayout &o) const {
    return tileShape == o.tileShape && regBitCount == o.regBitCount &&
           laneBitCount == o.laneBitCount && warpBitCount == o.warpBitCount &&
           basisMap == o.basisMap;
  }

private:
  llvm::SmallVector<int64_t, 4> tileShape;
  unsigned regBitCount = 0, laneBitCount = 0, warpBitCount = 0;
  F2Map basisMap;
};

} // namespace tile::layout

#endif // TILE_LAYOUT_LINEARLAYOUT_H
