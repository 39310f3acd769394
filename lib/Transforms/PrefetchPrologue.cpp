//===- PrefetchPrologue.cpp - L2 prefetches before a dependent launch waits
//===//
//
// Part of tilec. Implements tile-prefetch-prologue (see Passes.td and
// docs/Passes.md "Dependent launch").
//
// A kernel launched as a dependent launch may start while the grid before
// it still runs, and waits for it (griddepcontrol.wait) before it touches
// memory. Without this pass the wait is the kernel's first instruction, so
// its pipeline prologue -- the first STAGES - 1 blocks of weights, most of
// a decode kernel's bytes at N = K = 4096 -- is requested only once the
// grid before has finished. Here the prologue's copies are first issued as
// L2 prefetches, then the kernel waits:
//
//   %w = tile.view ...; %k0 = ...            (moved up, pure)
//   tile.prefetch %w[%n0, %k0] [64, 256] if %live
//   tile.wait_preceding_grids
//   ...
//   tile.copy_async %w[%n0, %k0] -> ...       (unchanged, after the wait)
//
// In a warp-specialized kernel the copies sit in the producer warpgroup's
// loop; its first passes over the ring (iterations 0 .. depth - 1, which
// the producer issues without waiting) are prefetched the same way, from
// clones of the loop's index arithmetic at those iterations.
//
// A prefetch changes no value, so a slice the grid before writes (the
// activations) is still read correctly by its copy after the wait; only
// the bytes no grid writes (the weights) gain.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace tile {
#define GEN_PASS_DEF_TILEPREFETCHPROLOGUE
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// Adds to \p slice the ops that compute \p roots: each must sit in one of
/// \p blocks, be free of memory effects and have no regions, and every
/// block argument it reaches must be one of \p args. False (nothing
/// added) otherwise: then the copy is not prefetched.
bool collectSlice(ValueRange roots, ArrayRef<Block *> blocks,
                  ArrayRef<Value> args, llvm::SetVector<Operation *> &slice) {
  SmallVector<Value> work(roots.begin(), roots.end());
  llvm::SetVector<Operation *> found;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (isa<BlockArgument>(v)) {
      if (!llvm::is_contained(args, v))
        return false;
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (slice.contains(op) || found.contains(op))
      continue;
    if (!llvm::is_contained(blocks, op->getBlock()) ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return false;
    found.insert(op);
    llvm::append_range(work, op->getOperands());
  }
  slice.insert(found.begin(), found.end());
  return true;
}

/// The operands a copy's prefetch reads: its view, offsets and predicate.
SmallVector<Value> prefetchOperands(tile::CopyAsyncOp copy) {
  SmallVector<Value> operands{copy.getSrc()};
  llvm::append_range(operands, copy.getSrcOffsets());
  if (Value pred = copy.getPred())
    operands.push_back(pred);
  return operands;
}

/// The extents of the slice \p copy reads.
ArrayRef<int64_t> copiedShape(tile::CopyAsyncOp copy) {
  return copy.getDst().getType().getShape().take_back(
      copy.getSrc().getType().getRank());
}

/// The ring depth of \p copy's destination (its leading extent), 1 for a
/// buffer without one.
int64_t ringDepth(tile::CopyAsyncOp copy) {
  ArrayRef<int64_t> shape = copy.getDst().getType().getShape();
  return shape.size() > copy.getSrc().getType().getRank() ? shape.front() : 1;
}

/// A producer warpgroup's copy loop (warp specialization): its copies of
/// the first passes over the ring are issued at once, so they are
/// prefetched, iteration by iteration.
struct ProducerLoop {
  scf::ForOp loop;
  SmallVector<tile::CopyAsyncOp> copies;
};

/// The producer loops of \p func whose bounds and copy operands are pure
/// functions of the kernel's arguments and induction variable; their
/// slices go to \p slice.
SmallVector<ProducerLoop> producerLoops(func::FuncOp func,
                                        llvm::SetVector<Operation *> &slice) {
  SmallVector<ProducerLoop> loops;
  Block &entry = func.getBody().front();
  SmallVector<Value> args(entry.getArguments());
  for (auto ws : entry.getOps<tile::WarpSpecializeOp>()) {
    Block &producer = ws.getProducer().front();
    for (auto loop : producer.getOps<scf::ForOp>()) {
      ProducerLoop found{loop, {}};
      SmallVector<Value> bounds{loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()};
      if (!collectSlice(bounds, {&entry, &producer}, args, slice))
        continue;
      SmallVector<Value> loopArgs(args);
      loopArgs.push_back(loop.getInductionVar());
      for (auto copy : loop.getBody()->getOps<tile::CopyAsyncOp>())
        if (collectSlice(prefetchOperands(copy),
                         {&entry, &producer, loop.getBody()}, loopArgs, slice))
          found.copies.push_back(copy);
      if (!found.copies.empty())
        loops.push_back(std::move(found));
    }
  }
  return loops;
}

/// Prefetches, before the wait at \p b's insertion point, the copies of
/// the first passes of \p pl over their rings: iteration i < depth at
/// lower bound + i x step, under i's bound check and the copy's own
/// predicate. Ops of the slice outside the entry block are cloned
/// (\p outside maps those before the loop, once).
void prefetchProducerLoop(OpBuilder &b, ProducerLoop &pl,
                          const llvm::SetVector<Operation *> &slice,
                          IRMapping &outside) {
  Block &producer = *pl.loop->getBlock();
  for (Operation &op : producer)
    if (slice.contains(&op) && !outside.contains(&op))
      b.clone(op, outside);
  int64_t depth = 0;
  for (tile::CopyAsyncOp copy : pl.copies)
    depth = std::max(depth, ringDepth(copy));
  Location loc = pl.loop.getLoc();
  Value lb = outside.lookupOrDefault(pl.loop.getLowerBound());
  Value ub = outside.lookupOrDefault(pl.loop.getUpperBound());
  Value step = outside.lookupOrDefault(pl.loop.getStep());
  for (int64_t i = 0; i < depth; ++i) {
    Value iv = lb;
    if (i > 0) {
      Value n = arith::ConstantOp::create(b, loc,
                                          b.getIntegerAttr(step.getType(), i));
      iv = arith::AddIOp::create(b, loc, lb,
                                 arith::MulIOp::create(b, loc, step, n));
    }
    Value live =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, ub);
    IRMapping m = outside;
    m.map(pl.loop.getInductionVar(), iv);
    for (Operation &op : *pl.loop.getBody())
      if (slice.contains(&op))
        b.clone(op, m);
    for (tile::CopyAsyncOp copy : pl.copies) {
      if (i >= ringDepth(copy))
        continue;
      Value pred = live;
      if (Value own = copy.getPred())
        pred = arith::AndIOp::create(b, loc, live, m.lookupOrDefault(own));
      SmallVector<Value> offsets;
      for (Value o : copy.getSrcOffsets())
        offsets.push_back(m.lookupOrDefault(o));
      tile::PrefetchOp::create(b, copy.getLoc(),
                               m.lookupOrDefault(copy.getSrc()), offsets,
                               copiedShape(copy), pred);
    }
  }
}

void prefetchPrologue(func::FuncOp func) {
  Block &entry = func.getBody().front();
  if (!func.getBody().getOps<tile::WaitPrecedingGridsOp>().empty())
    return;
  SmallVector<Value> args(entry.getArguments());
  SmallVector<tile::CopyAsyncOp> copies;
  llvm::SetVector<Operation *> slice;
  for (auto copy : entry.getOps<tile::CopyAsyncOp>())
    if (collectSlice(prefetchOperands(copy), {&entry}, args, slice))
      copies.push_back(copy);
  SmallVector<ProducerLoop> loops = producerLoops(func, slice);
  if (copies.empty() && loops.empty())
    return;
  // The entry block's part of the slice keeps its order at the start,
  // then the prefetches (with the clones they need), then the wait.
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto wait = tile::WaitPrecedingGridsOp::create(b, func.getLoc());
  SmallVector<Operation *> ordered;
  for (Operation &op : entry)
    if (slice.contains(&op))
      ordered.push_back(&op);
  for (Operation *op : ordered)
    op->moveBefore(wait);
  b.setInsertionPoint(wait);
  for (tile::CopyAsyncOp copy : copies)
    tile::PrefetchOp::create(b, copy.getLoc(), copy.getSrc(),
                             copy.getSrcOffsets(), copiedShape(copy),
                             copy.getPred());
  IRMapping outside;
  for (ProducerLoop &pl : loops)
    prefetchProducerLoop(b, pl, slice, outside);
}

struct PrefetchPrologue
    : public tile::impl::TilePrefetchPrologueBase<PrefetchPrologue> {
  using TilePrefetchPrologueBase::TilePrefetchPrologueBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(tile::TileDialect::kDependentLaunchAttr))
      return;
    std::optional<tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    if (!info->hasDependentLaunch())
      return;
    for (auto func : module.getOps<func::FuncOp>())
      if (tile::detail::isKernel(func) && !func.isExternal())
        prefetchPrologue(func);
  }
};

} // namespace
