//===- Common.h - Helpers shared by the tile passes -------------*- C++ -*-===//
//
// Part of tilec. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TRANSFORMS_COMMON_H
#define TILE_LIB_TRANSFORMS_COMMON_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Layout/SharedLayout.h"
#include "tile/Target/TargetInfo.h"
#include "tile/Transforms/LayoutChoice.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace tile::detail {

/// The distributed layout of a tensor type's encoding, if it has one.
inline std::optional<::tile::layout::DistributedLayout>
getLayout(mlir::Type type) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  if (auto attr = mlir::dyn_cast_or_null<LayoutAttr>(tensor.getEncoding()))
    return attr.getLayout();
  return std::nullopt;
}

/// \p type with its encoding replaced by \p layout.
inline mlir::RankedTensorType
withLayout(mlir::RankedTensorType type,
           const ::tile::layout::DistributedLayout &l) {
  return mlir::RankedTensorType::get(type.getShape(), type.getElementType(),
                                     LayoutAttr::get(type.getContext(), l));
}

/// Whether \p func is a tile kernel.
inline bool isKernel(mlir::func::FuncOp fn) {
  return fn->hasAttr(TileDialect::kKernelAttr);
}

/// Looks up the target named by a pass option; emits an error on \p op and
/// returns std::nullopt for unknown names.
inline std::optional<::tile::TargetInfo> lookupTarget(mlir::Operation *op,
                                                      mlir::StringRef name) {
  std::optional<::tile::TargetInfo> info = ::tile::TargetInfo::lookup(name);
  if (!info)
    op->emitError() << "unknown target '" << name << "'";
  return info;
}

/// Element width in bits of a tensor's element type (at least 1).
inline unsigned elementBits(mlir::Type type) {
  if (auto shaped = mlir::dyn_cast<mlir::ShapedType>(type))
    type = shaped.getElementType();
  unsigned bits = getElementBitWidth(type);
  return bits == 0 ? 32 : bits;
}

/// Whether \p dot fits the warpgroup instruction on \p target
/// (fitsWarpgroupMma, with its kernel's warps): B read through a transpose
/// (`bTransposed`, stored N x K), a chained product (`chained`).
inline bool dotFitsWarpgroupMma(DotOp dot, const ::tile::TargetInfo &target,
                                bool bTransposed, bool chained) {
  auto func = dot->getParentOfType<mlir::func::FuncOp>();
  auto warps =
      func ? func->getAttrOfType<mlir::IntegerAttr>(TileDialect::kWarpsAttr)
           : mlir::IntegerAttr();
  auto a = mlir::cast<mlir::RankedTensorType>(dot.getA().getType());
  auto c = mlir::cast<mlir::RankedTensorType>(dot.getAcc().getType());
  mlir::Type elem = a.getElementType();
  return warps && a.getRank() == 2 && c.getRank() == 2 &&
         ::tile::layout::fitsWarpgroupMma(
             c.getDimSize(0), c.getDimSize(1), a.getDimSize(1), elementBits(a),
             mlir::isa<mlir::FloatType>(elem),
             c.getElementType().isF32() || c.getElementType().isInteger(32),
             warps.getInt(), target, bTransposed,
             mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(elem),
             chained);
}

/// Whether a tile.shared_load (tile.shared_store) of a row-major buffer can
/// produce (take) \p type: every thread must hold its sub-byte elements in
/// whole bytes (the lowering cannot move elements of one byte spread over
/// several threads).
inline bool isSharedReadable(mlir::Type type) {
  unsigned bits = elementBits(type);
  if (bits % 8 == 0)
    return true;
  std::optional<::tile::layout::DistributedLayout> layout = getLayout(type);
  if (!layout)
    return true;
  auto smem = ::tile::layout::SharedLayout::rowMajor(layout->shape());
  return ::tile::layout::maxVectorWidth(*layout, smem, bits) != 0;
}

/// The tile.convert_layout that tile-stage-converted-operands replaces by a
/// buffer the threads write and \p dot reads (StageConvertedOperands.cpp):
/// \p operand's, when \p operand is a 16-bit rank-2 convert_layout result
/// inside a loop, used by \p dot alone in the same block, that goes through
/// shared memory and whose source is not read from shared memory already;
/// otherwise null.
tile::ConvertLayoutOp
stagedOperandConversion(tile::DotOp dot, mlir::Value operand, int64_t warpSize);

} // namespace tile::detail

#endif // TILE_LIB_TRANSFORMS_COMMON_H
