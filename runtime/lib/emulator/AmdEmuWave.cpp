//===- AmdEmuWave.cpp - Wave-collective semantics of the AMD emulator -----===//
//
// Part of tilec. Sources of the formulas below (read independently of
// tilec's AMD code generator):
//  - DPP: the GCN3 / Vega / CDNA3 ISA manuals' DPP_CTRL table, as spelled
//    by LLVM's llvm::AMDGPU::DPP::DppCtrl enumeration (SIDefines.h):
//    quad_perm 0x00-0xFF, row_shl 0x101-0x10F, row_shr 0x111-0x11F,
//    row_ror 0x121-0x12F, wave_shl 0x130, wave_rol 0x134, wave_shr 0x138,
//    wave_ror 0x13C, row_mirror 0x140, row_half_mirror 0x141, row_bcast:15
//    0x142, row_bcast:31 0x143 (0x150+ are GFX10+/GFX90A-DP only). A row is
//    16 lanes, a bank 4 lanes of a row. Direction: "row_shr:n" makes lane i
//    read lane i-n of its row, as LLVM's atomic optimizer relies on when it
//    builds an inclusive scan from row_shr:1,2,3,4,8 (reviews.llvm.org
//    D64207: "row_shr:4 ... bank_mask:0xe" masks exactly the lanes with no
//    source); wave_shr:1 likewise makes lane i read lane i-1 (its exclusive
//    scan). row_bcast:15 broadcasts lane 15 of each row to the next row
//    (used with row_mask 0xa) and row_bcast:31 lane 31 to rows 2 and 3
//    (row_mask 0xc) (GPUOpen, "AMD GCN Assembly: Cross-Lane Operations").
//    llvm.amdgcn.update.dpp(old, src, ...) is "v_mov_b32 dst, old;
//    v_mov_b32_dpp dst, src ..." (LLVM AMDGPUUsage): lanes whose row or bank
//    is masked off keep old; a lane without a valid source (none, or an
//    inactive lane) writes 0 when bound_ctrl is set and keeps old otherwise.
//  - ds_swizzle_b32 (ISA, "DS_SWIZZLE_B32"; LLVM AMDGPU::Swizzle encodings):
//    offset[15] = 1 with offset[14:8] = 0 is quad-permute mode, lane i reads
//    lane (i & ~3) | offset[2*(i%4)+1 : 2*(i%4)]; offset[15] = 0 is bit-mask
//    mode over each group of 32 lanes: and_mask = offset[4:0], or_mask =
//    offset[9:5], xor_mask = offset[14:10], lane i reads lane
//    (i & 32) | ((((i & 31) & and_mask) | or_mask) ^ xor_mask). The FFT and
//    rotate modes (offset >= 0xC000) are reported as unsupported.
//  - MFMA register layouts: AMD Matrix Instruction Calculator
//    (ROCm/amd_matrix_instruction_calculator), e.g. for
//    v_mfma_f32_32x32x8_f16: "A[i][k] Lane: 32 * floor(k / 4) + i", element
//    k % 4 of the lane's 4 halves; "B[k][j] Lane: 32 * floor(k / 4) + j";
//    "C or D[i][j] GPR: 4 * floor(i / 8) + (i % 4), Lane: (32 * floor(i /
//    4)) % 64 + j". Every kind here follows the same pattern with E = M*K/64
//    input elements per lane: A[i][k] in lane M*floor(k/E) + i, element k%E;
//    B[k][j] in lane N*floor(k/E) + j, element k%E; D[i][j] in lane
//    N*(floor(i/4) % (64/N)) + j, register 4*floor(i/(4*64/N)) + i%4 (for
//    16x16: lane 16*floor(i/4) + j, register i%4). Packing: element e of an
//    f16/bf16 operand is half e%2 of word e/2 (low half first), of an i8
//    (or fp8 / bf8) operand byte e%4 of word e/4 (AmdEmuAbi.h).
//  - 8-bit float MFMA (v_mfma_f32_{32x32x16,16x16x32}_{fp8_fp8,bf8_bf8}):
//    the i8 kinds' shapes and positions; gfx950 reads the OCP E4M3 / E5M2
//    formats, gfx942 the FNUZ ones (PyTorch's float8_e4m3fn on gfx950,
//    float8_e4m3fnuz on gfx942); only gfx950's are emulated.
//
//===----------------------------------------------------------------------===//

#include "emulator/AmdEmuWave.h"

#include "tile/Numerics/Format.h"
#include "tile/Emulation/AmdEmuAbi.h"

#include <cstring>

using namespace tile::rt::amdemu;

bool tile::rt::amdemu::isDppControl(uint32_t Ctrl) {
  if (Ctrl <= 0xFF)
    return true; // quad_perm
  if ((Ctrl >= 0x101 && Ctrl <= 0x10F) || (Ctrl >= 0x111 && Ctrl <= 0x11F) ||
      (Ctrl >= 0x121 && Ctrl <= 0x12F))
    return true; // row_shl, row_shr, row_ror
  switch (Ctrl) {
  case 0x130: // wave_shl:1
  case 0x134: // wave_rol:1
  case 0x138: // wave_shr:1
  case 0x13C: // wave_ror:1
  case 0x140: // row_mirror
  case 0x141: // row_half_mirror
  case 0x142: // row_bcast:15
  case 0x143: // row_bcast:31
    return true;
  }
  return false;
}

int tile::rt::amdemu::dppSourceLane(uint32_t Ctrl, unsigned Lane) {
  int L = static_cast<int>(Lane);
  int RowBase = L & ~15, InRow = L & 15;
  if (Ctrl <= 0xFF) // quad_perm:[a,b,c,d]: lane 4q+r reads 4q+sel[r].
    return (L & ~3) + static_cast<int>(Ctrl >> (2 * (L & 3)) & 3);
  if (Ctrl >= 0x101 && Ctrl <= 0x10F) { // row_shl:n reads InRow + n.
    int S = InRow + static_cast<int>(Ctrl & 15);
    return S < 16 ? RowBase + S : -1;
  }
  if (Ctrl >= 0x111 && Ctrl <= 0x11F) { // row_shr:n reads InRow - n.
    int S = InRow - static_cast<int>(Ctrl & 15);
    return S >= 0 ? RowBase + S : -1;
  }
  if (Ctrl >= 0x121 && Ctrl <= 0x12F) // row_ror:n reads (InRow - n) mod 16.
    return RowBase + ((InRow - static_cast<int>(Ctrl & 15)) & 15);
  switch (Ctrl) {
  case 0x130: // wave_shl:1
    return L + 1 < static_cast<int>(WaveSize) ? L + 1 : -1;
  case 0x134: // wave_rol:1
    return (L + 1) % static_cast<int>(WaveSize);
  case 0x138: // wave_shr:1
    return L - 1;
  case 0x13C: // wave_ror:1
    return (L + static_cast<int>(WaveSize) - 1) % static_cast<int>(WaveSize);
  case 0x140: // row_mirror
    return RowBase + 15 - InRow;
  case 0x141: // row_half_mirror
    return (L & ~7) + 7 - (L & 7);
  case 0x142: // row_bcast:15: lane 15 of the previous row.
    return RowBase >= 16 ? RowBase - 1 : -1;
  case 0x143: // row_bcast:31: lane 31 to rows 2 and 3.
    return L >= 32 ? 31 : -1;
  }
  return -1;
}

int tile::rt::amdemu::swizzleSourceLane(uint32_t Pattern, unsigned Lane) {
  if (Pattern > 0xFFFF)
    return -1;
  if ((Pattern & 0xFF00) == 0x8000) // Quad-permute mode.
    return static_cast<int>((Lane & ~3u) | (Pattern >> (2 * (Lane & 3)) & 3));
  if (Pattern & 0x8000)
    return -1; // FFT / rotate / reserved.
  unsigned And = Pattern & 31, Or = Pattern >> 5 & 31, Xor = Pattern >> 10 & 31;
  return static_cast<int>((Lane & 32) | ((((Lane & 31) & And) | Or) ^ Xor));
}

namespace {

const MfmaKindInfo Kinds[TILE_AMD_EMU_NUM_MFMA_KINDS] = {
    {32, 32, 8, 2, 16, MfmaKindInfo::F16, "v_mfma_f32_32x32x8_f16"},
    {16, 16, 16, 2, 4, MfmaKindInfo::F16, "v_mfma_f32_16x16x16_f16"},
    {32, 32, 8, 2, 16, MfmaKindInfo::BF16, "v_mfma_f32_32x32x8_bf16"},
    {16, 16, 16, 2, 4, MfmaKindInfo::BF16, "v_mfma_f32_16x16x16_bf16"},
    {32, 32, 16, 2, 16, MfmaKindInfo::I8, "v_mfma_i32_32x32x16_i8"},
    {16, 16, 32, 2, 4, MfmaKindInfo::I8, "v_mfma_i32_16x16x32_i8"},
    {32, 32, 16, 4, 16, MfmaKindInfo::F16, "v_mfma_f32_32x32x16_f16"},
    {16, 16, 32, 4, 4, MfmaKindInfo::F16, "v_mfma_f32_16x16x32_f16"},
    {32, 32, 16, 4, 16, MfmaKindInfo::BF16, "v_mfma_f32_32x32x16_bf16"},
    {16, 16, 32, 4, 4, MfmaKindInfo::BF16, "v_mfma_f32_16x16x32_bf16"},
    {32, 32, 32, 4, 16, MfmaKindInfo::I8, "v_mfma_i32_32x32x32_i8"},
    {16, 16, 64, 4, 4, MfmaKindInfo::I8, "v_mfma_i32_16x16x64_i8"},
    {32, 32, 16, 2, 16, MfmaKindInfo::FP8, "v_mfma_f32_32x32x16_fp8_fp8"},
    {16, 16, 32, 2, 4, MfmaKindInfo::FP8, "v_mfma_f32_16x16x32_fp8_fp8"},
    {32, 32, 16, 2, 16, MfmaKindInfo::BF8, "v_mfma_f32_32x32x16_bf8_bf8"},
    {16, 16, 32, 2, 4, MfmaKindInfo::BF8, "v_mfma_f32_16x16x32_bf8_bf8"},
};

/// Element \p E of a packed operand of \p Info's input type, as a double.
double inputValue(const MfmaKindInfo &Info, const uint32_t *Words, unsigned E) {
  auto Byte = static_cast<uint8_t>(Words[E / 4] >> (8 * (E % 4)));
  if (Info.Elem == MfmaKindInfo::I8)
    return static_cast<int8_t>(Byte);
  if (Info.Elem == MfmaKindInfo::FP8 || Info.Elem == MfmaKindInfo::BF8) {
    // gfx950 reads the OCP formats (gfx942's FNUZ ones are not emulated).
    bool E5M2 = Info.Elem == MfmaKindInfo::BF8;
    static const tile::numerics::Format E4M3Format =
        *tile::numerics::Format::smallFloat(4, 3);
    static const tile::numerics::Format E5M2Format =
        *tile::numerics::Format::smallFloat(5, 2);
    return tile::numerics::decode(E5M2 ? E5M2Format : E4M3Format, Byte);
  }
  auto H = static_cast<uint16_t>(Words[E / 2] >> (16 * (E % 2)));
  return Info.Elem == MfmaKindInfo::F16 ? tile::numerics::f16ToF32(H)
                                        : tile::numerics::bf16ToF32(H);
}

int32_t inputInt(const uint32_t *Words, unsigned E) {
  return static_cast<int8_t>(Words[E / 4] >> (8 * (E % 4)) & 0xFF);
}

} // namespace

const MfmaKindInfo *tile::rt::amdemu::mfmaKindInfo(uint32_t Kind) {
  return Kind < TILE_AMD_EMU_NUM_MFMA_KINDS ? &Kinds[Kind] : nullptr;
}

void tile::rt::amdemu::mfmaInputPosition(const MfmaKindInfo &Info, unsigned Row,
                                         unsigned K, unsigned &Lane,
                                         unsigned &Elem) {
  unsigned E = Info.M * Info.K / WaveSize; // Elements per lane.
  Lane = Info.M * (K / E) + Row;
  Elem = K % E;
}

void tile::rt::amdemu::mfmaAccPosition(const MfmaKindInfo &Info, unsigned Row,
                                       unsigned Col, unsigned &Lane,
                                       unsigned &Word) {
  unsigned Groups = WaveSize / Info.N; // Lane groups of N lanes.
  Lane = Info.N * (Row / 4 % Groups) + Col;
  Word = 4 * (Row / (4 * Groups)) + Row % 4;
}

void tile::rt::amdemu::mfmaWave(uint32_t Kind, const uint32_t (*A)[4],
                                const uint32_t (*B)[4], const uint32_t (*C)[16],
                                uint32_t (*D)[16]) {
  const MfmaKindInfo &Info = Kinds[Kind];
  for (unsigned I = 0; I < Info.M; ++I)
    for (unsigned J = 0; J < Info.N; ++J) {
      unsigned DLane, DWord;
      mfmaAccPosition(Info, I, J, DLane, DWord);
      double Sum = 0;
      uint32_t ISum = C[DLane][DWord];
      if (Info.Elem != MfmaKindInfo::I8) {
        float CF;
        std::memcpy(&CF, &C[DLane][DWord], 4);
        Sum = CF;
      }
      for (unsigned K = 0; K < Info.K; ++K) {
        unsigned AL, AE, BL, BE;
        mfmaInputPosition(Info, I, K, AL, AE);
        // B[k][j] sits like A[j][k] (N == M for every kind).
        mfmaInputPosition(Info, J, K, BL, BE);
        if (Info.Elem == MfmaKindInfo::I8)
          ISum +=
              static_cast<uint32_t>(inputInt(A[AL], AE) * inputInt(B[BL], BE));
        else
          Sum += inputValue(Info, A[AL], AE) * inputValue(Info, B[BL], BE);
      }
      if (Info.Elem == MfmaKindInfo::I8) {
        D[DLane][DWord] = ISum;
      } else {
        float F = static_cast<float>(Sum);
        std::memcpy(&D[DLane][DWord], &F, 4);
      }
    }
}
