//===- ShuffleConvertTest.cpp - Warp-shuffle conversions on the CPU -------===//
//
// Part of tilec. Runs the generic GPU lowering of tile.convert_layout on the
// CPU, one thread at a time, to check the warp-shuffle path bit for bit:
// every shuffleIndex call site records what each thread sends; a second
// pass over all threads reads, at each call site, what the source lane sent
// in the first pass. The values a conversion sends come from the thread's
// own source registers only, so the second pass sees exactly what a warp
// executing in lockstep would. Each kernel loads a tile, converts it and
// stores it: the output must equal the input.
//
//===----------------------------------------------------------------------===//

#include "CpuTargetLowering.h"
#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;

namespace {

/// Host-side state the lowered kernel reads and writes through constant
/// addresses.
struct SimState {
  int32_t tid = 0;
  int64_t threads = 0;
  std::vector<uint32_t> sent, recv; // [site * threads + thread]
  std::vector<uint8_t> shared = std::vector<uint8_t>(1 << 16, 0);
};

class ShuffleSimTarget final : public ::tile::test::CpuTargetLowering {
public:
  ShuffleSimTarget(SimState &state, int64_t maxSites, int64_t warpSize)
      : state(state), maxSites(maxSites), warp(warpSize) {
    info.warpSize = warpSize;
  }
  Value threadId(OpBuilder &b, Location loc) override {
    return LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                address(b, loc, &state.tid), 4);
  }
  Value shuffleXor(OpBuilder &, Location, Value v, unsigned) override {
    ADD_FAILURE() << "unexpected shuffleXor";
    return v;
  }
  /// sent[site][tid] = value; returns recv[site][warp base + srcLane].
  Value shuffleIndex(OpBuilder &b, Location loc, Value value,
                     Value srcLane) override {
    EXPECT_TRUE(value.getType().isInteger(32));
    int64_t site = sites++;
    EXPECT_LT(site, maxSites);
    Type i32 = b.getI32Type();
    Value tid = threadId(b, loc);
    auto slot = [&](uint32_t *base, Value thread) {
      Value idx = arith::AddIOp::create(
          b, loc, thread,
          arith::ConstantIntOp::create(b, loc, i32, site * state.threads));
      Value off = arith::MulIOp::create(
          b, loc, idx, arith::ConstantIntOp::create(b, loc, i32, 4));
      return LLVM::GEPOp::create(b, loc, ptrType(b), b.getI8Type(),
                                 address(b, loc, base), ValueRange{off});
    };
    LLVM::StoreOp::create(b, loc, value, slot(state.sent.data(), tid), 4);
    Value base = arith::SubIOp::create(
        b, loc, tid,
        arith::RemUIOp::create(
            b, loc, tid, arith::ConstantIntOp::create(b, loc, i32, warp)));
    Value src = arith::AddIOp::create(b, loc, base, srcLane);
    return LLVM::LoadOp::create(b, loc, i32, slot(state.recv.data(), src), 4);
  }
  Value sharedMemoryBase(OpBuilder &b, Location loc, ModuleOp) override {
    return address(b, loc, state.shared.data());
  }

  int64_t numSites() const { return sites; }

private:
  static Type ptrType(OpBuilder &b) {
    return LLVM::LLVMPointerType::get(b.getContext());
  }
  Value address(OpBuilder &b, Location loc, const void *p) {
    Value i = arith::ConstantIntOp::create(
        b, loc, b.getI64Type(), int64_t(reinterpret_cast<intptr_t>(p)));
    return LLVM::IntToPtrOp::create(b, loc, ptrType(b), i);
  }

  SimState &state;
  int64_t maxSites, warp;
  int64_t sites = 0;
};

struct Case {
  const char *name;
  const char *elem;  ///< MLIR element type
  unsigned bits;     ///< element width
  const char *shape; ///< e.g. "8x8"
  int64_t elements;
  const char *src, *dst;
  int64_t warps;
  bool expectShuffles;
};

/// Loads a tile in `src`, converts it to `dst`, stores it.
std::string convertKernel(const Case &c) {
  std::string tile = std::string(c.shape) + "x" + c.elem;
  std::string view = "!tile.view<" + tile + ">";
  std::string srcT = "tensor<" + tile + ", #tile.layout<" + c.src + ">>";
  std::string dstT = "tensor<" + tile + ", #tile.layout<" + c.dst + ">>";
  std::string ptr = std::string("!tile.ptr<") + c.elem + ">";
  return "func.func @k(%x: " + ptr + ", %y: " + ptr +
         ")\n    attributes {tile.kernel, tile.warps = " +
         std::to_string(c.warps) +
         " : i32, tile.warp_size = 32 : i32} {\n"
         "  %c0 = arith.constant 0 : i32\n"
         "  %vx = tile.view %x() : " +
         ptr + " -> " + view + "\n" + "  %vy = tile.view %y() : " + ptr +
         " -> " + view + "\n" + "  %t = tile.load %vx[%c0, %c0] : " + view +
         " -> " + srcT + "\n" + "  %u = tile.convert_layout %t : " + srcT +
         " -> " + dstT + "\n" + "  tile.store %vy[%c0, %c0], %u : " + view +
         ", " + dstT + "\n" + "  return\n}\n";
}

void runCase(const Case &c) {
  SCOPED_TRACE(c.name);
  std::unique_ptr<MLIRContext> ctx = ::tile::test::makeContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(convertKernel(c), ctx.get());
  ASSERT_TRUE(module);
  const int64_t maxSites = 64;
  SimState state;
  state.threads = c.warps * 32;
  state.sent.assign(maxSites * state.threads, 0);
  state.recv.assign(maxSites * state.threads, 0);
  ShuffleSimTarget target(state, maxSites, 32);
  ASSERT_TRUE(succeeded(::tile::gpu::lowerTileToLLVM(*module, target)));
  if (c.expectShuffles)
    EXPECT_GT(target.numSites(), 0) << "the conversion did not use shuffles";
  auto engine = ::tile::test::createCpuEngine(*module);
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  auto fn = (*engine)->lookup("k");
  ASSERT_TRUE(bool(fn)) << llvm::toString(fn.takeError());
  auto k = reinterpret_cast<void (*)(void *, void *)>(*fn);

  int64_t bytes = (c.elements * c.bits + 7) / 8;
  std::vector<uint8_t> x(bytes), y(bytes);
  std::mt19937 rng(c.bits * 31 + c.elements);
  for (uint8_t &v : x)
    v = uint8_t(rng());
  for (int pass = 0; pass < 2; ++pass) {
    std::fill(y.begin(), y.end(), 0xA5);
    for (int64_t t = 0; t < state.threads; ++t) {
      state.tid = int32_t(t);
      k(x.data(), y.data());
    }
    state.recv = state.sent;
  }
  for (int64_t i = 0; i < bytes; ++i)
    ASSERT_EQ(int(y[i]), int(x[i])) << "byte " << i;
}

TEST(GPULoweringOnCpu, WarpShuffleConversions) {
  const Case cases[] = {
      // Row-major to column-major threads, two rows per thread: f16 pairs
      // travel in one 32-bit shuffle.
      {"f16 transpose", "f16", 16, "8x8", 64, "spatial(4,8) * local(2,1)",
       "column_spatial(4,8) * local(2,1)", 1, true},
      {"f32 transpose", "f32", 32, "8x8", 64, "spatial(4,8) * local(2,1)",
       "column_spatial(4,8) * local(2,1)", 1, true},
      {"i8 transpose", "i8", 8, "16x8", 128, "spatial(4,8) * local(4,1)",
       "column_spatial(4,8) * local(4,1)", 1, true},
      {"i4 transpose", "i4", 4, "8x8", 64, "spatial(4,8) * local(2,1)",
       "column_spatial(4,8) * local(2,1)", 1, true},
      // Two warps, each transposing its own half.
      {"f16 two warps", "f16", 16, "16x8", 128,
       "spatial(2,1) * spatial(4,8) * local(2,1)",
       "spatial(2,1) * column_spatial(4,8) * local(2,1)", 2, true},
      // Registers move between slots as well as lanes.
      {"f16 slots and lanes", "f16", 16, "8x8", 64, "spatial(4,8) * local(2,1)",
       "local(2,1) * spatial(4,8)", 1, true},
  };
  for (const Case &c : cases)
    runCase(c);
}

} // namespace

// TargetLowering's default permuteBytes (the shifts, masks and ors of
// targets without a byte-permute instruction) against PTX prmt's default
// mode: result byte k is byte (sel >> 4k) & 7 of (a, c), 0-3 from a.
TEST(GPULoweringOnCpu, DefaultPermuteBytesIsPrmt) {
  std::unique_ptr<MLIRContext> ctx = ::tile::test::makeContext();
  ::tile::test::CpuTargetLowering target;
  OpBuilder b(ctx.get());
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  const uint32_t selectors[] = {0x3210, 0x4240, 0x2404, 0x4341, 0x7654,
                                0x0123, 0x5140, 0x3333, 0x6420};
  const uint32_t c = 0x9C64F00Du;
  Type i32 = b.getI32Type();
  for (auto [i, sel] : llvm::enumerate(selectors)) {
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc, "p" + std::to_string(i),
                                   b.getFunctionType({i32}, {i32}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value r = target.permuteBytes(b, loc, entry->getArgument(0), c, sel);
    func::ReturnOp::create(b, loc, r);
  }
  PassManager pm(ctx.get());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto engine = ::tile::test::createCpuEngine(*module);
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  std::mt19937 rng(7);
  for (auto [i, sel] : llvm::enumerate(selectors)) {
    auto fn = (*engine)->lookup("p" + std::to_string(i));
    ASSERT_TRUE(bool(fn)) << llvm::toString(fn.takeError());
    auto f = reinterpret_cast<uint32_t (*)(uint32_t)>(*fn);
    for (int trial = 0; trial < 16; ++trial) {
      uint32_t a = uint32_t(rng());
      uint64_t pair = uint64_t(a) | uint64_t(c) << 32;
      uint32_t want = 0;
      for (unsigned k = 0; k < 4; ++k)
        want |= uint32_t((pair >> (8 * ((sel >> (4 * k)) & 7))) & 0xFF)
                << (8 * k);
      EXPECT_EQ(f(a), want) << "selector " << std::hex << sel << ", a " << a;
    }
  }
}
