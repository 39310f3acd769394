//===- LowerReduce.cpp - Reductions and layout conversions ----------------===//
//
// Part of tilec. tile.reduce: in-thread over the slot digits of the reduced
// dimension, then butterfly shuffles over its lane digits, then shared
// memory over the rest (warps, or lane digits that are not a power-of-two
// block of lanes). tile.convert_layout: a register renaming when every
// thread already holds its elements, otherwise a round trip through shared
// scratch memory laid out as lib/Layout's conversion planner chose (swizzle
// included).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Layout/ConversionPlan.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <map>
#include <set>

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

/// Combines two partial results of a reduction.
static Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind,
                     bool isUnsigned, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                      : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    return isUnsigned ? arith::MinUIOp::create(b, loc, x, y).getResult()
                      : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduction");
}

/// Combines a thread's values of one reduced slot. Max and min give the
/// same result in any order, so they combine in pairs: a dependency chain
/// log2(n) deep instead of n - 1 (attention's row maximum over a 64-key
/// block is 16 values per row and thread on mma.sync, 32 on wgmma: the
/// chain between the scores and the exponentials). Sums keep their
/// left-to-right order, whose rounding every kernel has had.
static Value combineInThread(OpBuilder &b, Location loc, tile::ReduceKind kind,
                             bool isUnsigned, SmallVector<Value> values) {
  if (values.empty())
    return {};
  if (kind == tile::ReduceKind::Sum) {
    Value acc = values.front();
    for (Value v : ArrayRef<Value>(values).drop_front())
      acc = combine(b, loc, kind, isUnsigned, acc, v);
    return acc;
  }
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(
          combine(b, loc, kind, isUnsigned, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// Shuffles a value of up to 32 bits by going through i32 / f32.
static Value shuffleXor(KernelLowering &kl, Location loc, Value v,
                        unsigned mask) {
  OpBuilder &b = kl.builder();
  Type type = v.getType();
  if (type.isF32() || type.isInteger(32))
    return kl.target().shuffleXor(b, loc, v, mask);
  unsigned width = type.getIntOrFloatBitWidth();
  Value asInt =
      isa<FloatType>(type)
          ? arith::BitcastOp::create(b, loc, b.getIntegerType(width), v)
                .getResult()
          : v;
  Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), asInt);
  Value r = kl.target().shuffleXor(b, loc, wide, mask);
  Value narrow = arith::TruncIOp::create(b, loc, b.getIntegerType(width), r);
  return isa<FloatType>(type)
             ? arith::BitcastOp::create(b, loc, type, narrow).getResult()
             : narrow;
}

/// The partials of one output element that differ in the thread digits
/// `viaShared` of the reduced axis (those the butterflies did not combine),
/// combined through shared scratch memory; `partial` holds the calling
/// thread's partials (slots of `sliced`) and gets the results.
LogicalResult KernelLowering::reduceViaShared(tile::ReduceOp op,
                                              const DistributedLayout &layout,
                                              const DistributedLayout &sliced,
                                              ArrayRef<ReduceDigit> viaShared,
                                              Regs &partial) {
  Type elem = cast<RankedTensorType>(op.getSrc().getType()).getElementType();
  auto kind = op.getKind();
  bool isUnsigned = op.getIsUnsigned();
  unsigned axis = op.getAxis();
  ArrayRef<::tile::layout::Mode> modes = layout.modes();
  ArrayRef<unsigned> spatial = layout.spatialModes();
  // Partials of one output element differ only in the digits of
  // `viaShared`. When those are all warp digits, every warp writes one
  // value per output element at [warp][element] (lanes of a warp that
  // hold the same element write the same value); otherwise every thread
  // writes at [thread][slot].
  int64_t ws = warpSize();
  bool warpsOnly = llvm::all_of(
      viaShared, [&](const ReduceDigit &d) { return d.stride >= ws; });
  // Sub-byte partials take a byte each (an LLVM store of iN writes
  // ceil(N / 8) bytes).
  unsigned bytes = (elem.getIntOrFloatBitWidth() + 7) / 8;
  int64_t n = partial.size();
  SmallVector<Value, 4> sp = spatialCoords(sliced);
  ArrayRef<int64_t> outShape = sliced.shape();
  int64_t elements = sliced.numElements();
  int64_t rows = warpsOnly ? layout.numThreads() / ws : layout.numThreads();
  int64_t cols = warpsOnly ? elements : n;
  Value base = scratch(op, rows * cols * bytes);
  auto slotPtr = [&](Value thread, int64_t l) {
    Value row =
        warpsOnly ? arith::DivUIOp::create(b, loc, thread, i32(ws)).getResult()
                  : thread;
    Value col;
    if (warpsOnly) {
      // Row-major index of the output coordinate of slot l.
      SmallVector<int64_t, 4> local = sliced.apply(0, l);
      col = i32(0);
      for (unsigned d = 0; d < outShape.size(); ++d) {
        Value c = arith::AddIOp::create(b, loc, sp[d], i32(local[d]));
        col = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, col, i32(outShape[d])), c);
      }
    } else {
      col = i32(l);
    }
    Value idx = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, i32(cols)), col);
    return gep(base, arith::MulIOp::create(b, loc, idx, i32(bytes)));
  };
  {
    // With warpsOnly, the lanes of a warp that differ only in lane digits
    // of `axis` (equal after the butterflies) or in replicated lane digits
    // hold the same partials: the first of them writes (no racing
    // duplicate stores).
    OpBuilder::InsertionGuard guard(b);
    if (warpsOnly) {
      Value writer;
      int64_t st = 1;
      for (int i = int(spatial.size()) - 1; i >= 0; --i) {
        const auto &mode = modes[spatial[i]];
        if ((mode.dim == int(axis) || mode.isReplicated()) && st < ws &&
            ws % st == 0) {
          int64_t laneSize = std::min(mode.size, ws / st);
          Value digit = arith::RemUIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, tid, i32(st)),
              i32(laneSize));
          Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             digit, i32(0));
          writer = writer
                       ? arith::AndIOp::create(b, loc, writer, zero).getResult()
                       : zero;
        }
        st *= mode.size;
      }
      if (writer) {
        auto ifOp = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
    }
    for (int64_t l = 0; l < n; ++l)
      LLVM::StoreOp::create(b, loc, partial[l], slotPtr(tid, l), bytes);
  }
  target().barrier(b, loc);
  // key = t with the shared digits set to zero.
  Value key = tid;
  for (const ReduceDigit &d : viaShared) {
    Value digit = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, tid, i32(d.stride)),
        i32(d.size));
    key = arith::SubIOp::create(
        b, loc, key, arith::MulIOp::create(b, loc, digit, i32(d.stride)));
  }
  int64_t combos = 1;
  for (const ReduceDigit &d : viaShared)
    combos *= d.size;
  for (int64_t l = 0; l < n; ++l) {
    Value acc;
    // Same order in every thread, so replicas agree bit for bit.
    for (int64_t r = 0; r < combos; ++r) {
      int64_t rest = r, delta = 0;
      for (const ReduceDigit &d : viaShared) {
        delta += (rest % d.size) * d.stride;
        rest /= d.size;
      }
      Value t = arith::AddIOp::create(b, loc, key, i32(delta));
      Value v = LLVM::LoadOp::create(b, loc, elem, slotPtr(t, l), bytes);
      acc = acc ? combine(b, loc, kind, isUnsigned, acc, v) : v;
    }
    partial[l] = acc;
  }
  target().barrier(b, loc);
  return success();
}

LogicalResult KernelLowering::lowerReduce(tile::ReduceOp op) {
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, srcType);
  if (failed(layout))
    return failure();
  unsigned axis = op.getAxis();
  auto sliced = layout->slice(axis);
  if (!sliced)
    return op.emitOpError(llvm::toString(sliced.takeError()));
  Type elem = srcType.getElementType();
  if (storageType(elem) != elem || elem.getIntOrFloatBitWidth() > 32)
    return op.emitOpError("cannot reduce elements of type ") << elem;
  auto kind = op.getKind();
  bool isUnsigned = op.getIsUnsigned();
  const Regs &in = values[op.getSrc()];

  // 1. In-thread: slots with equal coordinates outside `axis`.
  std::map<SmallVector<int64_t, 4>, int64_t> slotOf;
  for (int64_t l = 0; l < sliced->localSize(); ++l)
    slotOf[sliced->apply(0, l)] = l;
  SmallVector<SmallVector<Value>> operands(sliced->localSize());
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<int64_t, 4> c = layout->apply(0, l);
    c.erase(c.begin() + axis);
    auto it = slotOf.find(c);
    if (it == slotOf.end())
      return op.emitOpError("internal error: slot without a sliced slot");
    operands[it->second].push_back(in[l]);
  }
  Regs partial(sliced->localSize());
  for (size_t s = 0; s < operands.size(); ++s)
    partial[s] = combineInThread(b, loc, kind, isUnsigned, operands[s]);

  // 2. Thread digits of `axis`: butterflies inside a warp where the digit is
  // a power-of-two block of lanes; the rest through shared memory.
  SmallVector<ReduceDigit> viaShared;
  ArrayRef<::tile::layout::Mode> modes = layout->modes();
  ArrayRef<unsigned> spatial = layout->spatialModes();
  int64_t stride = 1;
  for (int i = int(spatial.size()) - 1; i >= 0; --i) {
    const auto &mode = modes[spatial[i]];
    if (mode.dim == int(axis)) {
      // Split a digit that spans lanes and warps at the warp boundary.
      int64_t ws = warpSize();
      int64_t laneSize = 1;
      if (llvm::isPowerOf2_64(stride) && stride < ws) {
        laneSize = std::min(mode.size, ws / stride);
        if (!llvm::isPowerOf2_64(laneSize) || mode.size % laneSize)
          laneSize = 1;
      }
      for (int64_t k = 1; k < laneSize; k *= 2)
        for (Value &p : partial)
          p = combine(b, loc, kind, isUnsigned, p,
                      shuffleXor(*this, loc, p, unsigned(stride * k)));
      if (mode.size / laneSize > 1)
        viaShared.push_back({stride * laneSize, mode.size / laneSize});
    }
    stride *= mode.size;
  }
  if (!viaShared.empty() &&
      failed(reduceViaShared(op, *layout, *sliced, viaShared, partial)))
    return failure();

  // 3. The result: a scalar, or the sliced layout moved to the result's.
  if (!isa<RankedTensorType>(op.getType())) {
    values[op.getResult()] = {partial[0]};
    return success();
  }
  FailureOr<DistributedLayout> resLayout = layoutOf(op, op.getType());
  if (failed(resLayout))
    return failure();
  FailureOr<Regs> out = convertLayout(op, partial, *sliced, *resLayout, elem);
  if (failed(out))
    return failure();
  values[op.getResult()] = *out;
  return success();
}

//===----------------------------------------------------------------------===//
// Warp-shuffle conversions
//===----------------------------------------------------------------------===//

namespace {
/// f(t) = c XOR (XOR over the set bits i of t of cols[i]): a thread-indexed
/// table as an affine map over F2 of the thread id's bits.
struct AffineF2 {
  uint64_t c = 0;
  SmallVector<uint64_t, 16> cols;
};
} // namespace

/// Fits `table` (one entry per thread; entries with `care[t] == false` are
/// free) with an affine map over F2, by Gaussian elimination per output bit.
/// std::nullopt when no such map reproduces every cared entry.
static std::optional<AffineF2> fitAffine(ArrayRef<int64_t> table,
                                         ArrayRef<bool> care) {
  int64_t n = table.size();
  unsigned inBits = 0;
  while ((int64_t(1) << inBits) < n)
    ++inBits;
  uint64_t maxValue = 0;
  for (int64_t t = 0; t < n; ++t)
    if (care[t]) {
      if (table[t] < 0)
        return std::nullopt;
      maxValue = std::max(maxValue, uint64_t(table[t]));
    }
  unsigned outBits = 0;
  while ((uint64_t(1) << outBits) <= maxValue)
    ++outBits;
  AffineF2 f;
  f.cols.assign(inBits, 0);
  // Unknowns per output bit: inBits coefficients and the constant (bit
  // inBits). Rows: [t's bits, 1 | value bit].
  for (unsigned k = 0; k < outBits; ++k) {
    SmallVector<std::pair<uint64_t, bool>, 0> rows;
    for (int64_t t = 0; t < n; ++t)
      if (care[t])
        rows.push_back(
            {uint64_t(t) | (uint64_t(1) << inBits), (table[t] >> k) & 1});
    SmallVector<int, 16> pivotRow(inBits + 1, -1);
    unsigned r = 0;
    for (unsigned col = 0; col <= inBits && r < rows.size(); ++col) {
      unsigned p = r;
      while (p < rows.size() && !((rows[p].first >> col) & 1))
        ++p;
      if (p == rows.size())
        continue;
      std::swap(rows[p], rows[r]);
      for (unsigned q = 0; q < rows.size(); ++q)
        if (q != r && ((rows[q].first >> col) & 1)) {
          rows[q].first ^= rows[r].first;
          rows[q].second ^= rows[r].second;
        }
      pivotRow[col] = r++;
    }
    for (unsigned q = r; q < rows.size(); ++q)
      if (rows[q].second) // 0 = 1: inconsistent.
        return std::nullopt;
    // Free unknowns are 0; each pivot row then gives its unknown.
    for (unsigned col = 0; col <= inBits; ++col) {
      if (pivotRow[col] < 0 || !rows[pivotRow[col]].second)
        continue;
      if (col == inBits)
        f.c |= uint64_t(1) << k;
      else
        f.cols[col] |= uint64_t(1) << k;
    }
  }
  // Exactness check over every cared entry.
  for (int64_t t = 0; t < n; ++t) {
    if (!care[t])
      continue;
    uint64_t v = f.c;
    for (unsigned i = 0; i < inBits; ++i)
      if ((t >> i) & 1)
        v ^= f.cols[i];
    if (v != uint64_t(table[t]))
      return std::nullopt;
  }
  return f;
}

/// f(t) for an affine map over F2 of the thread id.
static int64_t evalAffine(const AffineF2 &f, int64_t t) {
  uint64_t v = f.c;
  for (unsigned i = 0; i < f.cols.size(); ++i)
    if ((t >> i) & 1)
      v ^= f.cols[i];
  return int64_t(v);
}

/// Emits f(tid) as i32.
static Value emitAffine(KernelLowering &kl, Location loc, Value tid,
                        const AffineF2 &f) {
  OpBuilder &b = kl.builder();
  Value acc = kl.i32(int64_t(f.c));
  for (auto [i, col] : llvm::enumerate(f.cols)) {
    if (!col)
      continue;
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, tid, kl.i32(i)), kl.i32(1));
    Value term =
        llvm::isPowerOf2_64(col)
            ? arith::ShLIOp::create(b, loc, bit, kl.i32(llvm::Log2_64(col)))
                  .getResult()
            : arith::MulIOp::create(b, loc, bit, kl.i32(int64_t(col)))
                  .getResult();
    acc = arith::XOrIOp::create(b, loc, acc, term);
  }
  return acc;
}

/// The register whose index (an i32 value) is `index` among `regs`, by a
/// select chain over the indices in `candidates`.
static Value selectRegister(KernelLowering &kl, Location loc, const Regs &regs,
                            Value index, ArrayRef<int64_t> candidates) {
  OpBuilder &b = kl.builder();
  Value v = regs[candidates.front()];
  for (int64_t s : candidates.drop_front()) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                     kl.i32(s));
    v = arith::SelectOp::create(b, loc, is, regs[s], v);
  }
  return v;
}

/// Bit width of a register type.
static unsigned bitsOf(Type t) { return t.getIntOrFloatBitWidth(); }

/// Register <-> its bits as an integer.
static Value toBits(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    return arith::BitcastOp::create(b, loc,
                                    b.getIntegerType(bitsOf(v.getType())), v);
  return v;
}
static Value fromBits(OpBuilder &b, Location loc, Value v, Type type) {
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, v);
  return v;
}

/// Executes a WarpShuffle conversion plan: the in-thread moves, then the
/// shuffle rounds with shuffleIndex. Rounds whose source lanes are the same
/// function of the thread are packed into one 32-bit shuffle (two 16-bit,
/// four 8-bit, ... elements). Every per-thread table of the plan (source
/// lane, destination register, in-thread source) is emitted as an affine
/// function over F2 of the thread id, which covers the linear layouts the
/// inference produces; std::nullopt (the caller goes through shared memory)
/// when a table has no such form or elements are wider than 32 bits.
static std::optional<Regs>
convertByShuffles(KernelLowering &kl, Value tid, const DistributedLayout &src,
                  const DistributedLayout &dst,
                  const ::tile::layout::ConversionPlan &plan,
                  ArrayRef<::tile::layout::ShuffleRound> rounds,
                  const Regs &regs, Type storage, unsigned bits) {
  if (bits > 32 || plan.numThreads < 1)
    return std::nullopt;
  OpBuilder &b = kl.builder();
  Location loc = tid.getLoc();
  int64_t threads = plan.numThreads, lDst = plan.dstLocalSize;
  SmallVector<bool, 0> all(threads, true);
  // Table fits first (no IR emitted on failure).
  struct LocalMove {
    int64_t slot = -1;             ///< static source slot, or
    std::optional<AffineF2> index; ///< dynamic one
    SmallVector<int64_t, 4> candidates;
  };
  SmallVector<LocalMove, 0> local(lDst);
  for (int64_t l = 0; l < lDst; ++l) {
    SmallVector<int64_t, 0> table(threads);
    SmallVector<bool, 0> care(threads);
    std::set<int64_t> seen;
    for (int64_t t = 0; t < threads; ++t) {
      table[t] = plan.localSource[t * lDst + l];
      care[t] = table[t] >= 0;
      if (care[t])
        seen.insert(table[t]);
    }
    if (seen.empty())
      continue;
    if (seen.size() == 1) {
      local[l].slot = *seen.begin();
      continue;
    }
    local[l].index = fitAffine(table, care);
    if (!local[l].index)
      return std::nullopt;
    local[l].candidates.assign(seen.begin(), seen.end());
  }
  struct Receive {
    int64_t slot;                 ///< destination register
    std::optional<AffineF2> when; ///< taken where when(t) == equals (or all)
    int64_t equals = 1;
  };
  struct Round {
    int64_t sendSlot;
    SmallVector<Receive, 2> receives;
  };
  struct Group {
    AffineF2 lane;
    SmallVector<int64_t, 0> laneTable;
    SmallVector<Round, 4> rounds;
  };
  SmallVector<Group, 0> groups;
  unsigned perWord = 32 / bits;
  for (const ::tile::layout::ShuffleRound &r : rounds) {
    // A thread that receives nothing in this round but already holds the
    // sent register in some destination register l (localSource == sendSlot)
    // may take the round's value for l from its own lane: the same value.
    // Taking it keeps the per-thread tables regular (e.g. the threads on the
    // diagonal of a transposition).
    SmallVector<int64_t, 0> lanes(r.srcLane.begin(), r.srcLane.end());
    SmallVector<bool, 0> care(threads);
    std::set<int64_t> targets;
    for (int64_t t = 0; t < threads; ++t) {
      care[t] = r.dstSlot[t] >= 0;
      if (care[t])
        targets.insert(r.dstSlot[t]);
    }
    if (targets.empty())
      continue;
    auto mayTake = [&](int64_t t, int64_t l) {
      return r.dstSlot[t] < 0 && plan.localSource[t * lDst + l] == r.sendSlot;
    };
    // Such a thread reads the lane the receivers' lane map gives it when
    // that lane holds the same value (a replica: the map stays as it is),
    // else its own lane.
    std::optional<AffineF2> receiversLane = fitAffine(lanes, care);
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t l : targets)
        if (mayTake(t, l)) {
          care[t] = true;
          lanes[t] = t % plan.warpSize;
          int64_t lane =
              receiversLane ? evalAffine(*receiversLane, t) : int64_t(-1);
          if (lane >= 0 && lane < plan.warpSize &&
              src.apply(t - t % plan.warpSize + lane, r.sendSlot) ==
                  src.apply(t, r.sendSlot))
            lanes[t] = lane;
        }
    Round round{r.sendSlot, {}};
    for (int64_t l : targets) {
      SmallVector<int64_t, 0> hit(threads);
      bool everyone = true;
      for (int64_t t = 0; t < threads; ++t) {
        hit[t] = r.dstSlot[t] == l || mayTake(t, l);
        everyone &= hit[t] != 0;
      }
      Receive rec{l, std::nullopt};
      if (!everyone)
        rec.when = fitAffine(hit, all);
      if (!everyone && !rec.when) {
        // Not an affine indicator (e.g. the sent register varies over two
        // or more thread bits): key every thread by the sent register of
        // the round that gives it l, or by its local source of l (taken
        // from its own lane, see mayTake), and take where the key equals
        // this round's. Needs distinct sent registers among l's rounds.
        SmallVector<int64_t, 0> key(threads, -1);
        SmallVector<bool, 0> keyCare(threads, false);
        std::set<int64_t> sends;
        for (const ::tile::layout::ShuffleRound &o : rounds) {
          bool targetsL = false;
          for (int64_t t = 0; t < threads; ++t)
            if (o.dstSlot[t] == l) {
              key[t] = o.sendSlot;
              keyCare[t] = true;
              targetsL = true;
            }
          if (targetsL && !sends.insert(o.sendSlot).second)
            return std::nullopt;
        }
        for (int64_t t = 0; t < threads; ++t)
          if (!keyCare[t] && plan.localSource[t * lDst + l] >= 0) {
            key[t] = plan.localSource[t * lDst + l];
            keyCare[t] = true;
          }
        rec.when = fitAffine(key, keyCare);
        rec.equals = r.sendSlot;
        if (!rec.when)
          return std::nullopt;
      }
      round.receives.push_back(std::move(rec));
    }
    // Join a group whose lane map gives this round's receivers their source
    // lanes (the other threads drop what they get).
    Group *target = nullptr;
    for (Group &g : groups) {
      if (g.rounds.size() >= perWord)
        continue;
      bool same = true;
      for (int64_t t = 0; t < threads && same; ++t)
        same = !care[t] || g.laneTable[t] == lanes[t];
      if (same) {
        target = &g;
        break;
      }
    }
    if (!target) {
      Group g;
      g.laneTable = lanes;
      std::optional<AffineF2> lane = fitAffine(g.laneTable, care);
      if (!lane)
        return std::nullopt;
      // Free entries take the fitted value, so later rounds can match them.
      for (int64_t t = 0; t < threads; ++t) {
        uint64_t v = lane->c;
        for (unsigned i = 0; i < lane->cols.size(); ++i)
          if ((t >> i) & 1)
            v ^= lane->cols[i];
        g.laneTable[t] = int64_t(v);
      }
      g.lane = *lane;
      groups.push_back(std::move(g));
      target = &groups.back();
    }
    target->rounds.push_back(std::move(round));
  }

  // Check the schedule on every thread before emitting it: each
  // destination register must end up with the source element of its
  // coordinate (values tracked as coordinates).
  for (int64_t t = 0; t < threads; ++t) {
    SmallVector<std::optional<SmallVector<int64_t, 4>>, 8> got(lDst);
    for (int64_t l = 0; l < lDst; ++l) {
      int64_t slot = local[l].slot;
      if (local[l].index)
        slot = evalAffine(*local[l].index, t);
      if (slot >= 0 && slot < plan.srcLocalSize)
        got[l] = src.apply(t, slot);
    }
    int64_t warpBase = t - t % plan.warpSize;
    for (const Group &g : groups) {
      int64_t lane = evalAffine(g.lane, t);
      if (lane < 0 || lane >= plan.warpSize)
        return std::nullopt;
      for (const Round &round : g.rounds)
        for (const Receive &rec : round.receives)
          if (!rec.when || evalAffine(*rec.when, t) == rec.equals)
            got[rec.slot] = src.apply(warpBase + lane, round.sendSlot);
    }
    for (int64_t l = 0; l < lDst; ++l)
      if (!got[l] || *got[l] != dst.apply(t, l))
        return std::nullopt;
  }

  // Emission.
  Regs out(lDst);
  for (int64_t l = 0; l < lDst; ++l) {
    if (local[l].slot >= 0)
      out[l] = regs[local[l].slot];
    else if (local[l].index)
      out[l] = selectRegister(kl, loc, regs,
                              emitAffine(kl, loc, tid, *local[l].index),
                              local[l].candidates);
    else
      out[l] =
          arith::ConstantOp::create(b, loc, storage, b.getZeroAttr(storage));
  }
  Type i32 = b.getI32Type();
  Type field = b.getIntegerType(bits);
  for (Group &g : groups) {
    Value word;
    for (auto [k, round] : llvm::enumerate(g.rounds)) {
      Value v = toBits(b, loc, regs[round.sendSlot]);
      if (bits < 32)
        v = arith::ExtUIOp::create(b, loc, i32, v);
      if (k)
        v = arith::ShLIOp::create(b, loc, v, kl.i32(k * bits));
      word = word ? arith::OrIOp::create(b, loc, word, v).getResult() : v;
    }
    Value got = kl.target().shuffleIndex(b, loc, word,
                                         emitAffine(kl, loc, tid, g.lane));
    for (auto [k, round] : llvm::enumerate(g.rounds)) {
      Value v = got;
      if (k)
        v = arith::ShRUIOp::create(b, loc, v, kl.i32(k * bits));
      if (bits < 32)
        v = arith::TruncIOp::create(b, loc, field, v);
      v = fromBits(b, loc, v, storage);
      for (const Receive &rec : round.receives)
        out[rec.slot] =
            rec.when
                ? arith::SelectOp::create(
                      b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            emitAffine(kl, loc, tid, *rec.when),
                                            kl.i32(rec.equals)),
                      v, out[rec.slot])
                      .getResult()
                : v;
    }
  }
  return out;
}

/// Shuffle rounds for a WarpShuffle plan, one per (destination register l,
/// sent register s): the threads whose element for l is not local and is
/// offered at slot s by a lane of their warp (the first such holder) take
/// it in that round.
static SmallVector<::tile::layout::ShuffleRound>
roundsBySlots(const DistributedLayout &src, const DistributedLayout &dst,
              const ::tile::layout::ConversionPlan &plan) {
  int64_t threads = plan.numThreads, lDst = plan.dstLocalSize;
  int64_t ws = plan.warpSize;
  SmallVector<::tile::layout::ShuffleRound> rounds;
  for (int64_t l = 0; l < lDst; ++l) {
    SmallVector<int64_t, 0> lane(threads, -1), slot(threads, -1);
    for (int64_t t = 0; t < threads; ++t) {
      if (plan.localSource[t * lDst + l] >= 0)
        continue;
      for (const ::tile::layout::ThreadSlot &h : src.holders(dst.apply(t, l))) {
        if (h.thread / ws == t / ws) {
          lane[t] = h.thread % ws;
          slot[t] = h.slot;
          break;
        }
      }
    }
    for (int64_t s = 0; s < plan.srcLocalSize; ++s) {
      ::tile::layout::ShuffleRound r;
      r.sendSlot = s;
      r.srcLane.assign(threads, 0);
      r.dstSlot.assign(threads, -1);
      bool any = false;
      for (int64_t t = 0; t < threads; ++t) {
        r.srcLane[t] = t % ws;
        if (slot[t] == s) {
          r.srcLane[t] = lane[t];
          r.dstSlot[t] = l;
          any = true;
        }
      }
      if (any)
        rounds.push_back(std::move(r));
    }
  }
  return rounds;
}

FailureOr<Regs> KernelLowering::convertLayout(Operation *op, const Regs &regs,
                                              const DistributedLayout &src,
                                              const DistributedLayout &dst,
                                              Type elemType) {
  if (src == dst)
    return regs;
  if (std::optional<SmallVector<int64_t>> remap =
          staticRemap(src, dst, [](ArrayRef<int64_t> c) {
            return SmallVector<int64_t, 4>(c.begin(), c.end());
          })) {
    Regs out;
    for (int64_t s : *remap)
      out.push_back(regs[s]);
    return out;
  }
  // Sub-byte tiles make the round trip as bytes.
  unsigned bits = tile::getElementBitWidth(elemType);
  Type storage = storageType(elemType);
  Regs in = regs;
  Type moveType = elemType;
  if (bits % 8) {
    moveType = b.getI8Type();
    for (Value &v : in)
      v = arith::ExtUIOp::create(b, loc, moveType, v);
    bits = 8;
  }
  auto plan = ::tile::layout::planConversion(src, dst, warpSize(), bits);
  if (!plan)
    return op->emitOpError("cannot convert layout: ")
           << llvm::toString(plan.takeError());
  // Shuffles only while they beat the shared-memory round trip: at most two
  // rounds per destination register (tile-allocate-shared applies the same
  // rule to reserve scratch).
  int64_t maxRounds = 2 * plan->dstLocalSize;
  if (plan->kind == ::tile::layout::ConversionKind::WarpShuffle &&
      int64_t(plan->rounds.size()) <= maxRounds) {
    if (std::optional<Regs> out =
            convertByShuffles(*this, tid, src, dst, *plan, plan->rounds, regs,
                              storage, bitsOf(storage)))
      return *out;
    // The planner's greedy rounds mix destination registers per thread;
    // rounds of one destination register and one sent register each often
    // have regular tables where those do not.
    SmallVector<::tile::layout::ShuffleRound> rounds =
        roundsBySlots(src, dst, *plan);
    if (int64_t(rounds.size()) <= maxRounds)
      if (std::optional<Regs> out =
              convertByShuffles(*this, tid, src, dst, *plan, rounds, regs,
                                storage, bitsOf(storage)))
        return *out;
  }
  SharedLayout smem = plan->kind == ::tile::layout::ConversionKind::SharedMemory
                          ? plan->smem
                          : SharedLayout::rowMajor(src.shape());
  Value base = scratch(op, smem.cosize() * bits / 8);
  if (failed(storeShared(op, base, smem, Value(), 0, src, moveType, in,
                         /*onlyFirstHolder=*/true)))
    return failure();
  target().barrier(b, loc);
  FailureOr<Regs> out = loadShared(op, base, smem, Value(), 0, dst, moveType);
  if (failed(out))
    return failure();
  target().barrier(b, loc);
  if (moveType != elemType)
    for (Value &v : *out)
      v = arith::TruncIOp::create(b, loc, storage, v);
  return *out;
}

void populateReducePatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerReduce);
}

} // namespace tile::gpu
