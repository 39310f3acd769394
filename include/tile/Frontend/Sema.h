//===- Sema.h - Semantic analysis of .tile kernels ---------------*- C++
//-*-===//
//
// Part of tilec. Specializes a kernel for a set of compile-time parameter
// values, resolves names, folds compile-time expressions and `if`s, and
// checks types and shapes. The AST is annotated in place; MLIR generation
// consumes a CheckedKernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_SEMA_H
#define TILE_FRONTEND_SEMA_H

#include "tile/Frontend/AST.h"
#include "tile/Frontend/TargetFacts.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile {
namespace frontend {

class DiagEngine;

/// Compile-time parameter overrides: name -> value text ("32", "u3", "true").
using Defines = std::map<std::string, std::string>;

/// One dimension of a tensor parameter after specialization.
struct DimInfo {
  std::string text;             ///< Expression text, e.g. "K / 128" or "64".
  std::optional<int64_t> value; ///< Set when the dimension is static.
  Expr *expr = nullptr;         ///< The (annotated) dimension expression.
};

/// A runtime parameter after specialization.
struct KernelParam {
  Decl *decl = nullptr;
  bool isTensor = false;
  bool isMut = false;
  ElemType elem;
  std::vector<DimInfo> dims; ///< Tensors only.
};

/// A kernel specialized for one set of compile-time values and checked.
struct CheckedKernel {
  KernelDecl *decl = nullptr;
  /// Compile-time parameter values, in declaration order.
  std::vector<std::pair<std::string, ConstVal>> constants;
  /// Runtime parameters in source order.
  std::vector<KernelParam> params;
  /// Runtime dimension names in order of first appearance.
  std::vector<Decl *> dims;
  /// Grid expressions over runtime dimension names (3 entries, "1" padded).
  std::string grid[3];
  int64_t warps = 4;
  /// `persistent B` said true.
  bool persistent = false;
  /// `occupancy N`: programs per SM (CU) to leave registers for; 0 when
  /// not written.
  int64_t occupancy = 0;
  /// Owner of every declaration referenced from the annotated AST.
  std::vector<std::unique_ptr<Decl>> decls;
};

/// Parses a -D value for a parameter of kind \p kind.
std::optional<ConstVal> parseDefineValue(CtParamDecl::Kind kind,
                                         llvm::StringRef text);

/// Checks \p kernel specialized with \p defines (names that are not
/// parameters of this kernel are ignored) for the target \p target (what
/// `warp_size()`, `shared_memory()` and `has_wgmma()` return; unknown: they
/// are errors).
/// Returns null after reporting errors to \p diags.
std::unique_ptr<CheckedKernel> checkKernel(KernelDecl &kernel,
                                           const Defines &defines,
                                           DiagEngine &diags,
                                           TargetFacts target = {});

/// Evaluates the compile-time parameters of \p kernel (defaults overridden by
/// \p defines; the target's builtins as for checkKernel) without
/// checking the body. Used to list kernels and tune spaces. Returns false
/// after reporting errors.
bool evaluateCtParams(KernelDecl &kernel, const Defines &defines,
                      DiagEngine &diags,
                      std::vector<std::pair<std::string, ConstVal>> &values,
                      TargetFacts target = {});

/// A parsed and checked file.
struct CheckedModule {
  std::unique_ptr<Module> ast;
  std::vector<std::unique_ptr<CheckedKernel>> kernels;
};

/// Parses the main buffer of the diagnostics' SourceMgr and checks every
/// kernel (only \p kernelName when not empty) with \p defines. Reports a -D
/// name that is a parameter of no selected kernel, and an unknown
/// \p kernelName. Returns null after reporting errors.
std::unique_ptr<CheckedModule> checkModule(const Defines &defines,
                                           const std::string &kernelName,
                                           DiagEngine &diags,
                                           TargetFacts target = {});

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_SEMA_H
