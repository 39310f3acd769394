//===- KernelMetadata.h - Launch description of a tile.kernel ---*- C++ -*-===//
//
// Part of tilec (lib/JIT, private). Reads the runtime's view of a kernel —
// signature, grid, launch configuration, compile-time values — from the
// attributes the front end puts on a `tile.kernel` function.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_JIT_KERNELMETADATA_H
#define TILE_LIB_JIT_KERNELMETADATA_H

#include "tile/runtime/Bundle.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace tile {
struct TargetInfo;
namespace jit {

/// The KernelInfo of \p Func for \p Target. The object file name and kind
/// are left to the caller.
rt::Expected<rt::KernelInfo> kernelInfoFromFunc(mlir::func::FuncOp Func,
                                                const TargetInfo &Target);

/// Fills Registers and Spills of each of \p Infos from the code generator's
/// resource report (ptxas -v for NVIDIA, the KernelResources lines for
/// AMD); kernels the report does not mention are left unknown.
void readResourceReport(const std::string &Report,
                        std::vector<rt::KernelInfo> &Infos);

namespace detail {
/// Reads a whole file into bytes.
rt::Expected<std::vector<uint8_t>> readBytes(const std::string &Path);
} // namespace detail

} // namespace jit
} // namespace tile

#endif // TILE_LIB_JIT_KERNELMETADATA_H
