//===- Builtins.h - The builtin functions of the language -------*- C++ -*-===//
//
// Part of tilec. The builtins as data: an enumerator, source name,
// signature and flags for each, all generated from Builtins.def (where the
// type rule and the builder of each are named too).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_BUILTINS_H
#define TILE_FRONTEND_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace tile {
namespace frontend {

/// The builtins of the language (resolved by semantic analysis).
enum class Builtin {
  None,
#define TILE_BUILTIN(Id, Name, Signature, Flags, Check, Emit) Id,
#include "tile/Frontend/Builtins.def"
};

/// Properties of a builtin that rules outside its own checker ask about.
namespace BuiltinFlags {
enum : unsigned {
  None = 0,
  /// A function of uniform scalars (the same in every thread): the affine
  /// analysis of sema treats a call as one opaque term.
  Uniform = 1,
  /// Allowed in a grid expression.
  Grid = 2,
  /// The checker reads the arguments itself (they are not values).
  RawArgs = 4,
};
} // namespace BuiltinFlags

struct BuiltinInfo {
  Builtin id;
  /// The source name; empty for forms sema resolves calls to.
  llvm::StringRef name;
  /// How it is called ("dot(a, b [, acc])").
  llvm::StringRef signature;
  unsigned flags;

  bool has(unsigned flag) const { return (flags & flag) != 0; }
};

/// Every builtin, in the order of Builtins.def (Builtin::None excluded).
llvm::ArrayRef<BuiltinInfo> allBuiltins();
/// The entry of a builtin (not Builtin::None).
const BuiltinInfo &builtinInfo(Builtin b);
/// The builtin a call names (Builtin::None for other names).
Builtin lookupBuiltin(llvm::StringRef name);
/// The builtin whose name is closest to a misspelt `name` (at most two edits
/// away, one for names under six characters), or an empty string.
llvm::StringRef suggestBuiltin(llvm::StringRef name);

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_BUILTINS_H
