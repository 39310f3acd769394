//===- CastsTest.cpp - Host casts of every code against lib/Numerics ------===//
//
// The kernels of test/tilec/Inputs/cast_every.tile (one cast to each of 31
// formats up to 32 bits) compiled for the host through the JIT and run on
// every code of each source format of at most 16 bits, and on edge and
// random codes of the 32-bit ones: every result must be the code
// lib/Numerics' convert() gives. The emulator sweeps
// (test/tilec/emu-casts-every-code-*.test) compare the GPU targets with the
// host, so with this test every target is held to lib/Numerics.
//
//===----------------------------------------------------------------------===//

#include "Support/TestSupport.h"

#include "tile/JIT.h"
#include "tile/Numerics/CAPI.h"
#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"
#include "tile/runtime/TestRun.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace tile;
namespace num = tile::numerics;

namespace {

// Keeps the Numerics C ABI in the binary, exported for host kernels.
[[maybe_unused]] auto *keepNumerics = &tile_num_convert;

const char *const kSources[] = {
    "u1",     "u2",     "u3",     "u4",     "u5",     "u6",     "u7",
    "u8",     "i2",     "i3",     "i4",     "i5",     "i6",     "i7",
    "i8",     "f4e2m1", "f5e2m2", "f6e2m3", "f6e3m2", "f6e5m0", "f7e5m1",
    "f8e4m3", "f8e5m2", "e8m0",   "f16",    "bf16",   "i16",    "u16",
    "f32",    "i32",    "u32"};

const char *const kKernels[] = {"cast_unsigned", "cast_signed",
                                "cast_small_floats", "cast_wide"};

/// Every code of a format of at most 16 bits; else edge codes (every f32
/// exponent with the smallest, largest and middle mantissas, both signs;
/// integer powers of two and their neighbours) and seeded random ones.
std::vector<uint32_t> sourceCodes(unsigned bits) {
  std::vector<uint32_t> codes;
  if (bits <= 16) {
    for (uint32_t c = 0; c < (1u << bits); ++c)
      codes.push_back(c);
    return codes;
  }
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0x7FFFFFu, 0x400000u})
      for (uint32_t sign : {0u, 1u << 31})
        codes.push_back(sign | e << 23 | m);
  for (int k = 0; k < 32; ++k)
    for (int d : {-1, 0, 1}) {
      codes.push_back(uint32_t((1ull << k) + d));
      codes.push_back(uint32_t(-(int64_t(1) << k) + d));
    }
  std::mt19937 rng(2026);
  for (int i = 0; i < 4000; ++i)
    codes.push_back(rng());
  return codes;
}

void checkSource(jit::Compiler &compiler, const std::string &source,
                 const std::string &kernelText, const std::string &kernel) {
  jit::CompileOptions options;
  options.defines["S"] = source;
  auto compiled =
      compiler.compileKernel(kernelText, "cast_every.tile", kernel, options);
  ASSERT_TRUE(bool(compiled)) << compiled.message();
  auto device = rt::Device::open("host");
  auto loaded = compiler.load(**compiled, *device);
  ASSERT_TRUE(bool(loaded)) << loaded.message();
  num::Format from = *num::parseFormat(source);
  std::vector<uint32_t> codes = sourceCodes(from.bits());
  rt::TestCase test;
  test.Sizes = {{"N", int64_t(codes.size())}};
  auto run = rt::prepareRun((*compiled)->Info.Signature, test, *device);
  ASSERT_TRUE(bool(run)) << run.message();
  for (rt::TensorArg &t : run->Tensors)
    if (t.Param->Name == "x") {
      for (size_t i = 0; i < codes.size(); ++i)
        num::writePacked(t.Initial.data(), i, from.bits(), codes[i]);
      ASSERT_FALSE(bool(t.Buf.upload(t.Initial.data(), t.Bytes)));
    }
  ASSERT_FALSE(bool(loaded->launch(run->Bound)));
  for (rt::TensorArg &t : run->Tensors) {
    if (!t.Poisoned)
      continue;
    num::Format to = *num::parseFormat(t.Param->DType);
    auto bytes = t.Buf.read();
    ASSERT_TRUE(bool(bytes));
    for (size_t i = 0; i < codes.size(); ++i) {
      uint32_t got = num::readPacked(bytes->data(), i, to.bits());
      uint32_t want = num::convert(codes[i], from, to);
      if (got != want && std::isnan(num::decode(to, got)) &&
          std::isnan(num::decode(to, want)))
        continue; // NaN payloads may differ; NaN stays NaN.
      ASSERT_EQ(got, want) << source << " code 0x" << std::hex << codes[i]
                           << " -> " << t.Param->DType;
    }
  }
}

TEST(HostCasts, EveryCodeToEveryFormatMatchesNumerics) {
  std::string text = test::readTextFile(std::string(TILE_SOURCE_DIR) +
                                        "/test/tilec/Inputs/cast_every.tile");
  jit::Compiler compiler({"", /*DiskCache=*/false});
  for (const char *source : kSources)
    for (const char *kernel : kKernels)
      checkSource(compiler, source, text, kernel);
}

} // namespace
