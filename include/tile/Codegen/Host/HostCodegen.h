//===- HostCodegen.h - Run tile programs on the CPU -------------*- C++ -*-===//
//
// Part of tilec. The public API of host code generation: lower a module of
// tile kernels to the LLVM dialect, translate it to LLVM IR, write an object
// file or a shared object, or JIT-compile it and run grids of programs on a
// thread pool. docs/Passes.md ("Host") describes the lowering.
//
// Entry ABI (shared with runtime/): each kernel NAME becomes the C function
//
//   void NAME(void **args, const uint32_t program_id[3],
//             const uint32_t num_programs[3]);
//
// where args[i] points to the value of the i-th kernel parameter: for a
// tensor (!tile.ptr) a pointer to its data pointer (like cuLaunchKernel's
// kernelParams), for a scalar or a dimension a pointer to the value.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_HOST_HOSTCODEGEN_H
#define TILE_CODEGEN_HOST_HOSTCODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ExecutionEngine;
class ModuleOp;
} // namespace mlir

namespace tile {
namespace host {

/// The C signature of a kernel entry (see the file comment).
using KernelEntry = void (*)(void **args, const uint32_t *programId,
                             const uint32_t *numPrograms);

/// Options of host compilation.
struct HostCompileOptions {
  /// Run MLIR canonicalization/CSE and LLVM's optimizer (O2). False gives
  /// the plain lowering at O0: a second, independent host result.
  bool optimize = true;
};

/// Registers the dialects, interfaces (bufferization models) and LLVM IR
/// translations the host pipeline needs. Call it on the registry of every
/// context the pipeline runs in (tile::registerAllDialects does).
void registerHostCodegenDialects(mlir::DialectRegistry &registry);

/// Runs the host pipeline on \p module (tile dialect -> LLVM dialect).
/// Diagnostics are returned in the error.
llvm::Error lowerToHostLLVM(mlir::ModuleOp module,
                            const HostCompileOptions &options = {});

/// Translates a module in the LLVM dialect to LLVM IR for the host.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context);

/// Writes a relocatable (PIC) object file for the host CPU family
/// (generic x86-64 / aarch64, so it runs on other machines of that family)
/// from a module in the LLVM dialect.
llvm::Error emitHostObject(mlir::ModuleOp module, llvm::StringRef path,
                           const HostCompileOptions &options = {});

/// Writes a shared object (ld.lld -shared) from a module in the LLVM
/// dialect. Kernel entries are exported; the lib/Numerics C functions
/// (tile_num_*), libc and libm symbols are left to the loading process.
llvm::Error emitHostSharedObject(mlir::ModuleOp module, llvm::StringRef path,
                                 const HostCompileOptions &options = {});

/// Links the relocatable host object \p object (bytes, e.g. the host
/// Backend's emitObject) into a shared object as emitHostSharedObject does
/// and returns its bytes: what the runtime loads.
llvm::Expected<std::string> linkHostSharedObject(llvm::StringRef object);

/// Retargets \p module (an LLVM IR module of any triple, e.g. the NVIDIA
/// emulator's) to the host CPU family, compiles it (O2 and LLVM's optimizing
/// code generator when \p optimize; else -O0, the fast code generator) and
/// links it into a self-contained shared object at \p path, like
/// emitHostSharedObject.
llvm::Error emitSharedObjectFromLLVM(llvm::Module &module, llvm::StringRef path,
                                     bool optimize);

/// Registers with \p engine (an mlir::ExecutionEngine) the functions host
/// code JIT-compiled in this process may call besides libc and libm: the
/// lib/Numerics C ABI, and __truncsfbf2 (f32 -> bf16, rounding to nearest
/// even), which LLVM's X86 backend calls for bf16 values it keeps in
/// registers across blocks and which libgcc 12 lacks (shared objects link
/// compiler-rt's instead).
void registerHostRuntimeSymbols(mlir::ExecutionEngine &engine);

/// Kernels JIT-compiled in this process (ORC through mlir::ExecutionEngine),
/// with the lib/Numerics C ABI resolved. Thread-safe after creation.
class HostExecutable {
public:
  /// Compiles \p module, which must be in the LLVM dialect (see
  /// lowerToHostLLVM).
  static llvm::Expected<std::unique_ptr<HostExecutable>>
  create(mlir::ModuleOp module, const HostCompileOptions &options = {});

  /// Parses tile-dialect MLIR \p source, lowers and compiles it in a private
  /// context.
  static llvm::Expected<std::unique_ptr<HostExecutable>>
  createFromSource(llvm::StringRef source,
                   const HostCompileOptions &options = {});

  ~HostExecutable();
  HostExecutable(const HostExecutable &) = delete;
  HostExecutable &operator=(const HostExecutable &) = delete;

  /// The entry of kernel \p name.
  llvm::Expected<KernelEntry> lookup(llvm::StringRef name) const;

private:
  HostExecutable();
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// Runs every program of a \p grid (x, y, z) of \p entry with \p args,
/// spread over \p numThreads threads (0: one per hardware thread; 1: in the
/// calling thread). Programs are numbered x fastest; a grid with a zero
/// dimension runs nothing. Fails only without an entry.
llvm::Error runGrid(KernelEntry entry, void **args,
                    const std::array<uint32_t, 3> &grid,
                    unsigned numThreads = 0);

} // namespace host
} // namespace tile

#endif // TILE_CODEGEN_HOST_HOSTCODEGEN_H
