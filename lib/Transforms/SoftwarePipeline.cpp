//===- SoftwarePipeline.cpp - Software pipelining of global loads ---------===//
//
// Part of tilec. Implements tile-pipeline (see Passes.td and
// docs/Passes.md). Two schemes, chosen by the target; the TMA scheme's
// warp-specialized form is in SpecializeWarps.cpp.
//
// With asynchronous global->shared copies (NVIDIA cp.async), for a loop
// `for k = lb to ub step st` with S stages and N pipelined loads, copies
// D = S-1 iterations ahead:
//
//   bufs_j = tile.alloc_shared : !tile.shared<S x shape_j x T_j>
//   for i in 0 .. D-1:  copy_async view_j[offsets_j(lb + i*st)] -> bufs_j[i]
//   for k ... iter_args(..., r = 0, w = D) {
//     tile.wait (D-1)*N          // the groups of stage r have landed
//     tile.barrier               // ... for every thread; stage w is free
//     t_j = tile.shared_load bufs_j[r]
//     copy_async view_j[offsets_j(k + D*st)] -> bufs_j[w]
//     ... body with t_j in place of the loads ...
//     yield ..., (r+1) mod S, (w+1) mod S
//   }
//   tile.wait 0
//
// On targets with wgmma, a loop whose only dot multiplies two pipelined
// loads in a shape wgmma takes, into an accumulator only the loop carries,
// leaves the MMA group of each iteration in flight (the dot gets
// tile.mma_in_flight = 1; its lowering retires the previous iteration's
// group right after issuing its own). The copies still run D = S-1
// iterations ahead, but an iteration issues them after the dot and a
// second barrier: the stage they refill, iteration i-1's, is read by that
// group until every warp has retired it:
//
//     tile.wait (D-1)*N ; tile.barrier ; t_j = tile.shared_load bufs_j[r]
//     ... tile.dot (in flight) ... ; tile.barrier
//     copy_async view_j[offsets_j(k + D*st)] -> bufs_j[w]
//
// (Refilling the stage of iteration i-2 before the dot instead, with one
// barrier, runs the copies only S-2 ahead: on an H100, 2026-11-27, the
// default gemm_f16 tile took 0.388 ms that way at S = 3, 0.265 ms this.)
//
// With TMA (sm_90, where asked for: tensorCopyObstacle), a copy is one
// thread's cp.async.bulk.tensor onto its stage's mbarrier, and the top of
// an iteration waits on the read stage's mbarrier phase instead of
// tile.wait + tile.barrier. With an MMA in flight the refill stays after
// the dot and its barrier; without one (attention), an iteration starts
// with a barrier and the refill of the previous iteration's stage, then
// waits:
//
//     tile.barrier ; copy_async ... -> bufs_j[w] barrier(bars[w])
//     tile.mbarrier_wait bars[r] phase(p) ; t_j = tile.shared_load bufs_j[r]
//
// Where TMA is asked for but not every load can be a TMA copy (gemm_wq: a
// 4-bit weight), the operands of a dot left in flight that can be are TMA
// copies and the rest cp.async copies (mixed): the top of an iteration
// waits for both, tile.wait (D-1)*N_cp.async ; tile.barrier ;
// tile.mbarrier_wait, and the refill follows the dot as above.
//
// Copies for iterations past the end (`iv >= ub`) copy nothing: they are
// empty groups (`tile.copy_async ... if %pred`), so every iteration still
// issues exactly N groups and the wait counts stay exact, and the stages
// they stand for are never read. (Issuing them anyway was correct but
// read D iterations' tiles of unused in-range data, or ran the element-wise
// edge path on out-of-range ones: for a split-K decode GEMM of 8 k blocks
// per program, a quarter more weight bytes and, at 2 bits, a third of its
// instructions on an H100, 2026-11-26.)
//
// Without them (AMD CDNA: a global load must land in registers before it
// can be written to LDS), S stages are a global-load stage, S-2 LDS stages
// and the compute stage: the loads of iteration k + (B)*st go to registers
// while iteration k computes, and B = max(1, S-1) LDS buffers per load
// hold the tiles in between (one register copy of each tile, B LDS
// buffers instead of S):
//
//   bufs_j = tile.alloc_shared : !tile.shared<B x shape_j x T_j>
//   for i in 0 .. B-2:  shared_store load view_j[offsets_j(lb + i*st)]
//                       -> bufs_j[i]
//   g_j = tile.load view_j[offsets_j(lb + (B-1)*st)]
//   for k ... iter_args(..., g_j, r = 0, w = B-1) {
//     tile.barrier               // stores of the previous iteration are
//                                // visible; nobody reads bufs_j[w] any more
//     tile.shared_store g_j -> bufs_j[w]
//     tile.barrier               // only when B = 1: w == r
//     t_j = tile.shared_load bufs_j[r]
//     g'_j = tile.load view_j[offsets_j(k + B*st)]
//     ... body with t_j in place of the loads ...
//     yield ..., g'_j, (r+1) mod B, (w+1) mod B
//   }
//
// (With B = 1 the stage counters are the constant 0.) The global loads of
// an iteration are in flight during its whole body; loads past the end are
// masked like any tile.load and their registers are dropped.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Dialect/Tile/IR/MmaInFlight.h"
#include "tile/Layout/TmaBox.h"
#include "tile/Layout/WgmmaOperand.h"
#include "tile/Transforms/LayoutChoice.h"
#include "tile/Transforms/Passes.h"

#include "PipelineSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace tile::pipeline {

/// Whether \p op (with everything nested in it) may write global memory or
/// has effects we cannot see, or already manages async copies itself.
bool blocksPipelining(Operation *op) {
  if (isa<tile::CopyAsyncOp, tile::WaitOp>(op))
    return true;
  if (isa<tile::StoreOp, tile::AtomicAddOp>(op))
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
        !isa<tile::SharedMemoryResource>(effect.getResource()))
      return true;
  }
  return false;
}

bool isZeroPadding(tile::LoadOp load) {
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

/// Whether a tile of \p type can be copied with cp.async: its rows (the last
/// dimension) must be whole 4-byte words, the smallest cp.async chunk (the
/// lowering of tile.copy_async needs 4-byte runs in both memories).
bool isAsyncCopyable(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  int64_t rowBits =
      tensor.getShape().back() * tile::detail::elementBits(tensor);
  return rowBits % 32 == 0;
}

/// The loads of \p loop to pipeline; with \p asyncCopies only those that
/// cp.async can copy (the others stay synchronous loads).
SmallVector<Candidate> findCandidates(scf::ForOp loop, bool asyncCopies) {
  SmallVector<Candidate> out;
  bool blocked = false;
  loop.getBody()->walk([&](Operation *op) {
    if (blocksPipelining(op))
      blocked = true;
  });
  if (blocked)
    return out;
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<tile::LoadOp>(&op);
    if (!load || !loop.isDefinedOutsideOfLoop(load.getView()) ||
        !isZeroPadding(load) ||
        (asyncCopies && !isAsyncCopyable(load.getType())))
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
/// stage \p stage of \p buffer, cloning the offset computation; it copies
/// only when \p inside (iv below the loop's upper bound; an empty group
/// past the end).
void issueCopy(OpBuilder &builder, Location loc, scf::ForOp loop,
               Candidate candidate, Value iv, Value inside, Value stage,
               Value buffer, Value barriers, const IRMapping &outside) {
  IRMapping mapping = outside;
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
  tile::CopyAsyncOp::create(
      builder, loc, mapping.lookupOrDefault(candidate.load.getView()), offsets,
      buffer, indices, inside, barriers, barriers ? stage : Value());
}

/// Clones \p candidate's load (and the computation of its offsets) for
/// iteration value \p iv at the builder's insertion point.
Value issueLoad(OpBuilder &builder, scf::ForOp loop, Candidate candidate,
                Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : candidate.slice)
    builder.clone(*op, mapping);
  return builder.clone(*candidate.load, mapping)->getResult(0);
}

/// The tile.shared_load of stage \p stage of \p buffer replacing
/// \p candidate's load, in the layout of a lone conversion user if it has
/// one and that layout can be read from shared memory (that conversion is
/// replaced too).
void replaceBySharedLoad(IRRewriter &rewriter, Candidate &c, Value buffer,
                         Value stage, Value zero) {
  auto type = cast<RankedTensorType>(c.load.getType());
  SmallVector<Value> indices{stage};
  indices.append(type.getRank(), zero);
  // Read straight into the layout of a lone conversion user.
  Type resultType = type;
  tile::ConvertLayoutOp convert;
  if (c.load->hasOneUse())
    convert = dyn_cast<tile::ConvertLayoutOp>(*c.load->getUsers().begin());
  if (convert && !tile::detail::isSharedReadable(convert.getType()))
    convert = {};
  if (convert)
    resultType = convert.getType();
  Value tile = tile::SharedLoadOp::create(rewriter, c.load.getLoc(), resultType,
                                          buffer, indices);
  if (convert) {
    rewriter.replaceOp(convert, tile);
  } else {
    rewriter.replaceAllUsesWith(c.load.getResult(), tile);
  }
}

/// One ring of \p stages buffers per candidate, in front of \p loop.
SmallVector<Value> createRings(IRRewriter &rewriter,
                               MutableArrayRef<Candidate> candidates,
                               int64_t stages) {
  SmallVector<Value> buffers;
  for (Candidate &c : candidates) {
    auto type = cast<RankedTensorType>(c.load.getType());
    SmallVector<int64_t> shape{stages};
    llvm::append_range(shape, type.getShape());
    auto bufferType = tile::SharedType::get(shape, type.getElementType());
    buffers.push_back(
        tile::AllocSharedOp::create(rewriter, c.load.getLoc(), bufferType));
  }
  return buffers;
}

/// lb + i * step (lb itself for i = 0).
Value iterationValue(OpBuilder &builder, Location loc, scf::ForOp loop,
                     int64_t i) {
  if (i == 0)
    return loop.getLowerBound();
  return arith::AddIOp::create(
      builder, loc, loop.getLowerBound(),
      arith::MulIOp::create(builder, loc, loop.getStep(),
                            constI32(builder, loc, i)));
}

/// s + 1 wrapped to 0 at \p modulus (written as the select the GPU
/// lowering recognizes as a ring-slot update), and whether it wrapped.
static std::pair<Value, Value> stepStage(OpBuilder &b, Location loc, Value s,
                                         int64_t modulus) {
  Value next = arith::AddIOp::create(b, loc, s, constI32(b, loc, 1));
  Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                                     constI32(b, loc, modulus));
  return {arith::SelectOp::create(b, loc, wrap, constI32(b, loc, 0), next),
          wrap};
}

Value advanceStage(OpBuilder &b, Location loc, Value s, int64_t modulus) {
  return stepStage(b, loc, s, modulus).first;
}

std::pair<Value, Value> advanceStageAndPhase(OpBuilder &b, Location loc,
                                             Value s, Value phase,
                                             int64_t modulus) {
  auto [next, wrap] = stepStage(b, loc, s, modulus);
  Value flipped = arith::XOrIOp::create(b, loc, phase, constI32(b, loc, 1));
  return {next, arith::SelectOp::create(b, loc, wrap, flipped, phase)};
}

/// The loads of \p loop to pipeline (findCandidates); none when its
/// induction variable is not an i32.
static SmallVector<Candidate> loopCandidates(scf::ForOp loop,
                                             bool asyncCopies) {
  if (!loop.getInductionVar().getType().isInteger(32))
    return {};
  return findCandidates(loop, asyncCopies);
}

/// The register-prefetch scheme for targets without asynchronous copies
/// (see the file comment).
LogicalResult pipelineThroughRegisters(scf::ForOp loop, int64_t stages) {
  SmallVector<Candidate> candidates =
      loopCandidates(loop, /*asyncCopies=*/false);
  if (candidates.empty())
    return success();
  Location loc = loop.getLoc();
  int64_t numBuffers = std::max<int64_t>(1, stages - 1);
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> buffers = createRings(rewriter, candidates, numBuffers);

  // Prologue: B-1 tiles straight into LDS, the next one into registers.
  for (int64_t i = 0; i + 1 < numBuffers; ++i) {
    Value iv = iterationValue(rewriter, loc, loop, i);
    Value stage = constI32(rewriter, loc, i);
    for (auto [c, buffer] : llvm::zip_equal(candidates, buffers)) {
      Value tile = issueLoad(rewriter, loop, c, iv);
      auto type = cast<RankedTensorType>(tile.getType());
      SmallVector<Value> indices{stage};
      indices.append(type.getRank(), constI32(rewriter, loc, 0));
      tile::SharedStoreOp::create(rewriter, c.load.getLoc(), buffer, indices,
                                  tile);
    }
  }
  SmallVector<Value> inits;
  {
    Value iv = iterationValue(rewriter, loc, loop, numBuffers - 1);
    for (Candidate &c : candidates)
      inits.push_back(issueLoad(rewriter, loop, c, iv));
  }
  int64_t numLoads = candidates.size();
  bool ring = numBuffers > 1;
  if (ring) {
    inits.push_back(constI32(rewriter, loc, 0));
    inits.push_back(constI32(rewriter, loc, numBuffers - 1));
  }
  // The new iteration arguments are yielded unchanged for now; the yield is
  // patched once the prefetches exist.
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
        SmallVector<Value> out(args.begin(), args.end());
        if (ring) {
          out[numLoads] = advanceStage(b, loc, args[numLoads], numBuffers);
          out[numLoads + 1] =
              advanceStage(b, loc, args[numLoads + 1], numBuffers);
        }
        return out;
      });
  if (failed(replaced))
    return loop.emitError("cannot add pipeline registers to the loop");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned numArgs = newLoop.getRegionIterArgs().size();
  unsigned first = numArgs - inits.size();
  ArrayRef<BlockArgument> args = newLoop.getRegionIterArgs().drop_front(first);
  rewriter.setInsertionPointToStart(newLoop.getBody());
  Value readStage = ring ? Value(args[numLoads]) : constI32(rewriter, loc, 0);
  Value writeStage = ring ? Value(args[numLoads + 1]) : readStage;

  tile::BarrierOp::create(rewriter, loc);
  for (auto [c, buffer, regs] :
       llvm::zip_equal(candidates, buffers, args.take_front(numLoads))) {
    auto type = cast<RankedTensorType>(regs.getType());
    SmallVector<Value> indices{writeStage};
    indices.append(type.getRank(), constI32(rewriter, loc, 0));
    tile::SharedStoreOp::create(rewriter, c.load.getLoc(), buffer, indices,
                                regs);
  }
  if (!ring)
    tile::BarrierOp::create(rewriter, loc);
  for (auto [c, buffer] : llvm::zip_equal(candidates, buffers))
    replaceBySharedLoad(rewriter, c, buffer, readStage,
                        constI32(rewriter, loc, 0));
  Value next = arith::AddIOp::create(
      rewriter, loc, newLoop.getInductionVar(),
      arith::MulIOp::create(rewriter, loc, newLoop.getStep(),
                            constI32(rewriter, loc, numBuffers)));
  auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  unsigned yieldFirst = yield.getNumOperands() - inits.size();
  for (auto [i, c] : llvm::enumerate(candidates))
    yield->setOperand(yieldFirst + i, issueLoad(rewriter, newLoop, c, next));
  for (Candidate &c : candidates)
    rewriter.eraseOp(c.load);
  newLoop->removeAttr(tile::TileDialect::kPipelineAttr);
  return success();
}

/// The value dot operand \p v is read from: \p v through a layout
/// conversion and, where \p mayTranspose, a single-use 2-D transpose (B
/// stored N x K, read K-major) and another conversion (\p transposed, when
/// given, is set when it went through one).
static Value operandSource(Value v, bool mayTranspose,
                           bool *transposed = nullptr) {
  if (auto convert = v.getDefiningOp<tile::ConvertLayoutOp>())
    v = convert.getSrc();
  if (auto trans = v.getDefiningOp<tile::TransOp>();
      trans && mayTranspose && trans.getPermutation().size() == 2 &&
      trans->hasOneUse()) {
    v = trans.getSrc();
    if (transposed)
      *transposed = true;
    if (auto convert = v.getDefiningOp<tile::ConvertLayoutOp>())
      v = convert.getSrc();
  }
  return v;
}

/// Whether \p dot's A can be a wgmma register operand that the lowering
/// splits into two halves along K: 16-bit floats, rank 2, at least two k16
/// slices, computed in registers (not a conversion through shared memory,
/// which tile-stage-converted-operands would stage).
static bool registerOperandHalves(tile::DotOp dot,
                                  const ::tile::TargetInfo &target) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  Type elem = a.getElementType();
  return a.getRank() == 2 && (elem.isF16() || elem.isBF16()) &&
         a.getDimSize(1) >= 32 &&
         !tile::detail::stagedOperandConversion(dot, dot.getA(),
                                                target.warpSize);
}

/// The tile.dot of \p loop that may leave one group of asynchronous MMAs
/// (wgmma) in flight across iterations, or null: on targets with wgmma and
/// with at least two stages, the loop's only dot, directly in its body,
/// multiplying two of the pipelined loads (A [M, K] and B [K, N] as loaded,
/// the forms wgmma reads from the rings) in a shape wgmma takes
/// (fitsWarpgroupMma), into an
/// accumulator the loop carries and nothing else reads. With \p stagedB, B
/// may also be computed in the loop and converted through shared memory,
/// which tile-stage-converted-operands turns into two buffers the threads
/// write in alternate iterations (the dequantized weight of gemm_wq).
/// Without it, A may be computed in the loop and read from the threads'
/// registers (16-bit floats, K of two k16 slices or more: the swapped
/// prefill over packed weights): the lowering then issues the product as
/// two groups, the second half's A computed after the first group's wait,
/// so that no group's A registers are written while it runs
/// (LowerDot.cpp, lowerWarpgroupDot).
tile::DotOp asyncMmaDot(scf::ForOp loop, ArrayRef<Candidate> candidates,
                        int64_t stages, const ::tile::TargetInfo &target,
                        bool stagedB) {
  if (stages < 2 || !target.hasWgmma)
    return {};
  SmallVector<tile::DotOp> dots;
  loop.getBody()->walk([&](tile::DotOp d) { dots.push_back(d); });
  if (dots.size() != 1 || dots[0]->getBlock() != loop.getBody())
    return {};
  tile::DotOp dot = dots[0];
  // B may be read through a 2-D transpose (stored N x K, K-major).
  bool bTransposed = false;
  auto loaded = [&](Value v, bool mayTranspose) {
    v = operandSource(v, mayTranspose, &bTransposed);
    return llvm::any_of(candidates, [&](const Candidate &c) {
      return c.load->getResult(0) == v;
    });
  };
  auto acc = dyn_cast<BlockArgument>(dot.getAcc());
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  bool bStaged = stagedB && tile::detail::stagedOperandConversion(
                                dot, dot.getB(), target.warpSize);
  bool aInRegisters = !stagedB && !loaded(dot.getA(), false) &&
                      registerOperandHalves(dot, target);
  if ((!aInRegisters && !loaded(dot.getA(), false)) ||
      (!bStaged && !loaded(dot.getB(), true)) || !acc ||
      acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
      !acc.hasOneUse() || !dot->hasOneUse() ||
      yield.getOperand(acc.getArgNumber() - 1) != dot.getResult())
    return {};
  if (!tile::detail::dotFitsWarpgroupMma(dot, target, bTransposed,
                                         /*chained=*/false))
    return {};
  return dot;
}

/// Puts \p loop under `scf.if (lb < ub)`, its initial values the results
/// otherwise. For a loop with an MMA group in flight: the wait after the
/// loop that retires it is then reached only from the loop, not from a
/// zero-trip path that copies the accumulators' initial values into their
/// registers, which ptxas would count as reads of in-flight accumulators
/// (and serialize every wgmma, C7514).
void guardZeroTrip(IRRewriter &rewriter, scf::ForOp loop) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value entered =
      arith::CmpIOp::create(rewriter, loc,
                            loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt,
                            loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), entered,
                                 /*withElseRegion=*/true);
  rewriter.replaceAllUsesWith(loop.getResults(), guard.getResults());
  rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
  scf::YieldOp::create(rewriter, loc, loop.getResults());
  rewriter.moveOpBefore(loop, &guard.getThenRegion().front().front());
  rewriter.setInsertionPointToStart(&guard.getElseRegion().front());
  scf::YieldOp::create(rewriter, loc, loop.getInitArgs());
}

/// Whether \p c's load can be a TMA copy: it reads a tensor parameter of
/// the kernel of rank 2 to 5 whole (the view is the parameter with its
/// declared shape, dense, which is what the runtime builds the tensor map
/// from; its extents the dimension parameters, or where \p producer (a
/// producer warpgroup's copies) also expressions of them, "K / 128":
/// extentExpression), a tile whose dimensions but the last two are 1, of
/// whole bytes or, where \p producer, of 1- to 7-bit elements (copied as
/// bytes: its column offset provably starts on a byte, knownDivisor), and
/// its ring, in the layout
/// tile-allocate-shared gives wgmma operands and every TMA destination
/// (dense rows for sub-byte tiles), is what TMA boxes write (TmaBox.h).
bool tensorCopyable(Candidate c, int64_t stages, bool producer) {
  auto view = c.load.getView().getDefiningOp<tile::ViewOp>();
  if (!view || !view.getStrides().empty())
    return false;
  auto arg = dyn_cast<BlockArgument>(view.getPtr());
  auto func =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!func || !func->hasAttr(tile::TileDialect::kKernelAttr))
    return false;
  auto shape = func.getArgAttrOfType<ArrayAttr>(
      arg.getArgNumber(), tile::TileDialect::kArgShapeAttr);
  auto viewType = cast<tile::ViewType>(view.getType());
  int64_t rank = viewType.getRank();
  if (!shape || rank < 2 || rank > 5 || int64_t(shape.size()) != rank)
    return false;
  unsigned dynamic = 0;
  for (auto [d, extent] : llvm::enumerate(viewType.getShape())) {
    auto declared = dyn_cast<StringAttr>(shape[d]);
    if (!declared)
      return false;
    if (!ShapedType::isDynamic(extent)) {
      if (declared.getValue() != std::to_string(extent))
        return false;
      continue;
    }
    std::string expr = extentExpression(view.getDims()[dynamic++], func);
    if (expr != declared.getValue() ||
        (!producer && expr.find(' ') != std::string::npos))
      return false;
  }
  auto type = cast<RankedTensorType>(c.load.getType());
  unsigned bits = tile::detail::elementBits(type);
  if ((bits > 8 && bits % 8 != 0) ||
      llvm::any_of(type.getShape().drop_back(2),
                   [](int64_t extent) { return extent != 1; }))
    return false;
  // Sub-byte tiles (packed weights) are copied as bytes: their column
  // offset must start on one.
  if (bits < 8 && (!producer || knownDivisor(c.load.getOffsets().back()) %
                                        (8 / std::gcd(bits, 8u)) !=
                                    0))
    return false;
  SmallVector<int64_t> ring{stages};
  llvm::append_range(ring, type.getShape());
  llvm::Expected<::tile::layout::TmaRing> plan =
      ::tile::layout::planTmaRing(ring, bits);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return false;
  }
  return true;
}

/// The prologue of the copy pipeline of \p loop: the copies of its first
/// \p depth iterations into stages 0 .. depth-1 of \p buffers (each only
/// when the iteration runs), at the insertion point.
static void issuePrologue(IRRewriter &rewriter, scf::ForOp loop,
                          MutableArrayRef<Candidate> candidates,
                          ValueRange buffers, ArrayRef<Value> barriers,
                          int64_t depth) {
  Location loc = loop.getLoc();
  for (int64_t i = 0; i < depth; ++i) {
    Value iv = iterationValue(rewriter, loc, loop, i);
    Value stage = constI32(rewriter, loc, i);
    Value inside = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
    for (auto [c, buffer, bars] :
         llvm::zip_equal(candidates, buffers, barriers))
      issueCopy(rewriter, c.load.getLoc(), loop, c, iv, inside, stage, buffer,
                bars);
  }
}

/// Why the loop's copies cannot be TMA copies, or "" when they can: the
/// target has TMA and every pipelined load is TMA-copyable (\p producer:
/// for a producer warpgroup); when the loop's
/// MMA stays in flight (its barrier after the dot frees the stage a refill
/// writes), its two operands are the only pipelined loads, unless a
/// producer warpgroup copies them (its consumers release each stage by
/// mbarrier one iteration later, every ring's at once). (Otherwise a
/// barrier at the top of each iteration frees the stage of the previous
/// one: the file comment.)
std::string tensorCopyObstacle(ArrayRef<Candidate> candidates, int64_t stages,
                               tile::DotOp asyncDot,
                               const ::tile::TargetInfo &target,
                               bool producer) {
  if (!target.hasTma)
    return "the target has no TMA (sm_90a has)";
  if (asyncDot && !producer && candidates.size() != 2)
    return "it pipelines " + std::to_string(candidates.size()) +
           " loads, not just the dot's two operands";
  if (!llvm::all_of(candidates, [&](Candidate c) {
        return tensorCopyable(c, stages, producer);
      }))
    return "a pipelined load does not read a whole tensor parameter (rank "
           "2-5, with its declared shape) of byte-sized elements (with a "
           "producer warpgroup also packed ones from a column on a byte), a "
           "tile whose dimensions but the last two are 1";
  return "";
}

/// Whether \p c's load is an operand of \p dot (through a layout
/// conversion and, for B, a 2-D transpose: operandSource).
static bool readByDot(const Candidate &c, tile::DotOp dot) {
  Value load = c.load->getResult(0);
  return operandSource(dot.getA(), false) == load ||
         operandSource(dot.getB(), true) == load;
}

/// Whether \p loop is in a kernel's copy without TMA copies
/// (tile-clone-fallbacks).
static bool inFallback(scf::ForOp loop) {
  auto func = loop->getParentOfType<func::FuncOp>();
  return func && func->hasAttr(tile::TileDialect::kFallbackOfAttr);
}

/// Whether the module allows TMA copies (tile.tma or the pass option) and
/// the loop is not in a fallback.
bool tensorCopiesAllowed(scf::ForOp loop, bool allowed) {
  auto module = loop->getParentOfType<ModuleOp>();
  return (allowed ||
          (module && module->hasAttr(tile::TileDialect::kTmaAttr))) &&
         !inFallback(loop);
}

/// Builds the copy pipeline of \p loop (the file comment) for \p candidates
/// over \p stages, the loads \p viaTma marks copied by TMA and the others by
/// cp.async; \p asyncDot, when given, stays in flight.
static LogicalResult buildCopyPipeline(scf::ForOp loop,
                                       MutableArrayRef<Candidate> candidates,
                                       int64_t stages, tile::DotOp asyncDot,
                                       ArrayRef<bool> viaTma) {
  Location loc = loop.getLoc();
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  int64_t depth = stages - 1;
  int64_t numTma = llvm::count(viaTma, true);
  int64_t numCpAsync = int64_t(candidates.size()) - numTma;

  // Rings (with TMA copies, and their mbarriers: one per stage, one arrival
  // per TMA copy) and prologue.
  SmallVector<Value> buffers = createRings(rewriter, candidates, stages);
  Value bars;
  if (numTma) {
    auto type = tile::SharedType::get({stages}, rewriter.getI64Type());
    bars = tile::AllocSharedOp::create(rewriter, loc, type);
    tile::MbarrierInitOp::create(rewriter, loc, bars,
                                 rewriter.getI32IntegerAttr(numTma));
    tile::BarrierOp::create(rewriter, loc);
  }
  SmallVector<Value> barriers;
  for (bool t : viaTma)
    barriers.push_back(t ? bars : Value());
  Value ub = loop.getUpperBound(), step = loop.getStep();
  issuePrologue(rewriter, loop, candidates, buffers, barriers, depth);
  Value ahead = arith::MulIOp::create(rewriter, loc, step,
                                      constI32(rewriter, loc, depth));
  Value zero = constI32(rewriter, loc, 0), one = constI32(rewriter, loc, 1),
        numStages = constI32(rewriter, loc, stages);

  // Two more iteration arguments: the stage to read and the stage to fill;
  // with TMA copies a third, the parity of the read stage's mbarrier phase
  // (it flips each time the read stage wraps around). `advance` gives s + 1
  // wrapped to 0 at S, and whether it wrapped.
  auto advance = [&](OpBuilder &b, Value s) -> std::pair<Value, Value> {
    Value next = arith::AddIOp::create(b, loc, s, one);
    Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                                       numStages);
    return {arith::SelectOp::create(b, loc, wrap, zero, next), wrap};
  };
  SmallVector<Value> counters{zero, constI32(rewriter, loc, depth)};
  if (numTma)
    counters.push_back(zero);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, counters,
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> args) {
        auto [read, readWraps] = advance(b, args[0]);
        SmallVector<Value> next{read, advance(b, args[1]).first};
        if (numTma)
          next.push_back(arith::SelectOp::create(
              b, loc, readWraps, arith::XOrIOp::create(b, loc, args[2], one),
              args[2]));
        return next;
      });
  if (failed(replaced))
    return loop.emitError("cannot add pipeline stage counters to the loop");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned firstCounter = newLoop.getRegionIterArgs().size() - counters.size();
  Value readStage = newLoop.getRegionIterArgs()[firstCounter];
  Value writeStage = newLoop.getRegionIterArgs()[firstCounter + 1];

  // The refill of the stage of iteration i-1, D iterations ahead.
  auto refill = [&] {
    Value next =
        arith::AddIOp::create(rewriter, loc, newLoop.getInductionVar(), ahead);
    Value nextInside = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, next, ub);
    for (auto [c, buffer, barrier] :
         llvm::zip_equal(candidates, buffers, barriers))
      issueCopy(rewriter, c.load.getLoc(), newLoop, c, next, nextInside,
                writeStage, buffer, barrier);
  };
  // Steady state at the top of the body: each thread waits for its own
  // cp.async groups and then for every thread; for the TMA copies, on the
  // read stage's mbarrier. With TMA copies only and no MMA in flight, a
  // barrier first (every warp is done with iteration i-1's stage) and the
  // refill of that stage; with TMA copies only and an MMA in flight, no
  // barrier at the top at all.
  rewriter.setInsertionPointToStart(newLoop.getBody());
  if (numCpAsync) {
    tile::WaitOp::create(rewriter, loc,
                         rewriter.getI32IntegerAttr((depth - 1) * numCpAsync));
    tile::BarrierOp::create(rewriter, loc);
  } else if (!asyncDot) {
    tile::BarrierOp::create(rewriter, loc);
    refill();
  }
  if (numTma)
    tile::MbarrierWaitOp::create(rewriter, loc, bars, readStage,
                                 newLoop.getRegionIterArgs()[firstCounter + 2]);
  Value czero = constI32(rewriter, loc, 0);
  for (auto [c, buffer] : llvm::zip_equal(candidates, buffers))
    replaceBySharedLoad(rewriter, c, buffer, readStage, czero);
  // With an MMA group in flight the refill waits for the group of the
  // previous iteration, which read the stage it refills: after the dot
  // (whose lowering retires that group) and a barrier (every warp did).
  if (asyncDot) {
    rewriter.setInsertionPointAfter(asyncDot);
    tile::BarrierOp::create(rewriter, loc);
    refill();
  } else if (numCpAsync) {
    refill();
  }
  for (Candidate &c : candidates)
    rewriter.eraseOp(c.load);

  // Drain the cp.async copies of the stages past the end before the
  // buffers die. TMA copies past the end are never issued, and every other
  // one is waited for in the loop: the mbarriers only need invalidating
  // once no thread waits on them any more.
  rewriter.setInsertionPointAfter(newLoop);
  if (numCpAsync)
    tile::WaitOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
  if (numTma) {
    tile::BarrierOp::create(rewriter, loc);
    tile::MbarrierInvalOp::create(rewriter, loc, bars);
  }
  newLoop->removeAttr(tile::TileDialect::kPipelineAttr);
  if (asyncDot)
    guardZeroTrip(rewriter, newLoop);
  return success();
}

/// The copy scheme of \p loop (see the file comment). With an asynchronous
/// MMA (asyncMmaDot) the dot is marked tile.mma_in_flight = 1 for the
/// lowering and the copies of an iteration come after it and a barrier:
/// they refill the stage of iteration i-1, which the MMA group it left in
/// flight reads until every warp has retired that group (the dot's lowering
/// does). Where TMA copies are allowed but not every load can be one, the
/// loads TMA can copy (tensorCopyable) are TMA copies beside the others'
/// cp.async copies.
LogicalResult pipelineLoop(scf::ForOp loop, int64_t stages,
                           const ::tile::TargetInfo &target, bool allowTma,
                           bool allowSpecialize) {
  SmallVector<Candidate> candidates =
      loopCandidates(loop, /*asyncCopies=*/true);
  if (candidates.empty())
    return success();
  tile::DotOp asyncDot =
      asyncMmaDot(loop, candidates, stages, target, /*stagedB=*/false);
  auto module = loop->getParentOfType<ModuleOp>();
  allowSpecialize =
      (allowSpecialize ||
       (module && module->hasAttr(tile::TileDialect::kWarpSpecializeAttr))) &&
      !inFallback(loop);
  bool allowed = tensorCopiesAllowed(loop, allowTma || allowSpecialize);
  if (allowSpecialize) {
    // Asked for: a producer warpgroup, or a warning that says why not. Its
    // copies may also be packed weights and views whose extents are
    // expressions (a scale tensor's K / G rows).
    std::string why = tensorCopyObstacle(candidates, stages, asyncDot, target,
                                         /*producer=*/true);
    if (why.empty())
      why = specializeObstacle(loop, candidates, target.maxWarpsPerProcessor);
    if (why.empty())
      return specializeLoop(loop, candidates, stages, asyncDot);
    loop.emitWarning("loop not warp-specialized: ") << why;
  }
  // Without a producer those loads keep their measured cp.async copies.
  bool tma = allowed && tensorCopyObstacle(candidates, stages, asyncDot, target,
                                           /*producer=*/false)
                            .empty();
  // A B the threads compute and stage (tile-stage-converted-operands) stays
  // in flight with cp.async copies beside: the barrier at the top of each
  // iteration (not in the TMA-only schemes, a producer warpgroup's among
  // them) follows the previous iteration's refill.
  if (!asyncDot && !tma)
    asyncDot = asyncMmaDot(loop, candidates, stages, target, /*stagedB=*/true);
  if (asyncDot)
    asyncDot->setAttr(
        tile::kMmaInFlightAttr,
        IntegerAttr::get(IntegerType::get(loop.getContext(), 64), 1));
  // Mixed: the in-flight dot's operands that TMA can copy (wgmma reads them
  // through descriptors); loads read with ldmatrix keep cp.async, whose
  // rings' swizzles make cheaper ldmatrix addresses than TMA's column
  // blocks (the u4 decode GEMM's A: 426 -> 489 loop instructions).
  SmallVector<bool> viaTma(candidates.size(), tma);
  if (allowed && !tma && target.hasTma && asyncDot)
    for (auto [i, c] : llvm::enumerate(candidates))
      viaTma[i] = readByDot(c, asyncDot) &&
                  tensorCopyable(c, stages, /*producer=*/false);
  return buildCopyPipeline(loop, candidates, stages, asyncDot, viaTma);
}

} // namespace tile::pipeline

namespace {

using namespace tile::pipeline;

struct PipelinePass : public tile::impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(getOperation(), target);
    if (!info)
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tile::TileDialect::kPipelineAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto stages =
          loop->getAttrOfType<IntegerAttr>(tile::TileDialect::kPipelineAttr);
      // `for ... pipeline N specialize true` asks for this loop what
      // --warp-specialize asks for every loop.
      bool specialize = loop->hasAttr(tile::TileDialect::kWarpSpecializeAttr);
      loop->removeAttr(tile::TileDialect::kWarpSpecializeAttr);
      if (!stages || stages.getInt() < 2 || info->isHost()) {
        loop->removeAttr(tile::TileDialect::kPipelineAttr);
        continue;
      }
      if (specialize && !info->hasCpAsync)
        loop.emitWarning(
            "loop not warp-specialized: the target has no TMA (sm_90a has)");
      LogicalResult result =
          info->hasCpAsync ? pipelineLoop(loop, stages.getInt(), *info, tma,
                                          warpSpecialize || specialize)
                           : pipelineThroughRegisters(loop, stages.getInt());
      if (failed(result))
        return signalPassFailure();
    }
  }
};

} // namespace
