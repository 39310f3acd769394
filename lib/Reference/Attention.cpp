//===- Attention.cpp - Reference of attention_fwd -------------------------===//
//
// Part of tilec. softmax(Q K^T * scale) V per head in float64, grouped
// query heads (H / HKV query heads share a key/value head), causal or not.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include <algorithm>
#include <cmath>

using namespace tile::reference;

Outputs detail::attentionForward(const Launch &l) {
  const Tensor &q = l.input("Q"), &kk = l.input("K"), &v = l.input("V");
  int64_t b = l.dim("B"), h = l.dim("H"), hkv = l.dim("HKV"), n = l.dim("N");
  int64_t d = q.shape.empty() ? l.intConstant("D") : q.shape.back();
  bool causal = l.boolConstant("CAUSAL");
  double scale = l.scalar("scale");
  std::vector<double> o(b * h * n * d);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi) {
      int64_t hk = hi / (h / hkv);
      const double *kv0 = &kk.values[(bi * hkv + hk) * n * d];
      const double *vv0 = &v.values[(bi * hkv + hk) * n * d];
      for (int64_t i = 0; i < n; ++i) {
        const double *qi = &q.values[((bi * h + hi) * n + i) * d];
        std::vector<double> s(n, -INFINITY);
        double mx = -INFINITY;
        for (int64_t j = 0; j < n && !(causal && j > i); ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d; ++e)
            dot += qi[e] * kv0[j * d + e];
          s[j] = dot * scale;
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < n; ++j)
          sum += s[j] == -INFINITY ? 0 : std::exp(s[j] - mx);
        double *oi = &o[((bi * h + hi) * n + i) * d];
        for (int64_t j = 0; j < n; ++j) {
          if (s[j] == -INFINITY)
            continue;
          double p = std::exp(s[j] - mx) / sum;
          for (int64_t e = 0; e < d; ++e)
            oi[e] += p * vv0[j * d + e];
        }
      }
    }
  // f16 probabilities into the second product, f32 sums, f16 out.
  return {{"O", {o, 4e-3, 1e-2}}};
}
