//===- Serialize.h - LLVM IR to assembly and code objects -------*- C++ -*-===//
//
// Part of tilec. The last steps of every target: LLVM IR → optimized IR →
// assembly (PTX, AMDGCN, host) or a relocatable object → a code object
// (cubin through ptxas, HSACO through ld.lld, a host shared object through
// ld.lld). No ROCm and no CUDA runtime are needed; ptxas is optional.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_SERIALIZE_H
#define TILE_TARGET_SERIALIZE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace tile {

struct TargetInfo;

/// Runs LLVM's standard optimization pipeline at `optLevel` (0-3) on `module`
/// for the target, after setting its triple and data layout.
llvm::Error optimizeModule(llvm::Module &module, const TargetInfo &target,
                           unsigned optLevel);

/// Emits target assembly: PTX for NVIDIA, AMDGCN assembly for AMD, native
/// assembly for the host. The module's triple and data layout are set.
llvm::Expected<std::string> emitAssembly(llvm::Module &module,
                                         const TargetInfo &target);

/// Emits a relocatable ELF object (AMD and host only; NVIDIA objects come
/// from ptxas).
llvm::Expected<std::string> emitRelocatable(llvm::Module &module,
                                            const TargetInfo &target);

/// Finds an external tool: `$TILE_<NAME>` (e.g. TILE_PTXAS), then the places
/// it is installed on Debian (LLVM 22's bin folder; for ptxas, nvdisasm and
/// cuobjdump: $CUDA_HOME/bin, the CUDA toolkit, then the folder where
/// scripts/install-deps.sh puts them), then PATH. std::nullopt when it is
/// nowhere, or when `$TILE_<NAME>` is empty or `none` (as if it were not
/// installed: TILE_PTXAS=none makes NVIDIA code PTX for the driver,
/// TILE_LD_LLD=none makes a portable tilec use its built-in lld).
std::optional<std::string> findTool(llvm::StringRef name);

/// Result of running ptxas.
struct PtxasResult {
  std::string cubin;
  /// ptxas -v output: registers, spills, shared memory per kernel.
  std::string report;
};

/// Assembles PTX into a cubin for `target` with ptxas (-O3 -v). Fails with a
/// clear message when ptxas is missing or rejects the PTX.
llvm::Expected<PtxasResult> assemblePTX(llvm::StringRef ptx,
                                        const TargetInfo &target);

/// Runs ld.lld with \p args (no program name): the ld.lld tool when
/// findTool finds one (TILE_LD_LLD=none: never), else, in self-contained
/// builds (TILEC_PORTABLE), the lld linked into tilec: in a child process
/// running the program set by setBuiltinLinkerProgram, or in this process
/// when none is set. The error carries the linker's messages.
llvm::Error runLinker(llvm::ArrayRef<std::string> args);

/// The first argument that makes tilec act as ld.lld (builtinLinkerMain).
inline constexpr const char *kBuiltinLinkerFlag = "--tilec-builtin-lld";
/// Whether this build has lld linked in.
bool hasBuiltinLinker();
/// Registers \p program (an executable whose main hands
/// `kBuiltinLinkerFlag ARGS...` to builtinLinkerMain) to run the built-in
/// lld in a child process.
void setBuiltinLinkerProgram(llvm::StringRef program);
/// Runs the built-in lld on \p args (no program name); returns its exit
/// code (1 with a message when this build has none).
int builtinLinkerMain(llvm::ArrayRef<const char *> args);

/// Links a relocatable object into a shared object with ld.lld: an HSACO code
/// object for AMD targets, a loadable `.so` for the host.
llvm::Expected<std::string> linkSharedObject(llvm::StringRef object,
                                             const TargetInfo &target);

} // namespace tile

#endif // TILE_TARGET_SERIALIZE_H
