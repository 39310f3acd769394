//===- Format.h - Bit-exact numeric formats ---------------------*- C++ -*-===//
//
// Part of tilec. The one definition of every element type of the language:
// uN / iN (N = 1..32), small floats fNeXmY (N = 1 + X + Y <= 8), e8m0, f16,
// bf16 and f32, with bit-exact decode (code -> value) and encode (value ->
// code, round to nearest even, saturating). docs/Numerics.md states every
// rule; this header summarises them.
//
// Depends on the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_FORMAT_H
#define TILE_NUMERICS_FORMAT_H

#include "tile/Numerics/Result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tile {
namespace numerics {

/// The family a format belongs to.
enum class FormatKind : uint8_t {
  UInt = 0,       ///< uN: 0 .. 2^N - 1.
  SInt = 1,       ///< iN: two's complement, -2^(N-1) .. 2^(N-1) - 1.
  SmallFloat = 2, ///< fNeXmY, N = 1 + X + Y <= 8.
  E8M0 = 3,       ///< e8m0: unsigned power-of-two scale 2^(code - 127).
  F16 = 4,        ///< IEEE-754 binary16.
  BF16 = 5,       ///< bfloat16 (the top half of an f32).
  F32 = 6,        ///< IEEE-754 binary32.
};

/// Which codes of a floating-point format are not finite numbers.
enum class SpecialValues : uint8_t {
  /// No special codes (integers; most small floats): every code is finite.
  FiniteOnly = 0,
  /// IEEE-754: exponent all ones is inf (mantissa 0) or NaN (mantissa != 0).
  IEEE = 1,
  /// OCP "FN" (f8e4m3): only S.1111.111 is NaN, no infinities.
  NaNOnly = 2,
  /// e8m0: code 0xFF is NaN; there is no zero and no sign.
  ScaleNaN = 3,
};

/// What encode does with a finite value whose magnitude rounds past the
/// largest finite value of the format.
enum class Overflow : uint8_t {
  /// Clamp to +-(max finite); inf inputs still map to inf where the format
  /// has inf. The language's cast(): every format except f16/bf16/f32.
  Saturate,
  /// IEEE-754 behaviour: overflow gives inf where the format has inf, NaN
  /// where it has NaN but no inf (f8e4m3, e8m0) and saturates otherwise.
  /// The default for f16, bf16, f32 (what the hardware's cvt.rn does).
  Ieee,
};

/// A numeric element format. Instances are always valid: they can only be
/// made by the factories below or parseFormat().
class Format {
public:
  /// The default format is f32.
  Format() : Format(FormatKind::F32, 32, 8, 23, 127, SpecialValues::IEEE) {}

  /// uN (Signed = false) or iN (Signed = true), 1 <= Bits <= 32.
  static Result<Format> integer(bool Signed, unsigned Bits);
  /// fNeXmY with N = 1 + ExpBits + ManBits <= 8, ExpBits >= 1. Bias is
  /// 2^(X-1) - 1; f8e4m3 gets OCP E4M3FN specials, f8e5m2 IEEE specials,
  /// every other split is finite-only.
  static Result<Format> smallFloat(unsigned ExpBits, unsigned ManBits);
  static Format e8m0() {
    return Format(FormatKind::E8M0, 8, 8, 0, 127, SpecialValues::ScaleNaN);
  }
  static Format f16() {
    return Format(FormatKind::F16, 16, 5, 10, 15, SpecialValues::IEEE);
  }
  static Format bf16() {
    return Format(FormatKind::BF16, 16, 8, 7, 127, SpecialValues::IEEE);
  }
  static Format f32() { return Format(); }

  FormatKind kind() const { return Kind; }
  /// Total width of a code in bits.
  unsigned bits() const { return Bits; }
  /// Exponent field width (0 for integers).
  unsigned expBits() const { return ExpBits; }
  /// Mantissa (fraction) field width (0 for integers and e8m0).
  unsigned manBits() const { return ManBits; }
  /// Exponent bias (0 for integers).
  int bias() const { return Bias; }
  SpecialValues specials() const { return Specials; }

  bool isInteger() const {
    return Kind == FormatKind::UInt || Kind == FormatKind::SInt;
  }
  bool isFloat() const { return !isInteger(); }
  /// True for formats with a sign (everything but uN and e8m0).
  bool isSigned() const {
    return Kind != FormatKind::UInt && Kind != FormatKind::E8M0;
  }
  bool hasInf() const { return Specials == SpecialValues::IEEE; }
  bool hasNaN() const {
    return Specials == SpecialValues::IEEE ||
           Specials == SpecialValues::NaNOnly ||
           Specials == SpecialValues::ScaleNaN;
  }
  /// Mask of the valid code bits: 2^bits - 1.
  uint32_t codeMask() const {
    return Bits == 32 ? 0xFFFFFFFFu : ((1u << Bits) - 1u);
  }

  /// The largest finite value.
  double maxFinite() const;
  /// The most negative finite value (0 for uN, 2^-127 for e8m0).
  double lowest() const;
  /// The smallest positive normal value (1 for integers, 2^-127 for e8m0).
  double minNormal() const;
  /// The smallest positive value (== minNormal() without subnormals).
  double minSubnormal() const;
  /// The code of maxFinite().
  uint32_t maxFiniteCode() const;
  /// The code encode() gives for NaN inputs (see docs/Numerics.md: the
  /// format's positive quiet NaN, or 0 for formats without NaN).
  uint32_t nanCode() const;

  /// The overflow rule of the language's cast() into this format.
  Overflow defaultOverflow() const {
    return (Kind == FormatKind::F16 || Kind == FormatKind::BF16 ||
            Kind == FormatKind::F32)
               ? Overflow::Ieee
               : Overflow::Saturate;
  }

  /// A 32-bit id for the C API: kind | bits << 8 | expBits << 16 |
  /// manBits << 24. Never 0.
  uint32_t id() const {
    return uint32_t(Kind) | (Bits << 8) | (ExpBits << 16) | (ManBits << 24);
  }
  /// The format with the given id(), or an error for an invalid id.
  static Result<Format> fromId(uint32_t Id);

  bool operator==(const Format &O) const { return id() == O.id(); }
  bool operator!=(const Format &O) const { return !(*this == O); }

private:
  Format(FormatKind K, unsigned Bits, unsigned E, unsigned M, int Bias,
         SpecialValues S)
      : Kind(K), Bits(uint8_t(Bits)), ExpBits(uint8_t(E)), ManBits(uint8_t(M)),
        Bias(int16_t(Bias)), Specials(S) {}

  FormatKind Kind;
  uint8_t Bits;
  uint8_t ExpBits;
  uint8_t ManBits;
  int16_t Bias;
  SpecialValues Specials;
};

/// Parses a type name of the language: u1..u32, i1..i32, f16, bf16, f32,
/// fNeXmY (N = 1 + X + Y <= 8, X >= 1) and e8m0.
Result<Format> parseFormat(std::string_view Name);

/// The canonical name of \p F (parseFormat(formatName(F)) == F).
std::string formatName(const Format &F);

/// The exact value of \p Code (bits above F.bits() are ignored). Every
/// value of every format is exact in a double; NaN codes give a quiet NaN,
/// -0 codes give -0.0.
double decode(const Format &F, uint32_t Code);

/// decode() as a float. Exact for every float format; integers wider than
/// 24 bits round to nearest even.
float decodeF32(const Format &F, uint32_t Code);

/// The code nearest to \p X (round to nearest, ties to even; ties to the
/// larger magnitude for e8m0), overflowing as F.defaultOverflow() says.
/// NaN gives F.nanCode() with the input's sign where the format is signed
/// and has NaN. Negative values that round to zero give -0 in signed float
/// formats and 0 in integers. Inputs are exact doubles, so encoding a float
/// (or an f16 / bf16 value) is a single rounding.
uint32_t encode(const Format &F, double X);

/// encode() with an explicit overflow rule.
uint32_t encode(const Format &F, double X, Overflow O);

/// Converts a code of \p From into the nearest code of \p To (one rounding:
/// decode is exact), with To.defaultOverflow().
uint32_t convert(uint32_t Code, const Format &From, const Format &To);

/// Direct IEEE binary16 conversions (round to nearest even, overflow to
/// inf, NaN to a quiet NaN with the input's sign).
uint16_t f32ToF16(float X);
float f16ToF32(uint16_t H);
/// Direct bfloat16 conversions (round to nearest even, overflow to inf).
uint16_t f32ToBF16(float X);
float bf16ToF32(uint16_t H);

/// Rounds \p X to the nearest f16 value with saturation (finite results for
/// finite inputs) and returns it as a float. Used for f16 scale storage.
float roundToF16Saturating(float X);

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_FORMAT_H
