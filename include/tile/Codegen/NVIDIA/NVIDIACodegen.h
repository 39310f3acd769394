//===- NVIDIACodegen.h - Tile dialect to NVVM, PTX and cubin ----*- C++ -*-===//
//
// Part of tilec. The NVIDIA code generator: the generic GPU lowering of
// lib/Codegen/GPU with NVVM ops for the vendor-specific parts, then LLVM IR,
// the NVPTX backend (PTX) and ptxas (cubin). See docs/Passes.md, "NVIDIA".
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_NVIDIA_NVIDIACODEGEN_H
#define TILE_CODEGEN_NVIDIA_NVIDIACODEGEN_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace tile {
struct TargetInfo;
namespace gpu {
class TargetLowering;
} // namespace gpu

namespace nvidia {

/// The NVVM implementation of the GPU lowering hooks for an NVIDIA target
/// (sm_80 and newer: mma.sync, cp.async, shfl.sync, ex2.approx).
std::unique_ptr<gpu::TargetLowering>
createNVVMTargetLowering(const TargetInfo &target);

/// Lowers every `tile.kernel` function of `module` (tiles with #tile.layout
/// encodings, shared buffers with offsets: the output of
/// `-tile-gpu-prepare`) to the LLVM dialect with NVVM ops. Each kernel
/// becomes an `llvm.func` with `nvvm.kernel`, `nvvm.reqntid` = warps x 32 and
/// `tile_dynamic_shared_bytes` (the dynamic shared memory to launch with).
/// Errors are reported as diagnostics on the module's context.
mlir::LogicalResult lowerToNVVM(mlir::ModuleOp module,
                                const TargetInfo &target);

/// Translates a module in the LLVM + NVVM dialects to LLVM IR for `target`,
/// optimized at -O3: what the NVPTX backend compiles (the NVIDIA Backend's
/// translate, lib/Target; its emitAssembly makes the PTX).
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToOptimizedLLVMIR(mlir::ModuleOp module, const TargetInfo &target,
                           llvm::LLVMContext &context);

/// Rewrites an NVPTX LLVM IR module (translateToOptimizedLLVMIR) for the
/// CPU emulator of include/tile/Emulation/NvEmuAbi.h: NVVM intrinsics
/// become calls into the runtime, memory accesses are checked, and each
/// kernel gets an `__tile_emu_entry_<name>`. Fails on an intrinsic or a
/// construct the emulator does not implement.
llvm::Error rewriteForEmulation(llvm::Module &module);

/// Registers the dialects and LLVM IR translations the NVIDIA code generator
/// needs (LLVM, NVVM, builtin).
void registerNVIDIACodegenDialects(mlir::DialectRegistry &registry);

/// Registers `-tile-convert-to-nvvm` with the global pass registry.
void registerNVIDIACodegenPasses();

} // namespace nvidia
} // namespace tile

#endif // TILE_CODEGEN_NVIDIA_NVIDIACODEGEN_H
