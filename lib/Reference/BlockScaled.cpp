//===- BlockScaled.cpp - References of the block-scaled examples ----------===//
//
// Part of tilec. dequant_fp4, quant_block.tile's kernels and gemm_mx.
// Quantization follows the recipes of docs/Numerics.md ("Block-scaled
// formats"): lib/Numerics' quantizeBlockScaled for MX, its quantizeNVFP4
// with the kernel's tensor scale argument s_enc for NVFP4.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Numerics/BlockScaled.h"
#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cmath>

using namespace tile::reference;
using namespace tile::reference::detail;
namespace num = tile::numerics;

namespace {

/// The MX scheme whose element type is \p type (f4e2m1 -> MXFP4, ...).
num::BlockScheme mxScheme(const std::string &type) {
  if (type == "f6e2m3")
    return num::BlockScheme::MXFP6E2M3;
  if (type == "f6e3m2")
    return num::BlockScheme::MXFP6E3M2;
  if (type == "f8e4m3")
    return num::BlockScheme::MXFP8E4M3;
  if (type == "f8e5m2")
    return num::BlockScheme::MXFP8E5M2;
  return num::BlockScheme::MXFP4;
}

std::vector<float> asFloats(const Tensor &t) {
  return std::vector<float>(t.values.begin(), t.values.end());
}

/// The q and s outputs of a quantization: its codes and scales decoded.
Outputs decodedCodes(const num::BlockScaledTensor &q) {
  num::Format elem = num::blockElementFormat(q.Scheme);
  num::Format scale = num::blockScaleFormat(q.Scheme);
  std::vector<double> codes, scales;
  for (uint8_t c : q.Codes)
    codes.push_back(num::decode(elem, c));
  for (uint8_t c : q.Scales)
    scales.push_back(num::decode(scale, c));
  return {{"q", {codes, 0, 0}}, {"s", {scales, 0, 0}}};
}

} // namespace

Outputs detail::dequantFp4(const Launch &l) {
  const Tensor &q = l.input("q"), &s = l.input("s");
  int64_t m = l.dim("M"), n = l.dim("N");
  std::vector<double> y(m * n);
  // A 2-bit significand times a power of two: exact in bf16.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = roundBF16(q[i * n + j] * s[i * (n / 32) + j / 32]);
  return {{"y", {y, 0, 0}}};
}

Outputs detail::quantMX(const Launch &l) {
  int64_t m = l.dim("M"), n = l.dim("N");
  num::BlockScheme scheme = mxScheme(l.constant("T"));
  auto q = num::quantizeBlockScaled(scheme, asFloats(l.input("x")), m, n);
  if (!q)
    return {};
  return decodedCodes(*q);
}

Outputs detail::quantNVFP4(const Launch &l) {
  // The kernel's tensor scale s_enc, not the one its inputs would give.
  auto q = num::quantizeNVFP4(asFloats(l.input("x")), l.dim("M"), l.dim("N"),
                              float(l.scalar("s_enc")));
  if (!q)
    return {};
  return decodedCodes(*q);
}

Outputs detail::dequantBlock(const Launch &l) {
  const Tensor &q = l.input("q"), &s = l.input("s");
  int64_t m = l.dim("M"), n = l.dim("N"), bs = l.intConstant("BS");
  int64_t blocks = (n + bs - 1) / bs;
  float alpha = float(l.scalar("alpha"));
  std::vector<double> y(m * n);
  // code x scale is exact in f32; times alpha rounds to f32, then bf16.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] =
          roundBF16(float(q[i * n + j] * s[i * blocks + j / bs]) * alpha);
  return {{"y", {y, 0, 0}}};
}

Outputs detail::gemmMX(const Launch &l) {
  const Tensor &a = l.input("A"), &sa = l.input("SA"), &b = l.input("B"),
               &sb = l.input("SB");
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  int64_t bs = l.intConstant("BS"), blocks = (k + bs - 1) / bs;
  double alpha = l.scalar("alpha");
  std::vector<double> c(m * n);
  double bound = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      for (int64_t r = 0; r < k; ++r) {
        double t = a[i * k + r] * sa[i * blocks + r / bs] * b[j * k + r] *
                   sb[j * blocks + r / bs];
        acc += t;
        mag += std::fabs(t);
      }
      c[i * n + j] = alpha * acc;
      bound = std::max(bound, std::fabs(alpha) * mag);
    }
  // The scaled products are exact; f32 sums, then one rounding to OUT.
  double rtol = l.constant("OUT") == "f32" ? 1e-6 : 1.0 / 256;
  return {{"C", {c, 1e-6 * (1 + bound), rtol}}};
}
