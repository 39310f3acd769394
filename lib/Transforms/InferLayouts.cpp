//===- InferLayouts.cpp - Give every tile a distributed layout ------------===//
//
// Part of tilec. Implements tile-infer-layouts (see Passes.td and
// docs/Passes.md).
//
// Algorithm: anchors first (global loads/stores: coalesced; dot operands and
// results: matrix-instruction layouts; existing encodings: pinned). Then,
// until every tensor value has a layout: propagate forward in program order
// through ops whose result layout follows from their operands' (elementwise,
// cast, bitcast, reduce, expand_dims, trans, reshape, scf.for, scf.if); when
// that stalls, propagate backward from users into values nothing defines yet
// (broadcast, splat, iota, constants, shared_load, loop-carried values);
// when that stalls too, give the first value still without a layout the
// coalesced layout of its type. Finally rewrite the types and insert
// tile.convert_layout where a user needs another layout than its operand
// has.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Dialect/Tile/Utils/DotChain.h"
#include "tile/Transforms/LayoutChoice.h"
#include "tile/Transforms/Passes.h"

#include "tile/Layout/SubBytePacking.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using tile::detail::getLayout;
using tile::detail::isSharedReadable;
using tile::detail::withLayout;
using DL = ::tile::layout::DistributedLayout;

namespace {

/// Converts an llvm::Expected to an optional, dropping the error.
std::optional<DL> opt(llvm::Expected<DL> value) {
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

bool isTensor(Value value) { return isa<RankedTensorType>(value.getType()); }

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Ops whose tensor results have the layout of their tensor operands.
bool isElementwise(Operation *op) { return tile::isElementwiseOnTiles(op); }

/// Dimensions of a broadcast that are expanded from extent 1.
SmallVector<unsigned> broadcastDims(tile::BroadcastOp op) {
  SmallVector<unsigned> dims;
  auto src = tensorType(op.getSrc()), dst = tensorType(op.getResult());
  for (unsigned d = 0; d < src.getRank(); ++d) {
    if (src.getDimSize(d) != dst.getDimSize(d))
      dims.push_back(d);
  }
  return dims;
}

class LayoutInference {
public:
  LayoutInference(func::FuncOp func, const ::tile::TargetInfo &target,
                  int64_t numWarps)
      : func(func), target(target), numWarps(numWarps),
        numThreads(numWarps * std::max<unsigned>(1, target.warpSize)) {}

  LogicalResult run();

private:
  LogicalResult collectAndAnchor();
  bool forwardPass();
  bool backwardPass();
  bool assignDefault();
  LogicalResult rewrite();

  std::optional<DL> known(Value value) const {
    auto it = layouts.find(value);
    if (it == layouts.end())
      return std::nullopt;
    return it->second;
  }
  bool assign(Value value, std::optional<DL> layout) {
    if (!layout || !isTensor(value) || layouts.count(value))
      return false;
    if (layout->shape() != tensorType(value).getShape() ||
        layout->numThreads() != numThreads)
      return false;
    // An scf.for result and its region iteration argument are the same
    // loop-carried value: they take one layout (the init and yield operands
    // are converted to it), whichever of the two is decided first.
    if (Value twin = loopTwin(value))
      layouts.try_emplace(twin, *layout);
    layouts.try_emplace(value, std::move(*layout));
    return true;
  }
  /// The region iteration argument of an scf.for result, or the result of
  /// an iteration argument; null otherwise.
  static Value loopTwin(Value value) {
    if (auto result = dyn_cast<OpResult>(value))
      if (auto forOp = dyn_cast<scf::ForOp>(result.getOwner()))
        return forOp.getRegionIterArgs()[result.getResultNumber()];
    if (auto arg = dyn_cast<BlockArgument>(value))
      if (auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (arg.getArgNumber() >= forOp.getNumInductionVars())
          return forOp.getResult(arg.getArgNumber() -
                                 forOp.getNumInductionVars());
    return {};
  }
  DL coalesced(Value value) const {
    auto type = tensorType(value);
    return ::tile::layout::coalescedLayout(
        type.getShape(), tile::detail::elementBits(type), numThreads);
  }
  /// A layout every op can work with: every thread holds the whole tile.
  DL replicatedLocal(RankedTensorType type) const {
    return DL::replicate(numThreads) * DL::local(type.getShape());
  }
  const ::tile::layout::DotLayouts &dotLayouts(tile::DotOp dot);
  std::optional<DL> forward(Operation *op, unsigned resultIndex);
  std::optional<DL> requirement(OpOperand &use);
  Value convert(OpBuilder &builder, Location loc, Value value, const DL &to);

  func::FuncOp func;
  const ::tile::TargetInfo &target;
  int64_t numWarps, numThreads;
  /// Every tensor value of the kernel, in program order.
  SmallVector<Value> values;
  llvm::DenseMap<Value, DL> layouts;
  llvm::DenseMap<Operation *, ::tile::layout::DotLayouts> dots;
};

/// Whether the batched \p dot, in a loop's body, has its result summed
/// over its batch (a tile.reduce along axis 0) in that body, directly or
/// through elementwise operations of the same shape (per-group partial
/// products scaled before their sum): each iteration's sum then stays
/// within the threads when the batch is in their local slots. (Outside a
/// loop the sum is one exchange, and the warps may as well split the
/// batch.)
static bool summedOverBatchInBlock(tile::DotOp dot) {
  Block *block = dot->getBlock();
  if (!isa<LoopLikeOpInterface>(dot->getParentOp()))
    return false;
  ArrayRef<int64_t> shape = tensorType(dot.getResult()).getShape();
  SmallVector<Value> work = {dot.getResult()};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user->getBlock() != block || !seen.insert(user).second)
        continue;
      if (auto reduce = dyn_cast<tile::ReduceOp>(user)) {
        if (reduce.getAxis() == 0)
          return true;
        continue;
      }
      if (isa<tile::DotOp>(user) || user->getNumResults() != 1)
        continue;
      auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (type && type.getShape() == shape)
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

const ::tile::layout::DotLayouts &LayoutInference::dotLayouts(tile::DotOp dot) {
  auto it = dots.find(dot);
  if (it != dots.end())
    return it->second;
  auto a = tensorType(dot.getA()), c = tensorType(dot.getAcc());
  Type elem = a.getElementType();
  bool isFloat = isa<FloatType>(elem) || isa<tile::SmallFloatType>(elem);
  unsigned bits = tile::detail::elementBits(a);
  // e4m3 / e5m2: the 8-bit float formats of the matrix instructions.
  bool fp8MmaFormat = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
  if (c.getRank() == 3) {
    // A batch of products (no warpgroup form): warps along the batch first,
    // unless the products are summed over the batch in the same iteration.
    auto layouts = ::tile::layout::chooseBatchedDotLayouts(
        c.getDimSize(0), c.getDimSize(1), c.getDimSize(2), a.getDimSize(2),
        bits, isFloat, numWarps, target, tile::isChainedProduct(dot),
        fp8MmaFormat, /*warpsAlongBatch=*/!summedOverBatchInBlock(dot));
    return dots.try_emplace(dot, std::move(layouts)).first->second;
  }
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  // Operands loaded from memory are staged in shared memory by tile-pipeline
  // (or already are), computed ones (a dequantized weight) by
  // tile-stage-converted-operands: wgmma can then read both. If one stays
  // in registers, the dot keeps mma.sync with these layouts.
  // B read through a 2-D transpose is stored N x K (K-major) for wgmma.
  auto bTrans = dot.getB().getDefiningOp<tile::TransOp>();
  bool bTransposed = bTrans && bTrans.getPermutation().size() == 2;
  bool chained = tile::isChainedProduct(dot);
  bool warpgroup = ::tile::layout::fitsWarpgroupMma(
      m, n, k, bits, isFloat,
      c.getElementType().isF32() || c.getElementType().isInteger(32), numWarps,
      target, bTransposed, fp8MmaFormat, chained);
  auto layouts =
      ::tile::layout::chooseDotLayouts(m, n, k, bits, isFloat, numWarps, target,
                                       chained || warpgroup, fp8MmaFormat);
  return dots.try_emplace(dot, std::move(layouts)).first->second;
}

LogicalResult LayoutInference::collectAndAnchor() {
  bool failed = false;
  // Region ops whose tile operands and results this pass does not relate.
  func.walk([&](Operation *op) {
    if (op == func.getOperation() || op->getNumRegions() == 0 ||
        isa<scf::ForOp, scf::IfOp>(op))
      return;
    auto isTile = [](Type type) { return isa<RankedTensorType>(type); };
    if (llvm::any_of(op->getOperandTypes(), isTile) ||
        llvm::any_of(op->getResultTypes(), isTile)) {
      op->emitError() << "layout inference does not support '" << op->getName()
                      << "' carrying tiles";
      failed = true;
    }
  });
  if (failed)
    return failure();
  // The kernel's own arguments keep their types (kernels take pointers and
  // scalars; a tensor argument is converted where it is used).
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == func.getOperation())
      return;
    for (Region &region : op->getRegions()) {
      for (Block &block : region) {
        for (BlockArgument arg : block.getArguments()) {
          if (isTensor(arg))
            values.push_back(arg);
        }
      }
    }
    for (Value result : op->getResults()) {
      if (isTensor(result))
        values.push_back(result);
    }
  });
  // A wrong thread count is reported once per layout: at a conversion to it
  // (a layout() pin) if there is one, not at the values derived from it.
  llvm::StringSet<> reported;
  auto checkThreads = [&](Value value, const DL &layout) {
    if (layout.numThreads() == numThreads)
      return true;
    failed = true;
    if (!reported.insert(layout.str()).second)
      return false;
    Location loc = value.getDefiningOp()
                       ? value.getDefiningOp()->getLoc()
                       : value.getParentRegion()->getParentOp()->getLoc();
    emitError(loc) << "layout '" << layout.str() << "' uses "
                   << layout.numThreads() << " threads, but the kernel has "
                   << numThreads << " ("
                   << "tile.warps = " << numWarps << " x warp size "
                   << target.warpSize << ")";
    return false;
  };
  for (Value value : values) {
    std::optional<DL> layout = getLayout(value.getType());
    if (layout && value.getDefiningOp<tile::ConvertLayoutOp>())
      checkThreads(value, *layout);
  }
  for (Value value : values) {
    // Existing encodings (pinned conversions, a second run) are kept.
    if (std::optional<DL> layout = getLayout(value.getType())) {
      if (!checkThreads(value, *layout))
        continue;
      layouts.try_emplace(value, *layout);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (isa_and_nonnull<tile::LoadOp>(def)) {
      assign(value, coalesced(value));
    } else if (auto dot = dyn_cast_or_null<tile::DotOp>(def)) {
      assign(value, dotLayouts(dot).c);
    }
  }
  return failure(failed);
}

std::optional<DL> LayoutInference::forward(Operation *op,
                                           unsigned resultIndex) {
  auto firstOperand = [&]() -> std::optional<DL> {
    Value result = op->getResult(resultIndex);
    for (Value operand : op->getOperands()) {
      if (isTensor(operand) &&
          tensorType(operand).getShape() == tensorType(result).getShape()) {
        if (std::optional<DL> layout = known(operand))
          return layout;
      }
    }
    return std::nullopt;
  };
  if (isElementwise(op))
    return firstOperand();
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
    return known(convert.getSrc());
  if (auto bitcast = dyn_cast<tile::BitcastOp>(op)) {
    std::optional<DL> src = known(bitcast.getSrc());
    if (!src)
      return std::nullopt;
    return opt(::tile::layout::bitcastLayout(
        *src, tile::detail::elementBits(bitcast.getSrc().getType()),
        tile::detail::elementBits(bitcast.getResult().getType())));
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    std::optional<DL> src = known(reduce.getSrc());
    if (!src)
      return std::nullopt;
    return opt(src->reduce(reduce.getAxis(), /*keepDim=*/false));
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    std::optional<DL> src = known(expand.getSrc());
    if (!src)
      return std::nullopt;
    return opt(src->expandDims(expand.getAxis()));
  }
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    std::optional<DL> src = known(trans.getSrc());
    if (!src)
      return std::nullopt;
    SmallVector<unsigned> perm;
    for (int32_t p : trans.getPermutation())
      perm.push_back(p);
    return opt(src->permute(perm));
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    std::optional<DL> src = known(reshape.getSrc());
    if (!src)
      return std::nullopt;
    return opt(src->reshape(tensorType(reshape.getResult()).getShape()));
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    if (std::optional<DL> init = known(forOp.getInitArgs()[resultIndex]))
      return init;
    return known(forOp.getYieldedValues()[resultIndex]);
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (std::optional<DL> then =
            known(ifOp.thenYield().getOperand(resultIndex)))
      return then;
    if (!ifOp.getElseRegion().empty())
      return known(ifOp.elseYield().getOperand(resultIndex));
  }
  return std::nullopt;
}

std::optional<DL> LayoutInference::requirement(OpOperand &use) {
  Operation *user = use.getOwner();
  unsigned index = use.getOperandNumber();
  Value operand = use.get();
  if (!isTensor(operand))
    return std::nullopt;
  auto resultLayout = [&](unsigned i = 0) -> std::optional<DL> {
    return known(user->getResult(i));
  };
  if (auto dot = dyn_cast<tile::DotOp>(user)) {
    const auto &l = dotLayouts(dot);
    return index == 0 ? l.a : index == 1 ? l.b : l.c;
  }
  if (auto store = dyn_cast<tile::StoreOp>(user))
    return coalesced(store.getValue());
  if (auto add = dyn_cast<tile::AtomicAddOp>(user))
    return coalesced(add.getValue());
  if (isa<tile::SharedStoreOp>(user)) {
    // Any layout, as long as every thread holds its sub-byte elements in
    // whole bytes.
    std::optional<DL> l = known(operand);
    if (l && !isSharedReadable(withLayout(tensorType(operand), *l)))
      return coalesced(operand);
    return std::nullopt;
  }
  if (isElementwise(user)) {
    std::optional<DL> r = resultLayout();
    if (r && r->shape() == tensorType(operand).getShape())
      return r;
    return std::nullopt;
  }
  if (isa<tile::ConvertLayoutOp>(user))
    return resultLayout();
  if (auto bitcast = dyn_cast<tile::BitcastOp>(user)) {
    std::optional<DL> r = resultLayout();
    if (!r)
      return std::nullopt;
    return opt(::tile::layout::bitcastLayout(
        *r, tile::detail::elementBits(bitcast.getResult().getType()),
        tile::detail::elementBits(bitcast.getSrc().getType())));
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(user)) {
    std::optional<DL> r = resultLayout();
    for (unsigned d : broadcastDims(broadcast)) {
      if (!r)
        return std::nullopt;
      r = opt(r->reduce(d, /*keepDim=*/true));
    }
    return r;
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(user)) {
    std::optional<DL> r = resultLayout();
    return r ? opt(r->squeeze(expand.getAxis())) : std::nullopt;
  }
  if (auto trans = dyn_cast<tile::TransOp>(user)) {
    std::optional<DL> r = resultLayout();
    if (!r)
      return std::nullopt;
    SmallVector<int32_t> perm = trans.getPermutation();
    SmallVector<unsigned> inverse(perm.size());
    for (unsigned i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = i;
    return opt(r->permute(inverse));
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(user)) {
    std::optional<DL> r = resultLayout();
    return r ? opt(r->reshape(tensorType(operand).getShape())) : std::nullopt;
  }
  if (auto yield = dyn_cast<scf::YieldOp>(user)) {
    Operation *parent = yield->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent))
      return known(forOp.getRegionIterArgs()[index]);
    if (isa<scf::IfOp>(parent))
      return known(parent->getResult(index));
    return std::nullopt;
  }
  if (auto forOp = dyn_cast<scf::ForOp>(user)) {
    unsigned numControl = forOp.getNumControlOperands();
    if (index < numControl)
      return std::nullopt;
    return known(forOp.getRegionIterArgs()[index - numControl]);
  }
  return std::nullopt;
}

bool LayoutInference::forwardPass() {
  bool changed = false;
  for (Value value : values) {
    if (layouts.count(value))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      // scf.for iteration arguments follow the loop's results.
      auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!forOp || arg.getArgNumber() < forOp.getNumInductionVars())
        continue;
      unsigned i = arg.getArgNumber() - forOp.getNumInductionVars();
      changed |= assign(value, forward(forOp, i));
      continue;
    }
    Operation *def = value.getDefiningOp();
    unsigned i = cast<OpResult>(value).getResultNumber();
    changed |= assign(value, forward(def, i));
  }
  return changed;
}

bool LayoutInference::backwardPass() {
  bool changed = false;
  for (Value value : llvm::reverse(values)) {
    if (layouts.count(value))
      continue;
    // A reduction's layout is always the one of its source.
    if (isa_and_nonnull<tile::ReduceOp>(value.getDefiningOp()))
      continue;
    bool sharedLoad =
        isa_and_nonnull<tile::SharedLoadOp>(value.getDefiningOp());
    for (OpOperand &use : value.getUses()) {
      std::optional<DL> wanted = requirement(use);
      // A shared_load can only produce layouts that hold sub-byte elements
      // in whole bytes per thread; others get a conversion.
      if (wanted && sharedLoad &&
          !isSharedReadable(withLayout(tensorType(value), *wanted)))
        continue;
      if (assign(value, wanted)) {
        changed = true;
        break;
      }
    }
  }
  return changed;
}

bool LayoutInference::assignDefault() {
  for (Value value : values) {
    if (layouts.count(value))
      continue;
    if (isa_and_nonnull<tile::ReduceOp>(value.getDefiningOp()))
      continue;
    return assign(value, coalesced(value));
  }
  // Only reductions of values without a layout are left: impossible, since
  // their sources come first in program order.
  return false;
}

Value LayoutInference::convert(OpBuilder &builder, Location loc, Value value,
                               const DL &to) {
  if (getLayout(value.getType()) == to)
    return value;
  return tile::ConvertLayoutOp::create(
      builder, loc, withLayout(tensorType(value), to), value);
}

LogicalResult LayoutInference::rewrite() {
  // 1. Types.
  for (Value value : values) {
    const DL &layout = layouts.find(value)->second;
    auto type = withLayout(tensorType(value), layout);
    if (value.getType() == type)
      continue;
    value.setType(type);
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(dense.reshape(type));
    }
  }
  // 2. Results whose layout does not follow from their sources although it
  // must (reductions; bitcasts and reshapes that cannot be inverted).
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) { ops.push_back(op); });
  OpBuilder builder(func.getContext());
  for (Operation *op : ops) {
    if (!isa<tile::ReduceOp, tile::BitcastOp, tile::ReshapeOp>(op))
      continue;
    Value result = op->getResult(0);
    if (!isTensor(result))
      continue;
    if (isa<tile::BitcastOp, tile::ReshapeOp>(op) &&
        requirement(op->getOpOperand(0)))
      continue;
    DL wanted = layouts.find(result)->second;
    std::optional<DL> fromSource = forward(op, 0);
    if (!fromSource) {
      // Go through the layout in which every thread holds everything.
      Value src = op->getOperand(0);
      builder.setInsertionPoint(op);
      DL local = replicatedLocal(tensorType(src));
      Value converted = convert(builder, op->getLoc(), src, local);
      op->setOperand(0, converted);
      layouts[converted] = local;
      fromSource = forward(op, 0);
      if (!fromSource)
        return op->emitError("no register layout makes this op legal");
    }
    if (*fromSource == wanted)
      continue;
    result.setType(withLayout(tensorType(result), *fromSource));
    builder.setInsertionPointAfter(op);
    Value converted = convert(builder, op->getLoc(), result, wanted);
    result.replaceAllUsesExcept(converted, converted.getDefiningOp());
  }
  // 3. Operands in another layout than their user needs (a conversion
  // accepts any layout).
  for (Operation *op : ops) {
    if (isa<tile::ConvertLayoutOp>(op))
      continue;
    for (OpOperand &use : op->getOpOperands()) {
      if (!isTensor(use.get()))
        continue;
      std::optional<DL> needed = requirement(use);
      if (!needed || getLayout(use.get().getType()) == *needed)
        continue;
      builder.setInsertionPoint(op);
      use.set(convert(builder, op->getLoc(), use.get(), *needed));
    }
  }
  return success();
}

LogicalResult LayoutInference::run() {
  if (failed(collectAndAnchor()))
    return failure();
  while (true) {
    if (forwardPass() || backwardPass() || assignDefault())
      continue;
    break;
  }
  for (Value value : values) {
    if (!layouts.count(value))
      return emitError(value.getLoc()) << "could not infer a layout";
  }
  if (failed(rewrite()))
    return failure();
  func->setAttr(tile::TileDialect::kWarpSizeAttr,
                IntegerAttr::get(IntegerType::get(func.getContext(), 32),
                                 target.warpSize));
  return success();
}

struct InferLayoutsPass
    : public tile::impl::TileInferLayoutsBase<InferLayoutsPass> {
  using TileInferLayoutsBase::TileInferLayoutsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    if (info->isHost())
      return;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!tile::detail::isKernel(func) || func.isExternal())
        continue;
      auto warps =
          func->getAttrOfType<IntegerAttr>(tile::TileDialect::kWarpsAttr);
      if (!warps) {
        func.emitError("kernel has no 'tile.warps' attribute");
        return signalPassFailure();
      }
      LayoutInference inference(func, *info, warps.getInt());
      if (failed(inference.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
