//===- CloneFallbacks.cpp - TMA-free copies of kernels that may use TMA ---===//
//
// Part of tilec. Implements tile-clone-fallbacks (see Passes.td and
// docs/Passes.md).
//
// A TMA copy reads its tensor through a tensor map, and the driver encodes
// one only for a 16-byte aligned address whose byte strides are multiples
// of 16 (a row of f16 values: a multiple of 8 columns). A kernel compiled
// with TMA copies cannot run on any other tensor, so each kernel that may
// get them (the module allows TMA copies or producer warps, or one of its
// loops asks for producer warps) gets a copy compiled without them:
//
//   func @k(...) {...}    -->   func @k(...) {...}
//                               func @k__fallback(...)
//                                   attributes {tile.fallback_of = @k} {...}
//
// tile-pipeline gives the copy neither TMA copies nor producer warps (its
// loops keep cp.async rings); tile-assign-tensor-maps erases the copy of a
// kernel that ended up with no tensor map and names the copy of one that
// did (`tile.fallback`), which the runtime launches where a map cannot be
// made (runtime/README.md).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace tile {
#define GEN_PASS_DEF_TILECLONEFALLBACKS
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// Whether \p func may get TMA copies: the module allows them for every
/// loop (tile.tma, tile.warp_specialize) or one of its loops asks for a
/// producer warpgroup.
bool mayCopyWithTma(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  if (module && (module->hasAttr(tile::TileDialect::kTmaAttr) ||
                 module->hasAttr(tile::TileDialect::kWarpSpecializeAttr)))
    return true;
  WalkResult walk = func.walk([](scf::ForOp loop) {
    return loop->hasAttr(tile::TileDialect::kWarpSpecializeAttr)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Adds after \p func its copy without TMA requests, named `<name>__fallback`
/// (with a number where that name is taken).
void cloneFallback(func::FuncOp func, SymbolTable &symbols) {
  func::FuncOp copy = func.clone();
  copy.walk([](scf::ForOp loop) {
    loop->removeAttr(tile::TileDialect::kWarpSpecializeAttr);
  });
  copy->setAttr(tile::TileDialect::kFallbackOfAttr,
                FlatSymbolRefAttr::get(func.getSymNameAttr()));
  std::string name = (func.getSymName() + "__fallback").str();
  copy.setSymName(name);
  // SymbolTable::insert renames the copy where the name is taken.
  symbols.insert(copy, std::next(Block::iterator(func)));
}

struct CloneFallbacksPass
    : public tile::impl::TileCloneFallbacksBase<CloneFallbacksPass> {
  using TileCloneFallbacksBase::TileCloneFallbacksBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tile::TargetInfo> info =
        tile::detail::lookupTarget(module, target);
    if (!info)
      return signalPassFailure();
    if (!info->hasTma)
      return;
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (tile::detail::isKernel(func) && !func.isExternal() &&
          !func->hasAttr(tile::TileDialect::kFallbackOfAttr) &&
          mayCopyWithTma(func))
        kernels.push_back(func);
    SymbolTable symbols(module);
    for (func::FuncOp func : kernels)
      cloneFallback(func, symbols);
  }
};

} // namespace
