//===- WeightQuantTest.cpp - Per-channel / per-group weight quantization --===//
//
// Part of tilec. The scales, zero points and codes are recomputed here from
// the documented conventions with the reference encoder (Reference.h), and
// the dequantization formula of examples/gemm_wq.tile,
//   W' = (cast(f16, W) - Z) * S       (each operation rounded to f16),
// is evaluated independently.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "tile/Numerics/WeightQuant.h"

#include <gtest/gtest.h>

#include <random>

using namespace tile::numerics;

namespace {

const ref::RefFormat &refF16() {
  static const ref::RefFormat H = ref::makeRef("f16");
  return H;
}

/// Rounds to the nearest f16 value (IEEE overflow).
long double f16(long double V) {
  return refF16().Values[ref::refEncode(refF16(), V, /*IeeeOverflow=*/true)];
}

/// Rounds to the nearest f16 value, saturating.
long double f16Sat(long double V) {
  return refF16().Values[ref::refEncode(refF16(), V)];
}

std::vector<float> randomWeights(size_t K, size_t N, uint32_t Seed) {
  std::mt19937 Gen(Seed);
  std::normal_distribution<float> Norm(0, 0.02f);
  std::vector<float> W(K * N);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = Norm(Gen) * (I % N == 3 ? 10.0f : 1.0f) + (I % N == 5 ? 0.05f : 0);
  return W;
}

struct Expect {
  std::vector<long double> S, Z;
  std::vector<uint32_t> Codes;
  std::vector<long double> Deq;
};

/// The documented conventions, from scratch.
Expect expected(const std::vector<float> &W, size_t K, size_t N, size_t G,
                const std::string &Fmt, bool Sym) {
  ref::RefFormat R = ref::makeRef(Fmt);
  const bool IsInt = R.Family == 'u' || R.Family == 'i';
  const long double QMax = R.maxValue(), QMin = R.minValue();
  Expect E;
  E.Codes.resize(K * N);
  E.Deq.resize(K * N);
  for (size_t Grp = 0; Grp < K / G; ++Grp)
    for (size_t C = 0; C < N; ++C) {
      long double Lo = INFINITY, Hi = -INFINITY, AMax = 0;
      for (size_t Kk = Grp * G; Kk < (Grp + 1) * G; ++Kk) {
        long double V = W[Kk * N + C];
        Lo = std::min(Lo, V), Hi = std::max(Hi, V);
        AMax = std::max(AMax, std::fabs(V));
      }
      long double S, Z;
      if (Sym) {
        // Integers: S = amax / (2^(b-1) - 1), Z = 2^(b-1) for uN, 0 for iN.
        // Floats: S = amax / max, Z = 0.
        long double Levels = IsInt ? std::ldexp(1.0L, R.N - 1) - 1 : QMax;
        S = f16Sat(AMax / Levels);
        Z = R.Family == 'u' ? std::ldexp(1.0L, R.N - 1) : 0;
      } else if (IsInt) {
        // Integers: the range [min(lo, 0), max(hi, 0)] onto [qmin, qmax]
        // with an integer zero point.
        long double L = std::min(Lo, 0.0L), H = std::max(Hi, 0.0L);
        S = f16Sat((H - L) / (QMax - QMin));
        Z = std::nearbyint(QMin - L / S);
        Z = std::min(std::max(Z, QMin), QMax);
      } else {
        // Floats: [lo, hi] centred onto [-max, max].
        S = f16Sat((Hi - Lo) / (2 * QMax));
        Z = f16Sat(-(Hi + Lo) / 2 / S);
      }
      E.S.push_back(S);
      E.Z.push_back(Z);
      for (size_t Kk = Grp * G; Kk < (Grp + 1) * G; ++Kk) {
        size_t I = Kk * N + C;
        E.Codes[I] = ref::refEncode(R, (long double)W[I] / S + Z);
        long double Cv = R.Values[E.Codes[I]];
        E.Deq[I] = f16(f16(f16(Cv) - Z) * S);
      }
    }
  return E;
}

void checkScheme(const std::string &Fmt, size_t G, bool Sym) {
  const size_t K = 64, N = 8;
  std::vector<float> W = randomWeights(K, N, 11 + uint32_t(G));
  WeightQuantOptions O;
  O.CodeFormat = *parseFormat(Fmt);
  O.GroupSize = G;
  O.Symmetric = Sym;
  Result<QuantizedWeights> Q = quantizeWeights(W, K, N, O);
  ASSERT_TRUE(Q.ok()) << Q.message();
  size_t EffG = G ? G : K;
  EXPECT_EQ(Q->GroupSize, EffG);
  ASSERT_EQ(Q->NumGroups, K / EffG);
  Expect E = expected(W, K, N, EffG, Fmt, Sym);
  ASSERT_EQ(Q->Scale.size(), E.S.size());
  for (size_t I = 0; I < E.S.size(); ++I) {
    ASSERT_EQ((long double)Q->Scale[I], E.S[I]) << Fmt << " S[" << I << "]";
    ASSERT_EQ((long double)Q->Zero[I], E.Z[I]) << Fmt << " Z[" << I << "]";
  }
  ASSERT_EQ(Q->Codes, E.Codes) << Fmt;
  std::vector<float> D = dequantizeWeights(*Q);
  long double MaxErr = 0, SumErr = 0;
  for (size_t I = 0; I < D.size(); ++I) {
    ASSERT_EQ((long double)D[I], E.Deq[I]) << Fmt << " element " << I;
    long double Err = std::fabs(E.Deq[I] - W[I]);
    MaxErr = std::max(MaxErr, Err);
    SumErr += Err;
  }
  EXPECT_EQ((long double)Q->Error.MaxAbs, MaxErr);
  EXPECT_NEAR(Q->Error.MeanAbs, double(SumErr / D.size()), 1e-12);
  EXPECT_GT(Q->Error.MaxAbs, 0.0); // it is lossy
  // Integer codes: the error is within half a step (plus f16 rounding)
  // of the group's scale.
  if (Fmt[0] == 'u' || Fmt[0] == 'i')
    for (size_t I = 0; I < D.size(); ++I) {
      long double S = E.S[(I / N / EffG) * N + I % N];
      ASSERT_LE(std::fabs(E.Deq[I] - W[I]),
                S / 2 + std::fabs(W[I]) * 0.002L + 1e-7L)
          << Fmt << " element " << I;
    }
}

TEST(WeightQuant, SymmetricSchemes) {
  for (const char *F : {"u4", "u8", "i4", "i8", "u3", "i2", "f4e2m1", "f8e4m3",
                        "f6e3m2", "f5e2m2"})
    for (size_t G : {size_t(0), size_t(16), size_t(32)})
      checkScheme(F, G, /*Sym=*/true);
}

TEST(WeightQuant, AsymmetricSchemes) {
  for (const char *F :
       {"u4", "u8", "i4", "u2", "u1", "i1", "f4e2m1", "f8e4m3", "f6e2m3"})
    for (size_t G : {size_t(0), size_t(8), size_t(64)})
      checkScheme(F, G, /*Sym=*/false);
}

TEST(WeightQuant, SymmetricU4UsesZeroPointEight) {
  std::vector<float> W = randomWeights(32, 4, 1);
  WeightQuantOptions O; // u4, per-channel, symmetric, f16
  QuantizedWeights Q = *quantizeWeights(W, 32, 4, O);
  for (float Z : Q.Zero)
    EXPECT_EQ(Z, 8.0f);
  // A weight of exactly 0 dequantizes to exactly 0 in both schemes.
  W[4 * 3 + 1] = 0;
  O.Symmetric = false;
  for (bool Sym : {true, false}) {
    O.Symmetric = Sym;
    Q = *quantizeWeights(W, 32, 4, O);
    EXPECT_EQ(dequantizeWeights(Q)[4 * 3 + 1], 0.0f);
  }
}

TEST(WeightQuant, F32Scales) {
  std::vector<float> W = randomWeights(16, 4, 2);
  WeightQuantOptions O;
  O.CodeFormat = *parseFormat("i4");
  O.Scales = ScaleType::F32;
  QuantizedWeights Q = *quantizeWeights(W, 16, 4, O);
  for (size_t C = 0; C < 4; ++C) {
    float AMax = 0;
    for (size_t K = 0; K < 16; ++K)
      AMax = std::max(AMax, std::fabs(W[K * 4 + C]));
    EXPECT_EQ(Q.Scale[C], AMax / 7.0f);
  }
  std::vector<float> D = dequantizeWeights(Q);
  for (size_t I = 0; I < D.size(); ++I) {
    ref::RefFormat I4 = ref::makeRef("i4");
    float Want = (float(I4.Values[Q.Codes[I]]) - 0.0f) * Q.Scale[I % 4];
    EXPECT_EQ(D[I], Want);
  }
  // f16 bits of the scales are what f16 rounding says.
  O.Scales = ScaleType::F16;
  Q = *quantizeWeights(W, 16, 4, O);
  std::vector<uint16_t> Bits = toF16Bits(Q.Scale);
  for (size_t I = 0; I < Bits.size(); ++I)
    EXPECT_EQ((long double)Q.Scale[I], refF16().Values[Bits[I]]);
}

TEST(WeightQuant, ConstantAndZeroGroups) {
  std::vector<float> W(16 * 3, 0.0f);
  for (size_t K = 0; K < 16; ++K)
    W[K * 3 + 1] = 0.5f; // a constant column
  for (bool Sym : {true, false})
    for (const char *F : {"u4", "i4", "f4e2m1"}) {
      WeightQuantOptions O;
      O.CodeFormat = *parseFormat(F);
      O.Symmetric = Sym;
      QuantizedWeights Q = *quantizeWeights(W, 16, 3, O);
      std::vector<float> D = dequantizeWeights(Q);
      for (size_t I = 0; I < D.size(); ++I)
        EXPECT_EQ(D[I], W[I]) << F << " " << Sym << " element " << I;
      EXPECT_EQ(Q.Error.MaxAbs, 0.0);
    }
}

TEST(WeightQuant, BadInputIsAnError) {
  std::vector<float> W(12, 1.0f);
  WeightQuantOptions O;
  auto Fails = [&](size_t K, size_t N, const WeightQuantOptions &Op,
                   const std::vector<float> &Wt) {
    Result<QuantizedWeights> Q = quantizeWeights(Wt, K, N, Op);
    EXPECT_FALSE(Q.ok());
    EXPECT_FALSE(Q.message().empty());
  };
  Fails(3, 5, O, W); // shape mismatch
  Fails(0, 4, O, W); // empty
  O.GroupSize = 5;
  Fails(4, 3, O, W); // 5 does not divide 4
  O.GroupSize = 0;
  for (const char *F : {"e8m0", "f16", "bf16", "f32"}) {
    O.CodeFormat = *parseFormat(F);
    Fails(4, 3, O, W);
  }
  O.CodeFormat = *parseFormat("u1");
  Fails(4, 3, O, W); // symmetric 1-bit
  O.CodeFormat = *parseFormat("u4");
  std::vector<float> NaNs = W;
  NaNs[7] = NAN;
  Fails(4, 3, O, NaNs);
}

} // namespace
