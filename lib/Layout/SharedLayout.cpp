//===- SharedLayout.cpp - Shared-memory layouts and bank conflicts --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/SharedLayout.h"
#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

namespace tile::layout {

//===----------------------------------------------------------------------===//
// SharedLayout
//===----------------------------------------------------------------------===//

static constexpr int64_t kMaxExtent = int64_t(1) << 24;

static Error checkSwizzle(Swizzle s) {
  if (s.blockBits && s.blockBase + s.blockBits + s.rowBits >= 40)
    return createStringError("column blocking bits out of range (w + c + r "
                             ">= 40)");
  if (!s.blockBits && (s.blockBase || s.rowBits))
    return createStringError("block(w,0,r) blocks nothing: c must be "
                             "positive");
  if (s.bits == 0)
    return Error::success();
  if (s.shift < s.bits) {
    return createStringError("swizzle(" + std::to_string(s.bits) + "," +
                             std::to_string(s.base) + "," +
                             std::to_string(s.shift) +
                             "): the shift S must be at least the bit count B");
  }
  if (s.base + s.shift + s.bits >= 40)
    return createStringError("swizzle bits out of range (M + S + B >= 40)");
  return Error::success();
}

Expected<SharedLayout> SharedLayout::get(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> strides,
                                         Swizzle swizzle) {
  if (shape.size() != strides.size()) {
    return createStringError("shared layout has " +
                             std::to_string(shape.size()) + " extents but " +
                             std::to_string(strides.size()) + " strides");
  }
  for (int64_t n : shape) {
    if (n < 1)
      return createStringError("shared layout extents must be positive");
  }
  for (int64_t s : strides) {
    if (s < 0)
      return createStringError("shared layout strides must be non-negative");
  }
  // Keep every offset well inside int64_t and the tile enumerable.
  int64_t elements = 1, maxOffset = 0;
  for (auto [n, s] : zip(shape, strides)) {
    if (n > kMaxExtent || s > kMaxExtent)
      return createStringError("shared layout extents and strides must be "
                               "below 2^24");
    elements *= n;
    maxOffset += (n - 1) * s;
    if (elements > kMaxExtent || maxOffset > kMaxExtent * kMaxExtent)
      return createStringError("shared layout too large (at most 2^24 "
                               "elements and 2^48 offsets)");
  }
  if (Error e = checkSwizzle(swizzle))
    return e;
  SharedLayout l;
  l.extents.assign(shape.begin(), shape.end());
  l.strideList.assign(strides.begin(), strides.end());
  l.swz = swizzle;
  return l;
}

SharedLayout SharedLayout::rowMajor(ArrayRef<int64_t> shape, int64_t padding) {
  SharedLayout l;
  l.extents.assign(shape.begin(), shape.end());
  l.strideList.assign(shape.size(), 1);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    l.strideList[d] = stride;
    stride *= shape[d];
    if (d + 1 == shape.size())
      stride += padding;
  }
  return l;
}

Expected<SharedLayout> SharedLayout::ordered(ArrayRef<int64_t> shape,
                                             ArrayRef<unsigned> minorToMajor) {
  SmallVector<int64_t, 4> strides(shape.size(), -1);
  if (minorToMajor.size() != shape.size())
    return createStringError("order must list every dimension once");
  int64_t stride = 1;
  for (unsigned d : minorToMajor) {
    if (d >= shape.size() || strides[d] != -1)
      return createStringError("order must list every dimension once");
    strides[d] = stride;
    stride *= shape[d];
  }
  return get(shape, strides);
}

int64_t SharedLayout::linearOffset(ArrayRef<int64_t> coord) const {
  int64_t o = 0;
  for (auto [c, s] : zip(coord, strideList))
    o += c * s;
  return o;
}

int64_t SharedLayout::offset(ArrayRef<int64_t> coord) const {
  return swz.apply(linearOffset(coord));
}

/// Calls fn on every coordinate of `shape`, row-major.
template <typename Fn>
static void forEachCoord(ArrayRef<int64_t> shape, Fn fn) {
  SmallVector<int64_t, 4> c(shape.size(), 0);
  for (;;) {
    fn(ArrayRef<int64_t>(c));
    size_t d = shape.size();
    while (d > 0 && ++c[d - 1] == shape[d - 1]) {
      c[d - 1] = 0;
      --d;
    }
    if (d == 0)
      return;
  }
}

int64_t SharedLayout::cosize() const {
  int64_t m = 0;
  forEachCoord(extents,
               [&](ArrayRef<int64_t> c) { m = std::max(m, offset(c)); });
  return m + 1;
}

bool SharedLayout::isInjective() const {
  std::set<int64_t> seen;
  bool ok = true;
  forEachCoord(extents, [&](ArrayRef<int64_t> c) {
    ok &= seen.insert(offset(c)).second;
  });
  return ok;
}

std::string SharedLayout::str() const {
  std::string s;
  raw_string_ostream os(s);
  if (swz.bits) {
    os << "swizzle(" << swz.bits << ',' << swz.base << ',' << swz.shift
       << ") o ";
  }
  if (swz.blockBits) {
    os << "block(" << swz.blockBase << ',' << swz.blockBits << ','
       << swz.rowBits << ") o ";
  }
  os << '(';
  interleave(extents, os, ",");
  os << "):(";
  interleave(strideList, os, ",");
  os << ')';
  return s;
}

Expected<SharedLayout> SharedLayout::parse(StringRef text) {
  size_t pos = 0;
  auto skip = [&] {
    while (pos < text.size() && isSpace(text[pos]))
      ++pos;
  };
  auto error = [&](const Twine &expected) {
    skip();
    std::string found = pos < text.size()
                            ? "'" + text.substr(pos, 12).str() + "'"
                            : std::string("end of text");
    return createStringError("shared layout text at position " +
                             std::to_string(pos) + ": expected " +
                             expected.str() + ", found " + found);
  };
  auto consume = [&](StringRef tok) {
    skip();
    if (!text.substr(pos).starts_with(tok))
      return false;
    pos += tok.size();
    return true;
  };
  auto integer = [&](int64_t &v) {
    skip();
    size_t start = pos;
    v = 0;
    while (pos < text.size() && isDigit(text[pos]) && v < (int64_t(1) << 40))
      v = v * 10 + (text[pos++] - '0');
    return pos != start && (pos == text.size() || !isDigit(text[pos]));
  };
  auto tuple = [&](SmallVectorImpl<int64_t> &out) -> Error {
    if (!consume("("))
      return error("'('");
    if (consume(")"))
      return Error::success();
    do {
      int64_t v;
      if (!integer(v))
        return error("an integer (below 2^40)");
      out.push_back(v);
    } while (consume(","));
    if (!consume(")"))
      return error("',' or ')'");
    return Error::success();
  };
  // `NAME(a,b,c) o` (FORM names it in errors): the three small integers,
  // or none when NAME is absent.
  auto prefix = [&](StringRef name, StringRef form,
                    SmallVectorImpl<int64_t> &p) -> Error {
    if (!consume(name))
      return Error::success();
    if (Error e = tuple(p))
      return e;
    if (p.size() != 3 || p[0] > 30 || p[1] > 30 || p[2] > 30)
      return error(form + " with three small integers before this");
    if (!consume("o"))
      return error("'o' after " + form);
    return Error::success();
  };
  Swizzle sw;
  SmallVector<int64_t, 3> x, blocks;
  if (Error e = prefix("swizzle", "swizzle(B,M,S)", x))
    return e;
  if (!x.empty())
    sw = {unsigned(x[0]), unsigned(x[1]), unsigned(x[2])};
  if (Error e = prefix("block", "block(w,c,r)", blocks))
    return e;
  if (!blocks.empty()) {
    sw.blockBase = unsigned(blocks[0]);
    sw.blockBits = unsigned(blocks[1]);
    sw.rowBits = unsigned(blocks[2]);
  }
  SmallVector<int64_t, 4> shape, strides;
  if (Error e = tuple(shape))
    return e;
  if (!consume(":"))
    return error("':' between shape and strides");
  if (Error e = tuple(strides))
    return e;
  skip();
  if (pos != text.size())
    return error("end of text");
  return get(shape, strides, sw);
}

//===----------------------------------------------------------------------===//
// Bank conflicts
//===----------------------------------------------------------------------===//

namespace {
/// Wavefronts and ideal wavefronts of one warp-wide access (see
/// countWavefronts). The ideal is what the same amount of data needs
/// without conflicts: per phase, its distinct words spread over all banks.
std::pair<int64_t, int64_t> wavefrontsOf(ArrayRef<int64_t> byteAddrs,
                                         unsigned accessBytes,
                                         const BankConfig &banks) {
  unsigned bytes = std::max(1u, accessBytes);
  int64_t lineBytes = int64_t(banks.numBanks) * banks.bankBytes;
  size_t phase = std::max<int64_t>(1, lineBytes / bytes);
  int64_t total = 0, ideal = 0;
  std::vector<int64_t> words;
  std::vector<int64_t> perBank(banks.numBanks);
  for (size_t start = 0; start < byteAddrs.size(); start += phase) {
    words.clear();
    for (size_t i = start; i < std::min(byteAddrs.size(), start + phase); ++i) {
      int64_t a = byteAddrs[i];
      if (a < 0)
        continue;
      for (int64_t w = a / banks.bankBytes;
           w <= (a + bytes - 1) / banks.bankBytes; ++w)
        words.push_back(w);
    }
    if (words.empty())
      continue;
    llvm::sort(words);
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::fill(perBank.begin(), perBank.end(), 0);
    int64_t worst = 0;
    for (int64_t w : words)
      worst = std::max(worst, ++perBank[w % banks.numBanks]);
    total += worst;
    ideal += divideCeil(words.size(), banks.numBanks);
  }
  return {total, ideal};
}

/// The unswizzled offsets of every (thread, slot) of a distributed layout in
/// a shared layout, computed once so that swizzle candidates are cheap.
struct OffsetTable {
  int64_t threads, slots;
  std::vector<int64_t> linear; // [thread * slots + slot]
  std::vector<bool> active;    // [thread]

  OffsetTable(const DistributedLayout &l, const SharedLayout &smem,
              bool primaryOnly = false)
      : threads(l.numThreads()), slots(l.localSize()) {
    linear.reserve(threads * slots);
    for (int64_t t = 0; t < threads; ++t) {
      active.push_back(!primaryOnly || l.replicaIndex(t) == 0);
      for (int64_t s = 0; s < slots; ++s)
        linear.push_back(smem.linearOffset(l.apply(t, s)));
    }
  }
  int64_t offset(Swizzle sw, int64_t t, int64_t s) const {
    return sw.apply(linear[t * slots + s]);
  }
};

int64_t vectorWidth(const OffsetTable &tab, Swizzle sw, unsigned elemBits) {
  int64_t l = tab.slots;
  for (int64_t v = int64_t(llvm::bit_floor(uint64_t(l))); v >= 1; v /= 2) {
    if (l % v != 0 || v * elemBits > 128 || (v * elemBits) % 8 != 0)
      continue;
    bool ok = true;
    for (int64_t t = 0; t < tab.threads && ok; ++t) {
      for (int64_t g = 0; g < l / v && ok; ++g) {
        int64_t first = tab.offset(sw, t, g * v);
        ok = first % v == 0;
        for (int64_t k = 1; k < v && ok; ++k)
          ok = tab.offset(sw, t, g * v + k) == first + k;
      }
    }
    if (ok)
      return v;
  }
  return 0;
}

AccessCost accessCost(const OffsetTable &tab, Swizzle sw, unsigned elemBits,
                      int64_t vec, int64_t warpSize, const BankConfig &banks) {
  unsigned accessBytes = vec * elemBits / 8;
  AccessCost cost;
  SmallVector<int64_t, 64> addrs;
  for (int64_t w0 = 0; w0 < tab.threads; w0 += warpSize) {
    for (int64_t g = 0; g < tab.slots / vec; ++g) {
      addrs.clear();
      for (int64_t t = w0; t < std::min(tab.threads, w0 + warpSize); ++t) {
        addrs.push_back(
            tab.active[t] ? tab.offset(sw, t, g * vec) * elemBits / 8 : -1);
      }
      auto [waves, ideal] = wavefrontsOf(addrs, accessBytes, banks);
      cost.wavefronts += waves;
      cost.ideal += ideal;
    }
  }
  return cost;
}
} // namespace

int64_t countWavefronts(ArrayRef<int64_t> byteAddrs, unsigned accessBytes,
                        const BankConfig &banks) {
  return wavefrontsOf(byteAddrs, accessBytes, banks).first;
}

int64_t maxVectorWidth(const DistributedLayout &layout,
                       const SharedLayout &smem, unsigned elemBits) {
  if (layout.shape() != smem.shape())
    return 0;
  return vectorWidth(OffsetTable(layout, smem), smem.swizzle(), elemBits);
}

Expected<AccessCost> analyzeAccess(const DistributedLayout &layout,
                                   const SharedLayout &smem, unsigned elemBits,
                                   int64_t vec, int64_t warpSize,
                                   const BankConfig &banks, bool primaryOnly) {
  if (layout.shape() != smem.shape()) {
    return createStringError("distributed and shared layouts cover different "
                             "tile shapes");
  }
  if (vec < 1 || layout.localSize() % vec != 0 || (vec * elemBits) % 8 != 0) {
    return createStringError("vector width " + std::to_string(vec) +
                             " does not divide the local size or is not a "
                             "whole number of bytes");
  }
  if (warpSize < 1)
    return createStringError("warp size must be positive");
  return accessCost(OffsetTable(layout, smem, primaryOnly), smem.swizzle(),
                    elemBits, vec, warpSize, banks);
}

Expected<SwizzleChoice> searchSwizzle(const SharedLayout &base,
                                      const DistributedLayout &storeLayout,
                                      const DistributedLayout &loadLayout,
                                      unsigned elemBits, int64_t warpSize,
                                      const BankConfig &banks,
                                      int64_t maxStoreVec, int64_t maxLoadVec) {
  if (storeLayout.shape() != base.shape() ||
      loadLayout.shape() != base.shape()) {
    return createStringError("the store, load and shared layouts must cover "
                             "the same tile shape");
  }
  if (warpSize < 1)
    return createStringError("warp size must be positive");
  OffsetTable store(storeLayout, base, /*primaryOnly=*/true),
      load(loadLayout, base);
  auto cap = [](int64_t v, int64_t c) { return c > 0 ? std::min(v, c) : v; };
  int64_t sv = cap(vectorWidth(store, Swizzle{}, elemBits), maxStoreVec);
  int64_t lv = cap(vectorWidth(load, Swizzle{}, elemBits), maxLoadVec);
  if (sv == 0 || lv == 0) {
    return createStringError(
        "no byte-aligned vector access exists for the store or load layout "
        "(sub-byte elements need at least a byte of contiguous slots)");
  }
  // Unswizzled offsets of the whole tile, to check that a candidate keeps
  // the footprint.
  std::vector<int64_t> tile;
  forEachCoord(base.shape(), [&](ArrayRef<int64_t> c) {
    tile.push_back(base.linearOffset(c));
  });
  int64_t size = base.cosize();
  unsigned sizeBits = Log2_64_Ceil(size);
  auto cosizeWith = [&](Swizzle sw) {
    int64_t m = 0;
    for (int64_t o : tile)
      m = std::max(m, sw.apply(o));
    return m + 1;
  };

  std::optional<SwizzleChoice> best;
  auto consider = [&](Swizzle sw) {
    if (!sw.isIdentity() &&
        (cosizeWith(sw) != size || vectorWidth(store, sw, elemBits) < sv ||
         vectorWidth(load, sw, elemBits) < lv))
      return;
    AccessCost st = accessCost(store, sw, elemBits, sv, warpSize, banks);
    AccessCost ld = accessCost(load, sw, elemBits, lv, warpSize, banks);
    if (!best || st.wavefronts + ld.wavefronts <
                     best->store.wavefronts + best->load.wavefronts)
      best = SwizzleChoice{sw, st, ld, sv, lv};
  };
  // Candidates in increasing (B, M, S) order; stop at the first that is
  // conflict-free since nothing can beat it. M below log2 of a vector width
  // would split vectors, so those are skipped.
  auto optimal = [&] {
    return best->store.wavefronts + best->load.wavefronts ==
           best->store.ideal + best->load.ideal;
  };
  consider(Swizzle{});
  unsigned minBase = Log2_64(std::max(sv, lv));
  for (unsigned b = 1; b <= 4 && !optimal(); ++b) {
    for (unsigned m = minBase; m + b <= sizeBits && !optimal(); ++m) {
      for (unsigned s = b; m + s + b <= sizeBits && !optimal(); ++s)
        consider(Swizzle{b, m, s});
    }
  }
  return *best;
}

} // namespace tile::layout
