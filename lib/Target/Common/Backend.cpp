//===- Backend.cpp - The target backends behind one interface -------------===//
//
// Part of tilec. createBackend() and the defaults of the Backend interface
// (include/tile/Target/Backend.h).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Backend.h"

#include "GpuBackend.h"

#include "tile/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"

using namespace tile;
using namespace tile::target;

Backend::~Backend() = default;

std::map<std::string, uint64_t> Backend::sharedBytes(mlir::ModuleOp) const {
  return {};
}

llvm::Expected<std::unique_ptr<llvm::Module>>
Backend::buildEmulationModule(mlir::ModuleOp, llvm::LLVMContext &) {
  return llvm::createStringError(
      "--emulate needs a GPU target (sm_*, gfx*), not " + target().name);
}

llvm::Expected<Emitted> Backend::link(Emitted object) { return object; }

std::unique_ptr<Backend> target::createBackend(const TargetInfo &target) {
  if (target.isNVIDIA())
    return detail::createNVIDIABackend(target);
  if (target.isAMD())
    return detail::createAMDBackend(target);
  return detail::createHostBackend(target);
}

void detail::GpuBackend::buildPreparePipeline(mlir::OpPassManager &pm) const {
  tile::buildGpuPreparePipeline(pm, target().name);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
detail::GpuBackend::buildEmulationModule(mlir::ModuleOp module,
                                         llvm::LLVMContext &context) {
  auto llvmModule = translate(module, context, /*optimize=*/true);
  if (!llvmModule)
    return llvmModule.takeError();
  if (llvm::Error err = rewriteForEmulation(**llvmModule))
    return std::move(err);
  return llvmModule;
}
