//===- WgmmaOperand.h - Shared-memory operands of Hopper wgmma --*- C++ -*-===//
//
// Part of tilec. wgmma.mma_async (sm_90a) reads its B operand, and here also
// its A operand, from shared memory through a 64-bit matrix descriptor: a
// start address, two byte strides (leading / stride dimension byte offsets,
// LBO / SBO) and a swizzle mode, describing one of the PTX ISA's canonical
// layouts ("Shared Memory Matrix Layout", "Matrix Descriptor Format"). This
// file encodes descriptors and decides whether a tile's SharedLayout is such
// a canonical layout, and with which strides. See docs/Layouts.md.
//
// The canonical layouts, in bytes, for an operand tile of MN x K elements of
// E bytes (MN = M for A, N for B), T = 16 / E elements per 16-byte chunk:
//  K-major (K contiguous), swizzle width W in {32, 64, 128}:
//    (mn, k) -> start + (mn % 8) * W + (mn / 8) * SBO + k * E
//  MN-major (MN contiguous), swizzle width W:
//    (mn, k) -> start + (mn % (W/E)) * E + (mn / (W/E)) * LBO
//               + (k % 8) * W + (k / 8) * SBO
//  then, for a swizzle width W, address bits [4, 4 + log2(W/16)) are XORed
//  with bits [7, 7 + log2(W/16)) of the whole shared-memory address (so a
//  swizzle pattern repeats every 8 * W bytes, and buffers are aligned to
//  that). The interleaved (unswizzled) modes use 8 x 16-byte core matrices
//  and are not produced by tilec: row-major tiles are never in that form.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_WGMMAOPERAND_H
#define TILE_LAYOUT_WGMMAOPERAND_H

#include "tile/Layout/SharedLayout.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tile::layout {

/// The swizzle field of a wgmma descriptor (bits 62-63).
enum class WgmmaSwizzle : unsigned { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// Bytes of one swizzled row (32, 64, 128); 16 for None.
unsigned wgmmaSwizzleBytes(WgmmaSwizzle mode);

/// The fields of a wgmma matrix descriptor, in bytes (the encoding keeps
/// bits 4-17 of each address and offset).
struct WgmmaDescriptor {
  uint32_t startAddress = 0;      ///< Shared-memory address of element (0, 0).
  uint32_t leadingByteOffset = 0; ///< LBO.
  uint32_t strideByteOffset = 0;  ///< SBO.
  unsigned baseOffset = 0;        ///< 3 bits; 0 for aligned patterns.
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;

  /// The 64-bit descriptor: start >> 4 in bits 0-13, LBO >> 4 in 16-29,
  /// SBO >> 4 in 32-45, base offset in 49-51, swizzle in 62-63.
  uint64_t encode() const;
  static WgmmaDescriptor decode(uint64_t bits);
};

/// How one operand tile of a wgmma is laid out in shared memory.
struct WgmmaOperandLayout {
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;
  bool mnMajor = false; ///< The MN index is contiguous (imm-trans = 1).
  uint32_t leadingByteOffset = 0, strideByteOffset = 0;
  /// Bytes between the tiles of consecutive k16 slices (K-major: within
  /// one swizzled row; MN-major: 16 rows down).
  int64_t kSliceBytes = 0;
  /// Bytes between consecutive instruction tiles along MN (64 rows of A,
  /// N columns of B).
  int64_t mnBlockBytes = 0;
  /// A K-major tile (A, or B stored N x K) wider than one swizzle row is
  /// stored as blocks of W-byte columns (wgmmaRowMajorLayout), kBlockBytes
  /// apart, each kSlicesPerBlock k16 slices wide; 0 when there is one block.
  int64_t kSlicesPerBlock = 0, kBlockBytes = 0;
  /// Alignment the buffer's shared-memory address needs (8 * W).
  int64_t alignment = 0;

  /// Bytes from the tile's origin to the start of k16 slice `ks`.
  int64_t kSliceOffset(int64_t ks) const {
    if (kSlicesPerBlock == 0)
      return ks * kSliceBytes;
    return (ks % kSlicesPerBlock) * kSliceBytes +
           (ks / kSlicesPerBlock) * kBlockBytes;
  }
};

/// The row-major layout of a 2-D tile whose rows are `rowBytes` = 32, 64 or
/// 128 bytes, with the hardware swizzle of that width applied (CuTe's
/// Swizzle<log2(W/16), log2(16/E), 3> on element offsets). A tile of
/// 2^r rows of 2^j x 128 bytes (j >= 1) is stored column-blocked: 2^j
/// row-major blocks of 128-byte rows one after the other (Swizzle's column
/// blocking), each with the 128-byte swizzle - the canonical form of a B
/// operand N > 64 wide (the blocks LBO apart) and of an A operand with
/// K > 64 (one block per four k16 slices). Fails for other row widths and
/// element sizes other than 1, 2 or 4 bytes.
llvm::Expected<SharedLayout> wgmmaRowMajorLayout(llvm::ArrayRef<int64_t> shape,
                                                 unsigned elemBits);

/// Whether the 2-D tile `smem` (rows x columns, the buffer of one operand)
/// can feed wgmma tiles of `mnTile` x 16 elements (A: 64 x 16 slices, the
/// tile being M x K; B: 16 x `mnTile` slices, the tile K x N), and how.
/// `isA` selects A (rows = M, K-major when columns are contiguous) or B
/// (rows = K, MN-major when columns are contiguous). With `transposed`, the
/// buffer holds B as N x K (rows = N, K-major: the layout of a linear
/// layer's weight; one instruction covers all N rows). Only the forms
/// wgmmaRowMajorLayout produces are accepted; the error says why not.
llvm::Expected<WgmmaOperandLayout> matchWgmmaOperand(const SharedLayout &smem,
                                                     unsigned elemBits,
                                                     bool isA, int64_t mnTile,
                                                     bool transposed = false);

/// The shared-memory address of element (mn, k) of the canonical layout
/// `layout` whose descriptor starts at `start` (the formulas above: the
/// unswizzled address, then the swizzle on the whole address). The
/// reference the unit tests hold wgmmaRowMajorLayout against.
int64_t wgmmaCanonicalAddress(const WgmmaOperandLayout &layout,
                              unsigned elemBytes, int64_t start, int64_t mn,
                              int64_t k);

} // namespace tile::layout

#endif // TILE_LAYOUT_WGMMAOPERAND_H
