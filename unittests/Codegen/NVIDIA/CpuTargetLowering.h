//===- CpuTargetLowering.h - The generic GPU lowering on the CPU -*- C++
//-*-===//
//
// Part of tilec. A TargetLowering whose code runs on the CPU (through MLIR's
// ExecutionEngine), shared by the unit tests that execute the generic GPU
// lowering: one thread per program, address space 0 everywhere, no matrix
// instructions or asynchronous copies, shuffles that return their input,
// math through the math dialect. Tests override what they emulate.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_CODEGEN_NVIDIA_CPUTARGETLOWERING_H
#define TILE_UNITTESTS_CODEGEN_NVIDIA_CPUTARGETLOWERING_H

#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>

namespace tile::test {

/// A context with the tile dialect and everything the GPU lowering emits.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// JIT-compiles a lowered (LLVM-dialect) module for the host, without
/// optimization.
llvm::Expected<std::unique_ptr<mlir::ExecutionEngine>>
createCpuEngine(mlir::ModuleOp module);

/// A tile kernel `k` lowered with some TargetLowering and JIT-compiled.
struct CpuJitKernel {
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void *fn = nullptr;
};

/// Parses `source`, lowers it with `target`, JIT-compiles it and looks up
/// its function `k`; std::nullopt (with the error printed) on failure.
std::optional<CpuJitKernel> lowerAndJit(llvm::StringRef source,
                                        ::tile::gpu::TargetLowering &target);

class CpuTargetLowering : public ::tile::gpu::TargetLowering {
public:
  /// Takes the parameters (warp size, limits) of the target named `target`.
  explicit CpuTargetLowering(llvm::StringRef target = "host")
      : info(*::tile::TargetInfo::lookup(target)) {}

  const ::tile::TargetInfo &getTargetInfo() const override { return info; }
  unsigned getGlobalAddressSpace() const override { return 0; }
  unsigned getSharedAddressSpace() const override { return 0; }
  mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc) override {
    return constI32(b, loc, 0);
  }
  mlir::Value programId(mlir::OpBuilder &b, mlir::Location loc,
                        unsigned) override {
    return constI32(b, loc, 0);
  }
  mlir::Value numPrograms(mlir::OpBuilder &b, mlir::Location loc,
                          unsigned) override {
    return constI32(b, loc, 1);
  }
  void barrier(mlir::OpBuilder &, mlir::Location) override {}
  mlir::Value shuffleXor(mlir::OpBuilder &, mlir::Location, mlir::Value v,
                         unsigned) override {
    return v;
  }
  mlir::Value shuffleIndex(mlir::OpBuilder &, mlir::Location, mlir::Value v,
                           mlir::Value) override {
    return v;
  }
  /// No shared memory: a null pointer.
  mlir::Value sharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ModuleOp) override {
    return mlir::LLVM::ZeroOp::create(
        b, loc, mlir::LLVM::LLVMPointerType::get(b.getContext()));
  }
  std::optional<::tile::gpu::MmaAtom> getMmaAtom(mlir::Type,
                                                 mlir::Type) const override {
    return std::nullopt;
  }
  llvm::SmallVector<mlir::Value> mma(mlir::OpBuilder &, mlir::Location,
                                     const ::tile::gpu::MmaAtom &,
                                     mlir::ValueRange, mlir::ValueRange,
                                     mlir::ValueRange) override {
    return {};
  }
  bool hasAsyncCopy() const override { return false; }
  void asyncCopy(mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::Value,
                 unsigned, mlir::Value) override {}
  void asyncCommitGroup(mlir::OpBuilder &, mlir::Location) override {}
  void asyncWait(mlir::OpBuilder &, mlir::Location, unsigned) override {}
  mlir::Value exp2(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value x) override {
    return mlir::math::Exp2Op::create(b, loc, x);
  }
  mlir::Value log2(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value x) override {
    return mlir::math::Log2Op::create(b, loc, x);
  }
  mlir::Value rsqrt(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Value x) override {
    return mlir::math::RsqrtOp::create(b, loc, x);
  }
  void markKernel(mlir::LLVM::LLVMFuncOp, unsigned, unsigned,
                  unsigned) override {}

protected:
  static mlir::Value constI32(mlir::OpBuilder &b, mlir::Location loc,
                              int32_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }

  ::tile::TargetInfo info;
};

} // namespace tile::test

#endif // TILE_UNITTESTS_CODEGEN_NVIDIA_CPUTARGETLOWERING_H
