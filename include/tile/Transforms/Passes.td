//===- Passes.td - Target-independent tile passes ------------*- tablegen -*-===//
//
// Part of tilec. The passes between the front end and a GPU lowering
// (DESIGN.md section 6). They are parameterized by a target name that
// tile::TargetInfo::lookup knows; docs/Passes.md describes the IR contract
// they establish for the NVVM/ROCDL lowerings.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileExpandScaledDot
    : Pass<"tile-expand-scaled-dot", "::mlir::ModuleOp"> {
  let summary = "rewrite tile.dot_scaled into casts, scale broadcasts and "
                "tile.dot";
  let description = [{
    Every target runs it first. Each operand of a `tile.dot_scaled` is cast
    to bf16, its scales are cast to bf16, widened to one per element
    (expand_dims, broadcast over the block, reshape) and multiplied in, and
    the two bf16 tiles feed a `tile.dot` with the f32 accumulator. The bf16
    operands are exact: a code of at most 8 bits times an e8m0 or f8e4m3
    scale has at most 6 significant bits, and bf16 has 8 (values beyond
    bf16's range, 2^-133 .. 2^128, excepted). The target then applies the
    dequantization it applies to any cast before a dot.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tile of every kernel a distributed layout";
  let description = [{
    For each `func.func` with `tile.kernel`, sets `tile.warp_size` from the
    target and gives every tensor value a `#tile.layout` encoding whose
    thread count is `tile.warps` x warp size. Anchors: `tile.dot` operands
    and accumulator take the target's matrix-instruction layouts (NVIDIA
    mma.sync m16n8k16 / m16n8k32 for 8-bit operands, AMD MFMA 32x32x8 or
    16x16x16 on wave64) tiled over the warps, or FMA layouts derived from
    the accumulator when no instruction fits; `tile.load` results and
    `tile.store` values take coalesced layouts with at least 16 bytes per
    thread along the contiguous dimension, counted in bits; pinned
    `tile.convert_layout` results keep their layout. Layouts propagate
    forward through elementwise ops, casts, bitcasts, reductions,
    expand_dims, trans, reshape and scf.for/scf.if, and backward into
    broadcasts, splats, iotas and constants. `tile.convert_layout` is
    inserted wherever a value's layout differs from what a user needs.
    `target=host` leaves the module unchanged.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">
  ];
}

def TileRemoveConversions
    : Pass<"tile-remove-conversions", "::mlir::ModuleOp"> {
  let summary = "fold, rematerialize and hoist tile.convert_layout ops";
  let description = [{
    Removes conversions to the layout a value already has, folds chains of
    conversions, merges duplicate conversions of one value, recreates cheap
    producers (constants, tile.splat, tile.iota, tile.broadcast of a
    rematerializable value, tile.expand_dims of one) directly in the
    layout that is needed instead of converting them, and hoists
    conversions of loop-invariant values out of scf.for loops. With
    `narrow`, a conversion across warps (a round trip through shared
    scratch as large as the tile) that no producer absorbs moves up its
    producer chain to the shared loads that cannot read the needed layout
    (sub-byte codes), when the values there are narrower: the scratch and
    the traffic shrink with the element width (used on AMD, whose 64 KB of
    LDS the f16 round trip of a dequantized weight can overflow; NVIDIA
    stages such operands for ldmatrix instead).
  }];
  let options = [
    Option<"narrow", "narrow", "bool", /*default=*/"false",
           "move conversions across warps to the narrowest producers">
  ];
}

def TileCloneFallbacks : Pass<"tile-clone-fallbacks", "::mlir::ModuleOp"> {
  let summary = "add a copy without TMA copies of each kernel that may get them";
  let description = [{
    On a target with TMA (sm_90), each kernel that may get TMA copies (a
    `tile.tma` or `tile.warp_specialize` unit attribute on the module, or a
    loop with `tile.warp_specialize`) gets a copy after it, named
    `<kernel>__fallback` (numbered where taken), with
    `tile.fallback_of = @<kernel>` and without its loops'
    `tile.warp_specialize`: tile-pipeline gives it neither TMA copies nor
    producer warps. The driver encodes a tensor map only for a 16-byte
    aligned tensor whose byte strides are multiples of 16; the runtime
    launches the copy for other tensors. tile-assign-tensor-maps erases the
    copy of a kernel that ends up with no tensor map. Runs first.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">
  ];
}

def TilePipeline : Pass<"tile-pipeline", "::mlir::ModuleOp"> {
  let summary = "software-pipeline tile.load ops of loops marked tile.pipeline";
  let description = [{
    For every scf.for with `tile.pipeline = S` (S >= 2) that writes no
    global memory, each `tile.load` of its body whose view is loop-invariant
    and whose offsets depend only on the induction variable and
    loop-invariant values (through side-effect-free ops) and that pads with
    zero is pipelined. On targets with asynchronous copies (cp.async) it
    becomes a ring `!tile.shared<S x shape x T>` filled by
    `tile.copy_async`: S-1 stages are issued before the loop; each
    iteration waits for its stage (`tile.wait`, `tile.barrier`), reads it
    with `tile.shared_load` (directly in the layout of a lone
    `tile.convert_layout` user) and issues the copy for the iteration S-1
    ahead. A `tile.wait 0` follows the loop. On targets without them (AMD
    CDNA) the load of the iteration B = max(1, S-1) ahead goes to registers
    (a loop-carried tile) and is written with `tile.shared_store` into a
    ring of only B buffers at the top of the next iteration, between
    barriers. S = 1 and `target=host` drop the attribute.

    On targets with wgmma, the loop's only `tile.dot`, when it multiplies
    two pipelined loads (or a loaded B and an A the body computes in
    registers, 16-bit, of two k16 slices or more, or a loaded A and a B
    tile-stage-converted-operands stages) into an accumulator only the loop
    carries, gets `tile.mma_in_flight = 1` and the copies of an iteration
    move after it and a second barrier: its wgmma group stays in flight
    across iterations (a register A as two groups, halves of K, whose
    second half is computed after the first group's wait; docs/Passes.md).

    With `tma` (or a `tile.tma` unit attribute on the module) on a target
    with TMA (sm_90), a loop whose wgmma group stays in flight and whose
    only pipelined loads are its two operands, each reading a 2-D tensor
    parameter whole into a ring TMA boxes can write, copies with TMA
    instead: `tile.copy_async ... barrier(%bars[%w])`, one mbarrier per
    stage (`tile.mbarrier_init` before the prologue), `tile.mbarrier_wait`
    on the read stage's phase at the top of each iteration instead of
    `tile.wait` and `tile.barrier`, and a `tile.barrier` and
    `tile.mbarrier_inval` after the loop instead of `tile.wait 0`.

    With `warp-specialize` (or a `tile.warp_specialize` unit attribute on
    the module; it implies `tma`), such a loop directly in the kernel's
    body whose bounds and copy offsets are computed without memory effects
    gets a producer warpgroup: the kernel's body becomes the consumer
    region of a `tile.warp_specialize` and the producer region runs the
    copies alone, each after a `tile.mbarrier_wait` on the stage's "empty"
    mbarrier, which the consumer warps release with `tile.mbarrier_arrive`
    once the MMA group reading it is retired (docs/Passes.md).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "copy wgmma operands with TMA where the loop and loads allow it">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "give a TMA loop's copies to a producer warpgroup (implies tma)">
  ];
}

def TileStageOperands : Pass<"tile-stage-operands", "::mlir::ModuleOp"> {
  let summary = "keep large loop-invariant dot operands in shared memory";
  let description = [{
    For every scf.for of a kernel, estimates the registers per thread that
    stay live in the loop: its loop-carried tiles, the tiles it uses from
    outside the loop, and the largest tile.dot result of its body (32-bit
    registers from each tile's layout). While that exceeds `budget-percent`
    percent of the target's registers per thread, the largest tile.dot A or
    B operand defined outside the loop (at least `min-registers` registers)
    is staged: written once before the loop (`tile.alloc_shared`,
    `tile.shared_store` of the value before its layout conversions,
    `tile.barrier`) and read back by a `tile.shared_load` in the operand's
    layout right before each dot of the loop that uses it. Conversions left
    without users are erased. A candidate that would take the kernel's
    buffers past the target's shared memory is skipped. The GPU lowering
    reads such shared_loads per k block inside the dot (operand fusion),
    so the operand no longer occupies registers through the loop.
    On a target with wgmma, an A operand of a dot the warpgroup
    instruction takes (fitsWarpgroupMma, chained products included) is
    staged first, whatever the estimate (`min-registers` and the shared
    memory still apply): wgmma reads it by descriptor, with
    no loads in the loop (attention's Q, as FlashAttention-3; kept in
    registers, ptxas of CUDA 13.0 clobbered it inside the loop).
    `target=host` leaves the module unchanged.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">,
    Option<"budgetPercent", "budget-percent", "int64_t", /*default=*/"75",
           "percentage of the target's registers per thread the estimate "
           "may reach before operands are staged">,
    Option<"minRegisters", "min-registers", "int64_t", /*default=*/"16",
           "smallest operand (registers per thread) worth staging">
  ];
}

def TileStageConvertedOperands
    : Pass<"tile-stage-converted-operands", "::mlir::ModuleOp"> {
  let summary = "read in-loop converted 16-bit dot operands with ldmatrix";
  let description = [{
    On NVIDIA targets, a 16-bit tile.dot A or B operand that a loop body
    computes in another layout and converts with a single-use
    `tile.convert_layout` (in the dot's block; its source not a
    `tile.shared_load`) is written instead to a new `tile.alloc_shared`
    buffer (`tile.barrier` first unless one already precedes the
    conversion in its block, `tile.shared_store`, `tile.barrier`) and read
    back by a `tile.shared_load` in the operand's layout right before the
    dot. The GPU lowering fuses that read into the dot (ldmatrix / .trans),
    where the conversion read the operand back element by element. A dot
    that tile-pipeline left in flight (`tile.mma_in_flight = 1`: its wgmma
    group runs across iterations) gets two buffers that alternate with an
    iteration argument of its loop, and no barrier before the stores (the
    one after the dot orders them). Other targets are left unchanged.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">
  ];
}

def TileAllocateShared : Pass<"tile-allocate-shared", "::mlir::ModuleOp"> {
  let summary = "assign shared-memory offsets, swizzles and scratch space";
  let description = [{
    Chooses a bank-conflict-minimizing swizzled `#tile.shared_layout` for
    each `tile.alloc_shared` without one (from the layouts it is written
    and read with), reserves scratch space for layout conversions that go
    through shared memory and for cross-warp reductions, and packs all of
    them by liveness: `tile.offset` (bytes) on each `tile.alloc_shared`,
    `tile.scratch_offset` / `tile.scratch_bytes` on each op that needs
    scratch, and `tile.shared_bytes` on the kernel. Needing more than the
    target's shared memory is an error at the location of the allocation
    that does not fit.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">
  ];
}

def TilePersistPrograms
    : Pass<"tile-persist-programs", "::mlir::ModuleOp"> {
  let summary = "loop each program over the kernel's virtual grid";
  let description = [{
    With `persistent` (or a `tile.persistent` unit attribute on the module)
    on a GPU target, every kernel without results (and without them, each
    kernel with a `tile.persist` unit attribute: the language's
    `persistent true`, which the pass removes) gets three i32
    arguments after its own (`tile.virtual_grid` = 0, 1, 2: the extents of
    the grid it declares, which the runtime passes) and its body moves
    into an `scf.for` (`tile.persistent`) from `program_id(x)` to
    gx * gy * gz step `num_programs(x)`: the runtime launches at most as
    many programs as the device runs at once, and each runs the virtual
    programs it is given, in groups of `group` rows (grid y) taken column
    by column (Triton's grouped order, for L2 reuse; `group=1`: x
    fastest). Inside, `tile.program_id` becomes the virtual program's
    coordinate and `tile.num_programs` the virtual grid's extent. The kernel gets `tile.persistent`. Runs before
    tile-pipeline, whose loops it nests.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_80, sm_90a, gfx942, host, ...)">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "make every kernel persistent">,
    Option<"group", "group", "int64_t", /*default=*/"8",
           "rows (grid y) per group of the virtual programs' order; 1: "
           "row-major">
  ];
}

def TileAssignTensorMaps
    : Pass<"tile-assign-tensor-maps", "::mlir::ModuleOp"> {
  let summary = "give each TMA copy the tensor map it reads";
  let description = [{
    For every `tile.copy_async` with a barrier (a TMA copy, tile-pipeline)
    plans the TMA boxes that write its destination's shared layout
    (lib/Layout/TmaBox.h: box extents and swizzle) and records, on the
    kernel, `tile.tensor_maps`: one `{param, box, swizzle}` per distinct
    (tensor parameter, box, swizzle), the tensor maps the kernel takes
    after its other parameters and the runtime encodes at launch; on the
    copy, `tile.tma_map`: the index of its map. A layout no TMA box writes
    or a misaligned destination is an internal error at the copy. Of the
    copies tile-clone-fallbacks made (`tile.fallback_of`), that of a kernel
    with no tensor map is erased; a kernel with tensor maps names its copy
    in `tile.fallback`. Runs after tile-allocate-shared.
  }];
}

def TilePrefetchPrologue
    : Pass<"tile-prefetch-prologue", "::mlir::ModuleOp"> {
  let summary = "start a dependent launch's prologue copies as L2 prefetches "
                "before it waits for the grids before it";
  let description = [{
    In a module launched with dependent launches (`tile.dependent_launch`)
    for a target that has them: in each kernel, every `tile.copy_async` of
    the top-level block (a software pipeline's prologue) whose source view,
    offsets and predicate are computed there without memory effects gets a
    `tile.prefetch` of the same slice, and those prefetches, with what
    they compute from, move to the kernel's start followed by a
    `tile.wait_preceding_grids`. The slices then stream into L2 while the
    grid before this one finishes (a prefetch changes no value: a slice
    that grid writes is read again after the wait); the copies themselves
    stay after the wait. In a warp-specialized kernel, the copies of the
    producer warpgroup's loop are prefetched at the iterations of the
    ring's first pass (0 .. depth - 1, each under its bound check), from
    clones of the loop's index arithmetic; in a persistent kernel, those
    of the program loop's first iteration (its first program's prologue).
    A kernel without such a copy is left alone, and the GPU lowering
    waits at its start. Runs after tile-pipeline.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "target name (sm_90a, sm_80, gfx942, host, ...)">
  ];
}

#endif // TILE_TRANSFORMS_PASSES_TD
