//===- Pack.h - Dense bit-stream packing of element codes -------*- C++ -*-===//
//
// Part of tilec. Storage order of every tensor whose element width is not a
// whole number of bytes (DESIGN.md section 5): the tensor is ONE dense bit
// stream in row-major order; element i (the row-major linear index) occupies
// bits [i*b, (i+1)*b) of the stream, and bit j of the stream is bit (j % 8)
// of byte j / 8 (LSB first). Rows are not padded to byte boundaries. The
// unused high bits of the last byte are zero. For b = 8, 16, 32 this is the
// ordinary little-endian array layout.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_PACK_H
#define TILE_NUMERICS_PACK_H

#include "tile/Numerics/Result.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tile {
namespace numerics {

/// Bytes needed for \p NumElements codes of \p Bits bits: ceil(n * b / 8).
inline size_t packedSizeBytes(size_t NumElements, unsigned Bits) {
  return (NumElements * Bits + 7) / 8;
}

/// Packs \p N codes of \p Bits bits (1..32) into \p Out, which must hold
/// packedSizeBytes(N, Bits) bytes. Bits of a code above \p Bits are ignored.
/// Fails (without writing) when Bits is out of range.
Status packBits(const uint32_t *Codes, size_t N, unsigned Bits, uint8_t *Out);
/// packBits() for byte-sized codes; Bits must be 1..8.
Status packBits(const uint8_t *Codes, size_t N, unsigned Bits, uint8_t *Out);

/// Unpacks \p N codes of \p Bits bits (1..32) from \p In, which must hold
/// packedSizeBytes(N, Bits) bytes.
Status unpackBits(const uint8_t *In, size_t N, unsigned Bits, uint32_t *Out);
/// unpackBits() into bytes; Bits must be 1..8.
Status unpackBits(const uint8_t *In, size_t N, unsigned Bits, uint8_t *Out);

/// Packs a vector of codes into a new byte vector.
Result<std::vector<uint8_t>> pack(const std::vector<uint32_t> &Codes,
                                  unsigned Bits);
/// Unpacks \p N codes; fails when \p Bytes is shorter than the stream.
Result<std::vector<uint32_t>> unpack(const std::vector<uint8_t> &Bytes,
                                     size_t N, unsigned Bits);

/// Packs a row-major [Rows, Cols] tensor of codes as one dense stream (rows
/// are NOT byte aligned: element (r, c) is at bit (r * Cols + c) * Bits).
/// Fails when Codes.size() != Rows * Cols or Bits is out of range.
Result<std::vector<uint8_t>> pack2D(const std::vector<uint32_t> &Codes,
                                    size_t Rows, size_t Cols, unsigned Bits);
/// Inverse of pack2D(); fails when \p Bytes is too short.
Result<std::vector<uint32_t>> unpack2D(const std::vector<uint8_t> &Bytes,
                                       size_t Rows, size_t Cols, unsigned Bits);

/// Reads element \p Index of a packed stream (Bits in 1..32, not checked).
uint32_t readPacked(const uint8_t *In, size_t Index, unsigned Bits);
/// Writes element \p Index of a packed stream, leaving the other bits alone.
void writePacked(uint8_t *Out, size_t Index, unsigned Bits, uint32_t Code);

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_PACK_H
