//===- HostPipeline.cpp - The host pipeline and pass registration ---------===//
//
// Part of tilec. tile-host-pipeline: tile dialect -> LLVM dialect, made of
// tilec's host passes and upstream bufferization and LLVM conversions.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Codegen/Passes.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

// mlir/Dialect/Linalg/Passes.h cannot be included here: through
// SCF/Utils/Utils.h it declares functions named tile, which clash with
// the namespace tile. These are its two passes the pipeline uses.
namespace mlir {
std::unique_ptr<Pass> createConvertElementwiseToLinalgPass();
std::unique_ptr<Pass> createConvertLinalgToLoopsPass();
} // namespace mlir

namespace tile {
#define GEN_PASS_REGISTRATION
#include "tile/Codegen/Passes.h.inc"
} // namespace tile

using namespace mlir;
namespace host = ::tile::host;

void tile::buildHostPipeline(OpPassManager &pm,
                             const HostPipelineOptions &options) {
  auto cleanup = [&] {
    if (!options.optimize)
      return;
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  };
  // Tile dialect -> tensors with value semantics + explicit memory.
  pm.addPass(createTileExpandScaledDot());
  pm.addPass(createTileHostDropLayouts());
  pm.addPass(createTileHostEmitEntry());
  pm.addPass(createTileHostLowerTile());
  cleanup();
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Tensors -> buffers, with every buffer freed (also inside loops).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Buffers and loops -> LLVM.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  // bf16 arithmetic in f32, and bf16 <-> f32 as integer bit operations: no
  // __truncsfbf2 (missing from libgcc 12) in JIT code or shared objects.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  cleanup();
}

void tile::registerCodegenPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerTileCodegenPasses();
  PassPipelineRegistration<>(
      "tile-host-pipeline",
      "Lower tile kernels to the LLVM dialect for the host (CPU)",
      [](OpPassManager &pm) { buildHostPipeline(pm); });
  PassPipelineRegistration<>(
      "tile-host-pipeline-O0",
      "tile-host-pipeline without canonicalization and CSE",
      [](OpPassManager &pm) {
        HostPipelineOptions options;
        options.optimize = false;
        buildHostPipeline(pm, options);
      });
}

void host::registerHostCodegenDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerBufferViewFlowOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  memref::registerBufferViewFlowOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

llvm::Error host::lowerToHostLLVM(ModuleOp module,
                                  const HostCompileOptions &options) {
  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  registerHostCodegenDialects(registry);
  ctx->appendDialectRegistry(registry);

  std::string messages;
  llvm::raw_string_ostream os(messages);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    os << diag.getLocation() << ": " << diag.str() << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << "  note: " << note.str() << "\n";
    return success();
  });
  PassManager pm(ctx, ModuleOp::getOperationName());
  tile::HostPipelineOptions pipelineOptions;
  pipelineOptions.optimize = options.optimize;
  tile::buildHostPipeline(pm, pipelineOptions);
  // In a tool that registered MLIR's command-line options (tilec), they
  // apply here too: --mlir-print-ir-after-all, --mlir-timing, ...
  if (llvm::cl::getRegisteredOptions().count("mlir-print-ir-after-all")) {
    if (failed(applyPassManagerCLOptions(pm)))
      return llvm::createStringError("invalid pass manager options");
    auto timing = std::make_unique<DefaultTimingManager>();
    applyDefaultTimingManagerCLOptions(*timing);
    if (timing->isEnabled())
      pm.enableTiming(std::move(timing));
  }
  if (failed(pm.run(module)))
    return llvm::createStringError(
        "host lowering failed:\n" +
        (messages.empty() ? std::string("(no diagnostic)") : messages));
  return llvm::Error::success();
}
