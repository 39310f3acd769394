//===- Builtins.cpp - The builtin table -----------------------------------===//
//
// Part of tilec. The table of include/tile/Frontend/Builtins.def as data:
// names, signatures, flags and the lookup of a call's callee.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Builtins.h"

#include "llvm/ADT/StringMap.h"

using namespace tile::frontend;

namespace {
using namespace BuiltinFlags;
const BuiltinInfo kBuiltins[] = {
#define TILE_BUILTIN(Id, Name, Signature, Flags, Check, Emit)                  \
  {Builtin::Id, Name, Signature, Flags},
#include "tile/Frontend/Builtins.def"
};
} // namespace

llvm::ArrayRef<BuiltinInfo> tile::frontend::allBuiltins() { return kBuiltins; }

const BuiltinInfo &tile::frontend::builtinInfo(Builtin b) {
  // The table is in enum order, after Builtin::None.
  return kBuiltins[unsigned(b) - 1];
}

Builtin tile::frontend::lookupBuiltin(llvm::StringRef name) {
  static const llvm::StringMap<Builtin> byName = [] {
    llvm::StringMap<Builtin> m;
    for (const BuiltinInfo &info : kBuiltins)
      if (!info.name.empty())
        m[info.name] = info.id;
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? Builtin::None : it->second;
}

llvm::StringRef tile::frontend::suggestBuiltin(llvm::StringRef name) {
  // Short names are close to everything: one edit at most for them.
  unsigned allowed = name.size() >= 6 ? 2 : 1;
  llvm::StringRef best;
  unsigned bestDistance = allowed + 1;
  for (const BuiltinInfo &info : kBuiltins) {
    if (info.name.empty())
      continue;
    unsigned d =
        name.edit_distance(info.name, /*AllowReplacements=*/true, bestDistance);
    if (d < bestDistance) {
      best = info.name;
      bestDistance = d;
    }
  }
  return best;
}
