//===- SpecializeWarps.cpp - tile-pipeline's warp-specialized scheme ------===//
//
// Part of tilec. Part of tile-pipeline (SoftwarePipeline.cpp; see
// docs/Passes.md): a TMA loop's copies go to a producer warpgroup. The
// kernel's body becomes the consumer region of a tile.warp_specialize
// whose producer region issues every copy of the loop, S stages ahead at
// most:
//
//   rings, %full, %empty = tile.alloc_shared ... (S mbarriers each)
//   tile.mbarrier_init %full count(N) ; %empty count(W) ; tile.barrier
//   tile.warp_specialize producer(4 warps, P registers) {
//     ... bounds, views, offsets (recomputed) ...
//     scf.for %k ... iter_args(%w = 0, %e = 0) {
//       tile.mbarrier_wait %empty[%w] phase(%e xor 1)
//       copy_async view[offsets(%k)] -> ring[%w] barrier(%full[%w])
//       yield (%w+1) mod S, %e xor (%w+1 == S)
//     }
//   } consumer(C registers) {
//     ... the kernel's body, with the loop:
//     scf.for %k ... iter_args(..., %r = 0, %p = 0, %c = false) {
//       tile.mbarrier_wait %full[%r] phase(%p) ; t = shared_load ring[%r]
//       ... tile.dot (in flight) ...
//       tile.mbarrier_arrive %empty[(%r-1) mod S] if %c
//       yield ..., (%r+1) mod S, ..., true
//     }
//     tile.barrier ; tile.mbarrier_inval %full, %empty ; ...
//   }
//
// The dot's lowering retires the previous iteration's group before the
// arrive: the stage it releases is no longer read. A loop without an MMA
// in flight (attention: both dots are retired within the iteration, and
// softmax sits between them) releases the stage it read at the end of the
// iteration instead (`tile.mbarrier_arrive %empty[%r]` before the yield;
// %c stays unused). In a persistent kernel
// (tile-persist-programs) the loop sits in the loop over the virtual grid:
// the producer then runs that loop too, and both roles carry their stage
// counters (and the consumers whether they hold a stage) across its
// iterations, so the producer fills the next tile's stages while the
// consumers finish the previous tile.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "PipelineSupport.h"

#include "tile/Dialect/Tile/IR/MmaInFlight.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <functional>

using namespace mlir;

namespace tile::pipeline {
namespace {

/// The persistent loop (tile-persist-programs) directly around \p loop, or
/// null.
scf::ForOp persistentLoop(scf::ForOp loop) {
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (outer && outer->hasAttr(tile::TileDialect::kPersistentAttr) &&
      outer.getInitArgs().empty())
    return outer;
  return {};
}

/// The ops a producer region computes again to issue \p loop's copies:
/// those in the kernel's body, and those in the persistent loop's \p outer
/// (if any), each list in program order.
struct ProducerInputs {
  SmallVector<Operation *> kernelOps, tileOps;
};

/// The producer's inputs (bounds, views, the offsets' operands from outside
/// the loop, and the persistent loop's bounds), or failure unless all of
/// them are computed in the kernel's body or the persistent loop's without
/// memory effects or regions, from the kernel's arguments and the
/// persistent loop's induction variable.
FailureOr<ProducerInputs> producerInputs(scf::ForOp loop,
                                         ArrayRef<Candidate> candidates,
                                         scf::ForOp outer) {
  SmallVector<Value> roots{loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep()};
  if (outer)
    roots.append(
        {outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
  for (Candidate c : candidates) {
    roots.push_back(c.load.getView());
    for (Operation *op : c.slice)
      for (Value operand : op->getOperands())
        if (loop.isDefinedOutsideOfLoop(operand))
          roots.push_back(operand);
    for (Value offset : c.load.getOffsets())
      if (loop.isDefinedOutsideOfLoop(offset))
        roots.push_back(offset);
  }
  Block *body =
      (outer ? outer.getOperation() : loop.getOperation())->getBlock();
  Block *tileBody = outer ? outer.getBody() : nullptr;
  llvm::SetVector<Operation *> ops;
  std::function<bool(Value)> visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def) {
      Block *owner = cast<BlockArgument>(v).getOwner();
      return owner == body || (tileBody && v == outer.getInductionVar());
    }
    if (ops.contains(def))
      return true;
    if ((def->getBlock() != body && def->getBlock() != tileBody) ||
        def->getNumRegions() || !isMemoryEffectFree(def))
      return false;
    for (Value operand : def->getOperands())
      if (!visit(operand))
        return false;
    ops.insert(def);
    return true;
  };
  for (Value root : roots)
    if (!visit(root))
      return failure();
  ProducerInputs inputs;
  for (Operation *op : ops)
    (op->getBlock() == body ? inputs.kernelOps : inputs.tileOps).push_back(op);
  auto inOrder = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  llvm::sort(inputs.kernelOps, inOrder);
  llvm::sort(inputs.tileOps, inOrder);
  return inputs;
}

/// The registers of each role: the block starts at launchRegisters, the
/// producers drop to 24 (setmaxnreg's least; the producer loop is index
/// arithmetic and needs no more, as in FlashAttention-3), the consumers
/// take what that frees (at most 240, at least the start: 240 at 8 + 4
/// warps, which attention's 64 x 128 accumulators per warpgroup need).
std::pair<int64_t, int64_t> roleRegisters(int64_t warps, int64_t producerWarps,
                                          int64_t occupancy) {
  constexpr int64_t producerRegisters = 24;
  int64_t threads = (warps + producerWarps) * 32;
  int64_t launch = tile::WarpSpecializeOp::launchRegisters(threads, occupancy);
  int64_t consumer = std::clamp<int64_t>(
      (launch * threads - producerWarps * 32 * producerRegisters) /
          (warps * 32) / 8 * 8,
      launch, 240);
  return {producerRegisters, consumer};
}

/// The producer region's loop of copies into \p rings, at the builder's
/// insertion point: \p iters are the initial stage and phase, mapped
/// values from \p outside; returns the final stage and phase.
ValueRange buildProducerLoop(IRRewriter &rewriter, scf::ForOp loop,
                             MutableArrayRef<Candidate> candidates,
                             ArrayRef<Value> rings, Value full, Value empty,
                             int64_t stages, ValueRange iters,
                             const IRMapping &outside) {
  Location loc = loop.getLoc();
  auto copies = scf::ForOp::create(
      rewriter, loc, outside.lookupOrDefault(loop.getLowerBound()),
      outside.lookupOrDefault(loop.getUpperBound()),
      outside.lookupOrDefault(loop.getStep()), iters);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(copies.getBody());
  Value write = copies.getRegionIterArgs()[0];
  Value phase = copies.getRegionIterArgs()[1];
  tile::MbarrierWaitOp::create(
      rewriter, loc, empty, write,
      arith::XOrIOp::create(rewriter, loc, phase, constI32(rewriter, loc, 1)));
  for (auto [c, ring] : llvm::zip_equal(candidates, rings))
    issueCopy(rewriter, c.load.getLoc(), loop, c, copies.getInductionVar(),
              Value(), write, ring, full, outside);
  auto [next, nextPhase] =
      advanceStageAndPhase(rewriter, loc, write, phase, stages);
  scf::YieldOp::create(rewriter, loc, ValueRange{next, nextPhase});
  return copies.getResults();
}

/// Fills the producer region (see the file comment): the kernel-level
/// inputs, the persistent loop \p outer (if any) with its inputs, and the
/// loop of copies.
void buildProducer(IRRewriter &rewriter, Block *producer, scf::ForOp loop,
                   scf::ForOp outer, const ProducerInputs &inputs,
                   MutableArrayRef<Candidate> candidates, ArrayRef<Value> rings,
                   Value full, Value empty, int64_t stages) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(producer->getTerminator());
  IRMapping outside;
  for (Operation *op : inputs.kernelOps)
    rewriter.clone(*op, outside);
  Value zero = constI32(rewriter, loc, 0);
  if (!outer) {
    buildProducerLoop(rewriter, loop, candidates, rings, full, empty, stages,
                      ValueRange{zero, zero}, outside);
    return;
  }
  auto tiles = scf::ForOp::create(
      rewriter, loc, outside.lookupOrDefault(outer.getLowerBound()),
      outside.lookupOrDefault(outer.getUpperBound()),
      outside.lookupOrDefault(outer.getStep()), ValueRange{zero, zero});
  rewriter.setInsertionPointToStart(tiles.getBody());
  outside.map(outer.getInductionVar(), tiles.getInductionVar());
  for (Operation *op : inputs.tileOps)
    rewriter.clone(*op, outside);
  ValueRange last =
      buildProducerLoop(rewriter, loop, candidates, rings, full, empty, stages,
                        tiles.getRegionIterArgs(), outside);
  scf::YieldOp::create(rewriter, loc, last);
}

/// Gives the persistent loop \p outer three more iteration arguments (the
/// consumers' stage, phase and whether they hold a stage), yielded
/// unchanged until the inner loop's results replace them; returns the new
/// loop.
scf::ForOp threadCounters(IRRewriter &rewriter, scf::ForOp outer) {
  Location loc = outer.getLoc();
  rewriter.setInsertionPoint(outer);
  SmallVector<Value> inits{
      constI32(rewriter, loc, 0), constI32(rewriter, loc, 0),
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 0)};
  FailureOr<LoopLikeOpInterface> replaced = outer.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  if (failed(replaced))
    return {};
  auto loop = cast<scf::ForOp>(replaced->getOperation());
  loop->setAttr(tile::TileDialect::kPersistentAttr, rewriter.getUnitAttr());
  return loop;
}

} // namespace

std::string specializeObstacle(scf::ForOp loop, ArrayRef<Candidate> candidates,
                               unsigned maxWarps) {
  scf::ForOp outer = persistentLoop(loop);
  Operation *top = outer ? outer.getOperation() : loop.getOperation();
  auto func = dyn_cast<func::FuncOp>(top->getParentOp());
  if (!func || !func->hasAttr(tile::TileDialect::kKernelAttr))
    return "it is not directly in the kernel's body (nor in a persistent "
           "kernel's loop over its tiles)";
  if (func->hasAttr(tile::TileDialect::kProducerWarpsAttr))
    return "another loop of the kernel has the producer warpgroup";
  if (top->getBlock()->getTerminator()->getNumOperands() != 0)
    return "the kernel returns values";
  auto warps = func->getAttrOfType<IntegerAttr>(tile::TileDialect::kWarpsAttr);
  // (Whole warpgroups, and at most 1024 threads with the producers'.)
  if (!warps || warps.getInt() % 4 != 0 || warps.getInt() + 4 > 32)
    return "it needs a kernel of 4, 8, ... 28 warps";
  int64_t occupancy = tile::TileDialect::occupancyOf(func);
  if (maxWarps && (warps.getInt() + 4) * occupancy > int64_t(maxWarps))
    return "with the 4 producer warps, occupancy " + std::to_string(occupancy) +
           " of " + std::to_string(warps.getInt() + 4) +
           "-warp programs needs " +
           std::to_string((warps.getInt() + 4) * occupancy) +
           " warps per SM, more than its " + std::to_string(maxWarps);
  if (failed(producerInputs(loop, candidates, outer)))
    return "its bounds or copy offsets are computed with memory effects or "
           "inside other operations, which the producer cannot repeat";
  return "";
}

LogicalResult specializeLoop(scf::ForOp loop,
                             MutableArrayRef<Candidate> candidates,
                             int64_t stages, tile::DotOp asyncDot) {
  scf::ForOp outer = persistentLoop(loop);
  Operation *top = outer ? outer.getOperation() : loop.getOperation();
  auto func = cast<func::FuncOp>(top->getParentOp());
  ProducerInputs inputs = *producerInputs(loop, candidates, outer);
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  Block *body = top->getBlock();
  int64_t warps =
      func->getAttrOfType<IntegerAttr>(tile::TileDialect::kWarpsAttr).getInt();
  constexpr int64_t producerWarps = 4;
  auto [producerRegisters, consumerRegisters] =
      roleRegisters(warps, producerWarps, tile::TileDialect::occupancyOf(func));
  func->setAttr(tile::TileDialect::kProducerWarpsAttr,
                rewriter.getI64IntegerAttr(producerWarps));

  // Rings and mbarriers first, visible to both regions.
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> rings = createRings(rewriter, candidates, stages);
  auto barType = tile::SharedType::get({stages}, rewriter.getI64Type());
  Value full = tile::AllocSharedOp::create(rewriter, loc, barType);
  Value empty = tile::AllocSharedOp::create(rewriter, loc, barType);
  tile::MbarrierInitOp::create(rewriter, loc, full,
                               rewriter.getI32IntegerAttr(candidates.size()));
  tile::MbarrierInitOp::create(rewriter, loc, empty,
                               rewriter.getI32IntegerAttr(warps));
  tile::BarrierOp::create(rewriter, loc);
  auto split = tile::WarpSpecializeOp::create(
      rewriter, loc, producerWarps, producerRegisters, consumerRegisters);
  for (Region *region : {&split.getProducer(), &split.getConsumer()}) {
    rewriter.createBlock(region);
    tile::WarpRegionEndOp::create(rewriter, loc);
  }
  Block *consumer = &split.getConsumer().front();
  while (split->getNextNode() != body->getTerminator())
    rewriter.moveOpBefore(split->getNextNode(), consumer->getTerminator());
  buildProducer(rewriter, &split.getProducer().front(), loop, outer, inputs,
                candidates, rings, full, empty, stages);

  // The consumers' loop: wait for the stage, read it, release the previous
  // one (once they hold one) after the dot in flight, or this one at the end
  // of the iteration without an MMA in flight; carrying the counters across
  // the persistent loop when there is one.
  if (asyncDot)
    asyncDot->setAttr(tile::kMmaInFlightAttr, rewriter.getI64IntegerAttr(1));
  SmallVector<Value> counters;
  if (outer) {
    outer = threadCounters(rewriter, outer);
    if (!outer)
      return loop.emitError("cannot carry stage counters across tiles");
    llvm::append_range(counters, outer.getRegionIterArgs());
  } else {
    rewriter.setInsertionPoint(loop);
    counters = {
        constI32(rewriter, loc, 0), constI32(rewriter, loc, 0),
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 0)};
  }
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, counters, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
        auto [read, phase] =
            advanceStageAndPhase(b, loc, args[0], args[1], stages);
        Value holds = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
        return SmallVector<Value>{read, phase, holds};
      });
  if (failed(replaced))
    return loop.emitError("cannot add pipeline stage counters to the loop");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = newLoop.getRegionIterArgs().size() - 3;
  Value read = newLoop.getRegionIterArgs()[first];
  rewriter.setInsertionPointToStart(newLoop.getBody());
  tile::MbarrierWaitOp::create(rewriter, loc, full, read,
                               newLoop.getRegionIterArgs()[first + 1]);
  Value czero = constI32(rewriter, loc, 0);
  for (auto [c, ring] : llvm::zip_equal(candidates, rings))
    replaceBySharedLoad(rewriter, c, ring, read, czero);
  if (asyncDot) {
    rewriter.setInsertionPointAfter(asyncDot);
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, read, czero);
    Value previous = arith::SelectOp::create(
        rewriter, loc, isFirst, constI32(rewriter, loc, stages - 1),
        arith::SubIOp::create(rewriter, loc, read, constI32(rewriter, loc, 1)));
    tile::MbarrierArriveOp::create(rewriter, loc, empty, previous,
                                   newLoop.getRegionIterArgs()[first + 2]);
  } else {
    rewriter.setInsertionPoint(newLoop.getBody()->getTerminator());
    tile::MbarrierArriveOp::create(rewriter, loc, empty, read, Value());
  }
  for (Candidate &c : candidates)
    rewriter.eraseOp(c.load);
  newLoop->removeAttr(tile::TileDialect::kPipelineAttr);
  if (outer) {
    auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
    unsigned at = yield.getNumOperands() - 3;
    for (unsigned i = 0; i < 3; ++i)
      yield->setOperand(at + i, newLoop.getResult(first + i));
  }
  guardZeroTrip(rewriter, newLoop);
  rewriter.setInsertionPointAfter(outer ? outer.getOperation()
                                        : newLoop->getParentOp());
  tile::BarrierOp::create(rewriter, loc);
  tile::MbarrierInvalOp::create(rewriter, loc, full);
  tile::MbarrierInvalOp::create(rewriter, loc, empty);
  return success();
}

} // namespace tile::pipeline
