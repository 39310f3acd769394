//===- WeightQuant.h - Per-channel / per-group weight quantization -*- C++ -*-//
//
// Part of tilec. Quantizes a row-major [K, N] weight for the weight-only
// GEMM of examples/gemm_wq.tile, whose dequantization is
//
//   W'[k, n] = (cast(f16, W[k, n]) - Z[k / G, n]) * S[k / G, n]
//
// with a group size G along K (per-channel: G = K), codes W in any integer
// or small-float format, S and Z stored as f16 (or f32). Z is in the units
// of the code values (decode(W)), so for u4 a symmetric scheme has Z = 8.
// See docs/Numerics.md, "Weight quantization".
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_WEIGHTQUANT_H
#define TILE_NUMERICS_WEIGHTQUANT_H

#include "tile/Numerics/Format.h"

#include <cstddef>
#include <vector>

namespace tile {
namespace numerics {

/// The storage type of scales and zero points.
enum class ScaleType : uint8_t { F16, F32 };

/// How to quantize.
struct WeightQuantOptions {
  /// The code format: any uN / iN (N >= 2 for symmetric) or fNeXmY.
  Format CodeFormat = *Format::integer(false, 4);
  /// Group size along K; 0 means per-channel (one group of K rows).
  size_t GroupSize = 0;
  /// Symmetric (fixed zero point) or asymmetric (min/max zero points).
  bool Symmetric = true;
  /// Storage of S and Z.
  ScaleType Scales = ScaleType::F16;
};

/// Error of dequantize(quantize(W)) against W.
struct QuantError {
  double MaxAbs = 0;
  double MeanAbs = 0;
};

/// A quantized [K, N] weight.
struct QuantizedWeights {
  Format CodeFormat;
  size_t K = 0, N = 0;
  size_t GroupSize = 0; ///< The effective G (K for per-channel).
  size_t NumGroups = 0; ///< K / G.
  ScaleType Scales = ScaleType::F16;
  /// Codes, row-major [K, N] (pack() them for the dense stream).
  std::vector<uint32_t> Codes;
  /// S and Z, row-major [NumGroups, N], exact values of the storage type.
  std::vector<float> Scale;
  std::vector<float> Zero;
  /// Error of dequantizeWeights() against the input.
  QuantError Error;
};

/// Quantizes a row-major [K, N] weight. Fails on a shape mismatch, a group
/// size that does not divide K, a non-finite weight, or a format that
/// cannot be used (e8m0, f16, bf16, f32; u1 / i1 when symmetric).
Result<QuantizedWeights> quantizeWeights(const std::vector<float> &W, size_t K,
                                         size_t N,
                                         const WeightQuantOptions &Opts);

/// Evaluates the dequantization formula as the kernel does: with f16
/// scales, cast(f16, code), the subtraction and the product are each
/// rounded to f16; with f32 scales they are f32 operations.
std::vector<float> dequantizeWeights(const QuantizedWeights &Q);

/// The f16 bit patterns of values already representable in f16 (scales,
/// zero points), ready to upload.
std::vector<uint16_t> toF16Bits(const std::vector<float> &Values);

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_WEIGHTQUANT_H
