//===- PrefetchPrologue.cpp - L2 prefetches before a dependent wait ------===//
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
// loop; its first pass over the ring (iterations 0 .. depth - 1, which
// the producer issues without waiting) is prefetched the same way, from
// clones of the loop's index arithmetic at those iterations; in a
// persistent kernel, the prologue of the program loop's first iteration
// (the program's first tile).
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

/// A loop whose first iterations' copies are issued at once: a producer
/// warpgroup's copy loop (warp specialization; its first pass over the
/// ring, `depth` iterations) or a persistent kernel's program loop (the
/// prologue of its first program: one iteration).
struct EarlyLoop {
  scf::ForOp loop;
  int64_t depth = 1;
  SmallVector<tile::CopyAsyncOp> copies;
};

/// Adds \p loop (directly in \p outer, itself the entry block or a block
/// directly in it) to \p loops when its bounds and some of its copies'
/// operands are pure functions of the kernel's arguments and the
/// induction variable; their slices go to \p slice. \p depth 0: the
/// copies' ring depth.
void addEarlyLoop(scf::ForOp loop, Block &entry, Block &outer, int64_t depth,
                  SmallVector<EarlyLoop> &loops,
                  llvm::SetVector<Operation *> &slice) {
  SmallVector<Value> args(entry.getArguments());
  SmallVector<Value> bounds{loop.getLowerBound(), loop.getUpperBound(),
                            loop.getStep()};
  if (!collectSlice(bounds, {&entry, &outer}, args, slice))
    return;
  EarlyLoop found{loop, depth, {}};
  args.push_back(loop.getInductionVar());
  for (auto copy : loop.getBody()->getOps<tile::CopyAsyncOp>())
    if (collectSlice(prefetchOperands(copy), {&entry, &outer, loop.getBody()},
                     args, slice)) {
      found.copies.push_back(copy);
      if (depth == 0)
        found.depth = std::max(found.depth, ringDepth(copy));
    }
  if (!found.copies.empty())
    loops.push_back(std::move(found));
}

/// The producer loops and the persistent program loop of \p func.
SmallVector<EarlyLoop> earlyLoops(func::FuncOp func,
                                  llvm::SetVector<Operation *> &slice) {
  SmallVector<EarlyLoop> loops;
  Block &entry = func.getBody().front();
  for (auto loop : entry.getOps<scf::ForOp>())
    if (loop->hasAttr(tile::TileDialect::kPersistentAttr))
      addEarlyLoop(loop, entry, entry, 1, loops, slice);
  for (auto ws : entry.getOps<tile::WarpSpecializeOp>()) {
    Block &producer = ws.getProducer().front();
    for (auto loop : producer.getOps<scf::ForOp>())
      addEarlyLoop(loop, entry, producer, 0, loops, slice);
  }
  return loops;
}

/// Prefetches, before the wait at \p b's insertion point, the copies of
/// the first \p el.depth iterations of \p el.loop: iteration i at lower
/// bound + i x step, under i's bound check and the copy's own predicate.
/// Ops of the slice outside the entry block (already before the wait) are
/// cloned: those before the loop once (\p outside maps them), those in
/// it per iteration.
void prefetchEarlyLoop(OpBuilder &b, Block &entry, EarlyLoop &el,
                       const llvm::SetVector<Operation *> &slice,
                       IRMapping &outside) {
  Block &outer = *el.loop->getBlock();
  if (&outer != &entry)
    for (Operation &op : outer)
      if (slice.contains(&op) && !outside.contains(&op))
        b.clone(op, outside);
  Location loc = el.loop.getLoc();
  Value lb = outside.lookupOrDefault(el.loop.getLowerBound());
  Value ub = outside.lookupOrDefault(el.loop.getUpperBound());
  Value step = outside.lookupOrDefault(el.loop.getStep());
  for (int64_t i = 0; i < el.depth; ++i) {
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
    m.map(el.loop.getInductionVar(), iv);
    for (Operation &op : *el.loop.getBody())
      if (slice.contains(&op))
        b.clone(op, m);
    for (tile::CopyAsyncOp copy : el.copies) {
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
  SmallVector<EarlyLoop> loops = earlyLoops(func, slice);
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
  for (EarlyLoop &el : loops)
    prefetchEarlyLoop(b, entry, el, slice, outside);
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
