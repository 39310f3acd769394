//===- DistributedLayout.cpp - Register layouts of a tile -----------------===//
//
// Part of tilec. The mode representation, canonicalization and the algebra
// (product, division, reduce, permute, reshape). Text I/O lives in
// LayoutText.cpp.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <numeric>

using namespace llvm;

namespace tile::layout {

namespace {

/// A non-canonical working copy of a layout: modes with explicit per
/// dimension orders. Algorithms edit this form and `build` canonicalizes it.
struct Raw {
  SmallVector<int64_t, 4> shape;
  SmallVector<Mode, 8> modes;
  SmallVector<SmallVector<unsigned, 4>, 4> dims;
  SmallVector<unsigned, 8> spatial;
  SmallVector<unsigned, 8> local;
};

Raw toRaw(const DistributedLayout &l) {
  Raw r;
  r.shape.assign(l.shape().begin(), l.shape().end());
  r.modes.assign(l.modes().begin(), l.modes().end());
  r.dims.resize(l.rank());
  for (auto [i, m] : enumerate(r.modes)) {
    if (!m.isReplicated())
      r.dims[m.dim].push_back(i);
  }
  r.spatial.assign(l.spatialModes().begin(), l.spatialModes().end());
  r.local.assign(l.localModes().begin(), l.localModes().end());
  return r;
}

/// Inserts `id` right after `after` in `list` if `after` is there.
void insertAfter(SmallVectorImpl<unsigned> &list, unsigned after, unsigned id) {
  auto *it = find(list, after);
  if (it != list.end())
    list.insert(it + 1, id);
}

/// Splits mode `id` into (size / low, low): `id` keeps the high part and a
/// new mode, returned, takes the low (less significant) part. Both stay
/// adjacent in every list that holds `id`.
unsigned splitMode(Raw &r, unsigned id, int64_t low) {
  Mode m = r.modes[id];
  r.modes[id].size = m.size / low;
  unsigned lowId = r.modes.size();
  r.modes.push_back({low, m.dim});
  if (!m.isReplicated())
    insertAfter(r.dims[m.dim], id, lowId);
  insertAfter(r.spatial, id, lowId);
  insertAfter(r.local, id, lowId);
  return lowId;
}

/// Makes sure that the modes at the end of `list` (least significant) whose
/// sizes multiply to exactly `target` form a suffix, splitting one mode if
/// needed. Returns false when impossible (target does not divide evenly).
/// Sets `changed` when it split a mode.
bool splitSuffix(Raw &r, SmallVectorImpl<unsigned> &list, int64_t target,
                 bool &changed) {
  int64_t acc = 1;
  for (size_t i = list.size(); i-- > 0;) {
    if (acc == target)
      return true;
    int64_t size = r.modes[list[i]].size;
    if (acc * size <= target) {
      acc *= size;
      continue;
    }
    if (target % acc != 0)
      return false;
    int64_t low = target / acc;
    if (size % low != 0)
      return false;
    splitMode(r, list[i], low);
    changed = true;
    return true;
  }
  return acc == target;
}

} // namespace

//===----------------------------------------------------------------------===//
// Construction and canonicalization
//===----------------------------------------------------------------------===//

DistributedLayout
DistributedLayout::build(ArrayRef<int64_t> shape, ArrayRef<Mode> modesIn,
                         ArrayRef<SmallVector<unsigned, 4>> dimOrderIn,
                         ArrayRef<unsigned> spatialIn,
                         ArrayRef<unsigned> localIn) {
  SmallVector<Mode, 8> modes(modesIn.begin(), modesIn.end());
  SmallVector<SmallVector<unsigned, 4>, 4> dims(dimOrderIn.begin(),
                                                dimOrderIn.end());
  SmallVector<unsigned, 8> spatial(spatialIn.begin(), spatialIn.end());
  SmallVector<unsigned, 8> local(localIn.begin(), localIn.end());

  // 1. Drop unit modes.
  auto isUnit = [&](unsigned id) { return modes[id].size == 1; };
  for (auto &d : dims)
    erase_if(d, isUnit);
  erase_if(spatial, isUnit);
  erase_if(local, isUnit);

  // 2. Merge modes adjacent both in their dimension and in their list.
  auto adjacentInDim = [&](unsigned a, unsigned b) {
    if (modes[a].dim != modes[b].dim || modes[a].isReplicated())
      return false;
    auto &d = dims[modes[a].dim];
    auto *it = find(d, a);
    return it != d.end() && it + 1 != d.end() && *(it + 1) == b;
  };
  auto mergeIn = [&](SmallVectorImpl<unsigned> &list) {
    for (size_t i = 0; i + 1 < list.size(); ++i) {
      unsigned a = list[i], b = list[i + 1];
      bool bothRep = modes[a].isReplicated() && modes[b].isReplicated();
      if (!bothRep && !adjacentInDim(a, b))
        continue;
      modes[a].size *= modes[b].size;
      list.erase(list.begin() + i + 1);
      if (!bothRep)
        erase(dims[modes[a].dim], b);
      return true;
    }
    return false;
  };
  while (mergeIn(spatial) || mergeIn(local)) {
  }

  // 3. Renumber: dimension modes in order, then replication modes.
  DistributedLayout out;
  out.tileShape.assign(shape.begin(), shape.end());
  SmallVector<int, 16> newId(modes.size(), -1);
  for (auto &d : dims) {
    for (unsigned id : d) {
      newId[id] = out.modeList.size();
      out.modeList.push_back(modes[id]);
    }
  }
  for (unsigned id : spatial) {
    if (modes[id].isReplicated()) {
      newId[id] = out.modeList.size();
      out.modeList.push_back(modes[id]);
    }
  }
  for (unsigned id : spatial)
    out.spatialIds.push_back(newId[id]);
  for (unsigned id : local)
    out.localIds.push_back(newId[id]);
  return out;
}

DistributedLayout DistributedLayout::primitive(ArrayRef<int64_t> shape,
                                               ArrayRef<unsigned> majorToMinor,
                                               bool isSpatial) {
  assert(llvm::all_of(shape, [](int64_t n) { return n >= 1; }) &&
         "layout extents must be positive");
  SmallVector<Mode, 8> modes;
  SmallVector<SmallVector<unsigned, 4>, 4> dims(shape.size());
  for (auto [d, n] : enumerate(shape)) {
    dims[d].push_back(modes.size());
    modes.push_back({n, static_cast<int>(d)});
  }
  SmallVector<unsigned, 8> order(majorToMinor.begin(), majorToMinor.end());
  if (isSpatial)
    return build(shape, modes, dims, order, {});
  return build(shape, modes, dims, {}, order);
}

static SmallVector<unsigned, 4> rowMajorOrder(size_t rank) {
  SmallVector<unsigned, 4> order(rank);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

static SmallVector<unsigned, 4> columnMajorOrder(size_t rank) {
  SmallVector<unsigned, 4> order = rowMajorOrder(rank);
  std::reverse(order.begin(), order.end());
  return order;
}

DistributedLayout DistributedLayout::local(ArrayRef<int64_t> shape) {
  return primitive(shape, rowMajorOrder(shape.size()), false);
}
DistributedLayout DistributedLayout::spatial(ArrayRef<int64_t> shape) {
  return primitive(shape, rowMajorOrder(shape.size()), true);
}
DistributedLayout DistributedLayout::columnLocal(ArrayRef<int64_t> shape) {
  return primitive(shape, columnMajorOrder(shape.size()), false);
}
DistributedLayout DistributedLayout::columnSpatial(ArrayRef<int64_t> shape) {
  return primitive(shape, columnMajorOrder(shape.size()), true);
}

static Error checkPrimitive(ArrayRef<int64_t> shape,
                            ArrayRef<unsigned> majorToMinor) {
  for (int64_t n : shape) {
    if (n < 1) {
      return createStringError("layout extents must be positive, got " +
                               std::to_string(n));
    }
  }
  SmallVector<bool, 4> seen(shape.size(), false);
  if (majorToMinor.size() != shape.size()) {
    return createStringError(
        "order has " + std::to_string(majorToMinor.size()) +
        " entries for a rank-" + std::to_string(shape.size()) + " shape");
  }
  for (unsigned d : majorToMinor) {
    if (d >= shape.size() || seen[d])
      return createStringError("order is not a permutation of the dimensions");
    seen[d] = true;
  }
  return Error::success();
}

Expected<DistributedLayout>
DistributedLayout::local(ArrayRef<int64_t> shape,
                         ArrayRef<unsigned> majorToMinor) {
  if (Error e = checkPrimitive(shape, majorToMinor))
    return e;
  return primitive(shape, majorToMinor, false);
}

Expected<DistributedLayout>
DistributedLayout::spatial(ArrayRef<int64_t> shape,
                           ArrayRef<unsigned> majorToMinor) {
  if (Error e = checkPrimitive(shape, majorToMinor))
    return e;
  return primitive(shape, majorToMinor, true);
}

DistributedLayout DistributedLayout::replicate(int64_t k) {
  assert(k >= 1 && "replication must be positive");
  Mode m{k, Mode::kReplicated};
  unsigned id = 0;
  return build({}, m, {}, id, {});
}

Expected<DistributedLayout>
DistributedLayout::fromModes(ArrayRef<SmallVector<int64_t, 4>> dimModes,
                             ArrayRef<int64_t> spatial,
                             ArrayRef<int64_t> local) {
  SmallVector<int64_t, 4> shape;
  SmallVector<Mode, 8> modes;
  SmallVector<SmallVector<unsigned, 4>, 4> dims(dimModes.size());
  for (auto [d, sizes] : enumerate(dimModes)) {
    int64_t extent = 1;
    for (int64_t n : sizes) {
      if (n < 1) {
        return createStringError("mode sizes must be positive, got " +
                                 std::to_string(n));
      }
      extent *= n;
      dims[d].push_back(modes.size());
      modes.push_back({n, static_cast<int>(d)});
    }
    shape.push_back(extent);
  }
  size_t numDimModes = modes.size();
  SmallVector<int, 16> uses(numDimModes, 0);
  SmallVector<unsigned, 8> sp, lo;
  for (int64_t id : spatial) {
    if (id < 0) {
      sp.push_back(modes.size());
      modes.push_back({-id, Mode::kReplicated});
      continue;
    }
    if (static_cast<size_t>(id) >= numDimModes) {
      return createStringError("spatial mode " + std::to_string(id) +
                               " does not exist (there are " +
                               std::to_string(numDimModes) + " modes)");
    }
    ++uses[id];
    sp.push_back(id);
  }
  for (int64_t id : local) {
    if (id < 0 || static_cast<size_t>(id) >= numDimModes) {
      return createStringError("local mode " + std::to_string(id) +
                               " does not exist (there are " +
                               std::to_string(numDimModes) +
                               " modes; local replication is not supported)");
    }
    ++uses[id];
    lo.push_back(id);
  }
  for (auto [id, n] : enumerate(uses)) {
    if (n != 1) {
      return createStringError("mode " + std::to_string(id) + " is used " +
                               std::to_string(n) +
                               " times; each mode must be spatial or local "
                               "exactly once");
    }
  }
  return build(shape, modes, dims, sp, lo);
}

//===----------------------------------------------------------------------===//
// Queries and the mapping
//===----------------------------------------------------------------------===//

int64_t DistributedLayout::numThreads() const {
  int64_t t = 1;
  for (unsigned id : spatialIds)
    t *= modeList[id].size;
  return t;
}

int64_t DistributedLayout::localSize() const {
  int64_t l = 1;
  for (unsigned id : localIds)
    l *= modeList[id].size;
  return l;
}

int64_t DistributedLayout::numElements() const {
  int64_t n = 1;
  for (int64_t s : tileShape)
    n *= s;
  return n;
}

int64_t DistributedLayout::replication() const {
  return numThreads() * localSize() / numElements();
}

int64_t DistributedLayout::replicaIndex(int64_t thread) const {
  assert(thread >= 0 && thread < numThreads() && "thread out of range");
  int64_t index = 0, weight = 1;
  for (unsigned id : reverse(spatialIds)) {
    int64_t digit = thread % modeList[id].size;
    thread /= modeList[id].size;
    if (modeList[id].isReplicated()) {
      index += digit * weight;
      weight *= modeList[id].size;
    }
  }
  return index;
}

SmallVector<int64_t, 4> DistributedLayout::apply(int64_t thread,
                                                 int64_t slot) const {
  assert(thread >= 0 && thread < numThreads() && "thread out of range");
  assert(slot >= 0 && slot < localSize() && "slot out of range");
  SmallVector<int64_t, 8> digit(modeList.size(), 0);
  for (unsigned id : reverse(spatialIds)) {
    digit[id] = thread % modeList[id].size;
    thread /= modeList[id].size;
  }
  for (unsigned id : reverse(localIds)) {
    digit[id] = slot % modeList[id].size;
    slot /= modeList[id].size;
  }
  SmallVector<int64_t, 4> coord(rank(), 0);
  // Modes are stored dimension by dimension, most significant first.
  for (auto [id, m] : enumerate(modeList)) {
    if (!m.isReplicated())
      coord[m.dim] = coord[m.dim] * m.size + digit[id];
  }
  return coord;
}

SmallVector<ThreadSlot, 4>
DistributedLayout::holders(ArrayRef<int64_t> coord) const {
  SmallVector<ThreadSlot, 4> out;
  if (coord.size() != rank())
    return out;
  for (auto [c, n] : zip(coord, tileShape)) {
    if (c < 0 || c >= n)
      return out;
  }
  SmallVector<int64_t, 8> digit(modeList.size(), 0);
  SmallVector<int64_t, 4> rest(coord.begin(), coord.end());
  for (size_t id = modeList.size(); id-- > 0;) {
    const Mode &m = modeList[id];
    if (m.isReplicated())
      continue;
    digit[id] = rest[m.dim] % m.size;
    rest[m.dim] /= m.size;
  }
  SmallVector<unsigned, 4> reps;
  for (auto [id, m] : enumerate(modeList)) {
    if (m.isReplicated())
      reps.push_back(id);
  }
  // Enumerate every value of the replication digits.
  std::function<void(size_t)> rec = [&](size_t k) {
    if (k == reps.size()) {
      int64_t t = 0, l = 0;
      for (unsigned id : spatialIds)
        t = t * modeList[id].size + digit[id];
      for (unsigned id : localIds)
        l = l * modeList[id].size + digit[id];
      out.push_back({t, l});
      return;
    }
    for (int64_t v = 0; v < modeList[reps[k]].size; ++v) {
      digit[reps[k]] = v;
      rec(k + 1);
    }
  };
  rec(0);
  llvm::sort(out);
  return out;
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

DistributedLayout DistributedLayout::padRank(unsigned newRank) const {
  if (newRank <= rank())
    return *this;
  Raw r = toRaw(*this);
  unsigned pad = newRank - rank();
  for (Mode &m : r.modes) {
    if (!m.isReplicated())
      m.dim += pad;
  }
  r.shape.insert(r.shape.begin(), pad, 1);
  r.dims.insert(r.dims.begin(), pad, SmallVector<unsigned, 4>());
  return build(r.shape, r.modes, r.dims, r.spatial, r.local);
}

DistributedLayout
DistributedLayout::operator*(const DistributedLayout &bIn) const {
  unsigned n = std::max(rank(), bIn.rank());
  Raw a = toRaw(padRank(n)), b = toRaw(bIn.padRank(n));
  unsigned offset = a.modes.size();
  Raw r = a;
  for (unsigned d = 0; d < n; ++d)
    r.shape[d] *= b.shape[d];
  r.modes.append(b.modes.begin(), b.modes.end());
  for (unsigned d = 0; d < n; ++d) {
    for (unsigned id : b.dims[d])
      r.dims[d].push_back(id + offset);
  }
  for (unsigned id : b.spatial)
    r.spatial.push_back(id + offset);
  for (unsigned id : b.local)
    r.local.push_back(id + offset);
  return build(r.shape, r.modes, r.dims, r.spatial, r.local);
}

std::optional<DistributedLayout>
DistributedLayout::divide(const DistributedLayout &bIn, bool right) const {
  if (bIn.rank() > rank())
    return std::nullopt;
  DistributedLayout b = bIn.padRank(rank());
  Raw r = toRaw(*this);
  int64_t tC = numThreads(), lC = localSize(), tB = b.numThreads(),
          lB = b.localSize();
  if (tC % tB != 0 || lC % lB != 0)
    return std::nullopt;
  // Sizes of the less significant (inner) factor in every list.
  SmallVector<int64_t, 4> innerShape;
  for (unsigned d = 0; d < rank(); ++d) {
    if (tileShape[d] % b.tileShape[d] != 0)
      return std::nullopt;
    innerShape.push_back(right ? b.tileShape[d]
                               : tileShape[d] / b.tileShape[d]);
  }
  int64_t innerT = right ? tB : tC / tB, innerL = right ? lB : lC / lB;

  // Split modes until every list has a boundary at its inner size. A split
  // never removes a boundary already present, so this terminates.
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned d = 0; d < rank(); ++d) {
      if (!splitSuffix(r, r.dims[d], innerShape[d], changed))
        return std::nullopt;
    }
    if (!splitSuffix(r, r.spatial, innerT, changed) ||
        !splitSuffix(r, r.local, innerL, changed))
      return std::nullopt;
  }

  // Collect the inner suffixes and check that they agree.
  auto suffix = [&](ArrayRef<unsigned> list, int64_t target) {
    size_t i = list.size();
    int64_t acc = 1;
    while (acc != target) {
      --i;
      acc *= r.modes[list[i]].size;
    }
    return SmallVector<unsigned, 8>(list.begin() + i, list.end());
  };
  SmallVector<bool, 16> inner(r.modes.size(), false);
  SmallVector<SmallVector<unsigned, 4>, 4> innerDims(rank()), outerDims(rank());
  for (unsigned d = 0; d < rank(); ++d) {
    auto s = suffix(r.dims[d], innerShape[d]);
    for (unsigned id : s)
      inner[id] = true;
    innerDims[d].assign(s.begin(), s.end());
    outerDims[d].assign(r.dims[d].begin(), r.dims[d].end() - s.size());
  }
  auto sp = suffix(r.spatial, innerT), lo = suffix(r.local, innerL);
  SmallVector<bool, 16> innerByList(r.modes.size(), false);
  for (unsigned id : sp)
    innerByList[id] = true;
  for (unsigned id : lo)
    innerByList[id] = true;
  for (auto [id, m] : enumerate(r.modes)) {
    if (!m.isReplicated() && inner[id] != innerByList[id])
      return std::nullopt;
  }

  SmallVector<unsigned, 8> outerSp(r.spatial.begin(),
                                   r.spatial.end() - sp.size());
  SmallVector<unsigned, 8> outerLo(r.local.begin(), r.local.end() - lo.size());
  SmallVector<int64_t, 4> outerShape;
  for (unsigned d = 0; d < rank(); ++d)
    outerShape.push_back(tileShape[d] / innerShape[d]);
  DistributedLayout innerLayout = build(innerShape, r.modes, innerDims, sp, lo);
  DistributedLayout outerLayout =
      build(outerShape, r.modes, outerDims, outerSp, outerLo);
  if (right)
    return innerLayout == b ? std::optional(outerLayout) : std::nullopt;
  return outerLayout == b ? std::optional(innerLayout) : std::nullopt;
}

std::optional<DistributedLayout>
DistributedLayout::divideRight(const DistributedLayout &b) const {
  return divide(b, /*right=*/true);
}

std::optional<DistributedLayout>
DistributedLayout::divideLeft(const DistributedLayout &b) const {
  return divide(b, /*right=*/false);
}

Expected<DistributedLayout> DistributedLayout::reduce(unsigned dim,
                                                      bool keepDim) const {
  if (dim >= rank()) {
    return createStringError("cannot reduce dimension " + std::to_string(dim) +
                             " of a rank-" + std::to_string(rank()) +
                             " layout");
  }
  Raw r = toRaw(*this);
  erase_if(r.local, [&](unsigned id) {
    return r.modes[id].dim == static_cast<int>(dim);
  });
  for (Mode &m : r.modes) {
    if (m.dim == static_cast<int>(dim)) {
      m.dim = Mode::kReplicated;
    } else if (!keepDim && m.dim > static_cast<int>(dim)) {
      --m.dim;
    }
  }
  r.dims[dim].clear();
  if (keepDim) {
    r.shape[dim] = 1;
  } else {
    r.shape.erase(r.shape.begin() + dim);
    r.dims.erase(r.dims.begin() + dim);
  }
  return build(r.shape, r.modes, r.dims, r.spatial, r.local);
}

Expected<DistributedLayout>
DistributedLayout::permute(ArrayRef<unsigned> perm) const {
  if (perm.size() != rank()) {
    return createStringError("permutation has " + std::to_string(perm.size()) +
                             " entries for a rank-" + std::to_string(rank()) +
                             " layout");
  }
  SmallVector<int, 4> newDim(rank(), -1);
  for (auto [i, p] : enumerate(perm)) {
    if (p >= rank() || newDim[p] != -1)
      return createStringError("not a permutation of the dimensions");
    newDim[p] = i;
  }
  Raw r = toRaw(*this);
  for (Mode &m : r.modes) {
    if (!m.isReplicated())
      m.dim = newDim[m.dim];
  }
  Raw out = r;
  for (auto [i, p] : enumerate(perm)) {
    out.shape[i] = r.shape[p];
    out.dims[i] = r.dims[p];
  }
  return build(out.shape, out.modes, out.dims, out.spatial, out.local);
}

Expected<DistributedLayout>
DistributedLayout::reshape(ArrayRef<int64_t> newShape) const {
  int64_t total = 1;
  for (int64_t n : newShape) {
    if (n < 1)
      return createStringError("reshape extents must be positive");
    total *= n;
  }
  if (total != numElements()) {
    return createStringError("cannot reshape " + std::to_string(numElements()) +
                             " elements into " + std::to_string(total));
  }
  // View the tile as one row-major flat dimension (canonicalized, so modes
  // that only differed in their dimension merge).
  Raw r = toRaw(*this);
  SmallVector<unsigned, 8> flat;
  for (auto &d : r.dims)
    flat.append(d.begin(), d.end());
  for (Mode &m : r.modes) {
    if (!m.isReplicated())
      m.dim = 0;
  }
  r.dims.assign(1, SmallVector<unsigned, 4>(flat.begin(), flat.end()));
  int64_t n = numElements();
  r = toRaw(build(n, r.modes, r.dims, r.spatial, r.local));
  int64_t suffixProduct = 1;
  for (size_t i = newShape.size(); i-- > 1;) {
    suffixProduct *= newShape[i];
    bool changed = false;
    if (!splitSuffix(r, r.dims[0], suffixProduct, changed)) {
      return createStringError(
          "reshape needs to split a layout mode unevenly (the layout does "
          "not factor along the new dimensions)");
    }
  }
  // Assign the modes of the flat list to the new dimensions.
  SmallVector<SmallVector<unsigned, 4>, 4> dims(newShape.size());
  auto &list = r.dims[0];
  size_t pos = list.size();
  for (size_t i = newShape.size(); i-- > 0;) {
    int64_t acc = 1;
    while (acc < newShape[i] && pos > 0) {
      --pos;
      acc *= r.modes[list[pos]].size;
      dims[i].insert(dims[i].begin(), list[pos]);
      r.modes[list[pos]].dim = i;
    }
  }
  return build(newShape, r.modes, dims, r.spatial, r.local);
}

Expected<DistributedLayout> DistributedLayout::expandDims(unsigned axis) const {
  if (axis > rank()) {
    return createStringError("cannot insert a dimension at " +
                             std::to_string(axis) + " in a rank-" +
                             std::to_string(rank()) + " layout");
  }
  Raw r = toRaw(*this);
  for (Mode &m : r.modes) {
    if (!m.isReplicated() && m.dim >= static_cast<int>(axis))
      ++m.dim;
  }
  r.shape.insert(r.shape.begin() + axis, 1);
  r.dims.insert(r.dims.begin() + axis, SmallVector<unsigned, 4>());
  return build(r.shape, r.modes, r.dims, r.spatial, r.local);
}

Expected<DistributedLayout> DistributedLayout::squeeze(unsigned axis) const {
  if (axis >= rank() || tileShape[axis] != 1) {
    return createStringError("cannot squeeze dimension " +
                             std::to_string(axis) +
                             ": it must exist and have extent 1");
  }
  return reduce(axis, /*keepDim=*/false);
}

hash_code hash_value(const DistributedLayout &l) {
  hash_code h = hash_combine_range(l.tileShape.begin(), l.tileShape.end());
  for (const Mode &m : l.modeList)
    h = hash_combine(h, m.size, m.dim);
  h = hash_combine(
      h, hash_combine_range(l.spatialIds.begin(), l.spatialIds.end()));
  return hash_combine(h,
                      hash_combine_range(l.localIds.begin(), l.localIds.end()));
}

raw_ostream &operator<<(raw_ostream &os, const DistributedLayout &l) {
  l.print(os);
  return os;
}

} // namespace tile::layout
