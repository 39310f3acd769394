//===- Pipeline.cpp - Software pipelining of global loads -----------------===//
//
// Part of tilec. Implements tile-pipeline (see Passes.td and
// docs/Passes.md). For a loop `for k = lb to ub step st` with S stages and
// N pipelined loads, the result is
//
//   bufs_j = tile.alloc_shared : !tile.shared<S x shape_j x T_j>
//   for i in 0 .. S-2:  copy_async view_j[offsets_j(lb + i*st)] -> bufs_j[i]
//   for k ... iter_args(..., r = 0, w = S-1) {
//     tile.wait (S-2)*N          // the groups of stage r have landed
//     tile.barrier               // ... for every thread; stage w is free
//     t_j = tile.shared_load bufs_j[r]
//     copy_async view_j[offsets_j(k + (S-1)*st)] -> bufs_j[w]
//     ... body with t_j in place of the loads ...
//     yield ..., (r+1) mod S, (w+1) mod S
//   }
//   tile.wait 0
//
// Copies for iterations past the end read out-of-range (masked, zero) or
// unused in-range data into stages nobody reads, so no tail masking is
// needed for correctness, and every iteration issues exactly N groups,
// which keeps the wait counts exact.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// A load to pipeline and the side-effect-free ops of the loop body its
/// offsets are computed with (in program order).
struct Candidate {
  mlir::tile::LoadOp load;
  SmallVector<Operation *> slice;
};

/// Whether \p op (with everything nested in it) may write global memory or
/// has effects we cannot see, or already manages async copies itself.
bool blocksPipelining(Operation *op) {
  if (isa<mlir::tile::CopyAsyncOp, mlir::tile::WaitOp>(op))
    return true;
  if (isa<mlir::tile::StoreOp>(op))
    return true;
  if (isa<scf::YieldOp>(op) ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const auto &effect : list) {
    if (isa<MemoryEffects::Write>(effect.getEffect()) &&
        !isa<mlir::tile::SharedMemoryResource>(effect.getResource()))
      return true;
  }
  return false;
}

bool isZeroPadding(mlir::tile::LoadOp load) {
  std::optional<TypedAttr> padding = load.getPadding();
  if (!padding)
    return true;
  if (auto f = dyn_cast<FloatAttr>(*padding))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast<IntegerAttr>(*padding))
    return i.getValue().isZero();
  return false;
}

/// Collects the ops computing \p value inside \p loop's body; fails if it
/// depends on iteration arguments or on ops with effects or regions.
bool collectSlice(scf::ForOp loop, Value value,
                  llvm::SetVector<Operation *> &slice) {
  if (value == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(value))
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() ||
      !isMemoryEffectFree(def))
    return false;
  if (slice.contains(def))
    return true;
  for (Value operand : def->getOperands()) {
    if (!collectSlice(loop, operand, slice))
      return false;
  }
  slice.insert(def);
  return true;
}

SmallVector<Candidate> findCandidates(scf::ForOp loop) {
  SmallVector<Candidate> out;
  bool blocked = false;
  loop.getBody()->walk([&](Operation *op) {
    if (blocksPipelining(op))
      blocked = true;
  });
  if (blocked)
    return out;
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<mlir::tile::LoadOp>(&op);
    if (!load || !loop.isDefinedOutsideOfLoop(load.getView()) ||
        !isZeroPadding(load))
      continue;
    llvm::SetVector<Operation *> slice;
    bool ok = true;
    for (Value offset : load.getOffsets())
      ok = ok && collectSlice(loop, offset, slice);
    if (!ok)
      continue;
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    out.push_back({load, std::move(ordered)});
  }
  return out;
}

Value constI32(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getI32IntegerAttr(value));
}

/// Issues the copy of \p candidate's tile for iteration value \p iv into
/// stage \p stage of \p buffer, cloning the offset computation.
void issueCopy(OpBuilder &builder, Location loc, scf::ForOp loop,
               Candidate candidate, Value iv, Value stage, Value buffer) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : candidate.slice)
    builder.clone(*op, mapping);
  SmallVector<Value> offsets;
  for (Value offset : candidate.load.getOffsets())
    offsets.push_back(mapping.lookupOrDefault(offset));
  auto type = cast<RankedTensorType>(candidate.load.getType());
  SmallVector<Value> indices{stage};
  Value zero = constI32(builder, loc, 0);
  indices.append(type.getRank(), zero);
  mlir::tile::CopyAsyncOp::create(builder, loc, candidate.load.getView(),
                                  offsets, buffer, indices);
}

LogicalResult pipelineLoop(scf::ForOp loop, int64_t stages) {
  SmallVector<Candidate> candidates = findCandidates(loop);
  if (candidates.empty())
    return success();
  if (!loop.getInductionVar().getType().isInteger(32))
    return success();
  Location loc = loop.getLoc();
  int64_t numLoads = candidates.size();
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);

  // Rings and prologue.
  SmallVector<Value> buffers;
  for (Candidate &c : candidates) {
    auto type = cast<RankedTensorType>(c.load.getType());
    SmallVector<int64_t> shape{stages};
    llvm::append_range(shape, type.getShape());
    auto bufferType = mlir::tile::SharedType::get(shape, type.getElementType());
    buffers.push_back(mlir::tile::AllocSharedOp::create(
        rewriter, c.load.getLoc(), bufferType));
  }
  Value lb = loop.getLowerBound(), step = loop.getStep();
  for (int64_t i = 0; i + 1 < stages; ++i) {
    Value iv = lb;
    if (i > 0) {
      iv = arith::AddIOp::create(
          rewriter, loc, lb,
          arith::MulIOp::create(rewriter, loc, step,
                                constI32(rewriter, loc, i)));
    }
    Value stage = constI32(rewriter, loc, i);
    for (auto [c, buffer] : llvm::zip_equal(candidates, buffers))
      issueCopy(rewriter, c.load.getLoc(), loop, c, iv, stage, buffer);
  }
  Value ahead = arith::MulIOp::create(rewriter, loc, step,
                                      constI32(rewriter, loc, stages - 1));
  Value zero = constI32(rewriter, loc, 0), one = constI32(rewriter, loc, 1),
        numStages = constI32(rewriter, loc, stages);

  // Two more iteration arguments: the stage to read and the stage to fill.
  auto advance = [&](OpBuilder &b, Value s) -> Value {
    Value next = arith::AddIOp::create(b, loc, s, one);
    Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                                       numStages);
    return arith::SelectOp::create(b, loc, wrap, zero, next);
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{zero, constI32(rewriter, loc, stages - 1)},
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>{advance(b, args[0]), advance(b, args[1])};
      });
  if (failed(replaced))
    return loop.emitError("cannot add pipeline stage counters to the loop");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned numArgs = newLoop.getRegionIterArgs().size();
  Value readStage = newLoop.getRegionIterArgs()[numArgs - 2];
  Value writeStage = newLoop.getRegionIterArgs()[numArgs - 1];

  // Steady state at the top of the body.
  rewriter.setInsertionPointToStart(newLoop.getBody());
  mlir::tile::WaitOp::create(
      rewriter, loc, rewriter.getI32IntegerAttr((stages - 2) * numLoads));
  mlir::tile::BarrierOp::create(rewriter, loc);
  Value czero = constI32(rewriter, loc, 0);
  for (auto [c, buffer] : llvm::zip_equal(candidates, buffers)) {
    auto type = cast<RankedTensorType>(c.load.getType());
    SmallVector<Value> indices{readStage};
    indices.append(type.getRank(), czero);
    // Read straight into the layout of a lone conversion user.
    Type resultType = type;
    mlir::tile::ConvertLayoutOp convert;
    if (c.load->hasOneUse()) {
      convert =
          dyn_cast<mlir::tile::ConvertLayoutOp>(*c.load->getUsers().begin());
    }
    if (convert)
      resultType = convert.getType();
    Value tile = mlir::tile::SharedLoadOp::create(rewriter, c.load.getLoc(),
                                                  resultType, buffer, indices);
    if (convert) {
      rewriter.replaceOp(convert, tile);
    } else {
      rewriter.replaceAllUsesWith(c.load.getResult(), tile);
    }
  }
  Value next =
      arith::AddIOp::create(rewriter, loc, newLoop.getInductionVar(), ahead);
  for (auto [c, buffer] : llvm::zip_equal(candidates, buffers))
    issueCopy(rewriter, c.load.getLoc(), newLoop, c, next, writeStage, buffer);
  for (Candidate &c : candidates)
    rewriter.eraseOp(c.load);

  // Drain the copies of the stages past the end before the buffers die.
  rewriter.setInsertionPointAfter(newLoop);
  mlir::tile::WaitOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
  newLoop->removeAttr(mlir::tile::TileDialect::kPipelineAttr);
  return success();
}

struct PipelinePass : public mlir::tile::impl::TilePipelineBase<PipelinePass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(mlir::tile::TileDialect::kPipelineAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto stages = loop->getAttrOfType<IntegerAttr>(
          mlir::tile::TileDialect::kPipelineAttr);
      if (!stages || stages.getInt() < 2) {
        loop->removeAttr(mlir::tile::TileDialect::kPipelineAttr);
        continue;
      }
      if (failed(pipelineLoop(loop, stages.getInt())))
        return signalPassFailure();
    }
  }
};

} // namespace
