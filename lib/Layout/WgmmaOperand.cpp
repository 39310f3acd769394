//===- WgmmaOperand.cpp - Shared-memory operands of Hopper wgmma ----------===//
//
// Part of tilec. Descriptor encoding and the match between tilec's shared
// layouts and the canonical wgmma layouts (WgmmaOperand.h). The unit tests
// hold wgmmaRowMajorLayout against wgmmaCanonicalAddress element by element.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/WgmmaOperand.h"

#include "llvm/Support/MathExtras.h"

#include <string>

using namespace llvm;

namespace tile::layout {

unsigned wgmmaSwizzleBytes(WgmmaSwizzle mode) {
  switch (mode) {
  case WgmmaSwizzle::B128:
    return 128;
  case WgmmaSwizzle::B64:
    return 64;
  case WgmmaSwizzle::B32:
    return 32;
  case WgmmaSwizzle::None:
    break;
  }
  return 16;
}

uint64_t WgmmaDescriptor::encode() const {
  auto field = [](uint32_t bytes) { return uint64_t(bytes >> 4) & 0x3FFF; };
  return field(startAddress) | field(leadingByteOffset) << 16 |
         field(strideByteOffset) << 32 | uint64_t(baseOffset & 7) << 49 |
         uint64_t(static_cast<unsigned>(swizzle) & 3) << 62;
}

WgmmaDescriptor WgmmaDescriptor::decode(uint64_t bits) {
  WgmmaDescriptor d;
  d.startAddress = uint32_t(bits & 0x3FFF) << 4;
  d.leadingByteOffset = uint32_t(bits >> 16 & 0x3FFF) << 4;
  d.strideByteOffset = uint32_t(bits >> 32 & 0x3FFF) << 4;
  d.baseOffset = unsigned(bits >> 49 & 7);
  d.swizzle = static_cast<WgmmaSwizzle>(bits >> 62 & 3);
  return d;
}

static std::optional<WgmmaSwizzle> swizzleForRow(int64_t rowBytes) {
  switch (rowBytes) {
  case 128:
    return WgmmaSwizzle::B128;
  case 64:
    return WgmmaSwizzle::B64;
  case 32:
    return WgmmaSwizzle::B32;
  default:
    return std::nullopt;
  }
}

Expected<SharedLayout> wgmmaRowMajorLayout(ArrayRef<int64_t> shape,
                                           unsigned elemBits) {
  if (shape.size() != 2)
    return createStringError("a wgmma operand tile is 2-D, not " +
                             std::to_string(shape.size()) + "-D");
  if (elemBits != 8 && elemBits != 16 && elemBits != 32)
    return createStringError("wgmma operands have 8-, 16- or 32-bit "
                             "elements, not " +
                             std::to_string(elemBits) + "-bit");
  int64_t elemBytes = elemBits / 8;
  int64_t rowBytes = shape[1] * elemBytes;
  if (swizzleForRow(rowBytes)) {
    Swizzle swizzle{unsigned(Log2_64(rowBytes / 16)),
                    unsigned(Log2_64(16 / elemBytes)), 3};
    return SharedLayout::rowMajor(shape).withSwizzle(swizzle);
  }
  if (rowBytes > 128 && isPowerOf2_64(rowBytes) && isPowerOf2_64(shape[0]) &&
      shape[0] >= 8) {
    // Blocks of 128-byte columns, each a row-major tile with the 128-byte
    // swizzle (8 rows per pattern: every block starts on one).
    Swizzle swizzle{3, unsigned(Log2_64(16 / elemBytes)), 3};
    swizzle.blockBase = unsigned(Log2_64(128 / elemBytes));
    swizzle.blockBits = unsigned(Log2_64(rowBytes / 128));
    swizzle.rowBits = unsigned(Log2_64(shape[0]));
    return SharedLayout::rowMajor(shape).withSwizzle(swizzle);
  }
  return createStringError(
      "rows of " + std::to_string(rowBytes) +
      " bytes match no wgmma swizzle (32, 64 or 128 bytes, or a power of two "
      "of 128-byte blocks with a power of two of at least 8 rows)");
}

Expected<WgmmaOperandLayout> matchWgmmaOperand(const SharedLayout &smem,
                                               unsigned elemBits, bool isA,
                                               int64_t mnTile,
                                               bool transposed) {
  if (transposed && isA)
    return createStringError("an A operand stored transposed (M contiguous) "
                             "is not generated");
  Expected<SharedLayout> canonical =
      wgmmaRowMajorLayout(smem.shape(), elemBits);
  if (!canonical)
    return canonical.takeError();
  if (!(smem == *canonical))
    return createStringError("the buffer's layout " + smem.str() +
                             " is not the wgmma layout " + canonical->str());
  int64_t rows = smem.shape()[0], cols = smem.shape()[1];
  int64_t elemBytes = elemBits / 8;
  WgmmaOperandLayout out;
  // The swizzle row W; wider tiles are blocks of W-byte columns.
  int64_t width = std::min<int64_t>(cols * elemBytes, 128);
  int64_t blocks = cols * elemBytes / width;
  out.swizzle = *swizzleForRow(width);
  out.alignment = 8 * width;
  out.strideByteOffset = uint32_t(8 * width);
  if (isA || transposed) {
    // M x K (or N x K), K contiguous: 64-row slices of A, all N rows of B,
    // each k16 slice 32 bytes further along the swizzled rows. LBO is
    // unused by swizzled K-major layouts.
    if (isA && (mnTile != 64 || rows % 64 != 0))
      return createStringError("A tiles of wgmma are 64 rows; the buffer has " +
                               std::to_string(rows));
    if (!isA && (mnTile != rows || rows % 8 != 0 || rows > 256))
      return createStringError("a K-major B tile of " + std::to_string(mnTile) +
                               " columns must span the buffer's " +
                               std::to_string(rows) +
                               " rows, a multiple of 8 up to 256");
    out.mnMajor = false;
    out.leadingByteOffset = 16;
    out.kSliceBytes = 32;
    out.mnBlockBytes = 64 * width;
    if (blocks > 1) {
      out.kSlicesPerBlock = width / 32;
      out.kBlockBytes = rows * width;
    }
    return out;
  }
  // K x N, N contiguous: B is MN-major (transposed), 16-bit elements only;
  // one instruction covers the buffer's whole width.
  if (elemBits != 16)
    return createStringError("an N-contiguous B operand needs 16-bit "
                             "elements (wgmma transposes only f16/bf16)");
  if (mnTile != cols)
    return createStringError("the B tile of " + std::to_string(mnTile) +
                             " columns does not span the buffer's " +
                             std::to_string(cols));
  if (rows % 16 != 0)
    return createStringError("B buffers have a multiple of 16 rows, not " +
                             std::to_string(rows));
  if (cols > 256)
    return createStringError("a wgmma B tile has at most 256 columns, not " +
                             std::to_string(cols));
  // LBO: from one block of W-byte columns to the next.
  out.mnMajor = true;
  out.leadingByteOffset = uint32_t(rows * width);
  out.kSliceBytes = 16 * width;
  out.mnBlockBytes = width;
  return out;
}

int64_t wgmmaCanonicalAddress(const WgmmaOperandLayout &layout,
                              unsigned elemBytes, int64_t start, int64_t mn,
                              int64_t k) {
  int64_t width = wgmmaSwizzleBytes(layout.swizzle);
  int64_t lbo = layout.leadingByteOffset, sbo = layout.strideByteOffset;
  int64_t e = elemBytes, chunk = 16 / e;
  int64_t linear;
  if (layout.swizzle == WgmmaSwizzle::None) {
    // 8 x 16-byte core matrices.
    linear = layout.mnMajor ? (mn % chunk) * e + (mn / chunk) * sbo +
                                  (k % 8) * 16 + (k / 8) * lbo
                            : (mn % 8) * 16 + (mn / 8) * sbo + (k % chunk) * e +
                                  (k / chunk) * lbo;
    return start + linear;
  }
  if (layout.mnMajor) {
    int64_t per = width / e;
    linear =
        (mn % per) * e + (mn / per) * lbo + (k % 8) * width + (k / 8) * sbo;
  } else {
    linear = (mn % 8) * width + (mn / 8) * sbo + k * e;
  }
  int64_t address = start + linear;
  int64_t mask = width / 16 - 1;
  return address ^ (((address >> 7) & mask) << 4);
}

} // namespace tile::layout
