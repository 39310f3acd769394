//===- RemoveConversions.cpp - Fewer tile.convert_layout ops --------------===//
//
// Part of tilec. Implements tile-remove-conversions (see Passes.td and
// docs/Passes.md). Every rewrite keeps the program's meaning: a conversion
// only moves data between threads, so replacing it by a producer recreated
// in the target layout, moving it earlier, or merging it with another
// conversion of the same value changes nothing but the cost.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Transforms/Passes.h"

#include "tile/Layout/ConversionPlan.h"
#include "tile/Layout/SubBytePacking.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace tile {
#define GEN_PASS_DEF_TILEREMOVECONVERSIONS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using tile::ConvertLayoutOp;
using tile::detail::getLayout;
using tile::detail::isSharedReadable;
using tile::detail::withLayout;
using DL = ::tile::layout::DistributedLayout;

namespace {

std::optional<DL> opt(llvm::Expected<DL> value) {
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

/// Recreates \p value in layout \p layout before \p builder's insertion point
/// when it is made by a cheap op that has no data dependence on other tiles
/// (constants, splat, iota, and broadcasts / expand_dims of those); returns
/// a null Value otherwise.
Value rematerialize(OpBuilder &builder, Value value, const DL &layout,
                    unsigned depth = 0) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  Operation *def = value.getDefiningOp();
  if (!type || !def || depth > 4 || layout.shape() != type.getShape())
    return {};
  auto newType = withLayout(type, layout);
  Location loc = def->getLoc();
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense)
      return {};
    return arith::ConstantOp::create(builder, loc, newType,
                                     dense.reshape(newType));
  }
  if (auto splat = dyn_cast<tile::SplatOp>(def))
    return tile::SplatOp::create(builder, loc, newType, splat.getSrc());
  if (isa<tile::IotaOp>(def))
    return tile::IotaOp::create(builder, loc, newType);
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def)) {
    auto srcType = cast<RankedTensorType>(broadcast.getSrc().getType());
    std::optional<DL> srcLayout = layout;
    for (unsigned d = 0; d < srcType.getRank() && srcLayout; ++d) {
      if (srcType.getDimSize(d) != type.getDimSize(d))
        srcLayout = opt(srcLayout->reduce(d, /*keepDim=*/true));
    }
    if (!srcLayout)
      return {};
    Value src =
        getLayout(srcType) == *srcLayout
            ? broadcast.getSrc()
            : rematerialize(builder, broadcast.getSrc(), *srcLayout, depth + 1);
    if (!src)
      return {};
    return tile::BroadcastOp::create(builder, loc, newType, src);
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    std::optional<DL> srcLayout = opt(layout.squeeze(expand.getAxis()));
    if (!srcLayout)
      return {};
    Value src =
        getLayout(expand.getSrc().getType()) == *srcLayout
            ? expand.getSrc()
            : rematerialize(builder, expand.getSrc(), *srcLayout, depth + 1);
    if (!src)
      return {};
    return tile::ExpandDimsOp::create(builder, loc, newType, src,
                                      expand.getAxisAttr());
  }
  return {};
}

/// The layout \p op's tensor operand \p index must have for its result to
/// be in \p layout, for the ops a conversion may move across (one tensor
/// operand, layout a function of it).
std::optional<DL> operandLayoutFor(Operation *op, unsigned index,
                                   const DL &layout) {
  Value operand = op->getOperand(index);
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  if (!type)
    return std::nullopt;
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    SmallVector<int32_t> perm = trans.getPermutation();
    SmallVector<unsigned> inverse(perm.size());
    for (unsigned i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = i;
    return opt(layout.permute(inverse));
  }
  if (isa<tile::ReshapeOp>(op))
    return opt(layout.reshape(type.getShape()));
  if (isa<tile::BroadcastOp>(op)) {
    // The source holds each broadcast dimension once: those dimensions'
    // modes become replication.
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<DL> srcLayout = layout;
    for (unsigned d = 0; d < type.getRank() && srcLayout; ++d)
      if (type.getDimSize(d) != resultType.getDimSize(d))
        srcLayout = opt(srcLayout->reduce(d, /*keepDim=*/true));
    return srcLayout;
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
    return opt(layout.squeeze(expand.getAxis()));
  if (auto bitcast = dyn_cast<tile::BitcastOp>(op)) {
    return opt(::tile::layout::bitcastLayout(
        layout, tile::detail::elementBits(bitcast.getType()),
        tile::detail::elementBits(type)));
  }
  // Elementwise ops: every tensor operand has the result's shape (binary
  // ops included: each operand is absorbed or rematerialized in turn).
  bool elementwise =
      isa<tile::CastOp>(op) || op->hasTrait<OpTrait::Elementwise>();
  if (elementwise && op->getNumResults() == 1 &&
      type.getShape() == layout.shape())
    return layout;
  return std::nullopt;
}

/// Tiles of at most this many elements (scale and bias rows, per-group
/// vectors), of which each thread holds at most kDuplicableSlots in the new
/// layout, may have their producers duplicated in that layout when they
/// have other users too: recomputing or re-reading them costs less than a
/// round trip through shared scratch with two barriers, and the copy stays
/// within a few registers (gemm_decode with 4 groups per chunk went from
/// 168 to 216 registers without the second bound).
constexpr int64_t kDuplicableElements = 1024;
constexpr int64_t kDuplicableSlots = 32;

/// The producers absorbConversion may recreate in another layout: a shared
/// load (it reads any layout) and ops whose layout follows their tensor
/// operands (which are then recreated in turn; a broadcast's operand in the
/// layout with the broadcast dimensions replicated). Global loads and
/// everything else keep their layout.
bool isAbsorbable(Operation *def) {
  return isa<tile::SharedLoadOp, tile::CastOp, tile::ExpandDimsOp,
             tile::ReshapeOp, tile::TransOp, tile::BitcastOp,
             tile::BroadcastOp>(def) ||
         (def->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(def) &&
          llvm::any_of(def->getOperands(), [](Value v) {
            return isa<RankedTensorType>(v.getType());
          }));
}

/// Whether absorbConversion may recreate \p def (the producer of a value
/// with other users) in \p layout, the original staying for those users.
bool isDuplicable(Operation *def, const DL &layout) {
  auto type = dyn_cast<RankedTensorType>(def->getResult(0).getType());
  return type && type.getNumElements() <= kDuplicableElements &&
         layout.localSize() <= kDuplicableSlots;
}

/// \p layout with its slot digits in row-major order of the tile: a thread's
/// slots in increasing address order of a row-major buffer. Same threads,
/// same elements, so converting between the two renames registers.
std::optional<DL> withSlotsInMemoryOrder(const DL &layout) {
  SmallVector<SmallVector<int64_t, 4>> dimModes(layout.rank());
  for (const ::tile::layout::Mode &m : layout.modes())
    if (!m.isReplicated())
      dimModes[m.dim].push_back(m.size);
  SmallVector<int64_t> spatial, local;
  for (unsigned id : layout.spatialModes()) {
    const ::tile::layout::Mode &m = layout.modes()[id];
    spatial.push_back(m.isReplicated() ? -m.size : int64_t(id));
  }
  for (unsigned id : layout.localModes())
    local.push_back(id);
  llvm::sort(local);
  return opt(DL::fromModes(dimModes, spatial, local));
}

/// A cast of 1-, 2- or 4-bit integers, of 3-, 5-, 6- or 7-bit integers or
/// small floats to f16, or of 4-bit floats (f4e2m1, ...) read from shared
/// memory: the GPU lowering converts such a tile a 32-bit word at a time,
/// two slots per instruction or a few (odd-width floats: two windows per
/// pair), when the thread's slots are in memory order; the few odd-width
/// floats without a word path (X >= 5) convert slot by slot in that order,
/// still without a staging buffer. (Without the odd-width floats here, the
/// swapped decode GEMM (BM = 8) staged f5e2m2 and f6e3m2 through shared
/// memory: 64 stores a k block.)
bool isWordCast(Operation *def) {
  auto cast = dyn_cast<tile::CastOp>(def);
  if (!cast || !cast.getSrc().getDefiningOp<tile::SharedLoadOp>() ||
      !cast.getSrc().hasOneUse())
    return false;
  Type src = getElementTypeOrSelf(cast.getSrc().getType());
  unsigned bits = tile::detail::elementBits(cast.getSrc().getType());
  bool oddWidth = bits == 3 || bits == 5 || bits == 6 || bits == 7;
  if (oddWidth)
    return getElementTypeOrSelf(cast.getType()).isF16();
  if (src.isSignlessInteger())
    return bits == 1 || bits == 2 || bits == 4;
  return bits == 4;
}

Value absorbConversion(OpBuilder &builder, Value value, const DL &layout,
                       SmallVectorImpl<Operation *> &created,
                       unsigned depth = 0, bool narrow = false);

/// Whether converting \p src to \p wanted is the register renaming after a
/// word cast in memory order, the form absorbIntoWordOrder makes (kept).
bool isWordOrderRename(Value src, const DL &wanted) {
  Operation *def = src.getDefiningOp();
  if (!def || !isWordCast(def))
    return false;
  std::optional<DL> memOrder = withSlotsInMemoryOrder(wanted);
  return memOrder && *memOrder != wanted &&
         getLayout(cast<RankedTensorType>(src.getType())) == *memOrder;
}

/// For a word cast (isWordCast) whose result is wanted in \p layout: the
/// shared load and the cast in \p memOrder (the same elements per thread,
/// slots in memory order: word-wise conversion), then a conversion to
/// \p layout, which renames registers. Pre-packed weights rely on it: their
/// packing puts the two values of an operand register 16 bits apart in a
/// word, which is the pair the word-wise conversion makes.
Value absorbIntoWordOrder(OpBuilder &builder, Value value, const DL &layout,
                          const DL &memOrder,
                          SmallVectorImpl<Operation *> &created, unsigned depth,
                          bool narrow) {
  Operation *def = value.getDefiningOp();
  Value src = def->getOperand(0);
  std::optional<DL> srcLayout = operandLayoutFor(def, 0, memOrder);
  if (!srcLayout)
    return {};
  Value loaded =
      absorbConversion(builder, src, *srcLayout, created, depth + 1, narrow);
  if (!loaded)
    return {};
  builder.setInsertionPoint(def);
  IRMapping mapping;
  mapping.map(src, loaded);
  Operation *clone = builder.clone(*def, mapping);
  auto type = cast<RankedTensorType>(value.getType());
  clone->getResult(0).setType(withLayout(type, memOrder));
  created.push_back(clone);
  auto rename = ConvertLayoutOp::create(
      builder, def->getLoc(), withLayout(type, layout), clone->getResult(0));
  created.push_back(rename);
  return rename;
}

/// Makes \p value come out in \p layout when its producers can absorb a
/// conversion: a shared_load (it may read any layout), a cheap producer, or
/// a chain of trans / reshape / expand_dims / bitcast / elementwise ops
/// ending in those. The producers are recreated in the new layout (their
/// new ops are appended to \p created); a producer whose value has other
/// users too is recreated only when it is small (isDuplicable), the
/// original staying for those users. Returns null when that is not
/// possible; the caller then erases \p created. With \p narrow, a shared
/// load (below the first producer) that cannot read the layout keeps its
/// own and gets the conversion right after it instead: the conversion
/// then moves the narrowest values of the chain (sub-byte codes, not the
/// f16 they become).
Value absorbConversion(OpBuilder &builder, Value value, const DL &layout,
                       SmallVectorImpl<Operation *> &created, unsigned depth,
                       bool narrow) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  Operation *def = value.getDefiningOp();
  if (!type || !def || depth > 8 || layout.shape() != type.getShape() ||
      def->getNumResults() != 1)
    return {};
  if (getLayout(type) == layout)
    return value;
  builder.setInsertionPoint(def);
  if (Value remat = rematerialize(builder, value, layout)) {
    created.push_back(remat.getDefiningOp());
    return remat;
  }
  if (!isAbsorbable(def) || (!value.hasOneUse() && !isDuplicable(def, layout)))
    return {};
  if (value.hasOneUse() && isWordCast(def)) {
    std::optional<DL> memOrder = withSlotsInMemoryOrder(layout);
    if (memOrder && *memOrder != layout) {
      // Already in memory order: rename right after it, so that what
      // follows (scaling, say) runs in the wanted layout's slot pairs.
      if (getLayout(type) == *memOrder) {
        builder.setInsertionPointAfter(def);
        auto rename = ConvertLayoutOp::create(builder, def->getLoc(),
                                              withLayout(type, layout), value);
        created.push_back(rename);
        return rename;
      }
      return absorbIntoWordOrder(builder, value, layout, *memOrder, created,
                                 depth, narrow);
    }
  }
  RankedTensorType newType = withLayout(type, layout);
  if (isa<tile::SharedLoadOp>(def) && !isSharedReadable(newType)) {
    if (!narrow || depth == 0 || !value.hasOneUse())
      return {};
    builder.setInsertionPointAfter(def);
    auto convert =
        ConvertLayoutOp::create(builder, def->getLoc(), newType, value);
    created.push_back(convert);
    return convert;
  }
  IRMapping mapping;
  for (unsigned i = 0; i < def->getNumOperands(); ++i) {
    Value operand = def->getOperand(i);
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    std::optional<DL> needed = operandLayoutFor(def, i, layout);
    if (!needed)
      return {};
    Value absorbed =
        absorbConversion(builder, operand, *needed, created, depth + 1, narrow);
    if (!absorbed)
      return {};
    mapping.map(operand, absorbed);
  }
  builder.setInsertionPoint(def);
  Operation *clone = builder.clone(*def, mapping);
  clone->getResult(0).setType(newType);
  created.push_back(clone);
  return clone->getResult(0);
}

/// Whether \p op is a tile-valued op (no regions) without users or side
/// effects.
bool isDeadTileOp(Operation *op) {
  return op && op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType()) &&
         isOpTriviallyDead(op);
}

/// Erases the dead tile ops among \p seeds and the producers that become
/// dead with them (abandoned absorptions, chains left behind by absorbed
/// conversions). Returns whether anything was erased.
bool eraseDeadTileOps(ArrayRef<Operation *> seeds) {
  llvm::SetVector<Operation *> dead;
  for (Operation *op : seeds)
    if (isDeadTileOp(op))
      dead.insert(op);
  bool erased = false;
  while (!dead.empty()) {
    Operation *op = dead.pop_back_val();
    SmallVector<Operation *, 4> producers;
    for (Value operand : op->getOperands())
      producers.push_back(operand.getDefiningOp());
    op->erase();
    erased = true;
    for (Operation *producer : producers)
      if (isDeadTileOp(producer))
        dead.insert(producer);
  }
  return erased;
}

/// The outermost scf.for around \p op that does not contain the definition
/// of \p value, or null.
scf::ForOp hoistTarget(Operation *op, Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    def = value.getParentBlock()->getParentOp();
  scf::ForOp target;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto forOp = dyn_cast<scf::ForOp>(parent);
    if (!forOp || forOp->isAncestor(def))
      break;
    target = forOp;
  }
  return target;
}

/// Whether \p op converts across warps (a round trip through shared
/// scratch as large as the tile) for warps of \p warpSize threads.
bool crossesWarps(ConvertLayoutOp op, int64_t warpSize) {
  std::optional<DL> src = getLayout(op.getSrc().getType());
  std::optional<DL> dst = getLayout(op.getType());
  if (!src || !dst)
    return false;
  unsigned bits = tile::detail::elementBits(op.getType());
  auto plan =
      ::tile::layout::planConversion(*src, *dst, warpSize, bits % 8 ? 8 : bits);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return false;
  }
  return plan->kind == ::tile::layout::ConversionKind::SharedMemory;
}

/// For \p op, a conversion across warps that its producers cannot absorb:
/// the producers absorb it down to the shared loads that cannot read the
/// layout, which get the conversion instead (absorbConversion's narrow
/// mode), when every new conversion across warps moves narrower elements
/// than \p op (the others rename registers or shuffle within warps).
/// Returns the value to use instead of \p op's result, or null.
Value narrowConversion(OpBuilder &builder, ConvertLayoutOp op, const DL &wanted,
                       int64_t warpSize) {
  builder.setInsertionPoint(op);
  SmallVector<Operation *> created;
  Value absorbed = absorbConversion(builder, op.getSrc(), wanted, created,
                                    /*depth=*/0, /*narrow=*/true);
  unsigned bits = tile::detail::elementBits(op.getType());
  bool narrower = absorbed && llvm::all_of(created, [&](Operation *c) {
                    auto convert = dyn_cast<ConvertLayoutOp>(c);
                    return !convert || !crossesWarps(convert, warpSize) ||
                           tile::detail::elementBits(convert.getType()) < bits;
                  });
  if (narrower)
    return absorbed;
  eraseDeadTileOps(created);
  return {};
}

/// One sweep over the conversions of \p root; returns whether anything
/// changed. With \p narrowWarpSize > 0 (the warp size), conversions across
/// warps that no producer absorbs move to the narrowest values they can
/// (narrowConversion).
bool simplifyOnce(Operation *root, int64_t narrowWarpSize) {
  SmallVector<ConvertLayoutOp> converts;
  root->walk([&](ConvertLayoutOp op) { converts.push_back(op); });
  bool changed = false;
  OpBuilder builder(root->getContext());
  llvm::DenseSet<Operation *> erased;
  for (ConvertLayoutOp op : converts) {
    if (erased.count(op))
      continue;
    Value src = op.getSrc();
    // Fold a chain: convert(convert(x)) -> convert(x).
    if (auto inner = src.getDefiningOp<ConvertLayoutOp>()) {
      op.getSrcMutable().assign(inner.getSrc());
      if (inner->use_empty()) {
        erased.insert(inner);
        inner->erase();
      }
      src = op.getSrc();
      changed = true;
    }
    // A conversion to the layout the value already has.
    if (src.getType() == op.getType()) {
      op.replaceAllUsesWith(src);
      erased.insert(op);
      op->erase();
      changed = true;
      continue;
    }
    // Recreate cheap producers in the needed layout, or the producer chain
    // (ending in shared_loads, constants, splats) of a value used only here
    // or small enough to duplicate.
    std::optional<DL> wanted = getLayout(op.getType());
    if (wanted && isWordOrderRename(src, *wanted))
      continue;
    if (wanted) {
      builder.setInsertionPoint(op);
      Value absorbed = rematerialize(builder, src, *wanted);
      SmallVector<Operation *> created;
      if (!absorbed)
        absorbed = absorbConversion(builder, src, *wanted, created);
      if (!absorbed)
        eraseDeadTileOps(created);
      if (!absorbed && narrowWarpSize > 0 && crossesWarps(op, narrowWarpSize))
        absorbed = narrowConversion(builder, op, *wanted, narrowWarpSize);
      if (absorbed) {
        op.replaceAllUsesWith(absorbed);
        erased.insert(op);
        op->erase();
        changed = true;
        continue;
      }
    }
    // Hoist conversions of loop-invariant values.
    if (scf::ForOp loop = hoistTarget(op, src)) {
      op->moveBefore(loop);
      changed = true;
    }
  }
  // Merge conversions of one value to one layout when one dominates the
  // other.
  DominanceInfo dominance(root);
  llvm::DenseMap<std::pair<Value, Type>, SmallVector<ConvertLayoutOp, 2>>
      groups;
  root->walk([&](ConvertLayoutOp op) {
    groups[{op.getSrc(), op.getType()}].push_back(op);
  });
  for (auto &entry : groups) {
    SmallVector<ConvertLayoutOp, 2> &ops = entry.second;
    for (unsigned i = 0; i < ops.size(); ++i) {
      if (!ops[i])
        continue;
      for (unsigned j = 0; j < ops.size(); ++j) {
        if (i == j || !ops[j] ||
            !dominance.dominates(ops[i].getOperation(), ops[j].getOperation()))
          continue;
        ops[j].replaceAllUsesWith(ops[i].getResult());
        ops[j]->erase();
        ops[j] = nullptr;
        changed = true;
      }
    }
  }
  // Producers left without users (absorbed conversions leave their old
  // producer chains behind): any tile op without users and without side
  // effects, users before producers.
  SmallVector<Operation *> seeds;
  root->walk([&](Operation *op) { seeds.push_back(op); });
  changed |= eraseDeadTileOps(seeds);
  return changed;
}

struct RemoveConversionsPass
    : public tile::impl::TileRemoveConversionsBase<RemoveConversionsPass> {
  using TileRemoveConversionsBase::TileRemoveConversionsBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      int64_t warpSize = 0;
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              tile::TileDialect::kWarpSizeAttr);
          attr && narrow)
        warpSize = attr.getInt();
      // Bounded: every sweep removes or hoists something.
      for (unsigned i = 0; i < 32 && simplifyOnce(func, warpSize); ++i) {
      }
    }
  }
};

} // namespace
