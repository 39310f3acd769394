//===- TileOps.td - Operations of the tile dialect ----------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_Ptr : Type<CPred<"::llvm::isa<::tile::PtrType>($_self)">,
                    "!tile.ptr", "::tile::PtrType">;
def Tile_View : Type<CPred<"::llvm::isa<::tile::ViewType>($_self)">,
                     "!tile.view", "::tile::ViewType">;
def Tile_Shared : Type<CPred<"::llvm::isa<::tile::SharedType>($_self)">,
                       "!tile.shared", "::tile::SharedType">;
def Tile_TensorOrScalar : AnyTypeOf<[Tile_Tensor, AnySignlessInteger, AnyFloat,
                                     Tile_FloatType]>;

// Side-effect resources: global memory and shared memory are kept apart so
// that transformations may reorder accesses to one across accesses to the
// other.
def Tile_GlobalMemory : Resource<"::tile::GlobalMemoryResource">;
def Tile_SharedMemory : Resource<"::tile::SharedMemoryResource">;

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program (thread block) along a grid axis";
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs (thread blocks) along a grid axis";
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Tile_ViewOp : Tile_Op<"view", [Pure, AttrSizedOperandSegments]> {
  let summary = "wrap a global pointer into a tensor view";
  let description = [{
    Makes a global tensor of the result's shape from a pointer: one i32
    operand per `?` dimension, and optionally one i32 stride per dimension
    (in elements; row-major contiguous when absent).

    ```mlir
    %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
    ```
  }];
  let arguments = (ins Tile_Ptr:$ptr, Variadic<I32>:$dims,
                       Variadic<I32>:$strides);
  let results = (outs Tile_View:$result);
  let assemblyFormat = [{
    $ptr `(` $dims `)` (`strides` `(` $strides^ `)`)? attr-dict `:`
    qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load",
    [MemoryEffects<[MemRead<Tile_GlobalMemory>]>]> {
  let summary = "load a rectangular slice of a global tensor into registers";
  let description = [{
    Loads the tile whose first element is at `offsets` (one i32 per view
    dimension; any value, negative included). Elements outside the view read
    as `padding` (zero when absent). The result has the view's rank.

    ```mlir
    %t = tile.load %a[%m0, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
    %u = tile.load %x[%r0, %c0] padding(0xFC00 : f16)
        : !tile.view<?x?xf16> -> tensor<4x1024xf16>
    ```
  }];
  let arguments = (ins Tile_View:$view, Variadic<I32>:$offsets,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $view `[` $offsets `]` (`padding` `(` $padding^ `)`)? attr-dict `:`
    qualified(type($view)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store",
    [MemoryEffects<[MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "store a register tile into a slice of a global tensor";
  let description = [{
    Writes `value` to the slice starting at `offsets`; elements that fall
    outside the view are skipped.
  }];
  let arguments = (ins Tile_View:$view, Variadic<I32>:$offsets,
                       Tile_Tensor:$value);
  let assemblyFormat = [{
    $view `[` $offsets `]` `,` $value attr-dict `:` qualified(type($view)) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add",
    [MemoryEffects<[MemRead<Tile_GlobalMemory>,
                    MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "add a register tile into a slice of a global tensor";
  let description = [{
    Adds each element of `value` to the element of the slice starting at
    `offsets`, atomically per element (relaxed ordering), so that programs
    may add into the same elements, e.g. the partial sums of a K dimension
    split across programs. Elements that fall outside the view are skipped.
    The element type is f32, f16, bf16 or i32 (two's complement: u32 too).
    The order in which programs add is unspecified, so float results may
    differ from run to run in the last bits.

    ```mlir
    tile.atomic_add %c[%m0, %n0], %part : !tile.view<?x?xf32>, tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_View:$view, Variadic<I32>:$offsets,
                       Tile_Tensor:$value);
  let assemblyFormat = [{
    $view `[` $offsets `]` `,` $value attr-dict `:` qualified(type($view)) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared",
    [MemoryEffects<[MemAlloc<Tile_SharedMemory>]>]> {
  let summary = "allocate a shared-memory buffer for this program";
  let results = (outs Tile_Shared:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

class Tile_SharedAccessOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

def Tile_SharedLoadOp : Tile_SharedAccessOp<"shared_load",
    [MemoryEffects<[MemRead<Tile_SharedMemory>]>,
     DeclareOpInterfaceMethods<Tile_SharedAccessOpInterface>]> {
  let summary = "load a register tile from a shared-memory buffer";
  let description = [{
    One i32 index per buffer dimension. The result's rank r may be lower than
    the buffer's rank R: the leading R - r dimensions are indexed away, the
    trailing r are sliced from the index on (and must fit).

    ```mlir
    %t = tile.shared_load %s[%stage, %c0, %c0]
        : !tile.shared<3x64x32xf16> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_Shared:$buffer, Variadic<I32>:$indices);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $buffer `[` $indices `]` attr-dict `:` qualified(type($buffer)) `->`
    type($result)
  }];
}

def Tile_SharedStoreOp : Tile_SharedAccessOp<"shared_store",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>,
     DeclareOpInterfaceMethods<Tile_SharedAccessOpInterface>]> {
  let summary = "store a register tile into a shared-memory buffer";
  let arguments = (ins Tile_Shared:$buffer, Variadic<I32>:$indices,
                       Tile_Tensor:$value);
  let assemblyFormat = [{
    $buffer `[` $indices `]` `,` $value attr-dict `:`
    qualified(type($buffer)) `,` type($value)
  }];
}

def Tile_CopyAsyncOp : Tile_Op<"copy_async",
    [AttrSizedOperandSegments,
     MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_SharedMemory>]>,
     DeclareOpInterfaceMethods<Tile_SharedAccessOpInterface>]> {
  let summary = "start an asynchronous copy of a global slice into shared memory";
  let description = [{
    Copies the slice of `src` at `src_offsets` whose shape is the trailing
    `rank(src)` dimensions of `dst` into `dst` at `dst_indices` (leading
    dimensions indexed away). Elements outside `src` become zero. Each
    `tile.copy_async` is one group for `tile.wait`.

    With `if %pred` and %pred false, nothing is copied (`dst` keeps its
    contents) and the op is still one, empty, group: tile-pipeline uses it
    for the copies of iterations past the end of a loop.

    With `barrier(%bars[%i])` (NVIDIA sm_90, tile-pipeline with TMA) the
    copy is a TMA copy instead, issued by one thread, that is no
    `tile.wait` group: it arrives once on mbarrier `%i` of `%bars` (a
    `tile.mbarrier_init` buffer of i64) and its bytes complete that
    barrier's phase; `tile.mbarrier_wait` waits for it. Its `tile.tma_map`
    attribute (tile-assign-tensor-maps) names the kernel's tensor map.

    ```mlir
    tile.copy_async %a[%m, %k] -> %ring[%w] barrier(%bars[%w]) if %live
        : !tile.view<?x?xf16> -> !tile.shared<3x128x64xf16>,
          !tile.shared<3xi64>
    ```
  }];
  let arguments = (ins Tile_View:$src, Variadic<I32>:$src_offsets,
                       Tile_Shared:$dst, Variadic<I32>:$dst_indices,
                       Optional<I1>:$pred, Optional<Tile_Shared>:$barrier,
                       Optional<I32>:$barrier_index);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` `->` $dst `[` $dst_indices `]`
    (`barrier` `(` $barrier^ `[` $barrier_index `]` `)`)?
    (`if` $pred^)? attr-dict `:`
    qualified(type($src)) `->` qualified(type($dst))
    (`,` qualified(type($barrier))^)?
  }];
  let extraClassDeclaration = [{
    /// A TMA copy tracked by an mbarrier rather than a tile.wait group.
    bool isTensorCopy() { return getBarrier() != nullptr; }
  }];
  let hasVerifier = 1;
}

def Tile_PrefetchOp : Tile_Op<"prefetch", [AttrSizedOperandSegments]> {
  let summary = "bring a global slice into the L2 cache (a hint)";
  let description = [{
    Asks for the slice of `src` at `offsets` with extents `shape` to be
    brought into the device's L2 cache. It changes no value and reads
    nothing outside `src` (each contiguous row is fetched from its first
    byte in steps of the cache line; a view whose last dimension has a
    stride is not prefetched). With `if %pred` and %pred false, nothing is
    prefetched. tile-prefetch-prologue puts one before a dependent launch's
    `tile.wait_preceding_grids` for each copy of a pipeline's prologue, so
    that those bytes stream while the grid before finishes; a target
    without L2 prefetches drops it.

    ```mlir
    tile.prefetch %w[%n, %k] [64, 256] if %live : !tile.view<?x?xi4>
    ```
  }];
  let arguments = (ins Tile_View:$src, Variadic<I32>:$offsets,
                       DenseI64ArrayAttr:$shape, Optional<I1>:$pred);
  let assemblyFormat = [{
    $src `[` $offsets `]` $shape (`if` $pred^)? attr-dict `:`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

def Tile_WaitPrecedingGridsOp : Tile_Op<"wait_preceding_grids"> {
  let summary = "wait for the grids before this one (dependent launch)";
  let description = [{
    In a module launched with dependent launches (`tile.dependent_launch`,
    on a target that has them): waits until the grids before this one in
    its stream have finished and their memory is visible, then lets the
    next grid be scheduled. The GPU lowering puts this wait at the start of
    every kernel that has none; tile-prefetch-prologue places it after the
    `tile.prefetch` ops it adds, which are all a kernel may do with global
    memory before it. Only in a kernel's top-level block; a target without
    dependent launches drops it.

    ```mlir
    tile.wait_preceding_grids
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_WaitOp : Tile_Op<"wait"> {
  let summary = "wait until at most `pending` async copy groups are in flight";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_MbarrierInitOp : Tile_Op<"mbarrier_init",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "initialize the mbarriers of a shared buffer of i64";
  let description = [{
    One thread initializes every element of `barriers` (a rank-1 buffer of
    i64) as an mbarrier whose phases complete after `count` arrivals and
    the transaction bytes they announce. A `tile.barrier` must follow before
    other threads use them. NVIDIA sm_90 (tile-pipeline's TMA scheme).

    ```mlir
    tile.mbarrier_init %bars count(2) : !tile.shared<3xi64>
    ```
  }];
  let arguments = (ins Tile_Shared:$barriers,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = [{
    $barriers `count` `(` $count `)` attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait",
    [MemoryEffects<[MemRead<Tile_SharedMemory>,
                    MemWrite<Tile_SharedMemory>]>]> {
  let summary = "wait until a phase of an mbarrier has completed";
  let description = [{
    Every thread waits until the phase of parity `phase` (0 or 1) of
    mbarrier `index` of `barriers` has completed: every arrival it expects
    has arrived and every byte of the TMA copies that announced them has
    landed, and is visible to the waiting thread.

    ```mlir
    tile.mbarrier_wait %bars[%r] phase(%p) : !tile.shared<3xi64>
    ```
  }];
  let arguments = (ins Tile_Shared:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `phase` `(` $phase `)` attr-dict `:`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MbarrierInvalOp : Tile_Op<"mbarrier_inval",
    [MemoryEffects<[MemWrite<Tile_SharedMemory>]>]> {
  let summary = "invalidate the mbarriers of a buffer before its reuse";
  let description = [{
    One thread invalidates every mbarrier of `barriers`, after a
    `tile.barrier` that every wait on them precedes, so that their shared
    memory may hold other data afterwards.
  }];
  let arguments = (ins Tile_Shared:$barriers);
  let assemblyFormat = "$barriers attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive",
    [MemoryEffects<[MemRead<Tile_SharedMemory>,
                    MemWrite<Tile_SharedMemory>]>]> {
  let summary = "every warp arrives once on an mbarrier";
  let description = [{
    Each warp that executes it arrives once, from its first lane, on
    mbarrier `index` of `barriers`, when `pred` (if given) holds; the
    barrier's `tile.mbarrier_init` count is then the number of such warps.
    The warp's lanes must be converged there (they are after a warp
    collective, such as the `wgmma.wait_group` of the dot before it in
    tile-pipeline's scheme, and at the end of a loop iteration of
    warp-uniform tile ops, where tile-pipeline's scheme for loops without
    an MMA in flight releases the stage it read). The shared-memory reads the warp made before,
    including those of the wgmma groups it retired, happen before whatever
    a thread does after its `tile.mbarrier_wait` on the completed phase.
    tile-pipeline's warp-specialized scheme releases a ring stage to the
    producer with it. NVIDIA sm_90.

    ```mlir
    tile.mbarrier_arrive %empty[%s] if %p : !tile.shared<3xi64>
    ```
  }];
  let arguments = (ins Tile_Shared:$barriers, I32:$index, Optional<I1>:$pred);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`if` $pred^)? attr-dict `:`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize",
    [RecursiveMemoryEffects, NoRegionArguments,
     SingleBlockImplicitTerminator<"WarpRegionEndOp">]> {
  let summary = "split the program into producer and consumer warps";
  let description = [{
    The program runs with `producer_warps` more warps than its `tile.warps`
    (whole warpgroups): those run the `producer` region with at most
    `producer_registers` registers per thread (`setmaxnreg.dec`), the
    kernel's own warps run the `consumer` region with
    `consumer_registers` (`setmaxnreg.inc`), both concurrently. Only
    directly in a kernel's body, once, as its last op before the return;
    the kernel carries `tile.producer_warps`. The consumer region sees the
    thread and warp indices of the program as written (its layouts hold);
    its barriers synchronize only its own warps. The producer region holds
    no tile values: scalar index arithmetic, views, `tile.mbarrier_wait`
    and TMA copies (issued by its first thread); the GPU lowering runs it
    on the producers' first warp. tile-pipeline writes it
    (warp specialization, NVIDIA sm_90a).

    ```mlir
    tile.warp_specialize producer(4 warps, 24 registers) {
      scf.for ... { tile.mbarrier_wait ... ; tile.copy_async ... }
    } consumer(240 registers) {
      ... the kernel's body ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$producer_warps,
                       I32Attr:$producer_registers,
                       I32Attr:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let extraClassDeclaration = [{
    /// The register count a program of \p threads threads starts with
    /// (`.maxnreg`): the most of 65536 registers per SM shared by
    /// \p occupancy such programs, in steps of 8, at most 240.
    static int64_t launchRegisters(int64_t threads, int64_t occupancy = 1) {
      int64_t perThread = 65536 / (threads * occupancy) / 8 * 8;
      return perThread < 240 ? perThread : 240;
    }
  }];
  let assemblyFormat = [{
    `producer` `(` $producer_warps `warps` `,` $producer_registers
    `registers` `)` $producer `consumer` `(` $consumer_registers
    `registers` `)` $consumer attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_WarpRegionEndOp : Tile_Op<"warp_region_end",
    [Pure, Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "the end of a tile.warp_specialize region";
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "synchronize all threads of the program (thread block)";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure]> {
  let summary = "matrix product with accumulation: a x b + acc";
  let description = [{
    `a` is MxK, `b` is KxN, `acc` and the result are MxN; or, with a leading
    batch dimension B, BxMxK, BxKxN and BxMxN: B independent products (the
    GPU lowerings put the warps along B first, so that a K split into B
    slices is summed by a reduction over the batch afterwards). `a` and `b` share
    an element type (f16, bf16, f32, an 8-bit float or i8); the accumulator
    is f32 (f16 is allowed for f16 operands) or, for i8 operands, i32.
    The order in which the products are added into the accumulator is
    unspecified (the tensor cores choose it): canonicalization folds the
    addition of x to a product with a zero accumulator into the product,
    `arith.addf(x, tile.dot(a, b, 0))` -> `tile.dot(a, b, x)` (attention's
    `acc * alpha + dot(p, v)`: the tensor cores accumulate into the
    rescaled accumulator, instead of into zeros followed by an addition
    per value).

    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<128x32xf16>, tensor<32x128xf16>,
        tensor<128x128xf32> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_DotScaledOp : Tile_Op<"dot_scaled", [Pure]> {
  let summary = "block-scaled matrix product: (a * sa) x (b * sb) + acc";
  let description = [{
    `a` (MxK) and `b` (KxN) hold small-float codes (f4E2M1FN, f6E2M3FN,
    f6E3M2FN, f8E4M3FN, f8E5M2 or a `!tile.float`); `a_scale` (Mx(K/BA)) and
    `b_scale` ((K/BB)xN) hold one scale per block of BA (BB) consecutive K
    elements, e8m0 (MX formats) or f8E4M3FN (NVFP4). Element (m, k) of the
    left operand is a[m, k] * a_scale[m, k / BA], likewise for b; `acc` and
    the result are f32 MxN. tile-expand-scaled-dot rewrites it into casts,
    a scale broadcast and tile.dot.

    ```mlir
    %c = tile.dot_scaled %a, %sa, %b, %sb, %acc
        : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>,
          tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>,
          tensor<16x32xf32> -> tensor<16x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$a_scale, Tile_Tensor:$b,
                       Tile_Tensor:$b_scale, Tile_Tensor:$acc);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $a_scale `,` $b `,` $b_scale `,` $acc attr-dict `:` type($a) `,`
    type($a_scale) `,` type($b) `,` type($b_scale) `,` type($acc) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis (sum, max, min)";
  let description = [{
    Removes dimension `axis`. Reducing the only dimension of a 1-D tile
    gives a scalar. Integer max/min compare as unsigned when `is_unsigned`
    is set. Float max/min propagate NaN.

    ```mlir
    %r = tile.reduce sum %x axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_Tensor:$src,
                       I32Attr:$axis, UnitAttr:$is_unsigned);
  let results = (outs Tile_TensorOrScalar:$result);
  let assemblyFormat = [{
    $kind $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "expand size-1 dimensions of a tile";
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "make a tile whose elements all equal a scalar";
  let arguments = (ins AnyType:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dimension";
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    Result dimension i is source dimension `perm[i]`. Without `perm` the
    dimensions are reversed (a transpose for 2-D tiles).
  }];
  let arguments = (ins Tile_Tensor:$src, OptionalAttr<DenseI32ArrayAttr>:$perm);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The permutation, with the default (reversal) made explicit.
    ::llvm::SmallVector<int32_t> getPermutation();
  }];
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tile with another shape of the same size";
  let description = [{
    Row-major order of elements is preserved.
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "the 1-D tile 0, 1, ..., n-1";
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CastOp : Tile_Op<"cast", [Pure]> {
  let summary = "numeric conversion between element types";
  let description = [{
    Converts each element to the result's element type: round to nearest,
    ties to even, saturating to the finite range of the destination (small
    floats and integers alike), as defined once in lib/Numerics and
    docs/Numerics.md. Integer elements are read as unsigned when
    `src_unsigned` is set and written as unsigned when `dst_unsigned` is set
    (otherwise two's complement). Works on tiles and on scalars.

    ```mlir
    %h = tile.cast %w {src_unsigned} : tensor<64x128xi4> -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Tile_TensorOrScalar:$src, UnitAttr:$src_unsigned,
                       UnitAttr:$dst_unsigned);
  let results = (outs Tile_TensorOrScalar:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure]> {
  let summary = "reinterpret the bits of a tile as another element type";
  let description = [{
    The last dimension scales by the ratio of bit widths:
    `tensor<64x16xi8>` becomes `tensor<64x32xi4>`. All other dimensions are
    unchanged, and the bit count of each row must match exactly.
  }];
  let arguments = (ins Tile_TensorOrScalar:$src);
  let results = (outs Tile_TensorOrScalar:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a tile to another register layout";
  let description = [{
    Same shape and element type, another encoding. Before layout inference
    it pins the layout of its result.
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
