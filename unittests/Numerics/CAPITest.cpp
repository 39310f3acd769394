//===- CAPITest.cpp - The C ABI of lib/Numerics ---------------------------===//
//
// Part of tilec. The ids documented in CAPI.h, computed the way a code
// generator would (TILE_NUM_FORMAT_ID), and the C entry points against the
// reference model.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "tile/Numerics/CAPI.h"

#include <gtest/gtest.h>

#include <random>

namespace {

TEST(CAPI, DocumentedIds) {
  struct Row {
    const char *Name;
    uint32_t Id;
  } Rows[] = {
      {"u4", 0x00000400u},     {"i8", 0x00000801u},   {"f4e2m1", 0x01020402u},
      {"f8e4m3", 0x03040802u}, {"e8m0", 0x00080803u}, {"f16", 0x0A051004u},
      {"bf16", 0x07081005u},   {"f32", 0x17082006u},
  };
  for (const Row &R : Rows) {
    EXPECT_EQ(tile_num_format_id(R.Name), R.Id) << R.Name;
    EXPECT_EQ(tile_num_format_valid(R.Id), 1) << R.Name;
  }
  EXPECT_EQ(tile_num_format_id("u32"),
            TILE_NUM_FORMAT_ID(TILE_NUM_KIND_UINT, 32, 0, 0));
  EXPECT_EQ(tile_num_format_id("i3"),
            TILE_NUM_FORMAT_ID(TILE_NUM_KIND_SINT, 3, 0, 0));
  EXPECT_EQ(tile_num_format_id("f6e3m2"),
            TILE_NUM_FORMAT_ID(TILE_NUM_KIND_SMALL_FLOAT, 6, 3, 2));
  EXPECT_EQ(tile_num_format_id("f2e1m0"),
            TILE_NUM_FORMAT_ID(TILE_NUM_KIND_SMALL_FLOAT, 2, 1, 0));
}

TEST(CAPI, InvalidInputs) {
  EXPECT_EQ(tile_num_format_id("f9e4m4"), 0u);
  EXPECT_EQ(tile_num_format_id(nullptr), 0u);
  EXPECT_EQ(tile_num_format_valid(0), 0);
  uint32_t Bad = TILE_NUM_FORMAT_ID(TILE_NUM_KIND_SMALL_FLOAT, 4, 1, 1);
  EXPECT_EQ(tile_num_format_valid(Bad), 0);
  EXPECT_TRUE(std::isnan(tile_num_decode(1, Bad)));
  EXPECT_TRUE(std::isnan(tile_num_decode_f64(1, 99)));
  EXPECT_EQ(tile_num_encode_f32(1.0f, Bad), 0u);
  EXPECT_EQ(tile_num_convert(1, Bad, tile_num_format_id("u4")), 0u);
  uint32_t Codes[2] = {1, 2};
  uint8_t Out[8] = {};
  EXPECT_EQ(tile_num_pack(Codes, 2, 0, Out), -1);
  EXPECT_EQ(tile_num_unpack(Out, 2, 33, Codes), -1);
}

TEST(CAPI, DecodeEncodeEveryByteFormat) {
  std::mt19937 Gen(21);
  for (const std::string &N : ref::allByteFormatNames()) {
    ref::RefFormat R = ref::makeRef(N);
    uint32_t Id = tile_num_format_id(N.c_str());
    ASSERT_NE(Id, 0u) << N;
    for (uint32_t C = 0; C < R.Values.size(); ++C) {
      long double V = R.Values[C];
      float F = tile_num_decode(C, Id);
      double D = tile_num_decode_f64(C, Id);
      if (std::isnan(V)) {
        EXPECT_TRUE(std::isnan(F) && std::isnan(D)) << N;
        continue;
      }
      EXPECT_EQ((long double)F, V) << N << " " << C;
      EXPECT_EQ((long double)D, V) << N << " " << C;
      EXPECT_EQ(tile_num_encode_f32(float(V), Id), C) << N << " " << C;
    }
    std::uniform_real_distribution<float> U(-2 * float(R.maxValue()),
                                            2 * float(R.maxValue()));
    for (int K = 0; K < 2000; ++K) {
      float X = U(Gen);
      EXPECT_EQ(tile_num_encode_f32(X, Id), ref::refEncode(R, X)) << N;
      EXPECT_EQ(tile_num_encode_f64(double(X), Id), ref::refEncode(R, X)) << N;
    }
  }
}

TEST(CAPI, ConvertAndHalfHelpers) {
  uint32_t E4 = tile_num_format_id("f8e4m3"), H = tile_num_format_id("f16");
  uint32_t U4 = tile_num_format_id("u4");
  ref::RefFormat RE4 = ref::makeRef("f8e4m3"), RH = ref::makeRef("f16");
  ref::RefFormat RU4 = ref::makeRef("u4");
  for (uint32_t C = 0; C < 256; ++C) {
    EXPECT_EQ(tile_num_convert(C, E4, H),
              ref::refEncode(RH, RE4.Values[C], /*IeeeOverflow=*/true));
    EXPECT_EQ(tile_num_convert(C, E4, U4), ref::refEncode(RU4, RE4.Values[C]));
  }
  for (uint32_t C = 0; C < 65536; C += 7) {
    long double V = RH.Values[C];
    float F = tile_num_f16_to_f32(uint16_t(C));
    if (std::isnan(V)) {
      EXPECT_TRUE(std::isnan(F));
      continue;
    }
    EXPECT_EQ((long double)F, V);
    EXPECT_EQ(tile_num_f32_to_f16(F), C);
    EXPECT_EQ(tile_num_encode_f32(F, H), C);
  }
  EXPECT_EQ(tile_num_f32_to_bf16(1.0f), 0x3F80u);
  EXPECT_EQ(tile_num_bf16_to_f32(0x3F80), 1.0f);
  // 1 + 2^-8 is a tie between bf16 1.0 (even) and 1 + 2^-7.
  EXPECT_EQ(tile_num_f32_to_bf16(1.00390625f), 0x3F80u);
  EXPECT_EQ(tile_num_f32_to_bf16(1.01171875f), 0x3F82u);
}

TEST(CAPI, PackRoundTrip) {
  uint32_t Codes[9] = {1, 2, 3, 4, 5, 6, 7, 0, 5};
  uint8_t Out[5] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  ASSERT_EQ(tile_num_pack(Codes, 9, 3, Out), 0);
  EXPECT_EQ(Out[3] >> 3, 0) << "padding bits of the last byte are zero";
  EXPECT_EQ(Out[4], 0xFF) << "27 bits fill 4 bytes; wrote a 5th?";
  uint32_t Back[9] = {};
  ASSERT_EQ(tile_num_unpack(Out, 9, 3, Back), 0);
  for (int I = 0; I < 9; ++I)
    EXPECT_EQ(Back[I], Codes[I]);
}

} // namespace
