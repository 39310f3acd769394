//===- Convert.cpp - Bit-exact decode / encode ----------------------------===//
//
// Part of tilec. See docs/Numerics.md for the rules implemented here.
//
// Encoding works on the exact value of the input double, unpacked as
// Sig * 2^Exp with an integer significand, and rounds with integer
// arithmetic only: the result does not depend on the FPU rounding mode.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/Format.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tile::numerics;

namespace {

template <typename To, typename From> To bitCast(From V) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To R;
  std::memcpy(&R, &V, sizeof(R));
  return R;
}

/// Number of the highest set bit of \p V (V != 0).
int highBit(uint64_t V) {
  int N = 0;
  while (V >> 32) {
    V >>= 32;
    N += 32;
  }
  while (V >> 8) {
    V >>= 8;
    N += 8;
  }
  while (V >> 1) {
    V >>= 1;
    ++N;
  }
  return N;
}

/// Sig / 2^Shift rounded to nearest, ties to even. Sig < 2^63.
uint64_t roundShiftRNE(uint64_t Sig, int Shift) {
  if (Shift <= 0)
    return Sig << -Shift;
  if (Shift >= 64)
    return 0; // Sig / 2^64 < 1/2.
  uint64_t Q = Sig >> Shift;
  uint64_t Rem = Sig & ((uint64_t(1) << Shift) - 1);
  uint64_t Half = uint64_t(1) << (Shift - 1);
  if (Rem > Half || (Rem == Half && (Q & 1)))
    ++Q;
  return Q;
}

/// 2^E as a double, for -1022 <= E <= 1023 (every exponent decode needs).
double pow2(int E) { return bitCast<double>(uint64_t(E + 1023) << 52); }

/// A finite double |X| as Sig * 2^Exp (Sig < 2^53).
void unpack(double X, uint64_t &Sig, int &Exp) {
  uint64_t B = bitCast<uint64_t>(X);
  int EF = int((B >> 52) & 0x7FF);
  Sig = B & ((uint64_t(1) << 52) - 1);
  if (EF == 0) {
    Exp = -1074;
  } else {
    Sig |= uint64_t(1) << 52;
    Exp = EF - 1075;
  }
}

uint32_t encodeInteger(const Format &F, double X) {
  bool Signed = F.kind() == FormatKind::SInt;
  int64_t Hi = Signed ? (int64_t(1) << (F.bits() - 1)) - 1
                      : (int64_t(1) << F.bits()) - 1;
  int64_t Lo = Signed ? -(int64_t(1) << (F.bits() - 1)) : 0;
  if (std::isnan(X))
    return 0;
  bool Neg = std::signbit(X);
  int64_t V;
  if (std::isinf(X)) {
    V = Neg ? Lo : Hi;
  } else {
    uint64_t Sig;
    int Exp;
    unpack(X, Sig, Exp);
    uint64_t Mag;
    if (Exp >= 11) // |X| >= 2^63: beyond every 32-bit range.
      Mag = uint64_t(1) << 62;
    else
      Mag = roundShiftRNE(Sig, -Exp);
    if (Mag > (uint64_t(1) << 62))
      Mag = uint64_t(1) << 62;
    V = Neg ? -int64_t(Mag) : int64_t(Mag);
    if (V > Hi)
      V = Hi;
    if (V < Lo)
      V = Lo;
  }
  return uint32_t(uint64_t(V)) & F.codeMask();
}

uint32_t encodeFloat(const Format &F, double X, Overflow O) {
  const bool IsScale = F.kind() == FormatKind::E8M0;
  const uint32_t SignBit = F.isSigned() ? (uint32_t(1) << (F.bits() - 1)) : 0;
  const unsigned M = F.manBits();
  const uint32_t MaxMag = F.maxFiniteCode();
  const uint32_t ExpMax = (uint32_t(1) << F.expBits()) - 1;
  const SpecialValues Sp = F.specials();

  if (std::isnan(X)) {
    if (!F.hasNaN())
      return 0;
    return F.nanCode() | (std::signbit(X) ? SignBit : 0);
  }
  bool Neg = std::signbit(X);
  if (IsScale && Neg && X != 0)
    return F.nanCode(); // e8m0 has no negative values.
  uint32_t Sign = Neg ? SignBit : 0;

  // What an out-of-range magnitude becomes.
  auto OverflowCode = [&](bool IsInfInput) -> uint32_t {
    if (Sp == SpecialValues::IEEE && (IsInfInput || O == Overflow::Ieee))
      return Sign | (ExpMax << M);
    if (O == Overflow::Ieee && F.hasNaN())
      return Sign | F.nanCode();
    return Sign | MaxMag;
  };
  if (std::isinf(X))
    return OverflowCode(true);
  if (X == 0)
    return IsScale ? 0 : Sign; // e8m0 has no zero: its smallest value.

  uint64_t Sig;
  int Exp;
  unpack(X, Sig, Exp);
  const int EA = Exp + highBit(Sig); // floor(log2 |X|)
  const int EMin = IsScale ? -127 : 1 - F.bias();
  if (IsScale && EA < EMin)
    return 0; // Below 2^-127: the smallest scale.
  const int QExp = (EA > EMin ? EA : EMin) - int(M);
  const uint64_t Q = roundShiftRNE(Sig, QExp - Exp);
  uint64_t Mag;
  if (IsScale)
    Mag = uint64_t(EA - EMin) + Q - 1; // Q is 1 or 2.
  else
    Mag = (uint64_t((EA > EMin ? EA : EMin) - EMin) << M) + Q;
  if (Mag > MaxMag)
    return OverflowCode(false);
  return Sign | uint32_t(Mag);
}

} // namespace

double tile::numerics::decode(const Format &F, uint32_t Code) {
  uint32_t C = Code & F.codeMask();
  switch (F.kind()) {
  case FormatKind::UInt:
    return double(C);
  case FormatKind::SInt:
    if (C >> (F.bits() - 1))
      return double(int64_t(C) - (int64_t(1) << F.bits()));
    return double(C);
  case FormatKind::E8M0:
    if (C == 0xFF)
      return std::numeric_limits<double>::quiet_NaN();
    return pow2(int(C) - 127);
  default:
    break;
  }
  const unsigned M = F.manBits();
  const bool Neg = (C >> (F.bits() - 1)) & 1;
  const uint32_t Mag = C & ((uint32_t(1) << (F.bits() - 1)) - 1);
  const uint32_t EF = Mag >> M, MF = Mag & ((uint32_t(1) << M) - 1);
  const uint32_t ExpMax = (uint32_t(1) << F.expBits()) - 1;
  double V;
  if ((F.specials() == SpecialValues::IEEE && EF == ExpMax && MF != 0) ||
      (F.specials() == SpecialValues::NaNOnly && EF == ExpMax &&
       MF == (uint32_t(1) << M) - 1)) {
    V = std::numeric_limits<double>::quiet_NaN(); // keeps its sign
  } else if (F.specials() == SpecialValues::IEEE && EF == ExpMax) {
    V = std::numeric_limits<double>::infinity();
  } else if (EF == 0) {
    V = double(MF) * pow2(1 - F.bias() - int(M));
  } else {
    V = double(MF | (uint32_t(1) << M)) * pow2(int(EF) - F.bias() - int(M));
  }
  return Neg ? -V : V;
}

float tile::numerics::decodeF32(const Format &F, uint32_t Code) {
  if (F.kind() == FormatKind::F16)
    return f16ToF32(uint16_t(Code));
  if (F.kind() == FormatKind::BF16)
    return bf16ToF32(uint16_t(Code));
  if (F.kind() == FormatKind::F32)
    return bitCast<float>(Code);
  return float(decode(F, Code));
}

uint32_t tile::numerics::encode(const Format &F, double X, Overflow O) {
  if (F.isInteger())
    return encodeInteger(F, X);
  return encodeFloat(F, X, O);
}

uint32_t tile::numerics::encode(const Format &F, double X) {
  return encode(F, X, F.defaultOverflow());
}

uint32_t tile::numerics::convert(uint32_t Code, const Format &From,
                                 const Format &To) {
  return encode(To, decode(From, Code), To.defaultOverflow());
}

uint16_t tile::numerics::f32ToF16(float X) {
  uint32_t B = bitCast<uint32_t>(X);
  uint32_t Sign = (B >> 16) & 0x8000;
  uint32_t A = B & 0x7FFFFFFF;
  if (A >= 0x7F800000) // inf or NaN
    return uint16_t(Sign | (A > 0x7F800000 ? 0x7E00 : 0x7C00));
  if (A >= 0x477FF000) // >= 65520 = 65504 + half an ulp: rounds to inf.
    return uint16_t(Sign | 0x7C00);
  if (A >= 0x38800000) { // >= 2^-14: a normal f16.
    uint32_t R = A + 0x0FFF + ((A >> 13) & 1);
    return uint16_t(Sign | ((R - 0x38000000) >> 13));
  }
  if (A <= 0x33000000) // <= 2^-25: rounds to zero (2^-25 is a tie to 0).
    return uint16_t(Sign);
  // Subnormal: value = Man * 2^(E - 150), code = value / 2^-24.
  uint32_t E = A >> 23, Man = (A & 0x7FFFFF) | 0x800000;
  return uint16_t(Sign | roundShiftRNE(Man, int(126 - E)));
}

float tile::numerics::f16ToF32(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t E = (H >> 10) & 0x1F, Man = H & 0x3FF;
  if (E == 0x1F)
    return bitCast<float>(Sign | 0x7F800000 | (Man << 13));
  if (E == 0) {
    float V = float(Man) * 5.9604644775390625e-8f; // 2^-24, exact product.
    return bitCast<float>(bitCast<uint32_t>(V) | Sign);
  }
  return bitCast<float>(Sign | ((E + 112) << 23) | (Man << 13));
}

uint16_t tile::numerics::f32ToBF16(float X) {
  uint32_t B = bitCast<uint32_t>(X);
  if ((B & 0x7FFFFFFF) > 0x7F800000) // NaN: canonical quiet NaN.
    return uint16_t(((B >> 16) & 0x8000) | 0x7FC0);
  return uint16_t((B + 0x7FFF + ((B >> 16) & 1)) >> 16);
}

float tile::numerics::bf16ToF32(uint16_t H) {
  return bitCast<float>(uint32_t(H) << 16);
}

float tile::numerics::roundToF16Saturating(float X) {
  static const Format F16 = Format::f16();
  return f16ToF32(uint16_t(encode(F16, X, Overflow::Saturate)));
}
