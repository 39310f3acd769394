//===- Passes.td - Code generation passes of tilec -----------*- tablegen -*-===//
//
// Part of tilec. Every code generator's passes, one section per target.
// Names are `tile-<target>-<verb>-<noun>`; each pass has a lit test in
// test/Codegen/<Target>/<pass-name>.mlir. docs/Passes.md describes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_PASSES_TD
#define TILE_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Host (CPU) code generation: lib/Codegen/Host
//===----------------------------------------------------------------------===//

def TileHostDropLayouts : Pass<"tile-host-drop-layouts", "::mlir::ModuleOp"> {
  let summary = "remove register layouts: encodings and tile.convert_layout";
  let description = [{
    One program runs in one thread on the host, so a layout (pinned by the
    front end's `layout(x, L)` or chosen by tile-infer-layouts) has no
    meaning there. Drops every `#tile.layout` encoding from tensor types
    (results, block arguments, function signatures and dense constants) and
    erases every `tile.convert_layout`, which has become an identity. First
    pass of the host pipeline.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileHostEmitEntry : Pass<"tile-host-emit-entry", "::mlir::ModuleOp"> {
  let summary = "wrap each tile.kernel function into the host entry ABI";
  let description = [{
    For every `func.func` with the `tile.kernel` attribute, appends six i32
    parameters (program id x, y, z and number of programs x, y, z), replaces
    `tile.program_id` / `tile.num_programs` by them, renames the function to
    `__tile_host_impl_<name>` (internal linkage) and creates the entry
    `func.func @<name>(%args: !llvm.ptr, %pid: !llvm.ptr, %nprog: !llvm.ptr)`
    with the C ABI
    `void name(void **args, const uint32_t pid[3], const uint32_t nprog[3])`:
    `args[i]` points to the value of the i-th kernel parameter (for a tensor,
    to its data pointer). `tile.program_id` outside a kernel is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect"];
}

def TileHostLowerTile : Pass<"tile-host-lower-tile", "::mlir::ModuleOp"> {
  let summary = "lower tile ops to tensor/linalg/memref/scf and LLVM pointers";
  let description = [{
    Rewrites every tile op so that the program has value semantics on
    builtin tensors and explicit memory operations:
    - `tile.load` / `tile.copy_async`: a fresh `memref.alloc` filled by a loop
      nest of bounds-checked element loads through `!llvm.ptr` (sub-byte
      elements are read from the LSB-first bit stream), exposed with
      `bufferization.to_tensor restrict`;
    - `tile.store` / `tile.shared_store`: loop nests of `tensor.extract` and
      element stores (sub-byte elements with atomic and/or on the bytes, so
      that programs running in parallel may share a byte);
    - `tile.alloc_shared`: `memref.alloc` (a per-program buffer);
      `tile.shared_load`: a copy into a fresh buffer;
      `tile.wait` / `tile.barrier`: erased (one program runs in one thread);
    - `tile.dot`: operands converted to the accumulator type, `linalg.matmul`;
    - `tile.reduce`: `linalg.reduce` (float max/min propagate NaN);
    - `tile.broadcast`, `tile.splat`, `tile.iota`: `linalg.generic` /
      `linalg.fill`; `tile.trans`: `linalg.transpose`; `tile.reshape`,
      `tile.expand_dims`: `tensor.collapse_shape` / `tensor.expand_shape`;
    - `tile.cast`: per element, pure arith where it is provably the same as
      lib/Numerics (integer widening and clamping, exact decoding of small
      floats and integers to f32, f32 to f16/bf16), otherwise a call to
      `tile_num_convert` of lib/Numerics (bit-exact with the reference);
    - `tile.bitcast`: `arith.bitcast`, or a bit gather when widths differ.
    Types: `!tile.ptr` becomes `!llvm.ptr`, `!tile.shared` a memref, small
    floats (f8E4M3FN, f4E2M1FN, !tile.float, ...) integers of their width,
    and layout encodings are dropped.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"];

}

#endif // TILE_CODEGEN_PASSES_TD
