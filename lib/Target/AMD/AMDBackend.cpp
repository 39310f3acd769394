//===- AMDBackend.cpp - AMD targets behind the Backend interface ----------===//
//
// Part of tilec. tile-gpu-prepare, the ROCDL lowering, the AMDGPU backend
// (after -O3, lane masks are rematerialized inside loops: what
// amd::translateToOptimizedLLVMIR returns is what the backend compiles and
// what --emit=llvm prints) and ld.lld for the HSACO. LDS is static in the
// code object, so kernels launch with no dynamic shared memory.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Target/Backend.h"

#include "../Common/GpuBackend.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"

using namespace tile;
using namespace tile::target;

namespace {

class AMDBackend : public detail::GpuBackend {
public:
  using GpuBackend::GpuBackend;

  llvm::Error lowerToLLVM(mlir::ModuleOp module, bool) override {
    if (mlir::failed(amd::lowerToROCDL(module, target())))
      return llvm::createStringError(
          "compilation failed in the ROCDL lowering");
    return llvm::Error::success();
  }

  std::map<std::string, uint64_t>
  sharedBytes(mlir::ModuleOp module) const override {
    std::map<std::string, uint64_t> bytes;
    module.walk([&](mlir::LLVM::LLVMFuncOp func) {
      if (func->hasAttr("rocdl.kernel"))
        bytes[func.getName().str()] = 0;
    });
    return bytes;
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &context, bool) override {
    return amd::translateToOptimizedLLVMIR(module, target(), context);
  }

  llvm::Expected<Emitted> emitAssembly(llvm::Module &module) override {
    auto amdgcn = amd::emitAMDGCN(module, target());
    if (!amdgcn)
      return amdgcn.takeError();
    return Emitted{std::move(amdgcn->assembly), false,
                   amd::formatResources(amdgcn->kernels)};
  }

  llvm::Expected<Emitted> emitObject(llvm::Module &module) override {
    auto hsaco = amd::emitHSACO(module, target());
    if (!hsaco)
      return hsaco.takeError();
    return Emitted{std::move(hsaco->hsaco), true,
                   amd::formatResources(hsaco->kernels)};
  }

protected:
  llvm::Error rewriteForEmulation(llvm::Module &module) const override {
    return amd::rewriteForEmulation(module, target().chip);
  }
};

} // namespace

std::unique_ptr<Backend>
target::detail::createAMDBackend(const TargetInfo &target) {
  return std::make_unique<AMDBackend>(target);
}
