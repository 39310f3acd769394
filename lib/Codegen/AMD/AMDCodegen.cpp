//===- AMDCodegen.cpp - Tile dialect to ROCDL, AMDGCN and HSACO -----------===//
//
// Part of tilec. The public entry points of the AMD code generator.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"

#include "LaneMaskRemat.h"
#include "ROCDLTargetLowering.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace tile::amd {

#define GEN_PASS_DECL_TILECONVERTTOROCDL
#define GEN_PASS_DECL_TILEROCDLSERIALIZE
#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

mlir::LogicalResult lowerToROCDL(mlir::ModuleOp module,
                                 const TargetInfo &target) {
  if (!target.isAMD())
    return module.emitError("lowerToROCDL: '")
           << target.name << "' is not an AMD target";
  std::unique_ptr<ROCDLLoweringBase> lowering = createROCDLLowering(target);
  module.getContext()->loadDialect<mlir::ROCDL::ROCDLDialect>();
  lowering->selectMmaAtoms(module);
  if (mlir::failed(gpu::lowerTileToLLVM(module, *lowering)) ||
      lowering->exceededLds())
    return mlir::failure();
  eraseUnusedLdsPlaceholder(module);
  return mlir::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToOptimizedLLVMIR(mlir::ModuleOp module, const TargetInfo &target,
                           llvm::LLVMContext &context) {
  if (!target.isAMD())
    return makeError("'" + target.name + "' is not an AMD target");
  mlir::DialectRegistry registry;
  registerAMDCodegenDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  // The translation reports its errors as diagnostics; collect them.
  std::string diagnostics;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    mlir::ScopedDiagnosticHandler handler(
        module.getContext(), [&](mlir::Diagnostic &diag) {
          llvm::raw_string_ostream os(diagnostics);
          os << diag.getLocation() << ": " << diag << "\n";
          return mlir::success();
        });
    llvmModule = mlir::translateModuleToLLVMIR(module, context, "tile");
  }
  if (!llvmModule)
    return makeError("cannot translate the module to LLVM IR (is it in the "
                     "LLVM + ROCDL dialects?)" +
                     (diagnostics.empty() ? "" : ":\n" + diagnostics));
  if (llvm::Error err = optimizeModule(*llvmModule, target, 3))
    return std::move(err);
  // -O3's LICM hoists loop-invariant lane masks, which then hold SGPR pairs
  // across whole loops; recompute them where they are used.
  rematerializeLaneMasks(*llvmModule);
  return llvmModule;
}

llvm::Expected<AmdgcnResult> emitAMDGCN(llvm::Module &module,
                                        const TargetInfo &target) {
  // Code generation rewrites the module (LDS lowering, ...): emit the
  // assembly, which carries the metadata, from a copy.
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  auto assembly = emitAssembly(*copy, target);
  if (!assembly)
    return assembly.takeError();
  auto kernels = parseKernelResources(*assembly);
  if (!kernels)
    return kernels.takeError();
  return AmdgcnResult{std::move(*assembly), std::move(*kernels)};
}

llvm::Expected<HsacoResult> emitHSACO(llvm::Module &module,
                                      const TargetInfo &target) {
  auto amdgcn = emitAMDGCN(module, target);
  if (!amdgcn)
    return amdgcn.takeError();
  auto object = emitRelocatable(module, target);
  if (!object)
    return object.takeError();
  auto hsaco = linkSharedObject(*object, target);
  if (!hsaco)
    return hsaco.takeError();
  return HsacoResult{std::move(*hsaco), std::move(amdgcn->assembly),
                     std::move(amdgcn->kernels)};
}

void registerAMDCodegenDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::LLVM::LLVMDialect, mlir::ROCDL::ROCDLDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
}

void registerAMDCodegenPasses() {
  registerTileConvertToROCDL();
  registerTileROCDLSerialize();
}

} // namespace tile::amd
