//===- Passes.td - AMD code generation passes ----------------*- tablegen -*-===//
//
// Part of tilec. The passes of the AMD CDNA code generator (lib/Codegen/AMD).
// docs/Passes.md, section "AMD", describes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_AMD_PASSES_TD
#define TILE_CODEGEN_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileConvertToROCDL : Pass<"tile-convert-to-rocdl", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels with layouts to the LLVM dialect and ROCDL";
  let description = [{
    Input: `tile.kernel` functions prepared for an AMD target by
    `-tile-gpu-prepare=target=gfx942` (every tile has a `#tile.layout` over
    warps x 64 lanes, shared buffers carry `tile.offset`). The generic GPU
    lowering distributes the tiles; the AMD hooks give:
    - ids: `rocdl.workitem.id.x`, `rocdl.workgroup.id.*`; program counts from
      the HSA dispatch packet (no device library);
    - `tile.barrier` and LDS round trips: workgroup release fence,
      `s_barrier`, acquire fence (the backend adds the s_waitcnt);
    - reductions: DPP quad_perm (xor 1..3), `ds_swizzle` (xor 4..31),
      `ds_bpermute` (xor 32, indexed shuffles);
    - `tile.dot`: MFMA f32 32x32x8 / 16x16x16 f16 and bf16 (`_1k`), i32
      32x32x16 / 16x16x32 i8; on gfx950 also 32x32x16 / 16x16x32 f16/bf16
      and 32x32x32 / 16x16x64 i8 (native layouts, or two chained single-K
      steps fused into one instruction);
    - `tile.copy_async`: synchronous global loads and LDS stores (CDNA3 has
      no cp.async equivalent the lowering can use), `tile.wait` is empty;
    - exp2 / log2 on `v_exp_f32` / `v_log_f32`, rsqrt on `v_rsq_f32`.
    Each kernel becomes an `amdgpu_kernel` `llvm.func` with `rocdl.kernel`,
    `rocdl.flat_work_group_size = "N,N"`, `rocdl.reqd_work_group_size` and
    a static LDS array `@<kernel>.lds` of exactly the bytes it uses
    (`tile.dynamic_shared_bytes` becomes 0: launch without dynamic LDS).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "AMD target name (gfx942, gfx950)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileROCDLSerialize : Pass<"tile-rocdl-serialize", "::mlir::ModuleOp"> {
  let summary = "translate an LLVM + ROCDL module to AMDGCN or an HSACO file";
  let description = [{
    Runs the AMD code generator's back half (`translateLLVMToAMDGCN` /
    `compileLLVMToHSACO` of tile/Codegen/AMD/AMDCodegen.h) on a module in the
    LLVM + ROCDL dialects: LLVM -O3, the AMDGPU backend, and for
    `format=hsaco` ld.lld. The result is written to `output` and every
    kernel's resources (from the code-object metadata) are attached to the
    module as `amdgcn.kernels`, an array of dictionaries
    {name, vgprs, agprs, sgprs, vgpr_spills, sgpr_spills, lds_bytes,
    scratch_bytes, wavefront_size}. The module is otherwise unchanged.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "AMD target name (gfx942, gfx950)">,
    Option<"format", "format", "std::string", /*default=*/"\"asm\"",
           "what to write: asm (AMDGCN assembly) or hsaco (code object)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "file to write to ('-': standard output, assembly only)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

#endif // TILE_CODEGEN_AMD_PASSES_TD
