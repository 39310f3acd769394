//===- ScalarCodes.h - Arith builders for tile number formats ---*- C++ -*-===//
//
// Part of tilec. Encodings of scalar values into tile's number formats,
// built from arith ops, that the host and the GPU lowerings share (both
// emit arith before their conversion to the LLVM dialect). Each one is
// bit-exact with lib/Numerics, which the tests hold them to.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_UTILS_SCALARCODES_H
#define TILE_DIALECT_TILE_UTILS_SCALARCODES_H

#include "mlir/IR/Builders.h"

namespace tile {

/// Encodes f32 `value` into e8m0 (an i8 code) as lib/Numerics does: the
/// power of two 2^k nearest to the value with ties to the larger scale,
/// values below 2^-127 (and +-0) give 0, values past 2^127 (and +inf)
/// saturate to 0xFE, NaN and negative values give NaN (0xFF).
mlir::Value buildE8M0FromF32(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value value);

/// Converts an integer `value` (signed or not, at most 64 bits) to the f32
/// nearest it rounded to odd: truncated to 24 significant bits, the last
/// one set when any bit was dropped. One more rounding of the result to a
/// format of at most 22 significant bits (bf16, small floats, e8m0) equals
/// the single rounding of the integer, which a rounding to nearest f32
/// first would not guarantee.
mlir::Value buildIntToF32RoundOdd(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value value, bool isUnsigned);

} // namespace tile

#endif // TILE_DIALECT_TILE_UTILS_SCALARCODES_H
