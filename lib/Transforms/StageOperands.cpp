//===- StageOperands.cpp - Keep large loop-invariant dot operands in smem -===//
//
// Part of tilec. Implements tile-stage-operands (see Passes.td and
// docs/Passes.md).
//
// A tile.dot inside an scf.for whose A or B operand is computed before the
// loop keeps that operand in registers for the whole loop (attention's Q:
// 128x128 f16 is 64 registers per thread at 4 warps, next to a 128-register
// accumulator). When the loop's register estimate exceeds the target's
// budget, the operand is written once to a !tile.shared buffer before the
// loop and read back with a tile.shared_load right before each dot that
// uses it; the GPU lowering then fuses that shared_load into the dot and
// reads one k slice at a time (ldmatrix on NVIDIA), so the operand costs a
// few registers instead of all of them.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Dialect/Tile/Utils/DotChain.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace tile {
#define GEN_PASS_DEF_TILESTAGEOPERANDS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using tile::detail::elementBits;
using tile::detail::getLayout;

namespace {

/// 32-bit registers one thread needs for a tile value (0 for non-tiles and
/// tiles without a layout).
int64_t registersOf(Value v) {
  std::optional<::tile::layout::DistributedLayout> layout =
      getLayout(v.getType());
  if (!layout)
    return 0;
  return (layout->localSize() * int64_t(elementBits(v.getType())) + 31) / 32;
}

/// Bytes of a tile stored densely.
int64_t bytesOf(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return (type.getNumElements() * int64_t(elementBits(type)) + 7) / 8;
}

/// Bytes of every tile.alloc_shared of `func` (an upper bound of what
/// tile-allocate-shared will place, which may overlap dead buffers).
int64_t allocatedBytes(func::FuncOp func) {
  int64_t total = 0;
  func.walk([&](tile::AllocSharedOp alloc) {
    auto type = cast<tile::SharedType>(alloc.getType());
    total +=
        (type.getNumElements() * int64_t(elementBits(type.getElementType())) +
         7) /
        8;
  });
  return total;
}

/// Constants and splats: the lowering materializes them where they are
/// used, so they hold no registers through a loop.
bool isCheap(Value v) {
  Operation *def = v.getDefiningOp();
  return def &&
         (def->hasTrait<OpTrait::ConstantLike>() || isa<tile::SplatOp>(def));
}

/// The value to write to shared memory for a staged operand: the operand
/// with its layout conversions peeled off (the buffer is written in the
/// producer's layout, usually a coalesced one, so the conversion and its
/// scratch round trip disappear when nothing else uses it).
Value stagedSource(Value operand) {
  Value v = operand;
  while (auto convert = v.getDefiningOp<tile::ConvertLayoutOp>())
    v = convert.getSrc();
  return v;
}

/// A loop's register estimate per thread: its loop-carried tiles, the tiles
/// it uses from outside (live through every iteration) and the largest tile
/// a dot of the body produces (live next to them while it is computed).
int64_t loopPressure(scf::ForOp loop, const llvm::SetVector<Value> &invariants,
                     const llvm::DenseSet<Value> &staged) {
  int64_t pressure = 0;
  for (Value arg : loop.getRegionIterArgs())
    pressure += registersOf(arg);
  for (Value v : invariants)
    if (!staged.contains(v))
      pressure += registersOf(v);
  int64_t largestDot = 0;
  loop.getBody()->walk([&](tile::DotOp dot) {
    largestDot = std::max(largestDot, registersOf(dot.getResult()));
  });
  return pressure + largestDot;
}

/// Whether \p use is operand A of a dot that lowers to wgmma on \p target
/// (fitsWarpgroupMma: the shapes, the warps, a chained product's one 64-row
/// block per warpgroup).
bool warpgroupMmaOperandA(OpOperand &use, const ::tile::TargetInfo &target) {
  auto dot = dyn_cast<tile::DotOp>(use.getOwner());
  return target.hasWgmma && dot && use.getOperandNumber() == 0 &&
         tile::detail::dotFitsWarpgroupMma(dot, target, /*bTransposed=*/false,
                                           tile::isChainedProduct(dot));
}

struct TileStageOperands
    : tile::impl::TileStageOperandsBase<TileStageOperands> {
  using TileStageOperandsBase::TileStageOperandsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    if (info->isHost() || info->maxRegistersPerThread == 0)
      return;
    for (auto func : module.getOps<func::FuncOp>())
      if (tile::detail::isKernel(func) && !func.isExternal())
        runOnKernel(func, *info);
  }

  void runOnKernel(func::FuncOp func, const ::tile::TargetInfo &info) {
    int64_t budget = int64_t(info.maxRegistersPerThread) * budgetPercent / 100;
    int64_t sharedLeft = int64_t(info.maxSharedBytes) - allocatedBytes(func);
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // Tiles defined outside the loop and used inside it.
      llvm::SetVector<Value> invariants;
      loop.getBody()->walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (isa<RankedTensorType>(v.getType()) &&
              !loop->isAncestor(v.getParentRegion()->getParentOp()) &&
              !isCheap(v))
            invariants.insert(v);
      });
      // Candidates: invariant dot operands, largest first.
      SmallVector<Value> candidates;
      for (Value v : invariants) {
        // 2-D operands only: a batched product's loop-invariant operands
        // stay in registers (its pipelined ones are fused: LowerSharedOperand).
        bool dotOperand = llvm::any_of(v.getUses(), [&](OpOperand &use) {
          return isa<tile::DotOp>(use.getOwner()) &&
                 cast<RankedTensorType>(v.getType()).getRank() == 2 &&
                 use.getOperandNumber() < 2 && loop->isAncestor(use.getOwner());
        });
        if (dotOperand && registersOf(v) >= minRegisters)
          candidates.push_back(v);
      }
      llvm::stable_sort(candidates, [](Value x, Value y) {
        return registersOf(x) > registersOf(y);
      });
      llvm::DenseSet<Value> staged;
      // wgmma's A operands first, whatever the pressure (file comment).
      for (Value v : candidates) {
        bool wgmmaA = llvm::any_of(v.getUses(), [&](OpOperand &use) {
          return loop->isAncestor(use.getOwner()) &&
                 warpgroupMmaOperandA(use, info);
        });
        int64_t bytes = bytesOf(v);
        if (!wgmmaA || bytes > sharedLeft)
          continue;
        staged.insert(v);
        sharedLeft -= bytes;
        stage(loop, v);
      }
      for (Value v : candidates) {
        if (staged.contains(v))
          continue;
        if (loopPressure(loop, invariants, staged) <= budget)
          break;
        int64_t bytes = bytesOf(v);
        if (bytes > sharedLeft)
          continue;
        // Mark first: stage() may erase v's defining conversion.
        staged.insert(v);
        sharedLeft -= bytes;
        stage(loop, v);
      }
    }
  }

  /// Writes `operand` to a new shared buffer before `loop` and replaces its
  /// dot uses inside the loop by shared_loads right before each dot.
  void stage(scf::ForOp loop, Value operand) {
    auto type = cast<RankedTensorType>(operand.getType());
    Value source = stagedSource(operand);
    OpBuilder b(loop);
    Location loc = operand.getLoc();
    auto bufferType = tile::SharedType::get(b.getContext(), type.getShape(),
                                            type.getElementType(), Attribute());
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    SmallVector<Value> zeros(type.getRank(), zero);
    Value buffer = tile::AllocSharedOp::create(b, loc, bufferType);
    tile::SharedStoreOp::create(b, loc, buffer, zeros, source);
    tile::BarrierOp::create(b, loc);
    for (OpOperand &use : llvm::make_early_inc_range(operand.getUses())) {
      Operation *user = use.getOwner();
      if (!isa<tile::DotOp>(user) || use.getOperandNumber() >= 2 ||
          !loop->isAncestor(user))
        continue;
      OpBuilder inner(user);
      Value reread =
          tile::SharedLoadOp::create(inner, loc, type, buffer, zeros);
      use.set(reread);
    }
    // The conversions peeled off by stagedSource() may now be dead.
    Value v = operand;
    while (v != source && v.use_empty()) {
      Operation *def = v.getDefiningOp();
      v = def->getOperand(0);
      def->erase();
    }
  }
};

} // namespace
