//===- Lowering.h - Shared helpers of the host lowering ---------*- C++ -*-===//
//
// Part of tilec. Private to lib/Codegen/Host: what the tile-host-lower-tile
// pass (LowerTile.cpp) shares with its memory and cast patterns
// (LowerTileMemory.cpp, LowerTileCasts.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CODEGEN_HOST_LOWERING_H
#define TILE_LIB_CODEGEN_HOST_LOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cstdint>

namespace mlir {
class OpBuilder;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace tile {
namespace host {

/// Name of the lib/Numerics C function the generated code calls for casts:
/// uint32_t tile_num_convert(uint32_t code, uint32_t fromId, uint32_t toId).
inline constexpr const char *kConvertFn = "tile_num_convert";

/// The storage type of an element on the host: small floats (builtin 4/6/8
/// bit floats and !tile.float) become integers of their width; every other
/// type is unchanged.
mlir::Type getStorageType(mlir::Type elementType);

/// The lib/Numerics format id (include/tile/Numerics/CAPI.h) of an element
/// type; integers are read as unsigned when \p isUnsigned. Fails for types
/// the language has no format for (f64, index, ...).
mlir::FailureOr<uint32_t> getFormatId(mlir::Type elementType, bool isUnsigned);

/// Converts the scalar \p value (of the storage type of \p srcType) to
/// \p dstType with the language's cast() rules; returns a value of the
/// storage type of \p dstType. Uses pure arith where it is provably the
/// same as lib/Numerics (integer widening and clamping, exact decoding to
/// f32, rounding f32 to f16/bf16), otherwise calls kConvertFn. Both types
/// must have a format (getFormatId).
mlir::Value emitScalarCast(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, mlir::Type srcType,
                           mlir::Type dstType, bool srcUnsigned,
                           bool dstUnsigned);

/// The base of the host patterns: an op conversion with the tile type of a
/// value converted to its builtin tensor.
template <typename OpTy>
struct HostPattern : public mlir::OpConversionPattern<OpTy> {
  using mlir::OpConversionPattern<OpTy>::OpConversionPattern;

  mlir::RankedTensorType convertTile(mlir::Type type) const {
    return mlir::dyn_cast_or_null<mlir::RankedTensorType>(
        this->getTypeConverter()->convertType(type));
  }
};

/// Adds the patterns of global and shared memory, asynchronous copies,
/// waits and barriers (LowerTileMemory.cpp).
void populateMemoryPatterns(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);

/// Defines the functions the memory patterns call (the read-modify-write of
/// a byte of sub-byte elements) in \p module, before the conversion.
void defineMemoryHelpers(mlir::ModuleOp module);
/// Erases those of them nothing calls, after the conversion.
void eraseUnusedMemoryHelpers(mlir::ModuleOp module);

/// Adds the patterns for tile.cast and tile.bitcast.
void populateCastPatterns(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);

} // namespace host
} // namespace tile

#endif // TILE_LIB_CODEGEN_HOST_LOWERING_H
