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

/// IEEE binary16 nearest to \p X (ties to even, overflow to infinity).
uint16_t doubleToF16(double X);

} // namespace nvemu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_NVEMUWARP_H
