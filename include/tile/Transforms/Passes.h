//===- Passes.h - Target-independent tile passes ----------------*- C++ -*-===//
//
// Part of tilec. Constructors and registration of the passes of Passes.td
// and of the `tile-gpu-prepare` pipeline (docs/Passes.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tile {

#define GEN_PASS_DECL
#include "tile/Transforms/Passes.h.inc"

/// Attributes written by tile-allocate-shared (all i64 byte counts):
/// the offset of a `tile.alloc_shared` buffer, the kernel's total, and the
/// scratch region of a `tile.convert_layout` / `tile.reduce` that needs one.
inline constexpr llvm::StringLiteral kOffsetAttr = "tile.offset";
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
inline constexpr llvm::StringLiteral kScratchOffsetAttr = "tile.scratch_offset";
inline constexpr llvm::StringLiteral kScratchBytesAttr = "tile.scratch_bytes";

/// Adds `tile-gpu-prepare` to \p pm (anchored on builtin.module):
/// tile-expand-scaled-dot, canonicalize, tile-infer-layouts,
/// tile-remove-conversions, canonicalize,
/// cse, tile-pipeline, tile-remove-conversions, canonicalize,
/// tile-stage-operands, tile-allocate-shared, tile-assign-tensor-maps, for
/// \p target.
void buildGpuPreparePipeline(mlir::OpPassManager &pm,
                             const std::string &target);

/// Registers the passes of Passes.td and the `tile-gpu-prepare{target=...}`
/// pipeline with the global registry.
void registerTransformsPasses();

} // namespace tile

#endif // TILE_TRANSFORMS_PASSES_H
