//===- Parser.cpp - Parser for the .tile language -------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Parser.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Lexer.h"
#include "llvm/Support/SourceMgr.h"

using namespace tile::frontend;
using llvm::SMLoc;

const char *tile::frontend::spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  }
  return "?";
}

const char *tile::frontend::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::LogAnd:
    return "&&";
  case BinaryOp::LogOr:
    return "||";
  }
  return "?";
}

namespace {

/// Binary operator precedence levels, lowest first.
enum Prec {
  PrecNone = 0,
  PrecOr,
  PrecAnd,
  PrecCmp,
  PrecBitOr,
  PrecBitXor,
  PrecBitAnd,
  PrecShift,
  PrecAdd,
  PrecMul,
};

class Parser {
public:
  Parser(llvm::StringRef buf, DiagEngine &diags)
      : lex(buf, diags), diags(diags) {
    tok = lex.next();
    ahead = lex.next();
  }

  std::unique_ptr<Module> parseModule();

private:
  // Token handling.
  void consume() {
    prevEnd = SMLoc::getFromPointer(tok.text.end());
    tok = ahead;
    ahead = lex.next();
  }
  bool consumeIf(Tok k) {
    if (!tok.is(k))
      return false;
    consume();
    return true;
  }
  bool expect(Tok k, const char *context) {
    if (consumeIf(k))
      return true;
    errorExpected(std::string(tokSpelling(k)) + " " + context);
    return false;
  }
  void errorExpected(const std::string &what) {
    if (tok.is(Tok::Error))
      return; // The lexer already reported it.
    std::string found =
        tok.is(Tok::Eof) ? "end of file" : "'" + tok.text.str() + "'";
    // Point after the previous token when a terminator is missing.
    SMLoc loc = tok.loc;
    diags.error(loc, "expected " + what + ", found " + found);
  }

  // Error recovery.
  void skipToStmtEnd();
  void skipToNextKernel();

  // Grammar.
  std::unique_ptr<KernelDecl> parseKernel();
  bool parseParamName(const char *what, std::string &name, SMLoc &loc);
  bool parseCtParam(KernelDecl &k);
  bool parseRtParam(KernelDecl &k);
  bool parseTune(KernelDecl &k);
  std::unique_ptr<BlockStmt> parseBlock();
  StmtPtr parseStmt();
  StmtPtr parseFor();
  StmtPtr parseIf();
  ExprPtr parseExpr(int minPrec = PrecOr, bool noGreater = false);
  ExprPtr parseUnary(bool noGreater);
  ExprPtr parsePostfix(bool noGreater);
  ExprPtr parsePrimary();
  bool parseCallArgs(CallExpr &call);
  bool parseIndexEntries(IndexExpr &idx);

  /// Sets the height of \p e from its children; reports trees taller than
  /// kMaxNestingDepth (e.g. `a + a + ... + a` with thousands of terms).
  bool setHeight(Expr &e, std::initializer_list<const Expr *> children) {
    unsigned h = e.height - 1;
    for (const Expr *c : children) {
      if (c)
        h = std::max(h, c->height);
    }
    e.height = h + 1;
    if (e.height <= kMaxNestingDepth)
      return true;
    if (!depthReported) {
      depthReported = true;
      diags.error(e.loc, "expression nested too deeply (more than " +
                             llvm::Twine(kMaxNestingDepth) +
                             " levels); split it with 'let'");
    }
    return false;
  }

  /// Depth guard against stack exhaustion.
  struct DepthGuard {
    Parser &p;
    bool ok;
    explicit DepthGuard(Parser &p) : p(p) {
      ok = ++p.depth <= kMaxNestingDepth;
      if (!ok && !p.depthReported) {
        p.depthReported = true;
        p.diags.error(p.tok.loc, "program nested too deeply (more than " +
                                     llvm::Twine(kMaxNestingDepth) +
                                     " levels)");
      }
    }
    ~DepthGuard() { --p.depth; }
  };

  Lexer lex;
  DiagEngine &diags;
  Token tok, ahead;
  SMLoc prevEnd;
  unsigned depth = 0;
  bool depthReported = false;
};

} // namespace

void Parser::skipToStmtEnd() {
  unsigned nest = 0;
  while (!tok.is(Tok::Eof)) {
    if (diags.tooManyErrors())
      return;
    // A statement keyword starts the next statement (e.g. after a missing
    // ';' or ')'): resume there.
    if (tok.is(Tok::KwLet) || tok.is(Tok::KwVar) || tok.is(Tok::KwFor) ||
        tok.is(Tok::KwIf))
      return;
    if (tok.is(Tok::LBrace) || tok.is(Tok::LParen) || tok.is(Tok::LBracket)) {
      ++nest;
    } else if (tok.is(Tok::RParen) || tok.is(Tok::RBracket)) {
      if (nest)
        --nest;
    } else if (tok.is(Tok::RBrace)) {
      if (nest == 0)
        return; // Leave the '}' to the enclosing block.
      --nest;
      if (nest == 0) {
        consume();
        return;
      }
    } else if (tok.is(Tok::Semi) && nest == 0) {
      consume();
      return;
    } else if (tok.is(Tok::KwKernel)) {
      return;
    }
    consume();
  }
}

void Parser::skipToNextKernel() {
  while (!tok.is(Tok::Eof) && !tok.is(Tok::KwKernel))
    consume();
}

std::unique_ptr<Module> Parser::parseModule() {
  auto mod = std::make_unique<Module>();
  while (!tok.is(Tok::Eof) && !diags.tooManyErrors()) {
    if (!tok.is(Tok::KwKernel)) {
      errorExpected("'kernel'");
      consume();
      skipToNextKernel();
      continue;
    }
    unsigned before = diags.getNumErrors();
    auto k = parseKernel();
    if (k && diags.getNumErrors() == before) {
      mod->kernels.push_back(std::move(k));
    } else if (k) {
      mod->kernels.push_back(std::move(k)); // Keep for further checking.
    } else {
      skipToNextKernel();
    }
  }
  return mod;
}

/// `NAME :` at the start of a parameter; \p what names it in errors.
bool Parser::parseParamName(const char *what, std::string &name, SMLoc &loc) {
  if (!tok.is(Tok::Ident)) {
    errorExpected(what);
    return false;
  }
  name = tok.text.str();
  loc = tok.loc;
  consume();
  return expect(Tok::Colon, "after the parameter name");
}

bool Parser::parseCtParam(KernelDecl &k) {
  CtParamDecl p;
  if (!parseParamName("a compile-time parameter name", p.name, p.loc))
    return false;
  if (tok.is(Tok::Ident) && tok.text == "int") {
    p.kind = CtParamDecl::Int;
  } else if (tok.is(Tok::Ident) && tok.text == "type") {
    p.kind = CtParamDecl::Type;
  } else if (tok.is(Tok::Ident) && tok.text == "bool") {
    p.kind = CtParamDecl::Bool;
  } else {
    errorExpected("'int', 'type' or 'bool' (the kind of a compile-time "
                  "parameter)");
    return false;
  }
  consume();
  if (consumeIf(Tok::Assign)) {
    p.defaultValue = parseExpr(PrecOr, /*noGreater=*/true);
    if (!p.defaultValue)
      return false;
  }
  k.ctParams.push_back(std::move(p));
  return true;
}

bool Parser::parseRtParam(KernelDecl &k) {
  RtParamDecl p;
  if (!parseParamName("a parameter name", p.name, p.loc))
    return false;
  if (consumeIf(Tok::KwMut))
    p.isMut = true;
  if (!tok.is(Tok::Ident)) {
    errorExpected("a type name");
    return false;
  }
  p.typeName = tok.text.str();
  p.typeLoc = tok.loc;
  consume();
  if (consumeIf(Tok::LBracket)) {
    p.isTensor = true;
    if (tok.is(Tok::RBracket)) {
      errorExpected("a dimension");
      return false;
    }
    do {
      ExprPtr d = parseExpr();
      if (!d)
        return false;
      p.dims.push_back(std::move(d));
    } while (consumeIf(Tok::Comma));
    if (!expect(Tok::RBracket, "after the tensor dimensions"))
      return false;
  }
  k.rtParams.push_back(std::move(p));
  return true;
}

bool Parser::parseTune(KernelDecl &k) {
  if (!expect(Tok::LBrace, "after 'tune'"))
    return false;
  while (!tok.is(Tok::RBrace)) {
    TuneEntry e;
    if (!tok.is(Tok::Ident)) {
      errorExpected("a compile-time parameter name in the tune block");
      return false;
    }
    e.name = tok.text.str();
    e.loc = tok.loc;
    consume();
    if (!expect(Tok::KwIn, "after the tuned parameter name"))
      return false;
    if (!expect(Tok::LBracket, "to start the list of tuned values"))
      return false;
    if (tok.is(Tok::RBracket)) {
      errorExpected("a value");
      return false;
    }
    do {
      ExprPtr v = parseExpr();
      if (!v)
        return false;
      e.values.push_back(std::move(v));
    } while (consumeIf(Tok::Comma));
    if (!expect(Tok::RBracket, "after the tuned values"))
      return false;
    k.tune.push_back(std::move(e));
    if (!consumeIf(Tok::Semi))
      break;
  }
  return expect(Tok::RBrace, "to close the tune block");
}

std::unique_ptr<KernelDecl> Parser::parseKernel() {
  auto k = std::make_unique<KernelDecl>();
  k->loc = tok.loc;
  consume(); // 'kernel'
  if (!tok.is(Tok::Ident)) {
    errorExpected("a kernel name after 'kernel'");
    return nullptr;
  }
  k->name = tok.text.str();
  k->loc = tok.loc; // Diagnostics about the kernel point at its name.
  consume();
  if (consumeIf(Tok::Lt)) {
    if (!tok.is(Tok::Gt)) {
      do {
        if (tok.is(Tok::Gt))
          break; // Trailing comma.
        if (!parseCtParam(*k))
          return nullptr;
      } while (consumeIf(Tok::Comma));
    }
    if (!expect(Tok::Gt, "to close the compile-time parameter list"))
      return nullptr;
  }
  if (!expect(Tok::LParen, "to start the runtime parameter list"))
    return nullptr;
  if (!tok.is(Tok::RParen)) {
    do {
      if (tok.is(Tok::RParen))
        break;
      if (!parseRtParam(*k))
        return nullptr;
    } while (consumeIf(Tok::Comma));
  }
  if (!expect(Tok::RParen, "to close the runtime parameter list"))
    return nullptr;
  k->gridLoc = tok.loc;
  if (!expect(Tok::KwGrid, "after the parameter list"))
    return nullptr;
  if (!expect(Tok::LParen, "after 'grid'"))
    return nullptr;
  do {
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    k->grid.push_back(std::move(e));
  } while (consumeIf(Tok::Comma));
  if (!expect(Tok::RParen, "to close 'grid('"))
    return nullptr;
  if (!expect(Tok::KwWarps, "after the grid"))
    return nullptr;
  k->warps = parseUnary(false);
  if (!k->warps)
    return nullptr;
  // `persistent B` and `occupancy N`, in either order, each at most once:
  // contextual words, like the loop's `specialize`.
  while (tok.is(Tok::Ident)) {
    ExprPtr *clause = tok.text == "persistent"  ? &k->persistent
                      : tok.text == "occupancy" ? &k->occupancy
                                                : nullptr;
    if (!clause) {
      errorExpected(
          "'persistent', 'occupancy', 'tune' or '{' after the warp count");
      return nullptr;
    }
    if (*clause) {
      diags.error(tok.loc, "'" + tok.text.str() + "' is given twice");
      return nullptr;
    }
    consume();
    if (!(*clause = parseUnary(false)))
      return nullptr;
  }
  if (consumeIf(Tok::KwTune) && !parseTune(*k))
    return nullptr;
  k->body = parseBlock();
  if (!k->body)
    return nullptr;
  return k;
}

std::unique_ptr<BlockStmt> Parser::parseBlock() {
  DepthGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  auto block = std::make_unique<BlockStmt>(tok.loc);
  if (!expect(Tok::LBrace, "to start a block"))
    return nullptr;
  while (!tok.is(Tok::RBrace)) {
    if (tok.is(Tok::Eof)) {
      errorExpected("'}' to close the block");
      return block;
    }
    if (tok.is(Tok::KwKernel)) {
      errorExpected("'}' before the next kernel");
      return block;
    }
    if (diags.tooManyErrors() || depthReported)
      return nullptr;
    const char *before = tok.text.data();
    StmtPtr s = parseStmt();
    if (s) {
      block->stmts.push_back(std::move(s));
    } else {
      skipToStmtEnd();
      if (tok.text.data() == before)
        consume(); // Always make progress.
    }
  }
  consume();
  return block;
}

StmtPtr Parser::parseStmt() {
  SMLoc loc = tok.loc;
  if (tok.is(Tok::KwLet) || tok.is(Tok::KwVar)) {
    Stmt::Kind kind = tok.is(Tok::KwLet) ? Stmt::Let : Stmt::Var;
    consume();
    if (!tok.is(Tok::Ident)) {
      errorExpected("a variable name");
      return nullptr;
    }
    std::string name = tok.text.str();
    SMLoc nameLoc = tok.loc;
    consume();
    if (!expect(Tok::Assign, "after the variable name"))
      return nullptr;
    ExprPtr init = parseExpr();
    if (!init)
      return nullptr;
    if (!expect(Tok::Semi, "after the statement"))
      return nullptr;
    auto s = std::make_unique<BindStmt>(kind, loc, name, std::move(init));
    s->nameLoc = nameLoc;
    return s;
  }
  if (tok.is(Tok::KwFor))
    return parseFor();
  if (tok.is(Tok::KwIf))
    return parseIf();
  if (tok.is(Tok::LBrace))
    return parseBlock();
  if (tok.is(Tok::Ident) && ahead.is(Tok::Assign)) {
    std::string name = tok.text.str();
    consume();
    consume();
    ExprPtr value = parseExpr();
    if (!value)
      return nullptr;
    if (!expect(Tok::Semi, "after the assignment"))
      return nullptr;
    return std::make_unique<AssignStmt>(loc, name, std::move(value));
  }
  ExprPtr e = parseExpr();
  if (!e)
    return nullptr;
  if (tok.is(Tok::Assign)) {
    diags.error(tok.loc, "only a variable name can be assigned to; expected "
                         "'NAME = value;'");
    return nullptr;
  }
  if (!expect(Tok::Semi, "after the expression statement"))
    return nullptr;
  return std::make_unique<ExprStmt>(loc, std::move(e));
}

StmtPtr Parser::parseFor() {
  auto s = std::make_unique<ForStmt>(tok.loc);
  consume();
  if (!tok.is(Tok::Ident)) {
    errorExpected("a loop variable name after 'for'");
    return nullptr;
  }
  s->var = tok.text.str();
  s->varLoc = tok.loc;
  consume();
  if (!expect(Tok::KwIn, "after the loop variable"))
    return nullptr;
  if (!(s->lo = parseExpr()))
    return nullptr;
  if (!expect(Tok::DotDot, "between the loop bounds (for i in A .. B)"))
    return nullptr;
  if (!(s->hi = parseExpr()))
    return nullptr;
  if (consumeIf(Tok::KwStep) && !(s->step = parseExpr()))
    return nullptr;
  if (consumeIf(Tok::KwPipeline)) {
    if (!(s->pipeline = parseExpr()))
      return nullptr;
    // `specialize B`: a contextual word (an identifier cannot stand before
    // the loop body otherwise).
    if (tok.is(Tok::Ident) && tok.text == "specialize") {
      consume();
      if (!(s->specialize = parseExpr()))
        return nullptr;
    }
  }
  if (!tok.is(Tok::LBrace)) {
    errorExpected(s->pipeline
                      ? "'{' to start the loop body (or 'specialize')"
                      : "'{' to start the loop body (or 'step' / 'pipeline')");
    return nullptr;
  }
  s->body = parseBlock();
  if (!s->body)
    return nullptr;
  return s;
}

StmtPtr Parser::parseIf() {
  DepthGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  auto s = std::make_unique<IfStmt>(tok.loc);
  consume();
  if (!(s->cond = parseExpr()))
    return nullptr;
  if (!tok.is(Tok::LBrace)) {
    errorExpected("'{' after the if condition");
    return nullptr;
  }
  s->thenBlock = parseBlock();
  if (!s->thenBlock)
    return nullptr;
  if (consumeIf(Tok::KwElse)) {
    if (tok.is(Tok::KwIf)) {
      s->elseStmt = parseIf();
    } else if (tok.is(Tok::LBrace)) {
      s->elseStmt = parseBlock();
    } else {
      errorExpected("'{' or 'if' after 'else'");
      return nullptr;
    }
    if (!s->elseStmt)
      return nullptr;
  }
  return s;
}

static bool binaryOp(Tok t, BinaryOp &op, int &prec) {
  switch (t) {
  case Tok::PipePipe:
    op = BinaryOp::LogOr, prec = PrecOr;
    return true;
  case Tok::AmpAmp:
    op = BinaryOp::LogAnd, prec = PrecAnd;
    return true;
  case Tok::EqEq:
    op = BinaryOp::Eq, prec = PrecCmp;
    return true;
  case Tok::Ne:
    op = BinaryOp::Ne, prec = PrecCmp;
    return true;
  case Tok::Lt:
    op = BinaryOp::Lt, prec = PrecCmp;
    return true;
  case Tok::Le:
    op = BinaryOp::Le, prec = PrecCmp;
    return true;
  case Tok::Gt:
    op = BinaryOp::Gt, prec = PrecCmp;
    return true;
  case Tok::Ge:
    op = BinaryOp::Ge, prec = PrecCmp;
    return true;
  case Tok::Pipe:
    op = BinaryOp::BitOr, prec = PrecBitOr;
    return true;
  case Tok::Caret:
    op = BinaryOp::BitXor, prec = PrecBitXor;
    return true;
  case Tok::Amp:
    op = BinaryOp::BitAnd, prec = PrecBitAnd;
    return true;
  case Tok::Shl:
    op = BinaryOp::Shl, prec = PrecShift;
    return true;
  case Tok::Shr:
    op = BinaryOp::Shr, prec = PrecShift;
    return true;
  case Tok::Plus:
    op = BinaryOp::Add, prec = PrecAdd;
    return true;
  case Tok::Minus:
    op = BinaryOp::Sub, prec = PrecAdd;
    return true;
  case Tok::Star:
    op = BinaryOp::Mul, prec = PrecMul;
    return true;
  case Tok::Slash:
    op = BinaryOp::Div, prec = PrecMul;
    return true;
  case Tok::Percent:
    op = BinaryOp::Rem, prec = PrecMul;
    return true;
  default:
    return false;
  }
}

ExprPtr Parser::parseExpr(int minPrec, bool noGreater) {
  DepthGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  ExprPtr lhs = parseUnary(noGreater);
  if (!lhs)
    return nullptr;
  while (true) {
    BinaryOp op;
    int prec;
    if (!binaryOp(tok.kind, op, prec) || prec < minPrec)
      return lhs;
    // Inside `<...>` a '>' / '>=' / '>>' closes the list.
    if (noGreater && (tok.is(Tok::Gt) || tok.is(Tok::Ge) || tok.is(Tok::Shr)))
      return lhs;
    SMLoc opLoc = tok.loc;
    consume();
    // Comparisons do not chain: `a < b < c` is an error.
    ExprPtr rhs = parseExpr(prec + 1, noGreater);
    if (!rhs)
      return nullptr;
    if (prec == PrecCmp) {
      BinaryOp op2;
      int prec2;
      if (binaryOp(tok.kind, op2, prec2) && prec2 == PrecCmp &&
          !(noGreater && (tok.is(Tok::Gt) || tok.is(Tok::Ge)))) {
        diags.error(tok.loc, "comparisons cannot be chained; expected '&&' "
                             "between two comparisons");
        return nullptr;
      }
    }
    auto bin =
        std::make_unique<BinaryExpr>(opLoc, op, std::move(lhs), std::move(rhs));
    if (!setHeight(*bin, {bin->lhs.get(), bin->rhs.get()}))
      return nullptr;
    lhs = std::move(bin);
  }
}

ExprPtr Parser::parseUnary(bool noGreater) {
  DepthGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  SMLoc loc = tok.loc;
  UnaryOp op;
  if (tok.is(Tok::Minus)) {
    op = UnaryOp::Neg;
  } else if (tok.is(Tok::Bang)) {
    op = UnaryOp::Not;
  } else if (tok.is(Tok::Tilde)) {
    op = UnaryOp::BitNot;
  } else {
    return parsePostfix(noGreater);
  }
  consume();
  ExprPtr sub = parseUnary(noGreater);
  if (!sub)
    return nullptr;
  auto un = std::make_unique<UnaryExpr>(loc, op, std::move(sub));
  if (!setHeight(*un, {un->operand.get()}))
    return nullptr;
  return un;
}

ExprPtr Parser::parsePostfix(bool noGreater) {
  ExprPtr e = parsePrimary();
  if (!e)
    return nullptr;
  while (true) {
    if (tok.is(Tok::LParen)) {
      auto *name = llvm::dyn_cast<NameExpr>(e.get());
      if (!name) {
        diags.error(tok.loc, "only a builtin function name can be called");
        return nullptr;
      }
      auto call = std::make_unique<CallExpr>(e->loc, name->name);
      call->calleeLoc = e->loc;
      consume();
      if (!parseCallArgs(*call))
        return nullptr;
      for (auto &a : call->args) {
        if (!setHeight(*call, {a.get()}))
          return nullptr;
      }
      for (auto &k : call->kwargs) {
        if (!setHeight(*call, {k.value.get()}))
          return nullptr;
      }
      e = std::move(call);
      continue;
    }
    if (tok.is(Tok::LBracket)) {
      SMLoc baseLoc = e->loc;
      auto idx = std::make_unique<IndexExpr>(baseLoc, std::move(e));
      consume();
      if (!parseIndexEntries(*idx))
        return nullptr;
      if (!setHeight(*idx, {idx->base.get()}))
        return nullptr;
      for (auto &ent : idx->entries) {
        if (!setHeight(*idx, {ent.lo.get(), ent.hi.get()}))
          return nullptr;
      }
      e = std::move(idx);
      continue;
    }
    return e;
  }
}

bool Parser::parseCallArgs(CallExpr &call) {
  if (consumeIf(Tok::RParen))
    return true;
  do {
    if (tok.is(Tok::Ident) && ahead.is(Tok::Assign)) {
      KwArg kw;
      kw.name = tok.text.str();
      kw.loc = tok.loc;
      consume();
      consume();
      if (!(kw.value = parseExpr()))
        return false;
      call.kwargs.push_back(std::move(kw));
      continue;
    }
    if (!call.kwargs.empty()) {
      diags.error(tok.loc, "positional argument after a keyword argument");
      return false;
    }
    ExprPtr a = parseExpr();
    if (!a)
      return false;
    call.args.push_back(std::move(a));
  } while (consumeIf(Tok::Comma));
  return expect(Tok::RParen, "to close the argument list");
}

bool Parser::parseIndexEntries(IndexExpr &idx) {
  do {
    IndexEntry ent;
    ent.loc = tok.loc;
    if (tok.is(Tok::Colon)) {
      consume();
      if (!tok.is(Tok::Comma) && !tok.is(Tok::RBracket)) {
        diags.error(ent.loc, "a slice needs a start: expected 'a : b' or a "
                             "bare ':'");
        return false;
      }
      ent.kind = IndexEntry::Full;
    } else if (tok.is(Tok::KwNone)) {
      consume();
      ent.kind = IndexEntry::NewAxis;
    } else {
      if (!(ent.lo = parseExpr()))
        return false;
      if (consumeIf(Tok::Colon)) {
        if (tok.is(Tok::Comma) || tok.is(Tok::RBracket)) {
          diags.error(tok.loc, "a slice needs an end: expected 'a : b' (the "
                               "extent b - a must be a compile-time "
                               "constant)");
          return false;
        }
        if (!(ent.hi = parseExpr()))
          return false;
        ent.kind = IndexEntry::Slice;
      } else {
        ent.kind = IndexEntry::Index;
      }
    }
    idx.entries.push_back(std::move(ent));
  } while (consumeIf(Tok::Comma));
  return expect(Tok::RBracket, "to close the index list");
}

ExprPtr Parser::parsePrimary() {
  DepthGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  SMLoc loc = tok.loc;
  switch (tok.kind) {
  case Tok::IntLit: {
    uint64_t v = tok.intValue;
    consume();
    return std::make_unique<IntLitExpr>(loc, v);
  }
  case Tok::FloatLit: {
    double v = tok.floatValue;
    consume();
    return std::make_unique<FloatLitExpr>(loc, v);
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    bool v = tok.is(Tok::KwTrue);
    consume();
    return std::make_unique<BoolLitExpr>(loc, v);
  }
  case Tok::Ident: {
    auto e = std::make_unique<NameExpr>(loc, tok.text);
    consume();
    return e;
  }
  case Tok::LParen: {
    consume();
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    if (!expect(Tok::RParen, "to close the parenthesis"))
      return nullptr;
    return e;
  }
  case Tok::LBracket: {
    auto list = std::make_unique<ListExpr>(loc);
    consume();
    if (!tok.is(Tok::RBracket)) {
      do {
        ExprPtr e = parseExpr();
        if (!e)
          return nullptr;
        list->elems.push_back(std::move(e));
      } while (consumeIf(Tok::Comma));
    }
    if (!expect(Tok::RBracket, "to close the list"))
      return nullptr;
    for (auto &e : list->elems) {
      if (!setHeight(*list, {e.get()}))
        return nullptr;
    }
    return list;
  }
  case Tok::KwNone:
    diags.error(loc, "'None' is only allowed inside an index, as in "
                     "'x[:, None]'");
    return nullptr;
  default:
    errorExpected("an expression");
    return nullptr;
  }
}

std::unique_ptr<Module> tile::frontend::parseModule(llvm::SourceMgr &sm,
                                                    unsigned bufferId,
                                                    DiagEngine &diags) {
  Parser p(sm.getMemoryBuffer(bufferId)->getBuffer(), diags);
  return p.parseModule();
}
