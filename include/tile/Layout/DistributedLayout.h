//===- DistributedLayout.h - Register layouts of a tile ---------*- C++ -*-===//
//
// Part of tilec. A distributed (register) layout maps a pair
// (thread t in [0,T), local slot l in [0,L)) to a coordinate of an N-d tile.
// See docs/Layouts.md for the algebra.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_DISTRIBUTEDLAYOUT_H
#define TILE_LAYOUT_DISTRIBUTEDLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tile::layout {

/// One factor of a layout. A tile dimension of extent n is split into modes
/// whose sizes multiply to n (most significant first); every mode is also
/// either a digit of the thread index or a digit of the local slot index.
/// A mode with `dim == kReplicated` belongs to no tile dimension: it is a
/// thread digit whose value does not change the coordinate (replication).
struct Mode {
  static constexpr int kReplicated = -1;
  int64_t size;
  int dim;

  bool isReplicated() const { return dim == kReplicated; }
  bool operator==(const Mode &o) const {
    return size == o.size && dim == o.dim;
  }
};

/// A (thread, slot) pair holding a tile element.
struct ThreadSlot {
  int64_t thread;
  int64_t slot;
  bool operator==(const ThreadSlot &o) const {
    return thread == o.thread && slot == o.slot;
  }
  bool operator<(const ThreadSlot &o) const {
    return thread != o.thread ? thread < o.thread : slot < o.slot;
  }
};

/// A distributed (register) layout: a function (thread, slot) -> coordinate
/// of a tile of shape `shape()`, onto every coordinate of the tile.
///
/// Representation (Tilus-style "modes", always kept canonical):
///  - every tile dimension d is the mixed-radix number of its modes, most
///    significant first;
///  - the thread index is the mixed-radix number of `spatialModes()` and the
///    slot index that of `localModes()`, most significant first.
/// Canonical means: no mode of size 1, and no two modes that are adjacent
/// both in their dimension and in their (spatial or local) list. Two
/// layouts are equal as functions iff their canonical forms are equal, so
/// `operator==` and `hash_value` are structural.
///
/// Text form (see docs/Layouts.md): a product of factors such as
/// `local(2,1) * spatial(8,4) * local(1,2)`; factors are `local(n...)`,
/// `spatial(n...)`, `column_local(n...)`, `column_spatial(n...)`,
/// `replicate(k)` and the general form
/// `modes(dims=[[4,8],[16]], spatial=[1,0,r2], local=[2])`.
class DistributedLayout {
public:
  /// The trivial rank-0 layout: one thread, one slot, shape [].
  DistributedLayout() = default;

  /// `local(n0,...)`: one thread holds the whole tile, slots row-major.
  /// The extents of these four factories must be >= 1 (asserted); use the
  /// `majorToMinor` overloads or `parse` for unchecked input.
  static DistributedLayout local(llvm::ArrayRef<int64_t> shape);
  /// `spatial(n0,...)`: one element per thread, threads row-major.
  static DistributedLayout spatial(llvm::ArrayRef<int64_t> shape);
  /// `column_local(n0,...)`: like local but slots column-major (dim 0
  /// fastest).
  static DistributedLayout columnLocal(llvm::ArrayRef<int64_t> shape);
  /// `column_spatial(n0,...)`: like spatial but threads column-major.
  static DistributedLayout columnSpatial(llvm::ArrayRef<int64_t> shape);
  /// Local layout whose slot digits follow `majorToMinor` (a permutation of
  /// the dimensions, most significant first). Fails on a bad permutation or
  /// a non-positive extent.
  static llvm::Expected<DistributedLayout>
  local(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<unsigned> majorToMinor);
  /// Spatial layout with thread digits in `majorToMinor` order.
  static llvm::Expected<DistributedLayout>
  spatial(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<unsigned> majorToMinor);
  /// `replicate(k)`: a rank-0 layout of k >= 1 threads all holding the same
  /// (only) element.
  static DistributedLayout replicate(int64_t k);

  /// The general form. `dimModes[d]` lists the mode sizes of dimension d
  /// (most significant first); modes are numbered in that order across all
  /// dimensions. `spatial`/`local` list mode numbers, most significant first;
  /// in `spatial`, a negative entry `-k` denotes a replication mode of size
  /// k. Every numbered mode must appear exactly once in `spatial` or
  /// `local`. Errors explain what is wrong.
  static llvm::Expected<DistributedLayout>
  fromModes(llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> dimModes,
            llvm::ArrayRef<int64_t> spatial, llvm::ArrayRef<int64_t> local);

  /// Parses the text form. Errors name the position and what was expected.
  static llvm::Expected<DistributedLayout> parse(llvm::StringRef text);

  unsigned rank() const { return tileShape.size(); }
  llvm::ArrayRef<int64_t> shape() const { return tileShape; }
  /// T: number of threads.
  int64_t numThreads() const;
  /// L: number of local slots per thread.
  int64_t localSize() const;
  /// Number of tile elements (product of the shape).
  int64_t numElements() const;
  /// How many (thread, slot) pairs hold each element (T * L / elements).
  int64_t replication() const;
  /// The value of `thread`'s replication digits (0 .. replication() - 1).
  /// Replicas of an element differ only in these digits, so the threads
  /// with replicaIndex 0 hold every element exactly once: they are the ones
  /// that should store a replicated tile.
  int64_t replicaIndex(int64_t thread) const;

  /// Canonical modes: those of dimension 0 (most significant first), then
  /// dimension 1, ..., then the replication modes in thread order.
  llvm::ArrayRef<Mode> modes() const { return modeList; }
  /// Indices into `modes()`, most significant thread digit first.
  llvm::ArrayRef<unsigned> spatialModes() const { return spatialIds; }
  /// Indices into `modes()`, most significant slot digit first.
  llvm::ArrayRef<unsigned> localModes() const { return localIds; }

  /// The coordinate held at (thread, slot). Requires 0 <= thread < T and
  /// 0 <= slot < L.
  llvm::SmallVector<int64_t, 4> apply(int64_t thread, int64_t slot) const;
  /// All (thread, slot) pairs holding `coord`, sorted; empty when `coord` is
  /// outside the tile or has the wrong rank.
  llvm::SmallVector<ThreadSlot, 4> holders(llvm::ArrayRef<int64_t> coord) const;

  /// The Kronecker-like product (A*B)(t,l) = A(t/T_B, l/L_B) . S_B +
  /// B(t mod T_B, l mod L_B). If the ranks differ, the smaller one is padded
  /// with leading size-1 dimensions (so `replicate(k)` has any rank).
  DistributedLayout operator*(const DistributedLayout &b) const;

  /// Right division: the A with *this == A * b, or nullopt if none exists.
  std::optional<DistributedLayout>
  divideRight(const DistributedLayout &b) const;
  /// Left division: the A with *this == b * A, or nullopt if none exists.
  std::optional<DistributedLayout> divideLeft(const DistributedLayout &b) const;

  /// Reduction along `dim`: the slot digits of `dim` disappear and its
  /// thread digits become replication. With `keepDim` the dimension stays
  /// with extent 1, otherwise it is removed (Triton's SliceLayout).
  llvm::Expected<DistributedLayout> reduce(unsigned dim, bool keepDim) const;
  /// Same as reduce(dim, /*keepDim=*/false).
  llvm::Expected<DistributedLayout> slice(unsigned dim) const {
    return reduce(dim, false);
  }
  /// New dimension i of the result is old dimension perm[i].
  llvm::Expected<DistributedLayout>
  permute(llvm::ArrayRef<unsigned> perm) const;
  /// Row-major reshape of the tile to `newShape` (same element count). Fails
  /// when a mode would have to be split unevenly.
  llvm::Expected<DistributedLayout>
  reshape(llvm::ArrayRef<int64_t> newShape) const;
  /// Inserts a dimension of extent 1 before dimension `axis` (<= rank).
  llvm::Expected<DistributedLayout> expandDims(unsigned axis) const;
  /// Removes dimension `axis`, which must have extent 1.
  llvm::Expected<DistributedLayout> squeeze(unsigned axis) const;

  /// Prints the text form (a product of primitives when one exists, else
  /// the general `modes(...)` form). parse(str()) == *this.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

  bool operator==(const DistributedLayout &o) const {
    return tileShape == o.tileShape && modeList == o.modeList &&
           spatialIds == o.spatialIds && localIds == o.localIds;
  }
  bool operator!=(const DistributedLayout &o) const { return !(*this == o); }
  // NOLINTNEXTLINE(readability-identifier-naming): found by llvm::hash_value.
  friend llvm::hash_code hash_value(const DistributedLayout &l);
  /// The same layout over \p newRank dims: leading unit dims added (itself
  /// when it has that many already).
  DistributedLayout padRank(unsigned newRank) const;

private:
  /// Builds a canonical layout from arbitrary (possibly unit, unmerged)
  /// modes. `dimOrder[d]` lists the modes of dimension d, most significant
  /// first; replication modes appear in no dimOrder list.
  static DistributedLayout
  build(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<Mode> modes,
        llvm::ArrayRef<llvm::SmallVector<unsigned, 4>> dimOrder,
        llvm::ArrayRef<unsigned> spatial, llvm::ArrayRef<unsigned> local);
  static DistributedLayout primitive(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<unsigned> majorToMinor,
                                     bool isSpatial);
  std::optional<DistributedLayout> divide(const DistributedLayout &b,
                                          bool right) const;

  llvm::SmallVector<int64_t, 4> tileShape;
  llvm::SmallVector<Mode, 8> modeList;
  llvm::SmallVector<unsigned, 8> spatialIds;
  llvm::SmallVector<unsigned, 8> localIds;
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              const DistributedLayout &l);

} // namespace tile::layout

#endif // TILE_LAYOUT_DISTRIBUTEDLAYOUT_H
