//===- CpuTargetLowering.cpp - Running lowered kernels on the CPU ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "CpuTargetLowering.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;

namespace tile::test {

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, cf::ControlFlowDialect,
                  LLVM::LLVMDialect>();
  ::tile::nvidia::registerNVIDIACodegenDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

llvm::Expected<std::unique_ptr<ExecutionEngine>>
createCpuEngine(ModuleOp module) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  ExecutionEngineOptions options;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::None;
  auto engine = ExecutionEngine::create(module, options);
  if (engine)
    ::tile::host::registerHostRuntimeSymbols(**engine);
  return engine;
}

std::optional<CpuJitKernel> lowerAndJit(llvm::StringRef source,
                                        ::tile::gpu::TargetLowering &target) {
  CpuJitKernel k;
  k.ctx = makeContext();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, k.ctx.get());
  if (!module)
    return std::nullopt;
  if (failed(::tile::gpu::lowerTileToLLVM(*module, target)))
    return std::nullopt;
  auto engine = createCpuEngine(*module);
  if (!engine) {
    llvm::errs() << llvm::toString(engine.takeError()) << "\n";
    return std::nullopt;
  }
  k.engine = std::move(*engine);
  auto fn = k.engine->lookup("k");
  if (!fn) {
    llvm::errs() << llvm::toString(fn.takeError()) << "\n";
    return std::nullopt;
  }
  k.fn = *fn;
  return k;
}

} // namespace tile::test
