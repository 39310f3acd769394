//===- Backend.h - One code generator per target, one interface -*- C++ -*-===//
//
// Part of tilec. Everything that differs between the host, NVIDIA and AMD
// after the tile passes sits behind this interface: the pass pipeline that
// prepares a kernel, its lowering to the LLVM dialect, the translation to
// optimized LLVM IR (with the target's post-optimization rewrites), the
// assembly and the code object, and the CPU emulator's module. The driver
// (`tilec --emit=...`) and the JIT compile through createBackend(), so that
// every stage a user can print is the IR the next stage receives.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_BACKEND_H
#define TILE_TARGET_BACKEND_H

#include "tile/Target/TargetInfo.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace tile {
namespace target {

/// Assembly text or the bytes of a code object, with the backend's
/// resource report (ptxas -v; VGPRs/SGPRs/LDS per kernel) where it has one.
struct Emitted {
  std::string data;
  bool binary = false;
  std::string report;
};

class Backend {
public:
  explicit Backend(const TargetInfo &target) : info(target) {}
  virtual ~Backend();

  const TargetInfo &target() const { return info; }

  /// Adds the passes that prepare a tile module for lowerToLLVM (GPUs:
  /// tile-gpu-prepare; the host lowers tensors itself in lowerToLLVM).
  virtual void buildPreparePipeline(mlir::OpPassManager &pm) const = 0;

  /// Lowers a prepared module to the LLVM dialect (with NVVM or ROCDL ops)
  /// in place. \p optimize: the host's plain O0 lowering when false.
  virtual llvm::Error lowerToLLVM(mlir::ModuleOp module, bool optimize) = 0;

  /// GPU targets: the dynamic shared memory each kernel of a lowered module
  /// is launched with.
  virtual std::map<std::string, uint64_t>
  sharedBytes(mlir::ModuleOp module) const;

  /// A lowered module as optimized LLVM IR, after the target's rewrites:
  /// what emitAssembly / emitObject compile (and `tilec --emit=llvm`
  /// prints). \p optimize: O3, else O0 (the host only; GPUs always O3).
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  translate(mlir::ModuleOp module, llvm::LLVMContext &context,
            bool optimize) = 0;

  /// PTX, AMDGCN or host assembly of an optimized module.
  virtual llvm::Expected<Emitted> emitAssembly(llvm::Module &module) = 0;

  /// The code object: a cubin (ptxas), an HSACO (ld.lld) or a relocatable
  /// host object.
  virtual llvm::Expected<Emitted> emitObject(llvm::Module &module) = 0;

  /// The code object the runtime loads, from emitObject's output: the host
  /// links its relocatable object into a shared object (with the Numerics
  /// ABI and compiler-rt builtins); a cubin or an HSACO is one already.
  virtual llvm::Expected<Emitted> link(Emitted object);

  /// GPU targets: the CPU emulator's module (translate, then the vendor's
  /// emulation rewrite) of a lowered module; an error for the host.
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  buildEmulationModule(mlir::ModuleOp module, llvm::LLVMContext &context);

private:
  TargetInfo info;
};

/// The backend of \p target.
std::unique_ptr<Backend> createBackend(const TargetInfo &target);

namespace detail {
std::unique_ptr<Backend> createHostBackend(const TargetInfo &target);
std::unique_ptr<Backend> createNVIDIABackend(const TargetInfo &target);
std::unique_ptr<Backend> createAMDBackend(const TargetInfo &target);
} // namespace detail

} // namespace target
} // namespace tile

#endif // TILE_TARGET_BACKEND_H
