//===- WgmmaOperandTest.cpp - wgmma descriptors and canonical layouts -----===//
//
// The descriptor bit fields and the canonical layouts are those of the PTX
// ISA ("Matrix Descriptor Format", "Shared Memory Matrix Layout"); the
// swizzle is written here bit by bit from its definition (address bits
// [4, 4 + b) XOR bits [7, 7 + b)), independently of lib/Layout's Swizzle.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/WgmmaOperand.h"

#include "gtest/gtest.h"

#include <set>

using namespace tile::layout;

namespace {

/// The hardware swizzle of width `width` on a byte address, bit by bit.
int64_t hwSwizzle(int64_t address, int64_t width) {
  int64_t bits = width == 128 ? 3 : width == 64 ? 2 : width == 32 ? 1 : 0;
  int64_t out = address;
  for (int64_t j = 0; j < bits; ++j)
    out ^= ((address >> (7 + j)) & 1) << (4 + j);
  return out;
}

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
  int64_t e = bits / 8, width = cols * e;
  EXPECT_EQ(int64_t(wgmmaSwizzleBytes(op->swizzle)), width);
  EXPECT_EQ(op->alignment, 8 * width);
  int64_t kPerSlice = 32 / e; // 16 f16, 32 bytes of K per instruction.
  int64_t mnExtent = isA ? rows : cols, kExtent = isA ? cols : rows;
  std::set<int64_t> seen;
  for (int64_t mb = 0; mb < mnExtent / mnTile; ++mb)
    for (int64_t ks = 0; ks < kExtent / kPerSlice; ++ks) {
      int64_t start = mb * op->mnBlockBytes + ks * op->kSliceBytes;
      for (int64_t mn = 0; mn < mnTile; ++mn)
        for (int64_t k = 0; k < kPerSlice; ++k) {
          int64_t r = isA ? mb * mnTile + mn : ks * kPerSlice + k;
          int64_t c = isA ? ks * kPerSlice + k : mb * mnTile + mn;
          int64_t want = smem->offset({r, c}) * e;
          // The reference written from the PTX formulas.
          int64_t linear =
              op->mnMajor ? start + (mn % (width / e)) * e + (k % 8) * width +
                                (k / 8) * op->strideByteOffset
                          : start + (mn % 8) * width +
                                (mn / 8) * op->strideByteOffset + k * e;
          ASSERT_EQ(hwSwizzle(linear, width), want)
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
  // Rows of 256 bytes.
  expectError(
      matchWgmmaOperand(SharedLayout::rowMajor({64, 128}), 16, true, 64),
      "256 bytes");
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
