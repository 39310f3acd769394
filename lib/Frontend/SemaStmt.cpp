//===- SemaStmt.cpp - Statements ------------------------------------------===//
//
// Part of tilec. Blocks and scopes, bindings, assignments, loops and
// conditionals.
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "tile/Frontend/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <functional>
#include <set>

using namespace tile::frontend;
using namespace tile::frontend::sema;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Checker::checkBlock(BlockStmt *b, bool newScope) {
  if (newScope)
    scopes.emplace_back();
  bool ok = true;
  for (auto &s : b->stmts) {
    if (diags.tooManyErrors())
      break;
    ok &= checkStmt(s.get()); // Keep going: report later errors too.
  }
  if (newScope)
    scopes.pop_back();
  return ok;
}

bool Checker::checkStmt(Stmt *s) {
  switch (s->kind) {
  case Stmt::Let:
  case Stmt::Var:
    return checkBind(cast<BindStmt>(s));
  case Stmt::Assign:
    return checkAssign(cast<AssignStmt>(s));
  case Stmt::For:
    return checkFor(cast<ForStmt>(s));
  case Stmt::If:
    return checkIf(cast<IfStmt>(s));
  case Stmt::Block:
    return checkBlock(cast<BlockStmt>(s));
  case Stmt::ExprS: {
    Expr *e = cast<ExprStmt>(s)->expr.get();
    if (!check(e))
      return false;
    if (e->ty.kind != Ty::Void) {
      error(s->loc, "unused value of type " + e->ty.str() +
                        "; expected a statement (let, var, assignment, "
                        "store(...), ...)");
      return false;
    }
    return true;
  }
  }
  return false;
}

bool Checker::checkBind(BindStmt *s) {
  bool isVar = s->kind == Stmt::Var;
  Decl *d = newDecl(isVar ? Decl::Var : Decl::Let, s->name, s->nameLoc);
  s->decl = d;
  bool ok = check(s->init.get());
  Expr *init = s->init.get();
  if (ok) {
    Ty t = init->ty;
    if (t.kind == Ty::Void) {
      error(init->loc,
            "'" + cast<CallExpr>(init)->callee + "' does not produce a value");
      ok = false;
    } else if (t.kind == Ty::GSlice || t.kind == Ty::SSlice ||
               t.kind == Ty::Tensor) {
      error(init->loc, "cannot bind a " + t.str() +
                           " to a name; use load(...) to read it");
      ok = false;
    } else if (t.kind == Ty::Layout || t.kind == Ty::ShapeList) {
      error(init->loc, "cannot bind a " + t.str() + " to a name");
      ok = false;
    } else if (isVar && !t.isValue()) {
      error(init->loc, "a var must hold a scalar or a tile, got " + t.str());
      ok = false;
    }
  }
  if (!ok) {
    d->ty = Ty(); // Later uses are silently invalid.
    declare(d);
    return false;
  }
  d->ty = init->ty;
  if (isVar) {
    // Variables are runtime values of a concrete type.
    if (d->ty.elem.kind == ElemType::IntLit) {
      if (init->cv.kind == ConstVal::Int &&
          !fitsInt(init->cv.i, ElemType::sint(32))) {
        error(init->loc, "constant " + init->cv.str() + " does not fit in i32");
        return false;
      }
      d->ty.elem = ElemType::sint(32);
    } else if (d->ty.elem.kind == ElemType::FloatLit) {
      d->ty.elem = ElemType::get(ElemType::F32);
    }
    varLevel[d] = regions.size();
    bumpVersion(d);
  } else {
    d->cv = init->cv;
    if (init->ty.isScalar() && init->ty.elem.isInteger())
      declLin[d] = lin(init);
  }
  return declare(d);
}

bool Checker::checkAssign(AssignStmt *s) {
  Decl *d = lookup(s->name);
  bool ok = check(s->value.get());
  if (!d) {
    error(s->loc, "assignment to undeclared name '" + s->name +
                      "'; declare it with 'var " + s->name + " = ...;'");
    return false;
  }
  s->decl = d;
  if (d->kind != Decl::Var) {
    error(s->loc, "cannot assign to '" + s->name +
                      "': only 'var' bindings "
                      "can change");
    diags.note(d->loc, "'" + s->name + "' is declared here");
    return false;
  }
  if (!ok || !d->ty.isValid())
    return false;
  Expr *v = s->value.get();
  if (!requireValue(v, "assignment"))
    return false;
  if (!convertibleTo(v, d->ty.elem, v->loc, "assignment to '" + s->name + "'"))
    return false;
  auto sh = broadcast(v->ty.shape, d->ty.shape, v->loc);
  if (!sh)
    return false;
  if (llvm::ArrayRef<int64_t>(*sh) != llvm::ArrayRef<int64_t>(d->ty.shape)) {
    error(v->loc, "cannot assign a value of shape " + shapeStr(v->ty.shape) +
                      " to '" + s->name + "' of shape " +
                      shapeStr(d->ty.shape));
    return false;
  }
  // Record loop-carried / if-yielded variables.
  unsigned level = varLevel.lookup(d);
  for (size_t r = level; r < regions.size(); ++r) {
    if (!llvm::is_contained(*regions[r], d))
      regions[r]->push_back(d);
  }
  bumpVersion(d);
  return true;
}

void Checker::collectAssigned(Stmt *s, std::vector<std::string> &names) {
  if (auto *a = dyn_cast<AssignStmt>(s)) {
    names.push_back(a->name);
  } else if (auto *b = dyn_cast<BlockStmt>(s)) {
    for (auto &x : b->stmts)
      collectAssigned(x.get(), names);
  } else if (auto *f = dyn_cast<ForStmt>(s)) {
    collectAssigned(f->body.get(), names);
  } else if (auto *i = dyn_cast<IfStmt>(s)) {
    collectAssigned(i->thenBlock.get(), names);
    if (i->elseStmt)
      collectAssigned(i->elseStmt.get(), names);
  }
}

bool Checker::checkFor(ForStmt *s) {
  bool ok = check(s->lo.get()) & check(s->hi.get());
  if (s->step)
    ok &= check(s->step.get());
  if (s->pipeline)
    ok &= check(s->pipeline.get());
  if (s->specialize)
    ok &= check(s->specialize.get());
  if (!ok)
    return false;
  ok = requireIntScalar(s->lo.get(), "the loop start") &&
       requireIntScalar(s->hi.get(), "the loop end") &&
       (!s->step || requireIntScalar(s->step.get(), "the loop step"));
  if (!ok)
    return false;
  if (s->step && s->step->cv.kind == ConstVal::Int && s->step->cv.i <= 0) {
    error(s->step->loc,
          "the loop step must be positive, got " + llvm::Twine(s->step->cv.i));
    return false;
  }
  s->pipelineStages = 0;
  if (s->pipeline) {
    auto n = requireCtInt(s->pipeline.get(), "the pipeline depth");
    if (!n)
      return false;
    if (*n < 1 || *n > 16) {
      error(s->pipeline->loc, "the pipeline depth must be between 1 and 16, "
                              "got " +
                                  llvm::Twine(*n));
      return false;
    }
    s->pipelineStages = *n;
  }
  s->warpSpecialize = false;
  if (s->specialize) {
    std::optional<bool> w = requireCtBool(s->specialize.get(), "specialize");
    if (!w)
      return false;
    s->warpSpecialize = *w;
  }
  // Variables assigned in the body change from one iteration to the next.
  std::vector<std::string> assigned;
  collectAssigned(s->body.get(), assigned);
  for (auto &n : assigned) {
    if (Decl *d = lookup(n)) {
      if (d->kind == Decl::Var)
        bumpVersion(d);
    }
  }

  scopes.emplace_back();
  Decl *iv = newDecl(Decl::LoopVar, s->var, s->varLoc);
  iv->ty = Ty::scalar(ElemType::sint(32));
  declLin[iv] = freshAtom("iv:" + s->var);
  s->ivDecl = iv;
  declare(iv);
  s->carried.clear();
  regions.push_back(&s->carried);
  ok = checkBlock(s->body.get(), /*newScope=*/false);
  regions.pop_back();
  scopes.pop_back();
  for (Decl *d : s->carried)
    bumpVersion(d);
  return ok;
}

bool Checker::checkIf(IfStmt *s) {
  if (!check(s->cond.get())) {
    // Still check the branches for more errors.
    checkBlock(s->thenBlock.get());
    if (s->elseStmt)
      checkStmt(s->elseStmt.get());
    return false;
  }
  Expr *c = s->cond.get();
  if (!c->ty.isScalar() || c->ty.elem.kind != ElemType::Bool) {
    error(c->loc,
          "an if condition must be a bool scalar, got " + c->ty.str() +
              (c->ty.isTile() ? "; use where(cond, a, b) for tiles" : ""));
    return false;
  }
  if (c->cv.kind == ConstVal::Bool) {
    // Compile-time condition: only the taken side is checked and compiled.
    s->ctCond = c->cv.b ? 1 : 0;
    if (c->cv.b)
      return checkBlock(s->thenBlock.get());
    return s->elseStmt ? checkStmt(s->elseStmt.get()) : true;
  }
  s->ctCond = -1;
  s->carried.clear();
  regions.push_back(&s->carried);
  bool ok = checkBlock(s->thenBlock.get());
  if (s->elseStmt)
    ok &= checkStmt(s->elseStmt.get());
  regions.pop_back();
  for (Decl *d : s->carried)
    bumpVersion(d);
  return ok;
}
