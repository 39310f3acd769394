//===- NpyTest.cpp - Tests of .npy reading and writing --------------------===//

#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace tile::rt;
namespace num = tile::numerics;

namespace {

std::string tempPath(const std::string &Name) {
  return testing::TempDir() + "/tile_npy_" + Name + ".npy";
}

std::string fileBytes(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(In)),
                     std::istreambuf_iterator<char>());
}

TEST(NpyTest, WritesNumpyLayout) {
  NpyArray A;
  A.Descr = "<i2";
  A.Shape = {2, 3};
  for (int I = 0; I < 6; ++I)
    A.Data.insert(A.Data.end(), {static_cast<uint8_t>(I), 0});
  std::string Path = tempPath("layout");
  ASSERT_FALSE(writeNpy(Path, A));
  std::string Bytes = fileBytes(Path);
  // What numpy.save writes for np.arange(6, dtype='<i2').reshape(2, 3).
  std::string Header =
      "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
  Header.append((64 - (10 + Header.size() + 1) % 64) % 64, ' ');
  Header += '\n';
  ASSERT_EQ(Header.size(), 118u);
  std::string Want =
      std::string("\x93NUMPY\x01\x00", 8) + char(Header.size()) + '\0' + Header;
  Want.append(reinterpret_cast<const char *>(A.Data.data()), A.Data.size());
  EXPECT_EQ(Bytes, Want);
  EXPECT_EQ((Bytes.size() - A.Data.size()) % 64, 0u);
  std::remove(Path.c_str());
}

TEST(NpyTest, RoundTripShapes) {
  for (std::vector<int64_t> Shape :
       {std::vector<int64_t>{}, {5}, {3, 4}, {2, 1, 3}, {0, 7}}) {
    NpyArray A;
    A.Descr = "<f4";
    A.Shape = Shape;
    A.Data.resize(A.numElements() * 4);
    for (size_t I = 0; I < A.Data.size(); ++I)
      A.Data[I] = static_cast<uint8_t>(I * 37 + 1);
    std::string Path = tempPath("shape");
    ASSERT_FALSE(writeNpy(Path, A));
    Expected<NpyArray> B = readNpy(Path);
    ASSERT_TRUE(B) << B.message();
    EXPECT_EQ(B->Descr, "<f4");
    EXPECT_EQ(B->Shape, Shape);
    EXPECT_EQ(B->Data, A.Data);
    std::remove(Path.c_str());
  }
}

TEST(NpyTest, ReadsVersion2) {
  std::string Header =
      "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
  Header.append((64 - (12 + Header.size() + 1) % 64) % 64, ' ');
  Header += '\n';
  std::string File = std::string("\x93NUMPY\x02\x00", 8);
  File += char(Header.size());
  File += std::string(3, '\0');
  File += Header + "\x07\x08\x09";
  std::string Path = tempPath("v2");
  std::ofstream(Path, std::ios::binary) << File;
  Expected<NpyArray> A = readNpy(Path);
  ASSERT_TRUE(A) << A.message();
  EXPECT_EQ(A->Shape, std::vector<int64_t>{3});
  EXPECT_EQ(A->Data, (std::vector<uint8_t>{7, 8, 9}));
  std::remove(Path.c_str());
}

TEST(NpyTest, ReadErrors) {
  std::string Path = tempPath("bad");
  auto readError = [&](const std::string &Content) {
    std::ofstream(Path, std::ios::binary | std::ios::trunc) << Content;
    Expected<NpyArray> A = readNpy(Path);
    EXPECT_FALSE(A);
    return A ? "" : A.message();
  };
  EXPECT_EQ(readError("hello world"),
            Path + ": not a valid .npy file: bad magic");
  auto withHeader = [](const std::string &H, const std::string &Data) {
    return std::string("\x93NUMPY\x01\x00", 8) + char(H.size()) + '\0' + H +
           Data;
  };
  EXPECT_EQ(
      readError(withHeader(
          "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", "abcd")),
      Path + ": not a valid .npy file: Fortran-ordered arrays are not "
             "supported");
  EXPECT_EQ(readError(withHeader(
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                "abcdefgh")),
            Path + ": not a valid .npy file: unsupported dtype '<c8'");
  EXPECT_EQ(
      readError(withHeader(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "abcd")),
      Path + ": not a valid .npy file: expected 8 data bytes for shape "
             "(2,) but found 4");
  std::remove(Path.c_str());
  EXPECT_EQ(readNpy(Path).message(), "cannot open " + Path);
}

TEST(NpyTest, SubByteTensorsUnpackToCodes) {
  // u4[3, 5]: 15 codes, 8 bytes packed.
  Expected<std::vector<uint8_t>> Packed = generateTensor("u4", 15, 1, "W");
  ASSERT_TRUE(Packed);
  Expected<NpyArray> A = toNpy("u4", {3, 5}, *Packed);
  ASSERT_TRUE(A) << A.message();
  EXPECT_EQ(A->Descr, "|u1");
  ASSERT_EQ(A->Data.size(), 15u);
  for (size_t I = 0; I < 15; ++I)
    EXPECT_EQ(A->Data[I], ((*Packed)[I / 2] >> (4 * (I % 2))) & 0xF);
  std::string Path = tempPath("u4");
  ASSERT_FALSE(writeNpy(Path, *A));
  Expected<NpyArray> B = readNpy(Path);
  ASSERT_TRUE(B);
  Expected<std::vector<uint8_t>> Repacked = fromNpy(*B, "u4", {3, 5});
  ASSERT_TRUE(Repacked) << Repacked.message();
  EXPECT_EQ(*Repacked, *Packed);
  std::remove(Path.c_str());
}

TEST(NpyTest, DescrPerFormat) {
  EXPECT_EQ(*npyDescr("f32"), "<f4");
  EXPECT_EQ(*npyDescr("f16"), "<f2");
  EXPECT_EQ(*npyDescr("bf16"), "<u2");
  EXPECT_EQ(*npyDescr("i8"), "|i1");
  EXPECT_EQ(*npyDescr("u8"), "|u1");
  EXPECT_EQ(*npyDescr("i4"), "|u1");
  EXPECT_EQ(*npyDescr("f6e3m2"), "|u1");
  EXPECT_EQ(*npyDescr("e8m0"), "|u1");
  EXPECT_EQ(*npyDescr("i16"), "<i2");
  EXPECT_EQ(*npyDescr("u12"), "<u2");
  EXPECT_EQ(*npyDescr("i32"), "<i4");
  EXPECT_EQ(*npyDescr("u20"), "<u4");
  EXPECT_FALSE(npyDescr("x3"));
}

TEST(NpyTest, FromNpyConversionsAndErrors) {
  // Signed values in an int8 array are accepted for i4 codes.
  NpyArray A;
  A.Descr = "|i1";
  A.Shape = {4};
  A.Data = {0xF8, 0x07, 0xFF, 0x00}; // -8, 7, -1, 0
  Expected<std::vector<uint8_t>> P = fromNpy(A, "i4", {4});
  ASSERT_TRUE(P) << P.message();
  EXPECT_EQ(*P, (std::vector<uint8_t>{0x78, 0x0F}));
  // Out-of-range codes are rejected.
  A.Data = {0x08, 0x10, 0, 0};
  A.Descr = "|u1";
  EXPECT_EQ(fromNpy(A, "u4", {4}).message(),
            "element 1 (code 16) does not fit in u4");
  // Float arrays are rounded into float formats.
  NpyArray F;
  F.Descr = "<f4";
  F.Shape = {2};
  float Values[2] = {1.0f, -0.3f};
  F.Data.resize(8);
  std::memcpy(F.Data.data(), Values, 8);
  Expected<std::vector<uint8_t>> H = fromNpy(F, "f16", {2});
  ASSERT_TRUE(H);
  num::Format F16 = num::Format::f16();
  EXPECT_EQ((*H)[0] | ((*H)[1] << 8), num::encode(F16, 1.0));
  EXPECT_EQ((*H)[2] | ((*H)[3] << 8), num::encode(F16, double(-0.3f)));
  // Shape and dtype mismatches.
  EXPECT_EQ(fromNpy(F, "f16", {3}).message(),
            "array has shape [2] but the tensor is f16[3]");
  EXPECT_EQ(fromNpy(F, "u8", {2}).message(),
            "array of dtype '<f4' cannot hold u8 elements (expected '|u1')");
}

} // namespace
