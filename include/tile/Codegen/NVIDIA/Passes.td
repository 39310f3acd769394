//===- Passes.td - NVIDIA code generation passes -------------*- tablegen -*-===//
//
// Part of tilec. The passes of the NVIDIA code generator (lib/Codegen/NVIDIA).
// docs/Passes.md, section "NVIDIA", describes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_NVIDIA_PASSES_TD
#define TILE_CODEGEN_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileConvertToNVVM : Pass<"tile-convert-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels with layouts to the LLVM dialect and NVVM";
  let description = [{
    Input: `tile.kernel` functions prepared for a GPU (every tile has a
    `#tile.layout` encoding over warps x 32 threads, `tile.alloc_shared` ops
    carry `tile.offset`, `tile.convert_layout` where layouts change).
    Every tile value becomes the calling thread's registers (one scalar per
    local slot of its layout) and every op per-thread code:
    - `tile.load` / `tile.store`: one run-time branch per thread between a
      vector path (groups of consecutive slots, up to 16 bytes, sub-byte
      elements as packed words) when all its slots are in bounds and
      aligned, and a per-element masked path (padding value) otherwise;
    - `tile.reduce`: in registers, `shfl.sync.bfly` over lane digits, shared
      memory over warps; `tile.convert_layout` (and broadcast / trans /
      reshape / expand_dims that move data between threads): register
      renaming, else a shared-memory round trip with the planner's swizzle;
    - `tile.dot`: `mma.sync.aligned.m16n8k16` (f16/bf16 -> f32) and
      `m16n8k32` (i8 -> i32) on operands in the MMA layouts;
    - `tile.copy_async` / `tile.wait`: `cp.async` 16/8/4 bytes (zero-filled
      edges element by element) + `cp.async.commit_group` / `wait_group`;
    - `tile.cast`: bit-exact with lib/Numerics (tables, magic numbers);
    - math.exp/exp2/log/log2/rsqrt/tanh on `ex2/lg2/rsqrt.approx.f32`.
    The kernel becomes an `llvm.func` with `nvvm.kernel`, `nvvm.reqntid` and
    `tile_dynamic_shared_bytes` (shared buffers + scratch).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "NVIDIA target name (sm_80, sm_86, sm_89, sm_90, sm_90a)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TILE_CODEGEN_NVIDIA_PASSES_TD
