//===- Parser.h - Parser for the .tile language ------------------*- C++
//-*-===//
//
// Part of tilec. A recursive-descent parser producing the AST of AST.h. It
// recovers from errors at statement and kernel boundaries so that several
// problems are reported in one run, and bounds its recursion depth.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_PARSER_H
#define TILE_FRONTEND_PARSER_H

#include "tile/Frontend/AST.h"
#include <memory>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace tile {
namespace frontend {

class DiagEngine;

/// Maximum nesting of expressions and blocks the parser accepts.
constexpr unsigned kMaxNestingDepth = 256;

/// Parses buffer \p bufferId of \p sm. Always returns a module (possibly
/// partial); errors are reported to \p diags and counted there.
std::unique_ptr<Module> parseModule(llvm::SourceMgr &sm, unsigned bufferId,
                                    DiagEngine &diags);

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_PARSER_H
