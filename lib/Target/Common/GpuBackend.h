//===- GpuBackend.h - What the NVIDIA and AMD backends share ----*- C++ -*-===//
//
// Part of tilec. Private to lib/Target: GPU backends prepare kernels with
// tile-gpu-prepare and build the emulator's module as their optimized IR
// rewritten by the vendor's emulation rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_COMMON_GPUBACKEND_H
#define TILE_LIB_TARGET_COMMON_GPUBACKEND_H

#include "tile/Target/Backend.h"

namespace tile {
namespace target {
namespace detail {

class GpuBackend : public Backend {
public:
  using Backend::Backend;

  /// tile-gpu-prepare for this target.
  void buildPreparePipeline(mlir::OpPassManager &pm) const override;

  /// translate(), then rewriteForEmulation().
  llvm::Expected<std::unique_ptr<llvm::Module>>
  buildEmulationModule(mlir::ModuleOp module,
                       llvm::LLVMContext &context) override;

protected:
  /// The vendor's rewrite of optimized IR for its CPU emulator.
  virtual llvm::Error rewriteForEmulation(llvm::Module &module) const = 0;
};

} // namespace detail
} // namespace target
} // namespace tile

#endif // TILE_LIB_TARGET_COMMON_GPUBACKEND_H
