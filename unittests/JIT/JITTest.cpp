//===- JITTest.cpp - The compiler as a library ----------------------------===//
//
// Compiles .tile source at run time for the host, launches it through the
// runtime on random inputs (outputs poisoned first) and compares with plain
// loops; checks the in-memory and on-disk caches, their invalidation,
// concurrent use and the errors.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/JIT.h"
#include "tile/Numerics/CAPI.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

using namespace tile;
using namespace tile::jit;
using tile::test::randomFloats;

namespace {

// Keeps the Numerics C ABI in the test binary, exported for host kernels.
[[maybe_unused]] auto *keepNumerics = &tile_num_convert;

const char *kVectorAdd = R"(
kernel vector_add<BLOCK: int = 1024>(x: f32[N], y: f32[N], z: mut f32[N])
    grid(cdiv(N, BLOCK)) warps 4
{
    let i0 = program_id(0) * BLOCK;
    store(z[i0 : i0 + BLOCK], load(x[i0 : i0 + BLOCK]) + load(y[i0 : i0 + BLOCK]));
}
)";

const char *kScaleRows = R"(
kernel scale_rows<ROWS: int = 2, COLS: int = 64>(x: f32[M, N], s: f32, y: mut f16[M, N])
    grid(cdiv(M, ROWS)) warps 4
{
    let r0 = program_id(0) * ROWS;
    let t = load(x[r0 : r0 + ROWS, 0 : COLS]);
    store(y[r0 : r0 + ROWS, 0 : COLS], cast(f16, t * s - max(t, 1)[:, None]));
}
)";

/// A private cache folder, removed at the end of the test.
struct TempDir : tile::test::TempDir {
  TempDir() : tile::test::TempDir("tile-jit-test") {}
};

rt::Buffer upload(rt::Device &device, const void *data, size_t bytes) {
  auto buffer = device.allocate(bytes);
  EXPECT_TRUE(bool(buffer)) << buffer.message();
  EXPECT_FALSE(bool(buffer->upload(data, bytes)));
  return *buffer;
}

/// Runs vector_add with N elements through \p compiler and checks it.
void checkVectorAdd(Compiler &compiler, int64_t n, const CompileOptions &opts) {
  auto compiled =
      compiler.compileKernel(kVectorAdd, "vector_add.tile", "vector_add", opts);
  ASSERT_TRUE(bool(compiled)) << compiled.message();
  auto device = rt::Device::open("host");
  ASSERT_TRUE(bool(device)) << device.message();
  auto kernel = compiler.load(**compiled, *device);
  ASSERT_TRUE(bool(kernel)) << kernel.message();

  std::vector<float> x = randomFloats(n, 1 + n), y = randomFloats(n, 2 + n);
  rt::Buffer bx = upload(*device, x.data(), n * 4);
  rt::Buffer by = upload(*device, y.data(), n * 4);
  auto bz = device->allocate(n * 4);
  ASSERT_TRUE(bool(bz));
  ASSERT_FALSE(bool(bz->fill(0xFF))); // poison: NaN everywhere
  rt::Error err =
      kernel->launch({rt::ArgValue::tensor(bx.address(), n * 4, {n}, "f32"),
                      rt::ArgValue::tensor(by.address(), n * 4, {n}, "f32"),
                      rt::ArgValue::tensor(bz->address(), n * 4, {n}, "f32")});
  ASSERT_FALSE(bool(err)) << err.message();
  std::vector<float> z(n);
  ASSERT_FALSE(bool(bz->download(z.data(), n * 4)));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << "element " << i << " of " << n;
}

TEST(JIT, VectorAddRunsOnTheHost) {
  TempDir cache;
  Compiler compiler({cache.str(), true});
  CompileOptions opts;
  for (int64_t n : {1, 1000, 1024, 4097})
    checkVectorAdd(compiler, n, opts);
  opts.defines["BLOCK"] = "128";
  checkVectorAdd(compiler, 1000, opts);
}

TEST(JIT, TwoDimensionalKernelWithScalarAndCast) {
  Compiler compiler({"", false});
  auto compiled = compiler.compileKernel(kScaleRows, "scale_rows.tile",
                                         "scale_rows", CompileOptions());
  ASSERT_TRUE(bool(compiled)) << compiled.message();
  auto device = rt::Device::open("host");
  auto kernel = compiler.load(**compiled, *device);
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  const int64_t m = 5, n = 50; // N < COLS: masked columns
  std::vector<float> x = randomFloats(m * n, 9);
  rt::Buffer bx = upload(*device, x.data(), x.size() * 4);
  auto by = device->allocate(m * n * 2);
  ASSERT_FALSE(bool(by->fill(0xFF)));
  const float s = 1.75f;
  rt::Error err = kernel->launch(
      {rt::ArgValue::tensor(bx.address(), m * n * 4, {m, n}, "f32"),
       rt::ArgValue::scalar(s),
       rt::ArgValue::tensor(by->address(), m * n * 2, {m, n}, "f16")});
  ASSERT_FALSE(bool(err)) << err.message();
  std::vector<uint16_t> y(m * n);
  ASSERT_FALSE(bool(by->download(y.data(), y.size() * 2)));
  for (int64_t r = 0; r < m; ++r) {
    // Out-of-range columns read as 0, so the row max includes 0.
    double rowMax = 0;
    for (int64_t c = 0; c < n; ++c)
      rowMax = std::max(rowMax, double(x[r * n + c]));
    for (int64_t c = 0; c < n; ++c) {
      float value = x[r * n + c] * s - float(rowMax);
      EXPECT_EQ(y[r * n + c], tile_num_f32_to_f16(value))
          << "row " << r << " col " << c;
    }
  }
}

TEST(JIT, MemoryCacheHitsAndInvalidation) {
  Compiler compiler({"", false});
  CompileOptions opts;
  ASSERT_TRUE(bool(compiler.compile(kVectorAdd, "a.tile", opts)));
  ASSERT_TRUE(bool(compiler.compile(kVectorAdd, "a.tile", opts)));
  EXPECT_EQ(compiler.stats().Compilations, 1u);
  EXPECT_EQ(compiler.stats().MemoryHits, 1u);
  // Another override, another target option, another source: recompiled.
  opts.defines["BLOCK"] = "256";
  ASSERT_TRUE(bool(compiler.compile(kVectorAdd, "a.tile", opts)));
  std::string changed = std::string(kVectorAdd) + "\n// changed\n";
  ASSERT_TRUE(bool(compiler.compile(changed, "a.tile", opts)));
  opts.optimize = false;
  ASSERT_TRUE(bool(compiler.compile(changed, "a.tile", opts)));
  EXPECT_EQ(compiler.stats().Compilations, 4u);
  EXPECT_EQ(compiler.stats().MemoryHits, 1u);
}

TEST(JIT, BuildIdentityIsTheHashOfTheBinary) {
  // The JIT is linked statically into this test, so the compiler's binary
  // is the test executable itself.
  auto self = llvm::MemoryBuffer::getFile("/proc/self/exe", /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  ASSERT_TRUE(bool(self));
  char expected[17];
  snprintf(
      expected, sizeof(expected), "%016llx",
      static_cast<unsigned long long>(llvm::xxh3_64bits((*self)->getBuffer())));
  EXPECT_EQ(Compiler::buildIdentity(), expected);
}

TEST(JIT, CacheKeysSeparateEveryInput) {
  CompileOptions a, b;
  b.defines["BLOCK"] = "1";
  EXPECT_NE(Compiler::cacheKey("src", a, ""), Compiler::cacheKey("src", b, ""));
  EXPECT_NE(Compiler::cacheKey("src", a, ""),
            Compiler::cacheKey("src2", a, ""));
  EXPECT_NE(Compiler::cacheKey("src", a, ""),
            Compiler::cacheKey("src", a, "k"));
  CompileOptions c = a;
  c.target = "sm_90a";
  EXPECT_NE(Compiler::cacheKey("src", a, ""), Compiler::cacheKey("src", c, ""));
  EXPECT_EQ(Compiler::cacheKey("src", a, ""), Compiler::cacheKey("src", a, ""));
  // Field boundaries are unambiguous: ("ab", "c") differs from ("a", "bc").
  CompileOptions d, e;
  d.defines["ab"] = "c";
  e.defines["a"] = "bc";
  EXPECT_NE(Compiler::cacheKey("s", d, ""), Compiler::cacheKey("s", e, ""));
}

TEST(JIT, DiskCacheSurvivesTheCompiler) {
  TempDir cache;
  CompileOptions opts;
  {
    Compiler first({cache.str(), true});
    ASSERT_TRUE(bool(first.compileKernel(kVectorAdd, "vector_add.tile",
                                         "vector_add", opts)));
    EXPECT_EQ(first.stats().Compilations, 1u);
  }
  Compiler second({cache.str(), true});
  checkVectorAdd(second, 3000, opts);
  EXPECT_EQ(second.stats().Compilations, 0u);
  EXPECT_EQ(second.stats().DiskHits, 1u);
}

TEST(JIT, ConcurrentUseIsSafe) {
  TempDir cache;
  Compiler compiler({cache.str(), true});
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      CompileOptions opts;
      opts.defines["BLOCK"] = i % 2 ? "256" : "512";
      auto k = compiler.compile(kVectorAdd, "a.tile", opts);
      if (!k)
        errors[i] = k.message();
    });
  for (auto &t : threads)
    t.join();
  for (const std::string &e : errors)
    EXPECT_EQ(e, "");
  Compiler::Stats stats = compiler.stats();
  // Two distinct requests; each compiled at most once per thread racing.
  EXPECT_GE(stats.Compilations + stats.MemoryHits + stats.DiskHits, 4u);
  EXPECT_EQ(compiler
                .compile(kVectorAdd, "a.tile",
                         [] {
                           CompileOptions o;
                           o.defines["BLOCK"] = "256";
                           return o;
                         }())
                ->size(),
            1u);
  checkVectorAdd(compiler, 777, [] {
    CompileOptions o;
    o.defines["BLOCK"] = "512";
    return o;
  }());
}

TEST(JIT, ErrorsCarrySourceLocations) {
  Compiler compiler({"", false});
  auto bad = compiler.compile("kernel k() grid(1) warps 4 { let x = ; }",
                              "bad.tile", CompileOptions());
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(bad.message().find("bad.tile:1:"), std::string::npos)
      << bad.message();
  CompileOptions unknown;
  unknown.target = "sm_70";
  auto noTarget = compiler.compile(kVectorAdd, "a.tile", unknown);
  ASSERT_FALSE(bool(noTarget));
  EXPECT_NE(noTarget.message().find("unknown target 'sm_70'"),
            std::string::npos)
      << noTarget.message();
  auto noKernel =
      compiler.compileKernel(kVectorAdd, "a.tile", "nope", CompileOptions());
  ASSERT_FALSE(bool(noKernel));
}

TEST(JIT, BundlesRoundTrip) {
  TempDir dir;
  Compiler compiler({"", false});
  auto kernels = compiler.compile(kVectorAdd, "a.tile", CompileOptions());
  ASSERT_TRUE(bool(kernels)) << kernels.message();
  ASSERT_FALSE(bool(writeBundle(dir.str(), *kernels)));
  auto bundle = rt::Bundle::load(dir.str());
  ASSERT_TRUE(bool(bundle)) << bundle.message();
  ASSERT_EQ(bundle->manifest().Kernels.size(), 1u);
  const rt::KernelInfo &info = bundle->manifest().Kernels[0];
  EXPECT_EQ(info.name(), "vector_add");
  EXPECT_EQ(info.Signature.Grid[0], "cdiv(N, 1024)");
  ASSERT_EQ(info.Signature.Params.size(), 4u);
  EXPECT_EQ(info.Signature.Params[3].Kind, rt::ParamKind::Dim);
  EXPECT_TRUE(info.Signature.Params[2].Mut);
  auto device = rt::Device::open("host");
  auto kernel = bundle->loadKernel(*device, info);
  EXPECT_TRUE(bool(kernel)) << kernel.message();
}

} // namespace

//===----------------------------------------------------------------------===//
// The C API: compile with tile_jit.h, launch with tile_runtime.h.
//===----------------------------------------------------------------------===//

#include "tile/runtime/tile_runtime.h"
#include "tile/tile_jit.h"

namespace {

TEST(JITCApi, CompileLoadAndLaunch) {
  TempDir cache;
  tile_jit *jit = tile_jit_create(cache.str().c_str());
  ASSERT_NE(jit, nullptr) << tile_jit_last_error();
  const char *defines[] = {"BLOCK=128"};
  char dir[4096];
  ASSERT_EQ(tile_jit_compile(jit, kVectorAdd, "add.tile", "vector_add", "host",
                             defines, 1, dir, sizeof dir),
            0)
      << tile_jit_last_error();

  tile_device *device = tile_device_open("host");
  ASSERT_NE(device, nullptr) << tile_last_error();
  tile_bundle *bundle = tile_bundle_load(device, dir);
  ASSERT_NE(bundle, nullptr) << tile_last_error();
  ASSERT_EQ(tile_bundle_num_kernels(bundle), 1u);
  EXPECT_STREQ(tile_bundle_kernel_name(bundle, 0), "vector_add");

  const int64_t n = 300;
  std::vector<float> x = randomFloats(n, 11), y = randomFloats(n, 12), z(n);
  tile_buffer *bx = tile_buffer_create(device, n * 4);
  tile_buffer *by = tile_buffer_create(device, n * 4);
  tile_buffer *bz = tile_buffer_create(device, n * 4);
  ASSERT_EQ(tile_buffer_upload(bx, x.data(), n * 4, 0), 0);
  ASSERT_EQ(tile_buffer_upload(by, y.data(), n * 4, 0), 0);
  std::vector<float> poison(n, std::nanf(""));
  ASSERT_EQ(tile_buffer_upload(bz, poison.data(), n * 4, 0), 0);
  tile_arg args[3] = {{1, bx, &n, 1, "f32", 0},
                      {1, by, &n, 1, "f32", 0},
                      {1, bz, &n, 1, "f32", 0}};
  ASSERT_EQ(tile_launch(bundle, "vector_add", args, 3), 0) << tile_last_error();
  ASSERT_EQ(tile_buffer_download(bz, z.data(), n * 4, 0), 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;

  tile_buffer_free(bx);
  tile_buffer_free(by);
  tile_buffer_free(bz);
  tile_bundle_free(bundle);
  tile_device_close(device);
  tile_jit_destroy(jit);
}

TEST(JITCApi, TmaFlagMakesTmaKernels) {
  // A pipelined wgmma loop of two 2-D operands: with TILE_JIT_TMA its copies
  // are TMA (the bundle's manifest lists the tensor maps the kernel takes),
  // without it cp.async. PTX only (TILE_PTXAS=none), so no ptxas is needed.
  const char *gemm = R"(
kernel mm<BM: int = 128, BN: int = 64, BK: int = 64>(
    A: f16[M, K], B: f16[K, N], C: mut f32[M, N])
    grid(cdiv(N, BN), cdiv(M, BM)) warps 4
{
    var acc = zeros(f32, [BM, BN]);
    for k in 0 .. K step BK pipeline 3 {
        acc = dot(load(A[program_id(1) * BM : program_id(1) * BM + BM, k : k + BK]),
                  load(B[k : k + BK, program_id(0) * BN : program_id(0) * BN + BN]), acc);
    }
    store(C[program_id(1) * BM : program_id(1) * BM + BM,
            program_id(0) * BN : program_id(0) * BN + BN], acc);
}
)";
  const char *saved = std::getenv("TILE_PTXAS");
  std::string restore = saved ? saved : "";
  setenv("TILE_PTXAS", "none", 1);
  TempDir cache;
  tile_jit *jit = tile_jit_create(cache.str().c_str());
  ASSERT_NE(jit, nullptr) << tile_jit_last_error();
  auto manifest = [&]() -> std::string {
    char dir[4096];
    if (tile_jit_compile(jit, gemm, "mm.tile", "mm", "sm_90a", nullptr, 0, dir,
                         sizeof dir) != 0)
      return std::string("error: ") + tile_jit_last_error();
    std::ifstream in(std::string(dir) + "/manifest.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string plain = manifest();
  ASSERT_EQ(tile_jit_set_flags(jit, TILE_JIT_TMA), 0) << tile_jit_last_error();
  std::string tma = manifest();
  EXPECT_EQ(tile_jit_set_flags(jit, 0x10), -1);
  EXPECT_NE(std::string(tile_jit_last_error()).find("unknown flags 16"),
            std::string::npos)
      << tile_jit_last_error();
  std::string still = manifest(); // the bad call changed nothing
  // With a producer warpgroup: 4 + 4 warps, 256 threads.
  ASSERT_EQ(tile_jit_set_flags(jit, TILE_JIT_WARP_SPECIALIZE), 0)
      << tile_jit_last_error();
  std::string specialized = manifest();
  // Persistent: the manifest says so.
  ASSERT_EQ(tile_jit_set_flags(jit, TILE_JIT_PERSISTENT), 0)
      << tile_jit_last_error();
  std::string persistent = manifest();
  // Dependent launch: the manifest says so (and the cache keeps the two
  // compiles apart).
  ASSERT_EQ(tile_jit_set_flags(jit, TILE_JIT_DEPENDENT_LAUNCH), 0)
      << tile_jit_last_error();
  std::string dependent = manifest();
  tile_jit_destroy(jit);
  if (saved)
    setenv("TILE_PTXAS", restore.c_str(), 1);
  else
    unsetenv("TILE_PTXAS");
  EXPECT_NE(plain.find("\"kernels\""), std::string::npos) << plain;
  EXPECT_EQ(plain.find("tensor_maps"), std::string::npos) << plain;
  EXPECT_NE(tma.find("tensor_maps"), std::string::npos) << tma;
  EXPECT_NE(still.find("tensor_maps"), std::string::npos) << still;
  EXPECT_NE(tma.find("\"threads_per_block\": 128"), std::string::npos) << tma;
  EXPECT_NE(specialized.find("tensor_maps"), std::string::npos) << specialized;
  EXPECT_NE(specialized.find("\"threads_per_block\": 256"), std::string::npos)
      << specialized;
  EXPECT_EQ(specialized.find("persistent"), std::string::npos) << specialized;
  EXPECT_NE(persistent.find("\"persistent\": true"), std::string::npos)
      << persistent;
  EXPECT_EQ(plain.find("dependent_launch"), std::string::npos) << plain;
  EXPECT_NE(dependent.find("\"dependent_launch\": true"), std::string::npos)
      << dependent;
  EXPECT_EQ(tile_jit_set_flags(nullptr, 0), -1);
}

TEST(JITCApi, ErrorsAreReported) {
  TempDir cache;
  tile_jit *jit = tile_jit_create(cache.str().c_str());
  char dir[16];
  const char *bad[] = {"BLOCK"};
  EXPECT_EQ(tile_jit_compile(jit, kVectorAdd, "a.tile", "vector_add", "host",
                             bad, 1, dir, sizeof dir),
            -1);
  EXPECT_NE(std::string(tile_jit_last_error()).find("NAME=VALUE"),
            std::string::npos);
  EXPECT_EQ(tile_jit_compile(jit, "kernel", "a.tile", "k", "host", nullptr, 0,
                             dir, sizeof dir),
            -1);
  EXPECT_NE(std::string(tile_jit_last_error()).find("a.tile:1:"),
            std::string::npos)
      << tile_jit_last_error();
  // A buffer too small for the path is an error, not an overflow.
  EXPECT_EQ(tile_jit_compile(jit, kVectorAdd, "a.tile", "vector_add", "host",
                             nullptr, 0, dir, sizeof dir),
            -1);
  EXPECT_NE(std::string(tile_jit_last_error()).find("too small"),
            std::string::npos);
  tile_jit_destroy(jit);
}

} // namespace

namespace {

TEST(JIT, GPUTargetsProduceCodeObjects) {
  Compiler compiler({"", false});
  CompileOptions amd;
  amd.target = "gfx942";
  auto hsaco = compiler.compileKernel(kScaleRows, "s.tile", "scale_rows", amd);
  ASSERT_TRUE(bool(hsaco)) << hsaco.message();
  EXPECT_EQ((*hsaco)->Info.Kind, rt::ObjectKind::Hsaco);
  EXPECT_EQ((*hsaco)->Info.Launch.ThreadsPerBlock, 4u * 64);
  EXPECT_EQ((*hsaco)->Info.Launch.SharedBytes, 0u); // LDS is static on AMD
  const auto &bytes = *(*hsaco)->Object;
  ASSERT_GT(bytes.size(), 64u);
  EXPECT_EQ(std::memcmp(bytes.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ(bytes[18], 0xE0); // e_machine EM_AMDGPU

  CompileOptions nv;
  nv.target = "sm_90a";
  auto cubin = compiler.compileKernel(kScaleRows, "s.tile", "scale_rows", nv);
  if (!cubin &&
      cubin.message().find("ptxas was not found") != std::string::npos)
    GTEST_SKIP() << "ptxas not installed: cubin not checked";
  ASSERT_TRUE(bool(cubin)) << cubin.message();
  EXPECT_EQ((*cubin)->Info.Kind, rt::ObjectKind::Cubin);
  EXPECT_EQ((*cubin)->Info.Launch.ThreadsPerBlock, 4u * 32);
  EXPECT_EQ(std::memcmp((*cubin)->Object->data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ((*cubin)->Object->at(18), 190); // e_machine EM_CUDA
}

TEST(JIT, WithoutPtxasNvidiaCodeIsPtxForTheDriver) {
  // TILE_PTXAS=none: as on a machine with the GPU driver but no CUDA
  // toolkit. The driver's JIT assembles the PTX when the module is loaded.
  const char *saved = std::getenv("TILE_PTXAS");
  std::string restore = saved ? saved : "";
  setenv("TILE_PTXAS", "none", 1);
  Compiler compiler({"", false});
  CompileOptions nv;
  nv.target = "sm_90a";
  auto ptx = compiler.compileKernel(kScaleRows, "s.tile", "scale_rows", nv);
  std::string key = Compiler::cacheKey(kScaleRows, nv, "scale_rows");
  if (saved)
    setenv("TILE_PTXAS", restore.c_str(), 1);
  else
    unsetenv("TILE_PTXAS");
  ASSERT_TRUE(bool(ptx)) << ptx.message();
  EXPECT_EQ((*ptx)->Info.Kind, rt::ObjectKind::Ptx);
  EXPECT_EQ((*ptx)->Info.Registers, -1); // No ptxas, no report.
  EXPECT_EQ((*ptx)->Info.Launch.ThreadsPerBlock, 4u * 32);
  std::string text((*ptx)->Object->begin(), (*ptx)->Object->end());
  EXPECT_NE(text.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(text.find(".entry scale_rows"), std::string::npos);
  EXPECT_NE((*ptx)->Info.Object.find(".ptx"), std::string::npos);
  // A cubin compilation is a different cache entry.
  EXPECT_NE(key, Compiler::cacheKey(kScaleRows, nv, "scale_rows"));
}

} // namespace
