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

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

/// Combines two partial results of a reduction.
static Value combine(OpBuilder &b, Location loc, mlir::tile::ReduceKind kind,
                     bool isUnsigned, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case mlir::tile::ReduceKind::Sum:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case mlir::tile::ReduceKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                      : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case mlir::tile::ReduceKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    return isUnsigned ? arith::MinUIOp::create(b, loc, x, y).getResult()
                      : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduction");
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

LogicalResult KernelLowering::lowerReduce(mlir::tile::ReduceOp op) {
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
  Regs partial(sliced->localSize());
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<int64_t, 4> c = layout->apply(0, l);
    c.erase(c.begin() + axis);
    auto it = slotOf.find(c);
    if (it == slotOf.end())
      return op.emitOpError("internal error: slot without a sliced slot");
    Value &p = partial[it->second];
    p = p ? combine(b, loc, kind, isUnsigned, p, in[l]) : in[l];
  }

  // 2. Thread digits of `axis`: butterflies inside a warp where the digit is
  // a power-of-two block of lanes; the rest through shared memory.
  struct Digit {
    int64_t stride, size;
  };
  SmallVector<Digit> viaShared;
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
  if (!viaShared.empty()) {
    // Partials of one output element differ only in the digits of
    // `viaShared`. When those are all warp digits, every warp writes one
    // value per output element at [warp][element] (lanes of a warp that
    // hold the same element write the same value); otherwise every thread
    // writes at [thread][slot].
    int64_t ws = warpSize();
    bool warpsOnly =
        llvm::all_of(viaShared, [&](const Digit &d) { return d.stride >= ws; });
    unsigned bytes = elem.getIntOrFloatBitWidth() / 8;
    int64_t n = partial.size();
    SmallVector<Value, 4> sp = spatialCoords(*sliced);
    ArrayRef<int64_t> outShape = sliced->shape();
    int64_t elements = sliced->numElements();
    int64_t rows = warpsOnly ? layout->numThreads() / ws : layout->numThreads();
    int64_t cols = warpsOnly ? elements : n;
    Value base = scratch(op, rows * cols * bytes);
    auto slotPtr = [&](Value thread, int64_t l) {
      Value row =
          warpsOnly
              ? arith::DivUIOp::create(b, loc, thread, i32(ws)).getResult()
              : thread;
      Value col;
      if (warpsOnly) {
        // Row-major index of the output coordinate of slot l.
        SmallVector<int64_t, 4> local = sliced->apply(0, l);
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
    for (int64_t l = 0; l < n; ++l)
      LLVM::StoreOp::create(b, loc, partial[l], slotPtr(tid, l), bytes);
    target().barrier(b, loc);
    // key = t with the shared digits set to zero.
    Value key = tid;
    for (const Digit &d : viaShared) {
      Value digit = arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, i32(d.stride)),
          i32(d.size));
      key = arith::SubIOp::create(
          b, loc, key, arith::MulIOp::create(b, loc, digit, i32(d.stride)));
    }
    int64_t combos = 1;
    for (const Digit &d : viaShared)
      combos *= d.size;
    for (int64_t l = 0; l < n; ++l) {
      Value acc;
      // Same order in every thread, so replicas agree bit for bit.
      for (int64_t r = 0; r < combos; ++r) {
        int64_t rest = r, delta = 0;
        for (const Digit &d : viaShared) {
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
  }

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
  unsigned bits = mlir::tile::getElementBitWidth(elemType);
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

} // namespace tile::gpu
