//===- Random.h - Seeded test inputs shared by tilec and tile-run -*- C++
//-*-===//
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
//   double precision: u = (next() >> 11) * 2^-53 (uniform in [0, 1)), taken
//   twice as u1, u2 per pair; r = sqrt(-2 ln(1 - u1)), t = 2 pi u2; the pair
//   yields r cos t, then r sin t. Each value is encoded to the format with
//   lib/Numerics (round to nearest even, saturating); e8m0, which has no
//   sign, encodes |z|.
// * Codes are packed into the dense bit stream (row-major, LSB first).
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
