//===- Common.h - Helpers of the float64 references --------------*- C++
//-*-===//
//
// Part of tilec. Private to lib/Reference: float64 matrix products, the
// roundings the examples' outputs go through (lib/Numerics' encodings),
// and the reference functions the registry lists.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_REFERENCE_COMMON_H
#define TILE_LIB_REFERENCE_COMMON_H

#include "tile/Reference/Reference.h"

namespace tile {
namespace reference {
namespace detail {

/// a [m, k] x w [k, n] in float64.
std::vector<double> matmul(const std::vector<double> &a,
                           const std::vector<double> &w, int64_t m, int64_t k,
                           int64_t n);
/// The largest magnitude of \p v (0 when empty).
double maxAbs(const std::vector<double> &v);
/// \p x rounded once to \p format ("f16", "bf16", "f32", ...).
double roundTo(const std::string &format, double x);
inline double roundF16(double x) { return roundTo("f16", x); }
inline double roundBF16(double x) { return roundTo("bf16", x); }

// One function per example kernel (Elementwise.cpp, Matmul.cpp,
// Attention.cpp, BlockScaled.cpp).
Outputs vectorAdd(const Launch &l);
Outputs softmax(const Launch &l);
Outputs rmsnormQuant(const Launch &l);
Outputs layernorm(const Launch &l);
Outputs swiglu(const Launch &l);
Outputs gemmF16(const Launch &l);
Outputs gemmShared(const Launch &l);
Outputs gemmI8(const Launch &l);
Outputs gemmW8A8(const Launch &l);
Outputs gemmF8(const Launch &l);
Outputs gemmWQ(const Launch &l);
Outputs gemmDecode(const Launch &l);
Outputs gemmDecodePacked(const Launch &l);
std::string gemmDecodePackedUnsupported(const Launch &l);
Outputs attentionForward(const Launch &l);
Outputs dequantFp4(const Launch &l);
Outputs quantMX(const Launch &l);
Outputs quantNVFP4(const Launch &l);
Outputs dequantBlock(const Launch &l);
Outputs gemmMX(const Launch &l);

} // namespace detail
} // namespace reference
} // namespace tile

#endif // TILE_LIB_REFERENCE_COMMON_H
