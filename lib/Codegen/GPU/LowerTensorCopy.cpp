//===- LowerTensorCopy.cpp - TMA copies and mbarriers ---------------------===//
//
// Part of tilec. The generic GPU lowering of tile-pipeline's TMA scheme
// (targets with TargetLowering::hasTensorCopy: NVIDIA sm_90):
//  - tile.copy_async with a barrier: thread 0 announces the stage's bytes on
//    the stage's mbarrier (one arrival) and issues one TMA load per box of
//    the destination's layout (lib/Layout's TmaBox.h), through the kernel's
//    tensor-map parameter the copy's tile.tma_map names (a sub-byte tile's
//    map reads bytes: its column coordinate is scaled to bytes);
//  - tile.mbarrier_init / tile.mbarrier_inval: thread 0 for every barrier
//    of the buffer (the init followed by the fence TMA needs, which every
//    thread executes);
//  - tile.mbarrier_wait: every thread polls the barrier's phase;
//  - tile.mbarrier_arrive: the first lane of each warp arrives;
//  - tile.warp_specialize: `if (thread >= consumer threads)` with the
//    producer region (after setmaxnreg.dec, on the producers' first warp)
//    in its then-branch and the consumer region (after setmaxnreg.inc) in
//    its else-branch, marked with WarpRoles::kAttr: barriers inside
//    synchronize one role, and a producer's TMA copies come from its first
//    thread.
// The other threads do nothing for a copy: the 16-byte chunks, addresses
// and predicates every thread computes for cp.async (LowerCopy.cpp) are the
// instructions this replaces.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Layout/TmaBox.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

/// The shared address of mbarrier `index` (i32) of the buffer `bars`, or
/// null after an error at `op` (the buffer must be a plain array of i64).
static Value barrierAddress(KernelLowering &kl, Operation *op,
                            SharedValue &bars, Value index) {
  if (!(bars.layout == SharedLayout::rowMajor(bars.type.getShape()))) {
    op->emitOpError("expects its mbarriers in an unswizzled array, got ")
        << bars.layout.str();
    return Value();
  }
  OpBuilder &b = kl.builder();
  Value offset = arith::MulIOp::create(b, op->getLoc(), index, kl.i32(8));
  return kl.gep(bars.ptr, offset);
}

/// Opens `if (thread 0 [and pred])` (in a producer region, its first
/// thread); the builder stays inside (the caller's insertion guard closes
/// it).
static void onlyThreadZero(KernelLowering &kl, Location loc, Value pred) {
  OpBuilder &b = kl.builder();
  unsigned firstThread = WarpRoles::at(b.getInsertionBlock()).firstThread;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      kl.threadIndex(), kl.i32(firstThread));
  if (pred)
    first = arith::AndIOp::create(b, loc, first, pred);
  auto guard = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
}

/// The lowered mbarrier buffer of an mbarrier op, or null after an error
/// at `op` (a target without mbarriers, or a buffer not lowered).
static SharedValue *mbarrierBuffer(KernelLowering &kl, Operation *op,
                                   Value barriers) {
  if (!kl.target().hasTensorCopy()) {
    op->emitOpError("needs a target with TMA and mbarriers (sm_90)");
    return nullptr;
  }
  SharedValue *bars = kl.lookupShared(barriers);
  if (!bars)
    op->emitOpError("barrier buffer not lowered");
  return bars;
}

/// Thread 0 applies `each` to the address of every mbarrier of `bars`.
static LogicalResult onEveryBarrier(KernelLowering &kl, Operation *op,
                                    SharedValue &bars,
                                    llvm::function_ref<void(Value)> each) {
  OpBuilder::InsertionGuard guard(kl.builder());
  onlyThreadZero(kl, op->getLoc(), Value());
  for (int64_t i = 0, e = bars.type.getShape()[0]; i < e; ++i) {
    Value bar = barrierAddress(kl, op, bars, kl.i32(i));
    if (!bar)
      return failure();
    each(bar);
  }
  return success();
}

LogicalResult KernelLowering::lowerTensorCopy(tile::CopyAsyncOp op) {
  if (!tl.hasTensorCopy())
    return op.emitOpError("is a TMA copy, which the target does not have");
  SharedValue *dst = lookupShared(op.getDst());
  SharedValue *bars = lookupShared(op.getBarrier());
  auto mapIndex = op->getAttrOfType<IntegerAttr>(TileDialect::kTmaMapAttr);
  if (!dst || !bars)
    return op.emitOpError("destination or barrier buffer not lowered");
  if (!mapIndex || mapIndex.getInt() >= int64_t(tensorMaps.size()))
    return op.emitOpError("internal error: a TMA copy without its tensor map "
                          "(run tile-assign-tensor-maps)");
  unsigned bits = tile::getElementBitWidth(dst->type.getElementType());
  llvm::Expected<::tile::layout::TmaBoxPlan> plan =
      ::tile::layout::planTmaBoxes(dst->layout, bits);
  if (!plan)
    return op.emitOpError("internal error: ")
           << llvm::toString(plan.takeError());
  // tile-pipeline copies whole tiles into one stage of a ring (or into a
  // lone tile): every index but the stage is zero.
  OperandRange indices = op.getDstIndices();
  OperandRange offsets = op.getSrcOffsets();
  bool ring = dst->type.getRank() == int64_t(offsets.size()) + 1;
  for (Value index : indices.drop_front(ring ? 1 : 0))
    if (!matchPattern(index, m_Zero()))
      return op.emitOpError("a TMA copy fills whole stages of its buffer");
  Location l = op.getLoc();
  Value stageOffset = i32(0);
  if (ring)
    stageOffset = arith::MulIOp::create(b, l, values[indices[0]][0],
                                        i32(plan->stageBytes));
  // The box's coordinates, innermost first: the column, the row, then the
  // indices of the tile's unit dimensions.
  SmallVector<Value> coords;
  for (Value offset : llvm::reverse(offsets))
    coords.push_back(values[offset][0]);
  Value col0 = coords[0];
  // A sub-byte tile's map reads bytes: column c is byte c * bits / 8
  // (tile-pipeline proved c a multiple of 8 / gcd(bits, 8)).
  if (plan->unitBits != bits)
    col0 = arith::ShRSIOp::create(
        b, l, arith::MulIOp::create(b, l, col0, i32(bits)), i32(3));
  Value bar = barrierAddress(*this, op, *bars, values[op.getBarrierIndex()][0]);
  if (!bar)
    return failure();

  OpBuilder::InsertionGuard guard(b);
  onlyThreadZero(*this, l, op.getPred() ? values[op.getPred()][0] : Value());
  tl.mbarrierArriveExpectTx(b, l, bar, plan->bytesPerStage());
  for (auto [box, boxOffset] : llvm::enumerate(plan->boxOffsets)) {
    Value at = arith::AddIOp::create(b, l, stageOffset, i32(boxOffset));
    coords[0] =
        arith::AddIOp::create(b, l, col0, i32(int64_t(box) * plan->boxCols));
    tl.tensorCopy(b, l, gep(dst->ptr, at), tensorMaps[mapIndex.getInt()],
                  coords, bar);
  }
  return success();
}

LogicalResult KernelLowering::lowerMbarrierInit(tile::MbarrierInitOp op) {
  SharedValue *bars = mbarrierBuffer(*this, op, op.getBarriers());
  if (!bars)
    return failure();
  if (failed(onEveryBarrier(*this, op, *bars, [&](Value bar) {
        tl.mbarrierInit(b, op.getLoc(), bar, op.getCount());
      })))
    return failure();
  // (Every thread: one fence per kernel, no branch around it.)
  tl.mbarrierInitFence(b, op.getLoc());
  return success();
}

/// The shared address of mbarrier \p index (lowered i32) of the buffer
/// \p barriers of the mbarrier op \p op, or null after an error at it.
static Value indexedBarrier(KernelLowering &kl, Operation *op, Value barriers,
                            Value index) {
  SharedValue *bars = mbarrierBuffer(kl, op, barriers);
  return bars ? barrierAddress(kl, op, *bars, index) : Value();
}

LogicalResult KernelLowering::lowerMbarrierWait(tile::MbarrierWaitOp op) {
  Location l = op.getLoc();
  Value bar =
      indexedBarrier(*this, op, op.getBarriers(), values[op.getIndex()][0]);
  if (!bar)
    return failure();
  Value parity = values[op.getPhase()][0];
  // while (!try_wait(bar, parity)) {}
  auto loop = scf::WhileOp::create(b, l, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore());
    b.setInsertionPointToStart(before);
    Value done = tl.mbarrierTryWait(b, l, bar, parity);
    Value pending =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, done, i32(0));
    scf::ConditionOp::create(b, l, pending, ValueRange{});
    Block *after = b.createBlock(&loop.getAfter());
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, l);
  }
  return success();
}

LogicalResult KernelLowering::lowerMbarrierInval(tile::MbarrierInvalOp op) {
  SharedValue *bars = mbarrierBuffer(*this, op, op.getBarriers());
  if (!bars)
    return failure();
  return onEveryBarrier(*this, op, *bars, [&](Value bar) {
    tl.mbarrierInval(b, op.getLoc(), bar);
  });
}

LogicalResult KernelLowering::lowerMbarrierArrive(tile::MbarrierArriveOp op) {
  Location l = op.getLoc();
  Value bar =
      indexedBarrier(*this, op, op.getBarriers(), values[op.getIndex()][0]);
  if (!bar)
    return failure();
  Value lane = arith::AndIOp::create(b, l, threadIndex(), i32(warpSize() - 1));
  Value first =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lane, i32(0));
  if (op.getPred())
    first = arith::AndIOp::create(b, l, first, values[op.getPred()][0]);
  OpBuilder::InsertionGuard guard(b);
  auto only = scf::IfOp::create(b, l, first, /*withElse=*/false);
  b.setInsertionPointToStart(&only.getThenRegion().front());
  tl.mbarrierArrive(b, l, bar);
  return success();
}

namespace {

/// tile.warp_specialize: an scf.if on the thread index (see the file
/// comment).
class WarpSpecializeLowering
    : public OpConversionPattern<tile::WarpSpecializeOp> {
public:
  WarpSpecializeLowering(KernelLowering &kl)
      : OpConversionPattern(kl.getTypeConverter(), kl.getContext()), kl(kl) {}

  LogicalResult
  matchAndRewrite(tile::WarpSpecializeOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!kl.target().hasTensorCopy())
      return op.emitOpError("needs a target with setmaxnreg (sm_90a)");
    unsigned warpSize = kl.target().getTargetInfo().warpSize;
    int32_t consumers = int32_t(kl.numThreads());
    int32_t producers = int32_t(op.getProducerWarps() * warpSize);
    int64_t launch = tile::WarpSpecializeOp::launchRegisters(
        consumers + producers, kl.occupancy());
    Location l = op.getLoc();
    Value isProducer = arith::CmpIOp::create(
        rewriter, l, arith::CmpIPredicate::uge, kl.threadIndex(),
        arith::ConstantIntOp::create(rewriter, l, rewriter.getI32Type(),
                                     consumers));
    auto roles = scf::IfOp::create(rewriter, l, TypeRange{}, isProducer,
                                   /*withElseRegion=*/true);
    // The producer region runs on the producers' first warp (its copies
    // come from one thread; the other warps would only poll the
    // mbarriers), after the whole warpgroup gave its registers back.
    roles->setAttr(WarpRoles::kAttr, rewriter.getDenseI32ArrayAttr(
                                         {consumers, int32_t(warpSize)}));
    auto fill = [&](Block *into, Region &from, int64_t registers) {
      rewriter.setInsertionPointToStart(into);
      if (registers != launch)
        kl.target().setMaxRegisters(rewriter, l, unsigned(registers),
                                    registers > launch);
      if (into == roles.thenBlock()) {
        Value firstWarp = arith::CmpIOp::create(
            rewriter, l, arith::CmpIPredicate::ult, kl.threadIndex(),
            arith::ConstantIntOp::create(rewriter, l, rewriter.getI32Type(),
                                         consumers + int32_t(warpSize)));
        into = scf::IfOp::create(rewriter, l, firstWarp, /*withElse=*/false)
                   .thenBlock();
      }
      Block *src = &from.front();
      Operation *end = src->getTerminator();
      rewriter.inlineBlockBefore(src, into->getTerminator());
      rewriter.eraseOp(end);
    };
    fill(roles.thenBlock(), op.getProducer(), op.getProducerRegisters());
    fill(roles.elseBlock(), op.getConsumer(), op.getConsumerRegisters());
    rewriter.eraseOp(op);
    return success();
  }

private:
  KernelLowering &kl;
};

} // namespace

void populateTensorCopyPatterns(KernelLowering &kl,
                                RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeLowering>(kl);
  addLowering(patterns, kl, &KernelLowering::lowerMbarrierArrive);
  addLowering(patterns, kl, &KernelLowering::lowerMbarrierInit);
  addLowering(patterns, kl, &KernelLowering::lowerMbarrierWait);
  addLowering(patterns, kl, &KernelLowering::lowerMbarrierInval);
}

} // namespace tile::gpu
