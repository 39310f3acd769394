//===- HostBackend.cpp - The host target behind the Backend interface -----===//
//
// Part of tilec. The host lowers tensors to loops and buffers itself
// (host::lowerToHostLLVM), so it adds no preparation passes; its objects
// are relocatable ELF files for the host CPU family (generic: bundles run
// on other machines of the family), optimized at O2, linked into shared
// objects for the runtime (link). `tilec --emit` and the JIT share this
// path.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Target/Backend.h"
#include "tile/Target/Serialize.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"

using namespace tile;
using namespace tile::target;

namespace {

class HostBackend : public Backend {
public:
  using Backend::Backend;

  void buildPreparePipeline(mlir::OpPassManager &) const override {}

  llvm::Error lowerToLLVM(mlir::ModuleOp module, bool optimize) override {
    host::HostCompileOptions options;
    options.optimize = optimize;
    return host::lowerToHostLLVM(module, options);
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &context,
            bool optimize) override {
    auto llvmModule = host::translateToLLVMIR(module, context);
    if (!llvmModule)
      return llvmModule.takeError();
    if (llvm::Error err =
            optimizeModule(**llvmModule, target(), optimize ? 2 : 0))
      return std::move(err);
    return llvmModule;
  }

  llvm::Expected<Emitted> emitAssembly(llvm::Module &module) override {
    auto text = tile::emitAssembly(module, target());
    if (!text)
      return text.takeError();
    return Emitted{std::move(*text), false, ""};
  }

  llvm::Expected<Emitted> emitObject(llvm::Module &module) override {
    auto object = emitRelocatable(module, target());
    if (!object)
      return object.takeError();
    return Emitted{std::move(*object), true, ""};
  }

  llvm::Expected<Emitted> link(Emitted object) override {
    auto shared = host::linkHostSharedObject(object.data);
    if (!shared)
      return shared.takeError();
    return Emitted{std::move(*shared), true, ""};
  }
};

} // namespace

std::unique_ptr<Backend>
target::detail::createHostBackend(const TargetInfo &target) {
  return std::make_unique<HostBackend>(target);
}
