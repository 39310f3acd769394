//===- MmaAtoms.h - Matrix instruction operand layouts ----------*- C++ -*-===//
//
// Part of tilec. The register layouts of matrix-multiply and matrix-load
// instructions, as distributed layouts over one warp (NVIDIA, 32 lanes) or
// one wavefront (AMD CDNA, 64 lanes). A tile layout can use an instruction
// iff it divides by the instruction's layout (DistributedLayout::divideRight).
// Operand tiles: A is M x K, B is K x N, C/D is M x N (row, column).
// Slot order is the order of the instruction's register operands (for 16-bit
// elements two slots share one 32-bit register, low half first).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_MMAATOMS_H
#define TILE_LAYOUT_MMAATOMS_H

#include "tile/Layout/DistributedLayout.h"

#include "llvm/Support/Error.h"

namespace tile::layout {

enum class MmaOperand { A, B, C };

/// NVIDIA mma.sync.aligned.m16n8k16 with f16/bf16 A and B and an f32 (or
/// f16) accumulator: A 16x16 (8 slots), B 16x8 (4 slots), C 16x8 (4 slots).
DistributedLayout nvidiaMmaM16N8K16(MmaOperand operand);

/// NVIDIA mma.sync.aligned.m16n8k32 with s8/u8 A and B and an s32
/// accumulator: A 16x32 (16 slots), B 32x8 (8 slots), C 16x8 (4 slots).
DistributedLayout nvidiaMmaM16N8K32Int8(MmaOperand operand);

/// NVIDIA wgmma.mma_async.sync.aligned.m64n{N}k16 with an f32 accumulator:
/// the accumulator D (64 x N, N a multiple of 8 up to 256) over the 128
/// threads of a warpgroup, N / 2 slots per thread. Warp w of the group holds
/// rows 16w .. 16w + 15; within a warp each 8-column block is an mma.sync
/// m16n8 accumulator, the blocks in column order. (A and B are read from
/// shared memory through descriptors: WgmmaOperand.h.)
llvm::Expected<DistributedLayout> nvidiaWgmmaAccumulator(unsigned n);

/// NVIDIA ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: the
/// destination layout of `numMatrices` 8x8 matrices of 16-bit elements
/// arranged as a (matrixRows*8) x (numMatrices/matrixRows*8) tile, matrix j
/// at block (j % matrixRows, j / matrixRows) (column-major blocks, as the
/// mma A operand wants). Slots 2j and 2j+1 are the two halves of register j.
/// Without .trans thread t gets row t/4, columns 2*(t%4)+{0,1} of each
/// matrix; with .trans, rows 2*(t%4)+{0,1} of column t/4.
llvm::Expected<DistributedLayout>
nvidiaLdmatrix(unsigned numMatrices, bool trans, unsigned matrixRows = 1);

/// AMD CDNA v_mfma_f32_{M}x{N}x{K}_{f16,bf16} on wave64 for the shapes
/// 16x16x16, 32x32x8 (CDNA1-3) and 16x16x32, 32x32x16 (gfx950).
/// A is M x K, B is K x N, C is M x N (4 or 16 f32 slots).
llvm::Expected<DistributedLayout> amdMfma(unsigned m, unsigned n, unsigned k,
                                          MmaOperand operand);

/// AMD CDNA v_mfma_i32_{M}x{N}x{K}_i8 on wave64 (signed 8-bit A and B, i32
/// accumulator) for the shapes 16x16x32, 32x32x16 (CDNA3) and 16x16x64,
/// 32x32x32 (gfx950). A lane's K/(64/M) bytes of A (or B) are packed into
/// one 64-bit (128-bit on the gfx950 shapes) register operand, byte i in
/// bits [8i, 8i+8). C is M x N with 4 or 16 i32 slots, laid out as for
/// amdMfma.
llvm::Expected<DistributedLayout> amdMfmaInt8(unsigned m, unsigned n,
                                              unsigned k, MmaOperand operand);

} // namespace tile::layout

#endif // TILE_LAYOUT_MMAATOMS_H
