//===- BlockScaled.h - MX and NVFP4 block-scaled formats --------*- C++ -*-===//
//
// Part of tilec. Block-scaled tensors (docs/Numerics.md, "Block-scaled
// formats"):
//   MXFP4 (e2m1), MXFP6 (e2m3 | e3m2), MXFP8 (e4m3 | e5m2): 32 consecutive
//     elements share an e8m0 scale X = 2^shared_exp with
//     shared_exp = floor(log2(amax)) - emax_elem (OCP MX v1.0, section 6.3).
//   NVFP4: 16 consecutive e2m1 elements share an f8e4m3 scale, and the
//     tensor shares one f32 scale (NVIDIA's two-level recipe).
// Blocks run along the last (contiguous) dimension of a [Rows, Cols] tensor;
// a row whose length is not a multiple of the block size ends in a partial
// block.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_BLOCKSCALED_H
#define TILE_NUMERICS_BLOCKSCALED_H

#include "tile/Numerics/Format.h"

#include <cstddef>
#include <vector>

namespace tile {
namespace numerics {

/// The block-scaled schemes.
enum class BlockScheme : uint8_t {
  MXFP4,
  MXFP6E2M3,
  MXFP6E3M2,
  MXFP8E4M3,
  MXFP8E5M2,
  NVFP4,
};

/// Elements per shared scale: 32 for MX, 16 for NVFP4.
unsigned blockSize(BlockScheme S);
/// The element format (f4e2m1, f6e2m3, ...).
Format blockElementFormat(BlockScheme S);
/// The scale format: e8m0 for MX, f8e4m3 for NVFP4.
Format blockScaleFormat(BlockScheme S);
/// "mxfp4", "mxfp6e2m3", ..., "nvfp4".
const char *blockSchemeName(BlockScheme S);

/// A quantized [Rows, Cols] tensor.
struct BlockScaledTensor {
  BlockScheme Scheme = BlockScheme::MXFP4;
  size_t Rows = 0;
  size_t Cols = 0;
  /// One element code per element, row-major [Rows, Cols] (unpacked: use
  /// pack() for the dense stream).
  std::vector<uint8_t> Codes;
  /// One scale code per block, row-major [Rows, ceil(Cols / blockSize)].
  std::vector<uint8_t> Scales;
  /// NVFP4's per-tensor f32 decode scale (1 for MX schemes).
  float TensorScale = 1.0f;
};

/// Quantizes a row-major [Rows, Cols] f32 tensor. Fails on an empty shape
/// mismatch (Data.size() != Rows * Cols).
Result<BlockScaledTensor> quantizeBlockScaled(BlockScheme S,
                                              const std::vector<float> &Data,
                                              size_t Rows, size_t Cols);

/// NVIDIA's tensor scale S_enc = 448 * 6 / amax (over the finite values;
/// 1 when that is 0, or when the quotient is inf or 0), in f32.
float nvfp4TensorEncodeScale(const std::vector<float> &Data);

/// NVFP4 with a given tensor scale \p SEnc (quantizeBlockScaled uses
/// nvfp4TensorEncodeScale(Data)); TensorScale is 1 / SEnc.
Result<BlockScaledTensor> quantizeNVFP4(const std::vector<float> &Data,
                                        size_t Rows, size_t Cols, float SEnc);

/// value = decode(elem) * decode(scale) [* TensorScale for NVFP4], computed
/// in double and rounded once to f32.
std::vector<float> dequantizeBlockScaled(const BlockScaledTensor &T);

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_BLOCKSCALED_H
