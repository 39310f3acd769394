//===- Elementwise.cpp - References of the row-wise examples --------------===//
//
// Part of tilec. vector_add, softmax, rmsnorm_quant, layernorm and swiglu
// in float64; each tolerance says which rounding of the kernel it covers.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cmath>

using namespace tile::reference;
namespace num = tile::numerics;

Outputs detail::vectorAdd(const Launch &l) {
  const Tensor &x = l.input("x"), &y = l.input("y");
  std::vector<double> z(x.values.size());
  // One f32 addition: exactly the float sum.
  for (size_t i = 0; i < z.size(); ++i)
    z[i] = static_cast<float>(x[i] + y[i]);
  return {{"z", {z, 0, 0}}};
}

Outputs detail::softmax(const Launch &l) {
  const Tensor &x = l.input("x");
  int64_t m = l.dim("M"), n = l.dim("N");
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j)
      mx = std::max(mx, x[i * n + j]);
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(x[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = std::exp(x[i * n + j] - mx) / sum;
  }
  // f32 exponentials and sums, one f16 rounding.
  return {{"y", {y, 1e-5, 1.0 / 1024}}};
}

Outputs detail::rmsnormQuant(const Launch &l) {
  const Tensor &x = l.input("x"), &w = l.input("w");
  int64_t m = l.dim("M"), n = l.dim("N");
  double eps = l.scalar("eps");
  unsigned bits = num::parseFormat(l.constant("T"))->bits();
  double qmax = (1 << (bits - 1)) - 1;
  std::vector<double> q(m * n), scale(m);
  for (int64_t i = 0; i < m; ++i) {
    double ss = 0;
    for (int64_t j = 0; j < n; ++j)
      ss += x[i * n + j] * x[i * n + j];
    double inv = 1 / std::sqrt(ss / n + eps);
    double amax = 0;
    std::vector<double> y(n);
    for (int64_t j = 0; j < n; ++j) {
      y[j] = x[i * n + j] * inv * w[j];
      amax = std::max(amax, std::fabs(y[j]));
    }
    double s = std::max(amax / qmax, 1e-8);
    scale[i] = s;
    for (int64_t j = 0; j < n; ++j)
      q[i * n + j] = std::clamp(std::nearbyint(y[j] / s), -qmax - 1, qmax);
  }
  // f32 in the kernel: a value within 1e-5 of a rounding boundary may land
  // on the neighbouring code.
  return {{"scale", {scale, 0, 1e-5}}, {"q", {q, 1, 0}}};
}

Outputs detail::layernorm(const Launch &l) {
  const Tensor &x = l.input("x"), &w = l.input("w"), &b = l.input("b");
  int64_t m = l.dim("M"), n = l.dim("N");
  double eps = l.scalar("eps");
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x[i * n + j];
    mean /= n;
    for (int64_t j = 0; j < n; ++j)
      var += (x[i * n + j] - mean) * (x[i * n + j] - mean);
    double inv = 1 / std::sqrt(var / n + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = (x[i * n + j] - mean) * inv * w[j] + b[j];
  }
  // f32 arithmetic, then one f16 rounding (2^-11 relative).
  return {{"y", {y, 1e-3, 1.0 / 1024}}};
}

Outputs detail::swiglu(const Launch &l) {
  const Tensor &h = l.input("h");
  int64_t m = l.dim("M"), f = l.dim("F");
  std::vector<double> out(m * f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < f; ++j) {
      double gate = h[i * 2 * f + j], up = h[i * 2 * f + f + j];
      out[i * f + j] = gate / (1 + std::exp(-gate)) * up;
    }
  // f32 arithmetic, then one bf16 rounding (2^-9 relative).
  return {{"out", {out, 1e-3, 1.0 / 256}}};
}
