//===- Passes.h - Code generation passes of tilec ---------------*- C++ -*-===//
//
// Part of tilec. Constructors and registration of the code generation
// passes of every target (see Passes.td and docs/Passes.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_PASSES_H
#define TILE_CODEGEN_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tile {

#define GEN_PASS_DECL
#include "tile/Codegen/Passes.h.inc"

/// Options of the host pipeline (tile dialect -> LLVM dialect).
struct HostPipelineOptions {
  /// Run canonicalization/CSE between the stages. Off gives the plain,
  /// unoptimized lowering (`tilec check --target host` compares the two).
  bool optimize = true;
};

/// Adds the host pipeline, from the tile dialect to the LLVM dialect, to
/// \p pm (which must be anchored on builtin.module).
void buildHostPipeline(mlir::OpPassManager &pm,
                       const HostPipelineOptions &options = {});

/// Registers every code generation pass and the `tile-host-pipeline`
/// pipeline with the global registry.
void registerCodegenPasses();

} // namespace tile

#endif // TILE_CODEGEN_PASSES_H
