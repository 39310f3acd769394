//===- Stages.h - From the tile dialect to every output stage ---*- C++ -*-===//
//
// Part of tilec. The one definition of what each `--emit` stage means for
// each target, shared by the `tilec` driver and the JIT library:
//
//   stage  host                    NVIDIA (sm_XY)            AMD (gfx9XX)
//   tile   canonicalized tile IR   after tile-gpu-prepare    after
//   tile-gpu-prepare llvm   LLVM IR (optimized)     LLVM IR with NVVM LLVM IR
//   with AMDGPU asm    x86-64/AArch64 asm      PTX                       AMDGCN
//   assembly obj    ELF relocatable object  cubin (ptxas)             HSACO
//   (ld.lld)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_STAGES_H
#define TILE_DRIVER_STAGES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class PassManager;
} // namespace mlir

namespace tile {
struct TargetInfo;
namespace driver {

/// Output stages, in pipeline order.
enum class Stage { MLIR, Tile, LLVM, Asm, Obj };

/// The name of a stage as `--emit` spells it.
llvm::StringRef stageName(Stage stage);
/// Parses an `--emit` value.
std::optional<Stage> parseStage(llvm::StringRef name);

/// What a stage produced.
/// A tensor map a kernel takes after its parameters (TMA copies;
/// tile-assign-tensor-maps): the tensor parameter, the box (outermost
/// first) and the swizzle width in bytes (0: none).
struct TensorMapDesc {
  unsigned param = 0;
  std::vector<uint32_t> box;
  unsigned swizzleBytes = 0;
};

struct StageOutput {
  /// Text (IR, assembly) or the bytes of an object.
  std::string data;
  bool binary = false;
  /// Resource report of the object (ptxas -v; register/LDS use), if any.
  std::string report;
  /// GPU targets: the dynamic shared memory each kernel is launched with.
  std::map<std::string, uint64_t> sharedBytes;
  /// GPU targets: the tensor maps each kernel takes, in order.
  std::map<std::string, std::vector<TensorMapDesc>> tensorMaps;
  /// GPU targets: the threads per block of each kernel whose launch has
  /// more than its tile.warps (warp specialization adds producer warps).
  std::map<std::string, uint32_t> threadsPerBlock;
  /// GPU targets: the kernels tile-persist-programs made persistent.
  std::set<std::string> persistent;
  /// GPU targets: each kernel with tensor maps and its copy without TMA
  /// copies (tile-clone-fallbacks), which the runtime launches where a map
  /// cannot be made.
  std::map<std::string, std::string> fallbacks;
  /// GPU targets: every kernel waits for the grids before it at its start
  /// (the module's tile.dependent_launch on a target that has it).
  bool dependentLaunch = false;
};

/// Options of a compilation past the front end.
struct PipelineOptions {
  /// Optimize (MLIR canonicalization/CSE, LLVM at O3). False: the plain
  /// lowering at O0 (a second, independent host result for `tilec check`).
  bool optimize = true;
  /// GPU targets: produce the CPU emulator's LLVM IR and code object (kind
  /// "nvemu-so" / "amdemu-so", runtime/include/tile/runtime/*EmuAbi.h)
  /// instead of PTX and a cubin / an HSACO. Ignored for the host.
  bool emulate = false;
  /// Stage::Obj: the code object the runtime loads (Backend::link: a host
  /// shared object rather than a relocatable object).
  bool loadable = false;
};

/// Compiles \p module — front-end output in the tile dialect — for \p target
/// up to \p stage. \p pm carries the user's pass-manager options
/// (--mlir-print-ir-*, --mlir-timing); the tile passes run in it. The module
/// is modified in place. Diagnostics go to the context's handler; the
/// returned error says which step failed.
llvm::Expected<StageOutput> compileToStage(mlir::ModuleOp module,
                                           const TargetInfo &target,
                                           Stage stage, mlir::PassManager &pm,
                                           const PipelineOptions &options = {});

} // namespace driver
} // namespace tile

#endif // TILE_DRIVER_STAGES_H
