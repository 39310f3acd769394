//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Part of tilec. Declares the tile dialect, its types, attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tile/Layout/DistributedLayout.h"
#include "tile/Layout/SharedLayout.h"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

namespace tile {

/// Side-effect resource for global memory.
struct GlobalMemoryResource
    : public mlir::SideEffects::Resource::Base<GlobalMemoryResource> {
  llvm::StringRef getName() final { return "<tile.global>"; }
};

/// Side-effect resource for shared memory (LDS on AMD).
struct SharedMemoryResource
    : public mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "<tile.shared>"; }
};

/// Returns the width in bits of a tile element type (integers, floats,
/// !tile.float), or 0 for types that are not tile element types.
unsigned getElementBitWidth(mlir::Type type);

/// Returns true if `type` may be the element type of a tile or global tensor.
bool isTileElementType(mlir::Type type);

/// Returns true for floating-point types narrower than 16 bits: the builtin
/// 4/6/8-bit floats and !tile.float (storage formats).
bool isSmallFloatType(mlir::Type type);

} // namespace tile

#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
