//===- Random.h - Seeded inputs shared by tilec and tile-run ---*- C++ -*-===//
//
// Part of tilec. `tilec run`, `tilec bundle` and `tile-run` must produce the
// very same input tensors from a seed, on every machine. The definition
// (also in runtime/README.md) is:
//
// * Stream of a tensor called NAME in a test with seed S: a splitmix64
//   generator starting at state S ^ FNV1a64(NAME) produces four outputs,
//   which become the state s[0..3] of a xoshiro256** generator.
// * Integer formats (uN, iN) draw one 64-bit output per element and keep its
//   top `bits` bits as the element's code: uniform over all codes.
// * Float formats draw N(0, 1) values with the Box-Muller transform in
//   IEEE double arithmetic: u = (next() >> 11) * 2^-53 (uniform in [0, 1)),
//   taken twice as u1, u2 per pair; r = sqrt(-2 detLog(1 - u1)); the pair
//   yields r * cos(2 pi u2), then r * sin(2 pi u2), with cos/sin from
//   detSinCos2Pi. Each value is encoded to the format with lib/Numerics
//   (round to nearest even, saturating); e8m0, which has no sign, encodes
//   |z|.
// * Codes are packed into the dense bit stream (row-major, LSB first).
//
// libm's log/sin/cos may differ in the last bit between C libraries, so the
// transcendental functions are fixed series (below) evaluated without fused
// multiply-add: the results are bit-identical on every IEEE-754 machine.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RANDOM_H
#define TILE_RUNTIME_RANDOM_H

#include "tile/runtime/Error.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tile {
namespace rt {

/// One step of splitmix64 (advances \p State).
uint64_t splitmix64(uint64_t &State);
/// 64-bit FNV-1a hash of \p Text.
uint64_t fnv1a64(std::string_view Text);

/// ln(X) for X in (0, 1], bit-reproducible: with X = m * 2^e, m in
/// [0.5, 1) (frexp), and m < 0.70710678118654752 replaced by 2m (e - 1):
/// f = (m - 1) / (m + 1), s = sum over k = 0..19 of f^(2k+1) / (2k+1)
/// (term = f; for each k: s += term / (2k+1); term *= f * f), and
/// ln X = 2 s + e * 0.6931471805599453.
double detLog(double X);

/// sin(2 pi U) and cos(2 pi U) for U in [0, 1), bit-reproducible: with
/// q = floor(4U) and t = (4U - q) * 1.5707963267948966, sin t and cos t are
/// Taylor series of 13 terms (term = t (sin) or 1 (cos); for k = 0..12:
/// sum += term; term = -term * (t * t) / d with d = (2k+2)(2k+3) for sin
/// and (2k+1)(2k+2) for cos), rotated by quadrant q.
void detSinCos2Pi(double U, double &Sin, double &Cos);

/// xoshiro256** with a Box-Muller normal generator on top.
class Rng {
public:
  /// Seeds the four state words from splitmix64 starting at \p Seed.
  explicit Rng(uint64_t Seed);
  /// The stream of tensor \p Name in a test with seed \p Seed.
  static Rng forTensor(uint64_t Seed, std::string_view Name) {
    return Rng(Seed ^ fnv1a64(Name));
  }

  /// The next raw 64-bit output.
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// A standard normal value (Box-Muller, pairs consumed cos then sin).
  double normal();
  /// The next \p N values of normal(), bit for bit, leaving the generator
  /// where N calls would; the transforms of large batches run on several
  /// threads (the raw draws stay sequential).
  void normals(double *Out, uint64_t N);

private:
  uint64_t S[4];
  bool HasSpare = false;
  double Spare = 0;
};

/// Generates \p NumElements element codes of format \p DType (a language
/// type name) from \p R, as described above.
Expected<std::vector<uint32_t>> generateCodes(std::string_view DType,
                                              uint64_t NumElements, Rng &R);

/// The packed contents of tensor \p Name of format \p DType with
/// \p NumElements elements in a test with seed \p Seed.
Expected<std::vector<uint8_t>> generateTensor(std::string_view DType,
                                              uint64_t NumElements,
                                              uint64_t Seed,
                                              std::string_view Name);

/// The byte every output is filled with before a run: 0xFF makes every
/// code all ones (a NaN for f32, f16, bf16, f8e4m3, f8e5m2 and e8m0).
constexpr uint8_t PoisonByte = 0xFF;

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_RANDOM_H
