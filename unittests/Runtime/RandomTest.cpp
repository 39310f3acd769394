//===- RandomTest.cpp - Tests of the seeded input generator ---------------===//
//
// The generator's definition is its specification (Random.h), so the first
// outputs are pinned to goldens computed by an independent implementation
// (Python, from the published splitmix64 / xoshiro256** / FNV-1a
// definitions).
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace tile::rt;
namespace num = tile::numerics;

namespace {

TEST(RandomTest, SplitMixAndFnvGoldens) {
  uint64_t State = 0;
  EXPECT_EQ(splitmix64(State), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(State), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(splitmix64(State), 0x06C45D188009454Full);
  EXPECT_EQ(fnv1a64(""), 0xCBF29CE484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8Cull);
  EXPECT_EQ(fnv1a64("A"), 0xAF63FC4C860222ECull);
}

TEST(RandomTest, XoshiroGolden) {
  Rng R(42);
  EXPECT_EQ(R.next(), 0x15780B2E0C2EC716ull);
  EXPECT_EQ(R.next(), 0x6104D9866D113A7Eull);
  EXPECT_EQ(R.next(), 0xAE17533239E499A1ull);
  EXPECT_EQ(R.next(), 0xECB8AD4703B360A1ull);
}

TEST(RandomTest, NormalsGolden) {
  // Seed 1, tensor "A", f32: the Box-Muller pairs rounded to f32.
  Expected<std::vector<uint32_t>> Codes = [] {
    Rng R = Rng::forTensor(1, "A");
    return generateCodes("f32", 6, R);
  }();
  ASSERT_TRUE(Codes) << Codes.message();
  EXPECT_EQ(*Codes,
            (std::vector<uint32_t>{3213254615u, 1029500051u, 1052247428u,
                                   3196705298u, 3184491382u, 1065405763u}));
}

TEST(RandomTest, NormalBitsGolden) {
  // The doubles themselves, before rounding to a format.
  Rng R = Rng::forTensor(1, "A");
  const uint64_t Want[6] = {13830778734182629765ull, 4587933897333623660ull,
                            4600146302227147647ull,  13821893887010995905ull,
                            13815336590928110494ull, 4607210629792591678ull};
  for (uint64_t W : Want) {
    double Z = R.normal();
    uint64_t Bits;
    std::memcpy(&Bits, &Z, 8);
    EXPECT_EQ(Bits, W);
  }
}

double fromBits(uint64_t Bits) {
  double D;
  std::memcpy(&D, &Bits, 8);
  return D;
}

TEST(RandomTest, DeterministicMathGoldensAndAccuracy) {
  EXPECT_EQ(detLog(1.0), 0.0);
  EXPECT_EQ(detLog(0.5), fromBits(0xBFE62E42FEFA39EFull));
  EXPECT_EQ(detLog(0.1), fromBits(0xC0026BB1BBB55515ull));
  EXPECT_EQ(detLog(1e-300), fromBits(0xC085963447F87FB5ull));
  double S, C;
  detSinCos2Pi(0.3, S, C);
  EXPECT_EQ(S, fromBits(0x3FEE6F0E134454FFull));
  EXPECT_EQ(C, fromBits(0xBFD3C6EF372FE94Full));
  detSinCos2Pi(0.75, S, C);
  EXPECT_EQ(S, -1.0);
  EXPECT_EQ(C, 0.0);
  // Within a few ulps of libm everywhere on the ranges used.
  Rng R(123);
  for (int I = 0; I < 100000; ++I) {
    double U = R.uniform();
    double X = 1.0 - U;
    EXPECT_NEAR(detLog(X), std::log(X), 1e-15 * std::max(1.0, -std::log(X)));
    detSinCos2Pi(U, S, C);
    EXPECT_NEAR(S, std::sin(2 * M_PI * U), 2e-15);
    EXPECT_NEAR(C, std::cos(2 * M_PI * U), 2e-15);
  }
}

TEST(RandomTest, IntegerCodesGolden) {
  Rng R = Rng::forTensor(7, "W");
  Expected<std::vector<uint32_t>> Codes = generateCodes("u4", 8, R);
  ASSERT_TRUE(Codes);
  EXPECT_EQ(*Codes, (std::vector<uint32_t>{9, 4, 7, 9, 6, 7, 12, 5}));
  // The packed tensor is the dense LSB-first stream of those codes.
  Expected<std::vector<uint8_t>> Packed = generateTensor("u4", 8, 7, "W");
  ASSERT_TRUE(Packed);
  EXPECT_EQ(*Packed, (std::vector<uint8_t>{0x49, 0x97, 0x76, 0x5C}));
}

TEST(RandomTest, DeterministicAndNameDependent) {
  auto A1 = generateTensor("f16", 1000, 3, "A");
  auto A2 = generateTensor("f16", 1000, 3, "A");
  auto B = generateTensor("f16", 1000, 3, "B");
  auto A4 = generateTensor("f16", 1000, 4, "A");
  ASSERT_TRUE(A1 && A2 && B && A4);
  EXPECT_EQ(*A1, *A2);
  EXPECT_NE(*A1, *B);
  EXPECT_NE(*A1, *A4);
  // A prefix of a longer tensor is the shorter tensor.
  auto Long = generateTensor("f16", 1001, 3, "A");
  ASSERT_TRUE(Long);
  EXPECT_TRUE(std::equal(A1->begin(), A1->end(), Long->begin()));
}

TEST(RandomTest, FloatsAreStandardNormal) {
  const int N = 200000;
  for (const char *DType : {"f32", "f16", "bf16"}) {
    Rng R = Rng::forTensor(11, DType);
    Expected<std::vector<uint32_t>> Codes = generateCodes(DType, N, R);
    ASSERT_TRUE(Codes);
    num::Format F = *num::parseFormat(DType);
    double Sum = 0, Sq = 0;
    int Within1 = 0;
    for (uint32_t C : *Codes) {
      double V = num::decode(F, C);
      Sum += V;
      Sq += V * V;
      Within1 += std::fabs(V) <= 1.0;
    }
    double Mean = Sum / N, Var = Sq / N - Mean * Mean;
    EXPECT_NEAR(Mean, 0.0, 0.01) << DType;
    EXPECT_NEAR(Var, 1.0, 0.02) << DType;
    EXPECT_NEAR(double(Within1) / N, 0.6827, 0.01) << DType; // P(|z| <= 1).
  }
}

TEST(RandomTest, SmallFloatsAreRoundedNormals) {
  // f4e2m1 values are N(0,1) rounded: every code occurs, most mass near 0.
  Rng R = Rng::forTensor(5, "X");
  Rng Ref = Rng::forTensor(5, "X");
  Expected<std::vector<uint32_t>> Codes = generateCodes("f4e2m1", 5000, R);
  ASSERT_TRUE(Codes);
  num::Format F = *num::parseFormat("f4e2m1");
  for (uint32_t C : *Codes)
    EXPECT_EQ(C, num::encode(F, Ref.normal()));
  // e8m0 has no sign: it encodes |z|.
  Rng R2 = Rng::forTensor(5, "S"), Ref2 = Rng::forTensor(5, "S");
  Expected<std::vector<uint32_t>> Scales = generateCodes("e8m0", 1000, R2);
  ASSERT_TRUE(Scales);
  num::Format E8 = num::Format::e8m0();
  for (uint32_t C : *Scales)
    EXPECT_EQ(C, num::encode(E8, std::fabs(Ref2.normal())));
}

TEST(RandomTest, IntegersAreUniformOverCodes) {
  const int N = 80000;
  for (const char *DType : {"u3", "i3", "u1"}) {
    Rng R = Rng::forTensor(9, DType);
    Expected<std::vector<uint32_t>> Codes = generateCodes(DType, N, R);
    ASSERT_TRUE(Codes);
    unsigned Bits = num::parseFormat(DType)->bits();
    std::vector<int> Hist(1u << Bits, 0);
    for (uint32_t C : *Codes) {
      ASSERT_LT(C, 1u << Bits);
      ++Hist[C];
    }
    for (int H : Hist)
      EXPECT_NEAR(double(H) / N, 1.0 / Hist.size(), 0.01) << DType;
  }
}

TEST(RandomTest, BadFormat) {
  Expected<std::vector<uint8_t>> T = generateTensor("q9", 4, 1, "A");
  ASSERT_FALSE(T);
  EXPECT_FALSE(T.message().empty());
}

} // namespace

namespace {

TEST(RandomTest, BatchedNormalsMatchOneByOne) {
  // Starts with a spare, crosses a chunk of draws, ends on half a pair.
  const uint64_t N = (uint64_t(1) << 19) + 1027;
  Rng Batched(77), Single(77);
  (void)Batched.normal();
  (void)Single.normal();
  std::vector<double> Got(N);
  Batched.normals(Got.data(), N);
  for (uint64_t I = 0; I < N; ++I) {
    double Want = Single.normal();
    ASSERT_EQ(std::memcmp(&Got[I], &Want, sizeof(double)), 0) << "value " << I;
  }
  // Both generators are at the same place afterwards (the spare included).
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(Batched.normal(), Single.normal());
}

TEST(RandomTest, LargeFloatTensorsMatchTheSequentialDefinition) {
  // Large enough for the parallel encode; every code checked against one
  // normal() at a time through lib/Numerics.
  const uint64_t N = (uint64_t(1) << 20) + 5;
  Rng R = Rng::forTensor(9, "x");
  Expected<std::vector<uint32_t>> Codes = generateCodes("f16", N, R);
  ASSERT_TRUE(Codes) << Codes.message();
  Rng Ref = Rng::forTensor(9, "x");
  tile::numerics::Format F16 = *tile::numerics::parseFormat("f16");
  for (uint64_t I = 0; I < N; ++I)
    ASSERT_EQ((*Codes)[I], tile::numerics::encode(F16, Ref.normal()))
        << "element " << I;
}

} // namespace
