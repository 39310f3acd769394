//===- Compare.h - Checking outputs against references ----------*- C++ -*-===//
//
// Part of tilec. Integer and low-bit integer outputs (uN, iN) and e8m0
// scales must match code for code. Float outputs pass element by element
// when |got - want| <= atol + rtol * |want|, where by default
//   rtol = atol = max(2 * 2^-m, 1e-4), m = the format's mantissa bits
// (f32: 1e-4, f16: 2^-9, bf16: 2^-6, f8e4m3: 2^-2, f4e2m1: 1); NaN matches
// only NaN and an infinity only the same infinity.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_COMPARE_H
#define TILE_RUNTIME_COMPARE_H

#include "tile/runtime/Bundle.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tile {
namespace rt {

/// What a comparison of two tensors found.
struct CompareStats {
  uint64_t Count = 0;      ///< Elements compared.
  uint64_t Mismatches = 0; ///< Elements out of tolerance.
  bool Exact = false;      ///< Compared code for code.
  double MaxAbs = 0;       ///< Largest |got - want| (finite pairs).
  double MaxRel = 0;       ///< Largest |got - want| / |want| (want != 0).
  int64_t FirstBad = -1;   ///< Index of the first mismatch.
  double FirstGot = 0, FirstWant = 0;

  /// "max_abs=... max_rel=... mismatches=3/4160 (first at 17: got 1 want 2)".
  std::string summary() const;
};

/// The default tolerance of \p DType (Atol/Rtol 0 for exact formats).
Tolerance defaultTolerance(std::string_view DType);

/// Compares \p N elements of two dense bit streams of \p DType. Negative
/// entries of \p Tol take the defaults.
Expected<CompareStats> compareTensors(std::string_view DType,
                                      const uint8_t *Got, const uint8_t *Want,
                                      uint64_t N, Tolerance Tol = {});

/// Whether a reference output of a tensor that was poisoned before the run
/// (every byte PoisonByte) still holds the pattern, i.e. the reference did
/// not write it: the index of the first element whose code is all ones and
/// a NaN (no arithmetic produces that NaN: IEEE operations return a
/// canonical one), else -1. Formats where all ones is a number (integers,
/// e8m0, f4e2m1, ...) and formats of at most 8 bits (every code is a
/// possible input, which copies and casts pass on: f8e5m2's NaN 0xFF, f8e4m3's
/// canonical NaN 0xFF) always give -1: an output may hold that code anywhere.
Expected<int64_t> poisonLeft(std::string_view DType, const uint8_t *Ref,
                             uint64_t N);

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_COMPARE_H
