//===- GPULowering.h - Tile dialect to the LLVM dialect on GPUs -*- C++ -*-===//
//
// Part of tilec. The vendor-neutral GPU lowering: every `tile.kernel`
// function whose tiles carry #tile.layout encodings becomes an LLVM
// function in which each thread computes its own registers. Vendor ops come
// from a TargetLowering (include/tile/Codegen/GPU/TargetLowering.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_GPU_GPULOWERING_H
#define TILE_CODEGEN_GPU_GPULOWERING_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tile::gpu {

class TargetLowering;

/// Name of the `llvm.func` attribute (i64) that records the bytes of
/// dynamic shared memory a lowered kernel must be launched with: the
/// kernel's `tile.shared_bytes` rounded up to 16 plus the scratch space its
/// reductions and layout conversions use.
inline constexpr const char *kDynamicSharedBytesAttr =
    "tile_dynamic_shared_bytes";

/// Lowers every `tile.kernel` function of `module` to the LLVM dialect (plus
/// the target's intrinsic dialect): distributes the tiles over threads,
/// then converts scf/arith/math/cf/func to LLVM and marks the kernels as
/// entry points. Reports errors on the offending ops.
mlir::LogicalResult lowerTileToLLVM(mlir::ModuleOp module,
                                    TargetLowering &target);

} // namespace tile::gpu

#endif // TILE_CODEGEN_GPU_GPULOWERING_H
