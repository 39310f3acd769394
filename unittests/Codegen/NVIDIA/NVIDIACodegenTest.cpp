//===- NVIDIACodegenTest.cpp - NVIDIA code generator tests ----------------===//
//
// Part of tilec. Two kinds of tests:
//  - the NVIDIA Backend (lib/Target: lowerToNVVM, translation, PTX) on a
//    small kernel, for sm_80 and sm_90a, assembled with ptxas when it is
//    installed;
//  - the generic GPU lowering run on the CPU: a TargetLowering for a
//    one-thread "warp" turns kernels into plain LLVM functions that the MLIR
//    ExecutionEngine runs, so the load/store paths and every cast can be
//    checked against lib/Numerics on all codes without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "CpuTargetLowering.h"
#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Numerics/Format.h"
#include "tile/Target/Backend.h"
#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;
namespace num = ::tile::numerics;

namespace {

using ::tile::test::makeContext;

const char *kVectorAdd = R"mlir(
#blk = #tile.layout<local(2) * spatial(128) * local(4)>
func.func @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %pid = tile.program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %i0 = arith.muli %pid, %c1024 : i32
  %vx = tile.view %x(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vy = tile.view %y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vz = tile.view %z(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %a = tile.load %vx[%i0] : !tile.view<?xf32> -> tensor<1024xf32, #blk>
  %b = tile.load %vy[%i0] : !tile.view<?xf32> -> tensor<1024xf32, #blk>
  %s = arith.addf %a, %b : tensor<1024xf32, #blk>
  tile.store %vz[%i0], %s : !tile.view<?xf32>, tensor<1024xf32, #blk>
  return
}
)mlir";

/// The PTX of a prepared module through the NVIDIA Backend, the driver's
/// path: lowerToNVVM, optimized LLVM IR, the NVPTX backend.
llvm::Expected<std::string> translateToPTX(ModuleOp module,
                                           const ::tile::TargetInfo &target) {
  auto backend = ::tile::target::createBackend(target);
  if (mlir::failed(::tile::nvidia::lowerToNVVM(module, target)))
    return llvm::createStringError("lowering to NVVM failed");
  llvm::LLVMContext context;
  auto llvmModule = backend->translate(module, context, true);
  if (!llvmModule)
    return llvmModule.takeError();
  auto ptx = backend->emitAssembly(**llvmModule);
  if (!ptx)
    return ptx.takeError();
  return std::move(ptx->data);
}

TEST(NVIDIACodegen, VectorAddToPTXAndCubin) {
  for (const char *name : {"sm_80", "sm_90a"}) {
    auto ctx = makeContext();
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kVectorAdd, ctx.get());
    ASSERT_TRUE(module);
    ::tile::TargetInfo target = *::tile::TargetInfo::lookup(name);
    llvm::Expected<std::string> ptx = translateToPTX(*module, target);
    ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
    EXPECT_NE(ptx->find(".entry vector_add("), std::string::npos);
    EXPECT_NE(ptx->find(".reqntid 128"), std::string::npos);
    EXPECT_NE(ptx->find(std::string(".target ") + name), std::string::npos);
    EXPECT_NE(ptx->find("ld.global.v4"), std::string::npos);
    EXPECT_NE(ptx->find("st.global.v4"), std::string::npos);
    if (!::tile::findTool("ptxas"))
      continue;
    auto cubin = ::tile::assemblePTX(*ptx, target);
    ASSERT_TRUE(bool(cubin)) << llvm::toString(cubin.takeError());
    EXPECT_FALSE(cubin->cubin.empty());
    EXPECT_NE(cubin->report.find("0 bytes spill stores"), std::string::npos)
        << cubin->report;
  }
}

TEST(NVIDIACodegen, RejectsNonNVIDIATargetsAndUnpreparedKernels) {
  auto ctx = makeContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kVectorAdd, ctx.get());
  ASSERT_TRUE(module);
  std::string messages;
  ScopedDiagnosticHandler handler(ctx.get(), [&](Diagnostic &d) {
    messages += d.str() + "\n";
    return success();
  });
  auto wrong = translateToPTX(*module, *::tile::TargetInfo::lookup("gfx942"));
  EXPECT_FALSE(bool(wrong));
  llvm::consumeError(wrong.takeError());
  EXPECT_NE(messages.find("not an NVIDIA target"), std::string::npos);

  const char *noLayout = R"mlir(
func.func @k(%x: !tile.ptr<f32>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %x(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<128xf32>
  return
}
)mlir";
  OwningOpRef<ModuleOp> bad = parseSourceString<ModuleOp>(noLayout, ctx.get());
  ASSERT_TRUE(bad);
  messages.clear();
  auto ptx = translateToPTX(*bad, *::tile::TargetInfo::lookup("sm_90a"));
  EXPECT_FALSE(bool(ptx));
  llvm::consumeError(ptx.takeError());
  EXPECT_NE(messages.find("run layout inference first"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// The generic lowering on the CPU
//===----------------------------------------------------------------------===//

/// One thread per program, no shared memory hardware: enough for kernels
/// without shared memory, reductions or matrix instructions.
using ::tile::test::CpuTargetLowering;

/// A lowered one-thread kernel `k(src, dst, n, off)` compiled for the CPU.
struct CpuKernel {
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<ExecutionEngine> engine;
  void (*fn)(void *, void *, int32_t, int32_t) = nullptr;
};

/// Builds `dst[off + i] = cast(src[off + i])` for a `tile`-element tile held
/// by one thread (layout local(tile)), `src`/`dst` of n elements.
std::string castKernel(StringRef src, StringRef dst, StringRef attrs,
                       unsigned tile = 64) {
  std::string t = std::to_string(tile);
  return (llvm::Twine(R"mlir(
#l = #tile.layout<local()mlir") +
          t + R"mlir()>
func.func @k(%s: !tile.ptr<)mlir" +
          src + ">, %d: !tile.ptr<" + dst + R"mlir(>, %n: i32, %off: i32)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 1 : i32} {
  %vs = tile.view %s(%n) : !tile.ptr<)mlir" +
          src + "> -> !tile.view<?x" + src + R"mlir(>
  %vd = tile.view %d(%n) : !tile.ptr<)mlir" +
          dst + "> -> !tile.view<?x" + dst + R"mlir(>
  %x = tile.load %vs[%off] : !tile.view<?x)mlir" +
          src + "> -> tensor<" + t + "x" + src + R"mlir(, #l>
  %y = tile.cast %x )mlir" +
          attrs + " : tensor<" + t + "x" + src + ", #l> -> tensor<" + t + "x" +
          dst +
          R"mlir(, #l>
  tile.store %vd[%off], %y : !tile.view<?x)mlir" +
          dst + ">, tensor<" + t + "x" + dst + R"mlir(, #l>
  return
}
)mlir")
      .str();
}

std::optional<CpuKernel> compileOnCpu(const std::string &source) {
  CpuKernel k;
  CpuTargetLowering target;
  std::optional<::tile::test::CpuJitKernel> jit =
      ::tile::test::lowerAndJit(source, target);
  if (!jit)
    return std::nullopt;
  k.ctx = std::move(jit->ctx);
  k.engine = std::move(jit->engine);
  k.fn = reinterpret_cast<void (*)(void *, void *, int32_t, int32_t)>(jit->fn);
  return k;
}

/// Reads element i of a dense LSB-first stream of `bits`-bit codes.
uint32_t readCode(const std::vector<uint8_t> &bytes, int64_t i, unsigned bits) {
  uint64_t word = 0;
  int64_t bit = i * bits;
  for (unsigned k = 0; k < 5 && (bit / 8 + k) < int64_t(bytes.size()); ++k)
    word |= uint64_t(bytes[bit / 8 + k]) << (8 * k);
  return uint32_t((word >> (bit % 8)) & ((uint64_t(1) << bits) - 1));
}

void writeCode(std::vector<uint8_t> &bytes, int64_t i, unsigned bits,
               uint32_t code) {
  for (unsigned k = 0; k < bits; ++k) {
    int64_t bit = i * bits + k;
    if ((code >> k) & 1)
      bytes[bit / 8] |= uint8_t(1u << (bit % 8));
    else
      bytes[bit / 8] &= uint8_t(~(1u << (bit % 8)));
  }
}

struct CastCase {
  const char *srcType, *dstType, *attrs, *srcName, *dstName;
};

/// Runs the cast kernel (tiles of `tile` elements) on `codes` (n of them,
/// n <= 256 so that the edge path runs when n < 256) and compares every
/// output code with lib/Numerics' convert().
void checkCast(const CastCase &c, const std::vector<uint32_t> &codes,
               unsigned tile = 64) {
  SCOPED_TRACE(std::string(c.srcName) + " -> " + c.dstName);
  auto from = num::parseFormat(c.srcName);
  auto to = num::parseFormat(c.dstName);
  ASSERT_TRUE(from.ok() && to.ok());
  std::optional<CpuKernel> k =
      compileOnCpu(castKernel(c.srcType, c.dstType, c.attrs, tile));
  ASSERT_TRUE(k.has_value());
  int64_t n = codes.size();
  std::vector<uint8_t> src((n * from->bits() + 7) / 8 + 8, 0);
  std::vector<uint8_t> dst((n * to->bits() + 7) / 8 + 8, 0xA5);
  std::vector<uint32_t> masked;
  for (uint32_t code : codes)
    masked.push_back(code & from->codeMask());
  for (int64_t i = 0; i < n; ++i)
    writeCode(src, i, from->bits(), masked[i]);
  for (int32_t off = 0; off < n; off += int32_t(tile))
    k->fn(src.data(), dst.data(), int32_t(n), off);
  int mismatches = 0;
  for (int64_t i = 0; i < n && mismatches < 8; ++i) {
    uint32_t want = num::convert(masked[i], *from, *to);
    uint32_t got = readCode(dst, i, to->bits());
    if (want != got) {
      ++mismatches;
      ADD_FAILURE() << "code 0x" << llvm::utohexstr(masked[i]) << ": want 0x"
                    << llvm::utohexstr(want) << ", got 0x"
                    << llvm::utohexstr(got);
    }
  }
  // Bytes past the n elements are untouched (poisoned 0xA5).
  int64_t usedBits = n * to->bits();
  for (int64_t bit = usedBits; bit < int64_t(dst.size()) * 8; ++bit)
    ASSERT_EQ((dst[bit / 8] >> (bit % 8)) & 1, (0xA5 >> (bit % 8)) & 1)
        << "bit " << bit << " past the end was written";
}

TEST(GPULoweringOnCpu, NarrowSourcesAllCodes) {
  // Every code of each narrow source (the full tile: the vector path; one
  // element short: the per-element edge path).
  const CastCase cases[] = {
      {"i4", "f16", "{src_unsigned}", "u4", "f16"},
      {"i4", "f16", "", "i4", "f16"},
      {"i4", "bf16", "{src_unsigned}", "u4", "bf16"},
      {"i4", "bf16", "", "i4", "bf16"},
      {"i8", "f16", "{src_unsigned}", "u8", "f16"},
      {"i8", "f16", "", "i8", "f16"},
      {"i8", "bf16", "", "i8", "bf16"},
      {"i8", "bf16", "{src_unsigned}", "u8", "bf16"},
      {"f8E4M3FN", "bf16", "", "f8e4m3", "bf16"},
      {"f8E5M2", "bf16", "", "f8e5m2", "bf16"},
      {"f8E4M3FN", "f16", "", "f8e4m3", "f16"},
      {"f8E5M2", "f16", "", "f8e5m2", "f16"},
      {"f8E4M3FN", "f32", "", "f8e4m3", "f32"},
      {"f4E2M1FN", "bf16", "", "f4e2m1", "bf16"},
      {"f6E3M2FN", "f16", "", "f6e3m2", "f16"},
      {"!tile.float<e2m2>", "f32", "", "f5e2m2", "f32"},
      {"i3", "f16", "{src_unsigned}", "u3", "f16"},
      {"i8", "i4", "{dst_unsigned}", "i8", "u4"},
      {"i4", "i8", "", "i4", "i8"},
      // Arithmetic paths of the other narrow sources (no table): small
      // floats with X <= 4 (f16 fields), with X >= 5 (f32 fields, overflow
      // to inf and f16 subnormals on the way to f16), to f16, bf16, f32.
      {"f4E2M1FN", "f16", "", "f4e2m1", "f16"},
      {"f4E2M1FN", "f32", "", "f4e2m1", "f32"},
      {"f6E2M3FN", "f16", "", "f6e2m3", "f16"},
      {"f6E2M3FN", "bf16", "", "f6e2m3", "bf16"},
      {"f6E2M3FN", "f32", "", "f6e2m3", "f32"},
      {"f6E3M2FN", "bf16", "", "f6e3m2", "bf16"},
      {"f6E3M2FN", "f32", "", "f6e3m2", "f32"},
      {"!tile.float<e2m2>", "f16", "", "f5e2m2", "f16"},
      {"!tile.float<e2m2>", "bf16", "", "f5e2m2", "bf16"},
      {"!tile.float<e1m0>", "f16", "", "f2e1m0", "f16"},
      {"!tile.float<e1m6>", "bf16", "", "f8e1m6", "bf16"},
      {"!tile.float<e1m6>", "f16", "", "f8e1m6", "f16"},
      {"!tile.float<e3m0>", "f16", "", "f4e3m0", "f16"},
      {"!tile.float<e3m4>", "f32", "", "f8e3m4", "f32"},
      {"!tile.float<e4m0>", "bf16", "", "f5e4m0", "bf16"},
      {"!tile.float<e4m2>", "f16", "", "f7e4m2", "f16"},
      {"!tile.float<e4m1>", "f32", "", "f6e4m1", "f32"},
      {"!tile.float<e5m1>", "bf16", "", "f7e5m1", "bf16"},
      {"!tile.float<e5m0>", "f16", "", "f6e5m0", "f16"},
      {"!tile.float<e5m0>", "f32", "", "f6e5m0", "f32"},
      {"!tile.float<e5m1>", "f16", "", "f7e5m1", "f16"},
      {"!tile.float<e6m0>", "f16", "", "f7e6m0", "f16"},
      {"!tile.float<e6m1>", "bf16", "", "f8e6m1", "bf16"},
      {"!tile.float<e6m1>", "f16", "", "f8e6m1", "f16"},
      {"!tile.float<e7m0>", "f32", "", "f8e7m0", "f32"},
      {"!tile.float<e7m0>", "bf16", "", "f8e7m0", "bf16"},
  };
  for (const CastCase &c : cases) {
    auto from = num::parseFormat(c.srcName);
    ASSERT_TRUE(from.ok());
    std::vector<uint32_t> codes;
    for (int64_t i = 0; i < 256; ++i)
      codes.push_back(uint32_t(i) & from->codeMask());
    checkCast(c, codes);
    codes.pop_back();
    checkCast(c, codes);
  }
  // Integers of every width up to 8 bits, signed and unsigned, to f16, bf16
  // and f32.
  for (unsigned bits = 1; bits <= 8; ++bits) {
    for (bool isUnsigned : {true, false}) {
      for (const char *dst : {"f16", "bf16", "f32"}) {
        std::string type = "i" + std::to_string(bits);
        std::string name = (isUnsigned ? "u" : "i") + std::to_string(bits);
        CastCase c{type.c_str(), dst, isUnsigned ? "{src_unsigned}" : "",
                   name.c_str(), dst};
        std::vector<uint32_t> codes;
        for (uint32_t i = 0; i < 256; ++i)
          codes.push_back(i & ((1u << bits) - 1));
        checkCast(c, codes);
        codes.pop_back(); // one element short: the edge path
        checkCast(c, codes);
      }
    }
  }
}

TEST(GPULoweringOnCpu, NarrowSourcesOddRegisterCounts) {
  // One- and three-element tiles: the two-at-a-time paths convert a last
  // register without a partner (a zero upper half).
  const CastCase cases[] = {
      {"i3", "f16", "{src_unsigned}", "u3", "f16"},
      {"i5", "bf16", "", "i5", "bf16"},
      {"f4E2M1FN", "f16", "", "f4e2m1", "f16"},
      {"f8E4M3FN", "bf16", "", "f8e4m3", "bf16"},
      {"!tile.float<e5m1>", "f16", "", "f7e5m1", "f16"},
  };
  for (const CastCase &c : cases) {
    auto from = num::parseFormat(c.srcName);
    ASSERT_TRUE(from.ok());
    std::vector<uint32_t> codes;
    for (uint32_t i = 0; i <= from->codeMask(); ++i)
      codes.push_back(i);
    for (unsigned tile : {1u, 3u})
      checkCast(c, codes, tile);
  }
}

TEST(GPULoweringOnCpu, NarrowSourcesUseNoTable) {
  // The arithmetic paths leave no __tile_cvt_ table in the module; a format
  // kept on the table (f8e4m3 -> f32) still gets one, so the check can fail.
  auto hasTable = [](const char *src, const char *dst, const char *attrs) {
    auto ctx = makeContext();
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(castKernel(src, dst, attrs), ctx.get());
    CpuTargetLowering target;
    if (!module || failed(::tile::gpu::lowerTileToLLVM(*module, target)))
      return std::optional<bool>();
    bool found = false;
    module->walk([&](LLVM::GlobalOp g) {
      found |= g.getSymName().starts_with("__tile_cvt_");
    });
    return std::optional<bool>(found);
  };
  EXPECT_EQ(hasTable("f4E2M1FN", "f16", ""), std::optional<bool>(false));
  EXPECT_EQ(hasTable("f6E3M2FN", "bf16", ""), std::optional<bool>(false));
  EXPECT_EQ(hasTable("i3", "f16", "{src_unsigned}"),
            std::optional<bool>(false));
  EXPECT_EQ(hasTable("i5", "bf16", ""), std::optional<bool>(false));
  EXPECT_EQ(hasTable("!tile.float<e5m1>", "f16", ""),
            std::optional<bool>(false));
  EXPECT_EQ(hasTable("f8E4M3FN", "f32", ""), std::optional<bool>(true));
}

TEST(GPULoweringOnCpu, WideSourcesRoundAndSaturate) {
  // f32 / f16 / bf16 / i32 sources: special values, boundaries and random
  // bit patterns.
  std::mt19937 rng(1234);
  auto f32Codes = [&] {
    std::vector<uint32_t> codes;
    for (float v :
         {0.0f,          -0.0f,        1.0f,          -1.0f,  0.5f,    2.5f,
          3.5f,          -2.5f,        448.0f,        464.0f, 480.0f,  1e9f,
          -1e9f,         INFINITY,     -INFINITY,     NAN,    -NAN,    1e-45f,
          0.0009765625f, 0.001953125f, 0.0029296875f, 6.0f,   5.0f,    7.5f,
          28.0f,         30.0f,        127.5f,        128.5f, -128.5f, 255.5f,
          57344.0f,      61440.0f,     65520.0f})
      codes.push_back(llvm::bit_cast<uint32_t>(v));
    while (codes.size() < 256) {
      // Random magnitudes around the small formats' ranges.
      float mag = std::ldexp(std::uniform_real_distribution<float>(1, 2)(rng),
                             std::uniform_int_distribution<int>(-20, 20)(rng));
      codes.push_back(llvm::bit_cast<uint32_t>(rng() % 2 ? mag : -mag));
    }
    return codes;
  };
  const CastCase f32Cases[] = {
      {"f32", "f8E4M3FN", "", "f32", "f8e4m3"},
      {"f32", "f8E5M2", "", "f32", "f8e5m2"},
      {"f32", "f4E2M1FN", "", "f32", "f4e2m1"},
      {"f32", "f6E3M2FN", "", "f32", "f6e3m2"},
      {"f32", "!tile.float<e2m2>", "", "f32", "f5e2m2"},
      {"f32", "!tile.float<e3m0>", "", "f32", "f4e3m0"},
      {"f32", "i8", "", "f32", "i8"},
      {"f32", "i4", "{dst_unsigned}", "f32", "u4"},
      {"f32", "i32", "", "f32", "i32"},
      {"f32", "f16", "", "f32", "f16"},
      {"f32", "bf16", "", "f32", "bf16"},
  };
  std::vector<uint32_t> codes = f32Codes();
  for (const CastCase &c : f32Cases)
    checkCast(c, codes);

  std::vector<uint32_t> halves;
  for (int i = 0; i < 256; ++i)
    halves.push_back(uint32_t(rng()) & 0xFFFF);
  halves[0] = 0x7C00; // inf
  halves[1] = 0x7E01; // NaN
  halves[2] = 0x5FC0; // 496: rounds to the f8e4m3 NaN code, saturates
  const CastCase halfCases[] = {
      {"f16", "f8E4M3FN", "", "f16", "f8e4m3"},
      {"f16", "f32", "", "f16", "f32"},
      {"bf16", "f16", "", "bf16", "f16"},
      {"f16", "i8", "{dst_unsigned}", "f16", "u8"},
  };
  for (const CastCase &c : halfCases)
    checkCast(c, halves);

  std::vector<uint32_t> ints;
  for (int i = 0; i < 256; ++i)
    ints.push_back(uint32_t(rng()) >> (i % 24));
  checkCast({"i32", "f32", "", "i32", "f32"}, ints);
  checkCast({"i32", "f16", "", "i32", "f16"}, ints);
  checkCast({"i32", "i8", "", "i32", "i8"}, ints);
  checkCast({"i16", "f8E4M3FN", "", "i16", "f8e4m3"},
            std::vector<uint32_t>(ints.begin(), ints.end()));

  // To e8m0 (powers of two, ties up, negative and NaN to 0xFF) from floats.
  checkCast({"f32", "f8E8M0FNU", "", "f32", "e8m0"}, codes);
  checkCast({"f16", "f8E8M0FNU", "", "f16", "e8m0"}, halves);
  checkCast({"bf16", "f8E8M0FNU", "", "bf16", "e8m0"}, halves);
}

TEST(GPULoweringOnCpu, WideIntegersRoundOnce) {
  // Integers wider than f32's significand to bf16, small floats and e8m0
  // go through an f32 rounded to odd: at the rounding edges of each
  // destination (m * 2^s and +-1 around it, m with the destination's
  // significand plus a half), one rounding, as lib/Numerics' convert().
  std::vector<uint32_t> edges;
  for (unsigned s = 0; s < 31; ++s)
    for (uint64_t m : {3u, 0x101u, 0x1FFu, 0x155u, 9u, 0xBu, 0x11u, 0x1Bu})
      for (int64_t d : {-1, 0, 1}) {
        int64_t v = int64_t(m << s) + d;
        if (v >= 0 && v <= int64_t(UINT32_MAX)) {
          edges.push_back(uint32_t(v));
          edges.push_back(uint32_t(-v));
        }
      }
  for (size_t begin = 0; begin < edges.size(); begin += 256) {
    std::vector<uint32_t> part(edges.begin() + begin,
                               edges.begin() +
                                   std::min(edges.size(), begin + 256));
    for (bool isUnsigned : {false, true}) {
      const char *attrs = isUnsigned ? "{src_unsigned}" : "";
      const char *name = isUnsigned ? "u32" : "i32";
      checkCast({"i32", "bf16", attrs, name, "bf16"}, part);
      checkCast({"i32", "f8E8M0FNU", attrs, name, "e8m0"}, part);
      checkCast({"i32", "f8E4M3FN", attrs, name, "f8e4m3"}, part);
      checkCast({"i32", "f6E3M2FN", attrs, name, "f6e3m2"}, part);
      checkCast({"i32", "f8E5M2", attrs, name, "f8e5m2"}, part);
    }
  }
  // Integers of up to 24 bits (exact in f32) to e8m0.
  std::vector<uint32_t> small;
  for (uint32_t i = 0; i < 256; ++i)
    small.push_back(i * 0x10001u);
  checkCast({"i16", "f8E8M0FNU", "", "i16", "e8m0"}, small);
  checkCast({"i8", "f8E8M0FNU", "{src_unsigned}", "u8", "e8m0"}, small);
}

TEST(GPULoweringOnCpu, FmaDotAndReductions) {
  // One thread holds everything: the dot must take the FMA path (f32 has no
  // matrix instruction) and the reductions stay in registers.
  const char *source = R"mlir(
#a = #tile.layout<local(4,8)>
#b = #tile.layout<local(8,4)>
#c = #tile.layout<local(4,4)>
#r = #tile.layout<local(4)>
func.func @k(%A: !tile.ptr<f32>, %B: !tile.ptr<f32>, %C: !tile.ptr<f32>, %R: !tile.ptr<f32>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A() : !tile.ptr<f32> -> !tile.view<4x8xf32>
  %vb = tile.view %B() : !tile.ptr<f32> -> !tile.view<8x4xf32>
  %vc = tile.view %C() : !tile.ptr<f32> -> !tile.view<4x4xf32>
  %vr = tile.view %R() : !tile.ptr<f32> -> !tile.view<4xf32>
  %x = tile.load %va[%c0, %c0] : !tile.view<4x8xf32> -> tensor<4x8xf32, #a>
  %y = tile.load %vb[%c0, %c0] : !tile.view<8x4xf32> -> tensor<8x4xf32, #b>
  %z = arith.constant dense<1.0> : tensor<4x4xf32, #c>
  %d = tile.dot %x, %y, %z : tensor<4x8xf32, #a>, tensor<8x4xf32, #b>, tensor<4x4xf32, #c> -> tensor<4x4xf32, #c>
  tile.store %vc[%c0, %c0], %d : !tile.view<4x4xf32>, tensor<4x4xf32, #c>
  %m = tile.reduce max %d axis = 1 : tensor<4x4xf32, #c> -> tensor<4xf32, #r>
  tile.store %vr[%c0], %m : !tile.view<4xf32>, tensor<4xf32, #r>
  return
}
)mlir";
  std::optional<CpuKernel> k = compileOnCpu(source);
  ASSERT_TRUE(k.has_value());
  auto fn = reinterpret_cast<void (*)(void *, void *, void *, void *)>(
      reinterpret_cast<void *>(k->fn));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  // Small integers: every product and sum is exact in f32, so the result
  // does not depend on the summation order.
  float a[32], b[32], c[16], r[4];
  for (float &v : a)
    v = float(small(rng));
  for (float &v : b)
    v = float(small(rng));
  a[9] = NAN; // row 1 has a NaN: its max must be NaN
  std::fill(std::begin(c), std::end(c), -12345.0f);
  std::fill(std::begin(r), std::end(r), -12345.0f);
  fn(a, b, c, r);
  for (int i = 0; i < 4; ++i) {
    float rowMax = -INFINITY;
    bool nan = false;
    for (int j = 0; j < 4; ++j) {
      float want = 1.0f;
      for (int kk = 0; kk < 8; ++kk)
        want += a[i * 8 + kk] * b[kk * 4 + j];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(c[i * 4 + j])) << i << "," << j;
        nan = true;
      } else {
        EXPECT_EQ(c[i * 4 + j], want) << i << "," << j;
        rowMax = std::max(rowMax, want);
      }
    }
    if (nan)
      EXPECT_TRUE(std::isnan(r[i])) << "row " << i;
    else
      EXPECT_EQ(r[i], rowMax) << "row " << i;
  }
}

TEST(GPULoweringOnCpu, MaskedEdgesPaddingAndSubByteStores) {
  // A 4x8 tile at (r0, c0) of an MxN f16 view, padded with -inf outside;
  // stored at the same offsets to an f32 view (outside: skipped), and a u3
  // tile copied between packed streams (bits of neighbours untouched).
  const char *source = R"mlir(
#l = #tile.layout<local(4,8)>
func.func @k(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>, %U: !tile.ptr<i3>, %V: !tile.ptr<i3>,
             %P: !tile.ptr<f32>, %M: i32, %N: i32, %r0: i32, %c0: i32)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 1 : i32} {
  %vx = tile.view %X(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vy = tile.view %Y(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vu = tile.view %U(%M, %N) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %vv = tile.view %V(%M, %N) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %t = tile.load %vx[%r0, %c0] padding(0xFC00 : f16) : !tile.view<?x?xf16> -> tensor<4x8xf16, #l>
  %f = tile.cast %t : tensor<4x8xf16, #l> -> tensor<4x8xf32, #l>
  tile.store %vy[%r0, %c0], %f : !tile.view<?x?xf32>, tensor<4x8xf32, #l>
  %zero = arith.constant 0 : i32
  %vp = tile.view %P() : !tile.ptr<f32> -> !tile.view<4x8xf32>
  tile.store %vp[%zero, %zero], %f : !tile.view<4x8xf32>, tensor<4x8xf32, #l>
  %u = tile.load %vu[%r0, %c0] : !tile.view<?x?xi3> -> tensor<4x8xi3, #l>
  tile.store %vv[%r0, %c0], %u : !tile.view<?x?xi3>, tensor<4x8xi3, #l>
  return
}
)mlir";
  std::optional<CpuKernel> k = compileOnCpu(source);
  ASSERT_TRUE(k.has_value());
  using Fn = void (*)(void *, void *, void *, void *, void *, int32_t, int32_t,
                      int32_t, int32_t);
  auto fn = reinterpret_cast<Fn>(reinterpret_cast<void *>(k->fn));
  const int M = 5, N = 11;
  std::mt19937 rng(99);
  for (auto [r0, c0] : std::vector<std::pair<int, int>>{
           {0, 0}, {1, 3}, {-2, -5}, {3, 7}, {4, -1}, {-4, 11}}) {
    SCOPED_TRACE("offsets " + std::to_string(r0) + "," + std::to_string(c0));
    std::vector<uint16_t> x(M * N);
    for (auto &h : x)
      h = num::f32ToF16(float(int(rng() % 200) - 100) / 8.0f);
    std::vector<float> y(M * N, -7.0f);
    std::vector<uint8_t> u((M * N * 3 + 7) / 8 + 4), v(u.size());
    for (auto &byte : u)
      byte = uint8_t(rng());
    for (auto &byte : v)
      byte = uint8_t(rng());
    std::vector<uint8_t> vBefore = v;
    std::vector<float> p(32, 0.0f);
    fn(x.data(), y.data(), u.data(), v.data(), p.data(), M, N, r0, c0);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) {
        int gi = r0 + i, gj = c0 + j;
        bool inside = gi >= 0 && gi < M && gj >= 0 && gj < N;
        float want = inside ? num::f16ToF32(x[gi * N + gj]) : -INFINITY;
        EXPECT_EQ(p[i * 8 + j], want) << "tile " << i << "," << j;
      }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        bool inside = i >= r0 && i < r0 + 4 && j >= c0 && j < c0 + 8;
        float want = inside ? num::f16ToF32(x[i * N + j]) : -7.0f;
        EXPECT_EQ(y[i * N + j], want) << i << "," << j;
        uint32_t wantCode = inside ? readCode(u, i * N + j, 3)
                                   : readCode(vBefore, i * N + j, 3);
        EXPECT_EQ(readCode(v, i * N + j, 3), wantCode) << i << "," << j;
      }
    // Bits past the stream are untouched.
    for (int bit = M * N * 3; bit < int(v.size()) * 8; ++bit)
      EXPECT_EQ((v[bit / 8] >> (bit % 8)) & 1,
                (vBefore[bit / 8] >> (bit % 8)) & 1);
  }
}

} // namespace
