//===- Sema.cpp - Semantic analysis of .tile kernels ----------------------===//
//
// Part of tilec. The checker's entry points, compile-time parameters, the
// kernel's signature, grid and tune clauses (SemaChecker.h for the parts).
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
// Compile-time parameters
//===----------------------------------------------------------------------===//

std::optional<ConstVal> tile::frontend::parseDefineValue(CtParamDecl::Kind kind,
                                                         llvm::StringRef text) {
  text = text.trim();
  switch (kind) {
  case CtParamDecl::Int: {
    long long v;
    if (text.getAsInteger(0, v))
      return std::nullopt;
    return ConstVal::ofInt(v);
  }
  case CtParamDecl::Bool:
    if (text == "true" || text == "1")
      return ConstVal::ofBool(true);
    if (text == "false" || text == "0")
      return ConstVal::ofBool(false);
    return std::nullopt;
  case CtParamDecl::Type: {
    auto t = ElemType::parse(text);
    if (!t)
      return std::nullopt;
    return ConstVal::ofType(*t);
  }
  }
  return std::nullopt;
}

static const char *kindName(CtParamDecl::Kind k) {
  switch (k) {
  case CtParamDecl::Int:
    return "int";
  case CtParamDecl::Type:
    return "type";
  case CtParamDecl::Bool:
    return "bool";
  }
  return "?";
}

bool Checker::checkCtParams(const Defines &defines) {
  scopes.emplace_back();
  bool ok = true;
  for (CtParamDecl &p : kernel.ctParams) {
    Decl *d = newDecl(Decl::CtParam, p.name, p.loc);
    ConstVal value;
    auto def = defines.find(p.name);
    if (def != defines.end()) {
      auto v = parseDefineValue(p.kind, def->second);
      if (!v) {
        const char *expected = p.kind == CtParamDecl::Int ? "an integer"
                               : p.kind == CtParamDecl::Bool
                                   ? "true or false"
                                   : "a type name such as f16 or u4";
        error(p.loc, "invalid value '" + def->second + "' for -D " + p.name +
                         ": '" + p.name + "' is " +
                         (p.kind == CtParamDecl::Int ? "an " : "a ") +
                         kindName(p.kind) + " parameter; expected " + expected);
        ok = false;
        continue;
      }
      value = *v;
    } else if (p.defaultValue) {
      if (!check(p.defaultValue.get())) {
        ok = false;
        continue;
      }
      const ConstVal &cv = p.defaultValue->cv;
      bool match = (p.kind == CtParamDecl::Int && cv.kind == ConstVal::Int) ||
                   (p.kind == CtParamDecl::Bool && cv.kind == ConstVal::Bool) ||
                   (p.kind == CtParamDecl::Type && cv.kind == ConstVal::Type);
      if (!match) {
        error(p.defaultValue->loc, "default value of '" + p.name +
                                       "' must be a compile-time " +
                                       kindName(p.kind) + " constant");
        ok = false;
        continue;
      }
      value = cv;
    } else {
      error(p.loc, "compile-time parameter '" + p.name +
                       "' has no default value; pass -D " + p.name + "=VALUE");
      ok = false;
      continue;
    }
    d->cv = value;
    if (p.kind == CtParamDecl::Int) {
      d->ty = Ty::scalar(ElemType::get(ElemType::IntLit));
    } else if (p.kind == CtParamDecl::Bool) {
      d->ty = Ty::scalar(ElemType::get(ElemType::Bool));
    } else {
      d->ty = Ty::of(Ty::TypeVal);
    }
    if (!declare(d)) {
      ok = false;
      continue;
    }
    out.constants.emplace_back(p.name, value);
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

static int precOf(BinaryOp op) {
  switch (op) {
  case BinaryOp::LogOr:
    return 1;
  case BinaryOp::LogAnd:
    return 2;
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    return 3;
  case BinaryOp::BitOr:
    return 4;
  case BinaryOp::BitXor:
    return 5;
  case BinaryOp::BitAnd:
    return 6;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return 7;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return 8;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Rem:
    return 9;
  }
  return 0;
}

std::string Checker::printSym(const Expr *e, int parentPrec) {
  if (e->cv.kind == ConstVal::Int) {
    return e->cv.i < 0 && parentPrec > 0 ? "(" + e->cv.str() + ")"
                                         : e->cv.str();
  }
  if (auto *n = dyn_cast<NameExpr>(e))
    return n->name;
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return "(0 - " + printSym(u->operand.get(), 8) + ")";
  if (auto *b = dyn_cast<BinaryExpr>(e)) {
    int p = precOf(b->op);
    std::string s = printSym(b->lhs.get(), p) + " " + spelling(b->op) + " " +
                    printSym(b->rhs.get(), p + 1);
    return p < parentPrec ? "(" + s + ")" : s;
  }
  if (auto *c = dyn_cast<CallExpr>(e)) {
    std::string s = c->callee + "(";
    for (size_t i = 0; i < c->args.size(); ++i)
      s += (i ? ", " : "") + printSym(c->args[i].get());
    return s + ")";
  }
  return "?";
}

namespace {
/// What walkOperands does after visiting an expression.
enum class Walk { Fail, Skip, Descend };
} // namespace

/// Visits \p e, then (while \p visit says Descend) the operands of unary,
/// binary and call expressions, in order. False as soon as a visit fails.
static bool walkOperands(Expr *e, llvm::function_ref<Walk(Expr *)> visit) {
  switch (visit(e)) {
  case Walk::Fail:
    return false;
  case Walk::Skip:
    return true;
  case Walk::Descend:
    break;
  }
  if (auto *u = dyn_cast<UnaryExpr>(e))
    return walkOperands(u->operand.get(), visit);
  if (auto *b = dyn_cast<BinaryExpr>(e)) {
    return walkOperands(b->lhs.get(), visit) &&
           walkOperands(b->rhs.get(), visit);
  }
  if (auto *c = dyn_cast<CallExpr>(e)) {
    for (auto &a : c->args) {
      if (!walkOperands(a.get(), visit))
        return false;
    }
  }
  return true;
}

bool Checker::checkGridExpr(Expr *root) {
  return walkOperands(root, [&](Expr *e) {
    if (auto *n = dyn_cast<NameExpr>(e)) {
      if (n->decl && n->decl->kind != Decl::CtParam &&
          n->decl->kind != Decl::RuntimeDim) {
        error(e->loc, "the grid may only use runtime dimensions and "
                      "compile-time parameters; '" +
                          n->name + "' is neither");
        return Walk::Fail;
      }
      return Walk::Skip;
    }
    if (isa<UnaryExpr>(e))
      return Walk::Descend;
    if (auto *b = dyn_cast<BinaryExpr>(e)) {
      if (e->cv.isSet())
        return Walk::Skip;
      if (precOf(b->op) < 8 && b->op != BinaryOp::Shl &&
          b->op != BinaryOp::Shr) {
        error(e->loc, "operator '" + std::string(spelling(b->op)) +
                          "' is not allowed in a grid expression (expected + "
                          "- * / % cdiv min max)");
        return Walk::Fail;
      }
      if (b->op == BinaryOp::Shl || b->op == BinaryOp::Shr) {
        error(e->loc, "shifts are not allowed in a grid expression");
        return Walk::Fail;
      }
      return Walk::Descend;
    }
    if (auto *c = dyn_cast<CallExpr>(e)) {
      if (e->cv.isSet())
        return Walk::Skip;
      if (!builtinInfo(c->builtin).has(BuiltinFlags::Grid)) {
        error(e->loc, "only cdiv, min and max may be called in a grid "
                      "expression");
        return Walk::Fail;
      }
      return Walk::Descend;
    }
    if (e->cv.kind == ConstVal::Int)
      return Walk::Skip;
    error(e->loc, "unexpected expression in the grid");
    return Walk::Fail;
  });
}

static bool containsFloatOrOther(const Expr *e) {
  return !(e->ty.isScalar() && e->ty.elem.isInteger());
}

/// The dimensions of tensor parameter \p p (declared as \p d): integer
/// expressions of compile-time parameters and dimension names, with cdiv,
/// min and max; constant ones between 1 and 2^31-1.
bool Checker::checkTensorDims(RtParamDecl &p, Decl *d, KernelParam &kp) {
  bool ok = true;
  inDim = true;
  for (auto &dimExpr : p.dims) {
    if (auto *n = dyn_cast<NameExpr>(dimExpr.get()))
      dimBareNames.emplace_back(n->name, n->loc);
    // Dims may only refer to compile-time params and dimension names.
    auto noParamRefs = [&](Expr *x) {
      if (auto *n = dyn_cast<NameExpr>(x)) {
        Decl *r = lookup(n->name);
        if (r && (r->kind == Decl::Tensor || r->kind == Decl::Scalar)) {
          error(n->loc, "a tensor dimension may not refer to the parameter "
                        "'" +
                            n->name + "'");
          return Walk::Fail;
        }
        return Walk::Skip;
      }
      if (auto *c = dyn_cast<CallExpr>(x)) {
        if (c->callee != "cdiv" && c->callee != "min" && c->callee != "max") {
          error(c->loc, "only cdiv, min and max may be called in a tensor "
                        "dimension");
          return Walk::Fail;
        }
      }
      return Walk::Descend;
    };
    if (!walkOperands(dimExpr.get(), noParamRefs) || !check(dimExpr.get())) {
      ok = false;
      continue;
    }
    Expr *x = dimExpr.get();
    if (containsFloatOrOther(x)) {
      error(x->loc, "a tensor dimension must be an integer expression, got " +
                        x->ty.str());
      ok = false;
      continue;
    }
    if (!checkGridExpr(x)) {
      ok = false;
      continue;
    }
    DimInfo di;
    di.expr = x;
    if (x->cv.kind == ConstVal::Int) {
      if (x->cv.i <= 0 || x->cv.i > INT32_MAX) {
        error(x->loc, "tensor dimension must be between 1 and 2^31-1, got " +
                          llvm::Twine(x->cv.i));
        ok = false;
        continue;
      }
      di.value = x->cv.i;
      d->ty.shape.push_back(x->cv.i);
    } else {
      d->ty.shape.push_back(-1);
    }
    di.text = printSym(x);
    kp.dims.push_back(std::move(di));
  }
  inDim = false;
  return ok;
}

/// grid(...) (1 to 3 positive integer expressions), warps (1 to 32) and
/// persistent (a compile-time bool).
bool Checker::checkLaunchClauses() {
  bool ok = true;
  // Grid.
  if (kernel.grid.empty() || kernel.grid.size() > 3) {
    error(kernel.gridLoc, "grid(...) takes 1 to 3 expressions, got " +
                              llvm::Twine(kernel.grid.size()));
    return false;
  }
  for (size_t i = 0; i < 3; ++i) {
    if (i >= kernel.grid.size()) {
      out.grid[i] = "1";
      continue;
    }
    Expr *g = kernel.grid[i].get();
    if (!check(g) || !requireIntScalar(g, "a grid size") || !checkGridExpr(g)) {
      ok = false;
      continue;
    }
    if (g->cv.kind == ConstVal::Int && g->cv.i <= 0) {
      error(g->loc, "grid size must be positive, got " + llvm::Twine(g->cv.i));
      ok = false;
      continue;
    }
    out.grid[i] = printSym(g);
  }
  // Warps.
  bool warpsKnown = false;
  if (check(kernel.warps.get())) {
    auto w = requireCtInt(kernel.warps.get(), "the warp count");
    if (!w) {
      ok = false;
    } else if (*w < 1 || *w > 32) {
      error(kernel.warps->loc,
            "the warp count must be between 1 and 32, got " + llvm::Twine(*w));
      ok = false;
    } else {
      out.warps = *w;
      warpsKnown = true;
    }
  } else {
    ok = false;
  }
  if (Expr *p = kernel.persistent.get()) {
    std::optional<bool> b =
        check(p) ? requireCtBool(p, "persistent") : std::nullopt;
    ok &= b.has_value();
    out.persistent = b.value_or(false);
  }
  if (kernel.occupancy)
    ok &= checkOccupancy(warpsKnown);
  return ok;
}

/// `occupancy N`: a compile-time integer >= 1 whose programs' warps (when
/// \p warpsKnown: the warp count checked) fit on one SM (CU) of the target.
bool Checker::checkOccupancy(bool warpsKnown) {
  Expr *e = kernel.occupancy.get();
  std::optional<int64_t> n =
      check(e) ? requireCtInt(e, "the occupancy") : std::nullopt;
  if (!n)
    return false;
  if (*n < 1 || *n > 64) {
    error(e->loc, "the occupancy must be between 1 and 64 programs per "
                  "SM, got " +
                      llvm::Twine(*n));
    return false;
  }
  if (unsigned most = target.maxWarpsPerProcessor;
      warpsKnown && most && out.warps * *n > int64_t(most)) {
    bool amd = target.warpSize == 64;
    error(e->loc, "occupancy " + llvm::Twine(*n) + " of " +
                      llvm::Twine(out.warps) + "-warp programs needs " +
                      llvm::Twine(out.warps * *n) +
                      (amd ? " wavefronts per CU" : " warps per SM") +
                      "; the target holds at most " + llvm::Twine(most));
    return false;
  }
  out.occupancy = *n;
  return true;
}

bool Checker::checkSignature() {
  bool ok = true;
  // Parameter names must be unique, also against compile-time params.
  llvm::StringSet<> names;
  for (auto &p : kernel.ctParams)
    names.insert(p.name);
  for (auto &p : kernel.rtParams) {
    if (!names.insert(p.name).second) {
      error(p.loc, "duplicate parameter name '" + p.name + "'");
      ok = false;
    }
  }
  if (!ok)
    return false;
  // Declare tensors and scalars first so dims cannot capture their names.
  std::vector<Decl *> paramDecls;
  for (auto &p : kernel.rtParams) {
    Decl *d = newDecl(p.isTensor ? Decl::Tensor : Decl::Scalar, p.name, p.loc);
    scopes.front()[p.name] = d;
    paramDecls.push_back(d);
  }
  for (size_t i = 0; i < kernel.rtParams.size(); ++i) {
    RtParamDecl &p = kernel.rtParams[i];
    Decl *d = paramDecls[i];
    d->index = i;
    KernelParam kp;
    kp.decl = d;
    kp.isTensor = p.isTensor;
    kp.isMut = p.isMut;
    // Element type: a type name or a `type` parameter.
    std::optional<ElemType> elem;
    if (Decl *td = lookup(p.typeName)) {
      if (td->kind == Decl::CtParam && td->cv.kind == ConstVal::Type)
        elem = td->cv.type;
    } else {
      elem = ElemType::parse(p.typeName);
    }
    if (!elem || elem->kind == ElemType::Bool) {
      error(p.typeLoc, "unknown element type '" + p.typeName +
                           "'; expected f32, f16, bf16, iN, uN (N <= 32), "
                           "fNeXmY, e8m0 or a 'type' parameter");
      ok = false;
      continue;
    }
    kp.elem = *elem;
    if (!p.isTensor) {
      if (p.isMut) {
        error(p.loc, "scalar parameter '" + p.name + "' cannot be 'mut'");
        ok = false;
        continue;
      }
      if (!(*elem == ElemType::sint(32) || elem->isArithFloat())) {
        error(p.typeLoc, "scalar parameters must be i32, f32, f16 or bf16, "
                         "got " +
                             elem->str());
        ok = false;
        continue;
      }
      d->ty = Ty::scalar(*elem);
      out.params.push_back(std::move(kp));
      continue;
    }
    d->ty = Ty::of(Ty::Tensor);
    d->ty.elem = *elem;
    ok &= checkTensorDims(p, d, kp);
    out.params.push_back(std::move(kp));
  }
  // Every runtime dimension must appear alone somewhere to be bound.
  for (Decl *dim : out.dims) {
    bool bare = llvm::any_of(dimBareNames,
                             [&](auto &p) { return p.first == dim->name; });
    if (!bare) {
      error(dim->loc, "runtime dimension '" + dim->name +
                          "' is never a whole dimension of a tensor, so it "
                          "cannot be bound at launch; use it alone as one "
                          "dimension (e.g. 'x: f16[" +
                          dim->name + "]')");
      ok = false;
    }
  }
  if (!ok)
    return false;

  ok &= checkLaunchClauses();
  ok &= checkTune();
  return ok;
}

bool Checker::checkTune() {
  bool ok = true;
  llvm::StringSet<> tuned;
  for (auto &t : kernel.tune) {
    auto it = llvm::find_if(kernel.ctParams,
                            [&](auto &p) { return p.name == t.name; });
    if (it == kernel.ctParams.end()) {
      error(t.loc, "'" + t.name +
                       "' in the tune block is not a compile-time parameter "
                       "of kernel '" +
                       kernel.name + "'");
      ok = false;
      continue;
    }
    if (!tuned.insert(t.name).second) {
      error(t.loc, "'" + t.name + "' is tuned twice");
      ok = false;
      continue;
    }
    for (auto &v : t.values) {
      if (!check(v.get())) {
        ok = false;
        continue;
      }
      ConstVal::Kind want = it->kind == CtParamDecl::Int    ? ConstVal::Int
                            : it->kind == CtParamDecl::Bool ? ConstVal::Bool
                                                            : ConstVal::Type;
      if (v->cv.kind != want) {
        error(v->loc, "tune value for '" + t.name + "' must be a " +
                          kindName(it->kind) + " constant");
        ok = false;
      }
    }
  }
  return ok;
}

bool Checker::checkBody() {
  scopes.emplace_back();
  bool ok = checkBlock(kernel.body.get(), /*newScope=*/false);
  scopes.pop_back();
  return ok;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<CheckedKernel>
tile::frontend::checkKernel(KernelDecl &kernel, const Defines &defines,
                            DiagEngine &diags, TargetFacts target) {
  auto out = std::make_unique<CheckedKernel>();
  out->decl = &kernel;
  unsigned before = diags.getNumErrors();
  Checker c(kernel, diags, *out, target);
  if (!c.checkCtParams(defines))
    return nullptr;
  if (!c.checkSignature())
    return nullptr;
  if (!c.checkBody() || diags.getNumErrors() != before)
    return nullptr;
  return out;
}

bool tile::frontend::evaluateCtParams(
    KernelDecl &kernel, const Defines &defines, DiagEngine &diags,
    std::vector<std::pair<std::string, ConstVal>> &values, TargetFacts target) {
  CheckedKernel out;
  Checker c(kernel, diags, out, target);
  bool ok = c.checkCtParams(defines);
  ok &= c.checkTune();
  values = out.constants;
  return ok;
}
