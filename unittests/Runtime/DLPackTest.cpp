//===- DLPackTest.cpp - Tensors from DLPack -------------------------------===//
//
// Part of tilec. DLPack tensors become kernel arguments in place: dtypes,
// byte offsets, strides, devices, reinterpreted byte storage, and a host
// kernel run on memory the "framework" owns.
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"
#include "tile/runtime/DLPack.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace tile::rt;

namespace {

TEST(DLPackTest, DTypes) {
  auto name = [](uint8_t Code, uint8_t Bits, uint16_t Lanes = 1) {
    Expected<const char *> N = dlpackTypeName({Code, Bits, Lanes});
    return N ? std::string(*N) : "error: " + N.message();
  };
  EXPECT_EQ(name(2, 16), "f16");
  EXPECT_EQ(name(2, 32), "f32");
  EXPECT_EQ(name(4, 16), "bf16");
  EXPECT_EQ(name(0, 8), "i8");
  EXPECT_EQ(name(1, 32), "u32");
  EXPECT_EQ(name(6, 8), "u8");
  EXPECT_EQ(name(10, 8), "f8e4m3");
  EXPECT_EQ(name(12, 8), "f8e5m2");
  EXPECT_EQ(name(14, 8), "e8m0");
  EXPECT_EQ(name(2, 64), "error: DLPack dtype (code 2, bits 64, lanes 1) has "
                         "no tile type (pass its storage as uint8 with a "
                         "dtype to reinterpret it as)");
  EXPECT_EQ(name(11, 8).substr(0, 6), "error:"); // e4m3fnuz
  EXPECT_EQ(name(2, 32, 4), "error: DLPack dtype (code 2, bits 32, lanes 4): "
                            "vector dtypes are not supported");
}

TEST(DLPackTest, HostTensorsInPlace) {
  Expected<Device> D = Device::open("host");
  ASSERT_TRUE(D);
  std::vector<uint8_t> Storage(4096 + 64);
  int64_t Shape[2] = {32, 64}, Strides[2] = {64, 1};
  TileDLTensor T{};
  T.data = Storage.data();
  T.device = {kTileDLCPU, 0};
  T.ndim = 2;
  T.dtype = {1, 8, 1}; // uint8
  T.shape = Shape;
  T.strides = Strides;
  T.byte_offset = 64;
  Expected<ArgValue> A = tensorFromDLPack(T, *D);
  ASSERT_TRUE(A) << A.message();
  EXPECT_EQ(A->Address, reinterpret_cast<uint64_t>(Storage.data()) + 64);
  EXPECT_EQ(A->Bytes, 2048u);
  EXPECT_EQ(A->DType, "u8");
  EXPECT_EQ(A->Shape, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(A->Strides, (std::vector<int64_t>{64, 1}));
  // Packed u4 codes in uint8 storage: [32, 64] bytes hold u4 [32, 128].
  Expected<ArgValue> U4 = tensorFromDLPack(T, *D, "u4", {32, 128});
  ASSERT_TRUE(U4) << U4.message();
  EXPECT_EQ(U4->DType, "u4");
  EXPECT_EQ(U4->Shape, (std::vector<int64_t>{32, 128}));
  EXPECT_EQ(tensorFromDLPack(T, *D, "u4", {32, 129}).message(),
            "a DLPack tensor of 2048 bytes cannot hold u4 of 4128 elements "
            "(2064 bytes)");
  EXPECT_EQ(tensorFromDLPack(T, *D, "u5x").message().substr(0, 31),
            "reinterpreting a DLPack tensor:");
  int64_t Transposed[2] = {1, 32};
  T.strides = Transposed;
  EXPECT_EQ(tensorFromDLPack(T, *D, "u4").message(),
            "a DLPack tensor with strides that are not dense row-major cannot "
            "be reinterpreted");
  T.strides = nullptr;
  T.device = {kTileDLCUDA, 0};
  EXPECT_EQ(
      tensorFromDLPack(T, *D).message(),
      "DLPack tensor on device type 2 id 0 cannot be read by kernels on " +
          D->name() + " (host:0)");
}

TEST(DLPackTest, HostKernelRunsOnFrameworkMemory) {
  // vadd over float32 arrays the "framework" owns, output poisoned.
  Expected<Device> D = Device::open("host");
  ASSERT_TRUE(D);
  std::string Dir = test::makeHostBundle("dlpack");
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  Expected<Kernel> K = B->loadKernel(*D, B->manifest().Kernels[0]);
  ASSERT_TRUE(K) << K.message();
  const int64_t N = 300;
  std::vector<float> X(N), Y(N), Z(N, std::nanf(""));
  for (int64_t I = 0; I < N; ++I) {
    X[I] = 0.25f * float(I) - 3;
    Y[I] = 1.5f - 0.125f * float(I % 17);
  }
  int64_t Shape[1] = {N};
  auto dl = [&](std::vector<float> &V) {
    TileDLTensor T{};
    T.data = V.data();
    T.device = {kTileDLCPU, 0};
    T.ndim = 1;
    T.dtype = {2, 32, 1};
    T.shape = Shape;
    return T;
  };
  std::vector<ArgValue> Args;
  for (std::vector<float> *V : {&X, &Y, &Z}) {
    TileDLTensor T = dl(*V);
    Expected<ArgValue> A = tensorFromDLPack(T, *D);
    ASSERT_TRUE(A) << A.message();
    Args.push_back(*A);
  }
  Stream S = D->wrapStream(nullptr);
  Error E = K->launch(Args, {}, &S);
  ASSERT_FALSE(E) << E.message();
  for (int64_t I = 0; I < N; ++I)
    ASSERT_EQ(Z[I], X[I] + Y[I]) << I;
}

} // namespace
