//===- Matmul.cpp - References of the matrix-product examples -------------===//
//
// Part of tilec. gemm_f16, gemm_shared, gemm_i8, gemm_w8a8, gemm_f8, gemm_wq
// and the decode GEMMs in float64. Dequantized weights are rounded the way
// the programs round them (each f16 operation once), so the tolerance covers
// only the f32 accumulation and the output rounding.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/OperandPack.h"

#include <cmath>

using namespace tile::reference;
using namespace tile::reference::detail;
namespace num = tile::numerics;

namespace {

/// C = A x B for the f16 GEMMs (f32 accumulation, one f16 rounding).
Outputs plainGemm(const Launch &l) {
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  return {{"C",
           {matmul(l.input("A").values, l.input("B").values, m, k, n), 1e-2,
            1.0 / 1024}}};
}

/// C_in + A x dequant(codes) for the decode GEMMs, \p codes being W [k, n]
/// decoded. Dequantized as the programs do: -z * s once per group and
/// column, then w * s + that, each f16 operation rounded once.
std::vector<double> decodeProduct(const Launch &l,
                                  const std::vector<double> &codes) {
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  int64_t g = l.intConstant("G");
  bool zp = l.boolConstant("ZP");
  const Tensor &s = l.input("S"), &z = l.input("Z");
  std::vector<double> w(k * n);
  // S and Z have K / G rows: the rows of a last partial group (K not a
  // multiple of G) are outside them and read as 0, as the kernels' loads
  // read them, so those weights are 0.
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < n; ++j) {
      bool inside = r / g < k / g;
      double sc = inside ? s[(r / g) * n + j] : 0.0;
      double zs = zp && inside ? -roundF16(z[(r / g) * n + j] * sc) : 0;
      w[r * n + j] = roundF16(roundF16(roundF16(codes[r * n + j]) * sc) + zs);
    }
  std::vector<double> c = matmul(l.input("A").values, w, m, k, n);
  const Tensor &c0 = l.input("C");
  for (int64_t i = 0; i < m * n; ++i)
    c[i] += c0[i];
  return c;
}

} // namespace

Outputs detail::gemmF16(const Launch &l) {
  Outputs out = plainGemm(l);
  // T = bf16: C rounded to 8 significant bits, not 11.
  if (l.constant("T") == "bf16")
    out["C"].rtol = 1.0 / 256;
  return out;
}

Outputs detail::gemmShared(const Launch &l) { return plainGemm(l); }

/// The int8 GEMMs' epilogue on C = A x B (B [k, n], the sums exact): f32
/// scaling by row and column, the bias, one OUT rounding.
static Outputs scaledIntGemm(const Launch &l, const std::vector<double> &b,
                             const char *rowScale, const char *colScale) {
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  bool bias = l.boolConstant("BIAS");
  std::vector<double> c = matmul(l.input("A").values, b, m, k, n);
  const Tensor &sa = l.input(rowScale), &sb = l.input(colScale),
               &bv = l.input("bias");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * n + j] = c[i * n + j] * sa[i] * sb[j] + (bias ? bv[j] : 0.0);
  return {{"C", {c, 1e-6, 1.0 / 256}}};
}

/// B [k, n] from a weight stored N x K.
static std::vector<double> transposedWeight(const Launch &l, const char *name) {
  int64_t k = l.dim("K"), n = l.dim("N");
  const std::vector<double> &bt = l.input(name).values;
  std::vector<double> b(k * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t r = 0; r < k; ++r)
      b[r * n + j] = bt[j * k + r];
  return b;
}

Outputs detail::gemmI8(const Launch &l) {
  return scaledIntGemm(l, l.input("B").values, "sa", "sb");
}

Outputs detail::gemmW8A8(const Launch &l) {
  return scaledIntGemm(l, transposedWeight(l, "W"), "sa", "sw");
}

Outputs detail::gemmF8(const Launch &l) {
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  // B is stored N x K.
  std::vector<double> c =
      matmul(l.input("A").values, transposedWeight(l, "B"), m, k, n);
  // Products of 8-bit floats are exact; f32 accumulation, one scaling by
  // sa * sb (an f32 product) and one OUT rounding.
  double scale = double(float(l.scalar("sa")) * float(l.scalar("sb")));
  for (double &v : c)
    v *= scale;
  return {{"C", {c, 1e-2, 1.0 / 1024}}};
}

Outputs detail::gemmWQ(const Launch &l) {
  int64_t m = l.dim("M"), k = l.dim("K"), n = l.dim("N");
  int64_t g = l.intConstant("G");
  bool zp = l.boolConstant("ZP");
  const Tensor &wq = l.input("W"), &s = l.input("S"), &z = l.input("Z");
  // (cast(f16, w) - z) * s, each f16 operation rounded once; S and Z have
  // K / G rows, and the rows of a last partial group read them as 0.
  std::vector<double> w(k * n);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < n; ++j) {
      bool inside = r / g < k / g;
      double v = roundF16(wq[r * n + j]);
      if (zp && inside)
        v = roundF16(v - z[(r / g) * n + j]);
      w[r * n + j] = inside ? roundF16(v * s[(r / g) * n + j]) : 0.0;
    }
  std::vector<double> c = matmul(l.input("A").values, w, m, k, n);
  double scale = maxAbs(c);
  return {{"C", {c, 1e-3 * (1 + scale), 1.0 / 512}}};
}

Outputs detail::gemmDecode(const Launch &l) {
  std::vector<double> c = decodeProduct(l, l.input("W").values);
  double scale = maxAbs(c);
  // Each split's partial sum is rounded to OUT, then every addition is.
  const std::string &out = l.constant("OUT");
  double rtol = out == "f32" ? 1e-5 : out == "f16" ? 1.0 / 256 : 1.0 / 32;
  return {{"C", {c, 1e-3 * (1 + scale) + rtol * scale / 8, rtol}}};
}

std::string detail::gemmDecodePackedUnsupported(const Launch &l) {
  // Wp is stored in chunks of BK codes per row (lib/Numerics' operand
  // order); a partial last chunk has no defined order.
  int64_t k = l.dim("K"), bk = l.intConstant("BK");
  if (bk > 0 && k % bk == 0)
    return "";
  return "K = " + std::to_string(k) +
         " is not a multiple of BK = " + std::to_string(bk) +
         ": Wp is packed in chunks of BK codes per row (tilec pack --block-k)";
}

Outputs detail::gemmDecodePacked(const Launch &l) {
  // W[c BK + operandOrderK(pos), n] = Wp[n, c BK + pos] (lib/Numerics'
  // operand packing order: AMD's MFMA one when the kernel says MFMA).
  int64_t k = l.dim("K"), n = l.dim("N");
  int64_t bk = l.intConstant("BK");
  unsigned bits = num::parseFormat(l.constant("T"))->bits();
  auto order =
      l.boolConstant("MFMA") ? num::OperandOrder::Mfma : num::OperandOrder::Mma;
  const Tensor &wp = l.input("Wp");
  std::vector<double> codes(k * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t pos = 0; pos < k; ++pos) {
      int64_t r = pos / bk * bk +
                  int64_t(num::operandOrderK(pos % bk, bk, bits, order));
      codes[r * n + j] = wp[j * k + pos];
    }
  std::vector<double> c = decodeProduct(l, codes);
  double scale = maxAbs(c);
  const std::string &out = l.constant("OUT");
  double rtol = out == "f32" ? 1e-5 : out == "f16" ? 1.0 / 256 : 1.0 / 32;
  return {{"C", {c, 1e-3 * (1 + scale) + rtol * scale / 8, rtol}}};
}
