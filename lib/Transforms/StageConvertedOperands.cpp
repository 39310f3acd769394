//===- StageConvertedOperands.cpp - Dot operands converted via smem -------===//
//
// Part of tilec. Implements tile-stage-converted-operands (see Passes.td and
// docs/Passes.md).
//
// A 16-bit tile.dot operand computed in a loop in another layout (the
// dequantized weight of gemm_wq: loaded coalesced, converted to f16, scaled)
// reaches the matrix-instruction layout through a tile.convert_layout, which
// the GPU lowering does as a round trip through shared scratch: every thread
// stores its registers, then reads the operand's registers back one or two
// elements at a time (the operand wants pairs along k; the producer holds
// runs along n). Written instead to a buffer that the dot reads itself
// (operand fusion), the read side becomes ldmatrix(.trans) on NVIDIA: four
// 8x8 matrices per instruction instead of one or two elements per load.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Dialect/Tile/IR/MmaInFlight.h"
#include "tile/Layout/ConversionPlan.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace tile {
#define GEN_PASS_DEF_TILESTAGECONVERTEDOPERANDS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// Whether a tile.barrier precedes `op` in its block with no op between
/// them that has regions. The staged buffers are read only by the dot after
/// `op`, so the previous iteration's reads of them have all finished when
/// the threads pass that barrier.
bool barrierBefore(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<tile::BarrierOp>(prev))
      return true;
    if (prev->getNumRegions() > 0)
      return false;
  }
  return false;
}

/// Whether the conversion goes through shared memory (not a register
/// renaming or warp shuffles, which stay cheaper than a staged buffer).
bool convertsViaShared(tile::ConvertLayoutOp convert, int64_t warpSize) {
  using tile::detail::getLayout;
  std::optional<::tile::layout::DistributedLayout> src =
      getLayout(convert.getSrc().getType());
  std::optional<::tile::layout::DistributedLayout> dst =
      getLayout(convert.getType());
  if (!src || !dst)
    return false;
  auto plan = ::tile::layout::planConversion(
      *src, *dst, warpSize, tile::detail::elementBits(convert.getType()));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return false;
  }
  return plan->kind == ::tile::layout::ConversionKind::SharedMemory;
}

/// Whether tile-pipeline left \p dot's group of MMAs in flight across its
/// loop's iterations (MmaInFlight.h).
bool leftInFlight(tile::DotOp dot) {
  auto groups = dot->getAttrOfType<IntegerAttr>(tile::kMmaInFlightAttr);
  return groups && groups.getInt() > 0;
}

struct TileStageConvertedOperands
    : tile::impl::TileStageConvertedOperandsBase<TileStageConvertedOperands> {
  using TileStageConvertedOperandsBase::TileStageConvertedOperandsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    // Only NVIDIA reads fused operands with a matrix load (ldmatrix); AMD
    // would read them element by element, no better than the conversion.
    if (!info->isNVIDIA())
      return;
    SmallVector<std::pair<tile::DotOp, SmallVector<tile::ConvertLayoutOp, 2>>>
        work;
    module.walk([&](tile::DotOp dot) {
      SmallVector<tile::ConvertLayoutOp, 2> converts;
      for (Value operand : {dot.getA(), dot.getB()})
        if (auto convert = tile::detail::stagedOperandConversion(
                dot, operand, info->warpSize))
          converts.push_back(convert);
      if (!converts.empty())
        work.push_back({dot, converts});
    });
    for (auto &[dot, converts] : work) {
      if (leftInFlight(dot) && !isa<scf::ForOp>(dot->getParentOp())) {
        dot.emitError("a dot left in flight (tile.mma_in_flight) must be "
                      "directly in a loop's body");
        return signalPassFailure();
      }
      stage(dot, converts);
    }
  }

  /// Right before the dot: a barrier (unless one already precedes it in
  /// the block), a shared_store of each conversion's source, one barrier,
  /// and the shared_loads in the operands' layouts. A dot that tile-pipeline
  /// leaves in flight (tile.mma_in_flight) reads the buffers of iteration i
  /// while iteration i+1 writes its own: two buffers, alternating.
  void stage(tile::DotOp dot, ArrayRef<tile::ConvertLayoutOp> converts) {
    auto func = dot->getParentOfType<func::FuncOp>();
    OpBuilder top(&func.getBody().front(), func.getBody().front().begin());
    bool inFlight = leftInFlight(dot);
    Value slot;
    if (inFlight)
      slot = alternatingSlot(dot);
    OpBuilder b(dot);
    Location loc = dot.getLoc();
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    // The previous iteration's dot may still read a lone buffer.
    if (!inFlight && !barrierBefore(zero.getDefiningOp()))
      tile::BarrierOp::create(b, loc);
    SmallVector<Value, 2> buffers;
    auto indices = [&](RankedTensorType type) {
      SmallVector<Value> out;
      if (inFlight)
        out.push_back(slot);
      out.append(type.getRank(), zero);
      return out;
    };
    for (tile::ConvertLayoutOp convert : converts) {
      auto type = cast<RankedTensorType>(convert.getType());
      SmallVector<int64_t> shape;
      if (inFlight)
        shape.push_back(2);
      llvm::append_range(shape, type.getShape());
      auto bufferType = tile::SharedType::get(
          top.getContext(), shape, type.getElementType(), Attribute());
      Value buffer =
          tile::AllocSharedOp::create(top, convert.getLoc(), bufferType);
      tile::SharedStoreOp::create(b, convert.getLoc(), buffer, indices(type),
                                  convert.getSrc());
      buffers.push_back(buffer);
    }
    tile::BarrierOp::create(b, loc);
    for (auto [i, buffer] : llvm::enumerate(buffers)) {
      tile::ConvertLayoutOp convert = converts[i];
      auto type = cast<RankedTensorType>(convert.getType());
      Value reread = tile::SharedLoadOp::create(b, convert.getLoc(), type,
                                                buffer, indices(type));
      convert.getResult().replaceAllUsesWith(reread);
      convert->erase();
    }
  }

  /// For a dot left in flight: which of the two buffers iteration i writes
  /// (i mod 2, an iteration argument of the dot's loop). Iteration i+2
  /// writes the buffers of iteration i after every warp retired its group:
  /// the barrier after the dot (tile-pipeline's, before the refill), which
  /// follows the wait that retires the group of the iteration before.
  Value alternatingSlot(tile::DotOp dot) {
    auto loop = cast<scf::ForOp>(dot->getParentOp());
    IRRewriter rewriter(loop.getContext());
    Location loc = dot.getLoc();
    if (!isa_and_nonnull<tile::BarrierOp>(dot->getNextNode())) {
      rewriter.setInsertionPointAfter(dot);
      tile::BarrierOp::create(rewriter, loc);
    }
    rewriter.setInsertionPoint(loop);
    Value first =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    // (scf.for always takes more iteration arguments.)
    auto replaced = cast<scf::ForOp>(
        loop.replaceWithAdditionalYields(
                rewriter, first, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &yb, Location, ArrayRef<BlockArgument> args) {
                  Value one =
                      arith::ConstantIntOp::create(yb, loc, yb.getI32Type(), 1);
                  return SmallVector<Value>{
                      arith::XOrIOp::create(yb, loc, args.back(), one)};
                })
            ->getOperation());
    return replaced.getRegionIterArgs().back();
  }
};

} // namespace

tile::ConvertLayoutOp tile::detail::stagedOperandConversion(tile::DotOp dot,
                                                            Value operand,
                                                            int64_t warpSize) {
  auto convert = operand.getDefiningOp<tile::ConvertLayoutOp>();
  if (!convert || !operand.hasOneUse() ||
      convert->getBlock() != dot->getBlock() ||
      !convert->getParentOfType<scf::ForOp>())
    return {};
  auto type = cast<RankedTensorType>(operand.getType());
  if (type.getRank() != 2 ||
      tile::detail::elementBits(type.getElementType()) != 16)
    return {};
  if (convert.getSrc().getDefiningOp<tile::SharedLoadOp>() ||
      !convertsViaShared(convert, warpSize))
    return {};
  return convert;
}
