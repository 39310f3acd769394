//===- Registry.cpp - Which example kernel has which reference ------------===//
//
// Part of tilec. The table of float64 references by (example file,
// kernel), the Launch accessors and the element-wise comparison.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Numerics/Format.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

using namespace tile::reference;
using namespace tile::reference::detail;
namespace num = tile::numerics;

namespace {

struct Entry {
  const char *file;
  const char *kernel;
  Reference reference;
};

const Entry kEntries[] = {
    {"vector_add.tile", "vector_add", {vectorAdd, {"x", "y"}, {"z"}}},
    {"softmax.tile", "softmax", {softmax, {"x"}, {"y"}}},
    {"rmsnorm_quant.tile",
     "rmsnorm_quant",
     {rmsnormQuant, {"x", "w", "eps"}, {"q", "scale"}}},
    {"layernorm.tile", "layernorm", {layernorm, {"x", "w", "b", "eps"}, {"y"}}},
    {"swiglu.tile", "swiglu", {swiglu, {"h"}, {"out"}}},
    {"gemm_f16.tile", "gemm_f16", {gemmF16, {"A", "B"}, {"C"}}},
    {"gemm_shared.tile", "gemm_shared", {gemmShared, {"A", "B"}, {"C"}}},
    {"gemm_i8.tile",
     "gemm_i8",
     {gemmI8, {"A", "B", "sa", "sb", "bias"}, {"C"}}},
    {"gemm_w8a8.tile",
     "gemm_w8a8",
     {gemmW8A8, {"A", "W", "sa", "sw", "bias"}, {"C"}}},
    {"gemm_f8.tile", "gemm_f8", {gemmF8, {"A", "B", "sa", "sb"}, {"C"}}},
    {"gemm_wq.tile", "gemm_wq", {gemmWQ, {"A", "W", "S", "Z"}, {"C"}}},
    {"gemm_decode.tile",
     "gemm_decode",
     {gemmDecode, {"A", "W", "S", "Z", "C"}, {"C"}}},
    {"gemm_decode_packed.tile",
     "gemm_decode_packed",
     {gemmDecodePacked,
      {"A", "Wp", "S", "Z", "C"},
      {"C"},
      gemmDecodePackedUnsupported}},
    {"attention_fwd.tile",
     "attention_fwd",
     {attentionForward, {"Q", "K", "V", "scale"}, {"O"}}},
    {"dequant_fp4.tile", "dequant_fp4", {dequantFp4, {"q", "s"}, {"y"}}},
    {"quant_block.tile", "quant_mx", {quantMX, {"x"}, {"q", "s"}}},
    {"quant_block.tile",
     "quant_nvfp4",
     {quantNVFP4, {"x", "s_enc"}, {"q", "s"}}},
    {"quant_block.tile",
     "dequant_block",
     {dequantBlock, {"q", "s", "alpha"}, {"y"}}},
    {"gemm_mx.tile",
     "gemm_mx",
     {gemmMX, {"A", "SA", "B", "SB", "alpha"}, {"C"}}},
};

} // namespace

const Reference *tile::reference::lookup(std::string_view file,
                                         std::string_view kernel) {
  for (const Entry &e : kEntries)
    if (file == e.file && kernel == e.kernel)
      return &e.reference;
  return nullptr;
}

std::vector<std::pair<std::string, std::string>>
tile::reference::listReferences() {
  std::vector<std::pair<std::string, std::string>> list;
  for (const Entry &e : kEntries)
    list.emplace_back(e.file, e.kernel);
  return list;
}

const Tensor &Launch::input(const std::string &name) const {
  static const Tensor empty;
  auto it = in.find(name);
  return it == in.end() ? empty : it->second;
}

int64_t Launch::dim(const std::string &name) const {
  auto it = dims.find(name);
  return it == dims.end() ? 0 : it->second;
}

double Launch::scalar(const std::string &name) const {
  auto it = scalars.find(name);
  return it == scalars.end() ? 0 : it->second;
}

const std::string &Launch::constant(const std::string &name) const {
  static const std::string empty;
  auto it = constants.find(name);
  return it == constants.end() ? empty : it->second;
}

int64_t Launch::intConstant(const std::string &name) const {
  return std::strtoll(constant(name).c_str(), nullptr, 10);
}

bool Launch::boolConstant(const std::string &name) const {
  return constant(name) == "true";
}

Comparison tile::reference::compare(const std::vector<double> &got,
                                    const Expected &want) {
  Comparison c;
  if (got.size() != want.values.size()) {
    c.bad = std::max(got.size(), want.values.size());
    c.firstBad = std::to_string(got.size()) + " elements, expected " +
                 std::to_string(want.values.size());
    return c;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want.values[i];
    double err = std::fabs(g - w);
    if (std::isfinite(err))
      c.maxAbsError = std::max(c.maxAbsError, err);
    if (std::isfinite(g) && err <= want.atol + want.rtol * std::fabs(w))
      continue;
    // A NaN where the reference has one (a NaN weight code), an infinity
    // where it has the same one.
    if ((std::isnan(g) && std::isnan(w)) || (std::isinf(g) && g == w))
      continue;
    if (c.bad++ == 0) {
      std::ostringstream os;
      os.precision(9);
      os << "element " << i << " is " << g << ", expected " << w;
      c.firstBad = os.str();
    }
  }
  return c;
}

std::vector<double> detail::matmul(const std::vector<double> &a,
                                   const std::vector<double> &w, int64_t m,
                                   int64_t k, int64_t n) {
  std::vector<double> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t l = 0; l < k; ++l)
        acc += a[i * k + l] * w[l * n + j];
      c[i * n + j] = acc;
    }
  return c;
}

double detail::maxAbs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

double detail::roundTo(const std::string &format, double x) {
  num::Format f = *num::parseFormat(format);
  return num::decode(f, num::encode(f, x));
}
