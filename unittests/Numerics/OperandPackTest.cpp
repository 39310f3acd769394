//===- OperandPackTest.cpp - Weights in a tensor-core operand's order -----===//
//
// Part of tilec. The reference here states the order from the mma.sync
// m16n8k16 B fragment (PTX ISA): lane l holds B[k][n] for n = l / 4 and
// k = 2 (l % 4) + {0, 1} (register b0) and + 8 (register b1) of every
// 16-row block. A thread reading 16 contiguous bytes of a packed row must
// find all its codes of the chunk, the two codes of a register (p = 0, 1)
// 16 bits apart (16 / b positions for b = 1, 2, 4, 8 bits, within the
// chunk; for other widths as far apart as one LOP3 window allows: four
// positions for 3 and 5 bits, two for 6 and 7), the other codes in the
// fragment's block and register order.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/OperandPack.h"
#include "tile/Numerics/Pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace tile::numerics;

namespace {

/// Whether codes of \p Bits bits, \p D positions apart, fit one 32-bit
/// window as the mantissas of an f16 pair: the first S bits up (low half),
/// the second S + D * Bits - 16 bits up (high half), both with S + Bits
/// <= 10 so that they stay below the exponent.
bool fitsOneWindow(unsigned Bits, size_t D) {
  for (int S = 0; S + int(Bits) <= 10; ++S) {
    int High = S + int(D * Bits) - 16;
    if (High >= 0 && High + int(Bits) <= 10)
      return true;
  }
  return false;
}

/// Positions between a register's two codes: 16 bits for widths that
/// divide 16, as far as the thread's BK / 4 codes allow; for other widths
/// the largest power of two up to 4 that fits one window.
size_t refDistance(unsigned Bits, size_t BK) {
  if (16 % Bits) {
    size_t D = 4;
    while (D > 1 && !fitsOneWindow(Bits, D))
      D /= 2;
    return D;
  }
  return std::min<size_t>(16 / Bits, BK / 8);
}

/// The packed position of chunk-relative k, from the fragment's view.
size_t refPosition(size_t K, size_t BK, unsigned Bits) {
  size_t Block = K / 16, InBlock = K % 16;
  size_t Lane4 = (InBlock % 8) / 2; // l % 4
  size_t P = InBlock % 2;           // code within the register
  size_t H = InBlock / 8;           // register b0 or b1
  size_t KL = Block % 2, KH = Block / 2;
  // The thread's registers in order (block pairs, then b0/b1), with the
  // register's second code D positions after its first.
  size_t Reg = KH * 4 + KL * 2 + H, D = refDistance(Bits, BK);
  return Lane4 * (BK / 4) + Reg / D * 2 * D + P * D + Reg % D;
}

TEST(OperandPack, PositionsFollowTheFragment) {
  for (unsigned Bits = 1; Bits <= 8; ++Bits)
    for (size_t BK : {32, 64, 128, 256, 512}) {
      std::vector<bool> Seen(BK, false);
      for (size_t Pos = 0; Pos < BK; ++Pos) {
        size_t K = operandOrderK(Pos, BK, Bits);
        ASSERT_LT(K, BK);
        EXPECT_EQ(refPosition(K, BK, Bits), Pos)
            << Bits << " bits, BK " << BK << ", k " << K;
        EXPECT_FALSE(Seen[K]) << "k " << K << " twice";
        Seen[K] = true;
      }
    }
}

// The point of the distance: for 1, 2 and 4 bits a register's two codes are
// one 32-bit word's slots j and j + 16 / b, which one LOP3 converts; for 8
// bits, bytes j and j + 2 of a word.
TEST(OperandPack, RegisterPairsAreSixteenBitsApart) {
  for (unsigned Bits : {1u, 2u, 4u, 8u}) {
    size_t BK = defaultOperandBlockK(Bits);
    for (size_t Pos = 0; Pos < BK; ++Pos) {
      size_t K = operandOrderK(Pos, BK, Bits);
      if (K % 2)
        continue; // p = 1: the partner of the code at k - 1
      size_t Partner = Pos + 16 / Bits;
      ASSERT_LT(Partner, BK);
      EXPECT_EQ(operandOrderK(Partner, BK, Bits), K + 1)
          << Bits << " bits, position " << Pos;
      EXPECT_EQ(Pos * Bits / 32, Partner * Bits / 32) << "same word";
    }
  }
}

// For 3, 5, 6 and 7 bits no distance puts a pair 16 bits apart; the chosen
// one lets a single shifted word hold both codes where an f16 pair's
// mantissas are (the GPU lowering converts the pair with one LOP3 there).
TEST(OperandPack, OddWidthPairsFitOneWindow) {
  EXPECT_EQ(oddWidthPairDistance(3), 4u);
  EXPECT_EQ(oddWidthPairDistance(5), 4u);
  EXPECT_EQ(oddWidthPairDistance(6), 2u);
  EXPECT_EQ(oddWidthPairDistance(7), 2u);
  for (unsigned Bits : {3u, 5u, 6u, 7u}) {
    size_t D = oddWidthPairDistance(Bits);
    EXPECT_TRUE(fitsOneWindow(Bits, D)) << Bits;
    EXPECT_FALSE(fitsOneWindow(Bits, 2 * D)) << Bits;
    for (size_t BK : {32, 128, 256}) {
      EXPECT_EQ(pairDistance(Bits, BK), D);
      for (size_t Pos = 0; Pos < BK; ++Pos) {
        size_t K = operandOrderK(Pos, BK, Bits);
        if (K % 2 == 0)
          EXPECT_EQ(operandOrderK(Pos + D, BK, Bits), K + 1)
              << Bits << " bits, position " << Pos;
      }
    }
  }
}

/// A random dense stream of K * N Bits-bit codes (padding bits zero).
std::vector<uint8_t> randomCodes(std::mt19937 &Gen, unsigned Bits, size_t K,
                                 size_t N) {
  std::vector<uint8_t> W((K * N * Bits + 7) / 8);
  for (uint8_t &B : W)
    B = uint8_t(Gen());
  // Padding bits of the last byte are not codes.
  if ((K * N * Bits) % 8)
    W.back() &= uint8_t((1u << ((K * N * Bits) % 8)) - 1);
  return W;
}

/// Samples Wp[n, c * BK + pos] = W[c * BK + k, n] with pos = Position(k).
template <typename PositionFn>
void expectPackedAt(std::mt19937 &Gen, const std::vector<uint8_t> &Wp,
                    const std::vector<uint8_t> &W, unsigned Bits, size_t K,
                    size_t N, size_t BK, PositionFn Position) {
  for (size_t I = 0; I < 50; ++I) {
    size_t Nn = Gen() % N, Kk = Gen() % K;
    size_t Pos = Kk / BK * BK + Position(Kk % BK);
    ASSERT_EQ(readPacked(Wp.data(), Nn * K + Pos, Bits),
              readPacked(W.data(), Kk * N + Nn, Bits))
        << Bits << " bits, k " << Kk << ", n " << Nn;
  }
}

TEST(OperandPack, RoundTripsEveryWidth) {
  std::mt19937 Gen(5);
  for (unsigned Bits = 1; Bits <= 8; ++Bits)
    for (auto [K, N, BK] : {std::tuple<size_t, size_t, size_t>{128, 72, 128},
                            {256, 5, 64},
                            {96, 33, 32},
                            {512, 3, 256}}) {
      std::vector<uint8_t> W = randomCodes(Gen, Bits, K, N);
      Result<std::vector<uint8_t>> P =
          packOperandOrder(W.data(), Bits, K, N, BK);
      ASSERT_TRUE(P.ok()) << P.message();
      ASSERT_EQ(P->size(), W.size());
      // Wp[n, c * BK + pos] = W[c * BK + k(pos), n], from the reference.
      expectPackedAt(Gen, *P, W, Bits, K, N, BK,
                     [&](size_t Kk) { return refPosition(Kk, BK, Bits); });
      Result<std::vector<uint8_t>> U =
          unpackOperandOrder(P->data(), Bits, K, N, BK);
      ASSERT_TRUE(U.ok()) << U.message();
      EXPECT_EQ(*U, W) << Bits << " bits, K " << K << ", BK " << BK;
    }
}

// AMD's MFMA 16x16x16 operand (16 lanes per row or column, four lane
// groups g): lane group g holds k = 4 g .. 4 g + 3 of each k16 step x, as
// two registers of two codes; a lane's registers in order are (x, i / 2),
// the register's second code D positions after its first.
size_t refPositionMfma(size_t K, size_t BK, unsigned Bits) {
  size_t X = K / 16, G = (K % 16) / 4, I = K % 4;
  size_t Reg = 2 * X + I / 2, P = I % 2, D = refDistance(Bits, BK);
  return G * (BK / 4) + Reg / D * 2 * D + P * D + Reg % D;
}

TEST(OperandPack, MfmaPositionsFollowTheFragment) {
  for (unsigned Bits = 1; Bits <= 8; ++Bits)
    for (size_t BK : {32, 64, 128, 256, 512}) {
      std::vector<bool> Seen(BK, false);
      size_t Differ = 0;
      for (size_t Pos = 0; Pos < BK; ++Pos) {
        size_t K = operandOrderK(Pos, BK, Bits, OperandOrder::Mfma);
        ASSERT_LT(K, BK);
        EXPECT_EQ(refPositionMfma(K, BK, Bits), Pos)
            << Bits << " bits, BK " << BK << ", k " << K;
        EXPECT_FALSE(Seen[K]) << "k " << K << " twice";
        Seen[K] = true;
        Differ += K != operandOrderK(Pos, BK, Bits, OperandOrder::Mma);
      }
      EXPECT_GT(Differ, 0u) << "the MFMA order is not the mma one";
      // A lane group's BK / 4 positions hold its own k only.
      for (size_t Pos = 0; Pos < BK; ++Pos)
        EXPECT_EQ(operandOrderK(Pos, BK, Bits, OperandOrder::Mfma) % 16 / 4,
                  Pos / (BK / 4));
    }
}

TEST(OperandPack, MfmaRoundTripsAndPairs) {
  std::mt19937 Gen(9);
  for (unsigned Bits = 1; Bits <= 8; ++Bits) {
    size_t K = 512, N = 7, BK = defaultOperandBlockK(Bits);
    std::vector<uint8_t> W = randomCodes(Gen, Bits, K, N);
    auto P = packOperandOrder(W.data(), Bits, K, N, BK, OperandOrder::Mfma);
    ASSERT_TRUE(P.ok()) << P.message();
    expectPackedAt(Gen, *P, W, Bits, K, N, BK,
                   [&](size_t Kk) { return refPositionMfma(Kk, BK, Bits); });
    auto Mma = packOperandOrder(W.data(), Bits, K, N, BK);
    ASSERT_TRUE(Mma.ok());
    EXPECT_NE(*P, *Mma) << Bits;
    auto U = unpackOperandOrder(P->data(), Bits, K, N, BK, OperandOrder::Mfma);
    ASSERT_TRUE(U.ok()) << U.message();
    EXPECT_EQ(*U, W) << Bits << " bits";
    // The register pairs sit as in the mma order: k and k + 1 D apart.
    size_t D = pairDistance(Bits, BK);
    for (size_t Pos = 0; Pos < BK; ++Pos) {
      size_t Kp = operandOrderK(Pos, BK, Bits, OperandOrder::Mfma);
      if (Kp % 2 == 0)
        EXPECT_EQ(operandOrderK(Pos + D, BK, Bits, OperandOrder::Mfma), Kp + 1)
            << Bits << " bits, position " << Pos;
    }
  }
}

TEST(OperandPack, ParsesOrderNames) {
  ASSERT_TRUE(parseOperandOrder("mma").ok());
  EXPECT_EQ(*parseOperandOrder("mma"), OperandOrder::Mma);
  EXPECT_EQ(*parseOperandOrder("mfma"), OperandOrder::Mfma);
  EXPECT_NE(
      parseOperandOrder("wmma").message().find("'mma' (NVIDIA) or 'mfma'"),
      std::string::npos);
}

// The default chunk: 512 codes for 1 bit, 256 for 2-4 bits, 128 for 5-8
// (the example's default, the fastest measured on an H100);
// always a multiple of 32, and a thread's codes (BK / 4 of them) at least
// 16 bytes.
TEST(OperandPack, DefaultBlockK) {
  const size_t Want[9] = {0, 512, 256, 256, 256, 128, 128, 128, 128};
  for (unsigned Bits = 1; Bits <= 8; ++Bits) {
    size_t BK = defaultOperandBlockK(Bits);
    EXPECT_EQ(BK, Want[Bits]) << Bits;
    EXPECT_EQ(BK % 32, 0u) << Bits;
    EXPECT_GE(BK / 4 * Bits, 128u) << Bits;
  }
}

TEST(OperandPack, RejectsBadShapes) {
  uint8_t W[64] = {};
  EXPECT_NE(packOperandOrder(W, 9, 128, 1, 128).message().find("1..8"),
            std::string::npos);
  EXPECT_NE(packOperandOrder(W, 4, 128, 1, 48).message().find("multiple of 32"),
            std::string::npos);
  EXPECT_NE(packOperandOrder(W, 4, 96, 1, 64).message().find("multiple of BK"),
            std::string::npos);
  EXPECT_FALSE(unpackOperandOrder(W, 4, 128, 0, 128).ok());
}

} // namespace
