//===- KernelInfo.h - Kernel signatures and tune spaces ----------*- C++
//-*-===//
//
// Part of tilec. A plain description of the kernels in a .tile file (their
// compile-time parameters, defaults and tune spaces), independent of MLIR,
// for the driver and the autotuner.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_KERNELINFO_H
#define TILE_FRONTEND_KERNELINFO_H

#include "tile/Frontend/TargetFacts.h"
#include <map>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace tile {
namespace frontend {

/// Description of one kernel of a .tile file.
struct KernelInfo {
  /// A compile-time parameter.
  struct CtParam {
    std::string name;
    std::string kind;         ///< "int", "type" or "bool".
    bool hasDefault = false;  ///< False when it must be given with -D.
    std::string defaultValue; ///< Default as text ("128", "u4", "false").
  };
  /// A runtime parameter.
  struct RtParam {
    std::string name;
    std::string type; ///< Element type as written ("f16", "T").
    bool isTensor = false;
    bool isMut = false;
    std::vector<std::string> dims; ///< Dimension expressions as written.
  };
  /// One dimension of the tune space.
  struct TuneDim {
    std::string name;
    std::vector<std::string> values; ///< Candidate values as text.
  };

  std::string name;
  std::vector<CtParam> ctParams;
  std::vector<RtParam> rtParams;
  std::vector<TuneDim> tune; ///< Empty without a tune block.
  unsigned line = 0;         ///< Line of the `kernel` keyword.
};

/// Parses the main buffer of \p sm and lists its kernels. Default and tune
/// values are evaluated (compile-time expressions folded) with \p defines
/// overriding defaults (a define's value is then the parameter's
/// defaultValue) and the target's builtins from \p target. Returns
/// false after printing diagnostics to \p diagOS (stderr when null).
bool listKernels(llvm::SourceMgr &sm, std::vector<KernelInfo> &kernels,
                 llvm::raw_ostream *diagOS = nullptr,
                 const std::map<std::string, std::string> &defines = {},
                 TargetFacts target = {});

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_KERNELINFO_H
