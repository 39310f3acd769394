//===- TileDialect.td - The tile dialect --------------------*- tablegen -*-===//
//
// Part of tilec. The tile dialect: block-level SSA values for tile programs.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tile";
  let summary = "Tile-level GPU programs: one program per thread block";
  let description = [{
    The `tile` dialect describes a kernel as one program per thread block that
    works on whole tiles. A register tile is a builtin `tensor` whose encoding
    is a layout attribute (absent before layout inference), so `arith` and
    `math` operations apply elementwise to tiles. Global memory is reached
    through `!tile.ptr` kernel arguments wrapped into `!tile.view`s; shared
    memory through `!tile.shared` buffers. Element types are the builtin
    signless integers of any width (signedness is carried by operations), the
    builtin floats (f16, bf16, f32 and the small OCP floats) and
    `!tile.float<eXmY>` for the small floats MLIR has no builtin for.

    A kernel is a `func.func` carrying the `tile.kernel` attribute; its other
    discardable attributes (`tile.warps`, `tile.warp_size`, `tile.grid`,
    `tile.constants`) and
    argument attributes (`tile.name`, `tile.dtype`, `tile.shape`, `tile.mut`,
    `tile.dim`) are verified by the dialect.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect"
  ];
  let extraClassDeclaration = [{
    // Names of the discardable attributes the dialect verifies.
    static constexpr ::llvm::StringLiteral kKernelAttr = "tile.kernel";
    static constexpr ::llvm::StringLiteral kWarpsAttr = "tile.warps";
    static constexpr ::llvm::StringLiteral kWarpSizeAttr = "tile.warp_size";
    static constexpr ::llvm::StringLiteral kGridAttr = "tile.grid";
    static constexpr ::llvm::StringLiteral kConstantsAttr = "tile.constants";
    static constexpr ::llvm::StringLiteral kPipelineAttr = "tile.pipeline";
    static constexpr ::llvm::StringLiteral kArgNameAttr = "tile.name";
    static constexpr ::llvm::StringLiteral kArgDTypeAttr = "tile.dtype";
    static constexpr ::llvm::StringLiteral kArgShapeAttr = "tile.shape";
    static constexpr ::llvm::StringLiteral kArgMutAttr = "tile.mut";
    static constexpr ::llvm::StringLiteral kArgDimAttr = "tile.dim";
    // TMA (docs/Passes.md, tile-pipeline and tile-assign-tensor-maps): a
    // unit attribute on the module that lets tile-pipeline use TMA copies,
    // the kernel's tensor maps, and the map a tile.copy_async reads.
    static constexpr ::llvm::StringLiteral kTmaAttr = "tile.tma";
    static constexpr ::llvm::StringLiteral kTensorMapsAttr = "tile.tensor_maps";
    static constexpr ::llvm::StringLiteral kTmaMapAttr = "tile.tma_map";
    // Warp specialization (docs/Passes.md, tile-pipeline): a unit attribute
    // on the module that lets tile-pipeline give TMA copies to producer
    // warps (it implies tile.tma), and the number of such warps on a kernel
    // with a tile.warp_specialize.
    static constexpr ::llvm::StringLiteral kWarpSpecializeAttr =
        "tile.warp_specialize";
    static constexpr ::llvm::StringLiteral kProducerWarpsAttr =
        "tile.producer_warps";
    // Persistent programs (docs/Passes.md, tile-persist-programs): a unit
    // attribute on the module that asks for them, and on the kernel and
    // the loop over its virtual grid that tile-persist-programs made; the
    // kernel's arguments that receive the virtual grid's extents.
    static constexpr ::llvm::StringLiteral kPersistentAttr = "tile.persistent";
    // On a kernel: the language's `persistent true`, which asks
    // tile-persist-programs for that kernel what the module attribute asks
    // for every kernel.
    static constexpr ::llvm::StringLiteral kPersistAttr = "tile.persist";
    // Programmatic dependent launch (docs/Passes.md, "Dependent launch"): a
    // unit attribute on the module; on targets that have it (NVIDIA sm_90+)
    // each kernel starts by waiting for the grids before it in its stream
    // and lets the next one be scheduled, and the runtime launches it so.
    static constexpr ::llvm::StringLiteral kDependentLaunchAttr =
        "tile.dependent_launch";
    // On a kernel: the language's `occupancy N`, the programs per SM (CU)
    // whose registers the kernel must leave room for (i32 >= 1).
    static constexpr ::llvm::StringLiteral kOccupancyAttr = "tile.occupancy";
    /// The occupancy a kernel asks for (`tile.occupancy`), 1 without one.
    static int64_t occupancyOf(::mlir::Operation *kernel);
    static constexpr ::llvm::StringLiteral kVirtualGridAttr =
        "tile.virtual_grid";
    // Fallbacks (docs/Passes.md, tile-clone-fallbacks): on the copy of a
    // kernel compiled without TMA copies, the name of the kernel it stands
    // in for; on a kernel that takes tensor maps, the name of that copy
    // (the runtime launches it where a tensor map cannot be made).
    static constexpr ::llvm::StringLiteral kFallbackOfAttr = "tile.fallback_of";
    static constexpr ::llvm::StringLiteral kFallbackAttr = "tile.fallback";
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
