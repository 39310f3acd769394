//===- NvEmuWarp.h - Warp-collective semantics of the emulator --*- C++ -*-===//
//
// Part of tilec. Internal to runtime/lib: what shfl.sync, ldmatrix and
// mma.sync compute once every lane's operands are known, written from the
// PTX ISA's definitions (independently of tilec's code generator, which the
// emulator is meant to check). Pure functions: the scheduler in
// NvEmuBackend.cpp gathers the operands and scatters the results.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_NVEMUWARP_H
#define TILE_RUNTIME_LIB_NVEMUWARP_H

#include <cstdint>

namespace tile {
namespace rt {
namespace nvemu {

constexpr unsigned WarpSize = 32;

/// shfl.sync: the lane that lane \p Lane reads in mode \p Mode
/// (tile_emu_shfl_mode) with operands \p B and \p C; \p InRange receives
/// the PTX predicate. Out of range, the lane reads itself.
unsigned shflSourceLane(uint32_t Mode, unsigned Lane, uint32_t B, uint32_t C,
                        bool &InRange);

/// Register counts and a name of a tile_emu_mma_kind.
struct MmaKindInfo {
  unsigned M, N, K;
  unsigned ARegs, BRegs, CRegs, DRegs;
  const char *Name; ///< The PTX instruction ("mma.sync.aligned.m16n8k16...").
};
/// The description of \p Kind, or null for an unknown kind.
const MmaKindInfo *mmaKindInfo(uint32_t Kind);

/// mma.sync of \p Kind (valid) for a whole warp: lane l's fragments are
/// A[l][0..ARegs), B[l][0..BRegs), C[l][0..CRegs); D[l][0..DRegs) receives
/// its result. Floating-point products are summed in double (exact
/// products, one final rounding to the accumulator type, ties to even);
/// s8 sums are exact and wrap modulo 2^32, or saturate to int32 (SAT).
void mmaWarp(uint32_t Kind, const uint32_t (*A)[4], const uint32_t (*B)[2],
             const uint32_t (*C)[4], uint32_t (*D)[4]);

/// ldmatrix .m8n8 .b16: the register lane \p Lane receives for the 8x8
/// matrix \p Rows (Rows[r][c]: element c of the row loaded from the
/// address of lane r of the matrix's group), transposed with \p Trans.
uint32_t ldmatrixRegister(const uint16_t (*Rows)[8], unsigned Lane, bool Trans);

/// wgmma.mma_async: the byte offset in shared memory of
/// element (\p Mn, \p K) of an operand read through the matrix descriptor
/// \p Desc (PTX ISA, "Shared Memory Matrix Layout": the canonical K-major
/// or, with \p MnMajor, MN-major layouts, swizzled on the address). False,
/// with \p Why, for descriptors the emulator does not model.
bool wgmmaElementOffset(uint64_t Desc, bool MnMajor, unsigned ElemBytes,
                        unsigned Mn, unsigned K, uint64_t &Offset,
                        const char *&Why);

/// Row and column of accumulator register \p I of thread \p T (0-127) of a
/// warpgroup (PTX ISA, "Matrix fragments for wgmma.m64nNk16", D).
void wgmmaAccPosition(unsigned T, unsigned I, unsigned &Row, unsigned &Col);

/// The K extent of one wgmma.mma_async of kind \p Kind
/// (tile_emu_wgmma_kind): 16 for f16/bf16, 32 for e4m3/e5m2 (32 bytes).
unsigned wgmmaK(uint32_t Kind);

/// The rows of D that warp \p WarpInGroup (0-3) of a warpgroup holds, for
/// wgmma m64n\p N kK of kind \p Kind (K = wgmmaK) with A[64][K] and
/// B[K][N] (the elements' bits: f16, bf16, e4m3 or e5m2): lane l's
/// registers C[l][0..N/2) in, D[l] out. Products are summed in double and
/// rounded to f32 once; without \p ScaleD, C is ignored.
void wgmmaWarp(uint32_t Kind, unsigned N, unsigned WarpInGroup,
               const uint16_t (*A)[32], const uint16_t (*B)[256], bool ScaleD,
               const uint32_t *const *C, uint32_t *const *D);

/// IEEE binary16 nearest to \p X (ties to even, overflow to infinity).
uint16_t doubleToF16(double X);

} // namespace nvemu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_NVEMUWARP_H
