//===- BlockScaled.cpp - References of the block-scaled examples ----------===//
//
// Part of tilec. dequant_fp4, quant_block.tile's kernels and gemm_mx.
// Quantization follows the recipes of docs/Numerics.md ("Block-scaled
// formats"): MX through lib/Numerics' quantizeBlockScaled, NVFP4 with the
// caller's tensor scale s_enc (the kernel's argument) and lib/Numerics'
// encodings.
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
  num::Format elem = num::blockElementFormat(scheme);
  std::vector<double> codes, scales;
  for (uint8_t c : q->Codes)
    codes.push_back(num::decode(elem, c));
  for (uint8_t c : q->Scales)
    scales.push_back(num::decode(num::Format::e8m0(), c));
  return {{"q", {codes, 0, 0}}, {"s", {scales, 0, 0}}};
}

Outputs detail::quantNVFP4(const Launch &l) {
  int64_t m = l.dim("M"), n = l.dim("N"), blocks = (n + 15) / 16;
  const Tensor &x = l.input("x");
  float sEnc = float(l.scalar("s_enc"));
  num::Format e2m1 = *num::Format::smallFloat(2, 1);
  num::Format e4m3 = *num::Format::smallFloat(4, 3);
  std::vector<double> codes(m * n, 0), scales(m * blocks);
  // In f32 as NVIDIA's recipe states it: scale = e4m3(amax / 6 * s_enc),
  // code = e2m1(x * (s_enc / scale)); a block whose scale is 0 keeps zeros.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t j0 = b * 16, j1 = std::min(n, j0 + 16);
      float amax = 0;
      for (int64_t j = j0; j < j1; ++j)
        amax = std::fmax(amax, std::fabs(float(x[i * n + j])));
      uint32_t code =
          num::encode(e4m3, amax / 6.0f * sEnc, num::Overflow::Saturate);
      float scale = float(num::decode(e4m3, code));
      scales[i * blocks + b] = scale;
      if (scale == 0)
        continue;
      float inv = sEnc / scale;
      for (int64_t j = j0; j < j1; ++j)
        codes[i * n + j] =
            num::decode(e2m1, num::encode(e2m1, float(x[i * n + j]) * inv,
                                          num::Overflow::Saturate));
    }
  return {{"q", {codes, 0, 0}}, {"s", {scales, 0, 0}}};
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
