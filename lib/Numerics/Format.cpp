//===- Format.cpp - Format descriptors, names and properties --------------===//
//
// Part of tilec. See docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/Format.h"

#include <cmath>
#include <limits>

using namespace tile::numerics;

Result<Format> Format::integer(bool Signed, unsigned Bits) {
  if (Bits < 1 || Bits > 32)
    return Result<Format>::error(
        std::string("integer width must be 1..32, got ") +
        std::to_string(Bits));
  return Format(Signed ? FormatKind::SInt : FormatKind::UInt, Bits, 0, 0, 0,
                SpecialValues::FiniteOnly);
}

Result<Format> Format::smallFloat(unsigned ExpBits, unsigned ManBits) {
  if (ExpBits < 1)
    return Result<Format>::error(
        "a small float needs at least one exponent bit (X >= 1)");
  unsigned N = 1 + ExpBits + ManBits;
  if (ExpBits > 7 || ManBits > 7 || N > 8)
    return Result<Format>::error(
        "a small float fNeXmY needs N = 1 + X + Y <= 8, got e" +
        std::to_string(ExpBits) + "m" + std::to_string(ManBits) + " (" +
        std::to_string(N) + " bits)");
  SpecialValues S = SpecialValues::FiniteOnly;
  if (ExpBits == 4 && ManBits == 3)
    S = SpecialValues::NaNOnly; // OCP E4M3FN.
  else if (ExpBits == 5 && ManBits == 2)
    S = SpecialValues::IEEE; // OCP E5M2.
  int Bias = (1 << (ExpBits - 1)) - 1;
  return Format(FormatKind::SmallFloat, N, ExpBits, ManBits, Bias, S);
}

Result<Format> Format::fromId(uint32_t Id) {
  unsigned Kind = Id & 0xFF, Bits = (Id >> 8) & 0xFF, E = (Id >> 16) & 0xFF,
           M = Id >> 24;
  std::optional<Format> F;
  switch (Kind) {
  case uint8_t(FormatKind::UInt):
  case uint8_t(FormatKind::SInt):
    if (Bits >= 1 && Bits <= 32)
      F = *integer(Kind == uint8_t(FormatKind::SInt), Bits);
    break;
  case uint8_t(FormatKind::SmallFloat):
    if (E >= 1 && 1 + E + M <= 8)
      F = *smallFloat(E, M);
    break;
  case uint8_t(FormatKind::E8M0):
    F = e8m0();
    break;
  case uint8_t(FormatKind::F16):
    F = f16();
    break;
  case uint8_t(FormatKind::BF16):
    F = bf16();
    break;
  case uint8_t(FormatKind::F32):
    F = f32();
    break;
  default:
    break;
  }
  if (F && F->id() == Id)
    return *F;
  static const char *Hex = "0123456789abcdef";
  std::string S;
  for (int I = 28; I >= 0; I -= 4)
    S += Hex[(Id >> I) & 0xF];
  return Result<Format>::error("invalid numeric format id 0x" + S);
}

/// Parses a canonical decimal number (no sign, no leading zeros) at the
/// start of \p S; advances \p S past it. Returns -1 if none.
static int parseNumber(std::string_view &S) {
  size_t I = 0;
  long V = 0;
  while (I < S.size() && S[I] >= '0' && S[I] <= '9' && I < 4) {
    V = V * 10 + (S[I] - '0');
    ++I;
  }
  if (I == 0 || (I > 1 && S[0] == '0') ||
      (I < S.size() && S[I] >= '0' && S[I] <= '9'))
    return -1;
  S.remove_prefix(I);
  return int(V);
}

Result<Format> tile::numerics::parseFormat(std::string_view Name) {
  std::string Quoted = "'" + std::string(Name) + "'";
  if (Name == "f16")
    return Format::f16();
  if (Name == "bf16")
    return Format::bf16();
  if (Name == "f32")
    return Format::f32();
  if (Name == "e8m0")
    return Format::e8m0();
  if (Name.empty())
    return Result<Format>::error("empty type name");
  std::string_view Rest = Name.substr(1);
  if (Name[0] == 'u' || Name[0] == 'i') {
    int Bits = parseNumber(Rest);
    if (Bits < 0 || !Rest.empty())
      return Result<Format>::error("unknown type name " + Quoted +
                                   ": expected u<N> or i<N> with N in 1..32");
    if (Bits < 1 || Bits > 32)
      return Result<Format>::error("invalid integer type " + Quoted +
                                   ": the width must be 1..32");
    return Format::integer(Name[0] == 'i', unsigned(Bits));
  }
  if (Name[0] == 'f') {
    int N = parseNumber(Rest);
    int X = -1, Y = -1;
    if (N >= 0 && !Rest.empty() && Rest[0] == 'e') {
      Rest.remove_prefix(1);
      X = parseNumber(Rest);
      if (X >= 0 && !Rest.empty() && Rest[0] == 'm') {
        Rest.remove_prefix(1);
        Y = parseNumber(Rest);
      }
    }
    if (N < 0 || X < 0 || Y < 0 || !Rest.empty())
      return Result<Format>::error(
          "unknown type name " + Quoted +
          ": expected f16, f32 or a small float fNeXmY such as f8e4m3");
    if (N > 8)
      return Result<Format>::error("invalid small float " + Quoted +
                                   ": at most 8 bits (N = 1 + X + Y <= 8)");
    if (X < 1)
      return Result<Format>::error("invalid small float " + Quoted +
                                   ": needs at least one exponent bit");
    if (N != 1 + X + Y)
      return Result<Format>::error(
          "invalid small float " + Quoted +
          ": N must equal 1 + X + Y = " + std::to_string(1 + X + Y));
    return Format::smallFloat(unsigned(X), unsigned(Y));
  }
  return Result<Format>::error("unknown type name " + Quoted);
}

std::string tile::numerics::formatName(const Format &F) {
  switch (F.kind()) {
  case FormatKind::UInt:
    return "u" + std::to_string(F.bits());
  case FormatKind::SInt:
    return "i" + std::to_string(F.bits());
  case FormatKind::SmallFloat:
    return "f" + std::to_string(F.bits()) + "e" + std::to_string(F.expBits()) +
           "m" + std::to_string(F.manBits());
  case FormatKind::E8M0:
    return "e8m0";
  case FormatKind::F16:
    return "f16";
  case FormatKind::BF16:
    return "bf16";
  case FormatKind::F32:
    return "f32";
  }
  return "?";
}

uint32_t Format::maxFiniteCode() const {
  switch (Kind) {
  case FormatKind::UInt:
    return codeMask();
  case FormatKind::SInt:
    return (uint32_t(1) << (Bits - 1)) - 1;
  case FormatKind::E8M0:
    return 0xFE;
  default:
    break;
  }
  uint32_t ExpMax = (1u << ExpBits) - 1, ManAll = (1u << ManBits) - 1;
  switch (Specials) {
  case SpecialValues::IEEE:
    return ((ExpMax - 1) << ManBits) | ManAll;
  case SpecialValues::NaNOnly:
    return (ExpMax << ManBits) | (ManAll - 1);
  default:
    return (ExpMax << ManBits) | ManAll;
  }
}

uint32_t Format::nanCode() const {
  switch (Specials) {
  case SpecialValues::IEEE:
    return (((1u << ExpBits) - 1) << ManBits) | (1u << (ManBits - 1));
  case SpecialValues::NaNOnly:
    return (1u << (Bits - 1)) - 1;
  case SpecialValues::ScaleNaN:
    return 0xFF;
  case SpecialValues::FiniteOnly:
    break;
  }
  return 0;
}

double Format::maxFinite() const { return decode(*this, maxFiniteCode()); }

double Format::lowest() const {
  switch (Kind) {
  case FormatKind::UInt:
    return 0;
  case FormatKind::SInt:
    return -std::ldexp(1.0, int(Bits) - 1);
  case FormatKind::E8M0:
    return std::ldexp(1.0, -127);
  default:
    return -maxFinite();
  }
}

double Format::minNormal() const {
  if (isInteger())
    return 1;
  if (Kind == FormatKind::E8M0)
    return std::ldexp(1.0, -127);
  return std::ldexp(1.0, 1 - Bias);
}

double Format::minSubnormal() const {
  if (isInteger())
    return 1;
  if (Kind == FormatKind::E8M0)
    return std::ldexp(1.0, -127);
  return std::ldexp(1.0, 1 - Bias - int(ManBits));
}
