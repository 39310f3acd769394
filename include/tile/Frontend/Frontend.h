//===- Frontend.h - Public API of the .tile front end ------------*- C++
//-*-===//
//
// Part of tilec. Compiles a .tile source buffer into a module of the tile
// dialect (see docs/Language.md and the IR contract in docs/Dialect.md):
//
//   llvm::SourceMgr sm;  // main buffer = the .tile file
//   mlir::MLIRContext ctx;
//   tile::frontend::CompileOptions opts;
//   opts.defines["BM"] = "64";
//   auto module = tile::frontend::compileToMLIR(sm, ctx, opts);
//   if (!module) ... // diagnostics were printed
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_FRONTEND_H
#define TILE_FRONTEND_FRONTEND_H

#include "tile/Frontend/TargetFacts.h"
#include <map>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace tile {
namespace frontend {

/// Options of one front-end compilation.
struct CompileOptions {
  /// Compile-time parameter overrides: NAME -> VALUE text, as in
  /// `-D BM=32 -D T=u3 -D CAUSAL=true`. A name that is a parameter of no
  /// compiled kernel is an error.
  std::map<std::string, std::string> defines;
  /// Compile only this kernel (all kernels of the file when empty).
  std::string kernel;
  /// Stop after this many errors.
  unsigned maxErrors = 20;
  /// The target's facts (`warp_size()`, `shared_memory()`, `has_wgmma()` in
  /// compile-time expressions); unknown (zeros): those builtins are errors.
  TargetFacts target;
};

/// Compiles the main buffer of \p sm into a tile-dialect module: one
/// `func.func` with the `tile.kernel` attribute per compiled kernel. The
/// dialects the module uses are loaded into \p ctx. Diagnostics
/// (file:line:col, source line, caret) go to \p diagOS (stderr when null).
/// Returns a null module on any error.
mlir::OwningOpRef<mlir::ModuleOp>
compileToMLIR(llvm::SourceMgr &sm, mlir::MLIRContext &ctx,
              const CompileOptions &options,
              llvm::raw_ostream *diagOS = nullptr);

/// Runs only the checks of the front end (parse, specialization, semantic
/// analysis) without building IR. Returns false after printing diagnostics.
bool checkSource(llvm::SourceMgr &sm, const CompileOptions &options,
                 llvm::raw_ostream *diagOS = nullptr);

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_FRONTEND_H
