//===- Npy.h - NumPy .npy files ----------------------------------*- C++
//-*-===//
//
// Part of tilec. Tensors are exchanged as .npy (format 1.0 written; 1.0 to
// 3.0 read, C order only). Element types without a NumPy equivalent
// (sub-byte integers, small floats, bf16, e8m0) are stored unpacked, one
// integer code per element ('|u1' up to 8 bits, '<u2' up to 16, '<u4'
// above); f32 is '<f4', f16 '<f2', u8/i8/u16/i16/u32/i32 their NumPy types.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_NPY_H
#define TILE_RUNTIME_NPY_H

#include "tile/runtime/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace rt {

/// The contents of a .npy file.
struct NpyArray {
  std::string Descr;          ///< NumPy type string, e.g. "<f4", "|u1".
  std::vector<int64_t> Shape; ///< Extents (empty for a 0-d array).
  std::vector<uint8_t> Data;  ///< Little-endian elements, C order.

  /// Product of the extents.
  uint64_t numElements() const;
  /// Bytes per element of Descr (0 when Descr is not understood).
  unsigned elementBytes() const;
};

/// Reads a .npy file; errors name the file and what is wrong.
Expected<NpyArray> readNpy(const std::string &Path);
/// Writes \p A as a version 1.0 .npy file.
Error writeNpy(const std::string &Path, const NpyArray &A);

/// The NumPy type string used for tensors of \p DType ("u4" -> "|u1").
Expected<std::string> npyDescr(std::string_view DType);

/// Unpacks a dense bit stream of \p DType with \p Shape into an array.
Expected<NpyArray> toNpy(std::string_view DType,
                         const std::vector<int64_t> &Shape,
                         const std::vector<uint8_t> &Packed);

/// Packs \p A into the dense bit stream of \p DType. \p A must have
/// \p Shape. Its Descr must be npyDescr(DType) (or the same-width integer
/// of the other signedness); every code must fit the format, and float
/// arrays ('<f4', '<f8', '<f2') are also accepted for float formats and
/// rounded with lib/Numerics.
Expected<std::vector<uint8_t>> fromNpy(const NpyArray &A,
                                       std::string_view DType,
                                       const std::vector<int64_t> &Shape);

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_NPY_H
