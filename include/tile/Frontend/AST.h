//===- AST.h - Abstract syntax tree of the .tile language --------*- C++
//-*-===//
//
// Part of tilec. The parser builds this tree; semantic analysis annotates it
// in place (types, compile-time values, resolved names, folded `if`s) and
// MLIR generation reads the annotations.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_AST_H
#define TILE_FRONTEND_AST_H

#include "tile/Frontend/Builtins.h"
#include "tile/Frontend/Types.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <memory>
#include <string>
#include <vector>

namespace tile {
namespace frontend {

struct Decl;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Base class of expressions.
struct Expr {
  enum Kind {
    IntLit,
    FloatLit,
    BoolLit,
    Name,
    Unary,
    Binary,
    Call,
    Index,
    List,
  };
  Expr(Kind k, llvm::SMLoc loc) : kind(k), loc(loc) {}
  virtual ~Expr() = default;

  const Kind kind;
  llvm::SMLoc loc;
  /// Height of the expression tree (1 for a leaf); bounded by the parser so
  /// that recursive walks cannot exhaust the stack.
  unsigned height = 1;

  // Annotations written by semantic analysis.
  Ty ty;       ///< Type of the value.
  ConstVal cv; ///< Compile-time value, if any.
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntLitExpr : Expr {
  IntLitExpr(llvm::SMLoc loc, uint64_t v) : Expr(IntLit, loc), value(v) {}
  uint64_t value;
  static bool classof(const Expr *e) { return e->kind == IntLit; }
};

struct FloatLitExpr : Expr {
  FloatLitExpr(llvm::SMLoc loc, double v) : Expr(FloatLit, loc), value(v) {}
  double value;
  static bool classof(const Expr *e) { return e->kind == FloatLit; }
};

struct BoolLitExpr : Expr {
  BoolLitExpr(llvm::SMLoc loc, bool v) : Expr(BoolLit, loc), value(v) {}
  bool value;
  static bool classof(const Expr *e) { return e->kind == BoolLit; }
};

/// A name: a variable, a parameter, a type name, `inf`.
struct NameExpr : Expr {
  NameExpr(llvm::SMLoc loc, llvm::StringRef n) : Expr(Name, loc), name(n) {}
  std::string name;
  Decl *decl = nullptr; ///< Resolved declaration (null for types, `inf`).
  static bool classof(const Expr *e) { return e->kind == Name; }
};

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  LogAnd,
  LogOr,
};
/// Source spelling of an operator ("+", "<<", "&&").
const char *spelling(UnaryOp op);
const char *spelling(BinaryOp op);

struct UnaryExpr : Expr {
  UnaryExpr(llvm::SMLoc loc, UnaryOp op, ExprPtr sub)
      : Expr(Unary, loc), op(op), operand(std::move(sub)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->kind == Unary; }
};

struct BinaryExpr : Expr {
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr l, ExprPtr r)
      : Expr(Binary, loc), op(op), lhs(std::move(l)), rhs(std::move(r)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  /// Sema: the common element type both operands are converted to.
  ElemType operandElem;
  static bool classof(const Expr *e) { return e->kind == Binary; }
};

/// A keyword argument `name = value` of a call.
struct KwArg {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(llvm::SMLoc loc, llvm::StringRef callee)
      : Expr(Call, loc), callee(callee) {}
  std::string callee;
  llvm::SMLoc calleeLoc;
  std::vector<ExprPtr> args;
  std::vector<KwArg> kwargs;
  /// Sema: the resolved builtin.
  Builtin builtin = Builtin::None;
  /// Sema: element type operands are converted to (elementwise builtins).
  ElemType operandElem;
  static bool classof(const Expr *e) { return e->kind == Call; }
};

/// One entry of `x[...]`.
struct IndexEntry {
  enum Kind { Index, Slice, Full, NewAxis } kind = Full;
  llvm::SMLoc loc;
  ExprPtr lo; ///< Index value, or slice start.
  ExprPtr hi; ///< Slice end.
};

struct IndexExpr : Expr {
  IndexExpr(llvm::SMLoc loc, ExprPtr base)
      : Expr(Index, loc), base(std::move(base)) {}
  ExprPtr base;
  std::vector<IndexEntry> entries;
  /// Sema, for slices of tensors and shared buffers: the extent of each
  /// dimension of the base (1 for an index), one per base dimension.
  Shape extents;
  static bool classof(const Expr *e) { return e->kind == Index; }
};

/// `[a, b, c]` (shapes).
struct ListExpr : Expr {
  explicit ListExpr(llvm::SMLoc loc) : Expr(List, loc) {}
  std::vector<ExprPtr> elems;
  static bool classof(const Expr *e) { return e->kind == List; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

struct Stmt {
  enum Kind { Let, Var, Assign, For, If, ExprS, Block };
  Stmt(Kind k, llvm::SMLoc loc) : kind(k), loc(loc) {}
  virtual ~Stmt() = default;
  const Kind kind;
  llvm::SMLoc loc;
};
using StmtPtr = std::unique_ptr<Stmt>;

struct BlockStmt : Stmt {
  explicit BlockStmt(llvm::SMLoc loc) : Stmt(Block, loc) {}
  std::vector<StmtPtr> stmts;
  static bool classof(const Stmt *s) { return s->kind == Block; }
};

/// `let x = e;` and `var x = e;`.
struct BindStmt : Stmt {
  BindStmt(Kind k, llvm::SMLoc loc, llvm::StringRef name, ExprPtr init)
      : Stmt(k, loc), name(name), init(std::move(init)) {}
  std::string name;
  llvm::SMLoc nameLoc;
  ExprPtr init;
  Decl *decl = nullptr; ///< Sema.
  static bool classof(const Stmt *s) {
    return s->kind == Let || s->kind == Var;
  }
};

struct AssignStmt : Stmt {
  AssignStmt(llvm::SMLoc loc, llvm::StringRef name, ExprPtr value)
      : Stmt(Assign, loc), name(name), value(std::move(value)) {}
  std::string name;
  ExprPtr value;
  Decl *decl = nullptr; ///< Sema.
  static bool classof(const Stmt *s) { return s->kind == Assign; }
};

struct ForStmt : Stmt {
  explicit ForStmt(llvm::SMLoc loc) : Stmt(For, loc) {}
  std::string var;
  llvm::SMLoc varLoc;
  /// `specialize B` after the pipeline depth: a producer warpgroup for the
  /// loop's copies when B (a compile-time bool) is true.
  ExprPtr lo, hi, step, pipeline, specialize;
  std::unique_ptr<BlockStmt> body;
  // Sema.
  Decl *ivDecl = nullptr;
  int64_t pipelineStages = 0;  ///< 0 = no pipeline attribute.
  bool warpSpecialize = false; ///< `specialize` said true.
  std::vector<Decl *> carried; ///< Outer `var`s assigned in the body.
  static bool classof(const Stmt *s) { return s->kind == For; }
};

struct IfStmt : Stmt {
  explicit IfStmt(llvm::SMLoc loc) : Stmt(If, loc) {}
  ExprPtr cond;
  std::unique_ptr<BlockStmt> thenBlock;
  StmtPtr elseStmt; ///< A BlockStmt or a nested IfStmt (`else if`), or null.
  // Sema.
  int ctCond = -1;             ///< -1: runtime; 0/1: folded at compile time.
  std::vector<Decl *> carried; ///< Outer `var`s assigned in either branch.
  static bool classof(const Stmt *s) { return s->kind == If; }
};

struct ExprStmt : Stmt {
  ExprStmt(llvm::SMLoc loc, ExprPtr e) : Stmt(ExprS, loc), expr(std::move(e)) {}
  ExprPtr expr;
  static bool classof(const Stmt *s) { return s->kind == ExprS; }
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// A compile-time parameter `NAME: int|type|bool [= default]`.
struct CtParamDecl {
  enum Kind { Int, Type, Bool } kind = Int;
  std::string name;
  llvm::SMLoc loc;
  ExprPtr defaultValue; ///< May be null.
};

/// A runtime parameter: a tensor `A: [mut] T[d0, d1]` or a scalar `eps: f32`.
struct RtParamDecl {
  std::string name;
  llvm::SMLoc loc;
  bool isMut = false;
  bool isTensor = false;
  std::string typeName;
  llvm::SMLoc typeLoc;
  std::vector<ExprPtr> dims;
};

/// One `NAME in [v0, v1, ...]` of a tune block.
struct TuneEntry {
  std::string name;
  llvm::SMLoc loc;
  std::vector<ExprPtr> values;
};

struct KernelDecl {
  std::string name;
  llvm::SMLoc loc;
  std::vector<CtParamDecl> ctParams;
  std::vector<RtParamDecl> rtParams;
  std::vector<ExprPtr> grid;
  llvm::SMLoc gridLoc;
  ExprPtr warps;
  /// `persistent B` after the warp count: a compile-time bool that asks
  /// for a persistent kernel (null: not written).
  ExprPtr persistent;
  /// `occupancy N` after the warp count: a compile-time integer, the
  /// programs per SM (CU) the register allocation must leave room for
  /// (null: not written).
  ExprPtr occupancy;
  std::vector<TuneEntry> tune;
  std::unique_ptr<BlockStmt> body;
};

/// A parsed .tile file.
struct Module {
  std::vector<std::unique_ptr<KernelDecl>> kernels;
};

//===----------------------------------------------------------------------===//
// Declarations (created by semantic analysis)
//===----------------------------------------------------------------------===//

/// A named entity a NameExpr can refer to.
struct Decl {
  enum Kind { CtParam, Tensor, Scalar, RuntimeDim, Let, Var, LoopVar } kind;
  std::string name;
  llvm::SMLoc loc;
  Ty ty;
  ConstVal cv;        ///< Compile-time value (CtParam, constant lets).
  unsigned index = 0; ///< Argument position for parameters and dims.
};

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_AST_H
