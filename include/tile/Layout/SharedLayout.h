//===- SharedLayout.h - Shared-memory layouts and bank conflicts -*- C++
//-*-===//
//
// Part of tilec. A shared-memory layout maps a tile coordinate to an element
// offset: CuTe's shape:stride (any strides, so padding and non-power-of-two
// extents are fine) followed by an XOR swizzle (B, M, S). The bank model and
// the swizzle search are target parameters. See docs/Layouts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_SHAREDLAYOUT_H
#define TILE_LAYOUT_SHAREDLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tile::layout {

class DistributedLayout;

/// CuTe's Swizzle<B, M, S> on element offsets: the B bits starting at bit
/// M + S are XORed into the B bits starting at bit M. Requires S >= B (the
/// two bit ranges do not overlap), which makes it an involution. B == 0
/// (and no column blocking) is the identity.
///
/// Optionally preceded by a column blocking (blockBits > 0): with
/// w = blockBase, c = blockBits and r = rowBits, offset bits [w, w + c)
/// (which group of 2^w columns) move above bits [w + c, w + c + r) (the
/// row), which move down to [w, w + r). A row-major tile of 2^r rows of
/// 2^(w + c) elements is then stored as 2^c row-major blocks of 2^r rows
/// of 2^w elements, one after the other (the form wgmma reads for tiles
/// wider than its 128-byte swizzle: docs/Layouts.md 5.1). Both steps
/// permute offset bits, so the whole map is a bijection on every aligned
/// block of span() elements that leaves the bits above it alone.
struct Swizzle {
  unsigned bits = 0;  ///< B: number of bits XORed.
  unsigned base = 0;  ///< M: lowest bit changed (2^M elements stay together).
  unsigned shift = 0; ///< S: distance from the source bits to the target.
  unsigned blockBase = 0; ///< w: columns per block = 2^w.
  unsigned blockBits = 0; ///< c: 2^c column blocks; 0 = no blocking.
  unsigned rowBits = 0;   ///< r: rows per tile = 2^r.

  bool isIdentity() const { return bits == 0 && blockBits == 0; }
  bool hasBlocks() const { return blockBits != 0; }
  int64_t apply(int64_t offset) const {
    if (blockBits) {
      unsigned w = blockBase, c = blockBits, r = rowBits;
      int64_t col = (offset >> w) & ((int64_t(1) << c) - 1);
      int64_t row = (offset >> (w + c)) & ((int64_t(1) << r) - 1);
      int64_t top = (offset >> (w + c + r)) << (w + c + r);
      offset =
          top | col << (w + r) | row << w | (offset & ((int64_t(1) << w) - 1));
    }
    if (bits == 0)
      return offset;
    int64_t mask = ((int64_t(1) << bits) - 1) << (base + shift);
    return offset ^ ((offset & mask) >> shift);
  }
  /// 2^K for the highest bit K the map reads or writes: apply(y + h) =
  /// apply(y) + h for every multiple h of span() (1 for the identity).
  int64_t span() const {
    int64_t s = 1;
    if (bits)
      s = int64_t(1) << (base + shift + bits);
    if (blockBits)
      s = std::max(s, int64_t(1) << (blockBase + blockBits + rowBits));
    return s;
  }
  /// Whether apply(x + c) = apply(x) ^ c for each x of \p xs: x and c
  /// share no bits (x + c = x | c) and c has none of the bits the map
  /// reads, which then xors the same bits into x | c as into x (false
  /// with column blocking, which moves bits). A lowering uses it to
  /// address accesses that differ by constants as xors of one swizzled
  /// offset.
  bool distributes(llvm::ArrayRef<int64_t> xs, int64_t c) const {
    if (blockBits)
      return false;
    int64_t read = ((int64_t(1) << bits) - 1) << (base + shift);
    if (c < 0 || (c & read))
      return false;
    for (int64_t x : xs)
      if (x < 0 || (x & c))
        return false;
    return true;
  }
  /// 2^(the lowest bit the map changes): aligned runs of that many elements
  /// stay contiguous and in order (2^40 for the identity).
  int64_t unit() const {
    int64_t u = int64_t(1) << 40;
    if (bits)
      u = std::min(u, int64_t(1) << base);
    if (blockBits)
      u = std::min(u, int64_t(1) << blockBase);
    return u;
  }
  bool operator==(const Swizzle &o) const {
    return bits == o.bits && base == o.base && shift == o.shift &&
           blockBase == o.blockBase && blockBits == o.blockBits &&
           rowBits == o.rowBits;
  }
};

/// offset(coord) = swizzle(sum_d coord[d] * stride[d]), in elements.
class SharedLayout {
public:
  SharedLayout() = default;
  /// Validates: equal ranks, positive extents, non-negative strides, at
  /// most 2^24 elements, extents and strides below 2^24, and a valid
  /// swizzle (S >= B, M + S + B < 40).
  static llvm::Expected<SharedLayout> get(llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<int64_t> strides,
                                          Swizzle swizzle = {});
  /// Row-major (last dimension contiguous) with `padding` extra elements
  /// after every row (every step of dimension rank-2).
  static SharedLayout rowMajor(llvm::ArrayRef<int64_t> shape,
                               int64_t padding = 0);
  /// Contiguous along the dimensions in `minorToMajor` order (first listed =
  /// stride 1). Must be a permutation.
  static llvm::Expected<SharedLayout>
  ordered(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<unsigned> minorToMajor);

  /// Parses `(64,32):(40,1)` optionally preceded by `swizzle(B,M,S) o `
  /// and then `block(w,c,r) o ` (Swizzle's column blocking).
  static llvm::Expected<SharedLayout> parse(llvm::StringRef text);
  /// Prints the form accepted by parse.
  std::string str() const;

  llvm::ArrayRef<int64_t> shape() const { return extents; }
  llvm::ArrayRef<int64_t> strides() const { return strideList; }
  const Swizzle &swizzle() const { return swz; }
  SharedLayout withSwizzle(Swizzle s) const {
    SharedLayout out = *this;
    out.swz = s;
    return out;
  }

  /// Element offset of a coordinate.
  int64_t offset(llvm::ArrayRef<int64_t> coord) const;
  /// Offset before the swizzle.
  int64_t linearOffset(llvm::ArrayRef<int64_t> coord) const;
  /// 1 + the largest offset of any coordinate (elements to allocate).
  int64_t cosize() const;
  /// Whether distinct coordinates have distinct offsets (checked by
  /// enumeration).
  bool isInjective() const;

  bool operator==(const SharedLayout &o) const {
    return extents == o.extents && strideList == o.strideList && swz == o.swz;
  }
  // NOLINTNEXTLINE(readability-identifier-naming): found by llvm::hash_value.
  friend llvm::hash_code hash_value(const SharedLayout &l) {
    return llvm::hash_combine(
        llvm::hash_combine_range(l.extents.begin(), l.extents.end()),
        llvm::hash_combine_range(l.strideList.begin(), l.strideList.end()),
        l.swz.bits, l.swz.base, l.swz.shift, l.swz.blockBase, l.swz.blockBits,
        l.swz.rowBits);
  }

private:
  llvm::SmallVector<int64_t, 4> extents, strideList;
  Swizzle swz;
};

/// The shared-memory bank model of a target.
struct BankConfig {
  unsigned numBanks = 32;
  unsigned bankBytes = 4;
  /// NVIDIA: 32 banks of 4 bytes.
  static BankConfig nvidia() { return {32, 4}; }
  /// AMD CDNA LDS: 64 banks of 4 bytes (ds_read_b128 etc.). gfx950 and other
  /// parts may differ: pass the real numbers.
  static BankConfig amdCDNA() { return {64, 4}; }
};

/// Number of wavefronts (serialized passes through the banks) a warp-wide
/// shared access takes. `byteAddrs[i]` is the start of thread i's access of
/// `accessBytes` bytes (a negative address means "inactive"). Threads are
/// served in phases of numBanks * bankBytes / accessBytes threads (at least
/// one); inside a phase, a bank serves one distinct word per wavefront and
/// equal words are broadcast.
int64_t countWavefronts(llvm::ArrayRef<int64_t> byteAddrs, unsigned accessBytes,
                        const BankConfig &banks);

/// Bank behaviour of moving a distributed layout to or from shared memory.
struct AccessCost {
  int64_t wavefronts = 0; ///< Over all warps and all vector accesses.
  int64_t ideal = 0;      ///< The same with no conflict at all.
  bool conflictFree() const { return wavefronts == ideal; }
};

/// Largest number of consecutive slots (a power of two dividing L, at most
/// 128 bits, and a whole number of bytes) that every thread can move with
/// one vector access: their offsets are consecutive and aligned. Returns 0
/// when not even one byte-aligned access exists (sub-byte elements spread
/// across threads) or when the layouts cover different shapes.
int64_t maxVectorWidth(const DistributedLayout &layout,
                       const SharedLayout &smem, unsigned elemBits);

/// Bank cost of every thread accessing its slots `vec` at a time (vec must
/// be a valid vector width as computed by maxVectorWidth or a divisor of
/// it). Threads are grouped into warps of `warpSize`.
/// With `primaryOnly`, only threads with layout.replicaIndex(t) == 0 access
/// (the others are inactive), as in a store of a replicated tile.
llvm::Expected<AccessCost>
analyzeAccess(const DistributedLayout &layout, const SharedLayout &smem,
              unsigned elemBits, int64_t vec, int64_t warpSize,
              const BankConfig &banks, bool primaryOnly = false);

/// Result of the swizzle search.
struct SwizzleChoice {
  Swizzle swizzle;
  AccessCost store, load;
  int64_t storeVec = 0, loadVec = 0;
};

/// Picks the swizzle (B <= 4, M, S) to compose with `base` (whose own
/// swizzle is ignored) that minimizes the wavefronts of storing with
/// `storeLayout` (primary replicas only) and loading with `loadLayout`, each at
/// its widest vector width (maxVectorWidth on the unswizzled layout) capped by
/// `maxStoreVec` / `maxLoadVec` slots (0 = no cap). Only swizzles that keep
/// both vector widths and the cosize are considered; ties go to the identity,
/// then the smallest (B, M, S). Fails when the shapes differ or no byte-aligned
/// vector access exists.
llvm::Expected<SwizzleChoice>
searchSwizzle(const SharedLayout &base, const DistributedLayout &storeLayout,
              const DistributedLayout &loadLayout, unsigned elemBits,
              int64_t warpSize, const BankConfig &banks,
              int64_t maxStoreVec = 0, int64_t maxLoadVec = 0);

} // namespace tile::layout

#endif // TILE_LAYOUT_SHAREDLAYOUT_H
