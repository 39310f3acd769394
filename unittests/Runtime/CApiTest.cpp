//===- CApiTest.cpp - Tests of the C API ----------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Random.h"
#include "tile/runtime/tile_runtime.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

TEST(CApiTest, LoadsBundleAndLaunches) {
  std::string Dir = tile::rt::test::makeHostBundle("capi");
  tile_device *Dev = tile_device_open("host");
  ASSERT_NE(Dev, nullptr) << tile_last_error();
  EXPECT_STREQ(tile_device_arch(Dev), "host");
  tile_bundle *B = tile_bundle_load(Dev, Dir.c_str());
  ASSERT_NE(B, nullptr) << tile_last_error();
  ASSERT_EQ(tile_bundle_num_kernels(B), 2u);
  EXPECT_STREQ(tile_bundle_kernel_name(B, 0), "vadd");
  EXPECT_EQ(tile_bundle_kernel_name(B, 2), nullptr);

  const int64_t N = 300;
  auto A = tile::rt::generateTensor("f32", N, 9, "A");
  auto Bv = tile::rt::generateTensor("f32", N, 9, "B");
  ASSERT_TRUE(A && Bv);
  tile_buffer *BA = tile_buffer_create(Dev, N * 4);
  tile_buffer *BB = tile_buffer_create(Dev, N * 4);
  tile_buffer *BC = tile_buffer_create(Dev, N * 4);
  ASSERT_TRUE(BA && BB && BC);
  EXPECT_EQ(tile_buffer_size(BA), uint64_t(N * 4));
  ASSERT_EQ(tile_buffer_upload(BA, A->data(), N * 4, 0), 0);
  ASSERT_EQ(tile_buffer_upload(BB, Bv->data(), N * 4, 0), 0);
  std::vector<uint8_t> Poison(N * 4, 0xFF);
  ASSERT_EQ(tile_buffer_upload(BC, Poison.data(), N * 4, 0), 0);

  tile_arg Args[3] = {{1, BA, &N, 1, "f32", 0},
                      {1, BB, &N, 1, "f32", 0},
                      {1, BC, &N, 1, nullptr, 0}};
  ASSERT_EQ(tile_launch(B, "vadd", Args, 3), 0) << tile_last_error();
  std::vector<float> C(N), FA(N), FB(N);
  ASSERT_EQ(tile_buffer_download(BC, C.data(), N * 4, 0), 0);
  std::memcpy(FA.data(), A->data(), N * 4);
  std::memcpy(FB.data(), Bv->data(), N * 4);
  for (int64_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], FA[I] + FB[I]) << I;

  // Errors come back through tile_last_error().
  int64_t Wrong = N + 1;
  Args[2].shape = &Wrong;
  EXPECT_EQ(tile_launch(B, "vadd", Args, 3), -1);
  EXPECT_STREQ(tile_last_error(), "vadd: dimension N is 300 in A but 301 in C");
  EXPECT_EQ(tile_launch(B, "nope", Args, 3), -1);
  EXPECT_STREQ(tile_last_error(),
               "tile_launch: no kernel named 'nope' for this device in the "
               "bundle");
  EXPECT_EQ(tile_buffer_upload(BA, A->data(), N * 4, 1), -1);
  EXPECT_STREQ(tile_last_error(),
               "upload of 1200 bytes at offset 1 exceeds the buffer's 1200 "
               "bytes");
  EXPECT_EQ(tile_device_open("gpu"), nullptr);
  EXPECT_STREQ(
      tile_last_error(),
      "unknown device 'gpu' (expected host, cuda[:N], hip[:N], cuda-emu or hip-emu)");
  EXPECT_EQ(tile_bundle_load(Dev, "/nonexistent"), nullptr);
  EXPECT_STREQ(tile_last_error(), "cannot open /nonexistent/manifest.json");

  tile_buffer_free(BA);
  tile_buffer_free(BB);
  tile_buffer_free(BC);
  tile_bundle_free(B);
  tile_device_close(Dev);
}

} // namespace

namespace {
/// A [128, 3] weight of 4-bit codes for the packing tests, and its code I.
std::vector<uint8_t> fourBitWeight() {
  std::vector<uint8_t> W(128 * 3 / 2);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = uint8_t(I * 37 + 11);
  return W;
}
unsigned fourBitCode(const std::vector<uint8_t> &S, uint64_t I) {
  return (S[I / 2] >> (4 * (I % 2))) & 0xF;
}
} // namespace

// tile_pack_weights / tile_unpack_weights: a 4-bit [128, 3] weight packed and
// back; code k of column n lands where the operand order puts it (chunk
// position 0 holds k = 0, position 1 holds k = 8: register b1 of lane 0's
// first block); bad shapes fail with a message.
TEST(CApiTest, PacksWeightsInOperandOrder) {
  const uint64_t K = 128, N = 3, Bytes = K * N / 2;
  std::vector<uint8_t> W = fourBitWeight(), Packed(Bytes), Back(Bytes);
  ASSERT_EQ(tile_pack_weights(W.data(), Packed.data(), 4, K, N, 128), 0)
      << tile_last_error();
  auto code = fourBitCode;
  for (uint64_t Col = 0; Col < N; ++Col) {
    EXPECT_EQ(code(Packed, Col * K + 0), code(W, 0 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 1), code(W, 8 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 4), code(W, 1 * N + Col));
  }
  ASSERT_EQ(tile_unpack_weights(Packed.data(), Back.data(), 4, K, N, 128), 0);
  EXPECT_EQ(Back, W);
  EXPECT_EQ(tile_pack_weights(W.data(), Packed.data(), 4, K, N, 48), -1);
  EXPECT_NE(std::string(tile_last_error()).find("multiple of 32"),
            std::string::npos);
  EXPECT_EQ(tile_pack_weights(nullptr, Packed.data(), 4, K, N, 128), -1);
  // bk = 0: the default chunk. For 4 (and 2) bits it is 256: K = 128 is
  // not a whole chunk.
  EXPECT_EQ(tile_pack_weights(W.data(), Packed.data(), 4, K, N, 0), -1);
  EXPECT_NE(std::string(tile_last_error()).find("256"), std::string::npos)
      << tile_last_error();
  EXPECT_EQ(tile_pack_weights(W.data(), Packed.data(), 2, K, N, 0), -1);
  // For 8 bits it is 128: the same packing as bk = 128, not as bk = 64.
  std::vector<uint8_t> W8(K * N), Bk128(K * N), Bk64(K * N), Default(K * N);
  for (uint64_t I = 0; I < K * N; ++I)
    W8[I] = uint8_t(I * 53 + 7);
  ASSERT_EQ(tile_pack_weights(W8.data(), Bk128.data(), 8, K, N, 128), 0)
      << tile_last_error();
  ASSERT_EQ(tile_pack_weights(W8.data(), Bk64.data(), 8, K, N, 64), 0)
      << tile_last_error();
  ASSERT_EQ(tile_pack_weights(W8.data(), Default.data(), 8, K, N, 0), 0)
      << tile_last_error();
  EXPECT_EQ(Default, Bk128);
  EXPECT_NE(Default, Bk64);
  EXPECT_NE(Bk128, W8);
}

// tile_pack_weights_for: AMD's MFMA order (lane group g holds k = 4 g ..
// 4 g + 3 of each k16 step: chunk position 1 holds k = 2, 4 holds k = 1,
// 2 holds k = 16, 32 (the second group's first) k = 4), "mma" or NULL the
// order of tile_pack_weights, an unknown name an error.
TEST(CApiTest, PacksWeightsInMfmaOrder) {
  const uint64_t K = 128, N = 3, Bytes = K * N / 2;
  std::vector<uint8_t> W = fourBitWeight(), Packed(Bytes), Back(Bytes),
                       Mma(Bytes);
  ASSERT_EQ(
      tile_pack_weights_for(W.data(), Packed.data(), 4, K, N, 128, "mfma"), 0)
      << tile_last_error();
  auto code = fourBitCode;
  for (uint64_t Col = 0; Col < N; ++Col) {
    EXPECT_EQ(code(Packed, Col * K + 0), code(W, 0 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 1), code(W, 2 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 4), code(W, 1 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 2), code(W, 16 * N + Col));
    EXPECT_EQ(code(Packed, Col * K + 32), code(W, 4 * N + Col));
  }
  ASSERT_EQ(
      tile_unpack_weights_for(Packed.data(), Back.data(), 4, K, N, 128, "mfma"),
      0);
  EXPECT_EQ(Back, W);
  ASSERT_EQ(tile_pack_weights(W.data(), Mma.data(), 4, K, N, 128), 0);
  std::vector<uint8_t> Named(Bytes), Null(Bytes);
  ASSERT_EQ(tile_pack_weights_for(W.data(), Named.data(), 4, K, N, 128, "mma"),
            0);
  ASSERT_EQ(tile_pack_weights_for(W.data(), Null.data(), 4, K, N, 128, nullptr),
            0);
  EXPECT_EQ(Named, Mma);
  EXPECT_EQ(Null, Mma);
  EXPECT_NE(Packed, Mma);
  EXPECT_EQ(tile_pack_weights_for(W.data(), Packed.data(), 4, K, N, 128, "amd"),
            -1);
  EXPECT_NE(std::string(tile_last_error()).find("'mfma' (AMD), got 'amd'"),
            std::string::npos)
      << tile_last_error();
}
