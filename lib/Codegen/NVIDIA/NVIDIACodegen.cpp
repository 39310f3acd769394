//===- NVIDIACodegen.cpp - Tile dialect to NVVM, PTX and cubin ------------===//
//
// Part of tilec. The public entry points of the NVIDIA code generator.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace tile::nvidia {

#define GEN_PASS_DECL_TILECONVERTTONVVM
#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

mlir::LogicalResult lowerToNVVM(mlir::ModuleOp module,
                                const TargetInfo &target) {
  if (!target.isNVIDIA())
    return module.emitError("lowerToNVVM: '")
           << target.name << "' is not an NVIDIA target";
  std::unique_ptr<gpu::TargetLowering> lowering =
      createNVVMTargetLowering(target);
  module.getContext()->loadDialect<mlir::NVVM::NVVMDialect>();
  return gpu::lowerTileToLLVM(module, *lowering);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToOptimizedLLVMIR(mlir::ModuleOp module, const TargetInfo &target,
                           llvm::LLVMContext &context) {
  mlir::DialectRegistry registry;
  registerNVIDIACodegenDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tile");
  if (!llvmModule)
    return llvm::createStringError("cannot translate the module to LLVM IR");
  if (llvm::Error err = optimizeModule(*llvmModule, target, 3))
    return std::move(err);
  return llvmModule;
}

void registerNVIDIACodegenDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

void registerNVIDIACodegenPasses() { registerTileConvertToNVVM(); }

} // namespace tile::nvidia
