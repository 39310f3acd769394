//===- ExamplesTest.cpp - Every example on the host vs. float64 loops -----===//
//
// Each reference example of examples/ is compiled for the host through
// the JIT library and run on seeded random inputs (outputs poisoned first)
// at several sizes — sizes that do not divide the tile sizes and M = 1
// included. Its outputs are compared with a reference written here as plain
// float64 loops over the decoded inputs (lib/Numerics only decodes and
// rounds); the reference never uses the compiler.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/JIT.h"
#include "tile/Numerics/BlockScaled.h"
#include "tile/Numerics/CAPI.h"
#include "tile/Numerics/Format.h"
#include "tile/Numerics/OperandPack.h"
#include "tile/Numerics/Pack.h"
#include "tile/runtime/TestRun.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>

using namespace tile;
namespace num = tile::numerics;

namespace {

// Keeps the Numerics C ABI in the binary, exported for host kernels.
[[maybe_unused]] auto *keepNumerics = &tile_num_convert;

std::string examplePath(const std::string &name) {
  return std::string(TILE_EXAMPLES_DIR) + "/" + name;
}

jit::Compiler &compiler() {
  static jit::Compiler instance({"", /*DiskCache=*/false});
  return instance;
}

/// Decoded tensors of one run, by parameter name.
struct Tensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
  double operator[](size_t i) const { return values[i]; }
};

std::vector<double> decodeAll(const std::string &dtype,
                              const std::vector<uint8_t> &packed, uint64_t n) {
  num::Format format = *num::parseFormat(dtype);
  std::vector<double> values(n);
  for (uint64_t i = 0; i < n; ++i)
    values[i] =
        num::decode(format, num::readPacked(packed.data(), i, format.bits()));
  return values;
}

/// Replaces NaN and infinite codes of float inputs by code 0 so that every
/// output element checks arithmetic (one NaN in a dot row hides the rest).
void sanitize(rt::TensorArg &t) {
  num::Format format = *num::parseFormat(t.Param->DType);
  bool changed = false;
  for (uint64_t i = 0; i < t.NumElements; ++i) {
    uint32_t code = num::readPacked(t.Initial.data(), i, format.bits());
    if (!std::isfinite(num::decode(format, code))) {
      num::writePacked(t.Initial.data(), i, format.bits(), 0);
      changed = true;
    }
  }
  if (changed)
    ASSERT_FALSE(bool(t.Buf.upload(t.Initial.data(), t.Bytes)));
}

struct Result {
  std::map<std::string, Tensor> in, out;
  std::map<std::string, int64_t> dims;
};

/// Compiles \p file with \p defines, runs kernel \p kernel on the host with
/// \p sizes / \p scalars and returns the decoded inputs and outputs. The
/// `mut` tensors named in \p inout get random inputs (not poison) and appear
/// in both maps.
Result run(const std::string &file, const std::string &kernel,
           std::map<std::string, std::string> defines, rt::DimMap sizes,
           std::map<std::string, double> scalars = {}, uint64_t seed = 7,
           std::vector<std::string> inout = {}) {
  Result result;
  jit::CompileOptions options;
  options.defines = std::move(defines);
  auto compiled =
      compiler().compileKernel(test::readTextFile(examplePath(file)),
                               examplePath(file), kernel, options);
  EXPECT_TRUE(bool(compiled)) << compiled.message();
  if (!compiled)
    return result;
  auto device = rt::Device::open("host");
  auto loaded = compiler().load(**compiled, *device);
  EXPECT_TRUE(bool(loaded)) << loaded.message();
  if (!loaded)
    return result;
  rt::TestCase test;
  test.Sizes = sizes;
  test.Scalars = scalars;
  test.Seed = seed;
  test.InOut = inout;
  auto prepared = rt::prepareRun((*compiled)->Info.Signature, test, *device);
  EXPECT_TRUE(bool(prepared)) << prepared.message();
  if (!prepared)
    return result;
  for (rt::TensorArg &t : prepared->Tensors)
    if (!t.Poisoned)
      sanitize(t);
  rt::Error err = loaded->launch(prepared->Bound);
  EXPECT_FALSE(bool(err)) << err.message();
  for (rt::TensorArg &t : prepared->Tensors) {
    Tensor decoded{t.Param->DType, t.Shape, {}};
    if (t.Poisoned || llvm::is_contained(inout, t.Param->Name)) {
      auto bytes = t.Buf.read();
      EXPECT_TRUE(bool(bytes));
      decoded.values = decodeAll(t.Param->DType, *bytes, t.NumElements);
      result.out[t.Param->Name] = decoded;
    }
    if (!t.Poisoned) {
      decoded.values = decodeAll(t.Param->DType, t.Initial, t.NumElements);
      result.in[t.Param->Name] = decoded;
    }
  }
  result.dims = prepared->Bound.Dims;
  return result;
}

/// Expects |got - want| <= atol + rtol * |want| everywhere (NaN never
/// passes); reports the first few mismatches.
void expectClose(const Tensor &got, const std::vector<double> &want,
                 double atol, double rtol, const std::string &what) {
  ASSERT_EQ(got.values.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.values[i], w = want[i];
    bool ok =
        std::isfinite(g) && std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", expected "
                    << w;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << want.size()
                     << " elements out of tolerance";
}

double roundF16(double x) {
  return num::f16ToF32(num::f32ToF16(static_cast<float>(x)));
}

//===----------------------------------------------------------------------===//
// vector_add
//===----------------------------------------------------------------------===//

TEST(ExamplesHost, VectorAdd) {
  for (int64_t n : {1, 1000, 1024, 5000}) {
    Result r = run("vector_add.tile", "vector_add", {}, {{"N", n}});
    std::vector<double> want(n);
    for (int64_t i = 0; i < n; ++i)
      want[i] = static_cast<float>(r.in["x"][i] + r.in["y"][i]);
    expectClose(r.out["z"], want, 0, 0, "vector_add N=" + std::to_string(n));
  }
  Result r =
      run("vector_add.tile", "vector_add", {{"BLOCK", "64"}}, {{"N", 130}});
  std::vector<double> want(130);
  for (int i = 0; i < 130; ++i)
    want[i] = static_cast<float>(r.in["x"][i] + r.in["y"][i]);
  expectClose(r.out["z"], want, 0, 0, "vector_add BLOCK=64");
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

void checkSoftmax(std::map<std::string, std::string> defines, int64_t m,
                  int64_t n) {
  Result r = run("softmax.tile", "softmax", defines, {{"M", m}, {"N", n}});
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j)
      mx = std::max(mx, r.in["x"][i * n + j]);
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(r.in["x"][i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] = std::exp(r.in["x"][i * n + j] - mx) / sum;
  }
  expectClose(r.out["y"], want, 1e-5, 1.0 / 1024,
              "softmax M=" + std::to_string(m) + " N=" + std::to_string(n));
}

TEST(ExamplesHost, Softmax) {
  checkSoftmax({}, 1, 1000);
  checkSoftmax({}, 7, 1024);
  checkSoftmax({}, 9, 1);
  checkSoftmax({{"COLS", "128"}, {"ROWS", "2"}}, 5, 100);
}

//===----------------------------------------------------------------------===//
// rmsnorm_quant
//===----------------------------------------------------------------------===//

void checkRmsnorm(const std::string &type, int64_t m, int64_t n) {
  const double eps = 1e-5;
  Result r = run("rmsnorm_quant.tile", "rmsnorm_quant", {{"T", type}},
                 {{"M", m}, {"N", n}}, {{"eps", eps}});
  unsigned bits = num::parseFormat(type)->bits();
  double qmax = (1 << (bits - 1)) - 1;
  std::vector<double> wantQ(m * n), wantS(m);
  for (int64_t i = 0; i < m; ++i) {
    double ss = 0;
    for (int64_t j = 0; j < n; ++j)
      ss += r.in["x"][i * n + j] * r.in["x"][i * n + j];
    double inv = 1 / std::sqrt(ss / n + eps);
    double amax = 0;
    std::vector<double> y(n);
    for (int64_t j = 0; j < n; ++j) {
      y[j] = r.in["x"][i * n + j] * inv * r.in["w"][j];
      amax = std::max(amax, std::fabs(y[j]));
    }
    double s = std::max(amax / qmax, 1e-8);
    wantS[i] = s;
    for (int64_t j = 0; j < n; ++j)
      wantQ[i * n + j] = std::clamp(std::nearbyint(y[j] / s), -qmax - 1, qmax);
  }
  std::string what = "rmsnorm_quant T=" + type + " M=" + std::to_string(m) +
                     " N=" + std::to_string(n);
  expectClose(r.out["scale"], wantS, 0, 1e-5, what + " scale");
  // f32 in the kernel vs float64 here: a value within 1e-5 of a rounding
  // boundary may land on the neighbouring code.
  expectClose(r.out["q"], wantQ, 1, 0, what + " q");
}

TEST(ExamplesHost, RmsnormQuant) {
  checkRmsnorm("i8", 1, 4096);
  checkRmsnorm("i8", 5, 4096);
  checkRmsnorm("i4", 3, 1000);
  checkRmsnorm("i3", 2, 777);
}

//===----------------------------------------------------------------------===//
// gemm_f16
//===----------------------------------------------------------------------===//

void checkGemm(std::map<std::string, std::string> defines, int64_t m, int64_t k,
               int64_t n) {
  Result r =
      run("gemm_f16.tile", "gemm_f16", defines, {{"M", m}, {"K", k}, {"N", n}});
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t l = 0; l < k; ++l)
        acc += r.in["A"][i * k + l] * r.in["B"][l * n + j];
      want[i * n + j] = acc;
    }
  expectClose(r.out["C"], want, 1e-2, 1.0 / 1024,
              "gemm_f16 M=" + std::to_string(m) + " K=" + std::to_string(k) +
                  " N=" + std::to_string(n));
}

TEST(ExamplesHost, GemmF16) {
  checkGemm({}, 1, 64, 130);
  checkGemm({}, 70, 96, 90);
  checkGemm({{"BM", "64"}, {"BN", "64"}, {"BK", "32"}}, 129, 40, 257);
}

//===----------------------------------------------------------------------===//
// gemm_wq: every low-bit weight type
//===----------------------------------------------------------------------===//

/// a [m, k] x w [k, n] in float64.
std::vector<double> matmul(const Tensor &a, const std::vector<double> &w,
                           int64_t m, int64_t k, int64_t n) {
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

double maxAbs(const std::vector<double> &v) {
  double m = 0;
  for (double x : v)
    m = std::max(m, std::fabs(x));
  return m;
}

void checkGemmWQ(const std::string &type, bool zp, int64_t m, int64_t k,
                 int64_t n) {
  const int64_t g = 128;
  Result r = run("gemm_wq.tile", "gemm_wq",
                 {{"T", type}, {"ZP", zp ? "true" : "false"}},
                 {{"M", m}, {"K", k}, {"N", n}});
  // Dequantize as the program does, each f16 operation rounded once.
  std::vector<double> w(k * n);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t j = 0; j < n; ++j) {
      double v = roundF16(r.in["W"][l * n + j]);
      if (zp)
        v = roundF16(v - r.in["Z"][(l / g) * n + j]);
      w[l * n + j] = roundF16(v * r.in["S"][(l / g) * n + j]);
    }
  std::vector<double> want = matmul(r.in["A"], w, m, k, n);
  double scale = maxAbs(want);
  expectClose(r.out["C"], want, 1e-3 * (1 + scale), 1.0 / 512,
              "gemm_wq T=" + type + (zp ? "" : " ZP=false") +
                  " M=" + std::to_string(m));
}

class GemmWQ : public testing::TestWithParam<const char *> {};

TEST_P(GemmWQ, EveryWeightType) {
  checkGemmWQ(GetParam(), /*zp=*/true, 17, 256, 130);
  checkGemmWQ(GetParam(), /*zp=*/true, 1, 128, 64);
}

INSTANTIATE_TEST_SUITE_P(ExamplesHost, GemmWQ,
                         testing::Values("u1", "u2", "u3", "u4", "u5", "u6",
                                         "u7", "u8", "i2", "i3", "i4", "i5",
                                         "i6", "i7", "i8", "f4e2m1", "f6e3m2",
                                         "f5e2m2", "f8e4m3"));

TEST(ExamplesHost, GemmWQWithoutZeroPoints) {
  checkGemmWQ("i4", /*zp=*/false, 5, 256, 72);
}

//===----------------------------------------------------------------------===//
// gemm_decode: split-K with atomic_add into C
//===----------------------------------------------------------------------===//

struct DecodeCase {
  std::string type;
  int64_t g;
  bool zp;
  std::string out;
  std::map<std::string, std::string> tiles; ///< BN, BK, SPLIT, STAGES.
};

/// C_in + A x dequant(codes) for the decode GEMMs, \p codes being W [k, n]
/// decoded. Dequantized as the programs do: -z * s once per group and
/// column, then w * s + that, each f16 operation rounded once.
std::vector<double> decodeReference(Result &r, const std::vector<double> &codes,
                                    int64_t g, bool zp, int64_t m, int64_t k,
                                    int64_t n) {
  std::vector<double> w(k * n);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t j = 0; j < n; ++j) {
      double s = r.in["S"][(l / g) * n + j];
      double zs = zp ? -roundF16(r.in["Z"][(l / g) * n + j] * s) : 0;
      w[l * n + j] = roundF16(roundF16(roundF16(codes[l * n + j]) * s) + zs);
    }
  std::vector<double> want = matmul(r.in["A"], w, m, k, n);
  for (int64_t i = 0; i < m * n; ++i)
    want[i] += r.in["C"][i];
  return want;
}

/// C_out = C_in + A x dequant(W): C holds random values beforehand (the
/// addend of the atomic additions), so a split that adds nothing or adds
/// twice shows.
void checkGemmDecode(const DecodeCase &c, int64_t m, int64_t k, int64_t n) {
  std::map<std::string, std::string> defines = c.tiles;
  defines["T"] = c.type;
  defines["G"] = std::to_string(c.g);
  defines["ZP"] = c.zp ? "true" : "false";
  defines["OUT"] = c.out;
  Result r = run("gemm_decode.tile", "gemm_decode", defines,
                 {{"M", m}, {"K", k}, {"N", n}}, {}, /*seed=*/11, {"C"});
  std::vector<double> want =
      decodeReference(r, r.in["W"].values, c.g, c.zp, m, k, n);
  double scale = maxAbs(want);
  // Each split's partial sum is rounded to OUT, then every addition is.
  double rtol = c.out == "f32" ? 1e-5 : c.out == "f16" ? 1.0 / 256 : 1.0 / 32;
  expectClose(r.out["C"], want, 1e-3 * (1 + scale) + rtol * scale / 8, rtol,
              "gemm_decode T=" + c.type + " G=" + std::to_string(c.g) +
                  (c.zp ? "" : " ZP=false") + " OUT=" + c.out +
                  " M=" + std::to_string(m) + " K=" + std::to_string(k));
}

TEST(ExamplesHost, GemmDecodeSplitK) {
  // Defaults (BN 64, BK 128, SPLIT 4): one group per chunk, K = 640 is not a
  // multiple of SPLIT x BK, so the last split is short.
  checkGemmDecode({"u4", 128, true, "f16", {}}, 1, 640, 200);
  checkGemmDecode({"u4", 128, true, "f16", {}}, 17, 512, 72);
  // Several groups per chunk (BK > G), no zero points, bf16 and f32 out.
  checkGemmDecode({"i4", 32, false, "bf16", {}}, 3, 256, 130);
  checkGemmDecode({"u3", 64, true, "f32", {{"SPLIT", "3"}}}, 5, 768, 96);
  // More splits than chunks: programs whose share of K is empty add zeros.
  checkGemmDecode({"f4e2m1", 64, true, "f32", {{"SPLIT", "8"}, {"BK", "64"}}},
                  2, 256, 64);
  checkGemmDecode({"u1", 32, true, "f16", {{"BK", "256"}, {"BN", "32"}}}, 16,
                  512, 100);
  checkGemmDecode({"i8", 128, false, "f16", {{"SPLIT", "1"}}}, 4, 384, 64);
}

//===----------------------------------------------------------------------===//
// gemm_decode_packed: weights in the operand order of lib/Numerics
//===----------------------------------------------------------------------===//

/// As checkGemmDecode, the weight read from Wp through the packing order
/// (num::operandOrderK): W[c BK + operandOrderK(pos), n] = Wp[n, c BK + pos].
/// bk = 0 leaves BK at the kernel's default, which must be the packing
/// library's defaultOperandBlockK.
void checkGemmDecodePacked(const std::string &type, bool zp, int64_t bk,
                           int64_t m, int64_t k, int64_t n) {
  const int64_t g = 128;
  std::map<std::string, std::string> defines = {{"T", type},
                                                {"ZP", zp ? "true" : "false"}};
  if (bk)
    defines["BK"] = std::to_string(bk);
  unsigned bits = num::parseFormat(type)->bits();
  if (!bk)
    bk = int64_t(num::defaultOperandBlockK(bits));
  Result r = run("gemm_decode_packed.tile", "gemm_decode_packed", defines,
                 {{"M", m}, {"K", k}, {"N", n}}, {}, /*seed=*/13, {"C"});
  std::vector<double> codes(k * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t pos = 0; pos < k; ++pos) {
      int64_t l =
          pos / bk * bk + int64_t(num::operandOrderK(pos % bk, bk, bits));
      codes[l * n + j] = r.in["Wp"][j * k + pos];
    }
  std::vector<double> want = decodeReference(r, codes, g, zp, m, k, n);
  double scale = maxAbs(want);
  expectClose(r.out["C"], want, 1e-3 * (1 + scale) + scale / 2048, 1.0 / 256,
              "gemm_decode_packed T=" + type + " BK=" + std::to_string(bk) +
                  " M=" + std::to_string(m));
}

TEST(ExamplesHost, GemmDecodePacked) {
  checkGemmDecodePacked("u4", true, 128, 1, 512, 200);
  checkGemmDecodePacked("i4", false, 64, 16, 256, 72);
  checkGemmDecodePacked("u2", true, 128, 5, 640, 64);
  checkGemmDecodePacked("f4e2m1", true, 32, 3, 256, 40);
  checkGemmDecodePacked("u8", true, 128, 2, 256, 130);
  // Default chunks: u2 256 and u1 512 (several scale groups per chunk, K
  // split in uneven shares), u8 64.
  checkGemmDecodePacked("u2", true, 0, 3, 768, 64);
  checkGemmDecodePacked("u1", false, 0, 16, 1024, 40);
  checkGemmDecodePacked("i8", true, 0, 2, 384, 72);
}

//===----------------------------------------------------------------------===//
// attention_fwd
//===----------------------------------------------------------------------===//

void checkAttention(bool causal, int64_t b, int64_t h, int64_t hkv, int64_t n) {
  const int64_t d = 128;
  const double scale = 1 / std::sqrt(double(d));
  Result r =
      run("attention_fwd.tile", "attention_fwd",
          {{"CAUSAL", causal ? "true" : "false"}},
          {{"B", b}, {"H", h}, {"HKV", hkv}, {"N", n}}, {{"scale", scale}});
  const Tensor &q = r.in["Q"], &kk = r.in["K"], &v = r.in["V"];
  std::vector<double> want(b * h * n * d);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi) {
      int64_t hk = hi / (h / hkv);
      for (int64_t i = 0; i < n; ++i) {
        std::vector<double> s(n, -INFINITY);
        double mx = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          if (causal && j > i)
            continue;
          double dotp = 0;
          for (int64_t e = 0; e < d; ++e)
            dotp += q[((bi * h + hi) * n + i) * d + e] *
                    kk[((bi * hkv + hk) * n + j) * d + e];
          s[j] = dotp * scale;
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < n; ++j)
          sum += s[j] == -INFINITY ? 0 : std::exp(s[j] - mx);
        for (int64_t e = 0; e < d; ++e) {
          double o = 0;
          for (int64_t j = 0; j < n; ++j)
            if (s[j] != -INFINITY)
              o += std::exp(s[j] - mx) / sum *
                   v[((bi * hkv + hk) * n + j) * d + e];
          want[((bi * h + hi) * n + i) * d + e] = o;
        }
      }
    }
  expectClose(r.out["O"], want, 4e-3, 1e-2,
              std::string("attention_fwd") + (causal ? " causal" : "") +
                  " N=" + std::to_string(n));
}

TEST(ExamplesHost, AttentionForward) {
  checkAttention(false, 1, 2, 1, 100);
  checkAttention(true, 1, 2, 1, 100);
  checkAttention(false, 2, 2, 2, 64);
  checkAttention(true, 1, 4, 2, 1);
}

//===----------------------------------------------------------------------===//
// dequant_fp4, gemm_i8, gemm_shared, layernorm, swiglu
//===----------------------------------------------------------------------===//

/// x rounded to the nearest bf16 (lib/Numerics' encoding).
double roundBF16(double x) {
  num::Format bf16 = num::Format::bf16();
  return num::decode(bf16, num::encode(bf16, x));
}

void checkDequantFp4(std::map<std::string, std::string> defines, int64_t m,
                     int64_t n) {
  Result r =
      run("dequant_fp4.tile", "dequant_fp4", defines, {{"M", m}, {"N", n}});
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] =
          roundBF16(r.in["q"][i * n + j] * r.in["s"][i * (n / 32) + j / 32]);
  // A 2-bit significand times a power of two: exact in bf16.
  expectClose(r.out["y"], want, 0, 0,
              "dequant_fp4 M=" + std::to_string(m) + " N=" + std::to_string(n));
}

TEST(ExamplesHost, DequantFp4) {
  checkDequantFp4({}, 5, 96);
  checkDequantFp4({}, 17, 320);
  checkDequantFp4({{"ROWS", "4"}, {"COLS", "64"}}, 3, 160);
}

void checkGemmI8(bool bias, std::map<std::string, std::string> defines,
                 int64_t m, int64_t k, int64_t n) {
  defines["BIAS"] = bias ? "true" : "false";
  Result r =
      run("gemm_i8.tile", "gemm_i8", defines, {{"M", m}, {"K", k}, {"N", n}});
  std::vector<double> want = matmul(r.in["A"], r.in["B"].values, m, k, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      // The integer sum is exact; then f32 scaling and one bf16 rounding.
      double &c = want[i * n + j];
      c = c * r.in["sa"][i] * r.in["sb"][j] + (bias ? r.in["bias"][j] : 0.0);
    }
  expectClose(r.out["C"], want, 1e-6, 1.0 / 256,
              std::string("gemm_i8") + (bias ? " bias" : "") +
                  " M=" + std::to_string(m) + " K=" + std::to_string(k) +
                  " N=" + std::to_string(n));
}

TEST(ExamplesHost, GemmI8) {
  checkGemmI8(false, {}, 70, 96, 90);
  checkGemmI8(true, {}, 1, 64, 130);
  checkGemmI8(true, {{"BM", "64"}, {"BN", "64"}}, 129, 200, 65);
}

void checkGemmShared(int64_t m, int64_t k, int64_t n) {
  Result r = run("gemm_shared.tile", "gemm_shared", {},
                 {{"M", m}, {"K", k}, {"N", n}});
  expectClose(r.out["C"], matmul(r.in["A"], r.in["B"].values, m, k, n), 1e-2,
              1.0 / 1024,
              "gemm_shared M=" + std::to_string(m) + " K=" + std::to_string(k) +
                  " N=" + std::to_string(n));
}

TEST(ExamplesHost, GemmShared) {
  checkGemmShared(1, 64, 130);
  checkGemmShared(70, 96, 90);
  // K not a multiple of BK: the prefetch past K reads zeros.
  checkGemmShared(129, 40, 65);
}

void checkLayernorm(std::map<std::string, std::string> defines, int64_t m,
                    int64_t n) {
  const double eps = 1e-5;
  Result r = run("layernorm.tile", "layernorm", defines, {{"M", m}, {"N", n}},
                 {{"eps", eps}});
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += r.in["x"][i * n + j];
    mean /= n;
    for (int64_t j = 0; j < n; ++j)
      var += (r.in["x"][i * n + j] - mean) * (r.in["x"][i * n + j] - mean);
    double inv = 1 / std::sqrt(var / n + eps);
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] =
          (r.in["x"][i * n + j] - mean) * inv * r.in["w"][j] + r.in["b"][j];
  }
  // f32 arithmetic, then one f16 rounding (half an ulp: 2^-11 relative).
  expectClose(r.out["y"], want, 1e-3, 1.0 / 1024,
              "layernorm M=" + std::to_string(m) + " N=" + std::to_string(n));
}

TEST(ExamplesHost, Layernorm) {
  checkLayernorm({}, 5, 1000);
  checkLayernorm({}, 1, 2048);
  checkLayernorm({{"ROWS", "2"}, {"COLS", "128"}}, 3, 100);
}

void checkSwiglu(std::map<std::string, std::string> defines, int64_t m,
                 int64_t f) {
  Result r = run("swiglu.tile", "swiglu", defines,
                 {{"M", m}, {"F", f}, {"F2", 2 * f}});
  std::vector<double> want(m * f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < f; ++j) {
      double gate = r.in["h"][i * 2 * f + j], up = r.in["h"][i * 2 * f + f + j];
      want[i * f + j] = gate / (1 + std::exp(-gate)) * up;
    }
  // f32 arithmetic, then one bf16 rounding (half an ulp: 2^-9 relative).
  expectClose(r.out["out"], want, 1e-3, 1.0 / 256,
              "swiglu M=" + std::to_string(m) + " F=" + std::to_string(f));
}

TEST(ExamplesHost, Swiglu) {
  checkSwiglu({}, 40, 256);
  checkSwiglu({}, 1, 65);
  checkSwiglu({{"BM", "16"}, {"BF", "64"}}, 33, 100);
}

//===----------------------------------------------------------------------===//
// quant_block: MX and NVFP4 quantization against lib/Numerics' recipes
//===----------------------------------------------------------------------===//

std::vector<float> asFloats(const Tensor &t) {
  return std::vector<float>(t.values.begin(), t.values.end());
}

/// Decoded element codes and scale codes of a lib/Numerics quantization.
std::pair<std::vector<double>, std::vector<double>>
decodedCodes(const num::BlockScaledTensor &q) {
  num::Format elem = num::blockElementFormat(q.Scheme);
  num::Format scale = num::blockScaleFormat(q.Scheme);
  std::vector<double> codes, scales;
  for (uint8_t c : q.Codes)
    codes.push_back(num::decode(elem, c));
  for (uint8_t c : q.Scales)
    scales.push_back(num::decode(scale, c));
  return {codes, scales};
}

struct MXCase {
  num::BlockScheme scheme;
  const char *type;
  int emax;
};

void checkQuantMX(const MXCase &c, const std::string &x, int64_t m,
                  int64_t n) {
  Result r = run("quant_block.tile", "quant_mx",
                 {{"T", c.type}, {"EMAX", std::to_string(c.emax)}, {"X", x}},
                 {{"M", m}, {"N", n}});
  auto q = num::quantizeBlockScaled(c.scheme, asFloats(r.in["x"]), m, n);
  ASSERT_TRUE(bool(q));
  auto [codes, scales] = decodedCodes(*q);
  std::string what = std::string("quant_mx ") + num::blockSchemeName(c.scheme) +
                     " X=" + x + " M=" + std::to_string(m) +
                     " N=" + std::to_string(n);
  expectClose(r.out["q"], codes, 0, 0, what + " codes");
  expectClose(r.out["s"], scales, 0, 0, what + " scales");
}

TEST(ExamplesHost, QuantMX) {
  const MXCase cases[] = {{num::BlockScheme::MXFP4, "f4e2m1", 2},
                          {num::BlockScheme::MXFP6E2M3, "f6e2m3", 2},
                          {num::BlockScheme::MXFP6E3M2, "f6e3m2", 4},
                          {num::BlockScheme::MXFP8E4M3, "f8e4m3", 8},
                          {num::BlockScheme::MXFP8E5M2, "f8e5m2", 15}};
  // N = 200 ends every row in a partial block of 8.
  for (const MXCase &c : cases)
    checkQuantMX(c, "bf16", 5, 200);
  checkQuantMX(cases[0], "f32", 17, 512);
  checkQuantMX(cases[3], "f16", 1, 96);
}

/// NVIDIA's tensor scale, computed as lib/Numerics computes it.
float nvfp4TensorEncodeScale(const std::vector<float> &x) {
  float amax = 0;
  for (float v : x)
    amax = std::fmax(amax, std::fabs(v));
  float s = 448.0f * 6.0f / amax;
  return amax == 0 || !std::isfinite(s) || s == 0 ? 1.0f : s;
}

void checkQuantNVFP4(const std::string &x, int64_t m, int64_t n) {
  rt::DimMap dims = {{"M", m}, {"N", n}};
  // The tensor scale depends on the inputs: a first run draws them (the
  // inputs depend on the seed only), the second passes the scale.
  Result first = run("quant_block.tile", "quant_nvfp4", {{"X", x}}, dims,
                     {{"s_enc", 1.0}});
  std::vector<float> data = asFloats(first.in["x"]);
  float sEnc = nvfp4TensorEncodeScale(data);
  Result r = run("quant_block.tile", "quant_nvfp4", {{"X", x}}, dims,
                 {{"s_enc", sEnc}});
  ASSERT_EQ(asFloats(r.in["x"]), data);
  auto q = num::quantizeBlockScaled(num::BlockScheme::NVFP4, data, m, n);
  ASSERT_TRUE(bool(q));
  ASSERT_EQ(q->TensorScale, 1.0f / sEnc);
  auto [codes, scales] = decodedCodes(*q);
  std::string what = "quant_nvfp4 X=" + x + " M=" + std::to_string(m) +
                     " N=" + std::to_string(n);
  expectClose(r.out["q"], codes, 0, 0, what + " codes");
  expectClose(r.out["s"], scales, 0, 0, what + " scales");
}

TEST(ExamplesHost, QuantNVFP4) {
  checkQuantNVFP4("bf16", 5, 200);
  checkQuantNVFP4("f32", 16, 256);
}

void checkDequantBlock(std::map<std::string, std::string> defines, int64_t bs,
                       double alpha, int64_t m, int64_t n) {
  Result r = run("quant_block.tile", "dequant_block", defines,
                 {{"M", m}, {"N", n}}, {{"alpha", alpha}});
  int64_t blocks = (n + bs - 1) / bs;
  std::vector<double> want(m * n);
  // code x scale is exact in f32; times alpha rounds to f32, then bf16.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      want[i * n + j] = roundBF16(float(r.in["q"][i * n + j] *
                                        r.in["s"][i * blocks + j / bs]) *
                                  float(alpha));
  expectClose(r.out["y"], want, 0, 0,
              "dequant_block M=" + std::to_string(m) + " N=" + std::to_string(n));
}

TEST(ExamplesHost, DequantBlock) {
  checkDequantBlock({}, 32, 1.0, 5, 200);
  checkDequantBlock({{"T", "f8e5m2"}}, 32, 1.0, 3, 96);
  checkDequantBlock({{"S", "f8e4m3"}, {"BS", "16"}}, 16, 1.0 / 3, 7, 136);
}

//===----------------------------------------------------------------------===//
// gemm_mx: block-scaled operands through dot_scaled
//===----------------------------------------------------------------------===//

void checkGemmMX(std::map<std::string, std::string> defines, int64_t bs,
                 double alpha, int64_t m, int64_t k, int64_t n) {
  Result r = run("gemm_mx.tile", "gemm_mx", defines,
                 {{"M", m}, {"K", k}, {"N", n}}, {{"alpha", alpha}});
  int64_t blocks = (k + bs - 1) / bs;
  std::vector<double> want(m * n), bound(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0, mag = 0;
      for (int64_t l = 0; l < k; ++l) {
        double t = r.in["A"][i * k + l] * r.in["SA"][i * blocks + l / bs] *
                   r.in["B"][j * k + l] * r.in["SB"][j * blocks + l / bs];
        acc += t;
        mag += std::fabs(t);
      }
      want[i * n + j] = alpha * acc;
      bound[i * n + j] = std::fabs(alpha) * mag;
    }
  // The products are exact; f32 sums, then one rounding to OUT.
  auto out = defines.count("OUT") ? defines["OUT"] : std::string("bf16");
  double rtol = out == "f32" ? 1e-6 : 1.0 / 256;
  expectClose(r.out["C"], want, 1e-6 * (1 + maxAbs(bound)), rtol,
              "gemm_mx M=" + std::to_string(m) + " K=" + std::to_string(k) +
                  " N=" + std::to_string(n));
}

TEST(ExamplesHost, GemmMX) {
  // MXFP8 x MXFP4, K = 200 ending in a partial block, M = 1.
  checkGemmMX({}, 32, 1.0, 1, 200, 72);
  checkGemmMX({{"OUT", "f32"}}, 32, 0.75, 70, 256, 130);
  // NVFP4 x NVFP4 with the tensor scales in alpha; MXFP6 both ways.
  checkGemmMX({{"TA", "f4e2m1"}, {"S", "f8e4m3"}, {"BS", "16"}}, 16, 1.0 / 64,
              17, 320, 64);
  checkGemmMX({{"TA", "f6e2m3"}, {"TB", "f6e3m2"}, {"BM", "16"}, {"BK", "128"},
               {"STAGES", "3"}},
              32, 1.0, 5, 384, 96);
}

} // namespace
