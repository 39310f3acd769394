//===- LayoutTestUtils.h - Brute-force references for layouts --*- C++ -*-===//
//
// Part of tilec. A layout is a finite table (thread, slot) -> coordinate.
// These helpers build such tables straight from the definitions of the
// primitives and of the product, independently of the mode representation
// in lib/Layout, and enumerate small layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H
#define TILE_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H

#include "tile/Layout/DistributedLayout.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tile::layout {
/// Lets gtest print layouts in failure messages.
// NOLINTNEXTLINE(readability-identifier-naming): gtest looks up PrintTo.
inline void PrintTo(const DistributedLayout &l, std::ostream *os) {
  *os << l.str();
}
} // namespace tile::layout

namespace tile::layout::test {

/// The hardware swizzle of `width` bytes (32, 64, 128; anything else: none)
/// on a shared-memory byte address, bit by bit from the PTX ISA's
/// definition: address bits [4, 4 + b) XOR bits [7, 7 + b), b = log2(width
/// / 16). Shared by the wgmma and TMA layout tests.
inline int64_t hardwareSwizzle(int64_t address, int64_t width) {
  int64_t bits = width == 128 ? 3 : width == 64 ? 2 : width == 32 ? 1 : 0;
  int64_t out = address;
  for (int64_t j = 0; j < bits; ++j)
    out ^= ((address >> (7 + j)) & 1) << (4 + j);
  return out;
}

/// `l` with leading extent-1 dimensions up to `rank`.
inline DistributedLayout padTo(const DistributedLayout &l, unsigned rank) {
  return l * DistributedLayout::local(std::vector<int64_t>(rank, 1));
}

using Coord = std::vector<int64_t>;

/// An explicit layout table.
struct Table {
  std::vector<int64_t> shape;
  int64_t threads = 1, slots = 1;
  std::vector<Coord> at; ///< at[t * slots + l]

  const Coord &operator()(int64_t t, int64_t l) const {
    return at[t * slots + l];
  }
  bool operator==(const Table &o) const {
    return shape == o.shape && threads == o.threads && slots == o.slots &&
           at == o.at;
  }
  bool operator!=(const Table &o) const { return !(*this == o); }
  bool operator<(const Table &o) const {
    if (shape != o.shape)
      return shape < o.shape;
    if (threads != o.threads)
      return threads < o.threads;
    if (slots != o.slots)
      return slots < o.slots;
    return at < o.at;
  }
};

inline int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

/// Row-major (or column-major) coordinates of index i in `shape`.
inline Coord unravel(const std::vector<int64_t> &shape, int64_t i,
                     bool columnMajor = false) {
  Coord c(shape.size());
  if (columnMajor) {
    for (size_t d = 0; d < shape.size(); ++d) {
      c[d] = i % shape[d];
      i /= shape[d];
    }
  } else {
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = i % shape[d];
      i /= shape[d];
    }
  }
  return c;
}

inline int64_t ravel(const std::vector<int64_t> &shape, const Coord &c) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    i = i * shape[d] + c[d];
  return i;
}

/// Table of the library's layout (through apply()).
inline Table tableOf(const DistributedLayout &l) {
  Table t;
  t.shape.assign(l.shape().begin(), l.shape().end());
  t.threads = l.numThreads();
  t.slots = l.localSize();
  for (int64_t th = 0; th < t.threads; ++th) {
    for (int64_t s = 0; s < t.slots; ++s) {
      auto c = l.apply(th, s);
      t.at.emplace_back(c.begin(), c.end());
    }
  }
  return t;
}

/// Reference tables of the primitives, from their definitions.
inline Table refLocal(const std::vector<int64_t> &shape, bool column) {
  Table t;
  t.shape = shape;
  t.slots = product(shape);
  for (int64_t l = 0; l < t.slots; ++l)
    t.at.push_back(unravel(shape, l, column));
  return t;
}

inline Table refSpatial(const std::vector<int64_t> &shape, bool column) {
  Table t;
  t.shape = shape;
  t.threads = product(shape);
  for (int64_t th = 0; th < t.threads; ++th)
    t.at.push_back(unravel(shape, th, column));
  return t;
}

inline Table refReplicate(int64_t k) {
  Table t;
  t.threads = k;
  t.at.assign(k, Coord{});
  return t;
}

/// Pads a table with leading extent-1 dimensions.
inline Table padRank(const Table &a, size_t rank) {
  if (a.shape.size() >= rank)
    return a;
  Table t = a;
  size_t pad = rank - a.shape.size();
  t.shape.insert(t.shape.begin(), pad, 1);
  for (Coord &c : t.at)
    c.insert(c.begin(), pad, 0);
  return t;
}

/// (A*B)(t,l) = A(t / T_B, l / L_B) * S_B + B(t % T_B, l % L_B).
inline Table refProduct(const Table &aIn, const Table &bIn) {
  size_t rank = std::max(aIn.shape.size(), bIn.shape.size());
  Table a = padRank(aIn, rank), b = padRank(bIn, rank);
  Table t;
  t.threads = a.threads * b.threads;
  t.slots = a.slots * b.slots;
  for (size_t d = 0; d < rank; ++d)
    t.shape.push_back(a.shape[d] * b.shape[d]);
  for (int64_t th = 0; th < t.threads; ++th) {
    for (int64_t l = 0; l < t.slots; ++l) {
      const Coord &ca = a(th / b.threads, l / b.slots);
      const Coord &cb = b(th % b.threads, l % b.slots);
      Coord c(rank);
      for (size_t d = 0; d < rank; ++d)
        c[d] = ca[d] * b.shape[d] + cb[d];
      t.at.push_back(c);
    }
  }
  return t;
}

/// A layout built as a product of primitives, with its independent table
/// and the text that spells it.
struct Sample {
  DistributedLayout layout;
  Table table;
  std::string text;
};

/// Primitives of rank 2 with extents in `extents`, plus replicate(k) for k
/// in `reps`.
inline std::vector<Sample> primitives(const std::vector<int64_t> &extents,
                                      const std::vector<int64_t> &reps) {
  std::vector<Sample> out;
  for (int64_t a : extents) {
    for (int64_t b : extents) {
      std::vector<int64_t> s{a, b};
      std::string args = std::to_string(a) + "," + std::to_string(b) + ")";
      out.push_back(
          {DistributedLayout::local(s), refLocal(s, false), "local(" + args});
      out.push_back({DistributedLayout::columnLocal(s), refLocal(s, true),
                     "column_local(" + args});
      out.push_back({DistributedLayout::spatial(s), refSpatial(s, false),
                     "spatial(" + args});
      out.push_back({DistributedLayout::columnSpatial(s), refSpatial(s, true),
                     "column_spatial(" + args});
    }
  }
  for (int64_t k : reps) {
    out.push_back({DistributedLayout::replicate(k), refReplicate(k),
                   "replicate(" + std::to_string(k) + ")"});
  }
  return out;
}

/// All products of 1..maxFactors primitives whose T * L stays within
/// `maxSize`.
inline std::vector<Sample> products(const std::vector<Sample> &prims,
                                    int maxFactors, int64_t maxSize) {
  std::vector<Sample> out, frontier;
  for (const Sample &p : prims) {
    if (p.table.threads * p.table.slots <= maxSize)
      frontier.push_back(p);
  }
  out = frontier;
  for (int n = 2; n <= maxFactors; ++n) {
    std::vector<Sample> next;
    for (const Sample &a : frontier) {
      for (const Sample &p : prims) {
        if (a.table.threads * a.table.slots * p.table.threads * p.table.slots >
            maxSize)
          continue;
        next.push_back({a.layout * p.layout, refProduct(a.table, p.table),
                        a.text + " * " + p.text});
      }
    }
    out.insert(out.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  return out;
}

} // namespace tile::layout::test

#endif // TILE_UNITTESTS_LAYOUT_LAYOUTTESTUTILS_H
