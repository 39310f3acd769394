//===- LinearLayout.cpp - F2-linear form of power-of-two layouts ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/LinearLayout.h"
#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tile::layout {

//===----------------------------------------------------------------------===//
// F2Map
//===----------------------------------------------------------------------===//

F2Map::F2Map(unsigned inBits, unsigned outBits, ArrayRef<uint64_t> columns)
    : outBitCount(outBits), cols(columns.begin(), columns.end()) {
  assert(columns.size() == inBits && inBits < 64 && outBits < 64 &&
         "bad F2Map dimensions");
  (void)inBits;
}

F2Map F2Map::identity(unsigned bits) {
  SmallVector<uint64_t, 16> cols;
  for (unsigned i = 0; i < bits; ++i)
    cols.push_back(uint64_t(1) << i);
  return F2Map(bits, bits, cols);
}

uint64_t F2Map::apply(uint64_t x) const {
  uint64_t y = 0;
  for (auto [i, c] : enumerate(cols)) {
    if (x >> i & 1)
      y ^= c;
  }
  return y;
}

namespace {
/// Row echelon basis of a set of vectors, each remembering which inputs it
/// combines. Vectors are inserted in order; a vector dependent on earlier
/// ones is dropped, so earlier inputs are preferred.
struct Echelon {
  uint64_t value[64] = {};
  uint64_t combo[64] = {};
  bool present[64] = {};

  /// Inserts `v` (= XOR of inputs in `c`); returns false if dependent.
  bool insert(uint64_t v, uint64_t c) {
    for (int b = 63; b >= 0; --b) {
      if (!(v >> b & 1))
        continue;
      if (!present[b]) {
        value[b] = v;
        combo[b] = c;
        present[b] = true;
        return true;
      }
      v ^= value[b];
      c ^= combo[b];
    }
    return false;
  }

  /// Expresses `y` as a combination of inserted inputs, if it is in the span.
  std::optional<uint64_t> solve(uint64_t y) const {
    uint64_t c = 0;
    for (int b = 63; b >= 0; --b) {
      if (!(y >> b & 1))
        continue;
      if (!present[b])
        return std::nullopt;
      y ^= value[b];
      c ^= combo[b];
    }
    return c;
  }
};

Echelon echelonOf(ArrayRef<uint64_t> columns) {
  Echelon e;
  for (auto [i, c] : enumerate(columns))
    e.insert(c, uint64_t(1) << i);
  return e;
}
} // namespace

unsigned F2Map::rank() const {
  Echelon e;
  unsigned r = 0;
  for (uint64_t c : cols)
    r += e.insert(c, 0);
  return r;
}

F2Map F2Map::compose(const F2Map &first) const {
  assert(first.outBits() == inBits() && "composing mismatched maps");
  SmallVector<uint64_t, 16> cols;
  for (uint64_t c : first.cols)
    cols.push_back(apply(c));
  return F2Map(first.inBits(), outBitCount, cols);
}

std::optional<F2Map> F2Map::rightInverse() const {
  Echelon e = echelonOf(cols);
  SmallVector<uint64_t, 16> cols;
  for (unsigned j = 0; j < outBitCount; ++j) {
    std::optional<uint64_t> x = e.solve(uint64_t(1) << j);
    if (!x)
      return std::nullopt;
    cols.push_back(*x);
  }
  return F2Map(outBitCount, inBits(), cols);
}

std::optional<F2Map> F2Map::invert() const {
  if (inBits() != outBitCount || !isInjective())
    return std::nullopt;
  return rightInverse();
}

bool F2Map::inImage(uint64_t y) const {
  return echelonOf(cols).solve(y).has_value();
}

//===----------------------------------------------------------------------===//
// LinearLayout
//===----------------------------------------------------------------------===//

LinearLayout::LinearLayout(ArrayRef<int64_t> shape, unsigned regBits,
                           unsigned laneBits, unsigned warpBits, F2Map map)
    : tileShape(shape.begin(), shape.end()), regBitCount(regBits),
      laneBitCount(laneBits), warpBitCount(warpBits), basisMap(std::move(map)) {
  assert(basisMap.inBits() == regBits + laneBits + warpBits &&
         "bad input bits");
}

uint64_t LinearLayout::flatten(ArrayRef<int64_t> coord) const {
  uint64_t flat = 0;
  for (auto [c, n] : zip(coord, tileShape))
    flat = flat * n + c;
  return flat;
}

Expected<LinearLayout>
LinearLayout::fromDistributed(const DistributedLayout &layout,
                              int64_t warpSize) {
  if (warpSize < 1 || !isPowerOf2_64(warpSize)) {
    return createStringError("warp size " + std::to_string(warpSize) +
                             " is not a power of two");
  }
  for (const Mode &m : layout.modes()) {
    if (!isPowerOf2_64(m.size)) {
      return createStringError("layout " + layout.str() +
                               " has a mode of size " + std::to_string(m.size) +
                               ", not a power of two: no F2-linear form");
    }
  }
  int64_t t = layout.numThreads();
  if (t % warpSize != 0) {
    return createStringError("layout has " + std::to_string(t) +
                             " threads, not a multiple of the warp size " +
                             std::to_string(warpSize));
  }
  unsigned regBits = Log2_64(layout.localSize());
  unsigned laneBits = Log2_64(warpSize);
  unsigned warpBits = Log2_64(t / warpSize);
  unsigned outBits = 0;
  for (int64_t n : layout.shape())
    outBits += Log2_64(n);
  if (regBits + laneBits + warpBits >= 64 || outBits >= 64)
    return createStringError("layout too large for an F2-linear form");
  // The layout is linear, so the images of unit inputs are the bases.
  auto flat = [&](ArrayRef<int64_t> coord) {
    uint64_t f = 0;
    for (auto [c, n] : zip(coord, layout.shape()))
      f = f * n + c;
    return f;
  };
  SmallVector<uint64_t, 16> cols;
  for (unsigned i = 0; i < regBits; ++i)
    cols.push_back(flat(layout.apply(0, int64_t(1) << i)));
  for (unsigned i = 0; i < laneBits + warpBits; ++i)
    cols.push_back(flat(layout.apply(int64_t(1) << i, 0)));
  return LinearLayout(layout.shape(), regBits, laneBits, warpBits,
                      F2Map(cols.size(), outBits, cols));
}

uint64_t LinearLayout::applyFlat(int64_t thread, int64_t slot) const {
  return basisMap.apply(uint64_t(slot) | uint64_t(thread) << regBitCount);
}

SmallVector<int64_t, 4> LinearLayout::apply(int64_t thread,
                                            int64_t slot) const {
  uint64_t flat = applyFlat(thread, slot);
  SmallVector<int64_t, 4> coord(tileShape.size());
  for (size_t d = tileShape.size(); d-- > 0;) {
    coord[d] = flat % tileShape[d];
    flat /= tileShape[d];
  }
  return coord;
}

Expected<DistributedLayout> LinearLayout::toDistributed() const {
  // Output bit p belongs to dimension d at bit (p - lowBit[d]).
  unsigned rank = tileShape.size();
  SmallVector<unsigned, 4> dimBits(rank), lowBit(rank);
  unsigned acc = 0;
  for (size_t d = rank; d-- > 0;) {
    dimBits[d] = Log2_64(tileShape[d]);
    lowBit[d] = acc;
    acc += dimBits[d];
  }
  // Modes are single bits; number them dimension by dimension, most
  // significant first, as fromModes expects.
  SmallVector<unsigned, 4> firstId(rank);
  unsigned next = 0;
  for (unsigned d = 0; d < rank; ++d) {
    firstId[d] = next;
    next += dimBits[d];
  }
  SmallVector<int, 64> used(next, 0);
  auto modeOf = [&](uint64_t basis, unsigned input) -> Expected<int64_t> {
    if (basis == 0)
      return -2; // replication of 2
    if (!isPowerOf2_64(basis)) {
      return createStringError(
          "input bit " + std::to_string(input) +
          " maps to several output bits (an XOR pattern): not a "
          "distributed layout");
    }
    unsigned p = Log2_64(basis);
    for (unsigned d = 0; d < rank; ++d) {
      if (p >= lowBit[d] && p < lowBit[d] + dimBits[d]) {
        unsigned id = firstId[d] + (dimBits[d] - 1 - (p - lowBit[d]));
        if (used[id]++) {
          return createStringError("two input bits map to output bit " +
                                   std::to_string(p) +
                                   ": not a distributed layout");
        }
        return id;
      }
    }
    return createStringError("basis outside the tile");
  };
  SmallVector<int64_t, 16> spatial, local;
  for (unsigned i = regBitCount; i-- > 0;) {
    auto id = modeOf(basisMap.column(i), i);
    if (!id)
      return id.takeError();
    if (*id < 0) {
      return createStringError("register bit " + std::to_string(i) +
                               " has a zero basis (register broadcast): "
                               "local replication is not supported");
    }
    local.push_back(*id);
  }
  for (unsigned i = basisMap.inBits(); i-- > regBitCount;) {
    auto id = modeOf(basisMap.column(i), i);
    if (!id)
      return id.takeError();
    spatial.push_back(*id);
  }
  for (auto [id, n] : enumerate(used)) {
    if (!n) {
      return createStringError("output bit of mode " + std::to_string(id) +
                               " is not covered: not a distributed layout");
    }
  }
  SmallVector<SmallVector<int64_t, 4>, 4> dims(rank);
  for (unsigned d = 0; d < rank; ++d)
    dims[d].assign(dimBits[d], 2);
  return DistributedLayout::fromModes(dims, spatial, local);
}

std::optional<F2Map>
LinearLayout::composeInverse(const LinearLayout &other) const {
  if (tileShape != other.tileShape)
    return std::nullopt;
  std::optional<F2Map> inv = other.basisMap.rightInverse();
  if (!inv)
    return std::nullopt;
  return inv->compose(basisMap);
}

std::string LinearLayout::str() const {
  std::string s;
  raw_string_ostream os(s);
  auto printBases = [&](StringRef name, ArrayRef<uint64_t> bases) {
    os << name << "=[";
    interleave(
        bases, os,
        [&](uint64_t b) {
          SmallVector<int64_t, 4> c(tileShape.size());
          for (size_t d = tileShape.size(); d-- > 0;) {
            c[d] = b % tileShape[d];
            b /= tileShape[d];
          }
          os << '(';
          interleave(c, os, ",");
          os << ')';
        },
        ",");
    os << ']';
  };
  printBases("reg", regBases());
  os << ' ';
  printBases("lane", laneBases());
  os << ' ';
  printBases("warp", warpBases());
  return s;
}

} // namespace tile::layout
