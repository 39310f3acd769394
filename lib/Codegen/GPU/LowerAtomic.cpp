//===- LowerAtomic.cpp - Atomic additions into global tensors -------------===//
//
// Part of tilec. tile.atomic_add for the generic GPU lowering: every slot
// the calling thread owns (replicated elements by their first holder only)
// is added to its element with one relaxed atomic addition
// (TargetLowering::atomicAddGlobal) under its own bounds check:
// red.global.add.{f32,noftz.f16,noftz.bf16} on NVIDIA (a compare-and-swap
// loop where the architecture has none: bf16 before sm_90),
// global_atomic_add_f32 on AMD (a compare-and-swap loop for f16/bf16).
// Two slots of f16/bf16 that are neighbours along the last dimension go as
// one pair where the target has that (NVIDIA red...f16x2, AMD
// global_atomic_pk_add_f16: both make the scalar f16 addition a
// compare-and-swap loop, a round trip per element at the end of every
// split-K program), when both are inside the view,
// adjacent in memory and the first is 4-byte aligned (checked at run
// time); otherwise one by one.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;

namespace tile::gpu {

LogicalResult KernelLowering::lowerAtomicAdd(tile::AtomicAddOp op) {
  ViewValue *view = lookupView(op.getView());
  if (!view)
    return op.emitOpError("view was not lowered");
  auto type = cast<RankedTensorType>(op.getValue().getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  Type elem = type.getElementType();
  unsigned bytes = elem.getIntOrFloatBitWidth() / 8;
  const Regs &regs = values[op.getValue()];
  OpBuilder::InsertionGuard guard(b);
  if (layout->replication() > 1) {
    auto owner = scf::IfOp::create(b, loc, isFirstHolder(*layout), false);
    b.setInsertionPointToStart(&owner.getThenRegion().front());
  }
  SmallVector<Value, 4> sp = spatialCoords(*layout);
  SmallVector<Value, 4> base;
  for (auto [d, o] : llvm::enumerate(op.getOffsets()))
    base.push_back(arith::AddIOp::create(b, loc, values[o][0], sp[d]));
  auto coordsOf = [&](int64_t l) {
    SmallVector<int64_t, 4> local = layout->apply(0, l);
    SmallVector<Value, 4> coords;
    for (unsigned d = 0; d < layout->rank(); ++d)
      coords.push_back(arith::AddIOp::create(b, loc, base[d], i32(local[d])));
    return coords;
  };
  // Slot l + 1 is slot l's neighbour along the last dimension.
  auto nextAlongLast = [&](int64_t l) {
    if (l + 1 >= layout->localSize())
      return false;
    SmallVector<int64_t, 4> a = layout->apply(0, l),
                            c = layout->apply(0, l + 1);
    a.back() += 1;
    return a == c;
  };
  // One element under its bounds check.
  auto addOne = [&](ArrayRef<Value> coords, Value value) {
    auto ifOp =
        scf::IfOp::create(b, loc, inBounds(b, loc, coords, view->dims), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value offset = arith::MulIOp::create(
        b, loc, linearIndex(b, loc, *view, coords), i64(bytes));
    tl.atomicAddGlobal(b, loc, gep(view->ptr, offset), value);
  };
  bool pairs = tl.hasAtomicAddPair(elem);
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<Value, 4> coords = coordsOf(l);
    if (!pairs || !nextAlongLast(l)) {
      addOne(coords, regs[l]);
      continue;
    }
    SmallVector<Value, 4> next = coordsOf(l + 1);
    Value off0 = arith::MulIOp::create(
        b, loc, linearIndex(b, loc, *view, coords), i64(bytes));
    Value off1 = arith::MulIOp::create(b, loc, linearIndex(b, loc, *view, next),
                                       i64(bytes));
    Value p0 = gep(view->ptr, off0);
    Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), p0);
    Value ok = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, inBounds(b, loc, coords, view->dims),
                              inBounds(b, loc, next, view->dims)),
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, off1,
                arith::AddIOp::create(b, loc, off0, i64(bytes))),
            arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq,
                arith::AndIOp::create(b, loc, address, i64(3)), i64(0))));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      tl.atomicAddGlobalPair(b, loc, p0, regs[l], regs[l + 1]);
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      addOne(coords, regs[l]);
      addOne(next, regs[l + 1]);
    }
    ++l;
  }
  return success();
}

void populateAtomicPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerAtomicAdd);
}

} // namespace tile::gpu
