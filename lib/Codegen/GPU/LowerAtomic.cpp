//===- LowerAtomic.cpp - Atomic additions into global tensors -------------===//
//
// Part of tilec. tile.atomic_add for the generic GPU lowering: every slot
// the calling thread owns (replicated elements by their first holder only)
// is added to its element with one relaxed atomic addition
// (TargetLowering::atomicAddGlobal) under its own bounds check:
// red.global.add.{f32,noftz.f16,noftz.bf16} on NVIDIA (a compare-and-swap
// loop where the architecture has none: bf16 before sm_90),
// global_atomic_add_f32 on AMD (a compare-and-swap loop for f16/bf16).
// Split-K reductions add a few values per output element, so the slots are
// not vectorized.
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
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<int64_t, 4> local = layout->apply(0, l);
    SmallVector<Value, 4> coords;
    for (unsigned d = 0; d < layout->rank(); ++d)
      coords.push_back(arith::AddIOp::create(b, loc, base[d], i32(local[d])));
    auto ifOp =
        scf::IfOp::create(b, loc, inBounds(b, loc, coords, view->dims), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value offset = arith::MulIOp::create(
        b, loc, linearIndex(b, loc, *view, coords), i64(bytes));
    tl.atomicAddGlobal(b, loc, gep(view->ptr, offset), regs[l]);
  }
  return success();
}

void populateAtomicPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerAtomicAdd);
}

} // namespace tile::gpu
