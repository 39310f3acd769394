//===- Lexer.h - Lexer for the .tile language -------------------*- C++ -*-===//
//
// Part of tilec. Turns a .tile source buffer into tokens. The lexer never
// fails hard: unknown bytes (binary garbage included) become diagnostics and
// are skipped.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_LEXER_H
#define TILE_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>

namespace tile {
namespace frontend {

class DiagEngine;

/// Token kinds of the .tile language.
enum class Tok {
  Eof,
  Error, ///< A malformed token (already diagnosed).
  Ident,
  IntLit,
  FloatLit,
  // Keywords.
  KwKernel,
  KwLet,
  KwVar,
  KwFor,
  KwIn,
  KwStep,
  KwPipeline,
  KwIf,
  KwElse,
  KwGrid,
  KwWarps,
  KwTune,
  KwMut,
  KwTrue,
  KwFalse,
  KwNone,
  // Punctuation.
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Semi,
  Colon,
  DotDot,
  Assign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Bang,
  AmpAmp,
  PipePipe,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
};

/// Returns a human-readable spelling of a token kind ("';'", "identifier").
const char *tokSpelling(Tok kind);

/// One token.
struct Token {
  Tok kind = Tok::Eof;
  llvm::StringRef text;
  llvm::SMLoc loc;
  /// Value of an IntLit (valid only when !overflow).
  uint64_t intValue = 0;
  /// Value of a FloatLit.
  double floatValue = 0.0;

  bool is(Tok k) const { return kind == k; }
};

/// Lexes one buffer. The buffer must stay alive while tokens are in use.
class Lexer {
public:
  Lexer(llvm::StringRef buffer, DiagEngine &diags);

  /// Returns the next token; returns Eof forever at the end.
  Token next();

private:
  Token make(Tok kind, const char *start);
  Token lexNumber(const char *start);
  void skipTrivia();

  llvm::StringRef buffer;
  const char *cur;
  const char *end;
  DiagEngine &diags;
};

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_LEXER_H
