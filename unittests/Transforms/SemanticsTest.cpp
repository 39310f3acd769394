//===- SemanticsTest.cpp - tile-gpu-prepare keeps kernels' meaning --------===//
//
// Part of tilec. Kernels run on the host before and after tile-gpu-prepare
// (layout inference, conversion removal, software pipelining, shared-memory
// allocation) for a GPU target: the host lowering ignores the distribution
// (layouts are dropped, a convert_layout is the identity) and runs
// copy_async as a synchronous masked copy (gfx942 pipelines through
// registers and shared_store instead), so both runs must give the same
// bits. Both are also checked against an independent float64 reference, so
// that a kernel computing nothing cannot pass. Sizes are not multiples of
// the tiles (masked edges) and pipelines have fewer iterations than stages
// in some runs (copies past the end).
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using ::tile::host::HostExecutable;
using ::tile::host::KernelEntry;

namespace {

/// Drops register layouts (and shared layouts) so the host pipeline sees
/// the program it would have seen without the GPU passes' encodings;
/// conversions become the identity, which is their meaning.
void stripLayouts(ModuleOp module) {
  auto strip = [](Type type) -> Type {
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
    if (auto shared = dyn_cast<tile::SharedType>(type))
      return tile::SharedType::get(shared.getShape(), shared.getElementType());
    return type;
  };
  SmallVector<tile::ConvertLayoutOp> converts;
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(strip(arg.getType()));
    for (Value result : op->getResults())
      result.setType(strip(result.getType()));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(
            dense.reshape(cast<ShapedType>(constant.getType())));
    if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
      converts.push_back(convert);
  });
  for (auto convert : converts) {
    convert.replaceAllUsesWith(convert.getSrc());
    convert->erase();
  }
}

struct Kernel {
  std::unique_ptr<HostExecutable> exe;
  KernelEntry entry = nullptr;
  std::string prepared; ///< The IR after tile-gpu-prepare (for messages).
};

/// Parses \p source, optionally runs tile-gpu-prepare for \p target, and
/// compiles it for the host.
::testing::AssertionResult build(const std::string &source, const char *name,
                                 const std::string &target, Kernel &out) {
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect>();
  ::tile::host::registerHostCodegenDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return ::testing::AssertionFailure() << "cannot parse the kernel";
  if (!target.empty()) {
    PassManager pm(&context);
    tile::buildGpuPreparePipeline(pm, target);
    if (failed(pm.run(*module)))
      return ::testing::AssertionFailure() << "tile-gpu-prepare failed";
    llvm::raw_string_ostream os(out.prepared);
    module->print(os);
    // The preparation must really have happened.
    bool hasLayout = false;
    module->walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(type))
          hasLayout |= bool(tensor.getEncoding());
    });
    if (!hasLayout)
      return ::testing::AssertionFailure() << "no layouts after preparation";
    stripLayouts(*module);
  }
  if (llvm::Error error = ::tile::host::lowerToHostLLVM(*module))
    return ::testing::AssertionFailure() << llvm::toString(std::move(error));
  auto exe = HostExecutable::create(*module);
  if (!exe)
    return ::testing::AssertionFailure() << llvm::toString(exe.takeError());
  auto entry = (*exe)->lookup(name);
  if (!entry)
    return ::testing::AssertionFailure() << llvm::toString(entry.takeError());
  out.exe = std::move(*exe);
  out.entry = *entry;
  return ::testing::AssertionSuccess();
}

uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/// f16 codes of the small integers -3..3 (exact in f16 and in f32 sums).
uint16_t f16OfSmallInt(int v) {
  static const uint16_t codes[] = {0xC200, 0xC000, 0xBC00, 0x0000,
                                   0x3C00, 0x4000, 0x4200};
  return codes[v + 3];
}

const char *kTargets[] = {"sm_90a", "sm_80", "gfx942"};

/// Whether tile-pipeline pipelined the loads of \p ir as it does for
/// \p target: a ring filled by tile.copy_async with cp.async (NVIDIA), or
/// register prefetches stored with tile.shared_store inside the loop
/// without it (AMD).
::testing::AssertionResult isPipelined(const std::string &ir,
                                       const std::string &target) {
  bool async = ir.find("tile.copy_async") != std::string::npos;
  bool wantAsync = target.rfind("sm_", 0) == 0;
  size_t loop = ir.find("scf.for");
  bool storesInLoop = loop != std::string::npos &&
                      ir.find("tile.shared_store", loop) != std::string::npos;
  if (async == wantAsync && (wantAsync || storesInLoop))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "not pipelined the " << (wantAsync ? "cp.async" : "register")
         << " way for " << target << ":\n"
         << ir;
}

//===----------------------------------------------------------------------===//
// GEMM, f16 x f16 -> f32, pipelined over K.
//===----------------------------------------------------------------------===//

std::string gemmSource(int stages) {
  return R"(
func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>,
                %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %py = tile.program_id y : i32
  %px = tile.program_id x : i32
  %c32 = arith.constant 32 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %py, %c32 : i32
  %n0 = arith.muli %px, %c32 : i32
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%acc = %zero)
      -> (tensor<32x32xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf16> -> tensor<32x16xf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<32x16xf16>, tensor<16x32xf16>,
        tensor<32x32xf32> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  } {tile.pipeline = )" +
         std::to_string(stages) + R"( : i32}
  tile.store %c[%m0, %n0], %acc : !tile.view<?x?xf32>, tensor<32x32xf32>
  return
}
)";
}

std::vector<float> runGemm(const Kernel &kernel, uint32_t m, uint32_t n,
                           uint32_t k, const std::vector<uint16_t> &a,
                           const std::vector<uint16_t> &b) {
  std::vector<float> c(size_t(m) * n, -12345.0f);
  const uint16_t *pa = a.data(), *pb = b.data();
  float *pc = c.data();
  int32_t im = m, in = n, ik = k;
  void *args[] = {&pa, &pb, &pc, &im, &in, &ik};
  llvm::Error error =
      ::tile::host::runGrid(kernel.entry, args, {cdiv(n, 32), cdiv(m, 32), 1});
  EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
  return c;
}

TEST(GpuPrepareSemantics, PipelinedGemm) {
  for (int stages : {2, 3, 4}) {
    Kernel plain;
    ASSERT_TRUE(build(gemmSource(stages), "gemm", "", plain));
    for (const char *target : kTargets) {
      Kernel prepared;
      ASSERT_TRUE(build(gemmSource(stages), "gemm", target, prepared));
      // The loop really was pipelined.
      ASSERT_TRUE(isPipelined(prepared.prepared, target));
      // (m, n, k): odd edges; k = 16 and 40 give fewer iterations than
      // stages for the deeper pipelines.
      for (auto [m, n, k] :
           {std::tuple<uint32_t, uint32_t, uint32_t>{50, 40, 72},
            {33, 70, 16},
            {64, 32, 40}}) {
        std::mt19937 gen(m * 131 + n * 7 + k + stages);
        std::uniform_int_distribution<int> dist(-3, 3);
        std::vector<int> ai(size_t(m) * k), bi(size_t(k) * n);
        for (int &v : ai)
          v = dist(gen);
        for (int &v : bi)
          v = dist(gen);
        std::vector<uint16_t> a(ai.size()), b(bi.size());
        for (size_t i = 0; i < ai.size(); ++i)
          a[i] = f16OfSmallInt(ai[i]);
        for (size_t i = 0; i < bi.size(); ++i)
          b[i] = f16OfSmallInt(bi[i]);
        std::vector<float> before = runGemm(plain, m, n, k, a, b);
        std::vector<float> after = runGemm(prepared, m, n, k, a, b);
        for (uint32_t i = 0; i < m; ++i) {
          for (uint32_t j = 0; j < n; ++j) {
            double ref = 0;
            for (uint32_t l = 0; l < k; ++l)
              ref += double(ai[i * k + l]) * bi[l * n + j];
            size_t at = size_t(i) * n + j;
            ASSERT_EQ(before[at], ref) << "plain (" << i << ", " << j << ")";
            ASSERT_EQ(std::memcmp(&after[at], &before[at], 4), 0)
                << target << " stages " << stages << " at (" << i << ", " << j
                << "): " << after[at] << " vs " << before[at];
          }
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Row softmax with reductions, broadcasts and a transpose of the result.
//===----------------------------------------------------------------------===//

const char *kSoftmaxT = R"(
func.func @softmax_t(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 2 : i32} {
  %x = tile.view %X(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %y = tile.view %Y(%N, %M) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %p = tile.program_id x : i32
  %c8 = arith.constant 8 : i32
  %r0 = arith.muli %p, %c8 : i32
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%r0, %c0] padding(0xFF800000 : f32)
      : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %m = tile.reduce max %t axis = 1 : tensor<8x64xf32> -> tensor<8xf32>
  %me = tile.expand_dims %m axis = 1 : tensor<8xf32> -> tensor<8x1xf32>
  %mb = tile.broadcast %me : tensor<8x1xf32> -> tensor<8x64xf32>
  %d = arith.subf %t, %mb : tensor<8x64xf32>
  %e = math.exp %d : tensor<8x64xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<8x64xf32> -> tensor<8xf32>
  %se = tile.expand_dims %s axis = 1 : tensor<8xf32> -> tensor<8x1xf32>
  %sb = tile.broadcast %se : tensor<8x1xf32> -> tensor<8x64xf32>
  %r = arith.divf %e, %sb : tensor<8x64xf32>
  %i = tile.iota : tensor<64xi32>
  %if = arith.sitofp %i : tensor<64xi32> to tensor<64xf32>
  %ie = tile.expand_dims %if axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
  %ib = tile.broadcast %ie : tensor<1x64xf32> -> tensor<8x64xf32>
  %small = arith.constant dense<1.0e-3> : tensor<8x64xf32>
  %w = arith.mulf %ib, %small : tensor<8x64xf32>
  %o = arith.addf %r, %w : tensor<8x64xf32>
  %ot = tile.trans %o : tensor<8x64xf32> -> tensor<64x8xf32>
  tile.store %y[%c0, %r0], %ot : !tile.view<?x?xf32>, tensor<64x8xf32>
  return
}
)";

TEST(GpuPrepareSemantics, SoftmaxReduceBroadcastTrans) {
  Kernel plain;
  ASSERT_TRUE(build(kSoftmaxT, "softmax_t", "", plain));
  for (const char *target : kTargets) {
    Kernel prepared;
    ASSERT_TRUE(build(kSoftmaxT, "softmax_t", target, prepared));
    uint32_t m = 21, n = 50;
    std::mt19937 gen(m + n);
    std::normal_distribution<float> dist(0.0f, 2.0f);
    std::vector<float> x(size_t(m) * n);
    for (float &v : x)
      v = dist(gen);
    auto run = [&](const Kernel &kernel) {
      std::vector<float> y(size_t(n) * m, -777.0f);
      const float *px = x.data();
      float *py = y.data();
      int32_t im = m, in = n;
      void *args[] = {&px, &py, &im, &in};
      llvm::Error error =
          ::tile::host::runGrid(kernel.entry, args, {cdiv(m, 8), 1, 1});
      EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
      return y;
    };
    std::vector<float> before = run(plain), after = run(prepared);
    for (uint32_t i = 0; i < m; ++i) {
      double mx = -INFINITY, sum = 0;
      for (uint32_t j = 0; j < n; ++j)
        mx = std::max(mx, double(x[i * n + j]));
      for (uint32_t j = 0; j < n; ++j)
        sum += std::exp(double(x[i * n + j]) - mx);
      for (uint32_t j = 0; j < n; ++j) {
        double ref = std::exp(double(x[i * n + j]) - mx) / sum + j * 1e-3;
        size_t at = size_t(j) * m + i;
        ASSERT_NEAR(before[at], ref, 1e-5 + 1e-5 * std::fabs(ref));
        ASSERT_EQ(std::memcmp(&after[at], &before[at], 4), 0)
            << target << " at (" << i << ", " << j << ")\n"
            << prepared.prepared;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Weight-only quantized product: u4 weights loaded through a pipeline, cast
// to f16, row sums accumulated in the loop.
//===----------------------------------------------------------------------===//

const char *kDequantSum = R"(
func.func @dequant_sum(%W: !tile.ptr<i4>, %Y: !tile.ptr<f32>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32} {
  %w = tile.view %W(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %y = tile.view %Y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %p = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %n0 = arith.muli %p, %c64 : i32
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%acc = %zero)
      -> (tensor<64xf32>) : i32 {
    %t = tile.load %w[%k, %n0] : !tile.view<?x?xi4> -> tensor<16x64xi4>
    %h = tile.cast %t {src_unsigned} : tensor<16x64xi4> -> tensor<16x64xf16>
    %f = tile.cast %h : tensor<16x64xf16> -> tensor<16x64xf32>
    %s = tile.reduce sum %f axis = 0 : tensor<16x64xf32> -> tensor<64xf32>
    %a = arith.addf %acc, %s : tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } {tile.pipeline = 3 : i32}
  tile.store %y[%n0], %acc : !tile.view<?xf32>, tensor<64xf32>
  return
}
)";

TEST(GpuPrepareSemantics, PipelinedSubByteLoads) {
  Kernel plain;
  ASSERT_TRUE(build(kDequantSum, "dequant_sum", "", plain));
  for (const char *target : kTargets) {
    Kernel prepared;
    ASSERT_TRUE(build(kDequantSum, "dequant_sum", target, prepared));
    ASSERT_TRUE(isPipelined(prepared.prepared, target));
    for (auto [k, n] :
         {std::pair<uint32_t, uint32_t>{45, 100}, {16, 64}, {70, 37}}) {
      std::mt19937 gen(k * 1000 + n);
      std::uniform_int_distribution<int> dist(0, 15);
      std::vector<int> wi(size_t(k) * n);
      for (int &v : wi)
        v = dist(gen);
      // Dense LSB-first nibble stream.
      std::vector<uint8_t> packed((wi.size() + 1) / 2 + 8, 0);
      for (size_t i = 0; i < wi.size(); ++i)
        packed[i / 2] |= uint8_t(wi[i] << (4 * (i % 2)));
      auto run = [&](const Kernel &kernel) {
        std::vector<float> y(n, -5.0f);
        const uint8_t *pw = packed.data();
        float *py = y.data();
        int32_t ik = k, in = n;
        void *args[] = {&pw, &py, &ik, &in};
        llvm::Error error =
            ::tile::host::runGrid(kernel.entry, args, {cdiv(n, 64), 1, 1});
        EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
        return y;
      };
      std::vector<float> before = run(plain), after = run(prepared);
      for (uint32_t j = 0; j < n; ++j) {
        double ref = 0;
        for (uint32_t i = 0; i < k; ++i)
          ref += wi[size_t(i) * n + j];
        ASSERT_EQ(before[j], ref) << "column " << j;
        ASSERT_EQ(std::memcmp(&after[j], &before[j], 4), 0)
            << target << " column " << j << ": " << after[j] << " vs "
            << before[j];
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Attention-like chained products: S = Q K^T (K loaded 3-D, reshaped and
// transposed), P = f16(exp2(S / 16)), O += P V, K and V pipelined.
//===----------------------------------------------------------------------===//

const char *kAttention = R"(
func.func @attn(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>,
                %O: !tile.ptr<f32>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32} {
  %q = tile.view %Q(%N) : !tile.ptr<f16> -> !tile.view<?x32xf16>
  %k = tile.view %K(%N) : !tile.ptr<f16> -> !tile.view<1x?x32xf16>
  %v = tile.view %V(%N) : !tile.ptr<f16> -> !tile.view<?x32xf16>
  %o = tile.view %O(%N) : !tile.ptr<f32> -> !tile.view<?x32xf32>
  %p = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %c16 = arith.constant 16 : i32
  %c0 = arith.constant 0 : i32
  %m0 = arith.muli %p, %c64 : i32
  %tq = tile.load %q[%m0, %c0] : !tile.view<?x32xf16> -> tensor<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %zs = arith.constant dense<0.0> : tensor<64x16xf32>
  %scale = arith.constant dense<0.0625> : tensor<64x16xf32>
  %acc = scf.for %n0 = %c0 to %N step %c16 iter_args(%acc = %zero)
      -> (tensor<64x32xf32>) : i32 {
    %k3 = tile.load %k[%c0, %n0, %c0] : !tile.view<1x?x32xf16> -> tensor<1x16x32xf16>
    %k2 = tile.reshape %k3 : tensor<1x16x32xf16> -> tensor<16x32xf16>
    %kt = tile.trans %k2 : tensor<16x32xf16> -> tensor<32x16xf16>
    %s = tile.dot %tq, %kt, %zs : tensor<64x32xf16>, tensor<32x16xf16>,
        tensor<64x16xf32> -> tensor<64x16xf32>
    %ss = arith.mulf %s, %scale : tensor<64x16xf32>
    %e = math.exp2 %ss : tensor<64x16xf32>
    %ph = tile.cast %e : tensor<64x16xf32> -> tensor<64x16xf16>
    %tv = tile.load %v[%n0, %c0] : !tile.view<?x32xf16> -> tensor<16x32xf16>
    %d = tile.dot %ph, %tv, %acc : tensor<64x16xf16>, tensor<16x32xf16>,
        tensor<64x32xf32> -> tensor<64x32xf32>
    scf.yield %d : tensor<64x32xf32>
  } {tile.pipeline = 2 : i32}
  tile.store %o[%m0, %c0], %acc : !tile.view<?x32xf32>, tensor<64x32xf32>
  return
}
)";

TEST(GpuPrepareSemantics, ChainedDotsWithPipelinedTransposedLoads) {
  Kernel plain;
  ASSERT_TRUE(build(kAttention, "attn", "", plain));
  for (const char *target : kTargets) {
    Kernel prepared;
    ASSERT_TRUE(build(kAttention, "attn", target, prepared));
    ASSERT_TRUE(isPipelined(prepared.prepared, target));
    for (uint32_t n : {70u, 16u, 130u}) {
      std::mt19937 gen(n);
      std::uniform_int_distribution<int> small(-1, 1), wide(-3, 3);
      std::vector<int> qi(size_t(n) * 32), ki(qi.size()), vi(qi.size());
      for (size_t i = 0; i < qi.size(); ++i) {
        qi[i] = small(gen);
        ki[i] = small(gen);
        vi[i] = wide(gen);
      }
      std::vector<uint16_t> q(qi.size()), k(qi.size()), v(qi.size());
      for (size_t i = 0; i < qi.size(); ++i) {
        q[i] = f16OfSmallInt(qi[i]);
        k[i] = f16OfSmallInt(ki[i]);
        v[i] = f16OfSmallInt(vi[i]);
      }
      auto run = [&](const Kernel &kernel) {
        std::vector<float> o(size_t(n) * 32, -9.0f);
        const uint16_t *pq = q.data(), *pk = k.data(), *pv = v.data();
        float *po = o.data();
        int32_t in = n;
        void *args[] = {&pq, &pk, &pv, &po, &in};
        llvm::Error error =
            ::tile::host::runGrid(kernel.entry, args, {cdiv(n, 64), 1, 1});
        EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
        return o;
      };
      std::vector<float> before = run(plain), after = run(prepared);
      for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t d = 0; d < 32; ++d) {
          // float64 reference without the f16 rounding of P: within 0.1%.
          double ref = 0, mag = 0;
          for (uint32_t j = 0; j < n; ++j) {
            double s = 0;
            for (uint32_t l = 0; l < 32; ++l)
              s += double(qi[i * 32 + l]) * ki[j * 32 + l];
            double pj = std::exp2(s / 16);
            ref += pj * vi[j * 32 + d];
            mag += pj * std::fabs(vi[j * 32 + d]);
          }
          size_t at = size_t(i) * 32 + d;
          ASSERT_NEAR(before[at], ref, 1e-3 * mag + 1e-6)
              << "(" << i << ", " << d << ")";
          ASSERT_EQ(std::memcmp(&after[at], &before[at], 4), 0)
              << target << " n " << n << " at (" << i << ", " << d
              << "): " << after[at] << " vs " << before[at];
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Runtime loop bounds and steps, offsets computed from the induction
// variable through several ops (k * 2 - 3, k / 5), 4 stages: trip counts
// from 0 to many, so prologues issue copies for iterations that do not run.
//===----------------------------------------------------------------------===//

const char *kStrided = R"(
func.func @strided(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %N: i32,
                   %lb: i32, %ub: i32, %st: i32)
    attributes {tile.kernel, tile.warps = 2 : i32} {
  %x = tile.view %X(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %y = tile.view %Y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %acc = scf.for %k = %lb to %ub step %st iter_args(%acc = %zero)
      -> (tensor<32xf32>) : i32 {
    %k2 = arith.muli %k, %c2 : i32
    %o = arith.subi %k2, %c3 : i32
    %g = arith.divsi %k, %c5 : i32
    %t = tile.load %x[%o] : !tile.view<?xf32> -> tensor<32xf32>
    %u = tile.load %x[%g] : !tile.view<?xf32> -> tensor<32xf32>
    %m = arith.mulf %t, %u : tensor<32xf32>
    %a = arith.addf %acc, %m : tensor<32xf32>
    scf.yield %a : tensor<32xf32>
  } {tile.pipeline = 4 : i32}
  tile.store %y[%c0], %acc : !tile.view<?xf32>, tensor<32xf32>
  return
}
)";

TEST(GpuPrepareSemantics, RuntimeBoundsAndComputedOffsets) {
  Kernel plain;
  ASSERT_TRUE(build(kStrided, "strided", "", plain));
  for (const char *target : kTargets) {
    Kernel prepared;
    ASSERT_TRUE(build(kStrided, "strided", target, prepared));
    ASSERT_TRUE(isPipelined(prepared.prepared, target));
    uint32_t n = 90;
    std::mt19937 gen(n);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n);
    for (float &v : x)
      v = dist(gen);
    // (lb, ub, step): 0 to 9 iterations, bounds that make offsets negative
    // or run past the end of x.
    for (auto [lb, ub, st] : {std::tuple<int32_t, int32_t, int32_t>{0, 0, 1},
                              {5, 6, 7},
                              {1, 40, 19},
                              {0, 30, 11},
                              {3, 50, 6},
                              {-4, 60, 7},
                              {10, 9, 1}}) {
      std::vector<float> ref(32, 0.0f);
      for (int32_t k = lb; k < ub; k += st) {
        for (int32_t i = 0; i < 32; ++i) {
          int32_t a = k * 2 - 3 + i, b = k / 5 + i;
          float t = a >= 0 && a < int32_t(n) ? x[a] : 0.0f;
          float u = b >= 0 && b < int32_t(n) ? x[b] : 0.0f;
          float m = t * u;
          ref[i] = ref[i] + m;
        }
      }
      auto run = [&](const Kernel &kernel) {
        std::vector<float> y(n, -3.0f);
        const float *px = x.data();
        float *py = y.data();
        int32_t in = n, ilb = lb, iub = ub, ist = st;
        void *args[] = {&px, &py, &in, &ilb, &iub, &ist};
        llvm::Error error =
            ::tile::host::runGrid(kernel.entry, args, {1, 1, 1});
        EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
        return y;
      };
      std::vector<float> before = run(plain), after = run(prepared);
      for (uint32_t i = 0; i < n; ++i) {
        float expect = i < 32 ? ref[i] : -3.0f;
        ASSERT_NEAR(before[i], expect, 1e-5f)
            << "lb " << lb << " ub " << ub << " step " << st << " at " << i;
        ASSERT_EQ(std::memcmp(&after[i], &before[i], 4), 0)
            << target << " lb " << lb << " ub " << ub << " step " << st
            << " at " << i << ": " << after[i] << " vs " << before[i];
      }
    }
  }
}

} // namespace
