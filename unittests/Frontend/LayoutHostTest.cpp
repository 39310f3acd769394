//===- LayoutHostTest.cpp - Kernels with layout() run on the host ---------===//
//
// Part of tilec. A .tile kernel that pins register layouts with layout(x, L)
// (a loop-carried accumulator, dot operands, a broadcast row, values in
// both branches of a runtime if) goes through the front end and the host
// pipeline, which drops the layouts, and runs on the CPU. Its output is
// compared with a float64 reference written here, on random data and on a
// grid with partial edge tiles. The same kernel without layout() must give
// bit-identical results: a pin changes where values live, never what they
// are.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace tile;

namespace {

/// C = leaky_relu(s * (A @ B) + bias) with s > 1 doubling positive values
/// a second time (a runtime if); PIN(e, L) is replaced by layout(e, L) or
/// by e.
const char *kKernel = R"(
kernel pinned<BM: int = 32, BN: int = 32, BK: int = 16, R: int = 1>(
    A: f32[M, K], B: f32[K, N], bias: f32[N], C: mut f32[M, N], s: f32)
    grid(cdiv(M, BM), cdiv(N, BN)) warps 4
{
    let m0 = program_id(0) * BM;
    let n0 = program_id(1) * BN;
    var acc = PIN(zeros(f32, [BM, BN]), replicate(R) * spatial(16, 8) * column_local(2, 4));
    for k in 0 .. K step BK {
        let a = PIN(load(A[m0 : m0 + BM, k : k + BK]), replicate(R) * local(2, 1) * spatial(16, 8) * local(1, 2));
        let b = load(B[k : k + BK, n0 : n0 + BN]);
        acc = dot(a, b, acc);
    }
    let bv = PIN(load(bias[n0 : n0 + BN]), replicate(4 * R) * spatial(32));
    var y = PIN(acc * s, replicate(R) * local(2, 1) * column_spatial(16, 8) * local(1, 4)) + bv;
    if s > 1.0 {
        y = PIN(y + maximum(y, 0.0), replicate(R) * spatial(32, 4) * local(1, 8));
    }
    store(C[m0 : m0 + BM, n0 : n0 + BN], where(y > 0.0, y, -(0.125 * y)));
}
)";

/// kKernel with PIN(e, L) written as layout(e, L) (\p pinned) or as e.
std::string source(bool pinned) {
  std::string text = kKernel;
  size_t pos;
  while ((pos = text.find("PIN(")) != std::string::npos) {
    if (pinned) {
      text.replace(pos, 4, "layout(");
      continue;
    }
    // Drop "PIN(" and ", L)" where L ends at the matching parenthesis.
    int depth = 0;
    size_t comma = std::string::npos, end = pos + 4;
    for (; end < text.size(); ++end) {
      char c = text[end];
      if (c == '(' || c == '[') {
        ++depth;
      } else if ((c == ')' || c == ']') && depth-- == 0) {
        break;
      } else if (c == ',' && depth == 0 && comma == std::string::npos) {
        comma = end;
      }
    }
    text.erase(comma, end + 1 - comma);
    text.erase(pos, 4);
  }
  return text;
}

/// Compiles \p text for the host and returns the entry of `pinned`.
::testing::AssertionResult compile(const std::string &text,
                                   std::unique_ptr<host::HostExecutable> &exe,
                                   host::KernelEntry &entry,
                                   std::string *mlir = nullptr) {
  mlir::DialectRegistry registry;
  host::registerHostCodegenDialects(registry);
  mlir::MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "k.tile"),
                        llvm::SMLoc());
  std::string diags;
  llvm::raw_string_ostream os(diags);
  auto module = frontend::compileToMLIR(sm, ctx, {}, &os);
  if (!module)
    return ::testing::AssertionFailure() << "front end:\n" << diags;
  if (mlir) {
    llvm::raw_string_ostream out(*mlir);
    module->print(out);
  }
  if (llvm::Error err = host::lowerToHostLLVM(*module))
    return ::testing::AssertionFailure() << llvm::toString(std::move(err));
  auto compiled = host::HostExecutable::create(*module);
  if (!compiled) {
    return ::testing::AssertionFailure()
           << llvm::toString(compiled.takeError());
  }
  auto found = (*compiled)->lookup("pinned");
  if (!found)
    return ::testing::AssertionFailure() << llvm::toString(found.takeError());
  exe = std::move(*compiled);
  entry = *found;
  return ::testing::AssertionSuccess();
}

struct Problem {
  int32_t m, k, n;
  float s;
  std::vector<float> a, b, bias;
};

Problem makeProblem(int32_t m, int32_t k, int32_t n, float s, unsigned seed) {
  Problem p{m, k, n, s, {}, {}, {}};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  p.a.resize(size_t(m) * k);
  p.b.resize(size_t(k) * n);
  p.bias.resize(n);
  for (float &v : p.a)
    v = dist(gen);
  for (float &v : p.b)
    v = dist(gen);
  for (float &v : p.bias)
    v = dist(gen);
  return p;
}

/// Runs the kernel; C starts poisoned (NaN).
std::vector<float> runKernel(host::KernelEntry entry, const Problem &p) {
  std::vector<float> c(size_t(p.m) * p.n, std::nanf(""));
  const float *a = p.a.data(), *b = p.b.data(), *bias = p.bias.data();
  float *cp = c.data();
  float s = p.s;
  int32_t m = p.m, k = p.k, n = p.n;
  // Runtime parameters in source order, then the dimensions M, K, N.
  void *args[] = {&a, &b, &bias, &cp, &s, &m, &k, &n};
  std::array<uint32_t, 3> grid = {uint32_t((m + 31) / 32),
                                  uint32_t((n + 31) / 32), 1};
  if (llvm::Error err = host::runGrid(entry, args, grid))
    ADD_FAILURE() << llvm::toString(std::move(err));
  return c;
}

/// The float64 reference of kKernel.
std::vector<double> reference(const Problem &p) {
  std::vector<double> c(size_t(p.m) * p.n);
  for (int32_t i = 0; i < p.m; ++i) {
    for (int32_t j = 0; j < p.n; ++j) {
      double acc = 0;
      for (int32_t l = 0; l < p.k; ++l)
        acc += double(p.a[size_t(i) * p.k + l]) * p.b[size_t(l) * p.n + j];
      double y = acc * p.s + p.bias[j];
      if (p.s > 1.0f)
        y += std::max(y, 0.0);
      c[size_t(i) * p.n + j] = y > 0 ? y : -(0.125 * y);
    }
  }
  return c;
}

TEST(LayoutHost, SourceRewritingIsExact) {
  std::string plain = source(false);
  EXPECT_EQ(plain.find("PIN"), std::string::npos);
  EXPECT_EQ(plain.find("spatial"), std::string::npos);
  EXPECT_NE(plain.find("var acc = zeros(f32, [BM, BN]);"), std::string::npos);
  EXPECT_NE(source(true).find("layout(acc * s, replicate(R)"),
            std::string::npos);
}

TEST(LayoutHost, PinnedKernelMatchesReference) {
  std::unique_ptr<host::HostExecutable> exe;
  host::KernelEntry entry = nullptr;
  std::string mlir;
  ASSERT_TRUE(compile(source(true), exe, entry, &mlir));
  // The front end really pinned layouts (the host pipeline dropped them).
  EXPECT_NE(mlir.find("tile.convert_layout"), std::string::npos) << mlir;
  EXPECT_NE(mlir.find("#tile.layout<"), std::string::npos) << mlir;
  // Partial tiles in every dimension; s on both sides of the runtime if.
  for (float s : {0.75f, 1.5f}) {
    Problem p = makeProblem(45, 40, 70, s, s > 1 ? 7u : 11u);
    std::vector<float> got = runKernel(entry, p);
    std::vector<double> want = reference(p);
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      double tol = 1e-4 * (1 + std::fabs(want[i]));
      if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5) {
        ADD_FAILURE() << "C[" << i / p.n << ", " << i % p.n << "] = " << got[i]
                      << ", expected " << want[i] << " (s = " << s << ")";
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST(LayoutHost, PinsDoNotChangeResults) {
  std::unique_ptr<host::HostExecutable> pinnedExe, plainExe;
  host::KernelEntry pinned = nullptr, plain = nullptr;
  ASSERT_TRUE(compile(source(true), pinnedExe, pinned));
  ASSERT_TRUE(compile(source(false), plainExe, plain));
  Problem p = makeProblem(33, 48, 64, 1.25f, 3u);
  std::vector<float> a = runKernel(pinned, p), b = runKernel(plain, p);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a[i], b[i]) << "element " << i;
}

} // namespace
