//===- NvEmuWarp.cpp - Warp-collective semantics of the emulator ----------===//
//
// Part of tilec. Fragment layouts follow the PTX ISA's "Matrix Fragments
// for mma.m16n8k*" sections: with groupID = laneid >> 2 and
// threadID_in_group = laneid % 4, each fragment element i of a lane maps to
// one (row, col) of A (M x K), B (K x N) or C/D (M x N).
//
//===----------------------------------------------------------------------===//

#include "emulator/NvEmuWarp.h"

#include "tile/Numerics/Format.h"
#include "tile/Emulation/NvEmuAbi.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tile::rt::nvemu;

unsigned tile::rt::nvemu::shflSourceLane(uint32_t Mode, unsigned Lane,
                                         uint32_t B, uint32_t C,
                                         bool &InRange) {
  // PTX: bval = b[4:0], cval = c[4:0] (clamp), segmask = c[12:8].
  int L = static_cast<int>(Lane & 31);
  int BVal = static_cast<int>(B & 31);
  int CVal = static_cast<int>(C & 31);
  int SegMask = static_cast<int>((C >> 8) & 31);
  int MaxLane = (L & SegMask) | (CVal & ~SegMask);
  int MinLane = L & SegMask;
  int J = L;
  switch (Mode) {
  case TILE_EMU_SHFL_UP:
    J = L - BVal;
    InRange = J >= MaxLane;
    break;
  case TILE_EMU_SHFL_DOWN:
    J = L + BVal;
    InRange = J <= MaxLane;
    break;
  case TILE_EMU_SHFL_BFLY:
    J = L ^ BVal;
    InRange = J <= MaxLane;
    break;
  default: // TILE_EMU_SHFL_IDX
    J = MinLane | (BVal & ~SegMask);
    InRange = J <= MaxLane;
    break;
  }
  return InRange ? static_cast<unsigned>(J) : Lane;
}

namespace {

constexpr MmaKindInfo Kinds[] = {
    {16, 8, 16, 4, 2, 4, 4,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
    {16, 8, 16, 4, 2, 4, 4,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    {16, 8, 16, 4, 2, 2, 2,
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"},
    {16, 8, 32, 4, 2, 4, 4, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"},
    {16, 8, 32, 4, 2, 4, 4,
     "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"},
    {16, 8, 8, 2, 1, 4, 4, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"},
    {16, 8, 32, 4, 2, 4, 4,
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
    {16, 8, 32, 4, 2, 4, 4,
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"},
};
static_assert(sizeof(Kinds) / sizeof(Kinds[0]) == TILE_EMU_NUM_MMA_KINDS,
              "one description per tile_emu_mma_kind");

/// Element \p I (0-based, low to high) of a fragment of 16-bit values.
uint16_t half(const uint32_t *Regs, unsigned I) {
  return static_cast<uint16_t>(Regs[I / 2] >> (16 * (I % 2)));
}
/// Element \p I of a fragment of s8 values.
int8_t byte(const uint32_t *Regs, unsigned I) {
  return static_cast<int8_t>(
      static_cast<uint8_t>(Regs[I / 4] >> (8 * (I % 4))));
}

double f16Value(uint16_t H) { return tile::numerics::f16ToF32(H); }
double bf16Value(uint16_t H) {
  uint32_t Bits = uint32_t(H) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}
double f32Value(uint32_t Bits) {
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}
uint32_t f32Bits(double X) {
  float F = static_cast<float>(X);
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  return Bits;
}

/// Scatters lane \p L's m16n8k32 8-bit A and B fragments into the dense
/// \p DA [16][32] and \p DB [32][8], element I of a fragment as
/// \p Value(Regs, I) (s8 and 8-bit floats share the layout):
/// a_i: row groupID (i < 4 or 8 <= i < 12) or groupID + 8,
///      col threadID_in_group * 4 + (i & 3) (+ 16 for i >= 8);
/// b_i: row threadID_in_group * 4 + (i & 3) (+ 16 for i >= 4), col groupID.
template <typename T, typename ValueFn>
void scatterK32(unsigned L, const uint32_t *A, const uint32_t *B,
                T (&DA)[16][32], T (&DB)[32][8], ValueFn Value) {
  unsigned G = L >> 2, Tig = L % 4;
  for (unsigned I = 0; I < 16; ++I)
    DA[G + ((I / 4) % 2) * 8][Tig * 4 + (I & 3) + (I >= 8 ? 16 : 0)] =
        Value(A, I);
  for (unsigned I = 0; I < 8; ++I)
    DB[Tig * 4 + (I & 3) + (I >= 4 ? 16 : 0)][G] = Value(B, I);
}

/// Position of C/D element i (f32/s32/f16 accumulators, m16n8k*):
/// row = groupID (i < 2) or groupID + 8, col = threadID_in_group * 2 + i%2.
void accPosition(unsigned Lane, unsigned I, unsigned &Row, unsigned &Col) {
  Row = (Lane >> 2) + (I >= 2 ? 8 : 0);
  Col = (Lane % 4) * 2 + (I & 1);
}

} // namespace

const MmaKindInfo *tile::rt::nvemu::mmaKindInfo(uint32_t Kind) {
  return Kind < TILE_EMU_NUM_MMA_KINDS ? &Kinds[Kind] : nullptr;
}

void tile::rt::nvemu::mmaWarp(uint32_t Kind, const uint32_t (*A)[4],
                              const uint32_t (*B)[2], const uint32_t (*C)[4],
                              uint32_t (*D)[4]) {
  const MmaKindInfo &Info = Kinds[Kind];
  bool Integer = Kind == TILE_EMU_MMA_M16N8K32_S32_S8 ||
                 Kind == TILE_EMU_MMA_M16N8K32_S32_S8_SAT;
  // 8-bit floats: the s8 fragment positions, values decoded exactly; the
  // products and their sum exact, rounded once to f32 (as the f16 kinds).
  bool Fp8 = Kind == TILE_EMU_MMA_M16N8K32_F32_E4M3 ||
             Kind == TILE_EMU_MMA_M16N8K32_F32_E5M2;
  tile::numerics::Format Fp8Format = *tile::numerics::Format::smallFloat(
      Kind == TILE_EMU_MMA_M16N8K32_F32_E5M2 ? 5 : 4,
      Kind == TILE_EMU_MMA_M16N8K32_F32_E5M2 ? 2 : 3);
  // Dense operands: A[M][K], B[K][N], C[M][N].
  double FA[16][32], FB[32][8], FC[16][8];
  int64_t IA[16][32], IB[32][8], IC[16][8];
  for (unsigned L = 0; L < WarpSize; ++L) {
    unsigned G = L >> 2, T = L % 4;
    if (Integer) {
      scatterK32(L, A[L], B[L], IA, IB, [](const uint32_t *Regs, unsigned I) {
        return int64_t(byte(Regs, I));
      });
      for (unsigned I = 0; I < 4; ++I) {
        unsigned Row, Col;
        accPosition(L, I, Row, Col);
        IC[Row][Col] = static_cast<int32_t>(C[L][I]);
      }
      continue;
    }
    if (Fp8) {
      scatterK32(L, A[L], B[L], FA, FB, [&](const uint32_t *Regs, unsigned I) {
        return tile::numerics::decode(
            Fp8Format, static_cast<uint8_t>(Regs[I / 4] >> (8 * (I % 4))));
      });
      for (unsigned I = 0; I < 4; ++I) {
        unsigned Row, Col;
        accPosition(L, I, Row, Col);
        FC[Row][Col] = f32Value(C[L][I]);
      }
      continue;
    }
    auto Value = [&](const uint32_t *Regs, unsigned I) {
      uint16_t H = half(Regs, I);
      return Kind == TILE_EMU_MMA_M16N8K16_F32_BF16 ? bf16Value(H)
                                                    : f16Value(H);
    };
    if (Info.K == 16) {
      // a_i: row groupID (i < 2 or 4 <= i < 6) or groupID + 8,
      //      col threadID_in_group * 2 + (i & 1) (+ 8 for i >= 4).
      for (unsigned I = 0; I < 8; ++I)
        FA[G + ((I / 2) % 2) * 8][T * 2 + (I & 1) + (I >= 4 ? 8 : 0)] =
            Value(A[L], I);
      // b_i: row threadID_in_group * 2 + (i & 1) (+ 8 for i >= 2),
      //      col groupID.
      for (unsigned I = 0; I < 4; ++I)
        FB[T * 2 + (I & 1) + (I >= 2 ? 8 : 0)][G] = Value(B[L], I);
    } else {
      // m16n8k8: a_i row groupID (i < 2) or groupID + 8,
      //          col threadID_in_group * 2 + (i & 1);
      //          b_i row threadID_in_group * 2 + i, col groupID.
      for (unsigned I = 0; I < 4; ++I)
        FA[G + (I >= 2 ? 8 : 0)][T * 2 + (I & 1)] = Value(A[L], I);
      for (unsigned I = 0; I < 2; ++I)
        FB[T * 2 + I][G] = Value(B[L], I);
    }
    for (unsigned I = 0; I < 4; ++I) {
      unsigned Row, Col;
      accPosition(L, I, Row, Col);
      FC[Row][Col] = Kind == TILE_EMU_MMA_M16N8K16_F16_F16
                         ? f16Value(half(C[L], I))
                         : f32Value(C[L][I]);
    }
  }

  for (unsigned L = 0; L < WarpSize; ++L) {
    D[L][0] = D[L][1] = D[L][2] = D[L][3] = 0;
    for (unsigned I = 0; I < 4; ++I) {
      unsigned Row, Col;
      accPosition(L, I, Row, Col);
      if (Integer) {
        int64_t Sum = IC[Row][Col];
        for (unsigned K = 0; K < Info.K; ++K)
          Sum += IA[Row][K] * IB[K][Col];
        if (Kind == TILE_EMU_MMA_M16N8K32_S32_S8_SAT) {
          if (Sum > std::numeric_limits<int32_t>::max())
            Sum = std::numeric_limits<int32_t>::max();
          if (Sum < std::numeric_limits<int32_t>::min())
            Sum = std::numeric_limits<int32_t>::min();
        }
        D[L][I] = static_cast<uint32_t>(static_cast<uint64_t>(Sum));
        continue;
      }
      double Sum = FC[Row][Col];
      for (unsigned K = 0; K < Info.K; ++K)
        Sum += FA[Row][K] * FB[K][Col];
      if (Kind == TILE_EMU_MMA_M16N8K16_F16_F16)
        D[L][I / 2] |= uint32_t(doubleToF16(Sum)) << (16 * (I % 2));
      else
        D[L][I] = f32Bits(Sum);
    }
  }
}

uint32_t tile::rt::nvemu::ldmatrixRegister(const uint16_t (*Rows)[8],
                                           unsigned Lane, bool Trans) {
  // Lane l holds row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1; with
  // .trans, the same positions of the transposed matrix.
  unsigned R = Lane / 4, C = 2 * (Lane % 4);
  uint16_t Lo = Trans ? Rows[C][R] : Rows[R][C];
  uint16_t Hi = Trans ? Rows[C + 1][R] : Rows[R][C + 1];
  return uint32_t(Lo) | uint32_t(Hi) << 16;
}

uint16_t tile::rt::nvemu::doubleToF16(double X) {
  uint16_t Sign = std::signbit(X) ? 0x8000 : 0;
  if (std::isnan(X))
    return Sign | 0x7e00;
  double A = std::fabs(X);
  // 65520 is halfway between the largest finite f16 (65504) and 2^16: it
  // and everything above round to infinity.
  if (A >= 65520.0)
    return Sign | 0x7c00;
  if (A < std::ldexp(1.0, -14)) {
    // Subnormal (or zero): a multiple of 2^-24; rint rounds ties to even.
    // A result of 0x400 is the smallest normal, correctly encoded.
    return Sign | static_cast<uint16_t>(std::rint(std::ldexp(A, 24)));
  }
  int Exp;
  double Frac = std::frexp(A, &Exp); // A = Frac * 2^Exp, Frac in [0.5, 1).
  --Exp;                             // A = (2 Frac) * 2^Exp.
  double Mant = std::rint(std::ldexp(Frac, 11)); // In [1024, 2048].
  if (Mant == 2048.0) {
    Mant = 1024.0;
    ++Exp;
  }
  if (Exp > 15)
    return Sign | 0x7c00;
  return Sign | static_cast<uint16_t>((Exp + 15) << 10) |
         static_cast<uint16_t>(static_cast<unsigned>(Mant) - 1024);
}

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

bool tile::rt::nvemu::wgmmaElementOffset(uint64_t Desc, bool MnMajor,
                                         unsigned ElemBytes, unsigned Mn,
                                         unsigned K, uint64_t &Offset,
                                         const char *&Why) {
  // Descriptor: start address >> 4 in bits 0-13, leading dimension byte
  // offset >> 4 in 16-29, stride dimension byte offset >> 4 in 32-45,
  // matrix base offset in 49-51, swizzle mode in 62-63 (0 interleave,
  // 1 128B, 2 64B, 3 32B).
  uint64_t Start = (Desc & 0x3FFF) << 4;
  uint64_t Leading = (Desc >> 16 & 0x3FFF) << 4;
  uint64_t Stride = (Desc >> 32 & 0x3FFF) << 4;
  unsigned Base = static_cast<unsigned>(Desc >> 49 & 7);
  unsigned Mode = static_cast<unsigned>(Desc >> 62);
  if (Base != 0) {
    Why = "a matrix base offset other than 0";
    return false;
  }
  // Elements per 16-byte chunk of a core matrix row.
  unsigned PerChunk = 16 / ElemBytes;
  uint64_t Address;
  if (Mode == 0) {
    // Interleave: core matrices of 8 rows x 16 bytes, 128 contiguous
    // bytes each; rows run along MN for K-major operands, along K for
    // MN-major ones. LBO steps along K, SBO along MN.
    if (MnMajor)
      Address = Start + (Mn / PerChunk) * Stride + (K / 8) * Leading +
                (K % 8) * 16 + (Mn % PerChunk) * ElemBytes;
    else
      Address = Start + (Mn / 8) * Stride + (K / PerChunk) * Leading +
                (Mn % 8) * 16 + (K % PerChunk) * ElemBytes;
    Offset = Address;
    return true;
  }
  // Swizzled: the pattern has 8 rows of Row bytes (128, 64, 32); a K-major
  // operand's rows run along MN (8-row groups SBO apart), an MN-major
  // operand's along K (8-row groups SBO apart, Row-byte column groups LBO
  // apart).
  unsigned Row = Mode == 1 ? 128 : Mode == 2 ? 64 : 32;
  if (MnMajor) {
    unsigned PerRow = Row / ElemBytes;
    Address = Start + (Mn / PerRow) * Leading + (K / 8) * Stride +
              (K % 8) * Row + (Mn % PerRow) * ElemBytes;
  } else {
    Address = Start + (Mn / 8) * Stride + (Mn % 8) * Row + K * ElemBytes;
  }
  // The 16-byte chunk index within a row (bits 4 ..) is XORed with the row
  // index within the pattern (bits 7 ..): 3 bits for 128B, 2 for 64B, 1
  // for 32B.
  uint64_t Bits = Mode == 1 ? 7 : Mode == 2 ? 3 : 1;
  Offset = Address ^ (((Address >> 7) & Bits) << 4);
  return true;
}

void tile::rt::nvemu::wgmmaAccPosition(unsigned T, unsigned I, unsigned &Row,
                                       unsigned &Col) {
  unsigned Warp = T / 32, Lane = T % 32;
  Row = 16 * Warp + Lane / 4 + 8 * ((I % 4) / 2);
  Col = 8 * (I / 4) + 2 * (Lane % 4) + I % 2;
}

unsigned tile::rt::nvemu::wgmmaK(uint32_t Kind) {
  return Kind == TILE_EMU_WGMMA_F32_E4M3 || Kind == TILE_EMU_WGMMA_F32_E5M2 ||
                 Kind == TILE_EMU_WGMMA_S32_S8
             ? 32
             : 16;
}

void tile::rt::nvemu::wgmmaWarp(uint32_t Kind, unsigned N, unsigned WarpInGroup,
                                const uint16_t (*A)[32],
                                const uint16_t (*B)[256], bool ScaleD,
                                const uint32_t *const *C, uint32_t *const *D) {
  unsigned K = wgmmaK(Kind);
  bool E5M2 = Kind == TILE_EMU_WGMMA_F32_E5M2;
  tile::numerics::Format Fp8 =
      *tile::numerics::Format::smallFloat(E5M2 ? 5 : 4, E5M2 ? 2 : 3);
  auto Value = [&](uint16_t H) {
    switch (Kind) {
    case TILE_EMU_WGMMA_F32_BF16:
      return bf16Value(H);
    case TILE_EMU_WGMMA_F32_E4M3:
    case TILE_EMU_WGMMA_F32_E5M2:
      return tile::numerics::decode(Fp8, static_cast<uint8_t>(H));
    default:
      return f16Value(H);
    }
  };
  for (unsigned L = 0; L < WarpSize; ++L) {
    for (unsigned I = 0; I < N / 2; ++I) {
      unsigned Row, Col;
      wgmmaAccPosition(WarpInGroup * 32 + L, I, Row, Col);
      if (Kind == TILE_EMU_WGMMA_S32_S8) {
        // Exact products of the sign-extended bytes, the sum modulo 2^32
        // (no .satfinite).
        uint32_t Sum = ScaleD ? C[L][I] : 0;
        for (unsigned Kk = 0; Kk < K; ++Kk)
          Sum += static_cast<uint32_t>(
              static_cast<int32_t>(static_cast<int8_t>(A[Row][Kk])) *
              static_cast<int32_t>(static_cast<int8_t>(B[Kk][Col])));
        D[L][I] = Sum;
        continue;
      }
      double Sum = ScaleD ? f32Value(C[L][I]) : 0.0;
      for (unsigned Kk = 0; Kk < K; ++Kk)
        Sum += Value(A[Row][Kk]) * Value(B[Kk][Col]);
      D[L][I] = f32Bits(Sum);
    }
  }
}
