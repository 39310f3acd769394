//===- GPULowering.cpp - Tile kernels to the LLVM dialect on GPUs ---------===//
//
// Part of tilec. Drives the generic GPU lowering: per kernel, the per-thread
// rebuild of KernelLowering; then the upstream conversions of scf, arith,
// math, cf and func to the LLVM dialect; then the target's kernel marking.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/GPU/GPULowering.h"

#include "KernelLowering.h"

#include "tile/Target/TargetInfo.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tile::gpu {

LogicalResult lowerTileToLLVM(ModuleOp module, TargetLowering &target) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<LLVM::LLVMDialect, cf::ControlFlowDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect>();

  // 1. Distribute every kernel over its threads.
  SmallVector<func::FuncOp> kernels;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn->hasAttr("tile.kernel"))
      kernels.push_back(fn);
  llvm::StringMap<std::pair<unsigned, unsigned>> launch;
  for (func::FuncOp fn : kernels) {
    auto warps = fn->getAttrOfType<IntegerAttr>("tile.warps");
    // A warp-specialized kernel also runs its producer warps, and starts
    // with the registers its roles then redistribute.
    auto producers =
        fn->getAttrOfType<IntegerAttr>(tile::TileDialect::kProducerWarpsAttr);
    if (warps) {
      unsigned threads =
          unsigned(warps.getInt() + (producers ? producers.getInt() : 0)) *
          target.getTargetInfo().warpSize;
      launch[fn.getSymName()] = {
          threads,
          producers ? unsigned(tile::WarpSpecializeOp::launchRegisters(threads))
                    : 0u};
    }
    KernelLowering lowering(target, module, fn);
    if (failed(lowering.run()))
      return failure();
  }

  // 2. Clean up, then scf -> cf -> llvm.
  {
    PassManager pm(ctx);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(module)))
      return failure();
  }
  {
    RewritePatternSet patterns(ctx);
    populateSCFToControlFlowConversionPatterns(patterns);
    ConversionTarget conv(*ctx);
    conv.addIllegalDialect<scf::SCFDialect>();
    conv.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, conv, std::move(patterns))))
      return failure();
  }
  {
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    RewritePatternSet patterns(ctx);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    ConversionTarget conv(*ctx);
    conv.addIllegalDialect<arith::ArithDialect, math::MathDialect,
                           cf::ControlFlowDialect, func::FuncDialect>();
    conv.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, conv, std::move(patterns))))
      return failure();
  }
  {
    PassManager pm(ctx);
    pm.addPass(createReconcileUnrealizedCastsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(module)))
      return failure();
  }

  // 3. Entry points.
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    auto it = launch.find(fn.getSymName());
    if (it != launch.end())
      target.markKernel(fn, it->second.first, it->second.second);
  }
  return success();
}

} // namespace tile::gpu
