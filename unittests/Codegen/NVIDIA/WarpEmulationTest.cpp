//===- WarpEmulationTest.cpp - ldmatrix + mma.sync lowering on the CPU ----===//
//
// Part of tilec. Runs the generic GPU lowering of dots whose operands are
// read from shared memory (operand fusion: ldmatrix[.trans] or vector
// loads, k blocks outer) on the CPU, with 4 warps of 32 emulated threads.
// The lowered kernel runs once per thread, one thread after the other; its
// thread index, ldmatrix and mma.sync are calls into this file:
//  - ldmatrix records each lane's row address and returns the fragment that
//    the PTX ISA defines (lane l: row l / 4, bytes 4 (l % 4) .. + 3; with
//    .trans, b16 elements (2 (l % 4) + i, l / 4)) from the row addresses
//    that all 32 lanes of the warp passed to the same call in the previous
//    run;
//  - mma.sync m16n8k16 records each lane's A/B registers and computes the
//    lane's D from the previous run's records of the whole warp with the
//    PTX ISA fragment formulas (groupID = l / 4, threadID_in_group = l % 4).
// Addresses do not depend on data and the shared tiles are complete after
// the first run, so the third run computes every product from correct
// fragments. The result is compared exactly (small integers) with A x B.
//
//===----------------------------------------------------------------------===//

#include "CpuTargetLowering.h"
#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Layout/MmaAtoms.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// The emulated warp
//===----------------------------------------------------------------------===//

struct Emulator {
  int tid = 0;
  int run = 0;
  alignas(16) std::array<uint8_t, 32768> smem{};
  std::map<int, int> ldCalls, mmaCalls;
  // (run, warp, call) -> per-lane row address / A,B registers.
  std::map<std::tuple<int, int, int>, std::array<const uint8_t *, 32>> rows;
  std::map<std::tuple<int, int, int>, std::array<std::array<uint32_t, 6>, 32>>
      ops;
  int64_t ldmatrixCalls = 0;
};
Emulator *emu = nullptr;

float halfToFloat(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v = exp == 0 ? std::ldexp(float(man), -24)
                     : std::ldexp(float(man | 1024), exp - 25);
  return sign ? -v : v;
}

uint16_t smallIntToHalf(int v) {
  // Exact for |v| < 2048.
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int a = std::abs(v), e = 0;
  while ((a >> e) > 1)
    ++e;
  uint16_t man = uint16_t(((a << 10) >> e) & 1023);
  return uint16_t(sign | ((e + 15) << 10) | man);
}

extern "C" int32_t tileEmuTid() { return emu->tid; }
extern "C" void *tileEmuSmem() { return emu->smem.data(); }

extern "C" void tileEmuLdmatrix(const uint8_t *addr, int32_t num, int32_t trans,
                                int32_t *out) {
  int warp = emu->tid / 32, lane = emu->tid % 32;
  int call = emu->ldCalls[emu->tid]++;
  emu->rows[{emu->run, warp, call}][lane] = addr;
  ++emu->ldmatrixCalls;
  auto prev = emu->rows.find({emu->run - 1, warp, call});
  for (int j = 0; j < num; ++j) {
    uint32_t v = 0;
    if (prev != emu->rows.end()) {
      const auto &r = prev->second;
      if (!trans) {
        std::memcpy(&v, r[8 * j + lane / 4] + 4 * (lane % 4), 4);
      } else {
        uint16_t lo, hi;
        std::memcpy(&lo, r[8 * j + 2 * (lane % 4)] + 2 * (lane / 4), 2);
        std::memcpy(&hi, r[8 * j + 2 * (lane % 4) + 1] + 2 * (lane / 4), 2);
        v = lo | (uint32_t(hi) << 16);
      }
    }
    out[j] = int32_t(v);
  }
}

extern "C" void tileEmuMma(int32_t a0, int32_t a1, int32_t a2, int32_t a3,
                           int32_t b0, int32_t b1, float c0, float c1, float c2,
                           float c3, float *out) {
  int warp = emu->tid / 32, lane = emu->tid % 32;
  int call = emu->mmaCalls[emu->tid]++;
  emu->ops[{emu->run, warp, call}][lane] = {uint32_t(a0), uint32_t(a1),
                                            uint32_t(a2), uint32_t(a3),
                                            uint32_t(b0), uint32_t(b1)};
  float c[4] = {c0, c1, c2, c3};
  auto prev = emu->ops.find({emu->run - 1, warp, call});
  // m16n8k16, f16: a_i at row g + 8 ((i / 2) % 2), col 2t + (i % 2) +
  // 8 (i / 4); b_i at row 2t + (i % 2) + 8 (i / 2), col g; c_i at row
  // g + 8 (i / 2), col 2t + (i % 2) (g = lane / 4, t = lane % 4).
  auto aElem = [&](int r, int k) {
    int src = (r % 8) * 4 + (k % 8) / 2;
    int i = (k % 2) + 2 * (r / 8) + 4 * (k / 8);
    uint32_t reg = prev->second[src][i / 2];
    return halfToFloat(uint16_t(reg >> (16 * (i % 2))));
  };
  auto bElem = [&](int k, int n) {
    int src = n * 4 + (k % 8) / 2;
    int i = (k % 2) + 2 * (k / 8);
    uint32_t reg = prev->second[src][4 + i / 2];
    return halfToFloat(uint16_t(reg >> (16 * (i % 2))));
  };
  for (int i = 0; i < 4; ++i) {
    out[i] = c[i];
    if (prev == emu->ops.end())
      continue;
    int r = lane / 4 + 8 * (i / 2), n = 2 * (lane % 4) + (i % 2);
    double sum = c[i];
    for (int k = 0; k < 16; ++k)
      sum += double(aElem(r, k)) * double(bElem(k, n));
    out[i] = float(sum);
  }
}

/// A 4-warp NVIDIA-like target whose warp-level operations call the
/// emulator above.
class EmuTargetLowering final : public ::tile::test::CpuTargetLowering {
public:
  EmuTargetLowering() : CpuTargetLowering("sm_80") {}

  static LLVM::LLVMFuncOp declare(OpBuilder &b, StringRef name, Type result,
                                  ArrayRef<Type> args) {
    auto module =
        b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return f;
    OpBuilder mb(module.getBodyRegion());
    return LLVM::LLVMFuncOp::create(mb, module.getLoc(), name,
                                    LLVM::LLVMFunctionType::get(result, args));
  }
  static Value call(OpBuilder &b, Location loc, StringRef name, Type result,
                    ValueRange args) {
    SmallVector<Type> types(args.getTypes());
    LLVM::LLVMFuncOp f = declare(b, name, result, types);
    auto op = LLVM::CallOp::create(b, loc, f, args);
    return op.getNumResults() ? op.getResult() : Value();
  }
  Value threadId(OpBuilder &b, Location loc) override {
    return call(b, loc, "tileEmuTid", b.getI32Type(), {});
  }
  Value sharedMemoryBase(OpBuilder &b, Location loc, ModuleOp) override {
    return call(b, loc, "tileEmuSmem",
                LLVM::LLVMPointerType::get(b.getContext()), {});
  }
  std::optional<::tile::gpu::MmaAtom> getMmaAtom(Type operand,
                                                 Type acc) const override {
    if (!operand.isF16() || !acc.isF32())
      return std::nullopt;
    using ::tile::layout::MmaOperand;
    ::tile::gpu::MmaAtom atom;
    atom.m = 16, atom.n = 8, atom.k = 16;
    atom.a = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::A);
    atom.b = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::B);
    atom.c = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::C);
    return atom;
  }
  Value alloca4(OpBuilder &b, Location loc, Type elem) {
    Value four = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 4);
    return LLVM::AllocaOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), elem, four);
  }
  Value loadAt(OpBuilder &b, Location loc, Value base, Type elem, int i) {
    Value p = LLVM::GEPOp::create(b, loc, base.getType(), elem, base,
                                  ArrayRef<LLVM::GEPArg>{i});
    return LLVM::LoadOp::create(b, loc, elem, p);
  }
  SmallVector<Value> mma(OpBuilder &b, Location loc,
                         const ::tile::gpu::MmaAtom &, ValueRange a,
                         ValueRange bOp, ValueRange c) override {
    SmallVector<Value> args;
    auto pack = [&](ValueRange slots) {
      auto vt = VectorType::get({2}, slots[0].getType());
      for (unsigned i = 0; i < slots.size(); i += 2) {
        Value v = LLVM::PoisonOp::create(b, loc, vt);
        for (unsigned k = 0; k < 2; ++k)
          v = LLVM::InsertElementOp::create(
              b, loc, v, slots[i + k],
              arith::ConstantIntOp::create(b, loc, b.getI32Type(), k));
        args.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
      }
    };
    pack(a);
    pack(bOp);
    llvm::append_range(args, c);
    Value out = alloca4(b, loc, b.getF32Type());
    args.push_back(out);
    call(b, loc, "tileEmuMma", LLVM::LLVMVoidType::get(b.getContext()), args);
    SmallVector<Value> d;
    for (int i = 0; i < 4; ++i)
      d.push_back(loadAt(b, loc, out, b.getF32Type(), i));
    return d;
  }
  bool hasMatrixLoad(unsigned bits, bool) const override { return bits == 16; }
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value rowAddress,
                                  unsigned num, bool transpose) override {
    Value out = alloca4(b, loc, b.getI32Type());
    Type i32 = b.getI32Type();
    call(b, loc, "tileEmuLdmatrix", LLVM::LLVMVoidType::get(b.getContext()),
         {rowAddress, arith::ConstantIntOp::create(b, loc, i32, num),
          arith::ConstantIntOp::create(b, loc, i32, transpose), out});
    SmallVector<Value> regs;
    for (unsigned i = 0; i < num; ++i)
      regs.push_back(loadAt(b, loc, out, i32, i));
    return regs;
  }
};

//===----------------------------------------------------------------------===//
// Kernels: C (64x64 f32) = A (64x32) x B (32x64), both through shared memory
//===----------------------------------------------------------------------===//

const char *kLayouts = R"mlir(
#blkA = #tile.layout<local(2,1) * spatial(32,4) * local(1,8)>
#blkB = #tile.layout<local(2,1) * spatial(16,8) * local(1,8)>
#mmaA = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,2)>
#mmaB = #tile.layout<replicate(4) * local(2,8) * local(2,1) * column_spatial(4,8) * local(2,1)>
#mmaBt = #tile.layout<replicate(4) * column_local(8,2) * local(1,2) * spatial(8,4) * local(1,2)>
#mmaC = #tile.layout<spatial(4,1) * local(1,8) * local(2,1) * spatial(8,4) * local(1,2)>
)mlir";

/// `bKMajor`: B comes from a [N, K] tensor (k contiguous, no .trans).
std::string gemmKernel(const std::string &aLayout, const std::string &bLayout,
                       bool bKMajor, bool epilogue) {
  std::string sa =
      "!tile.shared<64x32xf16, #tile.shared_layout<" + aLayout + ">>";
  std::string sb =
      bKMajor ? "!tile.shared<64x32xf16, #tile.shared_layout<" + bLayout + ">>"
              : "!tile.shared<32x64xf16, #tile.shared_layout<" + bLayout + ">>";
  std::string s = kLayouts;
  s += "func.func @k(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: "
       "!tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, "
       "tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = "
       "16384 : i64} {\n";
  s += "  %c0 = arith.constant 0 : i32\n";
  s += "  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>\n";
  s += "  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>\n";
  s += "  %sa = tile.alloc_shared {tile.offset = 0 : i64} : " + sa + "\n";
  s += "  %sb = tile.alloc_shared {tile.offset = 8192 : i64} : " + sb + "\n";
  s += "  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> "
       "tensor<64x32xf16, #blkA>\n";
  s += "  tile.shared_store %sa[%c0, %c0], %a : " + sa +
       ", tensor<64x32xf16, #blkA>\n";
  if (bKMajor) {
    s += "  %vb = tile.view %B(%N, %K) : !tile.ptr<f16> -> "
         "!tile.view<?x?xf16>\n";
    s += "  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> "
         "tensor<64x32xf16, #blkA>\n";
    s += "  tile.shared_store %sb[%c0, %c0], %b : " + sb +
         ", tensor<64x32xf16, #blkA>\n";
  } else {
    s += "  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> "
         "!tile.view<?x?xf16>\n";
    s += "  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> "
         "tensor<32x64xf16, #blkB>\n";
    s += "  tile.shared_store %sb[%c0, %c0], %b : " + sb +
         ", tensor<32x64xf16, #blkB>\n";
  }
  s += "  tile.barrier\n";
  s += "  %x = tile.shared_load %sa[%c0, %c0] : " + sa +
       " -> tensor<64x32xf16, #mmaA>\n";
  if (bKMajor) {
    s += "  %y0 = tile.shared_load %sb[%c0, %c0] : " + sb +
         " -> tensor<64x32xf16, #mmaBt>\n";
    s += "  %y = tile.trans %y0 : tensor<64x32xf16, #mmaBt> -> "
         "tensor<32x64xf16, #mmaB>\n";
  } else {
    s += "  %y = tile.shared_load %sb[%c0, %c0] : " + sb +
         " -> tensor<32x64xf16, #mmaB>\n";
  }
  s += "  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>\n";
  s += "  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, "
       "tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> "
       "tensor<64x64xf32, #mmaC>\n";
  std::string result = "%d";
  if (epilogue) {
    s += "  %old = tile.load %vc[%c0, %c0] : !tile.view<?x?xf32> -> "
         "tensor<64x64xf32, #mmaC>\n";
    s += "  %e = arith.addf %old, %d : tensor<64x64xf32, #mmaC>\n";
    result = "%e";
  }
  s += "  tile.store %vc[%c0, %c0], " + result +
       " : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>\n";
  s += "  return\n}\n";
  return s;
}

using KernelFn = void (*)(void *, void *, void *, int32_t, int32_t, int32_t);

/// Lowers `source` with the emulated target, runs it three times over all
/// 128 threads and compares C with the exact product.
void runGemm(const std::string &source, bool bKMajor, bool epilogue,
             bool expectLdmatrix) {
  std::unique_ptr<MLIRContext> ctx = ::tile::test::makeContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, ctx.get());
  ASSERT_TRUE(module);
  EmuTargetLowering target;
  ASSERT_TRUE(succeeded(::tile::gpu::lowerTileToLLVM(*module, target)));
  auto engine = ::tile::test::createCpuEngine(*module);
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, void *fn) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                             llvm::JITSymbolFlags::Exported};
    };
    add("tileEmuTid", reinterpret_cast<void *>(&tileEmuTid));
    add("tileEmuSmem", reinterpret_cast<void *>(&tileEmuSmem));
    add("tileEmuLdmatrix", reinterpret_cast<void *>(&tileEmuLdmatrix));
    add("tileEmuMma", reinterpret_cast<void *>(&tileEmuMma));
    return map;
  });
  auto fn = (*engine)->lookup("k");
  ASSERT_TRUE(bool(fn)) << llvm::toString(fn.takeError());
  auto kernel = reinterpret_cast<KernelFn>(*fn);

  const int m = 64, n = 64, k = 32;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<int> a(m * k), bm(k * n), old(m * n);
  for (int &v : a)
    v = dist(rng);
  for (int &v : bm)
    v = dist(rng);
  for (int &v : old)
    v = dist(rng) * 3;
  std::vector<uint16_t> ha(m * k), hb(k * n);
  for (int i = 0; i < m * k; ++i)
    ha[i] = smallIntToHalf(a[i]);
  // B as stored: [K, N] row-major, or [N, K] row-major when k-major.
  for (int kk = 0; kk < k; ++kk)
    for (int nn = 0; nn < n; ++nn)
      hb[bKMajor ? nn * k + kk : kk * n + nn] = smallIntToHalf(bm[kk * n + nn]);

  Emulator state;
  emu = &state;
  std::vector<float> c(m * n);
  for (state.run = 0; state.run < 3; ++state.run) {
    for (int i = 0; i < m * n; ++i)
      c[i] = float(old[i]);
    state.ldCalls.clear();
    state.mmaCalls.clear();
    for (state.tid = 0; state.tid < 128; ++state.tid)
      kernel(ha.data(), hb.data(), c.data(), m, n, k);
  }
  emu = nullptr;
  EXPECT_EQ(state.ldmatrixCalls > 0, expectLdmatrix);
  int mismatches = 0;
  for (int i = 0; i < m && mismatches < 8; ++i)
    for (int j = 0; j < n && mismatches < 8; ++j) {
      double want = epilogue ? old[i * n + j] : 0;
      for (int kk = 0; kk < k; ++kk)
        want += double(a[i * k + kk]) * bm[kk * n + j];
      if (double(c[i * n + j]) != want) {
        ++mismatches;
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << c[i * n + j]
                      << ", want " << want;
      }
    }
}

TEST(WarpEmulation, LdmatrixRowMajorAndTransposedB) {
  // A: x4 per atom, swizzled rows of 64 bytes; B [K, N]: x4.trans.
  runGemm(gemmKernel("swizzle(2,3,3) o (64,32):(32,1)",
                     "swizzle(3,3,3) o (32,64):(64,1)", false, false),
          false, false, true);
}

TEST(WarpEmulation, LdmatrixKMajorB) {
  // B from [N, K]: k contiguous, no .trans; an unswizzled A.
  runGemm(gemmKernel("(64,32):(32,1)", "swizzle(2,3,3) o (64,32):(32,1)", true,
                     false),
          true, false, true);
}

TEST(WarpEmulation, PaddedRowsFallBackToVectorLoads) {
  // Rows of 36 / 68 elements: not 16-byte aligned, so no ldmatrix at all;
  // the fused per-k-block vector loads must give the same product.
  runGemm(gemmKernel("(64,32):(36,1)", "(32,64):(68,1)", false, false), false,
          false, false);
}

TEST(WarpEmulation, EpilogueAddPerAtomGroup) {
  // old + dot(a, b, 0): the add is applied per group of accumulator atoms.
  runGemm(gemmKernel("swizzle(2,3,3) o (64,32):(32,1)",
                     "swizzle(3,3,3) o (32,64):(64,1)", false, true),
          false, true, true);
}

} // namespace
