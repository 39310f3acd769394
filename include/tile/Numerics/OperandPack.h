//===- OperandPack.h - Weights stored in a tensor-core operand's order -*- C++
//-*-//
//
// Part of tilec. Pre-packed weights for decode GEMM: a row-major [K, N]
// weight W of b-bit codes (1 <= b <= 8) is stored as Wp, [N, K], whose row n
// holds column n of W with each chunk of BK consecutive k (BK a multiple of
// 32) reordered so that a kernel reading Wp[n0 : n0 + BN, k : k + BK] in
// coalesced 16-byte pieces hands every thread exactly the codes of its
// mma.sync m16n8k16 B-operand registers, the two codes of a register 16 bits
// apart in a 32-bit word (one conversion instruction per pair). With
// x = 4 kh + 2 kl + h (kh < BK / 32; kl, h < 2) and the pair distance
// D = pairDistance(b, BK) (16 / b for 1, 2, 4 and 8 bits, at most BK / 8;
// for other widths oddWidthPairDistance(b): 4 for 3 and 5 bits, 2 for 6
// and 7, so that the pair sits within one 32-bit window where one LOP3
// converts it), position pos of a chunk, read as
//
//   pos = q * (BK / 4) + (x / D) * 2D + p * D + x % D   (q < 4, p < 2),
//
// holds k = 8 x + 2 q + p (within the chunk), i.e. kh * 32 + kl * 16 +
// h * 8 + q * 2 + p. For 4 bits, pos = q (BK / 4) + 8 kh + 4 p + 2 kl + h.
//
// That is the order of NVIDIA's mma.sync and wgmma register operands
// (OperandOrder::Mma). AMD's MFMA 16x16x16 operands (OperandOrder::Mfma)
// give lane group g < 4 of 16 lanes the four consecutive k = 16 x + 4 g + i
// (i < 4) of each k16 step x; with pairs y = 2 x + i / 2 (p = i % 2) the
// same arrangement of a group's BK / 4 codes,
//
//   pos = g * (BK / 4) + (y / D) * 2D + p * D + y % D   (g < 4, p < 2),
//
// holds k = 16 (y / 2) + 4 g + 2 (y % 2) + p.
//
// examples/gemm_decode_packed.tile names the same orders with reshape and
// trans(x, [axes]) (its MFMA parameter picks one); docs/Numerics.md,
// "Operand-ordered weights".
//
//===----------------------------------------------------------------------===//

#ifndef TILE_NUMERICS_OPERANDPACK_H
#define TILE_NUMERICS_OPERANDPACK_H

#include "tile/Numerics/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tile {
namespace numerics {

/// Whose register operand a packed chunk follows: NVIDIA's mma.sync /
/// wgmma (pairs of k, lanes of a quad 2 apart) or AMD's MFMA (four
/// consecutive k per lane group of 16).
enum class OperandOrder { Mma, Mfma };

/// The order named "mma" or "mfma" (what `tilec pack --order`, the C API
/// and Python take); an error naming both for anything else.
Result<OperandOrder> parseOperandOrder(const std::string &Name);

/// Positions between the two codes of a B-operand register in a chunk of
/// \p BK codes of \p Bits bits: 16 / Bits (16 bits apart) for 1, 2, 4
/// and 8 bits, capped at BK / 8; oddWidthPairDistance for other widths.
size_t pairDistance(unsigned Bits, size_t BK);

/// The pair distance of widths other than 1, 2, 4 and 8 (any chunk): the
/// largest power of two D <= 4 for which the codes at bits p and
/// p + D * Bits fit one shifted 32-bit word as an f16 pair's mantissas,
/// the first s bits up in the low half and the second
/// s + D * Bits - 16 bits up in the high half, both fields below bit 10:
/// 4 for 3 and 5 bits, 2 for 6 and 7 (the GPU lowering's word-wise
/// conversion, lib/Codegen/GPU/LowerCast.cpp, pairs the same slots).
size_t oddWidthPairDistance(unsigned Bits);

/// The k (within its chunk of \p BK) stored at position \p Pos of a chunk
/// of \p Bits-bit codes in \p Order.
size_t operandOrderK(size_t Pos, size_t BK, unsigned Bits,
                     OperandOrder Order = OperandOrder::Mma);

/// The default chunk for \p Bits-bit codes (examples/gemm_decode_packed's
/// BK): 512 for 1 bit, 256 for 2, 3 and 4 bits, 128 for 5 to 8 (16 to 32
/// bytes per chunk of each row a thread holds: BK / 4 codes). The fastest
/// measured on an H100 (docs/Performance.md, 2026-11-26: u4 at 256 took
/// 109.6 us against 144.4 us at 128 for M=1, N=57344, K=8192; 5-7 bits no
/// faster at 256; 2026-11-27: u8 at 128 took 187 us against 260 at 64).
size_t defaultOperandBlockK(unsigned Bits);

/// Checks the arguments of the two functions below: 1 <= Bits <= 8, BK a
/// positive multiple of 32 dividing K, N > 0.
Status checkOperandOrder(unsigned Bits, size_t K, size_t N, size_t BK);

/// W ([K, N] dense stream of Bits-bit codes, (K * N * Bits + 7) / 8 bytes)
/// to Wp ([N, K] dense stream in the operand order).
Result<std::vector<uint8_t>>
packOperandOrder(const uint8_t *W, unsigned Bits, size_t K, size_t N, size_t BK,
                 OperandOrder Order = OperandOrder::Mma);
/// The inverse: Wp back to W.
Result<std::vector<uint8_t>>
unpackOperandOrder(const uint8_t *Wp, unsigned Bits, size_t K, size_t N,
                   size_t BK, OperandOrder Order = OperandOrder::Mma);

} // namespace numerics
} // namespace tile

#endif // TILE_NUMERICS_OPERANDPACK_H
