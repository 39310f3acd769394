//===- AMDCodegen.h - Tile dialect to ROCDL, AMDGCN and HSACO ---*- C++ -*-===//
//
// Part of tilec. The AMD CDNA code generator (gfx942, gfx950): the generic GPU
// lowering of lib/Codegen/GPU with ROCDL ops for the vendor-specific parts,
// then LLVM IR, the AMDGPU backend (AMDGCN assembly or an ELF object) and
// ld.lld (an HSACO code object). No ROCm installation is needed. See
// docs/Passes.md, "AMD".
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_AMD_AMDCODEGEN_H
#define TILE_CODEGEN_AMD_AMDCODEGEN_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

namespace amd {

/// The ROCDL implementation of the GPU lowering hooks for an AMD CDNA target
/// (wave64, MFMA, ds_bpermute / DPP / ds_swizzle, LDS in address space 3).
std::unique_ptr<gpu::TargetLowering>
createROCDLTargetLowering(const TargetInfo &target);

/// Lowers every `tile.kernel` function of `module` (the output of
/// `-tile-gpu-prepare` for an AMD target) to the LLVM dialect with ROCDL ops.
/// Each kernel becomes an `llvm.func` with the `amdgpu_kernel` calling
/// convention, `rocdl.kernel`, `rocdl.flat_work_group_size` = "N,N" and
/// `rocdl.reqd_work_group_size` = N x 1 x 1 for N = warps x 64 threads, and
/// its LDS as a static per-kernel buffer (so that the code object records
/// it in `.group_segment_fixed_size`; launch with 0 dynamic LDS bytes).
/// Errors are reported as diagnostics on the module's context.
mlir::LogicalResult lowerToROCDL(mlir::ModuleOp module,
                                 const TargetInfo &target);

/// Register, LDS and scratch use of one kernel as the AMDGPU backend
/// allocated it: the code-object metadata (`amdhsa.kernels` of the
/// `.amdgpu_metadata` block, the same msgpack note `llvm-readobj --notes`
/// prints from the HSACO).
struct KernelResources {
  std::string name;
  unsigned vgprs = 0;            ///< .vgpr_count (architected VGPRs)
  unsigned agprs = 0;            ///< .agpr_count (accumulation VGPRs)
  unsigned sgprs = 0;            ///< .sgpr_count
  unsigned vgprSpills = 0;       ///< .vgpr_spill_count
  unsigned sgprSpills = 0;       ///< .sgpr_spill_count
  unsigned ldsBytes = 0;         ///< .group_segment_fixed_size
  unsigned scratchBytes = 0;     ///< .private_segment_fixed_size
  unsigned wavefrontSize = 0;    ///< .wavefront_size
  unsigned maxWorkgroupSize = 0; ///< .max_flat_workgroup_size
  /// Whether the kernel spills registers or uses scratch memory at all.
  bool spills() const {
    return scratchBytes != 0 || vgprSpills != 0 || sgprSpills != 0;
  }
};

/// Reads the kernels' resources from the `.amdgpu_metadata` block of AMDGCN
/// assembly. Fails with a message when the block is missing or malformed.
llvm::Expected<std::vector<KernelResources>>
parseKernelResources(llvm::StringRef assembly);

/// Translates a module in the LLVM + ROCDL dialects to LLVM IR for
/// `target`, optimized at -O3 with lane masks rematerialized: what the
/// AMDGPU backend compiles (the AMD Backend's translate, lib/Target).
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToOptimizedLLVMIR(mlir::ModuleOp module, const TargetInfo &target,
                           llvm::LLVMContext &context);

/// Rewrites an AMDGPU LLVM IR module (translateToOptimizedLLVMIR) for the
/// CPU emulator of include/tile/Emulation/AmdEmuAbi.h: amdgcn
/// intrinsics become calls into the runtime, LDS variables offsets in one
/// per-workgroup block, memory accesses are checked, private allocas move
/// to the host stack, and each kernel gets `__tile_emu_entry_<name>` and
/// `__tile_emu_lds_bytes_<name>`. Fails on what the emulator cannot run.
/// \p chip ("gfx942", "gfx950") decides what the chip-dependent intrinsics
/// mean (8-bit float MFMA: FNUZ codes on gfx942, OCP codes on gfx950, of
/// which the emulator runs the latter); without it, each function's
/// "target-cpu" attribute does. Functions leave without "target-cpu" and
/// "target-features": the module is compiled for the host next.
llvm::Error rewriteForEmulation(llvm::Module &module, llvm::StringRef chip);
llvm::Error rewriteForEmulation(llvm::Module &module);

/// AMDGCN assembly of an optimized module and what the backend allocated
/// for each kernel (from a copy: code generation rewrites the module).
struct AmdgcnResult {
  std::string assembly;
  std::vector<KernelResources> kernels; ///< one entry per kernel
};
llvm::Expected<AmdgcnResult> emitAMDGCN(llvm::Module &module,
                                        const TargetInfo &target);

/// A linked code object and what the backend allocated for each kernel.
struct HsacoResult {
  std::string hsaco;                    ///< ELF shared object bytes
  std::string assembly;                 ///< the AMDGCN it was built from
  std::vector<KernelResources> kernels; ///< one entry per kernel
};

/// The HSACO of an optimized module: emitAMDGCN, a relocatable object from
/// the AMDGPU backend, then `ld.lld -shared`.
llvm::Expected<HsacoResult> emitHSACO(llvm::Module &module,
                                      const TargetInfo &target);

/// One line per kernel: "NAME: VGPRs V, AGPRs A, SGPRs S, LDS L bytes,
/// scratch P bytes, wave64, T threads, spills: X VGPRs, Y SGPRs" (for `-v`
/// output; the spill counts are always printed, zeros included).
std::string formatResources(const std::vector<KernelResources> &kernels);

/// Registers the dialects and LLVM IR translations the AMD code generator
/// needs (LLVM, ROCDL, builtin).
void registerAMDCodegenDialects(mlir::DialectRegistry &registry);

/// Registers `-tile-convert-to-rocdl` and `-tile-rocdl-serialize` with the
/// global pass registry.
void registerAMDCodegenPasses();

} // namespace amd
} // namespace tile

#endif // TILE_CODEGEN_AMD_AMDCODEGEN_H
