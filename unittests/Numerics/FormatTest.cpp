//===- FormatTest.cpp - Formats against an independent reference ----------===//
//
// Part of tilec. Every code of every format of at most 8 bits (and all of
// f16 / bf16) is checked against Reference.h, which models the formats from
// their names alone.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "tile/Numerics/Format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace tile::numerics;

namespace {

Format get(const std::string &Name) {
  Result<Format> F = parseFormat(Name);
  EXPECT_TRUE(F.ok()) << Name << ": " << F.message();
  return F ? *F : Format();
}

/// Same value, NaN-ness and sign of zero.
bool sameValue(long double A, long double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  return A == B && std::signbit(A) == std::signbit(B);
}

float bitsToFloat(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

uint32_t floatToBits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

/// A seeded mix of inputs around the range of \p R: raw f32 bit patterns
/// (NaN, inf, subnormals included), uniform values over 1.5x the range,
/// log-uniform magnitudes, and midpoints between neighbours (+-1 ulp).
std::vector<float> randomInputs(const ref::RefFormat &R, size_t Count,
                                uint32_t Seed) {
  std::mt19937 Gen(Seed);
  std::vector<float> Out;
  Out.reserve(Count);
  long double Max = R.maxValue();
  long double MinPos = 0;
  for (auto &P : R.Sorted)
    if (P.first > 0) {
      MinPos = P.first;
      break;
    }
  std::uniform_real_distribution<double> U(-1.5 * double(Max),
                                           1.5 * double(Max));
  std::uniform_real_distribution<double> LogU(std::log2(double(MinPos)) - 3,
                                              std::log2(double(Max)) + 2);
  std::uniform_int_distribution<size_t> Pick(0, R.Sorted.size() - 2);
  for (size_t I = 0; I < Count; ++I) {
    float X;
    switch (I % 4) {
    case 0:
      X = bitsToFloat(uint32_t(Gen()));
      break;
    case 1:
      X = float(U(Gen));
      break;
    case 2:
      X = float(std::exp2(LogU(Gen))) * ((Gen() & 1) ? -1.0f : 1.0f);
      break;
    default: {
      size_t J = Pick(Gen);
      float Mid = float((R.Sorted[J].first + R.Sorted[J + 1].first) / 2);
      unsigned K = Gen() % 3;
      X = K == 0 ? Mid : std::nextafter(Mid, K == 1 ? -INFINITY : INFINITY);
      break;
    }
    }
    Out.push_back(X);
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

TEST(FormatNames, EveryValidNameRoundTrips) {
  std::vector<std::string> Names = ref::allByteFormatNames();
  for (int B = 9; B <= 32; ++B) {
    Names.push_back("u" + std::to_string(B));
    Names.push_back("i" + std::to_string(B));
  }
  for (const char *N : {"f16", "bf16", "f32"})
    Names.push_back(N);
  EXPECT_EQ(Names.size(), 28u + 64u + 1u + 3u);
  for (const std::string &N : Names) {
    Result<Format> F = parseFormat(N);
    ASSERT_TRUE(F.ok()) << N << ": " << F.message();
    EXPECT_EQ(formatName(*F), N);
    // The id round-trips too.
    Result<Format> G = Format::fromId(F->id());
    ASSERT_TRUE(G.ok()) << N;
    EXPECT_EQ(*G, *F);
    EXPECT_NE(F->id(), 0u);
  }
}

TEST(FormatNames, BadNamesAreRejectedWithAMessage) {
  for (const char *N :
       {"f9e4m4", "u0",          "i0",      "u33",      "i64",    "f4e1m1",
        "f8e0m7", "f8",          "f",       "u",        "i",      "",
        "x8",     "u08",         "f08e4m3", "f8e4m3fn", "f8e4",   "f8e4m",
        "e5m2",   "f16e5m10",    "bf8",     "f1e0m0",   "f2e0m1", "u4 ",
        " u4",    "U4",          "f64",     "f3e1m2",   "u-1",    "e8m1",
        "f8e8m0", "i99999999999"}) {
    Result<Format> F = parseFormat(N);
    EXPECT_FALSE(F.ok()) << "'" << N << "' should be rejected";
    EXPECT_FALSE(F.message().empty()) << N;
  }
}

TEST(FormatNames, BadIdsAreRejected) {
  for (uint32_t Id : {0u, 0x7u, 0xFFu, 0x2100u /*u33*/, 0x0000u /*u0*/,
                      0x01010402u /*f4e1m1*/, 0x00000902u /*f9e0m0*/,
                      0x00080903u /*e8m0 with 9 bits*/, 0x0A051104u}) {
    Result<Format> F = Format::fromId(Id);
    EXPECT_FALSE(F.ok()) << std::hex << Id;
    EXPECT_FALSE(F.message().empty());
  }
}

//===----------------------------------------------------------------------===//
// Properties against the specifications and the reference table
//===----------------------------------------------------------------------===//

TEST(FormatProperties, OCPStandardFormats) {
  // Values from the OCP 8-bit FP and MX v1.0 specifications.
  struct Row {
    const char *Name;
    int Bias;
    double Max, MinNormal, MinSub;
    bool Inf, NaN;
  } Rows[] = {
      {"f8e4m3", 7, 448, 0.015625, 0.001953125, false, true},
      {"f8e5m2", 15, 57344, 6.103515625e-05, 1.52587890625e-05, true, true},
      {"f6e2m3", 1, 7.5, 1, 0.125, false, false},
      {"f6e3m2", 3, 28, 0.25, 0.0625, false, false},
      {"f4e2m1", 1, 6, 1, 0.5, false, false},
      {"e8m0", 127, 1.7014118346046923e38, 5.877471754111438e-39,
       5.877471754111438e-39, false, true},
      {"f16", 15, 65504, 6.103515625e-05, 5.960464477539063e-08, true, true},
      {"bf16", 127, 3.3895313892515355e38, 1.1754943508222875e-38,
       9.183549615799121e-41, true, true},
  };
  for (const Row &R : Rows) {
    Format F = get(R.Name);
    EXPECT_EQ(F.bias(), R.Bias) << R.Name;
    EXPECT_EQ(F.maxFinite(), R.Max) << R.Name;
    EXPECT_EQ(F.minNormal(), R.MinNormal) << R.Name;
    EXPECT_EQ(F.minSubnormal(), R.MinSub) << R.Name;
    EXPECT_EQ(F.hasInf(), R.Inf) << R.Name;
    EXPECT_EQ(F.hasNaN(), R.NaN) << R.Name;
  }
}

TEST(FormatProperties, MatchReferenceTables) {
  for (const std::string &N : ref::allByteFormatNames()) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    EXPECT_EQ((long double)F.maxFinite(), R.maxValue()) << N;
    EXPECT_EQ((long double)F.lowest(), R.minValue()) << N;
    EXPECT_EQ(F.maxFiniteCode(), R.MaxCode) << N;
    EXPECT_EQ(F.bits(), unsigned(R.N)) << N;
    long double MinPos = 0;
    for (auto &P : R.Sorted)
      if (P.first > 0) {
        MinPos = P.first;
        break;
      }
    if (MinPos > 0) { // i1 has no positive value.
      EXPECT_EQ((long double)F.minSubnormal(), MinPos) << N;
    }
    EXPECT_EQ(F.hasNaN(), R.Ieee || R.NaNOnly || R.Family == 's') << N;
    if (R.Family == 'f' && !R.Ieee && !R.NaNOnly) {
      // Finite-only: every code is a number, both zeros exist.
      for (long double V : R.Values)
        EXPECT_TRUE(std::isfinite(V)) << N;
      EXPECT_FALSE(F.hasNaN()) << N;
    }
  }
}

//===----------------------------------------------------------------------===//
// Decode
//===----------------------------------------------------------------------===//

void checkDecodeAll(const std::string &N) {
  ref::RefFormat R = ref::makeRef(N);
  Format F = get(N);
  for (uint32_t C = 0; C < R.Values.size(); ++C) {
    long double Want = R.Values[C];
    ASSERT_TRUE(sameValue((long double)decode(F, C), Want))
        << N << " code 0x" << std::hex << C << ": got " << decode(F, C)
        << ", want " << double(Want);
    ASSERT_TRUE(sameValue((long double)decodeF32(F, C), Want))
        << N << " code 0x" << std::hex << C;
    // Bits above the width are ignored.
    ASSERT_TRUE(
        sameValue((long double)decode(F, C | (0xFFFFFFFFu << R.N)), Want))
        << N << " code 0x" << std::hex << C;
  }
}

TEST(Decode, EveryCodeOfEveryByteFormat) {
  for (const std::string &N : ref::allByteFormatNames())
    checkDecodeAll(N);
}

TEST(Decode, EveryCodeOfF16AndBF16) {
  checkDecodeAll("f16");
  checkDecodeAll("bf16");
  ref::RefFormat H = ref::makeRef("f16"), B = ref::makeRef("bf16");
  for (uint32_t C = 0; C < 65536; ++C) {
    ASSERT_TRUE(sameValue(f16ToF32(uint16_t(C)), H.Values[C])) << C;
    ASSERT_TRUE(sameValue(bf16ToF32(uint16_t(C)), B.Values[C])) << C;
  }
}

TEST(Decode, WideIntegers) {
  std::mt19937 Gen(7);
  for (int B = 9; B <= 32; ++B) {
    Format U = *Format::integer(false, B), I = *Format::integer(true, B);
    for (int K = 0; K < 2000; ++K) {
      uint32_t C = uint32_t(Gen()) & U.codeMask();
      if (K < 4) // the extremes
        C = (K & 1) ? U.codeMask() : (K & 2) ? (1u << (B - 1)) : 0;
      int64_t SV = C >= (uint64_t(1) << (B - 1))
                       ? int64_t(C) - (int64_t(1) << B)
                       : int64_t(C);
      EXPECT_EQ(decode(U, C), double(C)) << B;
      EXPECT_EQ(decode(I, C), double(SV)) << B;
    }
  }
}

TEST(Decode, F32IsTheBitPattern) {
  Format F = Format::f32();
  std::mt19937 Gen(3);
  for (int K = 0; K < 100000; ++K) {
    uint32_t C = uint32_t(Gen());
    float Want = bitsToFloat(C);
    ASSERT_TRUE(sameValue(decode(F, C), Want));
    ASSERT_TRUE(sameValue(decodeF32(F, C), Want));
  }
}

//===----------------------------------------------------------------------===//
// Encode
//===----------------------------------------------------------------------===//

TEST(Encode, EveryValueRoundTrips) {
  std::vector<std::string> Names = ref::allByteFormatNames();
  Names.push_back("f16");
  Names.push_back("bf16");
  for (const std::string &N : Names) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    for (uint32_t C = 0; C < R.Values.size(); ++C) {
      if (std::isnan(R.Values[C]))
        continue;
      ASSERT_EQ(encode(F, double(R.Values[C])), C)
          << N << " value " << double(R.Values[C]);
      ASSERT_EQ(convert(C, F, F), C) << N;
    }
  }
}

TEST(Encode, MidpointsRoundToEven) {
  std::vector<std::string> Names = ref::allByteFormatNames();
  Names.push_back("f16");
  Names.push_back("bf16");
  for (const std::string &N : Names) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    for (size_t I = 0; I + 1 < R.Sorted.size(); ++I) {
      auto [A, CA] = R.Sorted[I];
      auto [B, CB] = R.Sorted[I + 1];
      double Mid = double((A + B) / 2);
      ASSERT_EQ((long double)Mid, (A + B) / 2) << N << ": inexact midpoint";
      uint32_t Got = encode(F, Mid, Overflow::Saturate);
      uint32_t Want = ref::refTieCode(R, A, CA, B, CB);
      if (B == 0 && R.Family == 'f')
        Want |= R.SignBit; // a negative value rounding to zero gives -0.
      ASSERT_EQ(Got, Want) << N << " midpoint " << Mid << " of " << double(A)
                           << " and " << double(B);
      EXPECT_EQ(encode(F, std::nextafter(Mid, -INFINITY), Overflow::Saturate),
                CA)
          << N << " below " << Mid;
      uint32_t Above =
          encode(F, std::nextafter(Mid, INFINITY), Overflow::Saturate);
      EXPECT_EQ(Above, (B == 0 && R.Family == 'f') ? (CB | R.SignBit) : CB)
          << N << " above " << Mid;
    }
  }
}

TEST(Encode, SaturatesBeyondTheRange) {
  for (const std::string &N : ref::allByteFormatNames()) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    double Max = double(R.maxValue()), Min = double(R.minValue());
    for (double X : {Max * 1.25, Max * 2 + 1, 1e30, 3.0e38, 1e300}) {
      if (X > Max) {
        EXPECT_EQ(encode(F, X), R.MaxCode) << N << " " << X;
      }
    }
    for (double X : {Min * 1.25 - 1, Min * 2 - 1, -1e30, -1e300}) {
      if (N != "e8m0" && X < Min) {
        EXPECT_EQ(encode(F, X), R.MinCode) << N << " " << X;
      }
    }
    // inf: to inf where the format has it, else to the extreme.
    EXPECT_EQ(encode(F, INFINITY), R.Ieee ? R.InfCode : R.MaxCode) << N;
    if (N != "e8m0") {
      EXPECT_EQ(encode(F, -INFINITY),
                R.Ieee ? (R.InfCode | R.SignBit) : R.MinCode)
          << N;
    }
  }
  // The language's examples.
  EXPECT_EQ(decode(get("i4"), encode(get("i4"), 9.6)), 7.0);
  EXPECT_EQ(decode(get("u4"), encode(get("u4"), -3.2)), 0.0);
  EXPECT_EQ(decode(get("i4"), encode(get("i4"), -9.6)), -8.0);
  EXPECT_EQ(decode(get("f4e2m1"), encode(get("f4e2m1"), 100.0)), 6.0);
  EXPECT_EQ(decode(get("f8e4m3"), encode(get("f8e4m3"), 1000.0)), 448.0);
  EXPECT_EQ(decode(get("f8e5m2"), encode(get("f8e5m2"), 1e6)), 57344.0);
}

TEST(Encode, IeeeOverflowMode) {
  // f16 / bf16 default to IEEE overflow: >= max + half an ulp is inf.
  Format H = Format::f16();
  EXPECT_EQ(encode(H, 65519.99), 0x7BFFu);
  EXPECT_EQ(encode(H, 65520.0), 0x7C00u);
  EXPECT_EQ(encode(H, -65520.0), 0xFC00u);
  EXPECT_EQ(encode(H, 65520.0, Overflow::Saturate), 0x7BFFu);
  Format B = Format::bf16();
  EXPECT_EQ(encode(B, 1e39), 0x7F80u);
  EXPECT_EQ(encode(B, 1e39, Overflow::Saturate), 0x7F7Fu);
  // f8e5m2 saturates by default but can overflow to inf; f8e4m3 overflows
  // to NaN in IEEE mode (as APFloat does); finite-only formats saturate.
  Format E5 = get("f8e5m2"), E4 = get("f8e4m3"), E2 = get("f4e2m1");
  EXPECT_EQ(encode(E5, 1e6), 0x7Bu);
  EXPECT_EQ(encode(E5, 1e6, Overflow::Ieee), 0x7Cu);
  EXPECT_EQ(encode(E5, -1e6, Overflow::Ieee), 0xFCu);
  EXPECT_EQ(encode(E4, 1e6, Overflow::Ieee), 0x7Fu);
  EXPECT_EQ(encode(E4, 1e6), 0x7Eu);
  EXPECT_EQ(encode(E2, 1e6, Overflow::Ieee), 0x7u);
  EXPECT_EQ(encode(Format::e8m0(), 1e39, Overflow::Ieee), 0xFFu);
  EXPECT_EQ(encode(Format::e8m0(), 1e39), 0xFEu);
}

TEST(Encode, NaNAndSignedZero) {
  for (const std::string &N : ref::allByteFormatNames()) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    EXPECT_EQ(encode(F, NAN), ref::refNaNCode(R, false)) << N;
    EXPECT_EQ(encode(F, -NAN), ref::refNaNCode(R, true)) << N;
    EXPECT_EQ(F.nanCode(), ref::refNaNCode(R, false)) << N;
    EXPECT_EQ(encode(F, 0.0), 0u) << N;
    // -0 keeps its sign in signed float formats, is 0 for integers and the
    // smallest scale for e8m0.
    EXPECT_EQ(encode(F, -0.0), R.Family == 'f' ? R.SignBit : 0u) << N;
  }
}

/// Random f32 inputs against the reference's nearest-value search.
void checkRandom(const std::string &N, size_t Count, bool Ieee) {
  ref::RefFormat R = ref::makeRef(N);
  Format F = get(N);
  std::vector<float> In = randomInputs(R, Count, 1234 + uint32_t(N.size()));
  size_t Bad = 0;
  for (float X : In) {
    uint32_t Want = ref::refEncode(R, X, Ieee);
    uint32_t Got = encode(F, X, Ieee ? Overflow::Ieee : Overflow::Saturate);
    if (Got != Want && ++Bad < 5)
      ADD_FAILURE() << N << ": encode(" << X << " = 0x" << std::hex
                    << floatToBits(X) << ") = 0x" << Got << ", want 0x" << Want;
  }
  EXPECT_EQ(Bad, 0u) << N;
}

TEST(Encode, RandomF32InputsMatchTheReference) {
  // 45 formats x 2^17 inputs: about 6 million encodes.
  for (const std::string &N : ref::allByteFormatNames())
    checkRandom(N, size_t(1) << 17, false);
}

TEST(Encode, RandomF32ToF16AndBF16) {
  for (const char *N : {"f16", "bf16"}) {
    ref::RefFormat R = ref::makeRef(N);
    Format F = get(N);
    std::vector<float> In = randomInputs(R, size_t(1) << 20, 99);
    size_t Bad = 0;
    for (float X : In) {
      uint32_t Want = ref::refEncode(R, X, /*IeeeOverflow=*/true);
      uint32_t Generic = encode(F, X);
      uint32_t Fast = F.kind() == FormatKind::F16 ? f32ToF16(X) : f32ToBF16(X);
      if ((Generic != Want || Fast != Want) && ++Bad < 5)
        ADD_FAILURE() << N << ": encode(" << X << ") = 0x" << std::hex
                      << Generic << " / fast 0x" << Fast << ", want 0x" << Want;
    }
    EXPECT_EQ(Bad, 0u) << N;
    // Saturating mode too, on a smaller sample.
    checkRandom(N, size_t(1) << 16, false);
  }
}

TEST(Encode, WideIntegersMatchRoundHalfEven) {
  std::mt19937 Gen(11);
  std::uniform_real_distribution<double> Frac(0, 1);
  for (int B = 1; B <= 32; ++B) {
    for (bool S : {false, true}) {
      Format F = *Format::integer(S, B);
      long double Lo = S ? -std::ldexp(1.0L, B - 1) : 0;
      long double Hi =
          S ? std::ldexp(1.0L, B - 1) - 1 : std::ldexp(1.0L, B) - 1;
      std::uniform_real_distribution<double> U(double(Lo) * 1.2 - 3,
                                               double(Hi) * 1.2 + 3);
      for (int K = 0; K < 20000; ++K) {
        double X = U(Gen);
        if (K % 3 == 0) // exact halves
          X = std::floor(X) + 0.5;
        long double Fl = std::floor((long double)X), R = Fl;
        long double D = (long double)X - Fl;
        if (D > 0.5L || (D == 0.5L && std::fmod(Fl, 2.0L) != 0))
          R = Fl + 1;
        R = std::min(std::max(R, Lo), Hi);
        uint32_t Want = uint32_t(int64_t(R)) & F.codeMask();
        ASSERT_EQ(encode(F, X), Want) << formatName(F) << " " << X;
      }
    }
  }
}

TEST(Encode, F32FromDoubleIsTheHardwareRounding) {
  std::mt19937_64 Gen(5);
  Format F = Format::f32();
  for (int K = 0; K < 200000; ++K) {
    uint64_t B = Gen();
    double X;
    std::memcpy(&X, &B, 8);
    if (K % 2) // keep half of them inside the f32 range
      X = std::ldexp(double(int64_t(B >> 11)), int(B % 300) - 200 - 52) *
          ((B & 1) ? -1 : 1);
    if (std::isnan(X))
      continue;
    float Want = float(X); // the C++ conversion: RNE, IEEE overflow
    ASSERT_EQ(encode(F, X), floatToBits(Want)) << X;
  }
}

TEST(Convert, EveryPairOfByteFormats) {
  std::vector<std::string> Names = ref::allByteFormatNames();
  std::vector<ref::RefFormat> Refs;
  std::vector<Format> Fmts;
  for (const std::string &N : Names) {
    Refs.push_back(ref::makeRef(N));
    Fmts.push_back(get(N));
  }
  for (size_t A = 0; A < Names.size(); ++A)
    for (size_t B = 0; B < Names.size(); ++B)
      for (uint32_t C = 0; C < Refs[A].Values.size(); ++C) {
        uint32_t Want = ref::refEncode(Refs[B], Refs[A].Values[C]);
        ASSERT_EQ(convert(C, Fmts[A], Fmts[B]), Want)
            << Names[A] << " 0x" << std::hex << C << " -> " << Names[B];
      }
}

TEST(Convert, ThroughF16AndBF16) {
  Format H = Format::f16(), B = Format::bf16(), E4 = get("f8e4m3");
  ref::RefFormat RH = ref::makeRef("f16"), RE4 = ref::makeRef("f8e4m3");
  for (uint32_t C = 0; C < 65536; ++C) {
    // f16 -> f8e4m3 (saturating) and f16 -> bf16 (IEEE).
    ASSERT_EQ(convert(C, H, E4), ref::refEncode(RE4, RH.Values[C])) << C;
    ASSERT_EQ(convert(C, H, B), f32ToBF16(f16ToF32(uint16_t(C)))) << C;
  }
  for (uint32_t C = 0; C < 256; ++C)
    ASSERT_EQ(convert(C, E4, H),
              ref::refEncode(RH, RE4.Values[C], /*IeeeOverflow=*/true))
        << C;
}

} // namespace
