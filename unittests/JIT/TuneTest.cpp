//===- TuneTest.cpp - Autotuning through the JIT and the runtime ----------===//
//
// Part of tilec. The tune space of a kernel, tuning on the host device, the
// JIT's use of the tune cache (hit, miss, tune on miss), the C API, bundles
// whose variants the runtime picks by shape, and the resource figures the
// pruning reads.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/JIT/Tune.h"
#include "tile/Numerics/CAPI.h"
#include "tile/runtime/tile_runtime.h"
#include "tile/tile_jit.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace tile;
using namespace tile::jit;

namespace {

[[maybe_unused]] auto *keepNumerics = &tile_num_convert;

// V says which configuration ran; B = 0 does not compile.
const char *kFill = R"(
kernel fill<B: int = 64, V: int = 0>(y: mut i32[N])
    grid(cdiv(N, B)) warps 4
    tune { B in [32, 64, 0]; V in [1, 2] }
{
    let i0 = program_id(0) * B;
    store(y[i0 : i0 + B], zeros(i32, [B]) + V);
}
)";

struct TempDir : tile::test::TempDir {
  TempDir() : tile::test::TempDir("tile-tune-test") {}
};

rt::TuneOptions quiet() {
  rt::TuneOptions o;
  o.Warmup = 0;
  o.Repeats = 2;
  return o;
}

/// Launches \p k on \p n elements (output poisoned) and returns y[0],
/// checking that every element holds the same value.
int32_t runFill(Compiler &compiler, const CompiledKernel &k, int64_t n) {
  auto device = rt::Device::open("host");
  EXPECT_TRUE(bool(device)) << device.message();
  auto loaded = compiler.load(k, *device);
  EXPECT_TRUE(bool(loaded)) << loaded.message();
  auto y = device->allocate(n * 4);
  EXPECT_FALSE(bool(y->fill(0xA5)));
  EXPECT_FALSE(
      bool(loaded->launch({rt::ArgValue::tensor(y->address(), n * 4, {n})})));
  std::vector<int32_t> out(n);
  EXPECT_FALSE(bool(y->download(out.data(), n * 4)));
  for (int64_t i = 1; i < n; ++i)
    EXPECT_EQ(out[i], out[0]) << i;
  return out[0];
}

TEST(Tune, SpaceIsTheProductLessFixedParameters) {
  rt::TuneConfig defaults;
  std::vector<std::string> params;
  auto space = tuneSpace(kFill, "fill.tile", "fill", {}, &defaults, &params);
  ASSERT_TRUE(bool(space)) << space.message();
  ASSERT_EQ(space->size(), 6u);
  EXPECT_EQ(rt::configToString(space->front()), "B=32 V=1");
  EXPECT_EQ(rt::configToString(space->back()), "B=0 V=2");
  EXPECT_EQ(rt::configToString(defaults), "B=64 V=0");
  EXPECT_EQ(params, (std::vector<std::string>{"B", "V"}));
  auto fixed = tuneSpace(kFill, "fill.tile", "fill", {{"B", "32"}});
  ASSERT_TRUE(bool(fixed));
  ASSERT_EQ(fixed->size(), 2u);
  EXPECT_EQ(rt::configToString((*fixed)[1]), "V=2");
  EXPECT_EQ(tuneSpace(kFill, "fill.tile", "fill", {{"B", "32"}, {"V", "1"}})
                .message(),
            "every parameter of the tune block of fill is fixed by -D: "
            "nothing to tune");
  EXPECT_EQ(tuneSpace(kFill, "fill.tile", "other", {}).message(),
            "no kernel named 'other' in fill.tile");
  EXPECT_EQ(withConfig({{"T", "u4"}}, {{"B", 32}, {"Z", true}}),
            (std::map<std::string, std::string>{
                {"B", "32"}, {"T", "u4"}, {"Z", "true"}}));
}

TEST(Tune, SpaceOverridesReplaceOrAddParameters) {
  const char *withU = R"(
kernel fill<B: int = 64, V: int = 0, U: int = 7>(y: mut i32[N])
    grid(cdiv(N, B)) warps 4
    tune { B in [32, 64, 0]; V in [1, 2] }
{
    let i0 = program_id(0) * B;
    store(y[i0 : i0 + B], zeros(i32, [B]) + V + U);
}
)";
  rt::TuneConfig defaults;
  std::vector<std::string> params;
  // B's values replaced, U (not in the block) added after the block's.
  auto space = tuneSpace(withU, "k.tile", "fill", {}, &defaults, &params,
                         {{"B", {"16", "128"}}, {"U", {"3", "5", "9"}}});
  ASSERT_TRUE(bool(space)) << space.message();
  ASSERT_EQ(space->size(), 12u);
  EXPECT_EQ(rt::configToString(space->front()), "B=16 U=3 V=1");
  EXPECT_EQ(rt::configToString(space->back()), "B=128 U=9 V=2");
  EXPECT_EQ(params, (std::vector<std::string>{"B", "V", "U"}));
  EXPECT_EQ(rt::configToString(defaults), "B=64 U=7 V=0");
  // With V fixed, only the overrides' dimensions are left.
  auto fixed = tuneSpace(withU, "k.tile", "fill", {{"V", "2"}}, nullptr,
                         nullptr, {{"U", {"1"}}});
  ASSERT_TRUE(bool(fixed)) << fixed.message();
  EXPECT_EQ(fixed->size(), 3u);
  EXPECT_EQ(
      tuneSpace(withU, "k.tile", "fill", {}, nullptr, nullptr, {{"W", {"1"}}})
          .message(),
      "k.tile:2: kernel fill has no compile-time parameter 'W' "
      "(--space W=...)");
  EXPECT_EQ(
      tuneSpace(withU, "k.tile", "fill", {}, nullptr, nullptr, {{"B", {}}})
          .message(),
      "--space B= lists no value to try");
  EXPECT_EQ(tuneSpace(withU, "k.tile", "fill", {{"B", "32"}}, nullptr, nullptr,
                      {{"B", {"16"}}})
                .message(),
            "'B' is both fixed (-D) and tuned (--space)");
}

TEST(Tune, NegligibleSpillsAreAtMostFourRegisters) {
  // NVIDIA: bytes of spill stores; AMD: spilled registers.
  EXPECT_TRUE(negligibleSpills(0, true));
  EXPECT_TRUE(negligibleSpills(16, true));
  EXPECT_FALSE(negligibleSpills(20, true));
  EXPECT_TRUE(negligibleSpills(4, false));
  EXPECT_FALSE(negligibleSpills(5, false));
}

TEST(Tune, TunesOnTheHostAndTimesTheDefaults) {
  Compiler compiler({"", false});
  auto device = rt::Device::open("host");
  ASSERT_TRUE(bool(device));
  TuneRequest request{kFill, "fill.tile", "fill", {}, {}, quiet()};
  request.Test.Sizes = {{"N", 1000}};
  auto outcome = tuneKernel(compiler, *device, request);
  ASSERT_TRUE(bool(outcome)) << outcome.message();
  const rt::TuneResult &r = outcome->Result;
  ASSERT_EQ(r.Rows.size(), 7u); // The space and the defaults.
  EXPECT_EQ(r.count(rt::TuneStatus::Timed), 5u);
  EXPECT_EQ(r.count(rt::TuneStatus::Failed), 2u);
  EXPECT_EQ(rt::configToString(r.Rows.back().Config), "B=64 V=0");
  EXPECT_EQ(r.Rows.back().Summary, "16 programs");
  EXPECT_NE(r.Rows[4].Reason.find("fill.tile:7:13: error: slice extent must "
                                  "be positive, got 0"),
            std::string::npos)
      << r.Rows[4].Reason;
  EXPECT_GE(outcome->DefaultMs, 0);
  EXPECT_EQ(outcome->DefaultMs, r.Rows.back().TimeMs);
  EXPECT_GT(r.TimeMs, 0);
  const rt::TuneKey &key = outcome->Entry.Key;
  EXPECT_EQ(key.Bucket, "N=1024");
  EXPECT_EQ(key.Kernel, "fill");
  EXPECT_EQ(key.Target, "host");
  EXPECT_EQ(key.Arch, "host");
  EXPECT_EQ(key.Compiler, Compiler::version());
  EXPECT_EQ(outcome->Entry.Config, r.Best);
}

TEST(Tune, CompileTunedUsesTheCacheByBucket) {
  TempDir dir;
  std::string cachePath = dir.str() + "/tune.json";
  Compiler compiler({"", false});
  auto device = rt::Device::open("host");
  ASSERT_TRUE(bool(device));
  TunePolicy policy;
  policy.CachePath = cachePath;

  // A miss: the defaults (V = 0), nothing written.
  auto miss = compileTuned(compiler, *device, kFill, "fill.tile", "fill", {},
                           {{"N", 40}}, policy);
  ASSERT_TRUE(bool(miss)) << miss.message();
  EXPECT_FALSE(miss->FromCache);
  EXPECT_TRUE(miss->Config.empty());
  EXPECT_EQ(runFill(compiler, *miss->Kernel, 40), 0);
  rt::TuneCache cache(cachePath);
  EXPECT_TRUE(cache.entries().empty());

  // An entry for the bucket of 40 (64): every size of the bucket uses it.
  rt::TuneEntry entry;
  entry.Key = tuneKey(kFill, "fill", {}, *device, {{"N", 64}});
  entry.Config = {{"B", 32}, {"V", 2}};
  entry.TimeMs = 1;
  ASSERT_FALSE(bool(cache.store(entry)));
  for (int64_t n : {33, 40, 64}) {
    auto hit = compileTuned(compiler, *device, kFill, "fill.tile", "fill", {},
                            {{"N", n}}, policy);
    ASSERT_TRUE(bool(hit)) << hit.message();
    EXPECT_TRUE(hit->FromCache);
    EXPECT_EQ(runFill(compiler, *hit->Kernel, n), 2) << n;
  }
  // TMA kernels are other kernels: the entry is not theirs.
  CompileOptions tma;
  tma.tma = true;
  EXPECT_NE(tuneKey(kFill, "fill", tma, *device, {{"N", 64}}).Target,
            entry.Key.Target);
  // So are kernels built for dependent launches (their own prefetches and
  // wait).
  CompileOptions pdl;
  pdl.dependentLaunch = true;
  EXPECT_EQ(tuneKey(kFill, "fill", pdl, *device, {{"N", 64}}).Target,
            entry.Key.Target + "+pdl");
  // Another bucket misses.
  auto other = compileTuned(compiler, *device, kFill, "fill.tile", "fill", {},
                            {{"N", 65}}, policy);
  ASSERT_TRUE(bool(other));
  EXPECT_FALSE(other->FromCache);

  // Tuning on a miss stores the winner; the next call finds it.
  policy.TuneOnMiss = true;
  policy.Timing = quiet();
  auto tuned = compileTuned(compiler, *device, kFill, "fill.tile", "fill", {},
                            {{"N", 500}}, policy);
  ASSERT_TRUE(bool(tuned)) << tuned.message();
  EXPECT_TRUE(tuned->Tuned);
  EXPECT_FALSE(tuned->Config.empty());
  EXPECT_EQ(cache.entries().size(), 2u);
  auto again = compileTuned(compiler, *device, kFill, "fill.tile", "fill", {},
                            {{"N", 300}}, policy);
  ASSERT_TRUE(bool(again));
  EXPECT_TRUE(again->FromCache);
  EXPECT_FALSE(again->Tuned);
  EXPECT_EQ(again->Config, tuned->Config);
}

TEST(TuneCApi, CompileTunedAndDispatchByShape) {
  TempDir dir;
  std::string cachePath = dir.str() + "/tune.json";
  tile_jit *jit = tile_jit_create((dir.str() + "/jit").c_str());
  ASSERT_NE(jit, nullptr) << tile_jit_last_error();
  // Entries for the buckets of 8 and 64 (V = 1 and 2).
  auto device = rt::Device::open("host");
  rt::TuneCache cache(cachePath);
  for (auto [n, v] : {std::pair{8, 1}, std::pair{64, 2}}) {
    rt::TuneEntry e;
    e.Key = tuneKey(kFill, "fill", {}, *device, {{"N", n}});
    e.Config = {{"B", 32}, {"V", v}};
    ASSERT_FALSE(bool(cache.store(e)));
  }
  char bundleDir[4096];
  int fromCache = -1;
  ASSERT_EQ(tile_jit_compile_tuned(jit, kFill, "fill.tile", "fill", "host",
                                   nullptr, 0, "N=8", "host", cachePath.c_str(),
                                   0, &fromCache, bundleDir, sizeof bundleDir),
            0)
      << tile_jit_last_error();
  EXPECT_EQ(fromCache, 1);
  ASSERT_EQ(tile_jit_compile_tuned(jit, kFill, "fill.tile", "fill", "host",
                                   nullptr, 0, "N=3000", "host",
                                   cachePath.c_str(), 0, &fromCache, bundleDir,
                                   sizeof bundleDir),
            0);
  EXPECT_EQ(fromCache, 0);
  EXPECT_NE(tile_jit_compile_tuned(jit, kFill, "fill.tile", "fill", "host",
                                   nullptr, 0, "N", "host", cachePath.c_str(),
                                   0, nullptr, bundleDir, sizeof bundleDir),
            0);
  EXPECT_STREQ(tile_jit_last_error(),
               "tile_jit_compile_tuned: bad shape bucket part 'N' in 'N' "
               "(expected NAME=SIZE,...)");
  tile_jit_destroy(jit);

  // A bundle with the variants of both buckets and the defaults: the
  // runtime launches the one of the launch's bucket.
  Compiler compiler({"", false});
  CompiledKernels all;
  for (auto [bucket, v] :
       {std::pair{0, 0}, std::pair{8, 1}, std::pair{64, 2}}) {
    CompileOptions o;
    o.defines = {{"V", std::to_string(v)}};
    auto k = compiler.compileKernel(kFill, "fill.tile", "fill", o);
    ASSERT_TRUE(bool(k)) << k.message();
    auto variant = std::make_shared<CompiledKernel>(**k);
    if (bucket)
      variant->Info.Bucket = {{"N", bucket}};
    all.push_back(variant);
  }
  std::string path = dir.str() + "/bundle";
  ASSERT_FALSE(bool(writeBundle(path, all)));
  tile_device *dev = tile_device_open("host");
  tile_bundle *b = tile_bundle_load(dev, path.c_str());
  ASSERT_NE(b, nullptr) << tile_last_error();
  EXPECT_EQ(tile_bundle_num_kernels(b), 1u); // One name, three variants.
  for (auto [n, want] : {std::pair<int64_t, int32_t>{8, 1},
                         {7, 0},
                         {50, 2},
                         {64, 2},
                         {65, 0},
                         {1000, 0}}) {
    tile_buffer *y = tile_buffer_create(dev, n * 4);
    tile_arg arg = {1, y, &n, 1, "i32", 0};
    ASSERT_EQ(tile_launch(b, "fill", &arg, 1), 0) << tile_last_error();
    std::vector<int32_t> out(n);
    ASSERT_EQ(tile_buffer_download(y, out.data(), n * 4, 0), 0);
    EXPECT_EQ(out[0], want) << "N = " << n;
    EXPECT_EQ(out[n - 1], want) << "N = " << n;
    tile_buffer_free(y);
  }
  tile_bundle_free(b);
  tile_device_close(dev);
}

TEST(Tune, ResourceFiguresReachTheManifest) {
  TempDir dir;
  Compiler compiler({dir.str(), true});
  CompileOptions amd;
  amd.target = "gfx942";
  auto hsaco = compiler.compileKernel(kFill, "fill.tile", "fill", amd);
  ASSERT_TRUE(bool(hsaco)) << hsaco.message();
  EXPECT_GT((*hsaco)->Info.Registers, 0);
  EXPECT_EQ((*hsaco)->Info.Spills, 0);
  // The disk cache entry (a bundle) keeps them.
  Compiler second({dir.str(), true});
  auto cached = second.compileKernel(kFill, "fill.tile", "fill", amd);
  ASSERT_TRUE(bool(cached));
  EXPECT_EQ(second.stats().DiskHits, 1u);
  EXPECT_EQ((*cached)->Info.Registers, (*hsaco)->Info.Registers);
  EXPECT_EQ((*cached)->Info.Spills, 0);

  CompileOptions nv;
  nv.target = "sm_90a";
  auto cubin = compiler.compileKernel(kFill, "fill.tile", "fill", nv);
  if (!cubin &&
      cubin.message().find("ptxas was not found") != std::string::npos)
    GTEST_SKIP() << "ptxas not installed: cubin figures not checked";
  ASSERT_TRUE(bool(cubin)) << cubin.message();
  EXPECT_GT((*cubin)->Info.Registers, 0);
  EXPECT_LE((*cubin)->Info.Registers, 255);
  EXPECT_EQ((*cubin)->Info.Spills, 0);
  // The emulator's object has no figures.
  nv.emulate = true;
  auto emu = compiler.compileKernel(kFill, "fill.tile", "fill", nv);
  ASSERT_TRUE(bool(emu)) << emu.message();
  EXPECT_EQ((*emu)->Info.Registers, -1);
}

} // namespace
