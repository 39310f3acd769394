//===- BlockScaledTest.cpp - MX and NVFP4 block-scaled formats ------------===//
//
// Part of tilec. The scale rule of each scheme is recomputed here from the
// specifications with the reference encoder of Reference.h, and the
// quantization error is checked against the element format's spacing.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "tile/Numerics/BlockScaled.h"

#include <gtest/gtest.h>

#include <random>

using namespace tile::numerics;

namespace {

const BlockScheme MXSchemes[] = {BlockScheme::MXFP4, BlockScheme::MXFP6E2M3,
                                 BlockScheme::MXFP6E3M2, BlockScheme::MXFP8E4M3,
                                 BlockScheme::MXFP8E5M2};

std::string elemName(BlockScheme S) {
  switch (S) {
  case BlockScheme::MXFP4:
  case BlockScheme::NVFP4:
    return "f4e2m1";
  case BlockScheme::MXFP6E2M3:
    return "f6e2m3";
  case BlockScheme::MXFP6E3M2:
    return "f6e3m2";
  case BlockScheme::MXFP8E4M3:
    return "f8e4m3";
  case BlockScheme::MXFP8E5M2:
    return "f8e5m2";
  }
  return "";
}

/// emax_elem of the OCP MX spec: the exponent of the largest normal.
int emaxElem(BlockScheme S) {
  switch (S) {
  case BlockScheme::MXFP4:
  case BlockScheme::NVFP4:
  case BlockScheme::MXFP6E2M3:
    return 2;
  case BlockScheme::MXFP6E3M2:
    return 4;
  case BlockScheme::MXFP8E4M3:
    return 8;
  case BlockScheme::MXFP8E5M2:
    return 15;
  }
  return 0;
}

/// Spacing of the reference format's values around |V| (the gap between
/// the two neighbours enclosing it).
long double spacingAt(const ref::RefFormat &R, long double V) {
  V = std::fabs(V);
  long double Prev = 0;
  for (auto &P : R.Sorted) {
    if (P.first < 0)
      continue;
    if (P.first >= V && P.first > 0)
      return P.first - Prev;
    Prev = P.first;
  }
  return 0;
}

std::vector<float> randomData(size_t N, uint32_t Seed) {
  std::mt19937 Gen(Seed);
  std::normal_distribution<float> Norm(0, 1);
  std::uniform_real_distribution<float> LogMag(-20, 20);
  std::vector<float> D(N);
  for (size_t I = 0; I < N; ++I) {
    // Blocks of very different magnitudes, with some outliers.
    float BlockMag = std::exp2(float(int((I / 16) * 2654435761u % 41) - 20));
    D[I] = Norm(Gen) * BlockMag;
    if (I % 97 == 0)
      D[I] *= 30;
    if (I % 131 == 0)
      D[I] = std::exp2(LogMag(Gen));
  }
  return D;
}

TEST(BlockScaled, Parameters) {
  for (BlockScheme S : MXSchemes) {
    EXPECT_EQ(blockSize(S), 32u);
    EXPECT_EQ(formatName(blockScaleFormat(S)), "e8m0");
    EXPECT_EQ(formatName(blockElementFormat(S)), elemName(S));
  }
  EXPECT_EQ(blockSize(BlockScheme::NVFP4), 16u);
  EXPECT_EQ(formatName(blockScaleFormat(BlockScheme::NVFP4)), "f8e4m3");
  EXPECT_EQ(formatName(blockElementFormat(BlockScheme::NVFP4)), "f4e2m1");
}

TEST(BlockScaled, MXFP4KnownVectors) {
  ref::RefFormat E2M1 = ref::makeRef("f4e2m1");
  struct Row {
    float AMax;
    int ScaleCode;
  } Rows[] = {{6.0f, 127}, {7.9f, 127},  {8.0f, 128},  {12.0f, 128},
              {1.0f, 125}, {0.75f, 124}, {448.0f, 133}};
  for (const Row &R : Rows) {
    std::vector<float> D(32, 0.0f);
    D[0] = R.AMax;
    D[1] = -R.AMax / 2;
    D[5] = R.AMax / 3;
    D[31] = 0.001f;
    BlockScaledTensor T = *quantizeBlockScaled(BlockScheme::MXFP4, D, 1, 32);
    ASSERT_EQ(T.Scales.size(), 1u);
    EXPECT_EQ(int(T.Scales[0]), R.ScaleCode) << R.AMax;
    long double X = std::ldexp(1.0L, R.ScaleCode - 127);
    for (int I = 0; I < 32; ++I)
      EXPECT_EQ(T.Codes[I], ref::refEncode(E2M1, D[I] / X)) << R.AMax;
  }
  // amax = 6: every element lands exactly.
  std::vector<float> D = {6, -4, 3, 2, 1.5, 1, 0.5, 0, -6, -0.5};
  D.resize(32, 0.0f);
  BlockScaledTensor T = *quantizeBlockScaled(BlockScheme::MXFP4, D, 1, 32);
  EXPECT_EQ(T.Scales[0], 127);
  EXPECT_EQ(dequantizeBlockScaled(T), D);
  // The OCP spec's own consequence: values in (6, 8) * X saturate to 6.
  D[0] = 7.5f;
  T = *quantizeBlockScaled(BlockScheme::MXFP4, D, 1, 32);
  EXPECT_EQ(dequantizeBlockScaled(T)[0], 6.0f);
}

TEST(BlockScaled, MXMatchesSpecOnRandomData) {
  const size_t Rows = 16, Cols = 200; // 200 = 6 full blocks + 8
  std::vector<float> D = randomData(Rows * Cols, 77);
  for (BlockScheme S : MXSchemes) {
    ref::RefFormat E = ref::makeRef(elemName(S));
    Result<BlockScaledTensor> T = quantizeBlockScaled(S, D, Rows, Cols);
    ASSERT_TRUE(T.ok()) << T.message();
    ASSERT_EQ(T->Scales.size(), Rows * 7);
    std::vector<float> Back = dequantizeBlockScaled(*T);
    double SumRel = 0;
    for (size_t R = 0; R < Rows; ++R)
      for (size_t B = 0; B < 7; ++B) {
        size_t C0 = B * 32, C1 = std::min<size_t>(C0 + 32, Cols);
        float AMax = 0;
        for (size_t C = C0; C < C1; ++C)
          AMax = std::max(AMax, std::fabs(D[R * Cols + C]));
        int Shared = std::ilogb(AMax) - emaxElem(S);
        ASSERT_EQ(int(T->Scales[R * 7 + B]), Shared + 127)
            << blockSchemeName(S) << " block " << R << "," << B;
        long double X = std::ldexp(1.0L, Shared);
        long double EMaxVal = E.maxValue();
        for (size_t C = C0; C < C1; ++C) {
          size_t I = R * Cols + C;
          long double V = D[I] / X;
          ASSERT_EQ(T->Codes[I], ref::refEncode(E, V)) << blockSchemeName(S);
          long double Err = std::fabs((long double)Back[I] - D[I]);
          long double Bound = std::fabs(V) <= EMaxVal
                                  ? X * spacingAt(E, V) / 2
                                  : std::fabs((long double)D[I]) - X * EMaxVal;
          ASSERT_LE(Err, Bound * (1 + 1e-6L))
              << blockSchemeName(S) << " x = " << D[I];
          SumRel += double(Err / AMax);
        }
      }
    // On average well within a quarter of the largest element spacing.
    EXPECT_LT(SumRel / double(D.size()), 0.1) << blockSchemeName(S);
  }
}

/// Checks NVFP4 against the recipe; with \p CheckBound also the error bound
/// that holds while block scales stay normal e4m3 numbers.
void checkNVFP4(const std::vector<float> &D, size_t Rows, size_t Cols,
                bool CheckBound) {
  ref::RefFormat E2M1 = ref::makeRef("f4e2m1"), E4M3 = ref::makeRef("f8e4m3");
  Result<BlockScaledTensor> T =
      quantizeBlockScaled(BlockScheme::NVFP4, D, Rows, Cols);
  ASSERT_TRUE(T.ok()) << T.message();
  float GAMax = 0;
  for (float V : D)
    GAMax = std::max(GAMax, std::fabs(V));
  float SEnc = 448.0f * 6.0f / GAMax;
  EXPECT_EQ(T->TensorScale, 1.0f / SEnc);
  std::vector<float> Back = dequantizeBlockScaled(*T);
  const size_t BPR = (Cols + 15) / 16;
  ASSERT_EQ(T->Scales.size(), Rows * BPR);
  for (size_t R = 0; R < Rows; ++R)
    for (size_t B = 0; B < BPR; ++B) {
      size_t C0 = B * 16, C1 = std::min<size_t>(C0 + 16, Cols);
      float BAMax = 0;
      for (size_t C = C0; C < C1; ++C)
        BAMax = std::max(BAMax, std::fabs(D[R * Cols + C]));
      uint32_t SC = ref::refEncode(E4M3, BAMax / 6.0f * SEnc);
      ASSERT_EQ(T->Scales[R * BPR + B], SC);
      float SV = float(E4M3.Values[SC]);
      for (size_t C = C0; C < C1; ++C) {
        size_t I = R * Cols + C;
        uint32_t Want = SV == 0 ? 0 : ref::refEncode(E2M1, D[I] * (SEnc / SV));
        ASSERT_EQ(T->Codes[I], Want) << "element " << I;
        if (!CheckBound)
          continue;
        // A normal e4m3 scale is within 2^-4 of amax / 6 (scaled), so the
        // scaled values stay below 6.4; the error is at most half of
        // e2m1's widest gap (2), i.e. about amax / 6 * 1.07.
        ASSERT_GE(SV, 1.0f / 64) << "test data leaves the normal range";
        double Err = std::fabs(double(Back[I]) - D[I]);
        ASSERT_LE(Err, 0.18 * BAMax) << "element " << I;
      }
    }
}

TEST(BlockScaled, NVFP4FollowsTheTwoLevelRecipe) {
  // Moderate range: every block scale is a normal e4m3 value.
  std::mt19937 Gen(5);
  std::normal_distribution<float> Norm(0, 1);
  std::vector<float> D(8 * 100);
  for (size_t I = 0; I < D.size(); ++I)
    D[I] = Norm(Gen) * std::exp2(float(int(I / 16 % 11) - 5)) *
           (I % 53 == 0 ? 20.0f : 1.0f);
  checkNVFP4(D, 8, 100, /*CheckBound=*/true);
  // A 2^40 dynamic range: small blocks fall below e4m3's range (their
  // scales round to subnormals or zero); the codes still follow the recipe.
  checkNVFP4(randomData(8 * 100, 5), 8, 100, /*CheckBound=*/false);
}

/// quantizeNVFP4 takes the tensor scale from the caller (a kernel that got
/// it from a separate reduction): with the data's own scale it is
/// quantizeBlockScaled; with another one each block scale follows it.
TEST(BlockScaled, NVFP4WithAGivenTensorScale) {
  std::vector<float> D = randomData(4 * 64, 9);
  float SEnc = nvfp4TensorEncodeScale(D);
  auto Own = quantizeBlockScaled(BlockScheme::NVFP4, D, 4, 64);
  auto Given = quantizeNVFP4(D, 4, 64, SEnc);
  ASSERT_TRUE(Own && Given);
  EXPECT_EQ(Given->Codes, Own->Codes);
  EXPECT_EQ(Given->Scales, Own->Scales);
  EXPECT_EQ(Given->TensorScale, Own->TensorScale);
  // Half the tensor scale: every block scale is the e4m3 of half its value.
  auto Half = quantizeNVFP4(D, 4, 64, SEnc / 2);
  ASSERT_TRUE(Half);
  EXPECT_EQ(Half->TensorScale, 2 / SEnc);
  Format E4M3 = blockScaleFormat(BlockScheme::NVFP4);
  size_t Compared = 0;
  for (size_t B = 0; B < Own->Scales.size(); ++B) {
    float Full = float(decode(E4M3, Own->Scales[B]));
    float Want = float(decode(E4M3, encode(E4M3, Full / 2.0f)));
    if (Full < 1.0f / 32)
      continue; // half of it would not be a normal e4m3
    ++Compared;
    EXPECT_EQ(float(decode(E4M3, Half->Scales[B])), Want) << B;
  }
  EXPECT_GE(Compared, 4u);
  EXPECT_FALSE(quantizeNVFP4(D, 4, 65, SEnc));
}

TEST(BlockScaled, EdgeCases) {
  // All zeros: the smallest scale, zero codes, zero values.
  std::vector<float> Z(64, 0.0f);
  for (BlockScheme S : {BlockScheme::MXFP4, BlockScheme::NVFP4}) {
    BlockScaledTensor T = *quantizeBlockScaled(S, Z, 2, 32);
    for (uint8_t C : T.Codes)
      EXPECT_EQ(C, 0);
    for (float V : dequantizeBlockScaled(T))
      EXPECT_EQ(V, 0.0f);
  }
  // A NaN poisons its block only (NaN scale); inf does the same for MX.
  std::vector<float> D(64, 1.0f);
  D[3] = NAN;
  D[40] = INFINITY;
  BlockScaledTensor T = *quantizeBlockScaled(BlockScheme::MXFP8E4M3, D, 1, 64);
  EXPECT_EQ(T.Scales[0], 0xFF);
  EXPECT_EQ(T.Scales[1], 0xFF);
  std::vector<float> Back = dequantizeBlockScaled(T);
  EXPECT_TRUE(std::isnan(Back[0]));
  D[40] = 1.0f;
  T = *quantizeBlockScaled(BlockScheme::MXFP8E4M3, D, 1, 64);
  Back = dequantizeBlockScaled(T);
  EXPECT_TRUE(std::isnan(Back[5]));
  EXPECT_EQ(Back[40], 1.0f);
  std::vector<float> N16(32, 2.0f);
  N16[0] = NAN;
  T = *quantizeBlockScaled(BlockScheme::NVFP4, N16, 1, 32);
  Back = dequantizeBlockScaled(T);
  EXPECT_TRUE(std::isnan(Back[1]));
  EXPECT_EQ(Back[16], 2.0f);
  N16[0] = -INFINITY; // inf also poisons only its block, and not the amax
  T = *quantizeBlockScaled(BlockScheme::NVFP4, N16, 1, 32);
  EXPECT_EQ(T.TensorScale, 2.0f / 2688.0f);
  Back = dequantizeBlockScaled(T);
  EXPECT_TRUE(std::isnan(Back[1]));
  EXPECT_EQ(Back[16], 2.0f);
  // Extreme magnitudes clamp the shared exponent to e8m0's range.
  std::vector<float> Big(32, 3.0e38f), Tiny(32, 1e-45f);
  T = *quantizeBlockScaled(BlockScheme::MXFP4, Big, 1, 32);
  EXPECT_EQ(int(T.Scales[0]), 127 + 127 - 2);
  T = *quantizeBlockScaled(BlockScheme::MXFP4, Tiny, 1, 32);
  EXPECT_EQ(T.Scales[0], 0);
  // Shape mismatch.
  Result<BlockScaledTensor> Bad =
      quantizeBlockScaled(BlockScheme::MXFP4, Z, 3, 32);
  EXPECT_FALSE(Bad.ok());
  EXPECT_FALSE(Bad.message().empty());
}

} // namespace
