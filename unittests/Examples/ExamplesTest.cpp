//===- ExamplesTest.cpp - Every example on the host vs. float64 loops -----===//
//
// Each program of examples/ is compiled for the host through the JIT
// library and run on seeded random inputs (outputs poisoned first) at
// several sizes — sizes that do not divide the tile sizes and M = 1
// included. Its outputs are compared with its float64 reference
// (lib/Reference: plain loops over the decoded inputs; lib/Numerics only
// decodes and rounds), the reference `tilec check` uses too. Nothing in a
// reference uses the compiler.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/JIT.h"
#include "tile/Numerics/BlockScaled.h"
#include "tile/Numerics/CAPI.h"
#include "tile/Numerics/Format.h"
#include "tile/Numerics/OperandPack.h"
#include "tile/Numerics/Pack.h"
#include "tile/Reference/Reference.h"
#include "tile/runtime/Bundle.h"
#include "tile/runtime/TestRun.h"

#include "gtest/gtest.h"

#include <cmath>
#include <filesystem>
#include <map>

using namespace tile;
namespace num = tile::numerics;
namespace ref = tile::reference;

namespace {

// Keeps the Numerics C ABI in the binary, exported for host kernels.
[[maybe_unused]] auto *keepNumerics = &tile_num_convert;

using Defines = std::map<std::string, std::string>;

std::string examplePath(const std::string &name) {
  return std::string(TILE_EXAMPLES_DIR) + "/" + name;
}

jit::Compiler &compiler() {
  static jit::Compiler instance({"", /*DiskCache=*/false});
  return instance;
}

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

/// One host run: what the reference reads, and the decoded outputs.
struct Result {
  ref::Launch launch;
  std::map<std::string, ref::Tensor> out;
};

/// Compiles \p file with \p defines, runs kernel \p kernel on the host with
/// \p sizes / \p scalars. The `mut` tensors named in \p inout get random
/// inputs (not poison) and appear in both the inputs and the outputs.
Result run(const std::string &file, const std::string &kernel,
           const Defines &defines, const rt::DimMap &sizes,
           const std::map<std::string, double> &scalars = {}, uint64_t seed = 7,
           const std::vector<std::string> &inout = {}) {
  Result result;
  jit::CompileOptions options;
  options.defines = defines;
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
    ref::Tensor decoded{t.Shape, {}};
    if (t.Poisoned || llvm::is_contained(inout, t.Param->Name)) {
      auto bytes = t.Buf.read();
      EXPECT_TRUE(bool(bytes));
      decoded.values = decodeAll(t.Param->DType, *bytes, t.NumElements);
      result.out[t.Param->Name] = decoded;
    }
    if (!t.Poisoned) {
      decoded.values = decodeAll(t.Param->DType, t.Initial, t.NumElements);
      result.launch.in[t.Param->Name] = decoded;
    }
  }
  for (const auto &[name, value] : prepared->Bound.Dims)
    result.launch.dims[name] = value;
  result.launch.scalars = scalars;
  result.launch.constants = rt::constantTexts((*compiled)->Info);
  return result;
}

/// Expects each output of \p r within the tolerance of the float64
/// reference of \p kernel in examples/\p file.
void expectReference(const Result &r, const std::string &file,
                     const std::string &kernel, const std::string &what) {
  const ref::Reference *reference = ref::lookup(file, kernel);
  ASSERT_NE(reference, nullptr) << file << " " << kernel;
  if (reference->unsupported)
    ASSERT_EQ(reference->unsupported(r.launch), "") << what;
  ref::Outputs want = reference->compute(r.launch);
  ASSERT_EQ(want.size(), reference->outputs.size()) << what;
  for (const auto &[name, expected] : want) {
    auto got = r.out.find(name);
    ASSERT_NE(got, r.out.end()) << what << ": no output " << name;
    ref::Comparison c = ref::compare(got->second.values, expected);
    EXPECT_EQ(c.bad, 0u) << what << " " << name << ": " << c.bad << " of "
                         << expected.values.size()
                         << " elements out of tolerance, first: " << c.firstBad;
  }
}

/// "NAME=VALUE ..." of the defines and sizes, for messages.
std::string describe(const std::string &kernel, const Defines &defines,
                     const rt::DimMap &sizes) {
  std::string text = kernel;
  for (const auto &[k, v] : defines)
    text += " " + k + "=" + v;
  for (const auto &[k, v] : sizes)
    text += " " + k + "=" + std::to_string(v);
  return text;
}

/// Runs kernel \p kernel of examples/\p file and checks it against its
/// reference; returns the run.
Result check(const std::string &file, const std::string &kernel,
             const Defines &defines, const rt::DimMap &sizes,
             const std::map<std::string, double> &scalars = {},
             uint64_t seed = 7, const std::vector<std::string> &inout = {}) {
  Result r = run(file, kernel, defines, sizes, scalars, seed, inout);
  expectReference(r, file, kernel, describe(kernel, defines, sizes));
  return r;
}

// The comparison with a float64 reference: finite elements by tolerance; a
// NaN passes only where the reference is NaN (a NaN weight code), an
// infinity only where it is the same infinity.
TEST(ReferenceCompare, NonFiniteElements) {
  double nan = std::nan(""), inf = INFINITY;
  ref::Expected want{{1.0, nan, inf, -inf, 2.0}, 0.01, 0};
  ref::Comparison ok = ref::compare({1.005, -nan, inf, -inf, 2.0}, want);
  EXPECT_EQ(ok.bad, 0u) << ok.firstBad;
  EXPECT_NEAR(ok.maxAbsError, 0.005, 1e-12);
  EXPECT_EQ(ref::compare({1.0, 0.0, inf, -inf, 2.0}, want).bad, 1u);
  EXPECT_EQ(ref::compare({1.0, nan, -inf, -inf, 2.0}, want).bad, 1u);
  EXPECT_EQ(ref::compare({nan, nan, inf, -inf, inf}, want).bad, 2u);
  EXPECT_EQ(ref::compare({1.0, nan, inf, -inf, 2.03}, want).firstBad,
            "element 4 is 2.03, expected 2");
}

//===----------------------------------------------------------------------===//
// Row-wise examples
//===----------------------------------------------------------------------===//

TEST(ExamplesHost, VectorAdd) {
  for (int64_t n : {1, 1000, 1024, 5000})
    check("vector_add.tile", "vector_add", {}, {{"N", n}});
  check("vector_add.tile", "vector_add", {{"BLOCK", "64"}}, {{"N", 130}});
}

TEST(ExamplesHost, Softmax) {
  for (auto [m, n] : {std::pair{1, 1000}, {7, 1024}, {9, 1}})
    check("softmax.tile", "softmax", {}, {{"M", m}, {"N", n}});
  check("softmax.tile", "softmax", {{"COLS", "128"}, {"ROWS", "2"}},
        {{"M", 5}, {"N", 100}});
}

TEST(ExamplesHost, RmsnormQuant) {
  for (auto [t, m, n] : {std::tuple{"i8", 1, 4096},
                         {"i8", 5, 4096},
                         {"i4", 3, 1000},
                         {"i3", 2, 777}})
    check("rmsnorm_quant.tile", "rmsnorm_quant", {{"T", t}},
          {{"M", m}, {"N", n}}, {{"eps", 1e-5}});
}

TEST(ExamplesHost, Layernorm) {
  check("layernorm.tile", "layernorm", {}, {{"M", 5}, {"N", 1000}},
        {{"eps", 1e-5}});
  check("layernorm.tile", "layernorm", {}, {{"M", 1}, {"N", 2048}},
        {{"eps", 1e-5}});
  check("layernorm.tile", "layernorm", {{"ROWS", "2"}, {"COLS", "128"}},
        {{"M", 3}, {"N", 100}}, {{"eps", 1e-5}});
}

TEST(ExamplesHost, Swiglu) {
  for (auto [m, f] : {std::pair{40, 256}, {1, 65}})
    check("swiglu.tile", "swiglu", {}, {{"M", m}, {"F", f}, {"F2", 2 * f}});
  check("swiglu.tile", "swiglu", {{"BM", "16"}, {"BF", "64"}},
        {{"M", 33}, {"F", 100}, {"F2", 200}});
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

rt::DimMap mkn(int64_t m, int64_t k, int64_t n) {
  return {{"M", m}, {"K", k}, {"N", n}};
}

TEST(ExamplesHost, GemmF16) {
  check("gemm_f16.tile", "gemm_f16", {}, mkn(1, 64, 130));
  check("gemm_f16.tile", "gemm_f16", {}, mkn(70, 96, 90));
  check("gemm_f16.tile", "gemm_f16", {{"T", "bf16"}}, mkn(70, 96, 90));
  check("gemm_f16.tile", "gemm_f16", {{"BM", "64"}, {"BN", "64"}, {"BK", "32"}},
        mkn(129, 40, 257));
}

TEST(ExamplesHost, GemmShared) {
  check("gemm_shared.tile", "gemm_shared", {}, mkn(1, 64, 130));
  check("gemm_shared.tile", "gemm_shared", {}, mkn(70, 96, 90));
  // K not a multiple of BK: the prefetch past K reads zeros.
  check("gemm_shared.tile", "gemm_shared", {}, mkn(129, 40, 65));
}

TEST(ExamplesHost, GemmI8) {
  check("gemm_i8.tile", "gemm_i8", {{"BIAS", "false"}}, mkn(70, 96, 90));
  check("gemm_i8.tile", "gemm_i8", {{"BIAS", "true"}}, mkn(1, 64, 130));
  check("gemm_i8.tile", "gemm_i8",
        {{"BIAS", "true"}, {"BM", "64"}, {"BN", "64"}}, mkn(129, 200, 65));
}

TEST(ExamplesHost, GemmW8A8) {
  check("gemm_w8a8.tile", "gemm_w8a8", {}, mkn(70, 96, 90));
  check("gemm_w8a8.tile", "gemm_w8a8", {{"BIAS", "true"}}, mkn(1, 200, 130));
  check("gemm_w8a8.tile", "gemm_w8a8",
        {{"BM", "64"}, {"BN", "256"}, {"BK", "64"}}, mkn(129, 64, 257));
}

TEST(ExamplesHost, GemmF8) {
  check("gemm_f8.tile", "gemm_f8", {}, mkn(70, 128, 90),
        {{"sa", 0.5}, {"sb", 0.125}});
  check("gemm_f8.tile", "gemm_f8",
        {{"T", "f8e5m2"}, {"OUT", "f32"}, {"BM", "64"}, {"BN", "64"}},
        mkn(1, 192, 130), {{"sa", 2.0}, {"sb", 0.75}});
}

class GemmWQ : public testing::TestWithParam<const char *> {};

TEST_P(GemmWQ, EveryWeightType) {
  check("gemm_wq.tile", "gemm_wq", {{"T", GetParam()}}, mkn(17, 256, 130));
  check("gemm_wq.tile", "gemm_wq", {{"T", GetParam()}}, mkn(1, 128, 64));
}

INSTANTIATE_TEST_SUITE_P(ExamplesHost, GemmWQ,
                         testing::Values("u1", "u2", "u3", "u4", "u5", "u6",
                                         "u7", "u8", "i2", "i3", "i4", "i5",
                                         "i6", "i7", "i8", "f4e2m1", "f6e3m2",
                                         "f5e2m2", "f8e4m3"));

TEST(ExamplesHost, GemmWQWithoutZeroPoints) {
  check("gemm_wq.tile", "gemm_wq", {{"T", "i4"}, {"ZP", "false"}},
        mkn(5, 256, 72));
}

/// Chunks of several scale groups (BK > G): each slab of G rows takes its
/// own scale and zero-point row (one row for the whole chunk was wrong, and
/// the host compilation agreed with it; the float64 reference did not).
TEST(ExamplesHost, GemmWQSeveralGroupsPerChunk) {
  check("gemm_wq.tile", "gemm_wq", {{"T", "u3"}, {"G", "32"}, {"BK", "128"}},
        mkn(17, 512, 130));
  check("gemm_wq.tile", "gemm_wq",
        {{"T", "i4"}, {"G", "64"}, {"BK", "128"}, {"ZP", "false"}},
        mkn(3, 384, 64));
}

/// C_out = C_in + A x dequant(W): C holds random values beforehand (the
/// addend of the atomic additions), so a split that adds nothing or adds
/// twice shows.
void checkGemmDecode(const std::string &type, int64_t g, bool zp,
                     const std::string &out, Defines tiles, int64_t m,
                     int64_t k, int64_t n) {
  tiles["T"] = type;
  tiles["G"] = std::to_string(g);
  tiles["ZP"] = zp ? "true" : "false";
  tiles["OUT"] = out;
  check("gemm_decode.tile", "gemm_decode", tiles, mkn(m, k, n), {},
        /*seed=*/11, {"C"});
}

TEST(ExamplesHost, GemmDecodeSplitK) {
  // Defaults (BN 64, BK 128, SPLIT 4): one group per chunk, K = 640 is not a
  // multiple of SPLIT x BK, so the last split is short.
  checkGemmDecode("u4", 128, true, "f16", {}, 1, 640, 200);
  checkGemmDecode("u4", 128, true, "f16", {}, 17, 512, 72);
  // Several groups per chunk (BK > G), no zero points, bf16 and f32 out.
  checkGemmDecode("i4", 32, false, "bf16", {}, 3, 256, 130);
  checkGemmDecode("u3", 64, true, "f32", {{"SPLIT", "3"}}, 5, 768, 96);
  // More splits than chunks: programs whose share of K is empty add zeros.
  checkGemmDecode("f4e2m1", 64, true, "f32", {{"SPLIT", "8"}, {"BK", "64"}}, 2,
                  256, 64);
  checkGemmDecode("u1", 32, true, "f16", {{"BK", "256"}, {"BN", "32"}}, 16, 512,
                  100);
  checkGemmDecode("i8", 128, false, "f16", {{"SPLIT", "1"}}, 4, 384, 64);
}

/// K split across the warps too (KW slices of each chunk, a batched dot,
/// summed over the batch): on the host a linalg.batch_matmul and a reduce.
TEST(ExamplesHost, GemmDecodeSplitAcrossWarps) {
  checkGemmDecode("u4", 128, true, "f32", {{"KW", "4"}, {"BN", "32"}}, 5, 640,
                  100);
  checkGemmDecode("u3", 32, false, "f16",
                  {{"KW", "2"}, {"BM", "8"}, {"BN", "16"}, {"SPLIT", "1"}}, 7,
                  512, 72);
  checkGemmDecode("i4", 64, true, "bf16",
                  {{"KW", "8"}, {"BM", "8"}, {"BK", "128"}}, 1, 384, 64);
}

/// gemm_decode_packed: the weight read from Wp through the packing order of
/// lib/Numerics. \p bk = 0 leaves BK at the kernel's default, which must be
/// the packing library's defaultOperandBlockK.
void checkGemmDecodePacked(const std::string &type, bool zp, int64_t bk,
                           int64_t m, int64_t k, int64_t n, int64_t bm = 16,
                           bool swap = false, bool mfma = false) {
  Defines defines = {{"T", type}, {"ZP", zp ? "true" : "false"}};
  if (mfma)
    defines["MFMA"] = "true";
  if (bk)
    defines["BK"] = std::to_string(bk);
  if (bm != 16)
    defines["BM"] = std::to_string(bm);
  if (swap)
    defines["SWAP"] = "true";
  Result r = check("gemm_decode_packed.tile", "gemm_decode_packed", defines,
                   mkn(m, k, n), {}, /*seed=*/13, {"C"});
  unsigned bits = num::parseFormat(type)->bits();
  if (!bk)
    EXPECT_EQ(r.launch.intConstant("BK"),
              int64_t(num::defaultOperandBlockK(bits)))
        << type;
}

TEST(ExamplesHost, GemmDecodePacked) {
  checkGemmDecodePacked("u4", true, 128, 1, 512, 200);
  checkGemmDecodePacked("i4", false, 64, 16, 256, 72);
  checkGemmDecodePacked("u2", true, 128, 5, 640, 64);
  checkGemmDecodePacked("f4e2m1", true, 32, 3, 256, 40);
  checkGemmDecodePacked("u8", true, 128, 2, 256, 130);
  // Default chunks: u2 256 and u1 512 (several scale groups per chunk, K
  // split in uneven shares), i8 128.
  checkGemmDecodePacked("u2", true, 0, 3, 768, 64);
  checkGemmDecodePacked("u1", false, 0, 16, 1024, 40);
  checkGemmDecodePacked("i8", true, 0, 2, 384, 72);
  // Widths whose register pairs are 4 (3, 5 bits) or 2 (6, 7 bits)
  // positions apart: the kernel's d against the packing library's.
  checkGemmDecodePacked("u3", true, 0, 3, 256, 72);
  checkGemmDecodePacked("i5", false, 64, 2, 384, 40);
  checkGemmDecodePacked("u6", true, 0, 5, 256, 64);
  checkGemmDecodePacked("i7", true, 32, 1, 256, 24);
  // The M <= 8 path (C^T = W^T A^T): M = 11 takes two program rows.
  checkGemmDecodePacked("u4", true, 0, 11, 512, 72, 8);
  checkGemmDecodePacked("i8", false, 0, 3, 384, 40, 8);
  checkGemmDecodePacked("u3", true, 0, 1, 256, 24, 8);
  // Swapped at prefill tiles (SWAP: C^T = W^T A^T at any BM).
  checkGemmDecodePacked("u4", true, 64, 70, 512, 130, 64, true);
  checkGemmDecodePacked("u2", false, 0, 129, 512, 72, 128, true);
  // AMD's MFMA order (the kernel's reshape against lib/Numerics'
  // operandOrderK for OperandOrder::Mfma), every kind of pair distance.
  for (const char *type : {"u4", "u2", "u1", "u8", "u3", "i6", "f4e2m1"})
    checkGemmDecodePacked(type, true, 0, 3, 512, 40, 16, false, true);
  checkGemmDecodePacked("u4", true, 0, 5, 512, 72, 8, false, true);
}

//===----------------------------------------------------------------------===//
// attention_fwd
//===----------------------------------------------------------------------===//

TEST(ExamplesHost, AttentionForward) {
  const double scale = 1 / std::sqrt(128.0);
  for (auto [causal, b, h, hkv, n] : {std::tuple{false, 1, 2, 1, 100},
                                      {true, 1, 2, 1, 100},
                                      {false, 2, 2, 2, 64},
                                      {true, 1, 4, 2, 1}})
    check("attention_fwd.tile", "attention_fwd",
          {{"CAUSAL", causal ? "true" : "false"}},
          {{"B", b}, {"H", h}, {"HKV", hkv}, {"N", n}}, {{"scale", scale}});
}

//===----------------------------------------------------------------------===//
// Block-scaled formats: dequant_fp4, quant_block.tile, gemm_mx
//===----------------------------------------------------------------------===//

TEST(ExamplesHost, DequantFp4) {
  check("dequant_fp4.tile", "dequant_fp4", {}, {{"M", 5}, {"N", 96}});
  check("dequant_fp4.tile", "dequant_fp4", {}, {{"M", 17}, {"N", 320}});
  check("dequant_fp4.tile", "dequant_fp4", {{"ROWS", "4"}, {"COLS", "64"}},
        {{"M", 3}, {"N", 160}});
}

TEST(ExamplesHost, QuantMX) {
  // Every MX element type with its EMAX; N = 200 ends every row in a
  // partial block of 8.
  for (auto [t, emax] : {std::pair{"f4e2m1", "2"},
                         {"f6e2m3", "2"},
                         {"f6e3m2", "4"},
                         {"f8e4m3", "8"},
                         {"f8e5m2", "15"}})
    check("quant_block.tile", "quant_mx", {{"T", t}, {"EMAX", emax}},
          {{"M", 5}, {"N", 200}});
  check("quant_block.tile", "quant_mx", {{"X", "f32"}},
        {{"M", 17}, {"N", 512}});
  check("quant_block.tile", "quant_mx",
        {{"T", "f8e4m3"}, {"EMAX", "8"}, {"X", "f16"}}, {{"M", 1}, {"N", 96}});
}

TEST(ExamplesHost, QuantNVFP4) {
  for (auto [x, m, n] : {std::tuple{"bf16", 5, 200}, {"f32", 16, 256}}) {
    rt::DimMap dims = {{"M", m}, {"N", n}};
    // Any tensor scale (the reference takes the kernel's argument) ...
    check("quant_block.tile", "quant_nvfp4", {{"X", x}}, dims,
          {{"s_enc", 3.5}});
    // ... and the one NVIDIA's recipe derives from the data (the inputs
    // depend on the seed only: a first run draws them).
    Result first = run("quant_block.tile", "quant_nvfp4", {{"X", x}}, dims,
                       {{"s_enc", 1.0}});
    const std::vector<double> &data = first.launch.input("x").values;
    float sEnc = num::nvfp4TensorEncodeScale(
        std::vector<float>(data.begin(), data.end()));
    EXPECT_NE(sEnc, 1.0f);
    check("quant_block.tile", "quant_nvfp4", {{"X", x}}, dims,
          {{"s_enc", sEnc}});
  }
}

TEST(ExamplesHost, DequantBlock) {
  check("quant_block.tile", "dequant_block", {}, {{"M", 5}, {"N", 200}},
        {{"alpha", 1.0}});
  check("quant_block.tile", "dequant_block", {{"T", "f8e5m2"}},
        {{"M", 3}, {"N", 96}}, {{"alpha", 1.0}});
  check("quant_block.tile", "dequant_block", {{"S", "f8e4m3"}, {"BS", "16"}},
        {{"M", 7}, {"N", 136}}, {{"alpha", 1.0 / 3}});
}

TEST(ExamplesHost, GemmMX) {
  // MXFP8 x MXFP4, K = 200 ending in a partial block, M = 1.
  check("gemm_mx.tile", "gemm_mx", {}, mkn(1, 200, 72), {{"alpha", 1.0}});
  check("gemm_mx.tile", "gemm_mx", {{"OUT", "f32"}}, mkn(70, 256, 130),
        {{"alpha", 0.75}});
  // NVFP4 x NVFP4 with the tensor scales in alpha; MXFP6 both ways.
  check("gemm_mx.tile", "gemm_mx",
        {{"TA", "f4e2m1"}, {"S", "f8e4m3"}, {"BS", "16"}}, mkn(17, 320, 64),
        {{"alpha", 1.0 / 64}});
  check("gemm_mx.tile", "gemm_mx",
        {{"TA", "f6e2m3"},
         {"TB", "f6e3m2"},
         {"BM", "16"},
         {"BK", "128"},
         {"STAGES", "3"}},
        mkn(5, 384, 96), {{"alpha", 1.0}});
}

/// Every kernel of examples/*.tile has a reference, and every reference
/// names a kernel of examples/.
TEST(ExamplesHost, EveryExampleHasAReference) {
  size_t kernels = 0;
  for (const auto &entry :
       std::filesystem::directory_iterator(TILE_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".tile")
      continue;
    std::string file = entry.path().filename().string();
    auto compiled = compiler().compileFile(entry.path().string(), {}, "");
    ASSERT_TRUE(bool(compiled)) << file << ": " << compiled.message();
    for (const auto &k : *compiled) {
      ++kernels;
      EXPECT_NE(ref::lookup(file, k->Info.name()), nullptr)
          << file << " " << k->Info.name() << " has no float64 reference";
    }
  }
  EXPECT_EQ(kernels, ref::listReferences().size());
}

} // namespace
