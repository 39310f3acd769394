//===- AmdEmuWave.h - Wave collectives of the AMD emulator ------*- C++ -*-===//
//-*-//
//
// Part of tilec. Internal to runtime/lib: what DPP moves, ds_swizzle,
// ds_bpermute / ds_permute and MFMA compute once every lane's operands are
// known, written from AMD's documentation (the CDNA3 ISA, LLVM's AMDGPU
// documentation and the AMD Matrix Instruction Calculator; see
// AmdEmuWave.cpp), independently of tilec's code generator, which the
// emulator is meant to check. Pure functions: the scheduler gathers the
// operands and scatters the results.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_AMDEMUWAVE_H
#define TILE_RUNTIME_LIB_AMDEMUWAVE_H

#include <cstdint>

namespace tile {
namespace rt {
namespace amdemu {

/// CDNA wavefronts have 64 lanes.
constexpr unsigned WaveSize = 64;

/// DPP control values GFX9 (and so CDNA) defines: quad_perm, row_shl,
/// row_shr, row_ror, wave_shl/rol/shr/ror, row_mirror, row_half_mirror,
/// row_bcast:15 and row_bcast:31.
bool isDppControl(uint32_t Ctrl);
/// The lane that lane \p Lane reads under DPP control \p Ctrl (valid), or
/// -1 when the control leaves it no source (shifted out of its row or of
/// the wave, or a row a broadcast does not reach).
int dppSourceLane(uint32_t Ctrl, unsigned Lane);
/// Whether a DPP move writes lane \p Lane: row (Lane / 16) must be in
/// \p RowMask and bank ((Lane / 4) % 4) in \p BankMask.
inline bool dppWritesLane(unsigned Lane, uint32_t RowMask, uint32_t BankMask) {
  return (RowMask >> (Lane / 16) & 1) && (BankMask >> (Lane / 4 % 4) & 1);
}

/// The lane that lane \p Lane reads under ds_swizzle offset \p Pattern, or
/// -1 for an encoding the emulator does not implement (see isSwizzle...).
int swizzleSourceLane(uint32_t Pattern, unsigned Lane);

/// Shape, operand sizes and name of a tile_amd_emu_mfma_kind.
struct MfmaKindInfo {
  unsigned M, N, K;
  unsigned InWords;  ///< 32-bit words of A and of B per lane.
  unsigned AccWords; ///< Words of C and D per lane.
  enum { F16, BF16, I8, FP8, BF8 } Elem;
  const char *Name; ///< "v_mfma_f32_32x32x8_f16".
};
/// The description of \p Kind, or null for an unknown kind.
const MfmaKindInfo *mfmaKindInfo(uint32_t Kind);

/// Where element (Row, Col) of an M x K A operand (or, with Row = column
/// j of B, a K x N B operand) lives: lane and element index within the
/// lane's packed operand.
void mfmaInputPosition(const MfmaKindInfo &Info, unsigned Row, unsigned K,
                       unsigned &Lane, unsigned &Elem);
/// Where element (Row, Col) of the M x N C / D accumulator lives.
void mfmaAccPosition(const MfmaKindInfo &Info, unsigned Row, unsigned Col,
                     unsigned &Lane, unsigned &Word);

/// v_mfma of \p Kind (valid) for a whole wave: lane l's operands are
/// A[l][0..InWords), B[l][0..InWords), C[l][0..AccWords); D[l] receives
/// the result. f16 / bf16 / fp8 / bf8 products are exact in double and
/// summed there with C, then rounded once to f32 (nearest even); i8 sums are
/// exact and wrap modulo 2^32.
void mfmaWave(uint32_t Kind, const uint32_t (*A)[4], const uint32_t (*B)[4],
              const uint32_t (*C)[16], uint32_t (*D)[16]);

} // namespace amdemu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_AMDEMUWAVE_H
