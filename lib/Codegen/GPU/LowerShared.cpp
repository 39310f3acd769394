//===- LowerShared.cpp - Shared memory accesses ---------------------------===//
//
// Part of tilec. tile.shared_load / tile.shared_store for the generic GPU
// lowering, and the shared-memory reads and writes other lowerings share
// (storeShared / loadShared, sliceOf, sharedAddress). Accesses are
// vectorized by lib/Layout's maxVectorWidth and addressed through the
// buffer's shared layout, swizzle included. Sub-byte tiles read as whole
// 32-bit words keep those words for the word-wise conversions of
// LowerDequant.cpp, and so do 8-bit tiles whose slots are permuted bytes of
// whole words (the pre-packed operand order: byteRuns).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

#include <optional>

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

Value applySwizzle(KernelLowering &kl, Location loc, Value offset,
                   const ::tile::layout::Swizzle &s) {
  if (s.isIdentity())
    return offset;
  OpBuilder &b = kl.builder();
  if (s.hasBlocks()) {
    // The column blocking (SharedLayout.h): the block index bits move above
    // the row bits.
    unsigned w = s.blockBase, c = s.blockBits, r = s.rowBits;
    auto field = [&](unsigned from, unsigned count, unsigned to) -> Value {
      Value v = arith::AndIOp::create(
          b, loc, offset, kl.i32(((int64_t(1) << count) - 1) << from));
      return to > from ? arith::ShLIOp::create(b, loc, v, kl.i32(to - from))
                             .getResult()
                       : arith::ShRUIOp::create(b, loc, v, kl.i32(from - to))
                             .getResult();
    };
    int64_t keep = ~(((int64_t(1) << (c + r)) - 1) << w);
    Value kept = arith::AndIOp::create(b, loc, offset, kl.i32(keep));
    offset = arith::OrIOp::create(
        b, loc, arith::OrIOp::create(b, loc, kept, field(w, c, w + r)),
        field(w + c, r, w));
    if (s.bits == 0)
      return offset;
  }
  int64_t mask = ((int64_t(1) << s.bits) - 1) << (s.base + s.shift);
  Value hi = arith::AndIOp::create(b, loc, offset, kl.i32(mask));
  Value moved = arith::ShRUIOp::create(b, loc, hi, kl.i32(s.shift));
  return arith::XOrIOp::create(b, loc, offset, moved);
}

/// Address of element swizzle(prefix + lin) of a shared buffer of
/// `bits`-bit elements (lin >= 0; prefix may be null). A prefix that is a
/// multiple of the swizzle's span 2^(M+S+B) and of whole bytes is added
/// after the swizzle: swizzle(y + h) = swizzle(y) + h for such h (see
/// swizzledAddress in LowerSharedOperand.cpp), so the swizzled part stays
/// invariant in loops over ring stages.
Value sharedAddress(KernelLowering &kl, Location loc, Value base, Value prefix,
                    int64_t prefixAlign, Value lin,
                    const ::tile::layout::Swizzle &s, unsigned bits) {
  OpBuilder &b = kl.builder();
  auto flags =
      arith::IntegerOverflowFlags::nuw | arith::IntegerOverflowFlags::nsw;
  auto bytesOf = [&](Value x) -> Value {
    if (bits % 8 == 0)
      return arith::MulIOp::create(b, loc, x, kl.i32(bits / 8), flags);
    return arith::ShRUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, x, kl.i32(bits), flags),
        kl.i32(3));
  };
  int64_t span = s.span();
  bool after =
      prefix && prefixAlign % span == 0 && (prefixAlign * bits) % 8 == 0;
  if (prefix && !after)
    lin = arith::AddIOp::create(b, loc, prefix, lin, flags);
  Value ptr = kl.gep(base, bytesOf(applySwizzle(kl, loc, lin, s)));
  if (after)
    ptr = kl.gep(ptr, bytesOf(prefix));
  return ptr;
}

namespace {
/// Addressing of a tile in shared memory.
struct SharedAccess {
  int64_t vec = 0;
  unsigned align = 1;
  SmallVector<Value> groupPtrs;
};
} // namespace

/// For sub-byte elements whose vector groups of `vec` slots are not whole
/// 32-bit words (16 slots of 5 or 7 bits are 80 or 112 bits): the shortest
/// multiple of `vec` (at most 8 words) whose groups are, for every thread,
/// contiguous runs starting on a 32-bit boundary, so that a load reads the
/// thread's codes as whole words and keeps them for the word-wise
/// conversions of LowerCast.cpp; `vec` when there is none.
static int64_t wordRunWidth(const DistributedLayout &layout,
                            const SharedLayout &smem, unsigned bits,
                            int64_t vec, Value prefix, int64_t prefixAlign) {
  if (bits >= 8 || (vec * bits) % 32 == 0)
    return vec;
  int64_t local = layout.localSize();
  for (int64_t v = 2 * vec; v <= local && v * bits <= 256; v *= 2) {
    if (local % v || (v * bits) % 32 || (prefix && prefixAlign % v))
      continue;
    bool ok = true;
    for (int64_t t = 0; t < layout.numThreads() && ok; ++t)
      for (int64_t g = 0; g < local && ok; g += v) {
        int64_t first = smem.offset(layout.apply(t, g));
        ok = (first * bits) % 32 == 0;
        for (int64_t k = 1; k < v && ok; ++k)
          ok = smem.offset(layout.apply(t, g + k)) == first + k;
      }
    if (ok)
      return v;
  }
  return vec;
}

namespace {
/// An 8-bit tile whose slots are, for every thread, the bytes of aligned
/// runs of `width` bytes in shared memory, in another order: per run (runs
/// numbered in the order of their first slot), the slot that holds its
/// first byte, and per slot its byte in the runs' stream (byte j of run r
/// is byte r * width + j).
struct ByteRuns {
  int64_t width = 0;
  SmallVector<int64_t> start;
  SmallVector<int32_t> byteOf;
};
} // namespace

/// The byte runs of an 8-bit tile (ByteRuns) read as 16, 8 or 4 bytes at a
/// time, the widest that fits: every run whole among the thread's slots,
/// each slot at the same run and byte for every thread. None when no width
/// fits or when the slots are already in memory order (the plain vector
/// path reads those). A prefix must keep the runs aligned and, under a
/// swizzle, be a multiple of its span (swizzle(prefix + x) = prefix +
/// swizzle(x)).
static std::optional<ByteRuns> byteRuns(const DistributedLayout &layout,
                                        const SharedLayout &smem, Value prefix,
                                        int64_t prefixAlign) {
  int64_t local = layout.localSize();
  const ::tile::layout::Swizzle &sw = smem.swizzle();
  int64_t span = sw.span();
  for (int64_t v = 16; v >= 4; v /= 2) {
    if (local % v || (prefix && (prefixAlign % v || prefixAlign % span)))
      continue;
    ByteRuns runs;
    runs.width = v;
    runs.byteOf.assign(local, -1);
    runs.start.assign(local / v, -1);
    bool ok = true;
    for (int64_t t = 0; t < layout.numThreads() && ok; ++t) {
      llvm::SmallDenseMap<int64_t, int64_t, 16> runOfBlock;
      SmallVector<bool, 64> seen(t == 0 ? local : 0, false);
      for (int64_t l = 0; l < local && ok; ++l) {
        int64_t off = smem.offset(layout.apply(t, l));
        auto it =
            runOfBlock.try_emplace(off / v, int64_t(runOfBlock.size())).first;
        int64_t at = it->second * v + off % v;
        if (at >= local) {
          ok = false;
        } else if (t == 0) {
          ok = !seen[at];
          seen[at] = true;
          runs.byteOf[l] = int32_t(at);
          if (off % v == 0)
            runs.start[it->second] = l;
        } else {
          ok = runs.byteOf[l] == int32_t(at);
        }
      }
    }
    bool permuted = false;
    for (int64_t l = 0; l < local; ++l)
      permuted |= runs.byteOf[l] != int32_t(l);
    if (ok && permuted)
      return runs;
  }
  return std::nullopt;
}

/// The vector groups of a tile in shared memory and their addresses;
/// `wholeWords` (loads that keep packed words) widens sub-byte groups to
/// whole 32-bit words where the layout allows (wordRunWidth). With `runs`
/// (an 8-bit tile read as permuted words, byteRuns) the groups are the
/// runs, each addressed by the slot that starts it.
static FailureOr<SharedAccess>
prepareShared(KernelLowering &kl, Operation *op, Location loc, Value base,
              const SharedLayout &smem, Value prefix, int64_t prefixAlign,
              const DistributedLayout &layout, unsigned bits,
              bool wholeWords = false, const ByteRuns *runs = nullptr) {
  OpBuilder &b = kl.builder();
  SharedAccess a;
  a.vec = ::tile::layout::maxVectorWidth(layout, smem, bits);
  if (a.vec == 0)
    return op->emitOpError("sub-byte elements of this layout are not "
                           "byte-aligned in shared memory");
  if (prefix)
    while (a.vec > 1 && prefixAlign % a.vec)
      a.vec /= 2;
  if (wholeWords)
    a.vec = wordRunWidth(layout, smem, bits, a.vec, prefix, prefixAlign);
  if (runs)
    a.vec = runs->width;
  a.align = alignOf(a.vec * bits / 8);
  SmallVector<Value, 4> sp = kl.spatialCoords(layout);
  ArrayRef<int64_t> strides = smem.strides();
  Value linT = prefix ? prefix : kl.i32(0);
  for (unsigned d = 0; d < layout.rank(); ++d)
    if (strides[d])
      linT = arith::AddIOp::create(
          b, loc, linT,
          arith::MulIOp::create(b, loc, sp[d], kl.i32(strides[d])));
  // Every thread's linT at compile time (without a prefix, whole-byte
  // elements): where swizzle(linT + c) = swizzle(linT) ^ c for all of them
  // (Swizzle::distributes), a group's address is an xor of one swizzled
  // offset, and the part of its offset above the swizzle's span a constant
  // step after it, which ptxas folds into the access or rematerializes
  // with one instruction instead of keeping an address per group live.
  const ::tile::layout::Swizzle &swz = smem.swizzle();
  SmallVector<int64_t> threadOffsets;
  if (!prefix && bits % 8 == 0 && !swz.isIdentity())
    for (int64_t t = 0; t < layout.numThreads(); ++t) {
      SmallVector<int64_t, 4> c = layout.apply(t, 0);
      int64_t lin = 0;
      for (unsigned d = 0; d < layout.rank(); ++d)
        lin += c[d] * strides[d];
      threadOffsets.push_back(lin);
    }
  Value swizzledT;
  for (int64_t g = 0; g < layout.localSize(); g += a.vec) {
    SmallVector<int64_t, 4> c =
        layout.apply(0, runs ? runs->start[g / a.vec] : g);
    int64_t linL = 0;
    for (unsigned d = 0; d < layout.rank(); ++d)
      linL += c[d] * strides[d];
    int64_t lo = linL % swz.span(), hi = linL - lo;
    if (!threadOffsets.empty() && swz.distributes(threadOffsets, lo)) {
      if (!swizzledT)
        swizzledT = applySwizzle(kl, loc, linT, swz);
      Value off =
          lo ? arith::XOrIOp::create(b, loc, swizzledT, kl.i32(lo)).getResult()
             : swizzledT;
      Value ptr =
          kl.gep(base, arith::MulIOp::create(b, loc, off, kl.i32(bits / 8)));
      a.groupPtrs.push_back(hi ? kl.gep(ptr, kl.i32(hi * bits / 8)) : ptr);
      continue;
    }
    Value off = applySwizzle(
        kl, loc, arith::AddIOp::create(b, loc, linT, kl.i32(linL)), swz);
    Value byte =
        bits % 8 == 0
            ? arith::MulIOp::create(b, loc, off, kl.i32(bits / 8)).getResult()
            : arith::ShRUIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, off, kl.i32(bits)),
                  kl.i32(3))
                  .getResult();
    a.groupPtrs.push_back(kl.gep(base, byte));
  }
  return a;
}

LogicalResult KernelLowering::storeShared(Operation *op, Value base,
                                          const SharedLayout &smem,
                                          Value prefix, int64_t prefixAlign,
                                          const DistributedLayout &layout,
                                          Type elemType, const Regs &regs,
                                          bool onlyFirstHolder) {
  unsigned bits = tile::getElementBitWidth(elemType);
  OpBuilder::InsertionGuard guard(b);
  if (onlyFirstHolder && layout.replication() > 1) {
    auto owner = scf::IfOp::create(b, loc, isFirstHolder(layout), false);
    b.setInsertionPointToStart(&owner.getThenRegion().front());
  }
  FailureOr<SharedAccess> a = prepareShared(*this, op, loc, base, smem, prefix,
                                            prefixAlign, layout, bits);
  if (failed(a))
    return failure();
  for (auto [g, ptr] : llvm::enumerate(a->groupPtrs))
    storeGroup(b, loc, ptr, ArrayRef<Value>(regs).slice(g * a->vec, a->vec),
               bits, a->align);
  return success();
}

/// Reads an 8-bit tile as its byte runs (byteRuns): one load of whole
/// words per run, each slot the byte byteOf names; the words go to `out`.
static FailureOr<Regs> loadByteRuns(KernelLowering &kl, Operation *op,
                                    Value base, const SharedLayout &smem,
                                    Value prefix, int64_t prefixAlign,
                                    const DistributedLayout &layout,
                                    Type storage, const ByteRuns &runs,
                                    ByteWords &out) {
  OpBuilder &b = kl.builder();
  Location loc = op->getLoc();
  FailureOr<SharedAccess> a =
      prepareShared(kl, op, loc, base, smem, prefix, prefixAlign, layout, 8,
                    /*wholeWords=*/false, &runs);
  if (failed(a))
    return failure();
  Type i32 = b.getI32Type();
  int64_t perRun = runs.width / 4;
  Type memType = perRun == 1 ? i32 : Type(VectorType::get({perRun}, i32));
  for (Value ptr : a->groupPtrs) {
    Value v = LLVM::LoadOp::create(b, loc, memType, ptr, a->align);
    for (int64_t k = 0; k < perRun; ++k)
      out.words.push_back(
          perRun == 1 ? v
                      : LLVM::ExtractElementOp::create(b, loc, v, kl.i32(k))
                            .getResult());
  }
  out.byteOf = runs.byteOf;
  Regs regs;
  for (int32_t at : runs.byteOf) {
    Value w = out.words[at / 4];
    if (at % 4)
      w = arith::ShRUIOp::create(b, loc, w, kl.i32(8 * (at % 4)));
    regs.push_back(arith::TruncIOp::create(b, loc, storage, w));
  }
  return regs;
}

FailureOr<Regs> KernelLowering::loadShared(Operation *op, Value base,
                                           const SharedLayout &smem,
                                           Value prefix, int64_t prefixAlign,
                                           const DistributedLayout &layout,
                                           Type elemType, Regs *packedOut,
                                           ByteWords *bytesOut) {
  unsigned bits = tile::getElementBitWidth(elemType);
  if (bits == 8 && bytesOut && warpSize() == 32)
    if (std::optional<ByteRuns> runs =
            byteRuns(layout, smem, prefix, prefixAlign))
      return loadByteRuns(*this, op, base, smem, prefix, prefixAlign, layout,
                          storageType(elemType), *runs, *bytesOut);
  // NVIDIA only for now: measured and emulator-checked there; on gfx942
  // the word-wise unpacking was seen to put gemm_wq f4e2m1 in scratch.
  bool keepWords = bits < 8 && warpSize() == 32;
  FailureOr<SharedAccess> a =
      prepareShared(*this, op, loc, base, smem, prefix, prefixAlign, layout,
                    bits, keepWords && packedOut);
  if (failed(a))
    return failure();
  Regs regs;
  Regs words;
  Regs *wordsOut = keepWords ? &words : nullptr;
  for (Value ptr : a->groupPtrs)
    llvm::append_range(regs, loadGroup(b, loc, ptr, storageType(elemType),
                                       a->vec, bits, a->align, &wordsOut));
  // Sub-byte tiles read as whole words keep them, packed as in lib/Layout's
  // SubBytePacking (slot l at bit l * bits of the thread's words), for the
  // word-wide conversions of LowerCast.cpp.
  if (wordsOut && !words.empty() && packedOut)
    *packedOut = std::move(words);
  return regs;
}

/// The slice of a shared buffer that a shared_load/store/copy_async touches:
/// the layout of the trailing dims (with the buffer's swizzle) and the
/// element offset of its origin (plus how much of it is known aligned).
LogicalResult sliceOf(KernelLowering &kl, Operation *op, const SharedValue &s,
                      ValueRange oldIndices, ArrayRef<Value> indices,
                      ArrayRef<int64_t> tileShape, SharedLayout &slice,
                      Value &prefix, int64_t &prefixAlign) {
  ArrayRef<int64_t> strides = s.layout.strides();
  unsigned lead = s.type.getRank() - tileShape.size();
  // The tile's own extents: a slice may cover part of a dimension
  // (`buf[0 : 4, :]` of an 8-row buffer); its start is in the prefix.
  SmallVector<int64_t, 4> shape(tileShape);
  SmallVector<int64_t, 4> sliceStrides(strides.drop_front(lead));
  auto l = SharedLayout::get(shape, sliceStrides, s.layout.swizzle());
  if (!l)
    return op->emitOpError(llvm::toString(l.takeError()));
  slice = *l;
  OpBuilder &b = kl.builder();
  Location loc = op->getLoc();
  prefix = Value();
  prefixAlign = int64_t(1) << 30;
  for (unsigned d = 0; d < indices.size(); ++d) {
    std::optional<int64_t> cst = getConstantIntValue(oldIndices[d]);
    if (cst && *cst == 0)
      continue;
    int64_t align = cst ? std::abs(*cst * strides[d]) : strides[d];
    if (align == 0)
      continue;
    prefixAlign = std::gcd(prefixAlign, align);
    Value term = arith::MulIOp::create(b, loc, indices[d], kl.i32(strides[d]));
    prefix =
        prefix ? arith::AddIOp::create(b, loc, prefix, term).getResult() : term;
  }
  if (!prefix)
    prefixAlign = 0;
  return success();
}

FailureOr<KernelLowering::SharedSlice>
KernelLowering::sharedSlice(Operation *op, Value buffer, ValueRange indices,
                            Type type) {
  SharedSlice r;
  r.buffer = lookupShared(buffer);
  if (!r.buffer)
    return op->emitOpError("shared buffer was not lowered");
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  r.layout = *layout;
  SmallVector<Value> idx;
  for (Value v : indices)
    idx.push_back(values[v][0]);
  if (failed(sliceOf(*this, op, *r.buffer, indices, idx, r.layout.shape(),
                     r.slice, r.prefix, r.prefixAlign)))
    return failure();
  return r;
}

LogicalResult KernelLowering::lowerSharedLoad(tile::SharedLoadOp op) {
  FailureOr<SharedSlice> s =
      sharedSlice(op, op.getBuffer(), op.getIndices(), op.getType());
  if (failed(s))
    return failure();
  Regs words;
  ByteWords bytes;
  FailureOr<Regs> regs =
      loadShared(op, s->buffer->ptr, s->slice, s->prefix, s->prefixAlign,
                 s->layout, op.getType().getElementType(), &words, &bytes);
  if (failed(regs))
    return failure();
  values[op.getResult()] = *regs;
  if (!words.empty())
    packedWords[op.getResult()] = std::move(words);
  if (!bytes.words.empty())
    byteWords[op.getResult()] = std::move(bytes);
  return success();
}

LogicalResult KernelLowering::lowerSharedStore(tile::SharedStoreOp op) {
  auto type = cast<RankedTensorType>(op.getValue().getType());
  FailureOr<SharedSlice> s =
      sharedSlice(op, op.getBuffer(), op.getIndices(), type);
  if (failed(s))
    return failure();
  return storeShared(op, s->buffer->ptr, s->slice, s->prefix, s->prefixAlign,
                     s->layout, type.getElementType(), values[op.getValue()],
                     /*onlyFirstHolder=*/true);
}

} // namespace tile::gpu
