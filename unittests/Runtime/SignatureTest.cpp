//===- SignatureTest.cpp - Tests of argument binding ----------------------===//

#include "tile/runtime/Signature.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace tile::rt;

namespace {

ParamInfo tensor(std::string Name, std::string DType,
                 std::vector<std::string> Shape, bool Mut = false) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Kind = ParamKind::Tensor;
  P.DType = std::move(DType);
  P.Shape = std::move(Shape);
  P.Mut = Mut;
  return P;
}

ParamInfo scalar(std::string Name, std::string DType) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Kind = ParamKind::Scalar;
  P.DType = std::move(DType);
  return P;
}

ParamInfo dim(std::string Name) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Kind = ParamKind::Dim;
  P.DType = "i32";
  return P;
}

/// The signature of examples/gemm_wq with T = u4, G = 128, plus a scalar.
KernelSignature gemmWq() {
  KernelSignature S;
  S.Name = "gemm_wq";
  S.Params = {tensor("A", "f16", {"M", "K"}),
              tensor("W", "u4", {"K", "N"}),
              tensor("S", "f16", {"K / 128", "N"}),
              tensor("C", "f16", {"M", "N"}, /*Mut=*/true),
              scalar("alpha", "f32"),
              dim("M"),
              dim("K"),
              dim("N")};
  S.Grid = {"cdiv(N, 128)", "cdiv(M, 16)", "1"};
  return S;
}

/// Arguments for gemmWq with the given extents and ample buffers.
std::vector<ArgValue> args(int64_t M, int64_t K, int64_t N, int64_t CM = -1) {
  return {ArgValue::tensor(0x1000, 1 << 30, {M, K}, "f16"),
          ArgValue::tensor(0x2000, 1 << 30, {K, N}, "u4"),
          ArgValue::tensor(0x3000, 1 << 30, {K / 128, N}, "f16"),
          ArgValue::tensor(0x4000, 1 << 30, {CM < 0 ? M : CM, N}, "f16"),
          ArgValue::scalar(0.5)};
}

std::string bindError(const KernelSignature &S, const std::vector<ArgValue> &A,
                      const DimMap &Given = {}) {
  Expected<BoundArgs> B = bindArguments(S, A, Given);
  EXPECT_FALSE(B);
  return B ? "" : B.message();
}

TEST(SignatureTest, BindsDimsGridAndSlots) {
  KernelSignature S = gemmWq();
  ASSERT_FALSE(S.verify());
  Expected<BoundArgs> B = bindArguments(S, args(65, 256, 300));
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->Dims, (DimMap{{"M", 65}, {"K", 256}, {"N", 300}}));
  EXPECT_EQ(B->Grid, (std::array<uint32_t, 3>{3, 5, 1}));
  ASSERT_EQ(B->Slots.size(), 8u);
  EXPECT_EQ(B->Slots[0], 0x1000u);
  EXPECT_EQ(B->Slots[3], 0x4000u);
  float Alpha;
  uint32_t AlphaBits = static_cast<uint32_t>(B->Slots[4]);
  std::memcpy(&Alpha, &AlphaBits, 4);
  EXPECT_EQ(Alpha, 0.5f);
  EXPECT_EQ(B->Slots[5], 65u);
  EXPECT_EQ(B->Slots[6], 256u);
  EXPECT_EQ(B->Slots[7], 300u);
  std::vector<void *> Ptrs = B->pointers();
  EXPECT_EQ(*static_cast<int32_t *>(Ptrs[7]), 300);
}

TEST(SignatureTest, InconsistentDimensionNamesBothTensors) {
  EXPECT_EQ(bindError(gemmWq(), args(64, 256, 128, /*CM=*/65)),
            "gemm_wq: dimension M is 64 in A but 65 in C");
  EXPECT_EQ(bindError(gemmWq(), args(64, 256, 128), {{"N", 100}}),
            "gemm_wq: dimension N is 100 in the given sizes but 128 in W");
}

TEST(SignatureTest, CallerTensorsMustBeDenseAndAligned) {
  std::vector<ArgValue> A = args(64, 256, 128);
  // Dense strides (and any stride on an extent of 1) are fine.
  A[0] = ArgValue::strided(0x1000, 1 << 30, {64, 256}, {256, 1}, "f16");
  A[3] = ArgValue::strided(0x4000, 1 << 30, {1, 128}, {7, 1}, "f16");
  A[3] = ArgValue::strided(0x4000, 1 << 30, {64, 128}, {128, 1}, "f16");
  EXPECT_TRUE(bindArguments(gemmWq(), A));
  // A transposed view is not.
  A[0] = ArgValue::strided(0x1000, 1 << 30, {64, 256}, {1, 64}, "f16");
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: argument 0 (A): strides [1, 64] of shape [64, 256] are "
            "not dense row-major (kernels take contiguous tensors: make it "
            "contiguous first)");
  A = args(64, 256, 128);
  A[1].Address = 0x2002;
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: argument 1 (W): address 0x2002 is not 4-byte aligned "
            "(runtime/README.md, kernel calling convention)");
}

TEST(SignatureTest, StorageTakesItsShapeFromTheSignature) {
  // W as bytes of packed u4 codes (a uint8 array of any shape): its shape
  // [K, N] comes from A and C; only the size of its storage is checked.
  std::vector<ArgValue> A = args(64, 256, 128);
  A[1] = ArgValue::storage(0x2000, 256 * 128 / 2, "u4");
  Expected<BoundArgs> B = bindArguments(gemmWq(), A);
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->Dims, (DimMap{{"M", 64}, {"K", 256}, {"N", 128}}));
  EXPECT_EQ(B->Slots[1], 0x2000u);
  A[1].Bytes -= 1;
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: tensor W u4[256, 128] needs 16384 bytes but its buffer "
            "has 16383");
  // A dimension only the storage could give must be given.
  KernelSignature S = gemmWq();
  S.Params[3].Shape = {"M", "K"};
  A = args(64, 256, 128);
  A[1] = ArgValue::storage(0x2000, 1 << 20, "u4");
  A[2] = ArgValue::storage(0x3000, 1 << 20, "f16");
  A[3] = ArgValue::tensor(0x4000, 1 << 20, {64, 256}, "f16");
  EXPECT_EQ(bindError(S, A),
            "gemm_wq: shape of W: unknown dimension 'N' in 'N' "
            "(give its size)");
  EXPECT_TRUE(bindArguments(S, A, {{"N", 128}}));
  // Its dtype and alignment are checked as any tensor's.
  A[1] = ArgValue::storage(0x2002, 1 << 20, "u4");
  EXPECT_EQ(bindError(S, A, {{"N", 128}}),
            "gemm_wq: argument 1 (W): address 0x2002 is not 4-byte aligned "
            "(runtime/README.md, kernel calling convention)");
  A[1] = ArgValue::storage(0x2000, 1 << 20, "i4");
  EXPECT_EQ(bindError(S, A, {{"N", 128}}),
            "gemm_wq: argument 1 (W): expected a tensor of u4 but got i4");
}

TEST(SignatureTest, WrongDtypeAndRank) {
  std::vector<ArgValue> A = args(64, 256, 128);
  A[1].DType = "i4";
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: argument 1 (W): expected a tensor of u4 but got i4");
  A[1].DType = "q7";
  EXPECT_NE(bindError(gemmWq(), A).find("argument 1 (W): "), std::string::npos);
  A = args(64, 256, 128);
  A[0].Shape = {64, 256, 1};
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: argument 0 (A): expected a rank-2 tensor [M, K] but got "
            "rank 3 [64, 256, 1]");
  A = args(64, 256, 128);
  A[4] = ArgValue::tensor(0x5000, 4, {1}, "f32");
  EXPECT_EQ(bindError(gemmWq(), A), "gemm_wq: argument 4 (alpha): expected a "
                                    "scalar of f32 but got a tensor");
  A = args(64, 256, 128);
  A.pop_back();
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: expected 5 arguments (A, W, S, C, alpha) but got 4");
}

TEST(SignatureTest, ShapeExpressionsAreChecked) {
  std::vector<ArgValue> A = args(64, 256, 128);
  A[2].Shape = {3, 128}; // K / 128 = 2.
  EXPECT_EQ(bindError(gemmWq(), A),
            "gemm_wq: tensor S dimension 0 should be K / 128 = 2 but is 3");
}

TEST(SignatureTest, UnboundDimension) {
  KernelSignature S;
  S.Name = "k";
  S.Params = {tensor("S", "f16", {"K / 128"}), dim("K")};
  EXPECT_EQ(
      bindError(S, {ArgValue::tensor(0x10, 64, {2}, "f16")}),
      "k: shape of S: unknown dimension 'K' in 'K / 128' (give its size)");
  Expected<BoundArgs> B =
      bindArguments(S, {ArgValue::tensor(0x10, 64, {2}, "f16")}, {{"K", 256}});
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->Slots[1], 256u);
}

TEST(SignatureTest, SubByteBufferSizes) {
  EXPECT_EQ(denseBytes(7, 4), 4u);
  EXPECT_EQ(denseBytes(3, 3), 2u);
  EXPECT_EQ(denseBytes(8, 1), 1u);
  EXPECT_EQ(denseBytes(9, 1), 2u);
  EXPECT_EQ(denseBytes(5, 6), 4u);
  EXPECT_EQ(denseBytes(0, 5), 0u);
  KernelSignature S;
  S.Name = "k";
  S.Params = {tensor("W", "u3", {"K", "N"}), dim("K"), dim("N")};
  // 5 x 7 u3 = 105 bits = 14 bytes.
  EXPECT_TRUE(bindArguments(S, {ArgValue::tensor(0x10, 14, {5, 7}, "u3")}));
  EXPECT_EQ(bindError(S, {ArgValue::tensor(0x10, 13, {5, 7}, "u3")}),
            "k: tensor W u3[5, 7] needs 14 bytes but its buffer has 13");
}

TEST(SignatureTest, Scalars) {
  KernelSignature S;
  S.Name = "k";
  S.Params = {scalar("h", "f16"), scalar("n", "i32"), scalar("flag", "i1"),
              scalar("b", "bf16")};
  Expected<BoundArgs> B =
      bindArguments(S, {ArgValue::scalar(1.5), ArgValue::scalar(-7),
                        ArgValue::scalar(1), ArgValue::scalar(-2.0)});
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->Slots[0], 0x3E00u); // f16 1.5
  EXPECT_EQ(static_cast<int32_t>(B->Slots[1]), -7);
  EXPECT_EQ(B->Slots[2], 1u);
  EXPECT_EQ(B->Slots[3], 0xC000u); // bf16 -2
  EXPECT_EQ(bindError(S, {ArgValue::scalar(1), ArgValue::scalar(2.5),
                          ArgValue::scalar(0), ArgValue::scalar(0)}),
            "k: scalar n of type i32 cannot hold 2.5");
  EXPECT_EQ(bindError(S, {ArgValue::scalar(1), ArgValue::scalar(4294967296.0),
                          ArgValue::scalar(0), ArgValue::scalar(0)}),
            "k: scalar n of type i32 cannot hold 4294967296");
  EXPECT_EQ(bindError(S, {ArgValue::scalar(1), ArgValue::scalar(1),
                          ArgValue::scalar(2), ArgValue::scalar(0)}),
            "k: scalar flag of type i1 cannot hold 2");
}

TEST(SignatureTest, GridErrorsAndEmptyGrid) {
  KernelSignature S;
  S.Name = "k";
  S.Params = {tensor("X", "f32", {"N"}), dim("N")};
  S.Grid = {"cdiv(N, 64)", "1", "1"};
  Expected<BoundArgs> B =
      bindArguments(S, {ArgValue::tensor(0, 0, {0}, "f32")});
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->numPrograms(), 0u);
  S.Grid = {"N - 100", "2", "1"};
  B = bindArguments(S, {ArgValue::tensor(0x10, 400, {100}, "f32")});
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->Grid, (std::array<uint32_t, 3>{0, 2, 1}));
  EXPECT_EQ(B->numPrograms(), 0u);
  S.Grid = {"N - 101", "1", "1"};
  EXPECT_EQ(bindError(S, {ArgValue::tensor(0x10, 400, {100}, "f32")}),
            "k: grid dimension 0 'N - 101' = -1 is out of range");
}

TEST(SignatureTest, VerifyRejectsMalformedSignatures) {
  KernelSignature S = gemmWq();
  S.Params[2].Shape[0] = "K / G";
  Error E = S.verify();
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "kernel gemm_wq: shape of S: 'G' is not a dimension parameter");
  S = gemmWq();
  S.Grid[0] = "cdiv(N,";
  E = S.verify();
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(), "kernel gemm_wq: grid: in 'cdiv(N,': column 8: "
                         "unexpected end, expected a number, a name or '('");
  S = gemmWq();
  S.Params[0].DType = "f17";
  E = S.verify();
  ASSERT_TRUE(E);
  EXPECT_NE(E.message().find("kernel gemm_wq: parameter A: "),
            std::string::npos);
  S = gemmWq();
  std::swap(S.Params[4], S.Params[5]);
  E = S.verify();
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "kernel gemm_wq: parameter alpha comes after the dimension "
            "parameters");
}

TEST(SignatureTest, VerifyChecksTensorMaps) {
  KernelSignature S = gemmWq();
  S.TensorMaps = {{0, {64, 64}, 128}, {3, {16, 64}, 0}};
  EXPECT_FALSE(S.verify());
  auto Fails = [&](TensorMapInfo M, const std::string &Want) {
    KernelSignature Bad = gemmWq();
    Bad.TensorMaps = {{0, {64, 64}, 128}, std::move(M)};
    Error E = Bad.verify();
    ASSERT_TRUE(E) << Want;
    EXPECT_EQ(E.message(), "kernel gemm_wq: tensor map 1" + Want);
  };
  Fails({4, {1}, 0}, ": parameter 4 is not a tensor parameter");
  Fails({9, {1}, 0}, ": parameter 9 is not a tensor parameter");
  Fails({0, {64}, 0}, " of A: the box has 1 extents but the tensor has rank 2");
  Fails({0, {64, 0}, 0}, " of A: box extent 0 is outside 1-256");
  Fails({0, {257, 8}, 0}, " of A: box extent 257 is outside 1-256");
  Fails({0, {64, 64}, 16}, " of A: swizzle 16 is not 0, 32, 64 or 128 bytes");
  // A packed (u4) weight is mapped as bytes: its box counts bytes.
  KernelSignature Packed = gemmWq();
  Packed.TensorMaps = {{1, {64, 32}, 0}};
  EXPECT_FALSE(Packed.verify());
  // The runtime encodes the maps on the stack: at most MaxMaps of them.
  KernelSignature Many = gemmWq();
  Many.TensorMaps.assign(TensorMapInfo::MaxMaps + 1, {0, {64, 64}, 128});
  Error E = Many.verify();
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "kernel gemm_wq: 9 tensor maps, more than the 8 a kernel may take");
}

} // namespace
