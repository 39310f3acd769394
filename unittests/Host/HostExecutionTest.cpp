//===- HostExecutionTest.cpp - Tile kernels JIT-compiled and run on the CPU
//===//
//
// Part of tilec. Hand-written tile-dialect kernels (the front end's contract:
// func.func with tile.kernel, !tile.ptr parameters, i32 dims) lowered by the
// host pipeline, JIT-compiled and run over grids on random inputs. Outputs
// are poisoned first and compared with independent references written here
// as float64 loops; small-float and integer conversions in the references
// are brute-force searches over all codes, not lib/Numerics.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Numerics/CAPI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace tile::host;
using namespace tile::test;

namespace {

/// A compiled kernel (the executable keeps the code alive).
struct Compiled {
  std::unique_ptr<HostExecutable> exe;
  KernelEntry entry = nullptr;
};

/// Compiles \p source and looks up \p name; fails the test on errors.
::testing::AssertionResult compile(const std::string &source, const char *name,
                                   Compiled &out, bool optimize = true) {
  HostCompileOptions options;
  options.optimize = optimize;
  auto exe = HostExecutable::createFromSource(source, options);
  if (!exe)
    return ::testing::AssertionFailure() << llvm::toString(exe.takeError());
  auto entry = (*exe)->lookup(name);
  if (!entry)
    return ::testing::AssertionFailure() << llvm::toString(entry.takeError());
  out.exe = std::move(*exe);
  out.entry = *entry;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult run(const Compiled &kernel, void **args,
                               std::array<uint32_t, 3> grid,
                               unsigned threads = 0) {
  if (llvm::Error error = runGrid(kernel.entry, args, grid, threads))
    return ::testing::AssertionFailure() << llvm::toString(std::move(error));
  return ::testing::AssertionSuccess();
}

constexpr float kPoison = -12345.0f;

//===----------------------------------------------------------------------===//
// Vector add over a grid with a masked tail
//===----------------------------------------------------------------------===//

const char *kVectorAdd = R"mlir(
func.func @vadd(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                %y: !tile.ptr<f32> {tile.name = "y", tile.dtype = "f32", tile.shape = ["N"]},
                %z: !tile.ptr<f32> {tile.name = "z", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.warps = 4 : i32, tile.grid = ["cdiv(N, 64)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %off = arith.muli %pid, %c64 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vy = tile.view %y(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vz = tile.view %z(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %a = tile.load %vx[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %b = tile.load %vy[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %s = arith.addf %a, %b : tensor<64xf32>
  tile.store %vz[%off], %s : !tile.view<?xf32>, tensor<64xf32>
  return
}
)mlir";

TEST(HostExecution, VectorAddMaskedTail) {
  for (bool optimize : {true, false}) {
    Compiled kernel;
    ASSERT_TRUE(compile(kVectorAdd, "vadd", kernel, optimize));
    for (uint32_t n : {1u, 64u, 1000u}) {
      std::vector<float> x = randomFloats(n, 1 + n), y = randomFloats(n, 2 + n);
      // Room past the end: stores there would be out-of-bounds writes.
      std::vector<float> z(n + 70, kPoison);
      float *px = x.data(), *py = y.data(), *pz = z.data();
      int32_t dim = int32_t(n);
      void *args[] = {&px, &py, &pz, &dim};
      ASSERT_TRUE(run(kernel, args, {cdiv(n, 64), 1, 1}));
      for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(z[i], float(double(x[i]) + double(y[i]))) << "i=" << i;
      for (uint32_t i = n; i < n + 70; ++i)
        ASSERT_EQ(z[i], kPoison) << "write past the end at " << i;
    }
  }
}

//===----------------------------------------------------------------------===//
// Softmax rows: reduce, expand_dims, broadcast, exp, -inf padding
//===----------------------------------------------------------------------===//

const char *kSoftmax = R"mlir(
func.func @softmax(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["M", "N"]},
                   %y: !tile.ptr<f16> {tile.name = "y", tile.dtype = "f16", tile.shape = ["M", "N"], tile.mut},
                   %m: i32 {tile.dim = "M"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(M, 4)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %r0 = arith.muli %pid, %c4 : i32
  %vx = tile.view %x(%m, %n) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vy = tile.view %y(%m, %n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %t = tile.load %vx[%r0, %c0] padding(0xFF800000 : f32) : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %mx = tile.reduce max %t axis = 1 : tensor<4x128xf32> -> tensor<4xf32>
  %mx2 = tile.expand_dims %mx axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %mx2 : tensor<4x1xf32> -> tensor<4x128xf32>
  %d = arith.subf %t, %mb : tensor<4x128xf32>
  %e = math.exp %d : tensor<4x128xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x128xf32> -> tensor<4xf32>
  %s2 = tile.expand_dims %s axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %s2 : tensor<4x1xf32> -> tensor<4x128xf32>
  %o = arith.divf %e, %sb : tensor<4x128xf32>
  %h = tile.cast %o : tensor<4x128xf32> -> tensor<4x128xf16>
  tile.store %vy[%r0, %c0], %h : !tile.view<?x?xf16>, tensor<4x128xf16>
  return
}
)mlir";

TEST(HostExecution, SoftmaxRows) {
  Compiled kernel;
  ASSERT_TRUE(compile(kSoftmax, "softmax", kernel));
  for (auto [m, n] :
       {std::pair<uint32_t, uint32_t>{10, 100}, {1, 128}, {5, 7}}) {
    std::vector<float> x = randomFloats(size_t(m) * n, m * 31 + n);
    for (float &v : x)
      v *= 3.0f;
    std::vector<uint16_t> y(size_t(m) * n + 8, 0xBEEF);
    float *px = x.data();
    uint16_t *py = y.data();
    int32_t dm = int32_t(m), dn = int32_t(n);
    void *args[] = {&px, &py, &dm, &dn};
    ASSERT_TRUE(run(kernel, args, {cdiv(m, 4), 1, 1}));
    for (uint32_t r = 0; r < m; ++r) {
      double mx = -INFINITY, sum = 0;
      for (uint32_t c = 0; c < n; ++c)
        mx = std::max(mx, double(x[r * n + c]));
      for (uint32_t c = 0; c < n; ++c)
        sum += std::exp(double(x[r * n + c]) - mx);
      for (uint32_t c = 0; c < n; ++c) {
        double want = std::exp(double(x[r * n + c]) - mx) / sum;
        double got = f16Value(y[r * n + c]);
        ASSERT_NEAR(got, want, 1e-3 * want + 1e-6)
            << "m=" << m << " n=" << n << " r=" << r << " c=" << c;
      }
    }
    for (size_t i = size_t(m) * n; i < y.size(); ++i)
      ASSERT_EQ(y[i], 0xBEEF);
  }
}

//===----------------------------------------------------------------------===//
// GEMM: tile.dot in an scf.for over K, 2-D grid
//===----------------------------------------------------------------------===//

const char *kGemm = R"mlir(
func.func @gemm(%a: !tile.ptr<f16> {tile.name = "A", tile.dtype = "f16", tile.shape = ["M", "K"]},
                %b: !tile.ptr<f16> {tile.name = "B", tile.dtype = "f16", tile.shape = ["K", "N"]},
                %c: !tile.ptr<f32> {tile.name = "C", tile.dtype = "f32", tile.shape = ["M", "N"], tile.mut},
                %m: i32 {tile.dim = "M"}, %k: i32 {tile.dim = "K"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 16)", "cdiv(M, 16)", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %py, %c16 : i32
  %n0 = arith.muli %px, %c16 : i32
  %va = tile.view %a(%m, %k) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %b(%k, %n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %c(%m, %n) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %k step %c8 iter_args(%acc_in = %zero) -> (tensor<16x16xf32>) : i32 {
    %ta = tile.load %va[%m0, %kk] : !tile.view<?x?xf16> -> tensor<16x8xf16>
    %tb = tile.load %vb[%kk, %n0] : !tile.view<?x?xf16> -> tensor<8x16xf16>
    %d = tile.dot %ta, %tb, %acc_in : tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  } {tile.pipeline = 2 : i32}
  tile.store %vc[%m0, %n0], %acc : !tile.view<?x?xf32>, tensor<16x16xf32>
  return
}

func.func @gemm_i8(%a: !tile.ptr<i8> {tile.name = "A", tile.dtype = "i8", tile.shape = ["M", "K"]},
                   %b: !tile.ptr<i8> {tile.name = "B", tile.dtype = "i8", tile.shape = ["K", "N"]},
                   %c: !tile.ptr<i32> {tile.name = "C", tile.dtype = "i32", tile.shape = ["M", "N"], tile.mut},
                   %m: i32 {tile.dim = "M"}, %k: i32 {tile.dim = "K"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 8)", "cdiv(M, 8)", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %m0 = arith.muli %py, %c8 : i32
  %n0 = arith.muli %px, %c8 : i32
  %va = tile.view %a(%m, %k) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %vb = tile.view %b(%k, %n) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %vc = tile.view %c(%m, %n) : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %zero = arith.constant dense<0> : tensor<8x8xi32>
  %acc = scf.for %kk = %c0 to %k step %c8 iter_args(%acc_in = %zero) -> (tensor<8x8xi32>) : i32 {
    %ta = tile.load %va[%m0, %kk] : !tile.view<?x?xi8> -> tensor<8x8xi8>
    %tb = tile.load %vb[%kk, %n0] : !tile.view<?x?xi8> -> tensor<8x8xi8>
    %d = tile.dot %ta, %tb, %acc_in : tensor<8x8xi8>, tensor<8x8xi8>, tensor<8x8xi32> -> tensor<8x8xi32>
    scf.yield %d : tensor<8x8xi32>
  }
  tile.store %vc[%m0, %n0], %acc : !tile.view<?x?xi32>, tensor<8x8xi32>
  return
}
)mlir";

TEST(HostExecution, GemmF16) {
  Compiled kernel;
  ASSERT_TRUE(compile(kGemm, "gemm", kernel));
  for (auto [m, n, k] : {std::tuple<uint32_t, uint32_t, uint32_t>{37, 29, 45},
                         {1, 16, 8},
                         {16, 3, 1}}) {
    std::vector<float> af = randomFloats(size_t(m) * k, m + 7 * k);
    std::vector<float> bf = randomFloats(size_t(k) * n, n + 11 * k);
    std::vector<uint16_t> a(af.size()), b(bf.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = f16Bits(af[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = f16Bits(bf[i]);
    std::vector<float> c(size_t(m) * n, kPoison);
    uint16_t *pa = a.data(), *pb = b.data();
    float *pc = c.data();
    int32_t dm = int32_t(m), dk = int32_t(k), dn = int32_t(n);
    void *args[] = {&pa, &pb, &pc, &dm, &dk, &dn};
    ASSERT_TRUE(run(kernel, args, {cdiv(n, 16), cdiv(m, 16), 1}));
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        double want = 0, scale = 0;
        for (uint32_t p = 0; p < k; ++p) {
          double prod = f16Value(a[i * k + p]) * f16Value(b[p * n + j]);
          want += prod;
          scale += std::fabs(prod);
        }
        ASSERT_NEAR(c[i * n + j], want, 1e-5 * scale + 1e-6)
            << "m=" << m << " n=" << n << " k=" << k << " at " << i << "," << j;
      }
  }
}

TEST(HostExecution, GemmI8) {
  Compiled kernel;
  ASSERT_TRUE(compile(kGemm, "gemm_i8", kernel));
  uint32_t m = 13, n = 11, k = 21;
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> a(size_t(m) * k), b(size_t(k) * n);
  for (int8_t &v : a)
    v = int8_t(dist(gen));
  for (int8_t &v : b)
    v = int8_t(dist(gen));
  std::vector<int32_t> c(size_t(m) * n, -7);
  int8_t *pa = a.data(), *pb = b.data();
  int32_t *pc = c.data();
  int32_t dm = int32_t(m), dk = int32_t(k), dn = int32_t(n);
  void *args[] = {&pa, &pb, &pc, &dm, &dk, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 8), cdiv(m, 8), 1}));
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int64_t want = 0;
      for (uint32_t p = 0; p < k; ++p)
        want += int64_t(a[i * k + p]) * int64_t(b[p * n + j]);
      ASSERT_EQ(c[i * n + j], want) << i << "," << j;
    }
}

//===----------------------------------------------------------------------===//
// Casts between packed low-bit codes and f16/f32
//===----------------------------------------------------------------------===//

const char *kCasts = R"mlir(
func.func @u4_to_f16(%w: !tile.ptr<i4> {tile.name = "w", tile.dtype = "u4", tile.shape = ["N"]},
                     %o: !tile.ptr<f16> {tile.name = "o", tile.dtype = "f16", tile.shape = ["N"], tile.mut},
                     %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 32)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c32 = arith.constant 32 : i32
  %off = arith.muli %pid, %c32 : i32
  %vw = tile.view %w(%n) : !tile.ptr<i4> -> !tile.view<?xi4>
  %vo = tile.view %o(%n) : !tile.ptr<f16> -> !tile.view<?xf16>
  %t = tile.load %vw[%off] : !tile.view<?xi4> -> tensor<32xi4>
  %h = tile.cast %t {src_unsigned} : tensor<32xi4> -> tensor<32xf16>
  tile.store %vo[%off], %h : !tile.view<?xf16>, tensor<32xf16>
  return
}

func.func @f32_to_i3(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                     %q: !tile.ptr<i3> {tile.name = "q", tile.dtype = "i3", tile.shape = ["N"], tile.mut},
                     %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 16)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c16 = arith.constant 16 : i32
  %off = arith.muli %pid, %c16 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vq = tile.view %q(%n) : !tile.ptr<i3> -> !tile.view<?xi3>
  %t = tile.load %vx[%off] : !tile.view<?xf32> -> tensor<16xf32>
  %c = tile.cast %t : tensor<16xf32> -> tensor<16xi3>
  tile.store %vq[%off], %c : !tile.view<?xi3>, tensor<16xi3>
  return
}

func.func @f6_roundtrip(%x: !tile.ptr<f6E3M2FN> {tile.name = "x", tile.dtype = "f6e3m2", tile.shape = ["N"]},
                        %o: !tile.ptr<f32> {tile.name = "o", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                        %q: !tile.ptr<f6E3M2FN> {tile.name = "q", tile.dtype = "f6e3m2", tile.shape = ["N"], tile.mut},
                        %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 8)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c8 = arith.constant 8 : i32
  %off = arith.muli %pid, %c8 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f6E3M2FN> -> !tile.view<?xf6E3M2FN>
  %vo = tile.view %o(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vq = tile.view %q(%n) : !tile.ptr<f6E3M2FN> -> !tile.view<?xf6E3M2FN>
  %t = tile.load %vx[%off] : !tile.view<?xf6E3M2FN> -> tensor<8xf6E3M2FN>
  %f = tile.cast %t : tensor<8xf6E3M2FN> -> tensor<8xf32>
  tile.store %vo[%off], %f : !tile.view<?xf32>, tensor<8xf32>
  %two = arith.constant dense<2.5> : tensor<8xf32>
  %g = arith.mulf %f, %two : tensor<8xf32>
  %r = tile.cast %g : tensor<8xf32> -> tensor<8xf6E3M2FN>
  tile.store %vq[%off], %r : !tile.view<?xf6E3M2FN>, tensor<8xf6E3M2FN>
  return
}

func.func @f8_roundtrip(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                        %q: !tile.ptr<f8E4M3FN> {tile.name = "q", tile.dtype = "f8e4m3", tile.shape = ["N"], tile.mut},
                        %o: !tile.ptr<f16> {tile.name = "o", tile.dtype = "f16", tile.shape = ["N"], tile.mut},
                        %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 64)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %off = arith.muli %pid, %c64 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vq = tile.view %q(%n) : !tile.ptr<f8E4M3FN> -> !tile.view<?xf8E4M3FN>
  %vo = tile.view %o(%n) : !tile.ptr<f16> -> !tile.view<?xf16>
  %t = tile.load %vx[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %e = tile.cast %t : tensor<64xf32> -> tensor<64xf8E4M3FN>
  tile.store %vq[%off], %e : !tile.view<?xf8E4M3FN>, tensor<64xf8E4M3FN>
  %h = tile.cast %e : tensor<64xf8E4M3FN> -> tensor<64xf16>
  tile.store %vo[%off], %h : !tile.view<?xf16>, tensor<64xf16>
  return
}
)mlir";

TEST(HostExecution, CastU4ToF16) {
  Compiled kernel;
  ASSERT_TRUE(compile(kCasts, "u4_to_f16", kernel));
  uint32_t n = 77;
  std::mt19937 gen(9);
  std::vector<uint32_t> codes(n);
  std::vector<uint8_t> packed((n * 4 + 7) / 8, 0);
  for (uint32_t i = 0; i < n; ++i) {
    codes[i] = gen() & 15;
    packBits(packed, i, 4, codes[i]);
  }
  std::vector<uint16_t> out(n + 4, 0xBEEF);
  uint8_t *pw = packed.data();
  uint16_t *po = out.data();
  int32_t dn = int32_t(n);
  void *args[] = {&pw, &po, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 32), 1, 1}));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(f16Value(out[i]), double(codes[i])) << i;
  for (uint32_t i = n; i < n + 4; ++i)
    ASSERT_EQ(out[i], 0xBEEF);
}

TEST(HostExecution, CastF32ToPackedI3Saturates) {
  Compiled kernel;
  ASSERT_TRUE(compile(kCasts, "f32_to_i3", kernel));
  uint32_t n = 45; // 135 bits: the last byte is shared with the poison.
  std::vector<float> x = randomFloats(n, 17);
  for (float &v : x)
    v *= 3.0f;
  x[0] = 9.6f;  // saturates to 3
  x[1] = -9.6f; // saturates to -4
  x[2] = 2.5f;  // ties to even: 2
  x[3] = -0.5f; // ties to even: 0
  x[4] = 1.5f;  // ties to even: 2
  std::vector<uint8_t> q((n * 3 + 7) / 8 + 2, 0xA5);
  std::vector<uint8_t> poison = q;
  float *px = x.data();
  uint8_t *pq = q.data();
  int32_t dn = int32_t(n);
  void *args[] = {&px, &pq, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 16), 1, 1}, /*threads=*/3));
  for (uint32_t i = 0; i < n; ++i) {
    double r = std::nearbyint(double(x[i])); // ties to even (default mode)
    int64_t want = int64_t(std::min(3.0, std::max(-4.0, r)));
    int32_t code = int32_t(unpackBits(q, i, 3));
    int32_t got = code >= 4 ? code - 8 : code;
    ASSERT_EQ(got, want) << "i=" << i << " x=" << x[i];
  }
  // Bits past the last element keep their poison.
  for (size_t bit = n * 3; bit < q.size() * 8; ++bit)
    ASSERT_EQ((q[bit / 8] >> (bit % 8)) & 1, (poison[bit / 8] >> (bit % 8)) & 1)
        << "bit " << bit;
}

TEST(HostExecution, CastF6E3M2RoundTrip) {
  Compiled kernel;
  ASSERT_TRUE(compile(kCasts, "f6_roundtrip", kernel));
  uint32_t n = 64 + 19; // every code, then random ones
  std::mt19937 gen(23);
  std::vector<uint32_t> codes(n);
  std::vector<uint8_t> packed((n * 6 + 7) / 8, 0);
  for (uint32_t i = 0; i < n; ++i) {
    codes[i] = i < 64 ? i : gen() & 63;
    packBits(packed, i, 6, codes[i]);
  }
  std::vector<float> out(n, kPoison);
  std::vector<uint8_t> q(packed.size(), 0x5A);
  uint8_t *px = packed.data(), *pq = q.data();
  float *po = out.data();
  int32_t dn = int32_t(n);
  void *args[] = {&px, &po, &pq, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 8), 1, 1}));
  for (uint32_t i = 0; i < n; ++i) {
    double value = smallFloatValue(codes[i], 3, 2);
    ASSERT_EQ(double(out[i]), value) << "code " << codes[i];
    uint32_t want = smallFloatEncode(value * 2.5, 3, 2);
    uint32_t got = unpackBits(q, i, 6);
    // -0 and +0 are both zero: compare values, and signs of non-zeros.
    ASSERT_EQ(smallFloatValue(got, 3, 2), smallFloatValue(want, 3, 2))
        << "code " << codes[i] << " x2.5 = " << value * 2.5;
  }
}

TEST(HostExecution, CastF8E4M3RoundTrip) {
  Compiled kernel;
  ASSERT_TRUE(compile(kCasts, "f8_roundtrip", kernel));
  uint32_t n = 200;
  std::vector<float> x = randomFloats(n, 29);
  for (uint32_t i = 0; i < n; ++i)
    x[i] *= float(1 << (i % 12)); // up to 2048: past 448 saturates
  x[0] = 1e6f;
  x[1] = -1e6f;
  x[2] = 0.0f;
  std::vector<uint8_t> q(n + 3, 0x77);
  std::vector<uint16_t> o(n, 0xBEEF);
  float *px = x.data();
  uint8_t *pq = q.data();
  uint16_t *po = o.data();
  int32_t dn = int32_t(n);
  void *args[] = {&px, &pq, &po, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 64), 1, 1}));
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t want = smallFloatEncode(x[i], 4, 3, /*e4m3=*/true);
    ASSERT_EQ(uint32_t(q[i]), want) << "x=" << x[i];
    ASSERT_EQ(f16Value(o[i]), smallFloatValue(want, 4, 3, true)) << x[i];
  }
  for (uint32_t i = n; i < n + 3; ++i)
    ASSERT_EQ(q[i], 0x77);
}

//===----------------------------------------------------------------------===//
// Bitcast, shape ops, iota + where, reductions
//===----------------------------------------------------------------------===//

const char *kShapes = R"mlir(
func.func @bitcasts(%x: !tile.ptr<i8> {tile.name = "x", tile.dtype = "u8", tile.shape = ["R", "8"]},
                    %o4: !tile.ptr<i32> {tile.name = "o4", tile.dtype = "i32", tile.shape = ["R", "16"], tile.mut},
                    %o3: !tile.ptr<i32> {tile.name = "o3", tile.dtype = "i32", tile.shape = ["R", "8"], tile.mut},
                    %r: i32 {tile.dim = "R"})
    attributes {tile.kernel, tile.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x(%r) : !tile.ptr<i8> -> !tile.view<?x8xi8>
  %v4 = tile.view %o4(%r) : !tile.ptr<i32> -> !tile.view<?x16xi32>
  %v3 = tile.view %o3(%r) : !tile.ptr<i32> -> !tile.view<?x16xi32>
  %t = tile.load %vx[%c0, %c0] : !tile.view<?x8xi8> -> tensor<4x8xi8>
  %n = tile.bitcast %t : tensor<4x8xi8> -> tensor<4x16xi4>
  %w = tile.cast %n {src_unsigned} : tensor<4x16xi4> -> tensor<4x16xi32>
  tile.store %v4[%c0, %c0], %w : !tile.view<?x16xi32>, tensor<4x16xi32>
  %s = tile.load %vx[%c0, %c0] : !tile.view<?x8xi8> -> tensor<4x6xi8>
  %t3 = tile.bitcast %s : tensor<4x6xi8> -> tensor<4x16xi3>
  %w3 = tile.cast %t3 : tensor<4x16xi3> -> tensor<4x16xi32>
  tile.store %v3[%c0, %c0], %w3 : !tile.view<?x16xi32>, tensor<4x16xi32>
  return
}

func.func @shapes(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["8", "4"]},
                  %o: !tile.ptr<f32> {tile.name = "o", tile.dtype = "f32", tile.shape = ["2", "16"], tile.mut})
    attributes {tile.kernel, tile.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<f32> -> !tile.view<8x4xf32>
  %vo = tile.view %o() : !tile.ptr<f32> -> !tile.view<2x16xf32>
  %t = tile.load %vx[%c0, %c0] : !tile.view<8x4xf32> -> tensor<8x4xf32>
  %tr = tile.trans %t : tensor<8x4xf32> -> tensor<4x8xf32>
  %f = tile.reshape %tr : tensor<4x8xf32> -> tensor<32xf32>
  %e = tile.expand_dims %f axis = 0 : tensor<32xf32> -> tensor<1x32xf32>
  %g = tile.reshape %e : tensor<1x32xf32> -> tensor<2x16xf32>
  tile.store %vo[%c0, %c0], %g : !tile.view<2x16xf32>, tensor<2x16xf32>
  return
}

func.func @where(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                 %o: !tile.ptr<f32> {tile.name = "o", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                 %stats: !tile.ptr<f32> {tile.name = "stats", tile.dtype = "f32", tile.shape = ["4"], tile.mut},
                 %k: i32 {tile.name = "k", tile.dtype = "i32"},
                 %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vo = tile.view %o(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vs = tile.view %stats() : !tile.ptr<f32> -> !tile.view<4xf32>
  %t = tile.load %vx[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %i = tile.iota : tensor<64xi32>
  %ks = tile.splat %k : i32 -> tensor<64xi32>
  %lt = arith.cmpi slt, %i, %ks : tensor<64xi32>
  %neg = arith.negf %t : tensor<64xf32>
  %w = arith.select %lt, %t, %neg : tensor<64xi1>, tensor<64xf32>
  tile.store %vo[%c0], %w : !tile.view<?xf32>, tensor<64xf32>
  %mx = tile.reduce max %w axis = 0 : tensor<64xf32> -> f32
  %mn = tile.reduce min %w axis = 0 : tensor<64xf32> -> f32
  %ui = tile.reduce max %i axis = 0 {is_unsigned} : tensor<64xi32> -> i32
  %uf = tile.cast %ui : i32 -> f32
  %nan = arith.constant 0x7FC00000 : f32
  %sn = tile.splat %nan : f32 -> tensor<64xf32>
  %hasnan = arith.select %lt, %t, %sn : tensor<64xi1>, tensor<64xf32>
  %mnan = tile.reduce max %hasnan axis = 0 : tensor<64xf32> -> f32
  %r = tile.splat %mx : f32 -> tensor<4xf32>
  %idx = tile.iota : tensor<4xi32>
  %c1 = arith.constant dense<1> : tensor<4xi32>
  %c2 = arith.constant dense<2> : tensor<4xi32>
  %c3 = arith.constant dense<3> : tensor<4xi32>
  %s1 = tile.splat %mn : f32 -> tensor<4xf32>
  %s2 = tile.splat %uf : f32 -> tensor<4xf32>
  %s3 = tile.splat %mnan : f32 -> tensor<4xf32>
  %is1 = arith.cmpi eq, %idx, %c1 : tensor<4xi32>
  %is2 = arith.cmpi eq, %idx, %c2 : tensor<4xi32>
  %is3 = arith.cmpi eq, %idx, %c3 : tensor<4xi32>
  %r1 = arith.select %is1, %s1, %r : tensor<4xi1>, tensor<4xf32>
  %r2 = arith.select %is2, %s2, %r1 : tensor<4xi1>, tensor<4xf32>
  %r3 = arith.select %is3, %s3, %r2 : tensor<4xi1>, tensor<4xf32>
  tile.store %vs[%c0], %r3 : !tile.view<4xf32>, tensor<4xf32>
  return
}
)mlir";

TEST(HostExecution, Bitcasts) {
  Compiled kernel;
  ASSERT_TRUE(compile(kShapes, "bitcasts", kernel));
  uint32_t rows = 3; // the tile has 4 rows: the last one is masked
  std::mt19937 gen(31);
  std::vector<uint8_t> x(rows * 8);
  for (uint8_t &v : x)
    v = uint8_t(gen());
  std::vector<int32_t> o4(rows * 16 + 16, -99), o3(rows * 16 + 16, -99);
  uint8_t *px = x.data();
  int32_t *p4 = o4.data(), *p3 = o3.data();
  int32_t dr = int32_t(rows);
  void *args[] = {&px, &p4, &p3, &dr};
  ASSERT_TRUE(run(kernel, args, {1, 1, 1}));
  for (uint32_t r = 0; r < rows; ++r) {
    std::vector<uint8_t> row(x.begin() + r * 8, x.begin() + r * 8 + 8);
    for (uint32_t j = 0; j < 16; ++j) {
      ASSERT_EQ(o4[r * 16 + j], int32_t(unpackBits(row, j, 4)))
          << r << "," << j;
      int32_t code = int32_t(unpackBits(row, j, 3));
      ASSERT_EQ(o3[r * 16 + j], code >= 4 ? code - 8 : code) << r << "," << j;
    }
  }
  for (uint32_t i = rows * 16; i < o4.size(); ++i) {
    ASSERT_EQ(o4[i], -99);
    ASSERT_EQ(o3[i], -99);
  }
}

TEST(HostExecution, TransReshapeExpandDims) {
  Compiled kernel;
  ASSERT_TRUE(compile(kShapes, "shapes", kernel));
  std::vector<float> x = randomFloats(32, 37), o(32, kPoison);
  float *px = x.data(), *po = o.data();
  void *args[] = {&px, &po};
  ASSERT_TRUE(run(kernel, args, {1, 1, 1}));
  // o (2x16) row-major = flatten(trans(x)) where x is 8x4.
  for (uint32_t f = 0; f < 32; ++f) {
    uint32_t i = f / 8, j = f % 8; // trans(x)[i][j] = x[j][i]
    ASSERT_EQ(o[f], x[j * 4 + i]) << f;
  }
}

TEST(HostExecution, IotaWhereReductions) {
  Compiled kernel;
  ASSERT_TRUE(compile(kShapes, "where", kernel));
  uint32_t n = 50; // elements past n read as 0
  std::vector<float> x = randomFloats(n, 41);
  std::vector<float> o(n + 14, kPoison), stats(4, kPoison);
  float *px = x.data(), *po = o.data(), *ps = stats.data();
  int32_t k = 20, dn = int32_t(n);
  void *args[] = {&px, &po, &ps, &k, &dn};
  ASSERT_TRUE(run(kernel, args, {1, 1, 1}));
  double mx = -INFINITY, mn = INFINITY;
  for (uint32_t i = 0; i < 64; ++i) {
    double xi = i < n ? x[i] : 0.0;
    double w = int32_t(i) < k ? xi : -xi;
    if (i < n)
      ASSERT_EQ(o[i], float(w)) << i;
    mx = std::max(mx, w);
    mn = std::min(mn, w);
  }
  for (uint32_t i = n; i < o.size(); ++i)
    ASSERT_EQ(o[i], kPoison);
  EXPECT_EQ(stats[0], float(mx));
  EXPECT_EQ(stats[1], float(mn));
  EXPECT_EQ(stats[2], 63.0f);
  EXPECT_TRUE(std::isnan(stats[3])) << "max must propagate NaN";
}

//===----------------------------------------------------------------------===//
// Shared memory: copy_async (masked), wait, barrier, shared_load/store
//===----------------------------------------------------------------------===//

const char *kShared = R"mlir(
func.func @staged(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["M", "N"]},
                  %o: !tile.ptr<f32> {tile.name = "o", tile.dtype = "f32", tile.shape = ["M", "N"], tile.mut},
                  %m: i32 {tile.dim = "M"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 8)", "cdiv(M, 16)", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %r0 = arith.muli %py, %c16 : i32
  %q0 = arith.muli %px, %c8 : i32
  %vx = tile.view %x(%m, %n) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vo = tile.view %o(%m, %n) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %s = tile.alloc_shared : !tile.shared<2x16x8xf32>
  tile.copy_async %vx[%r0, %q0] -> %s[%c1, %c0, %c0] : !tile.view<?x?xf32> -> !tile.shared<2x16x8xf32>
  tile.wait 0
  tile.barrier
  %t = tile.shared_load %s[%c1, %c0, %c0] : !tile.shared<2x16x8xf32> -> tensor<16x8xf32>
  %two = arith.constant dense<2.0> : tensor<16x8xf32>
  %d = arith.mulf %t, %two : tensor<16x8xf32>
  %one = arith.constant dense<1.0> : tensor<16x8xf32>
  %d1 = arith.addf %d, %one : tensor<16x8xf32>
  tile.shared_store %s[%c0, %c0, %c0], %d1 : !tile.shared<2x16x8xf32>, tensor<16x8xf32>
  tile.barrier
  %top = tile.shared_load %s[%c0, %c0, %c0] : !tile.shared<2x16x8xf32> -> tensor<8x8xf32>
  %bot = tile.shared_load %s[%c0, %c8, %c0] : !tile.shared<2x16x8xf32> -> tensor<8x8xf32>
  %r8 = arith.addi %r0, %c8 : i32
  tile.store %vo[%r0, %q0], %top : !tile.view<?x?xf32>, tensor<8x8xf32>
  tile.store %vo[%r8, %q0], %bot : !tile.view<?x?xf32>, tensor<8x8xf32>
  return
}
)mlir";

TEST(HostExecution, CopyAsyncSharedLoad) {
  Compiled kernel;
  ASSERT_TRUE(compile(kShared, "staged", kernel));
  uint32_t m = 21, n = 13;
  std::vector<float> x = randomFloats(size_t(m) * n, 43);
  std::vector<float> o(size_t(m) * n + 9, kPoison);
  float *px = x.data(), *po = o.data();
  int32_t dm = int32_t(m), dn = int32_t(n);
  void *args[] = {&px, &po, &dm, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 8), cdiv(m, 16), 1}));
  for (uint32_t i = 0; i < m * n; ++i)
    ASSERT_EQ(o[i], float(2.0 * x[i] + 1.0)) << i;
  for (size_t i = size_t(m) * n; i < o.size(); ++i)
    ASSERT_EQ(o[i], kPoison);
}

//===----------------------------------------------------------------------===//
// Bit-exactness with lib/Numerics, exhaustive over the codes of each format
//===----------------------------------------------------------------------===//

/// A format of the exhaustive test: MLIR element type, language name, width,
/// and whether integers are read as unsigned.
struct CodeFormat {
  const char *mlirType;
  const char *name;
  unsigned bits;
  bool isUnsigned;
};

const CodeFormat kCodeFormats[] = {
    {"f4E2M1FN", "f4e2m1", 4, false},
    {"f6E2M3FN", "f6e2m3", 6, false},
    {"f6E3M2FN", "f6e3m2", 6, false},
    {"f8E4M3FN", "f8e4m3", 8, false},
    {"f8E5M2", "f8e5m2", 8, false},
    {"f8E8M0FNU", "e8m0", 8, false},
    {"!tile.float<e2m2>", "f5e2m2", 5, false},
    {"!tile.float<e3m3>", "f7e3m3", 7, false},
    {"!tile.float<e1m1>", "f3e1m1", 3, false},
    {"i3", "i3", 3, false},
    {"i4", "u4", 4, true},
    {"i8", "i8", 8, false},
    {"i8", "u8", 8, true},
};

/// A kernel decoding 256 codes of each format to f32, f16 and bf16.
std::string decodeKernels() {
  std::string text;
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    std::string t = fmt.mlirType, u = fmt.isUnsigned ? " {src_unsigned}" : "";
    std::string k = std::to_string(f);
    text +=
        "func.func @decode" + k + "(%x: !tile.ptr<" + t +
        ">, %a: !tile.ptr<f32>, %b: !tile.ptr<f16>, %c: !tile.ptr<bf16>)"
        " attributes {tile.kernel} {\n"
        "  %z = arith.constant 0 : i32\n"
        "  %vx = tile.view %x() : !tile.ptr<" +
        t + "> -> !tile.view<256x" + t +
        ">\n"
        "  %va = tile.view %a() : !tile.ptr<f32> -> !tile.view<256xf32>\n"
        "  %vb = tile.view %b() : !tile.ptr<f16> -> !tile.view<256xf16>\n"
        "  %vc = tile.view %c() : !tile.ptr<bf16> -> !tile.view<256xbf16>\n"
        "  %t = tile.load %vx[%z] : !tile.view<256x" +
        t + "> -> tensor<256x" + t +
        ">\n"
        "  %ta = tile.cast %t" +
        u + " : tensor<256x" + t +
        "> -> tensor<256xf32>\n"
        "  %tb = tile.cast %t" +
        u + " : tensor<256x" + t +
        "> -> tensor<256xf16>\n"
        "  %tc = tile.cast %t" +
        u + " : tensor<256x" + t +
        "> -> tensor<256xbf16>\n"
        "  tile.store %va[%z], %ta : !tile.view<256xf32>, tensor<256xf32>\n"
        "  tile.store %vb[%z], %tb : !tile.view<256xf16>, tensor<256xf16>\n"
        "  tile.store %vc[%z], %tc : !tile.view<256xbf16>, tensor<256xbf16>\n"
        "  return\n}\n";
  }
  return text;
}

TEST(HostNumerics, DecodeMatchesNumericsForEveryCode) {
  HostCompileOptions options;
  auto exe = HostExecutable::createFromSource(decodeKernels(), options);
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  uint32_t f32Id = tile_num_format_id("f32"), f16Id = tile_num_format_id("f16"),
           bf16Id = tile_num_format_id("bf16");
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    uint32_t id = tile_num_format_id(fmt.name);
    ASSERT_NE(id, 0u) << fmt.name;
    auto entry = (*exe)->lookup("decode" + std::to_string(f));
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    // 256 codes: every code of the format, repeated.
    std::vector<uint8_t> packed((256 * fmt.bits + 7) / 8, 0);
    for (uint32_t i = 0; i < 256; ++i)
      packBits(packed, i, fmt.bits, i & ((1u << fmt.bits) - 1));
    std::vector<uint32_t> a(256, 0xDEADBEEF);
    std::vector<uint16_t> b(256, 0xBEEF), c(256, 0xBEEF);
    uint8_t *px = packed.data();
    uint32_t *pa = a.data();
    uint16_t *pb = b.data(), *pc = c.data();
    void *args[] = {&px, &pa, &pb, &pc};
    ASSERT_FALSE(bool(runGrid(*entry, args, {1, 1, 1})));
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t code = i & ((1u << fmt.bits) - 1);
      ASSERT_EQ(a[i], tile_num_convert(code, id, f32Id))
          << fmt.name << " code " << code << " -> f32";
      ASSERT_EQ(b[i], tile_num_convert(code, id, f16Id))
          << fmt.name << " code " << code << " -> f16";
      ASSERT_EQ(c[i], tile_num_convert(code, id, bf16Id))
          << fmt.name << " code " << code << " -> bf16";
    }
  }
}

/// Kernels converting every code of each format into a small float and
/// integers (decode + one rounding).
std::string crossKernels() {
  std::string text;
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    std::string t = fmt.mlirType, u = fmt.isUnsigned ? "src_unsigned" : "";
    auto attrs = [&](const char *extra) {
      std::string list = u;
      if (*extra)
        list += (list.empty() ? "" : ", ") + std::string(extra);
      return list.empty() ? std::string() : " {" + list + "}";
    };
    text += "func.func @cross" + std::to_string(f) + "(%x: !tile.ptr<" + t +
            ">, %a: !tile.ptr<f4E2M1FN>, %b: !tile.ptr<i4>, %c: "
            "!tile.ptr<i8>) attributes {tile.kernel} {\n"
            "  %z = arith.constant 0 : i32\n"
            "  %vx = tile.view %x() : !tile.ptr<" +
            t + "> -> !tile.view<256x" + t +
            ">\n"
            "  %va = tile.view %a() : !tile.ptr<f4E2M1FN> -> "
            "!tile.view<256xf4E2M1FN>\n"
            "  %vb = tile.view %b() : !tile.ptr<i4> -> !tile.view<256xi4>\n"
            "  %vc = tile.view %c() : !tile.ptr<i8> -> !tile.view<256xi8>\n"
            "  %t = tile.load %vx[%z] : !tile.view<256x" +
            t + "> -> tensor<256x" + t +
            ">\n"
            "  %ta = tile.cast %t" +
            attrs("") + " : tensor<256x" + t +
            "> -> tensor<256xf4E2M1FN>\n"
            "  %tb = tile.cast %t" +
            attrs("") + " : tensor<256x" + t +
            "> -> tensor<256xi4>\n"
            "  %tc = tile.cast %t" +
            attrs("dst_unsigned") + " : tensor<256x" + t +
            "> -> tensor<256xi8>\n"
            "  tile.store %va[%z], %ta : !tile.view<256xf4E2M1FN>, "
            "tensor<256xf4E2M1FN>\n"
            "  tile.store %vb[%z], %tb : !tile.view<256xi4>, tensor<256xi4>\n"
            "  tile.store %vc[%z], %tc : !tile.view<256xi8>, tensor<256xi8>\n"
            "  return\n}\n";
  }
  return text;
}

TEST(HostNumerics, ConversionsBetweenFormatsMatchNumerics) {
  auto exe = HostExecutable::createFromSource(crossKernels());
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  uint32_t e2m1 = tile_num_format_id("f4e2m1"), i4 = tile_num_format_id("i4"),
           u8 = tile_num_format_id("u8");
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    uint32_t id = tile_num_format_id(fmt.name);
    auto entry = (*exe)->lookup("cross" + std::to_string(f));
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    std::vector<uint8_t> packed((256 * fmt.bits + 7) / 8, 0);
    for (uint32_t i = 0; i < 256; ++i)
      packBits(packed, i, fmt.bits, i & ((1u << fmt.bits) - 1));
    std::vector<uint8_t> a(128, 0xA5), b(128, 0xA5), c(256, 0xA5);
    uint8_t *px = packed.data(), *pa = a.data(), *pb = b.data(), *pc = c.data();
    void *args[] = {&px, &pa, &pb, &pc};
    ASSERT_FALSE(bool(runGrid(*entry, args, {1, 1, 1})));
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t code = i & ((1u << fmt.bits) - 1);
      ASSERT_EQ(unpackBits(a, i, 4), tile_num_convert(code, id, e2m1))
          << fmt.name << " code " << code << " -> f4e2m1";
      ASSERT_EQ(unpackBits(b, i, 4), tile_num_convert(code, id, i4))
          << fmt.name << " code " << code << " -> i4";
      ASSERT_EQ(uint32_t(c[i]), tile_num_convert(code, id, u8))
          << fmt.name << " code " << code << " -> u8";
    }
  }
}

/// Kernels encoding 512 f32 values into each format (stored packed).
std::string encodeKernels() {
  std::string text;
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    std::string t = fmt.mlirType, u = fmt.isUnsigned ? " {dst_unsigned}" : "";
    text +=
        "func.func @encode" + std::to_string(f) +
        "(%x: !tile.ptr<f32>, %h: !tile.ptr<f16>, %q: !tile.ptr<" + t +
        ">, %r: !tile.ptr<" + t +
        ">) attributes {tile.kernel} {\n"
        "  %z = arith.constant 0 : i32\n"
        "  %vx = tile.view %x() : !tile.ptr<f32> -> !tile.view<512xf32>\n"
        "  %vh = tile.view %h() : !tile.ptr<f16> -> !tile.view<512xf16>\n"
        "  %vq = tile.view %q() : !tile.ptr<" +
        t + "> -> !tile.view<512x" + t +
        ">\n"
        "  %vr = tile.view %r() : !tile.ptr<" +
        t + "> -> !tile.view<512x" + t +
        ">\n"
        "  %t = tile.load %vx[%z] : !tile.view<512xf32> -> tensor<512xf32>\n"
        "  %c = tile.cast %t" +
        u + " : tensor<512xf32> -> tensor<512x" + t +
        ">\n"
        "  tile.store %vq[%z], %c : !tile.view<512x" +
        t + ">, tensor<512x" + t +
        ">\n"
        "  %th = tile.load %vh[%z] : !tile.view<512xf16> -> tensor<512xf16>\n"
        "  %d = tile.cast %th" +
        u + " : tensor<512xf16> -> tensor<512x" + t +
        ">\n"
        "  tile.store %vr[%z], %d : !tile.view<512x" +
        t + ">, tensor<512x" + t +
        ">\n"
        "  return\n}\n";
  }
  return text;
}

TEST(HostNumerics, EncodeMatchesNumerics) {
  auto exe = HostExecutable::createFromSource(encodeKernels());
  ASSERT_TRUE(bool(exe)) << llvm::toString(exe.takeError());
  // Values around every scale the formats have, ties, specials.
  std::vector<float> x = randomFloats(512, 97);
  std::mt19937 gen(101);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(x[i], int(gen() % 40) - 20);
  const float specials[] = {
      0.0f,   -0.0f,  INFINITY, -INFINITY, NAN,      -NAN,     1e6f,  -1e6f,
      448.0f, 464.0f, 480.0f,   500.0f,    57344.0f, 61440.0f, 0.5f,  1.5f,
      2.5f,   -2.5f,  3.0f,     6.0f,      7.5f,     -100.0f,  1e-3f, -1e-3f,
      1e-30f, 3e38f,  0.25f,    0.75f,     0.0625f,  0.09375f};
  std::copy(std::begin(specials), std::end(specials), x.begin());
  // Around the smallest e8m0 scale 2^-127 (f32 subnormals) and e8m0 ties.
  const uint32_t tinyBits[] = {0x00400000, 0x005FFFFF, 0x00600000, 0x00200000,
                               0x00000001, 0x80400000, 0x7F400000, 0x7F3FFFFF,
                               0x3FC00000, 0x3FBFFFFF, 0x7F7FFFFF};
  for (size_t i = 0; i < std::size(tinyBits); ++i)
    std::memcpy(&x[40 + i], &tinyBits[i], 4);
  // Exact ties of the small formats: k + 1/2 quanta at several scales.
  for (int i = 0; i < 64; ++i)
    x[64 + i] = std::ldexp(float(2 * (i % 16) + 1), int(i / 16) - 6) *
                (i % 2 ? -1.0f : 1.0f);
  std::vector<uint16_t> h(512);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = uint16_t(tile_num_convert(
        [&] {
          uint32_t bits;
          std::memcpy(&bits, &x[i], 4);
          return bits;
        }(),
        tile_num_format_id("f32"), tile_num_format_id("f16")));
  uint32_t f32Id = tile_num_format_id("f32"), f16Id = tile_num_format_id("f16");
  for (size_t f = 0; f < std::size(kCodeFormats); ++f) {
    const CodeFormat &fmt = kCodeFormats[f];
    uint32_t id = tile_num_format_id(fmt.name);
    auto entry = (*exe)->lookup("encode" + std::to_string(f));
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    std::vector<uint8_t> q((512 * fmt.bits + 7) / 8, 0xA5),
        r((512 * fmt.bits + 7) / 8, 0xA5);
    float *px = x.data();
    uint16_t *ph = h.data();
    uint8_t *pq = q.data(), *pr = r.data();
    void *args[] = {&px, &ph, &pq, &pr};
    ASSERT_FALSE(bool(runGrid(*entry, args, {1, 1, 1})));
    for (uint32_t i = 0; i < 512; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &x[i], 4);
      ASSERT_EQ(unpackBits(q, i, fmt.bits), tile_num_convert(bits, f32Id, id))
          << fmt.name << " x=" << x[i];
      ASSERT_EQ(unpackBits(r, i, fmt.bits), tile_num_convert(h[i], f16Id, id))
          << fmt.name << " f16 x=" << f16Value(h[i]);
    }
  }
}

const char *kRounding = R"mlir(
func.func @round(%x: !tile.ptr<f32>, %h: !tile.ptr<f16>, %b: !tile.ptr<bf16>,
                 %q: !tile.ptr<f8E5M2>, %i: !tile.ptr<i32>, %s: !tile.ptr<i4>,
                 %u: !tile.ptr<i4>, %w: !tile.ptr<f16>, %g: !tile.ptr<f32>,
                 %n: i32)
    attributes {tile.kernel, tile.grid = ["cdiv(N, 128)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c128 = arith.constant 128 : i32
  %o = arith.muli %pid, %c128 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vh = tile.view %h(%n) : !tile.ptr<f16> -> !tile.view<?xf16>
  %vb = tile.view %b(%n) : !tile.ptr<bf16> -> !tile.view<?xbf16>
  %vq = tile.view %q(%n) : !tile.ptr<f8E5M2> -> !tile.view<?xf8E5M2>
  %vi = tile.view %i(%n) : !tile.ptr<i32> -> !tile.view<?xi32>
  %vs = tile.view %s(%n) : !tile.ptr<i4> -> !tile.view<?xi4>
  %vu = tile.view %u(%n) : !tile.ptr<i4> -> !tile.view<?xi4>
  %vw = tile.view %w(%n) : !tile.ptr<f16> -> !tile.view<?xf16>
  %t = tile.load %vx[%o] : !tile.view<?xf32> -> tensor<128xf32>
  %th = tile.cast %t : tensor<128xf32> -> tensor<128xf16>
  %tb = tile.cast %t : tensor<128xf32> -> tensor<128xbf16>
  %tq = tile.cast %t : tensor<128xf32> -> tensor<128xf8E5M2>
  %ti = tile.cast %t : tensor<128xf32> -> tensor<128xi32>
  tile.store %vh[%o], %th : !tile.view<?xf16>, tensor<128xf16>
  tile.store %vb[%o], %tb : !tile.view<?xbf16>, tensor<128xbf16>
  tile.store %vq[%o], %tq : !tile.view<?xf8E5M2>, tensor<128xf8E5M2>
  tile.store %vi[%o], %ti : !tile.view<?xi32>, tensor<128xi32>
  %ts = tile.cast %ti : tensor<128xi32> -> tensor<128xi4>
  %tu = tile.cast %ti {dst_unsigned} : tensor<128xi32> -> tensor<128xi4>
  %tw = tile.cast %ti : tensor<128xi32> -> tensor<128xf16>
  tile.store %vs[%o], %ts : !tile.view<?xi4>, tensor<128xi4>
  tile.store %vu[%o], %tu : !tile.view<?xi4>, tensor<128xi4>
  tile.store %vw[%o], %tw : !tile.view<?xf16>, tensor<128xf16>
  %big = arith.constant dense<16777217> : tensor<128xi32>
  %tj = arith.addi %ti, %big : tensor<128xi32>
  %tg = tile.cast %tj : tensor<128xi32> -> tensor<128xf32>
  %vg = tile.view %g(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  tile.store %vg[%o], %tg : !tile.view<?xf32>, tensor<128xf32>
  return
}
)mlir";

TEST(HostNumerics, RoundingMatchesNumerics) {
  Compiled kernel;
  ASSERT_TRUE(compile(kRounding, "round", kernel));
  std::vector<float> x = randomFloats(1000, 61);
  std::mt19937 gen(67);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(x[i], int(gen() % 80) - 40);
  const float specials[] = {
      0.0f,     -0.0f,    INFINITY, -INFINITY, NAN,   -NAN,  1e6f,
      -1e6f,    65504.0f, 65520.0f, 65519.99f, 3e38f, 1e-8f, -1e-8f,
      5.96e-8f, 2.98e-8f, 2.5f,     -2.5f,     7.5f,  8.5f,  2147483520.0f,
      3e9f,     -3e9f,    0.5f,     -0.5f,     1.5f};
  std::copy(std::begin(specials), std::end(specials), x.begin());
  // Quiet NaN with a payload.
  uint32_t payload = 0x7FC12345;
  std::memcpy(&x[40], &payload, 4);
  uint32_t n = uint32_t(x.size());
  std::vector<uint16_t> h(n), bf(n), w(n);
  std::vector<uint8_t> q(n), s((n * 4 + 7) / 8), u((n * 4 + 7) / 8);
  std::vector<int32_t> iv(n);
  float *px = x.data();
  uint16_t *ph = h.data(), *pb = bf.data(), *pw = w.data();
  uint8_t *pq = q.data(), *ps = s.data(), *pu = u.data();
  int32_t *pi = iv.data();
  int32_t dn = int32_t(n);
  std::vector<float> g(n);
  float *pg = g.data();
  void *args[] = {&px, &ph, &pb, &pq, &pi, &ps, &pu, &pw, &pg, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 128), 1, 1}));
  uint32_t f32 = tile_num_format_id("f32"), f16 = tile_num_format_id("f16"),
           bf16 = tile_num_format_id("bf16"),
           e5m2 = tile_num_format_id("f8e5m2"), i32 = tile_num_format_id("i32"),
           i4 = tile_num_format_id("i4"), u4 = tile_num_format_id("u4");
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t bits;
    std::memcpy(&bits, &x[k], 4);
    ASSERT_EQ(h[k], tile_num_convert(bits, f32, f16)) << "x=" << x[k];
    ASSERT_EQ(bf[k], tile_num_convert(bits, f32, bf16)) << "x=" << x[k];
    ASSERT_EQ(q[k], tile_num_convert(bits, f32, e5m2)) << "x=" << x[k];
    uint32_t icode = tile_num_convert(bits, f32, i32);
    ASSERT_EQ(uint32_t(iv[k]), icode) << "x=" << x[k];
    ASSERT_EQ(unpackBits(s, k, 4), tile_num_convert(icode, i32, i4))
        << "i=" << iv[k];
    ASSERT_EQ(unpackBits(u, k, 4), tile_num_convert(icode, i32, u4))
        << "i=" << iv[k];
    ASSERT_EQ(w[k], tile_num_convert(icode, i32, f16)) << "i=" << iv[k];
    uint32_t shifted = icode + 16777217u; // wraps like arith.addi
    uint32_t gbits;
    std::memcpy(&gbits, &g[k], 4);
    ASSERT_EQ(gbits, tile_num_convert(shifted, i32, f32))
        << "i=" << int32_t(shifted);
  }
}

//===----------------------------------------------------------------------===//
// bf16, explicit strides, math on tiles
//===----------------------------------------------------------------------===//

const char *kStrided = R"mlir(
func.func @strided_bf16(%x: !tile.ptr<bf16> {tile.name = "x", tile.dtype = "bf16", tile.shape = ["N", "M"]},
                        %o: !tile.ptr<bf16> {tile.name = "o", tile.dtype = "bf16", tile.shape = ["M", "N"], tile.mut},
                        %m: i32 {tile.dim = "M"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 8)", "cdiv(M, 8)", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %r0 = arith.muli %py, %c8 : i32
  %q0 = arith.muli %px, %c8 : i32
  %vx = tile.view %x(%m, %n) strides(%c1, %m) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vo = tile.view %o(%m, %n) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %vx[%r0, %q0] : !tile.view<?x?xbf16> -> tensor<8x8xbf16>
  %f = tile.cast %t : tensor<8x8xbf16> -> tensor<8x8xf32>
  %e = math.tanh %f : tensor<8x8xf32>
  %b = tile.cast %e : tensor<8x8xf32> -> tensor<8x8xbf16>
  %s = arith.addf %b, %t : tensor<8x8xbf16>
  tile.store %vo[%r0, %q0], %s : !tile.view<?x?xbf16>, tensor<8x8xbf16>
  return
}
)mlir";

uint16_t toBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

double bf16Value(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(HostExecution, StridedViewBF16) {
  Compiled kernel;
  ASSERT_TRUE(compile(kStrided, "strided_bf16", kernel));
  uint32_t m = 11, n = 19;
  std::vector<float> xf = randomFloats(size_t(m) * n, 47);
  // x is column-major: element (i, j) at j * m + i.
  std::vector<uint16_t> x(xf.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = toBF16(xf[i]);
  std::vector<uint16_t> o(size_t(m) * n + 5, 0xBEEF);
  uint16_t *px = x.data(), *po = o.data();
  int32_t dm = int32_t(m), dn = int32_t(n);
  void *args[] = {&px, &po, &dm, &dn};
  ASSERT_TRUE(run(kernel, args, {cdiv(n, 8), cdiv(m, 8), 1}));
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      double v = bf16Value(x[j * m + i]);
      double want = bf16Value(toBF16(float(std::tanh(v)))) + v;
      double got = bf16Value(o[i * n + j]);
      // Two bf16 roundings (tanh, then the sum): within 2 ulp of 2^-8.
      ASSERT_NEAR(got, want, std::ldexp(std::fabs(want), -7) + 1e-30)
          << i << "," << j;
    }
  for (size_t i = size_t(m) * n; i < o.size(); ++i)
    ASSERT_EQ(o[i], 0xBEEF);
}

//===----------------------------------------------------------------------===//
// No buffer leaks across loop iterations
//===----------------------------------------------------------------------===//

TEST(HostExecution, LoopsDoNotLeak) {
  Compiled kernel;
  ASSERT_TRUE(compile(kGemm, "gemm", kernel));
  uint32_t m = 16, n = 16, k = 1024; // 128 iterations of the K loop
  std::vector<uint16_t> a(size_t(m) * k, 0x3C00), b(size_t(k) * n, 0x3800);
  std::vector<float> c(size_t(m) * n, kPoison);
  uint16_t *pa = a.data(), *pb = b.data();
  float *pc = c.data();
  int32_t dm = int32_t(m), dk = int32_t(k), dn = int32_t(n);
  void *args[] = {&pa, &pb, &pc, &dm, &dk, &dn};
  ASSERT_TRUE(run(kernel, args, {1, 1, 1}, 1)); // warm up in this thread
  size_t before = mallinfo2().uordblks;
  for (int rep = 0; rep < 4; ++rep)
    ASSERT_TRUE(run(kernel, args, {1, 1, 1}, 1));
  size_t after = mallinfo2().uordblks;
  // One leaked tile per iteration would be >= 512 KB here.
  EXPECT_LT(after, before + 4096) << "bytes in use grew by " << after - before;
  for (float v : c)
    ASSERT_EQ(v, 512.0f); // 1024 x (1 * 0.5)
}

//===----------------------------------------------------------------------===//
// Object files and shared objects
//===----------------------------------------------------------------------===//

TEST(HostExecution, SharedObjectRunsThroughDlopen) {
  mlir::DialectRegistry registry;
  registry.insert<tile::TileDialect>();
  registerHostCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kVectorAdd, &context);
  ASSERT_TRUE(module);
  llvm::Error lowered = lowerToHostLLVM(*module);
  ASSERT_FALSE(bool(lowered)) << llvm::toString(std::move(lowered));

  llvm::SmallString<128> object, library;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("host-test", "o", object));
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("host-test", "so", library));
  llvm::FileRemover removeObject(object), removeLibrary(library);
  llvm::Error written = emitHostObject(*module, object);
  ASSERT_FALSE(bool(written)) << llvm::toString(std::move(written));
  auto buffer = llvm::MemoryBuffer::getFile(object);
  ASSERT_TRUE(bool(buffer));
  ASSERT_TRUE((*buffer)->getBuffer().starts_with("\x7f"
                                                 "ELF"));

  llvm::Error linked = emitHostSharedObject(*module, library);
  if (linked) {
    std::string message = llvm::toString(std::move(linked));
    if (message.find("ld.lld was not found") != std::string::npos)
      GTEST_SKIP() << message;
    FAIL() << message;
  }
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto entry = reinterpret_cast<KernelEntry>(dlsym(handle, "vadd"));
  ASSERT_NE(entry, nullptr) << dlerror();
  EXPECT_EQ(dlsym(handle, "__tile_host_impl_vadd"), nullptr)
      << "the kernel body should be internal";
  uint32_t n = 300;
  std::vector<float> x = randomFloats(n, 53), y = randomFloats(n, 59);
  std::vector<float> z(n + 8, kPoison);
  float *px = x.data(), *py = y.data(), *pz = z.data();
  int32_t dn = int32_t(n);
  void *args[] = {&px, &py, &pz, &dn};
  llvm::Error ran = runGrid(entry, args, {cdiv(n, 64), 1, 1});
  ASSERT_FALSE(bool(ran)) << llvm::toString(std::move(ran));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;
  for (uint32_t i = n; i < n + 8; ++i)
    ASSERT_EQ(z[i], kPoison);
  dlclose(handle);
}

//===----------------------------------------------------------------------===//
// 3-D grids, scalar parameters, f16 accumulation
//===----------------------------------------------------------------------===//

const char *kGrid = R"mlir(
func.func @grid(%o: !tile.ptr<f32> {tile.name = "o", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                %alpha: f32 {tile.name = "alpha", tile.dtype = "f32"},
                %bias: i32 {tile.name = "bias", tile.dtype = "i32"},
                %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["2", "3", "4"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %pz = tile.program_id z : i32
  %nx = tile.num_programs x : i32
  %ny = tile.num_programs y : i32
  %nz = tile.num_programs z : i32
  %t1 = arith.muli %pz, %ny : i32
  %t2 = arith.addi %t1, %py : i32
  %t3 = arith.muli %t2, %nx : i32
  %lin = arith.addi %t3, %px : i32
  %c100 = arith.constant 100 : i32
  %c10 = arith.constant 10 : i32
  %a = arith.muli %pz, %c100 : i32
  %b = arith.muli %py, %c10 : i32
  %ab = arith.addi %a, %b : i32
  %abc = arith.addi %ab, %px : i32
  %tot = arith.muli %nx, %ny : i32
  %tot2 = arith.muli %tot, %nz : i32
  %code = arith.addi %abc, %bias : i32
  %code2 = arith.muli %code, %tot2 : i32
  %f = tile.cast %code2 : i32 -> f32
  %v = arith.mulf %f, %alpha : f32
  %vo = tile.view %o(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %s = tile.splat %v : f32 -> tensor<1xf32>
  tile.store %vo[%lin], %s : !tile.view<?xf32>, tensor<1xf32>
  return
}

func.func @dot_f16_acc(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f16>)
    attributes {tile.kernel, tile.grid = ["1", "1", "1"]} {
  %z = arith.constant 0 : i32
  %va = tile.view %a() : !tile.ptr<f16> -> !tile.view<8x16xf16>
  %vb = tile.view %b() : !tile.ptr<f16> -> !tile.view<16x8xf16>
  %vc = tile.view %c() : !tile.ptr<f16> -> !tile.view<8x8xf16>
  %ta = tile.load %va[%z, %z] : !tile.view<8x16xf16> -> tensor<8x16xf16>
  %tb = tile.load %vb[%z, %z] : !tile.view<16x8xf16> -> tensor<16x8xf16>
  %tc = tile.load %vc[%z, %z] : !tile.view<8x8xf16> -> tensor<8x8xf16>
  %d = tile.dot %ta, %tb, %tc : tensor<8x16xf16>, tensor<16x8xf16>, tensor<8x8xf16> -> tensor<8x8xf16>
  tile.store %vc[%z, %z], %d : !tile.view<8x8xf16>, tensor<8x8xf16>
  return
}
)mlir";

TEST(HostExecution, ThreeDimensionalGridAndScalars) {
  Compiled kernel;
  ASSERT_TRUE(compile(kGrid, "grid", kernel));
  uint32_t n = 2 * 3 * 4;
  std::vector<float> o(n + 4, kPoison);
  float *po = o.data();
  float alpha = 0.5f;
  int32_t bias = 7, dn = int32_t(n);
  void *args[] = {&po, &alpha, &bias, &dn};
  ASSERT_TRUE(run(kernel, args, {2, 3, 4}));
  for (uint32_t z = 0; z < 4; ++z)
    for (uint32_t y = 0; y < 3; ++y)
      for (uint32_t x = 0; x < 2; ++x) {
        uint32_t lin = (z * 3 + y) * 2 + x;
        double want = double(100 * z + 10 * y + x + bias) * n * alpha;
        ASSERT_EQ(o[lin], float(want)) << x << "," << y << "," << z;
      }
  for (uint32_t i = n; i < n + 4; ++i)
    ASSERT_EQ(o[i], kPoison);
}

TEST(HostExecution, DotWithF16Accumulator) {
  Compiled kernel;
  ASSERT_TRUE(compile(kGrid, "dot_f16_acc", kernel));
  std::vector<float> af = randomFloats(8 * 16, 71),
                     bf = randomFloats(16 * 8, 73),
                     cf = randomFloats(8 * 8, 79);
  std::vector<uint16_t> a(af.size()), b(bf.size()), c(cf.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = f16Bits(af[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = f16Bits(bf[i]);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = f16Bits(cf[i]);
  std::vector<uint16_t> c0 = c;
  uint16_t *pa = a.data(), *pb = b.data(), *pc = c.data();
  void *args[] = {&pa, &pb, &pc};
  ASSERT_TRUE(run(kernel, args, {1, 1, 1}));
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t j = 0; j < 8; ++j) {
      double want = f16Value(c0[i * 8 + j]), scale = std::fabs(want);
      for (uint32_t p = 0; p < 16; ++p) {
        double prod = f16Value(a[i * 16 + p]) * f16Value(b[p * 8 + j]);
        want += prod;
        scale += std::fabs(prod);
      }
      // Accumulated in f32, rounded once to f16.
      ASSERT_NEAR(f16Value(c[i * 8 + j]), want,
                  std::ldexp(std::fabs(want), -11) + 1e-5 * scale)
          << i << "," << j;
    }
}

//===----------------------------------------------------------------------===//
// Compiling and running from several threads at once
//===----------------------------------------------------------------------===//

TEST(HostExecution, ConcurrentCompileAndRun) {
  constexpr unsigned kThreads = 3;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &failures] {
      auto exe = HostExecutable::createFromSource(kVectorAdd);
      if (!exe) {
        failures[t] = llvm::toString(exe.takeError());
        return;
      }
      auto entry = (*exe)->lookup("vadd");
      if (!entry) {
        failures[t] = llvm::toString(entry.takeError());
        return;
      }
      uint32_t n = 200 + 37 * t;
      std::vector<float> x = randomFloats(n, 83 + t),
                         y = randomFloats(n, 89 + t), z(n, kPoison);
      float *px = x.data(), *py = y.data(), *pz = z.data();
      int32_t dn = int32_t(n);
      void *args[] = {&px, &py, &pz, &dn};
      if (llvm::Error error = runGrid(*entry, args, {cdiv(n, 64), 1, 1}, 2)) {
        failures[t] = llvm::toString(std::move(error));
        return;
      }
      for (uint32_t i = 0; i < n; ++i)
        if (z[i] != x[i] + y[i]) {
          failures[t] = "wrong result at " + std::to_string(i);
          return;
        }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (unsigned t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(HostExecution, ErrorsAreReported) {
  auto bad = HostExecutable::createFromSource("func.func @k( {");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("cannot parse"),
            std::string::npos);

  Compiled kernel;
  ASSERT_TRUE(compile(kVectorAdd, "vadd", kernel));
  auto missing = kernel.exe->lookup("no_such_kernel");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("no_such_kernel"),
            std::string::npos);
  llvm::Error noEntry = runGrid(nullptr, nullptr, {1, 1, 1});
  EXPECT_TRUE(bool(noEntry));
  llvm::consumeError(std::move(noEntry));
}

} // namespace
