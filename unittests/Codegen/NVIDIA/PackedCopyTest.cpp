//===- PackedCopyTest.cpp - Packed sub-byte copy_async on the CPU ---------===//
//
// Part of tilec. The generic GPU lowering of tile.copy_async for 3-, 5-, 6-
// and 7-bit elements (rows copied as raw byte chunks, with an exact
// fallback for edges, misaligned rows and strided views) and of the
// following shared_load, run on the CPU: a one-thread "warp" whose shared
// memory is a global array. Every element of the tile is compared with an
// independent reference read of the packed input (zero outside the view).
//
//===----------------------------------------------------------------------===//

#include "CpuTargetLowering.h"
#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;

namespace {

constexpr int64_t kSharedBytes = 1 << 16;
constexpr char kSharedName[] = "__packed_copy_test_smem";

/// One thread per program; shared memory is a zero-initialized global.
class CpuSharedTargetLowering final : public ::tile::test::CpuTargetLowering {
public:
  Value sharedMemoryBase(OpBuilder &b, Location loc, ModuleOp module) override {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    if (!module.lookupSymbol(kSharedName)) {
      OpBuilder mb(module.getBodyRegion());
      auto type = LLVM::LLVMArrayType::get(mb.getI8Type(), kSharedBytes);
      LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/false,
                             LLVM::Linkage::Internal, kSharedName,
                             mb.getZeroAttr(type), /*alignment=*/128);
    }
    return LLVM::AddressOfOp::create(b, loc, ptr, kSharedName);
  }
};

using CopyFn = void (*)(void *, void *, int32_t, int32_t, int32_t, int32_t,
                        int32_t);

struct Kernel {
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<ExecutionEngine> engine;
  CopyFn fn = nullptr;
};

/// `k(W, O, K, N, k0, n0, stride)`: copies the RxC tile of W (K x N, row
/// stride `stride` elements when `strided`) at (k0, n0) into shared memory
/// with copy_async, reads it back with one thread and stores it densely to
/// O (R x C).
std::string copyKernel(unsigned bits, int64_t r, int64_t c, bool strided) {
  std::string e = "i" + std::to_string(bits);
  std::string shape = std::to_string(r) + "x" + std::to_string(c);
  std::string buf = "!tile.shared<" + shape + "x" + e +
                    ", #tile.shared_layout<(" + std::to_string(r) + "," +
                    std::to_string(c) + "):(" + std::to_string(c) + ",1)>>";
  std::string view = "!tile.view<?x?x" + e + ">";
  std::string tile = "tensor<" + shape + "x" + e + ", #tile.layout<local(" +
                     std::to_string(r) + "," + std::to_string(c) + ")>>";
  std::string strides = strided ? " strides(%stride, %c1)" : "";
  return R"(
func.func @k(%w: !tile.ptr<)" +
         e + ">, %o: !tile.ptr<" + e +
         R"(>, %K: i32, %N: i32, %k0: i32, %n0: i32, %stride: i32)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 1 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.view %w(%K, %N))" +
         strides + " : !tile.ptr<" + e + "> -> " + view + R"(
  %s = tile.alloc_shared {tile.offset = 0 : i64} : )" +
         buf + R"(
  tile.copy_async %v[%k0, %n0] -> %s[%c0, %c0] : )" +
         view + " -> " + buf + R"(
  tile.wait 0
  %t = tile.shared_load %s[%c0, %c0] : )" +
         buf + " -> " + tile + R"(
  %vo = tile.view %o() : !tile.ptr<)" +
         e + "> -> !tile.view<" + shape + "x" + e + R"(>
  tile.store %vo[%c0, %c0], %t : !tile.view<)" +
         shape + "x" + e + ">, " + tile + R"(
  return
}
)";
}

std::optional<Kernel> compile(const std::string &source) {
  Kernel k;
  CpuSharedTargetLowering target;
  std::optional<::tile::test::CpuJitKernel> jit =
      ::tile::test::lowerAndJit(source, target);
  if (!jit)
    return std::nullopt;
  k.ctx = std::move(jit->ctx);
  k.engine = std::move(jit->engine);
  k.fn = reinterpret_cast<CopyFn>(jit->fn);
  return k;
}

/// Element i of an LSB-first packed stream of `bits`-bit codes.
uint32_t readCode(const uint8_t *bytes, int64_t i, unsigned bits) {
  uint32_t code = 0;
  for (unsigned k = 0; k < bits; ++k) {
    int64_t bit = i * bits + k;
    code |= uint32_t((bytes[bit / 8] >> (bit % 8)) & 1) << k;
  }
  return code;
}

struct Case {
  unsigned bits;
  int64_t rows, cols;
  bool strided;
};

void runCase(const Case &c) {
  SCOPED_TRACE("u" + std::to_string(c.bits) + " " + std::to_string(c.rows) +
               "x" + std::to_string(c.cols) + (c.strided ? " strided" : ""));
  std::optional<Kernel> k =
      compile(copyKernel(c.bits, c.rows, c.cols, c.strided));
  ASSERT_TRUE(k.has_value());
  std::mt19937 rng(c.bits * 1000 + c.cols + c.strided);
  // Sizes: rows of whole chunks (fast path), rows not a whole number of
  // bytes (every row misaligned), and partial tiles at the edges.
  for (auto [K, N] : std::vector<std::pair<int, int>>{
           {int(c.rows), int(c.cols)}, {9, 256}, {7, 131}, {5, 130}}) {
    int stride = c.strided ? N + 3 : N;
    for (auto [k0, n0] :
         std::vector<std::pair<int, int>>{{0, 0},
                                          {2, 0},
                                          {K - 3, N - c.cols / 2},
                                          {-2, -5},
                                          {1, 7},
                                          {K - 1, 0},
                                          {0, N - c.cols},
                                          {-int(c.rows), 0}}) {
      SCOPED_TRACE("K=" + std::to_string(K) + " N=" + std::to_string(N) +
                   " at " + std::to_string(k0) + "," + std::to_string(n0));
      // Exactly the bytes the view spans (no slack): any read past it
      // would be caught by tools such as ASan and shows in no padding.
      int64_t elems = int64_t(K - 1) * stride + N;
      std::vector<uint8_t> w((elems * c.bits + 7) / 8);
      for (uint8_t &byte : w)
        byte = uint8_t(rng());
      std::vector<uint8_t> o((c.rows * c.cols * c.bits + 7) / 8 + 8, 0xA5);
      k->fn(w.data(), o.data(), K, N, k0, n0, stride);
      int bad = 0;
      for (int64_t i = 0; i < c.rows && bad < 8; ++i)
        for (int64_t j = 0; j < c.cols && bad < 8; ++j) {
          int64_t gi = k0 + i, gj = n0 + j;
          bool inside = gi >= 0 && gi < K && gj >= 0 && gj < N;
          uint32_t want =
              inside ? readCode(w.data(), gi * stride + gj, c.bits) : 0;
          uint32_t got = readCode(o.data(), i * c.cols + j, c.bits);
          if (want != got) {
            ++bad;
            ADD_FAILURE() << "element " << i << "," << j << ": want " << want
                          << ", got " << got;
          }
        }
    }
  }
}

TEST(GPULoweringOnCpu, PackedOddBitCopyAsync) {
  // 3 bits x 64 columns: 24-byte rows, 8-byte chunks; 5 and 7 bits x 128:
  // 80- and 112-byte rows, 16-byte chunks; 6 bits x 32: 24-byte rows.
  for (const Case &c :
       {Case{3, 4, 64, false}, Case{5, 3, 128, false}, Case{6, 4, 32, false},
        Case{7, 2, 128, false}, Case{3, 4, 64, true}, Case{5, 3, 128, true}})
    runCase(c);
}

} // namespace
