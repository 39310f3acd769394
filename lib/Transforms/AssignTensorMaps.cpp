//===- AssignTensorMaps.cpp - The tensor maps of a kernel's TMA copies ----===//
//
// Part of tilec. Implements tile-assign-tensor-maps (see Passes.td and
// docs/Passes.md).
//
// A TMA copy (tile.copy_async with a barrier, from tile-pipeline) reads its
// global tile through a tensor map: a 128-byte descriptor of the tensor
// (address, extents, strides: the runtime encodes it at launch from the
// bound argument) and of the box one instruction copies and its swizzle
// (fixed here, from the shared layout tile-allocate-shared chose for the
// destination: TmaBox.h; a 2-D box, with extent 1 in the dimensions of an
// N-D tensor the tile has one index of). Each kernel gets the list of maps it
// takes, after its other parameters, as `tile.tensor_maps`; each copy the index
// of its map as `tile.tma_map`. Copies of one tensor with one box share a map.
// A kernel's copy without TMA (tile-clone-fallbacks) stays only where the
// kernel takes tensor maps; the kernel then names it in `tile.fallback`.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Layout/TmaBox.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <map>
#include <tuple>

namespace tile {
#define GEN_PASS_DEF_TILEASSIGNTENSORMAPS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// The kernel parameter \p copy reads (tile-pipeline only makes TMA copies
/// of views of a parameter), or -1.
int64_t sourceParameter(tile::CopyAsyncOp copy) {
  auto view = copy.getSrc().getDefiningOp<tile::ViewOp>();
  auto arg = view ? dyn_cast<BlockArgument>(view.getPtr()) : BlockArgument();
  return arg ? int64_t(arg.getArgNumber()) : -1;
}

LogicalResult assignMaps(func::FuncOp func) {
  Builder b(func.getContext());
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int64_t> indices;
  SmallVector<Attribute> maps;
  WalkResult walk = func.walk([&](tile::CopyAsyncOp copy) -> WalkResult {
    if (!copy.isTensorCopy())
      return WalkResult::advance();
    auto type = cast<tile::SharedType>(copy.getDst().getType());
    auto layout = dyn_cast_or_null<tile::SharedLayoutAttr>(type.getEncoding());
    int64_t param = sourceParameter(copy);
    if (!layout || param < 0)
      return copy.emitOpError("internal error: a TMA copy needs a kernel "
                              "parameter's view and an allocated "
                              "destination (run tile-allocate-shared first)");
    llvm::Expected<::tile::layout::TmaBoxPlan> plan =
        ::tile::layout::planTmaBoxes(
            layout.getLayout(),
            tile::detail::elementBits(type.getElementType()));
    if (!plan)
      return copy.emitOpError("internal error: TMA cannot write the "
                              "destination's layout: ")
             << llvm::toString(plan.takeError());
    auto offset = copy.getDst().getDefiningOp()->getAttrOfType<IntegerAttr>(
        "tile.offset");
    if (offset && offset.getInt() % plan->alignment != 0)
      return copy.emitOpError("internal error: the destination at byte ")
             << offset.getInt() << " is not aligned to its TMA swizzle ("
             << plan->alignment << " bytes)";
    auto key = std::make_tuple(param, plan->boxRows, plan->boxCols,
                               int64_t(plan->swizzleBytes));
    auto [it, added] = indices.try_emplace(key, int64_t(maps.size()));
    if (added) {
      // One extent per dimension of the tensor, outermost first: 1 for
      // those the tile has one index of.
      auto view = cast<tile::ViewType>(copy.getSrc().getType());
      SmallVector<int64_t> box(view.getRank() - 2, 1);
      box.append({plan->boxRows, plan->boxCols});
      maps.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("param", b.getI64IntegerAttr(param)),
           b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
           b.getNamedAttr("swizzle",
                          b.getI64IntegerAttr(plan->swizzleBytes))}));
    }
    copy->setAttr(tile::TileDialect::kTmaMapAttr,
                  b.getI64IntegerAttr(it->second));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!maps.empty())
    func->setAttr(tile::TileDialect::kTensorMapsAttr, b.getArrayAttr(maps));
  return success();
}

/// Keeps the copies without TMA (tile-clone-fallbacks) of the kernels that
/// take tensor maps, each named by its kernel's `tile.fallback`, and
/// erases the others.
void keepNeededFallbacks(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> unneeded;
  for (auto copy : module.getOps<func::FuncOp>()) {
    auto of = copy->getAttrOfType<FlatSymbolRefAttr>(
        tile::TileDialect::kFallbackOfAttr);
    if (!of)
      continue;
    auto kernel = symbols.lookup<func::FuncOp>(of.getValue());
    if (kernel && kernel->hasAttr(tile::TileDialect::kTensorMapsAttr))
      kernel->setAttr(tile::TileDialect::kFallbackAttr,
                      FlatSymbolRefAttr::get(copy.getSymNameAttr()));
    else
      unneeded.push_back(copy);
  }
  for (func::FuncOp copy : unneeded)
    copy.erase();
}

struct AssignTensorMapsPass
    : public tile::impl::TileAssignTensorMapsBase<AssignTensorMapsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(tile::TileDialect::kKernelAttr) &&
          failed(assignMaps(func)))
        return signalPassFailure();
    keepNeededFallbacks(getOperation());
  }
};

} // namespace
