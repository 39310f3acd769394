//===- SemaChecker.h - The checker shared by the Sema*.cpp files -*- C++
//-*-===//
//
// Part of tilec. Private to lib/Frontend. Checking happens in one walk over
// a kernel with its compile-time values known. Every expression gets a type
// (Ty) and, when it is a compile-time constant, a value (ConstVal). Integer
// scalar expressions also get a linear symbolic form (LinForm) so that
// slice extents like `c0 / 32 : c0 / 32 + COLS / 32` can be proven
// constant. The checker's parts are split by concern: Sema.cpp (compile-time
// parameters, the signature and grid, entry points), SemaExpr.cpp
// (expressions, indexing), SemaBuiltins.cpp (builtin calls), SemaStmt.cpp
// (statements).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_SEMACHECKER_H
#define TILE_LIB_FRONTEND_SEMACHECKER_H

#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Sema.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tile {
namespace frontend {
namespace sema {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;

//===----------------------------------------------------------------------===//
// Linear symbolic forms
//===----------------------------------------------------------------------===//

/// c + sum(coeff * atom): atoms are opaque runtime quantities identified by a
/// canonical key.
struct LinForm {
  std::map<std::string, int64_t> terms;
  int64_t c = 0;
  bool valid = false;

  static LinForm constant(int64_t v) {
    LinForm l;
    l.c = v;
    l.valid = true;
    return l;
  }
  static LinForm atom(const std::string &key) {
    LinForm l;
    l.terms[key] = 1;
    l.valid = true;
    return l;
  }
  bool isConstant() const { return valid && terms.empty(); }
  std::string key() const {
    std::string s = "{" + std::to_string(c);
    for (auto &t : terms)
      s += "+" + std::to_string(t.second) + "*" + t.first;
    return s + "}";
  }
};

/// True when \p v fits in integer type \p t.
inline bool fitsInt(int64_t v, ElemType t) {
  if (t.kind == ElemType::Bool)
    return v == 0 || v == 1;
  if (t.kind == ElemType::UInt)
    return v >= 0 && (t.bits >= 63 || v < (int64_t(1) << t.bits));
  if (t.kind == ElemType::SInt) {
    int64_t lim = int64_t(1) << (t.bits - 1);
    return v >= -lim && v < lim;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The checker
//===----------------------------------------------------------------------===//

class Checker {
public:
  Checker(KernelDecl &k, DiagEngine &diags, CheckedKernel &out,
          TargetFacts target)
      : kernel(k), diags(diags), out(out), target(target) {}

  bool checkCtParams(const Defines &defines);
  bool checkSignature();
  bool checkTensorDims(RtParamDecl &p, Decl *d, KernelParam &kp);
  bool checkLaunchClauses();
  bool checkOccupancy(bool warpsKnown);
  bool checkBody();
  bool checkTune();

private:
  // Errors.
  void error(SMLoc loc, const llvm::Twine &msg) { diags.error(loc, msg); }
  /// Reports a builtin that reached a checker not written for it (a bug in
  /// the dispatch of checkCall); false.
  bool unhandledBuiltin(CallExpr *e) {
    error(e->loc, "internal error: unhandled builtin '" + e->callee + "'");
    return false;
  }

  // Declarations and scopes.
  Decl *newDecl(Decl::Kind kind, llvm::StringRef name, SMLoc loc) {
    out.decls.push_back(std::make_unique<Decl>());
    Decl *d = out.decls.back().get();
    d->kind = kind;
    d->name = name.str();
    d->loc = loc;
    declId[d] = out.decls.size();
    return d;
  }
  Decl *lookup(llvm::StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end())
        return f->second;
    }
    return nullptr;
  }
  bool declare(Decl *d) {
    if (Decl *prev = lookup(d->name)) {
      error(d->loc, "redefinition of '" + d->name +
                        "'; names may not shadow a visible declaration");
      diags.note(prev->loc, "previous declaration is here");
      return false;
    }
    scopes.back()[d->name] = d;
    return true;
  }

  // Expressions.
  bool check(Expr *e);
  bool checkName(NameExpr *e);
  bool checkUnary(UnaryExpr *e);
  bool checkBinary(BinaryExpr *e);
  bool checkCall(CallExpr *e);
  bool checkScalarCall(CallExpr *e);
  bool checkReductionCall(CallExpr *e);
  bool checkElementwiseCall(CallExpr *e);
  bool checkUnaryMathCall(CallExpr *e);
  bool checkMemoryCall(CallExpr *e);
  bool checkConstructorCall(CallExpr *e);
  bool checkDotCall(CallExpr *e);
  bool checkConversionCall(CallExpr *e);
  bool checkIndex(IndexExpr *e);
  bool checkList(ListExpr *e);
  bool checkLayoutCall(CallExpr *e);
  bool checkStoreLike(CallExpr *e, bool atomicAdd);
  bool checkTrans(CallExpr *e);
  bool checkDotScaled(CallExpr *e);

  /// Unifies the element types of two operands; reports at \p loc.
  std::optional<ElemType> unify(const Expr *a, const Expr *b, SMLoc loc,
                                llvm::StringRef what);
  /// unify() for operands that must be numbers (integers or floats).
  std::optional<ElemType> unifyNumbers(const Expr *a, const Expr *b, SMLoc loc,
                                       const std::string &what);
  /// Checks that a value of type \p from (expr \p e) can become elem \p to.
  bool convertibleTo(const Expr *e, ElemType to, SMLoc loc,
                     llvm::StringRef what);
  std::optional<Shape> broadcast(llvm::ArrayRef<int64_t> a,
                                 llvm::ArrayRef<int64_t> b, SMLoc loc);
  bool requireValue(const Expr *e, llvm::StringRef what);
  std::optional<int64_t> requireCtInt(Expr *e, llvm::StringRef what);
  /// \p e's value as a compile-time bool; else an error that \p word
  /// ('specialize', 'persistent') takes one.
  std::optional<bool> requireCtBool(Expr *e, llvm::StringRef word);
  std::optional<ElemType> requireType(Expr *e, llvm::StringRef what);
  std::optional<Shape> requireShape(Expr *e, llvm::StringRef what);
  bool requireIntScalar(Expr *e, llvm::StringRef what);
  bool checkTileSize(const Shape &s, SMLoc loc);
  std::optional<int64_t> sliceExtent(Expr *lo, Expr *hi, SMLoc loc);
  bool checkArgCount(CallExpr *e, size_t lo, size_t hi, const char *usage);
  bool checkTargetCall(CallExpr *e);
  bool checkHasMma(CallExpr *e);
  bool noKwargs(CallExpr *e);
  std::optional<ElemType> checkTypeThenValue(CallExpr *e, const char *usage);
  void setValueTy(Expr *e, ElemType elem, llvm::ArrayRef<int64_t> shape) {
    e->ty = shape.empty() ? Ty::scalar(elem) : Ty::tile(elem, shape);
  }

  // Linear forms.
  LinForm lin(const Expr *e);
  LinForm freshAtom(const std::string &prefix) {
    return LinForm::atom(prefix + "#" + std::to_string(++atomCounter));
  }
  void bumpVersion(Decl *d) { declLin[d] = freshAtom("var:" + d->name); }

  // Statements.
  bool checkBlock(BlockStmt *b, bool newScope = true);
  bool checkStmt(Stmt *s);
  bool checkBind(BindStmt *s);
  bool checkAssign(AssignStmt *s);
  bool checkFor(ForStmt *s);
  bool checkIf(IfStmt *s);
  void collectAssigned(Stmt *s, std::vector<std::string> &names);

  // Signature helpers.
  std::string printSym(const Expr *e, int parentPrec = 0);
  bool checkGridExpr(Expr *e);

  KernelDecl &kernel;
  DiagEngine &diags;
  CheckedKernel &out;
  /// What `warp_size()`, `shared_memory()` and `has_wgmma()` return
  /// (unknown: errors).
  TargetFacts target;
  std::vector<llvm::StringMap<Decl *>> scopes;
  llvm::DenseMap<const Expr *, LinForm> exprLin;
  llvm::DenseMap<const Decl *, LinForm> declLin;
  llvm::DenseMap<const Decl *, size_t> declId;
  llvm::DenseMap<const Decl *, unsigned> varLevel;
  /// Open runtime control-flow regions (for loops, runtime ifs) and the outer
  /// variables assigned in each.
  std::vector<std::vector<Decl *> *> regions;
  unsigned atomCounter = 0;
  bool inDim = false; ///< Checking tensor dimension expressions.
  std::vector<std::pair<std::string, SMLoc>> dimBareNames;
};

} // namespace sema
} // namespace frontend
} // namespace tile

#endif // TILE_LIB_FRONTEND_SEMACHECKER_H
