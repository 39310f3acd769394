//===- MmaAtoms.cpp - Matrix instruction operand layouts ------------------===//
//
// Part of tilec. Each atom is written as a product of primitives; the unit
// tests check every atom element by element against the fragment maps of
// the PTX ISA and the AMD CDNA ISA.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/MmaAtoms.h"

#include <string>

using namespace llvm;

namespace tile::layout {

using DL = DistributedLayout;

DistributedLayout nvidiaMmaM16N8K16(MmaOperand operand) {
  switch (operand) {
  case MmaOperand::A:
    // a0,a1: (g, 2c+i); a2,a3: row+8; a4,a5: col+8; a6,a7: both.
    return DL::columnLocal({2, 2}) * DL::spatial({8, 4}) * DL::local({1, 2});
  case MmaOperand::B:
    // b0,b1: (2c+i, g); b2,b3: row+8.
    return DL::local({2, 1}) * DL::columnSpatial({4, 8}) * DL::local({2, 1});
  case MmaOperand::C:
    // c0,c1: (g, 2c+i); c2,c3: row+8.
    return DL::local({2, 1}) * DL::spatial({8, 4}) * DL::local({1, 2});
  }
  return {};
}

DistributedLayout nvidiaMmaM16N8K32Int8(MmaOperand operand) {
  switch (operand) {
  case MmaOperand::A:
    // a0..a3: (g, 4c+i); a4..a7: row+8; a8..a11: col+16; a12..a15: both.
    return DL::columnLocal({2, 2}) * DL::spatial({8, 4}) * DL::local({1, 4});
  case MmaOperand::B:
    // b0..b3: (4c+i, g); b4..b7: row+16.
    return DL::local({2, 1}) * DL::columnSpatial({4, 8}) * DL::local({4, 1});
  case MmaOperand::C:
    return DL::local({2, 1}) * DL::spatial({8, 4}) * DL::local({1, 2});
  }
  return {};
}

Expected<DistributedLayout> nvidiaWgmmaAccumulator(unsigned n) {
  if (n == 0 || n % 8 != 0 || n > 256)
    return createStringError("wgmma has no m64n" + std::to_string(n) +
                             "k16 shape (N is a multiple of 8 up to 256)");
  // d[4j + 2i + k]: row 16 * warp + 8i + lane / 4, column 8j + 2 * (lane %
  // 4) + k: the column blocks outermost, then the warps, then the m16n8
  // accumulator of one warp.
  return DL::local({1, int64_t(n / 8)}) * DL::spatial({4, 1}) *
         nvidiaMmaM16N8K16(MmaOperand::C);
}

Expected<DistributedLayout> nvidiaLdmatrix(unsigned numMatrices, bool trans,
                                           unsigned matrixRows) {
  if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4) {
    return createStringError("ldmatrix loads 1, 2 or 4 matrices, not " +
                             std::to_string(numMatrices));
  }
  if (matrixRows == 0 || numMatrices % matrixRows != 0) {
    return createStringError("ldmatrix: " + std::to_string(numMatrices) +
                             " matrices cannot be arranged in " +
                             std::to_string(matrixRows) + " block rows");
  }
  int64_t cols = numMatrices / matrixRows;
  DL blocks = DL::columnLocal({matrixRows, cols});
  DL one = trans ? DL::columnSpatial({4, 8}) * DL::local({2, 1})
                 : DL::spatial({8, 4}) * DL::local({1, 2});
  return blocks * one;
}

namespace {

/// The wave64 MFMA operand layouts shared by every element type: 64 lanes
/// form 64 / M groups of M lanes; group g holds the K elements
/// [g * kPer, (g + 1) * kPer) of its row (A) or column (B). The accumulator
/// does not depend on the element type.
DistributedLayout mfmaWave64(unsigned m, unsigned n, unsigned k,
                             MmaOperand operand) {
  int64_t groups = 64 / m, kPer = k / groups;
  switch (operand) {
  case MmaOperand::A:
    return DL::columnSpatial({m, groups}) * DL::local({1, kPer});
  case MmaOperand::B:
    return DL::spatial({groups, n}) * DL::local({kPer, 1});
  case MmaOperand::C:
    // Lane l holds column l % N; rows come in blocks of 4 per lane group.
    if (m == 16)
      return DL::spatial({4, 16}) * DL::local({4, 1});
    return DL::local({4, 1}) * DL::spatial({2, 32}) * DL::local({4, 1});
  }
  return DL();
}

std::string shapeName(unsigned m, unsigned n, unsigned k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

} // namespace

Expected<DistributedLayout> amdMfma(unsigned m, unsigned n, unsigned k,
                                    MmaOperand operand) {
  bool known = (m == 16 && n == 16 && (k == 16 || k == 32)) ||
               (m == 32 && n == 32 && (k == 8 || k == 16));
  if (!known) {
    return createStringError("no f16/bf16 MFMA of shape " + shapeName(m, n, k) +
                             " (known: 16x16x16, 32x32x8, 16x16x32, 32x32x16)");
  }
  return mfmaWave64(m, n, k, operand);
}

Expected<DistributedLayout> amdMfmaInt8(unsigned m, unsigned n, unsigned k,
                                        MmaOperand operand) {
  bool known = (m == 16 && n == 16 && (k == 32 || k == 64)) ||
               (m == 32 && n == 32 && (k == 16 || k == 32));
  if (!known) {
    return createStringError(
        "no i8 MFMA of shape " + shapeName(m, n, k) +
        " (known: 16x16x32, 32x32x16, 16x16x64, 32x32x32)");
  }
  return mfmaWave64(m, n, k, operand);
}

} // namespace tile::layout
