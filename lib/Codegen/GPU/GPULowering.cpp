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
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tile::gpu {

namespace {
/// What a kernel's entry point declares about its launch (markKernel).
struct LaunchBounds {
  unsigned threads = 0;      ///< 0: not a kernel with tile.warps
  unsigned maxRegisters = 0; ///< warp-specialized kernels only
  unsigned occupancy = 1;
};
} // namespace

/// The launch bounds of \p fn; std::nullopt after reporting an occupancy
/// (`occupancy N`) the target cannot hold: N programs' warps, producers
/// included, or their shared memory beyond one SM's.
static std::optional<LaunchBounds> launchBounds(func::FuncOp fn,
                                                const TargetInfo &info) {
  LaunchBounds bounds;
  auto warps = fn->getAttrOfType<IntegerAttr>("tile.warps");
  if (!warps)
    return bounds;
  // A warp-specialized kernel also runs its producer warps, and starts
  // with the registers its roles then redistribute.
  auto producers =
      fn->getAttrOfType<IntegerAttr>(tile::TileDialect::kProducerWarpsAttr);
  int64_t allWarps = warps.getInt() + (producers ? producers.getInt() : 0);
  int64_t n = tile::TileDialect::occupancyOf(fn);
  bounds.threads = unsigned(allWarps * info.warpSize);
  bounds.occupancy = unsigned(n);
  if (producers)
    bounds.maxRegisters =
        unsigned(tile::WarpSpecializeOp::launchRegisters(bounds.threads, n));
  if (n == 1)
    return bounds;
  const char *processor = info.isAMD() ? "CU" : "SM";
  if (info.maxWarpsPerProcessor && allWarps * n > info.maxWarpsPerProcessor) {
    InFlightDiagnostic diag = mlir::emitError(fn.getLoc());
    diag << "occupancy " << n << " of " << allWarps << "-warp programs";
    if (producers)
      diag << " (" << warps.getInt() << " + " << producers.getInt()
           << " producer warps)";
    diag << " needs " << allWarps * n
         << (info.isAMD() ? " wavefronts" : " warps") << " per " << processor
         << "; " << info.name << " holds at most " << info.maxWarpsPerProcessor;
    return std::nullopt;
  }
  int64_t shared = 0;
  if (auto bytes = fn->getAttrOfType<IntegerAttr>("tile.shared_bytes"))
    shared = bytes.getInt();
  int64_t perProgram = shared + info.reservedSharedBytesPerProgram;
  if (info.sharedBytesPerProcessor &&
      perProgram * n > int64_t(info.sharedBytesPerProcessor)) {
    mlir::emitError(fn.getLoc())
        << "occupancy " << n << " needs " << n << " x " << perProgram
        << " bytes of shared memory per " << processor << " (" << shared
        << " per program"
        << (info.reservedSharedBytesPerProgram ? " + 1 KB reserved" : "")
        << "); " << info.name << " has " << info.sharedBytesPerProcessor;
    return std::nullopt;
  }
  return bounds;
}

LogicalResult lowerTileToLLVM(ModuleOp module, TargetLowering &target) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<LLVM::LLVMDialect, cf::ControlFlowDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect>();

  // 1. Distribute every kernel over its threads.
  SmallVector<func::FuncOp> kernels;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn->hasAttr("tile.kernel"))
      kernels.push_back(fn);
  llvm::StringMap<LaunchBounds> launch;
  // Kernels whose wait for the grids before them tile-prefetch-prologue
  // placed (after its prefetches); the others wait at their start.
  llvm::StringSet<> placedWaits;
  for (func::FuncOp fn : kernels) {
    if (!fn.getBody().getOps<tile::WaitPrecedingGridsOp>().empty())
      placedWaits.insert(fn.getSymName());
    if (auto bounds = launchBounds(fn, target.getTargetInfo()))
      launch[fn.getSymName()] = *bounds;
    else
      return failure();
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

  // 3. Entry points (waiting for the grids before them first, where the
  // module asks for dependent launches and the target has them, unless
  // the kernel's wait was placed).
  bool dependent = module->hasAttr(tile::TileDialect::kDependentLaunchAttr) &&
                   target.getTargetInfo().hasDependentLaunch();
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    auto it = launch.find(fn.getSymName());
    if (it == launch.end() || !it->second.threads)
      continue;
    target.markKernel(fn, it->second.threads, it->second.maxRegisters,
                      it->second.occupancy);
    if (dependent && !fn.getBody().empty() &&
        !placedWaits.contains(fn.getSymName())) {
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      target.waitForPrecedingGrids(b, fn.getLoc());
    }
  }
  return success();
}

} // namespace tile::gpu
