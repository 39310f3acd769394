//===- Registration.cpp - Register the tile passes and pipelines ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Transforms/Passes.h"

#include "tile/Target/TargetInfo.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tile {
namespace {
#define GEN_PASS_REGISTRATION
#include "tile/Transforms/Passes.h.inc"

struct GpuPrepareOptions : public PassPipelineOptions<GpuPrepareOptions> {
  Option<std::string> target{
      *this, "target", llvm::cl::desc("target name (sm_90a, gfx942, ...)"),
      llvm::cl::init("sm_90a")};
};
} // namespace

void buildGpuPreparePipeline(OpPassManager &pm, const std::string &target) {
  pm.addPass(createTileCloneFallbacks(TileCloneFallbacksOptions{target}));
  pm.addPass(createTileExpandScaledDot());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileInferLayouts(TileInferLayoutsOptions{target}));
  pm.addPass(createTileRemoveConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTilePersistPrograms(TilePersistProgramsOptions{target}));
  pm.addPass(createTilePipeline(TilePipelineOptions{target}));
  // NVIDIA stages dot operands converted across warps for ldmatrix
  // (tile-stage-converted-operands); AMD converts them, from the narrowest
  // values of their producer chain.
  TileRemoveConversionsOptions afterPipeline;
  std::optional<::tile::TargetInfo> info = ::tile::TargetInfo::lookup(target);
  afterPipeline.narrow = info && info->isAMD();
  pm.addPass(createTileRemoveConversions(afterPipeline));
  pm.addPass(createCanonicalizerPass());
  TileStageOperandsOptions stage;
  stage.target = target;
  pm.addPass(createTileStageOperands(stage));
  pm.addPass(createTileStageConvertedOperands(
      TileStageConvertedOperandsOptions{target}));
  pm.addPass(createTileAllocateShared(TileAllocateSharedOptions{target}));
  pm.addPass(createTileAssignTensorMaps());
  pm.addPass(createTilePrefetchPrologue(TilePrefetchPrologueOptions{target}));
}

void registerTransformsPasses() {
  registerTileTransformsPasses();
  PassPipelineRegistration<GpuPrepareOptions>(
      "tile-gpu-prepare",
      "tile-clone-fallbacks, tile-expand-scaled-dot, canonicalize, "
      "tile-infer-layouts, "
      "tile-remove-conversions, "
      "canonicalize, cse, tile-persist-programs, tile-pipeline, "
      "tile-remove-conversions, "
      "canonicalize, tile-stage-operands, tile-stage-converted-operands, "
      "tile-allocate-shared, tile-assign-tensor-maps, tile-prefetch-prologue "
      "for a target",
      [](OpPassManager &pm, const GpuPrepareOptions &options) {
        buildGpuPreparePipeline(pm, options.target);
      });
}

} // namespace tile
