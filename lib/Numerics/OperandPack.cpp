//===- OperandPack.cpp - Weights stored in a tensor-core operand's order --===//
//
// Part of tilec. See include/tile/Numerics/OperandPack.h for the order.
//
//===----------------------------------------------------------------------===//

#include "tile/Numerics/OperandPack.h"
#include "tile/Numerics/Pack.h"

#include <algorithm>
#include <string>

using namespace tile::numerics;

static bool isPowerOfTwo(unsigned Bits) {
  return Bits != 0 && (Bits & (Bits - 1)) == 0;
}

size_t tile::numerics::oddWidthPairDistance(unsigned Bits) {
  return Bits <= 5 ? 4 : 2;
}

size_t tile::numerics::pairDistance(unsigned Bits, size_t BK) {
  if (!isPowerOfTwo(Bits) || Bits > 8)
    return oddWidthPairDistance(Bits);
  return std::min<size_t>(16 / Bits, BK / 8);
}

Result<OperandOrder>
tile::numerics::parseOperandOrder(const std::string &Name) {
  if (Name == "mma")
    return OperandOrder::Mma;
  if (Name == "mfma")
    return OperandOrder::Mfma;
  return Result<OperandOrder>::error("operand order: expected 'mma' (NVIDIA) "
                                     "or 'mfma' (AMD), got '" +
                                     Name + "'");
}

size_t tile::numerics::operandOrderK(size_t Pos, size_t BK, unsigned Bits,
                                     OperandOrder Order) {
  size_t D = pairDistance(Bits, BK);
  // The lane (group) Q, the pair Y of its stream, the half P of the pair.
  size_t Q = Pos / (BK / 4), Rest = Pos % (BK / 4);
  size_t P = (Rest / D) % 2, Y = Rest / (2 * D) * D + Rest % D;
  if (Order == OperandOrder::Mfma)
    return Y / 2 * 16 + Q * 4 + Y % 2 * 2 + P;
  return Y * 8 + Q * 2 + P;
}

size_t tile::numerics::defaultOperandBlockK(unsigned Bits) {
  if (Bits == 1)
    return 512;
  return Bits <= 4 ? 256 : 128;
}

Status tile::numerics::checkOperandOrder(unsigned Bits, size_t K, size_t N,
                                         size_t BK) {
  if (Bits < 1 || Bits > 8)
    return Status::error("operand order: code width must be 1..8 bits, got " +
                         std::to_string(Bits));
  if (BK == 0 || BK % 32)
    return Status::error("operand order: the chunk BK must be a positive "
                         "multiple of 32, got " +
                         std::to_string(BK));
  if (N == 0 || K == 0 || K % BK)
    return Status::error("operand order: K (" + std::to_string(K) +
                         ") must be a positive multiple of BK (" +
                         std::to_string(BK) + ") and N positive");
  if (K > (size_t(1) << 40) / N)
    return Status::error("operand order: tensor too large");
  return Status();
}

/// Moves every code between the row-major [K, N] stream and the operand
/// order: \p Pack says which side is the source.
static Result<std::vector<uint8_t>> permute(const uint8_t *In, unsigned Bits,
                                            size_t K, size_t N, size_t BK,
                                            OperandOrder Order, bool Pack) {
  Status S = checkOperandOrder(Bits, K, N, BK);
  if (!S)
    return Result<std::vector<uint8_t>>::error(S.message());
  std::vector<uint8_t> Out((K * N * Bits + 7) / 8, 0);
  for (size_t Row = 0; Row < N; ++Row)
    for (size_t Pos = 0; Pos < K; ++Pos) {
      size_t Chunk = Pos / BK * BK;
      size_t Logical = Chunk + operandOrderK(Pos % BK, BK, Bits, Order);
      size_t Packed = Row * K + Pos, Plain = Logical * N + Row;
      size_t From = Pack ? Plain : Packed, To = Pack ? Packed : Plain;
      writePacked(Out.data(), To, Bits, readPacked(In, From, Bits));
    }
  return Out;
}

Result<std::vector<uint8_t>>
tile::numerics::packOperandOrder(const uint8_t *W, unsigned Bits, size_t K,
                                 size_t N, size_t BK, OperandOrder Order) {
  return permute(W, Bits, K, N, BK, Order, /*Pack=*/true);
}

Result<std::vector<uint8_t>>
tile::numerics::unpackOperandOrder(const uint8_t *Wp, unsigned Bits, size_t K,
                                   size_t N, size_t BK, OperandOrder Order) {
  return permute(Wp, Bits, K, N, BK, Order, /*Pack=*/false);
}
