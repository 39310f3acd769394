//===- InitAll.h - Register every tilec dialect and pass --------*- C++ -*-===//
//
// Part of tilec. One place that knows every dialect and pass of the project,
// used by tile-opt, tilec and the JIT.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INITALL_H
#define TILE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tile {

/// Registers the tile dialect and the upstream dialects tile programs use or
/// lower to (func, arith, math, scf, cf, llvm, nvvm, rocdl, gpu, ...).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every tilec pass and pass pipeline with the global registry.
void registerAllPasses();

} // namespace tile

#endif // TILE_INITALL_H
