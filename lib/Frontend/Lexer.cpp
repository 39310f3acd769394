//===- Lexer.cpp - Lexer for the .tile language ---------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Lexer.h"
#include "tile/Frontend/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace tile::frontend;

const char *tile::frontend::tokSpelling(Tok kind) {
  switch (kind) {
  case Tok::Eof:
    return "end of file";
  case Tok::Error:
    return "invalid token";
  case Tok::Ident:
    return "identifier";
  case Tok::IntLit:
    return "integer literal";
  case Tok::FloatLit:
    return "float literal";
  case Tok::KwKernel:
    return "'kernel'";
  case Tok::KwLet:
    return "'let'";
  case Tok::KwVar:
    return "'var'";
  case Tok::KwFor:
    return "'for'";
  case Tok::KwIn:
    return "'in'";
  case Tok::KwStep:
    return "'step'";
  case Tok::KwPipeline:
    return "'pipeline'";
  case Tok::KwIf:
    return "'if'";
  case Tok::KwElse:
    return "'else'";
  case Tok::KwGrid:
    return "'grid'";
  case Tok::KwWarps:
    return "'warps'";
  case Tok::KwTune:
    return "'tune'";
  case Tok::KwMut:
    return "'mut'";
  case Tok::KwTrue:
    return "'true'";
  case Tok::KwFalse:
    return "'false'";
  case Tok::KwNone:
    return "'None'";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::Comma:
    return "','";
  case Tok::Semi:
    return "';'";
  case Tok::Colon:
    return "':'";
  case Tok::DotDot:
    return "'..'";
  case Tok::Assign:
    return "'='";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Caret:
    return "'^'";
  case Tok::Tilde:
    return "'~'";
  case Tok::Bang:
    return "'!'";
  case Tok::AmpAmp:
    return "'&&'";
  case Tok::PipePipe:
    return "'||'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::Lt:
    return "'<'";
  case Tok::Le:
    return "'<='";
  case Tok::Gt:
    return "'>'";
  case Tok::Ge:
    return "'>='";
  case Tok::EqEq:
    return "'=='";
  case Tok::Ne:
    return "'!='";
  }
  return "token";
}

Lexer::Lexer(llvm::StringRef buffer, DiagEngine &diags)
    : buffer(buffer), cur(buffer.begin()), end(buffer.end()), diags(diags) {}

Token Lexer::make(Tok kind, const char *start) {
  Token t;
  t.kind = kind;
  t.text = llvm::StringRef(start, cur - start);
  t.loc = llvm::SMLoc::getFromPointer(start);
  return t;
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

void Lexer::skipTrivia() {
  while (cur < end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++cur;
      continue;
    }
    if (c == '/' && cur + 1 < end && cur[1] == '/') {
      while (cur < end && *cur != '\n')
        ++cur;
      continue;
    }
    if (c == '/' && cur + 1 < end && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/'))
        ++cur;
      if (cur + 1 >= end) {
        cur = end;
        diags.error(llvm::SMLoc::getFromPointer(start),
                    "unterminated block comment; expected '*/'");
        return;
      }
      cur += 2;
      continue;
    }
    return;
  }
}

Token Lexer::lexNumber(const char *start) {
  // Hexadecimal / binary integers.
  if (*cur == '0' && cur + 1 < end &&
      (cur[1] == 'x' || cur[1] == 'X' || cur[1] == 'b' || cur[1] == 'B')) {
    unsigned radix = (cur[1] == 'x' || cur[1] == 'X') ? 16 : 2;
    cur += 2;
    const char *digits = cur;
    while (cur < end && isIdentChar(*cur))
      ++cur;
    Token t = make(Tok::IntLit, start);
    llvm::StringRef text(digits, cur - digits);
    unsigned long long v;
    if (text.empty() || text.getAsInteger(radix, v)) {
      diags.error(t.loc, llvm::Twine("invalid ") +
                             (radix == 16 ? "hexadecimal" : "binary") +
                             " literal '" + t.text +
                             "'; expected digits after the prefix");
      t.kind = Tok::Error;
      return t;
    }
    t.intValue = v;
    return t;
  }
  bool isFloat = false;
  while (cur < end && isDigit(*cur))
    ++cur;
  // A '.' begins a fraction unless it starts '..'.
  if (cur < end && *cur == '.' && !(cur + 1 < end && cur[1] == '.')) {
    isFloat = true;
    ++cur;
    while (cur < end && isDigit(*cur))
      ++cur;
  }
  if (cur < end && (*cur == 'e' || *cur == 'E')) {
    const char *p = cur + 1;
    if (p < end && (*p == '+' || *p == '-'))
      ++p;
    if (p < end && isDigit(*p)) {
      isFloat = true;
      cur = p;
      while (cur < end && isDigit(*cur))
        ++cur;
    }
  }
  // A number glued to letters (`12abc`) is malformed.
  if (cur < end && isIdentChar(*cur)) {
    while (cur < end && isIdentChar(*cur))
      ++cur;
    Token t = make(Tok::Error, start);
    diags.error(t.loc, "invalid numeric literal '" + t.text + "'");
    return t;
  }
  Token t = make(isFloat ? Tok::FloatLit : Tok::IntLit, start);
  std::string text = t.text.str();
  if (isFloat) {
    errno = 0;
    double v = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v)) {
      diags.error(t.loc, "float literal '" + t.text +
                             "' is out of range; use 'inf' for infinity");
      t.kind = Tok::Error;
      return t;
    }
    t.floatValue = v;
  } else {
    unsigned long long v;
    if (t.text.getAsInteger(10, v) || v > (unsigned long long)INT64_MAX) {
      diags.error(t.loc, "integer literal '" + t.text +
                             "' is too large; expected a value below 2^63");
      t.kind = Tok::Error;
      return t;
    }
    t.intValue = v;
  }
  return t;
}

Token Lexer::next() {
  skipTrivia();
  const char *start = cur;
  if (cur >= end)
    return make(Tok::Eof, start);
  char c = *cur;
  if (isIdentStart(c)) {
    while (cur < end && isIdentChar(*cur))
      ++cur;
    Token t = make(Tok::Ident, start);
    t.kind = llvm::StringSwitch<Tok>(t.text)
                 .Case("kernel", Tok::KwKernel)
                 .Case("let", Tok::KwLet)
                 .Case("var", Tok::KwVar)
                 .Case("for", Tok::KwFor)
                 .Case("in", Tok::KwIn)
                 .Case("step", Tok::KwStep)
                 .Case("pipeline", Tok::KwPipeline)
                 .Case("if", Tok::KwIf)
                 .Case("else", Tok::KwElse)
                 .Case("grid", Tok::KwGrid)
                 .Case("warps", Tok::KwWarps)
                 .Case("tune", Tok::KwTune)
                 .Case("mut", Tok::KwMut)
                 .Case("true", Tok::KwTrue)
                 .Case("false", Tok::KwFalse)
                 .Case("None", Tok::KwNone)
                 .Default(Tok::Ident);
    return t;
  }
  if (isDigit(c) || (c == '.' && cur + 1 < end && isDigit(cur[1])))
    return lexNumber(start);

  auto two = [&](char second) { return cur + 1 < end && cur[1] == second; };
  Tok kind;
  unsigned len = 1;
  switch (c) {
  case '(':
    kind = Tok::LParen;
    break;
  case ')':
    kind = Tok::RParen;
    break;
  case '[':
    kind = Tok::LBracket;
    break;
  case ']':
    kind = Tok::RBracket;
    break;
  case '{':
    kind = Tok::LBrace;
    break;
  case '}':
    kind = Tok::RBrace;
    break;
  case ',':
    kind = Tok::Comma;
    break;
  case ';':
    kind = Tok::Semi;
    break;
  case ':':
    kind = Tok::Colon;
    break;
  case '+':
    kind = Tok::Plus;
    break;
  case '-':
    kind = Tok::Minus;
    break;
  case '*':
    kind = Tok::Star;
    break;
  case '/':
    kind = Tok::Slash;
    break;
  case '%':
    kind = Tok::Percent;
    break;
  case '^':
    kind = Tok::Caret;
    break;
  case '~':
    kind = Tok::Tilde;
    break;
  case '.':
    if (two('.')) {
      kind = Tok::DotDot;
      len = 2;
      break;
    }
    ++cur;
    diags.error(llvm::SMLoc::getFromPointer(start),
                "unexpected '.'; expected '..' in a range");
    return make(Tok::Error, start);
  case '=':
    kind = two('=') ? (len = 2, Tok::EqEq) : Tok::Assign;
    break;
  case '!':
    kind = two('=') ? (len = 2, Tok::Ne) : Tok::Bang;
    break;
  case '&':
    kind = two('&') ? (len = 2, Tok::AmpAmp) : Tok::Amp;
    break;
  case '|':
    kind = two('|') ? (len = 2, Tok::PipePipe) : Tok::Pipe;
    break;
  case '<':
    if (two('<')) {
      kind = Tok::Shl;
      len = 2;
    } else if (two('=')) {
      kind = Tok::Le;
      len = 2;
    } else {
      kind = Tok::Lt;
    }
    break;
  case '>':
    if (two('>')) {
      kind = Tok::Shr;
      len = 2;
    } else if (two('=')) {
      kind = Tok::Ge;
      len = 2;
    } else {
      kind = Tok::Gt;
    }
    break;
  default: {
    // Skip one byte (or a whole UTF-8 sequence) and report it.
    unsigned char uc = (unsigned char)c;
    ++cur;
    if (uc >= 0xC0) {
      while (cur < end && ((unsigned char)*cur & 0xC0) == 0x80)
        ++cur;
    }
    std::string shown;
    if (uc >= 0x21 && uc < 0x7F) {
      shown = std::string("'") + c + "'";
    } else {
      shown = "byte 0x" + llvm::utohexstr(uc, /*LowerCase=*/true, 2);
    }
    diags.error(llvm::SMLoc::getFromPointer(start),
                "unexpected character " + shown + " in program text");
    return make(Tok::Error, start);
  }
  }
  cur += len;
  return make(kind, start);
}
