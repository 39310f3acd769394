//===- WgmmaOperandTest.cpp - wgmma descriptors and canonical layouts -----===//
//
// The descriptor bit fields and the canonical layouts are those of the PTX
// ISA ("Matrix Descriptor Format", "Shared Memory Matrix Layout"); the
// swizzle is written here bit by bit from its definition (address bits
// [4, 4 + b) XOR bits [7, 7 + b)), independently of lib/Layout's Swizzle.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/WgmmaOperand.h"

#include "LayoutTestUtils.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>

using namespace tile::layout;

namespace {

TEST(WgmmaOperand, DescriptorFields) {
  WgmmaDescriptor d;
  d.startAddress = 0x1230;
  d.leadingByteOffset = 16;
  d.strideByteOffset = 1024;
  d.baseOffset = 0;
  d.swizzle = WgmmaSwizzle::B128;
  uint64_t bits = d.encode();
  EXPECT_EQ(bits & 0x3FFF, 0x123u);
  EXPECT_EQ(bits >> 16 & 0x3FFF, 1u);
  EXPECT_EQ(bits >> 32 & 0x3FFF, 64u);
  EXPECT_EQ(bits >> 62, 1u);
  EXPECT_EQ(bits & 0x3FFF0000C000C000ull, 0u) << "reserved bits set";
  WgmmaDescriptor back = WgmmaDescriptor::decode(bits);
  EXPECT_EQ(back.startAddress, d.startAddress);
  EXPECT_EQ(back.leadingByteOffset, d.leadingByteOffset);
  EXPECT_EQ(back.strideByteOffset, d.strideByteOffset);
  EXPECT_EQ(back.swizzle, WgmmaSwizzle::B128);
  // Addresses keep bits 4-17 only (the 228 KB shared window).
  d.startAddress = 0x3FFF0;
  EXPECT_EQ(d.encode() & 0x3FFF, 0x3FFFu);
  d.swizzle = WgmmaSwizzle::B32;
  EXPECT_EQ(d.encode() >> 62, 3u);
}

/// Every element of every wgmma slice a tile feeds sits where the
/// canonical layout (with the descriptor's start for that slice) says.
void expectCanonical(int64_t rows, int64_t cols, unsigned bits, bool isA,
                     int64_t mnTile) {
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " +
               std::to_string(bits) + "-bit " + (isA ? "A" : "B"));
  auto smem = wgmmaRowMajorLayout({rows, cols}, bits);
  ASSERT_TRUE(static_cast<bool>(smem)) << toString(smem.takeError());
  auto op = matchWgmmaOperand(*smem, bits, isA, mnTile);
  ASSERT_TRUE(static_cast<bool>(op)) << toString(op.takeError());
  // The swizzle row: the tile's rows up to 128 bytes, wider ones in blocks
  // of 128-byte columns.
  int64_t e = bits / 8, width = std::min<int64_t>(cols * e, 128);
  EXPECT_EQ(int64_t(wgmmaSwizzleBytes(op->swizzle)), width);
  EXPECT_EQ(op->alignment, 8 * width);
  int64_t kPerSlice = 32 / e; // 16 f16, 32 bytes of K per instruction.
  int64_t mnExtent = isA ? rows : cols, kExtent = isA ? cols : rows;
  std::set<int64_t> seen;
  for (int64_t mb = 0; mb < mnExtent / mnTile; ++mb)
    for (int64_t ks = 0; ks < kExtent / kPerSlice; ++ks) {
      // A's k16 slices: 32 bytes apart within a block of 128-byte columns,
      // whose rows * 128 bytes are one after the other.
      int64_t start = isA ? mb * op->mnBlockBytes + (ks % (width / 32)) * 32 +
                                (ks / (width / 32)) * rows * width
                          : ks * 16 * width;
      ASSERT_EQ(start - (isA ? mb * op->mnBlockBytes : 0),
                op->kSliceOffset(ks));
      for (int64_t mn = 0; mn < mnTile; ++mn)
        for (int64_t k = 0; k < kPerSlice; ++k) {
          int64_t r = isA ? mb * mnTile + mn : ks * kPerSlice + k;
          int64_t c = isA ? ks * kPerSlice + k : mb * mnTile + mn;
          int64_t want = smem->offset({r, c}) * e;
          // The reference written from the PTX formulas.
          int64_t linear =
              op->mnMajor ? start + (mn % (width / e)) * e +
                                (mn / (width / e)) * op->leadingByteOffset +
                                (k % 8) * width + (k / 8) * op->strideByteOffset
                          : start + (mn % 8) * width +
                                (mn / 8) * op->strideByteOffset + k * e;
          ASSERT_EQ(test::hardwareSwizzle(linear, width), want)
              << "slice (" << mb << ", " << ks << ") element (" << mn << ", "
              << k << ")";
          ASSERT_EQ(wgmmaCanonicalAddress(*op, e, start, mn, k), want);
          seen.insert(want);
        }
    }
  // The slices cover the tile exactly once.
  EXPECT_EQ(int64_t(seen.size()), rows * cols);
}

TEST(WgmmaOperand, RowMajorTilesAreCanonical) {
  // A: M x K, K-major, rows of 32 / 64 / 128 bytes.
  for (int64_t k : {16, 32, 64})
    for (int64_t m : {64, 128})
      expectCanonical(m, k, 16, /*isA=*/true, 64);
  expectCanonical(64, 128, 8, /*isA=*/true, 64);
  // B: K x N, N-major, one instruction as wide as the buffer.
  for (int64_t n : {16, 32, 64})
    for (int64_t k : {16, 32, 64})
      expectCanonical(k, n, 16, /*isA=*/false, n);
}

TEST(WgmmaOperand, WideTilesAreColumnBlocked) {
  // B of 128 / 256 columns: blocks of 64 columns, rows * 128 bytes apart
  // (LBO), one instruction as wide as the tile.
  for (int64_t n : {128, 256})
    for (int64_t k : {16, 32, 64})
      expectCanonical(k, n, 16, /*isA=*/false, n);
  // A with K = 128 / 256 (attention's D): a block per four k16 slices.
  for (int64_t k : {128, 256})
    for (int64_t m : {64, 128})
      expectCanonical(m, k, 16, /*isA=*/true, 64);
  // The blocked layout is what it says: block b of 64 columns holds row r
  // at element b * rows * 64 + r * 64 (before the 128-byte swizzle).
  auto smem = wgmmaRowMajorLayout({32, 128}, 16);
  ASSERT_TRUE(static_cast<bool>(smem)) << toString(smem.takeError());
  EXPECT_EQ(smem->str(), "swizzle(3,3,3) o block(6,1,5) o (32,128):(128,1)");
  EXPECT_EQ(smem->cosize(), 32 * 128);
  EXPECT_EQ(smem->offset({0, 64}), 32 * 64);
  EXPECT_EQ(smem->offset({1, 65}), 32 * 64 + 64 + (1 ^ 8));
  // Not blocked: rows that are no power of two, 192 columns, wider than 256.
  auto rows48 = wgmmaRowMajorLayout({48, 128}, 16);
  ASSERT_FALSE(static_cast<bool>(rows48));
  llvm::consumeError(rows48.takeError());
  auto odd = wgmmaRowMajorLayout({32, 192}, 16);
  ASSERT_FALSE(static_cast<bool>(odd));
  EXPECT_NE(toString(odd.takeError()).find("384 bytes"), std::string::npos);
  auto wide = matchWgmmaOperand(*wgmmaRowMajorLayout({16, 512}, 16), 16,
                                /*isA=*/false, 512);
  ASSERT_FALSE(static_cast<bool>(wide));
  EXPECT_NE(toString(wide.takeError()).find("256 columns"), std::string::npos);
}

TEST(WgmmaOperand, TransposedBIsKMajor) {
  // B stored N x K (rows = N, K contiguous): a K-major operand like A, one
  // instruction over all N rows; k16 slices 32 bytes apart within a block
  // of 128-byte columns, blocks N * 128 bytes apart. Every element of every
  // slice sits where the PTX formula for K-major operands says.
  for (int64_t n : {8, 64, 128, 256})
    for (int64_t k : {16, 32, 64, 128, 256}) {
      SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(k));
      auto smem = wgmmaRowMajorLayout({n, k}, 16);
      if (!smem) {
        // Column blocks need a power of two of at least 8 rows.
        llvm::consumeError(smem.takeError());
        continue;
      }
      auto op = matchWgmmaOperand(*smem, 16, /*isA=*/false, n,
                                  /*transposed=*/true);
      ASSERT_TRUE(static_cast<bool>(op)) << toString(op.takeError());
      EXPECT_FALSE(op->mnMajor);
      int64_t width = std::min<int64_t>(k * 2, 128);
      EXPECT_EQ(op->strideByteOffset, uint32_t(8 * width));
      std::set<int64_t> seen;
      for (int64_t ks = 0; ks < k / 16; ++ks) {
        int64_t start =
            (ks % (width / 32)) * 32 + (ks / (width / 32)) * n * width;
        ASSERT_EQ(op->kSliceOffset(ks), start);
        for (int64_t mn = 0; mn < n; ++mn)
          for (int64_t kk = 0; kk < 16; ++kk) {
            int64_t want = smem->offset({mn, ks * 16 + kk}) * 2;
            int64_t linear = start + (mn % 8) * width +
                             (mn / 8) * op->strideByteOffset + kk * 2;
            ASSERT_EQ(test::hardwareSwizzle(linear, width), want)
                << ks << " " << mn;
            ASSERT_EQ(wgmmaCanonicalAddress(*op, 2, start, mn, kk), want);
            seen.insert(want);
          }
      }
      EXPECT_EQ(int64_t(seen.size()), n * k);
    }
  // The tile must span the buffer's rows; A is never stored transposed.
  auto narrow = matchWgmmaOperand(*wgmmaRowMajorLayout({64, 64}, 16), 16,
                                  /*isA=*/false, 32, /*transposed=*/true);
  ASSERT_FALSE(static_cast<bool>(narrow));
  EXPECT_NE(toString(narrow.takeError()).find("must span"), std::string::npos);
  auto a = matchWgmmaOperand(*wgmmaRowMajorLayout({64, 64}, 16), 16,
                             /*isA=*/true, 64, /*transposed=*/true);
  ASSERT_FALSE(static_cast<bool>(a));
  EXPECT_NE(toString(a.takeError()).find("not generated"), std::string::npos);
}

TEST(WgmmaOperand, RejectsOtherLayouts) {
  auto expectError = [](llvm::Expected<WgmmaOperandLayout> r,
                        llvm::StringRef what) {
    ASSERT_FALSE(static_cast<bool>(r));
    std::string message = toString(r.takeError());
    EXPECT_NE(message.find(what.str()), std::string::npos) << message;
  };
  // A swizzle other than the hardware's.
  SharedLayout plain = SharedLayout::rowMajor({64, 64});
  expectError(matchWgmmaOperand(plain, 16, true, 64), "is not the wgmma");
  // Rows of 256 bytes that are not column-blocked.
  expectError(
      matchWgmmaOperand(SharedLayout::rowMajor({64, 128}), 16, true, 64),
      "is not the wgmma");
  expectError(matchWgmmaOperand(SharedLayout::rowMajor({64, 96}), 16, true, 64),
              "192 bytes");
  // A with fewer than 64 rows; B narrower than the buffer; 8-bit MN-major.
  expectError(
      matchWgmmaOperand(*wgmmaRowMajorLayout({32, 64}, 16), 16, true, 64),
      "64 rows");
  expectError(
      matchWgmmaOperand(*wgmmaRowMajorLayout({32, 64}, 16), 16, false, 32),
      "does not span");
  expectError(
      matchWgmmaOperand(*wgmmaRowMajorLayout({32, 128}, 8), 8, false, 128),
      "16-bit");
}

} // namespace
