//===- NVIDIABackend.cpp - NVIDIA targets behind the Backend interface ----===//
//
// Part of tilec. tile-gpu-prepare, the NVVM lowering, LLVM's NVPTX backend
// for PTX and ptxas for the cubin; the emulator's module is the same
// optimized IR rewritten by nvidia::rewriteForEmulation.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Target/Backend.h"

#include "../Common/GpuBackend.h"
#include "tile/Target/Serialize.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"

using namespace tile;
using namespace tile::target;

namespace {

class NVIDIABackend : public detail::GpuBackend {
public:
  using GpuBackend::GpuBackend;

  llvm::Error lowerToLLVM(mlir::ModuleOp module, bool) override {
    if (mlir::failed(nvidia::lowerToNVVM(module, target())))
      return llvm::createStringError("compilation failed in the NVVM lowering");
    return llvm::Error::success();
  }

  std::map<std::string, uint64_t>
  sharedBytes(mlir::ModuleOp module) const override {
    std::map<std::string, uint64_t> bytes;
    module.walk([&](mlir::LLVM::LLVMFuncOp func) {
      if (auto attr = func->getAttrOfType<mlir::IntegerAttr>(
              gpu::kDynamicSharedBytesAttr))
        bytes[func.getName().str()] = attr.getInt();
    });
    return bytes;
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &context, bool) override {
    return nvidia::translateToOptimizedLLVMIR(module, target(), context);
  }

  llvm::Expected<Emitted> emitAssembly(llvm::Module &module) override {
    auto ptx = tile::emitAssembly(module, target());
    if (!ptx)
      return ptx.takeError();
    return Emitted{std::move(*ptx), false, ""};
  }

  llvm::Expected<Emitted> emitObject(llvm::Module &module) override {
    auto ptx = tile::emitAssembly(module, target());
    if (!ptx)
      return ptx.takeError();
    auto cubin = assemblePTX(*ptx, target());
    if (!cubin)
      return cubin.takeError();
    return Emitted{std::move(cubin->cubin), true, std::move(cubin->report)};
  }

protected:
  llvm::Error rewriteForEmulation(llvm::Module &module) const override {
    return nvidia::rewriteForEmulation(module);
  }
};

} // namespace

std::unique_ptr<Backend>
target::detail::createNVIDIABackend(const TargetInfo &target) {
  return std::make_unique<NVIDIABackend>(target);
}
