//===- APFloatTest.cpp - lib/Numerics against llvm::APFloat ---------------===//
//
// Part of tilec. For every format APFloat knows (f4E2M1FN, f6E2M3FN,
// f6E3M2FN, f8E4M3FN, f8E5M2, f8E8M0FNU, IEEE half, bfloat) every code is
// decoded by both, and many f32 values are encoded by both. Differences
// that are documented choices of lib/Numerics are handled explicitly:
//   - APFloat never saturates: with Overflow::Ieee we match it bit for bit;
//     with Overflow::Saturate, wherever APFloat overflowed (inf or NaN from
//     a finite input) we must give the signed max finite code.
//   - APFloat converts inf / NaN into finite-only formats to 0 with an
//     invalid-op status; we saturate inf and map NaN to 0.
//   - NaN payloads: we produce one canonical quiet NaN per sign.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/Format.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace tile::numerics;
using llvm::APFloat;
using llvm::APInt;

namespace {

struct Case {
  const char *Name;
  const llvm::fltSemantics &(*Sem)();
};

const Case Cases[] = {
    {"f4e2m1", &APFloat::Float4E2M1FN}, {"f6e2m3", &APFloat::Float6E2M3FN},
    {"f6e3m2", &APFloat::Float6E3M2FN}, {"f8e4m3", &APFloat::Float8E4M3FN},
    {"f8e5m2", &APFloat::Float8E5M2},   {"e8m0", &APFloat::Float8E8M0FNU},
    {"f16", &APFloat::IEEEhalf},        {"bf16", &APFloat::BFloat},
};

double apToDouble(const APFloat &A) {
  APFloat D = A;
  bool Lost = false;
  D.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &Lost);
  return D.convertToDouble();
}

bool sameValue(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  return A == B && std::signbit(A) == std::signbit(B);
}

/// Encodes an f32 with APFloat into \p Sem; returns the code.
uint32_t apEncode(float X, const llvm::fltSemantics &Sem, bool &Overflowed) {
  APFloat A(X);
  bool Lost = false;
  APFloat::opStatus S = A.convert(Sem, APFloat::rmNearestTiesToEven, &Lost);
  Overflowed = (S & APFloat::opOverflow) != 0;
  return uint32_t(A.bitcastToAPInt().getZExtValue());
}

std::vector<float> inputs(const Format &F, size_t Count, uint32_t Seed) {
  std::mt19937 Gen(Seed);
  double Max = F.maxFinite();
  double Min = F.minSubnormal();
  std::uniform_real_distribution<double> U(-1.5 * Max, 1.5 * Max);
  std::uniform_real_distribution<double> LogU(std::log2(Min) - 3,
                                              std::log2(Max) + 2);
  std::uniform_int_distribution<uint32_t> Code(0, F.codeMask());
  std::vector<float> Out;
  for (size_t I = 0; I < Count; ++I) {
    float X;
    switch (I % 4) {
    case 0: {
      uint32_t B = uint32_t(Gen());
      std::memcpy(&X, &B, 4);
      break;
    }
    case 1:
      X = float(U(Gen));
      break;
    case 2:
      X = float(std::exp2(LogU(Gen))) * ((Gen() & 1) ? -1.0f : 1.0f);
      break;
    default: {
      // Near a representable value or between two of them.
      double A = decode(F, Code(Gen));
      double B = decode(F, Code(Gen));
      X = float((Gen() & 1) ? A : (A + B) / 2);
      if (Gen() & 1)
        X = std::nextafter(X, (Gen() & 1) ? INFINITY : -INFINITY);
      break;
    }
    }
    Out.push_back(X);
  }
  return Out;
}

TEST(APFloat, DecodeEveryCode) {
  for (const Case &C : Cases) {
    Format F = *parseFormat(C.Name);
    const llvm::fltSemantics &Sem = C.Sem();
    ASSERT_EQ(APFloat::getSizeInBits(Sem), F.bits()) << C.Name;
    for (uint32_t Code = 0; Code <= F.codeMask(); ++Code) {
      APFloat A(Sem, APInt(F.bits(), Code));
      // (APFloat turns an e8m0 NaN into inf when converting it to double:
      // ask it directly.)
      double Want = A.isNaN() ? NAN : apToDouble(A);
      ASSERT_TRUE(sameValue(decode(F, Code), Want))
          << C.Name << " 0x" << std::hex << Code << ": " << decode(F, Code)
          << " vs APFloat " << Want;
      ASSERT_TRUE(sameValue(decodeF32(F, Code), Want)) << C.Name;
    }
    // The extremes agree too.
    EXPECT_EQ(F.maxFinite(), apToDouble(APFloat::getLargest(Sem))) << C.Name;
    EXPECT_EQ(F.minSubnormal(), apToDouble(APFloat::getSmallest(Sem)))
        << C.Name;
    EXPECT_EQ(F.minNormal(), apToDouble(APFloat::getSmallestNormalized(Sem)))
        << C.Name;
  }
}

TEST(APFloat, EncodeRandomF32) {
  for (const Case &C : Cases) {
    Format F = *parseFormat(C.Name);
    const llvm::fltSemantics &Sem = C.Sem();
    const uint32_t SignBit = F.isSigned() ? 1u << (F.bits() - 1) : 0;
    size_t Bad = 0, Compared = 0, Saturated = 0;
    for (float X : inputs(F, size_t(1) << 20, 42)) {
      bool Overflowed = false;
      uint32_t Want = apEncode(X, Sem, Overflowed);
      uint32_t GotIeee = encode(F, X, Overflow::Ieee);
      uint32_t GotSat = encode(F, X, Overflow::Saturate);
      if (std::isnan(X)) {
        // Only NaN-ness (and the sign, where kept) is specified.
        if (F.hasNaN()) {
          EXPECT_TRUE(std::isnan(decode(F, GotIeee))) << C.Name;
          EXPECT_TRUE(std::isnan(decode(F, Want))) << C.Name;
        } else {
          EXPECT_EQ(GotIeee, 0u) << C.Name;
        }
        continue;
      }
      if (F.kind() == FormatKind::E8M0 && X < 0) {
        // APFloat has no defined result for negative values in an unsigned
        // format (it returns assorted codes); ours is NaN.
        EXPECT_EQ(GotIeee, 0xFFu);
        EXPECT_EQ(GotSat, 0xFFu);
        continue;
      }
      if (std::isinf(X) && !F.hasNaN()) {
        // APFloat gives 0 (invalid op); we saturate.
        EXPECT_EQ(GotSat, F.maxFiniteCode() | (X < 0 ? SignBit : 0)) << C.Name;
        continue;
      }
      ++Compared;
      if (GotIeee != Want && ++Bad < 5)
        ADD_FAILURE() << C.Name << ": encode(" << X << ", Ieee) = 0x"
                      << std::hex << GotIeee << ", APFloat 0x" << Want;
      // Saturating mode: equal wherever APFloat stayed finite.
      double WantVal = decode(F, Want);
      bool APFinite = !std::isnan(WantVal) && !std::isinf(WantVal);
      uint32_t WantSat = Want;
      if (!APFinite && std::isfinite(X)) {
        ASSERT_TRUE(Overflowed) << C.Name << " " << X;
        WantSat = F.maxFiniteCode() | (X < 0 ? SignBit : 0);
        ++Saturated;
      }
      if (std::isinf(X) && F.kind() != FormatKind::E8M0 && !F.hasInf())
        WantSat = F.maxFiniteCode() | (X < 0 ? SignBit : 0);
      if (std::isinf(X) && F.kind() == FormatKind::E8M0 && X > 0)
        WantSat = F.maxFiniteCode();
      if (GotSat != WantSat && ++Bad < 5)
        ADD_FAILURE() << C.Name << ": encode(" << X << ", Saturate) = 0x"
                      << std::hex << GotSat << ", want 0x" << WantSat;
    }
    EXPECT_EQ(Bad, 0u) << C.Name;
    EXPECT_GT(Compared, size_t(1) << 19) << C.Name;
    // (APFloat itself saturates formats with neither inf nor NaN.)
    if (F.hasNaN()) {
      EXPECT_GT(Saturated, 0u) << C.Name << ": no overflow was exercised";
    }
  }
}

TEST(APFloat, ConvertFromEveryF16Code) {
  Format H = Format::f16();
  for (const Case &C : Cases) {
    Format F = *parseFormat(C.Name);
    for (uint32_t Code = 0; Code < 65536; ++Code) {
      APFloat A(APFloat::IEEEhalf(), APInt(16, Code));
      if (A.isNaN() || (A.isInfinity() && !F.hasNaN()) ||
          (F.kind() == FormatKind::E8M0 && A.isNegative() && !A.isZero()))
        continue; // covered by EncodeRandomF32's explicit rules
      bool Lost = false;
      A.convert(C.Sem(), APFloat::rmNearestTiesToEven, &Lost);
      uint32_t Want = uint32_t(A.bitcastToAPInt().getZExtValue());
      ASSERT_EQ(encode(F, decode(H, Code), Overflow::Ieee), Want)
          << "f16 0x" << std::hex << Code << " -> " << C.Name;
    }
  }
}

} // namespace
