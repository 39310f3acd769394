//===- DropLayouts.cpp - tile-host-drop-layouts ---------------------------===//
//
// Part of tilec. On the host one program runs in one thread, so register
// layouts mean nothing there: this pass removes every #tile.layout encoding
// from tensor types (values, block arguments, function signatures, dense
// constants) and then every tile.convert_layout, which has become an
// identity. It runs first in the host pipeline, so that the later passes
// and upstream conversions only see builtin tensors without encodings.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace tile {
#define GEN_PASS_DEF_TILEHOSTDROPLAYOUTS
#include "tile/Codegen/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace ::tile;

namespace {

/// \p type without a register layout encoding (other types unchanged).
Type dropLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa_and_nonnull<LayoutAttr>(tensor.getEncoding()))
    return type;
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

SmallVector<Type> dropLayouts(TypeRange types) {
  SmallVector<Type> result;
  for (Type type : types)
    result.push_back(dropLayout(type));
  return result;
}

struct DropLayoutsPass
    : public tile::impl::TileHostDropLayoutsBase<DropLayoutsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ConvertLayoutOp> conversions;
    module.walk([&](Operation *op) {
      for (Region &region : op->getRegions()) {
        for (Block &block : region) {
          for (BlockArgument arg : block.getArguments())
            arg.setType(dropLayout(arg.getType()));
        }
      }
      for (OpResult result : op->getResults())
        result.setType(dropLayout(result.getType()));
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (dense && dense.getType() != constant.getType()) {
          constant.setValueAttr(
              dense.reshape(cast<ShapedType>(constant.getType())));
        }
      }
      if (auto function = dyn_cast<FunctionOpInterface>(op)) {
        auto type = dyn_cast<FunctionType>(function.getFunctionType());
        if (type) {
          function.setType(FunctionType::get(op->getContext(),
                                             dropLayouts(type.getInputs()),
                                             dropLayouts(type.getResults())));
        }
      }
      if (auto convert = dyn_cast<ConvertLayoutOp>(op))
        conversions.push_back(convert);
    });
    for (ConvertLayoutOp convert : conversions) {
      convert.getResult().replaceAllUsesWith(convert.getSrc());
      convert.erase();
    }
  }
};

} // namespace
