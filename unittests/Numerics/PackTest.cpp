//===- PackTest.cpp - Dense bit-stream packing ----------------------------===//
//
// Part of tilec. The reference here packs one bit at a time: bit j of
// element i goes to stream bit i * b + j, which is bit (i*b + j) % 8 of byte
// (i*b + j) / 8.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/Pack.h"
#include "tile/Numerics/Format.h"

#include <gtest/gtest.h>

#include <random>

using namespace tile::numerics;

namespace {

std::vector<uint8_t> refPack(const std::vector<uint32_t> &Codes,
                             unsigned Bits) {
  std::vector<uint8_t> Out((Codes.size() * Bits + 7) / 8, 0);
  for (size_t I = 0; I < Codes.size(); ++I)
    for (unsigned J = 0; J < Bits; ++J)
      if ((uint64_t(Codes[I]) >> J) & 1) {
        size_t Bit = I * Bits + J;
        Out[Bit / 8] |= uint8_t(1u << (Bit % 8));
      }
  return Out;
}

uint32_t maskOf(unsigned Bits) {
  return Bits == 32 ? 0xFFFFFFFFu : (1u << Bits) - 1;
}

const size_t Lengths[] = {0,  1,  2,  3,  5,  7,   8,   9,   15,  16,  17,  31,
                          32, 33, 63, 64, 65, 100, 127, 255, 256, 257, 1001};

TEST(Pack, RoundTripsEveryWidthAndLength) {
  std::mt19937 Gen(17);
  for (unsigned B = 1; B <= 32; ++B)
    for (size_t N : Lengths) {
      std::vector<uint32_t> Codes(N);
      for (uint32_t &C : Codes)
        C = uint32_t(Gen()) & maskOf(B);
      Result<std::vector<uint8_t>> P = pack(Codes, B);
      ASSERT_TRUE(P.ok()) << P.message();
      ASSERT_EQ(P->size(), packedSizeBytes(N, B));
      ASSERT_EQ(*P, refPack(Codes, B)) << "b = " << B << ", n = " << N;
      Result<std::vector<uint32_t>> U = unpack(*P, N, B);
      ASSERT_TRUE(U.ok()) << U.message();
      ASSERT_EQ(*U, Codes) << "b = " << B << ", n = " << N;
      // Single-element access agrees.
      for (size_t I = 0; I < N; ++I)
        ASSERT_EQ(readPacked(P->data(), I, B), Codes[I]);
    }
}

TEST(Pack, HighBitsAreIgnoredAndPaddingIsZero) {
  std::mt19937 Gen(3);
  for (unsigned B = 1; B < 32; ++B)
    for (size_t N : {1, 3, 7, 9, 33}) {
      std::vector<uint32_t> Codes(N), Masked(N);
      for (size_t I = 0; I < N; ++I) {
        Codes[I] = uint32_t(Gen()) | (1u << B); // garbage above the width
        Masked[I] = Codes[I] & maskOf(B);
      }
      std::vector<uint8_t> P = *pack(Codes, B);
      EXPECT_EQ(P, refPack(Masked, B));
      size_t UsedBits = N * B;
      if (UsedBits % 8) {
        EXPECT_EQ(P.back() >> (UsedBits % 8), 0) << B << " " << N;
      }
    }
}

TEST(Pack, ByteCodeOverloads) {
  std::mt19937 Gen(5);
  for (unsigned B = 1; B <= 8; ++B)
    for (size_t N : Lengths) {
      std::vector<uint8_t> Codes(N);
      std::vector<uint32_t> Wide(N);
      for (size_t I = 0; I < N; ++I)
        Wide[I] = Codes[I] = uint8_t(Gen() & maskOf(B));
      std::vector<uint8_t> Out(packedSizeBytes(N, B) + 1, 0xAB);
      ASSERT_TRUE(packBits(Codes.data(), N, B, Out.data()).ok());
      EXPECT_EQ(Out.back(), 0xAB) << "wrote past the end";
      Out.pop_back();
      EXPECT_EQ(Out, refPack(Wide, B));
      std::vector<uint8_t> Back(N);
      ASSERT_TRUE(unpackBits(Out.data(), N, B, Back.data()).ok());
      EXPECT_EQ(Back, Codes);
    }
}

TEST(Pack, KnownBytes) {
  // u4: element 0 in the low nibble.
  EXPECT_EQ(*pack({0x1, 0x2, 0x3}, 4), (std::vector<uint8_t>{0x21, 0x03}));
  // u1: LSB first.
  EXPECT_EQ(*pack({1, 0, 0, 0, 0, 0, 0, 1, 1}, 1),
            (std::vector<uint8_t>{0x81, 0x01}));
  // u3: 5 at bits 0-2, 3 at bits 3-5, 7 at bits 6-8: byte 0 holds (MSB to
  // LSB) 11 011 101 = 0xDD, byte 1 the last bit of the 7.
  EXPECT_EQ(*pack({5, 3, 7}, 3), (std::vector<uint8_t>{0xDD, 0x01}));
  // u16 / u32 are little-endian arrays.
  EXPECT_EQ(*pack({0xBEEF}, 16), (std::vector<uint8_t>{0xEF, 0xBE}));
  EXPECT_EQ(*pack({0x12345678}, 32),
            (std::vector<uint8_t>{0x78, 0x56, 0x34, 0x12}));
}

TEST(Pack, DocumentedWorkedExamples) {
  // docs/Numerics.md, section 4 (derived by hand there).
  Format U3 = *parseFormat("u3"), F6 = *parseFormat("f6e3m2");
  std::vector<uint32_t> C;
  for (double V : {5.0, 2.6, 9.0, -1.0, 3.5})
    C.push_back(encode(U3, V));
  EXPECT_EQ(C, (std::vector<uint32_t>{5, 3, 7, 0, 4}));
  EXPECT_EQ(*pack(C, 3), (std::vector<uint8_t>{0xDD, 0x41}));
  C.clear();
  for (double V : {1.0, -0.3, 20.0, 100.0, 0.0625})
    C.push_back(encode(F6, V));
  EXPECT_EQ(C, (std::vector<uint32_t>{0x0C, 0x25, 0x1D, 0x1F, 0x01}));
  EXPECT_EQ(*pack(C, 6), (std::vector<uint8_t>{0x4C, 0xD9, 0x7D, 0x01}));
}

TEST(Pack, TwoDimensionalTensorIsOneStream) {
  // A [3, 3] u3 tensor: row 1 starts at bit 9, not on a byte boundary.
  std::vector<uint32_t> T = {1, 2, 3, 4, 5, 6, 7, 0, 1};
  Result<std::vector<uint8_t>> P = pack2D(T, 3, 3, 3);
  ASSERT_TRUE(P.ok());
  EXPECT_EQ(*P, refPack(T, 3));
  EXPECT_EQ(P->size(), 4u); // 27 bits
  EXPECT_EQ(readPacked(P->data(), 1 * 3 + 0, 3), 4u);
  EXPECT_EQ(*unpack2D(*P, 3, 3, 3), T);
  EXPECT_FALSE(pack2D(T, 2, 3, 3).ok());
  EXPECT_FALSE(unpack2D(*P, 4, 3, 3).ok());
}

TEST(Pack, WritePackedTouchesOnlyItsBits) {
  std::mt19937 Gen(9);
  for (unsigned B : {1u, 3u, 5u, 7u, 12u, 32u}) {
    std::vector<uint32_t> Codes(40);
    for (uint32_t &C : Codes)
      C = uint32_t(Gen()) & maskOf(B);
    std::vector<uint8_t> P = *pack(Codes, B);
    for (size_t I = 0; I < Codes.size(); I += 3) {
      Codes[I] = uint32_t(Gen()) & maskOf(B);
      writePacked(P.data(), I, B, Codes[I]);
    }
    EXPECT_EQ(P, refPack(Codes, B)) << B;
  }
}

TEST(Pack, BadInputIsAnError) {
  std::vector<uint8_t> Buf(16);
  std::vector<uint32_t> Codes(4, 1);
  for (unsigned B : {0u, 33u, 64u}) {
    Status S = packBits(Codes.data(), 4, B, Buf.data());
    EXPECT_FALSE(S.ok());
    EXPECT_FALSE(S.message().empty());
    EXPECT_FALSE(pack(Codes, B).ok());
    EXPECT_FALSE(unpack(Buf, 4, B).ok());
  }
  std::vector<uint8_t> Bytes(4, 1);
  EXPECT_FALSE(packBits(Bytes.data(), 4, 9, Buf.data()).ok());
  EXPECT_FALSE(unpackBits(Buf.data(), 4, 9, Bytes.data()).ok());
  // A stream too short for the element count.
  Result<std::vector<uint32_t>> U = unpack(std::vector<uint8_t>(2), 5, 4);
  EXPECT_FALSE(U.ok());
  EXPECT_NE(U.message().find("too short"), std::string::npos);
}

} // namespace
