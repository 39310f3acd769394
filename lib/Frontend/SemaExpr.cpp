//===- SemaExpr.cpp - Types and values of expressions ---------------------===//
//
// Part of tilec. Names, unary and binary operators (folded when constant),
// lists, indexing and slicing, compile-time requirements and the linear
// forms that prove slice extents constant.
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

/// Largest number of elements a register tile may have.
static constexpr int64_t kMaxTileElements = int64_t(1) << 24;

static LinForm linAdd(const LinForm &a, const LinForm &b, int64_t sign) {
  LinForm r;
  if (!a.valid || !b.valid)
    return r;
  r = a;
  int64_t bc;
  if (__builtin_mul_overflow(b.c, sign, &bc) ||
      __builtin_add_overflow(r.c, bc, &r.c))
    return LinForm();
  for (auto &t : b.terms) {
    int64_t v;
    if (__builtin_mul_overflow(t.second, sign, &v))
      return LinForm();
    int64_t &slot = r.terms[t.first];
    if (__builtin_add_overflow(slot, v, &slot))
      return LinForm();
    if (slot == 0)
      r.terms.erase(t.first);
  }
  return r;
}

static LinForm linScale(const LinForm &a, int64_t k) {
  LinForm r;
  if (!a.valid)
    return r;
  r.valid = true;
  if (k == 0)
    return r;
  if (__builtin_mul_overflow(a.c, k, &r.c))
    return LinForm();
  for (auto &t : a.terms) {
    int64_t v;
    if (__builtin_mul_overflow(t.second, k, &v))
      return LinForm();
    r.terms[t.first] = v;
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool Checker::check(Expr *e) {
  e->ty = Ty();
  e->cv = ConstVal();
  switch (e->kind) {
  case Expr::IntLit: {
    auto *l = cast<IntLitExpr>(e);
    e->ty = Ty::scalar(ElemType::get(ElemType::IntLit));
    e->cv = ConstVal::ofInt((int64_t)l->value);
    return true;
  }
  case Expr::FloatLit:
    e->ty = Ty::scalar(ElemType::get(ElemType::FloatLit));
    e->cv = ConstVal::ofFloat(cast<FloatLitExpr>(e)->value);
    return true;
  case Expr::BoolLit:
    e->ty = Ty::scalar(ElemType::get(ElemType::Bool));
    e->cv = ConstVal::ofBool(cast<BoolLitExpr>(e)->value);
    return true;
  case Expr::Name:
    return checkName(cast<NameExpr>(e));
  case Expr::Unary:
    return checkUnary(cast<UnaryExpr>(e));
  case Expr::Binary:
    return checkBinary(cast<BinaryExpr>(e));
  case Expr::Call:
    return checkCall(cast<CallExpr>(e));
  case Expr::Index:
    return checkIndex(cast<IndexExpr>(e));
  case Expr::List:
    return checkList(cast<ListExpr>(e));
  }
  return false;
}

bool Checker::checkName(NameExpr *e) {
  e->decl = nullptr;
  if (Decl *d = lookup(e->name)) {
    e->decl = d;
    e->ty = d->ty;
    e->cv = d->cv;
    return e->ty.isValid();
  }
  if (inDim) {
    // A new runtime dimension; reserved names cannot be one.
    const char *what = nullptr;
    if (ElemType::parse(e->name)) {
      what = "a type name";
    } else if (lookupBuiltin(e->name) != Builtin::None) {
      what = "a builtin function";
    } else if (e->name == "inf" || e->name == "int" || e->name == "type") {
      what = "reserved";
    }
    if (what) {
      error(e->loc,
            "'" + e->name + "' cannot name a runtime dimension (" + what + ")");
      return false;
    }
    Decl *d = newDecl(Decl::RuntimeDim, e->name, e->loc);
    d->ty = Ty::scalar(ElemType::sint(32));
    d->index = out.dims.size();
    out.dims.push_back(d);
    scopes.front()[e->name] = d;
    declLin[d] = LinForm::atom("dim:" + e->name);
    e->decl = d;
    e->ty = d->ty;
    return true;
  }
  if (auto t = ElemType::parse(e->name)) {
    e->ty = Ty::of(Ty::TypeVal);
    e->cv = ConstVal::ofType(*t);
    return true;
  }
  if (e->name == "inf") {
    e->ty = Ty::scalar(ElemType::get(ElemType::FloatLit));
    e->cv = ConstVal::ofFloat(INFINITY);
    return true;
  }
  if (lookupBuiltin(e->name) != Builtin::None) {
    error(e->loc, "'" + e->name + "' is a builtin function; expected a call '" +
                      e->name + "(...)'");
    return false;
  }
  if (e->name == "int" || e->name == "type") {
    error(e->loc, "'" + e->name +
                      "' is only valid as the kind of a compile-time "
                      "parameter");
    return false;
  }
  error(e->loc, "use of undeclared name '" + e->name + "'");
  return false;
}

bool Checker::requireValue(const Expr *e, llvm::StringRef what) {
  if (!e->ty.isValid())
    return false;
  if (e->ty.isValue())
    return true;
  std::string hint;
  if (e->ty.kind == Ty::Tensor || e->ty.kind == Ty::GSlice ||
      e->ty.kind == Ty::SSlice) {
    hint = "; use load(...) to read it";
  } else if (e->ty.kind == Ty::TypeVal) {
    hint = "; a type can only be passed to cast, bitcast, bits, zeros, full "
           "or shared";
  }
  error(e->loc,
        what + " expects a scalar or a tile, got " + e->ty.str() + hint);
  return false;
}

std::optional<Shape> Checker::broadcast(llvm::ArrayRef<int64_t> a,
                                        llvm::ArrayRef<int64_t> b, SMLoc loc) {
  size_t n = std::max(a.size(), b.size());
  Shape r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      error(loc, "cannot broadcast shapes " + shapeStr(a) + " and " +
                     shapeStr(b) + ": dimension " + llvm::Twine(i) +
                     " differs (" + llvm::Twine(da) + " vs " + llvm::Twine(db) +
                     ") and neither is 1");
      return std::nullopt;
    }
    r[i] = da == 1 ? db : da;
  }
  return r;
}

std::optional<ElemType> Checker::unify(const Expr *a, const Expr *b, SMLoc loc,
                                       llvm::StringRef what) {
  ElemType ta = a->ty.elem, tb = b->ty.elem;
  for (const Expr *x : {a, b}) {
    if (x->ty.elem.isStorageOnly()) {
      error(x->loc, what + ": no arithmetic on " + x->ty.elem.str() +
                        " (small floats and e8m0 are storage-only); "
                        "cast(f16, x), cast(bf16, x) or cast(f32, x) first");
      return std::nullopt;
    }
  }
  if (ta.isLiteral() && tb.isLiteral()) {
    return (ta.kind == ElemType::FloatLit || tb.kind == ElemType::FloatLit)
               ? ElemType::get(ElemType::FloatLit)
               : ElemType::get(ElemType::IntLit);
  }
  if (ta.isLiteral() || tb.isLiteral()) {
    const Expr *lit = ta.isLiteral() ? a : b;
    ElemType other = ta.isLiteral() ? tb : ta;
    if (!convertibleTo(lit, other, loc, what))
      return std::nullopt;
    return other;
  }
  if (ta == tb)
    return ta;
  if (ta.isArithFloat() && tb.isArithFloat()) {
    // f16 + f32 -> f32; f16 + bf16 -> f32.
    return ElemType::get(ElemType::F32);
  }
  if (ta.kind == tb.kind &&
      (ta.kind == ElemType::SInt || ta.kind == ElemType::UInt))
    return ta.bits >= tb.bits ? ta : tb;
  error(loc, what + ": cannot mix " + ta.str() + " and " + tb.str() +
                 " implicitly; convert one side with cast(" + ta.str() +
                 ", x) or cast(" + tb.str() + ", x)");
  return std::nullopt;
}

bool Checker::convertibleTo(const Expr *e, ElemType to, SMLoc loc,
                            llvm::StringRef what) {
  ElemType from = e->ty.elem;
  if (from == to)
    return true;
  if (from.isLiteral()) {
    if (to.kind == ElemType::Bool) {
      error(e->loc, what + ": a numeric constant cannot be used as a bool; "
                           "use true or false");
      return false;
    }
    if (from.kind == ElemType::FloatLit && to.isInteger()) {
      error(e->loc, what + ": float constant " + e->cv.str() +
                        " cannot become integer type " + to.str() +
                        "; use cast(" + to.str() + ", x)");
      return false;
    }
    if (from.kind == ElemType::IntLit && to.isInteger() &&
        e->cv.kind == ConstVal::Int && !fitsInt(e->cv.i, to)) {
      error(e->loc, what + ": constant " + e->cv.str() + " does not fit in " +
                        to.str());
      return false;
    }
    if (to.isStorageOnly()) {
      error(e->loc, what + ": no arithmetic on " + to.str() +
                        " (storage-only type); cast to f16, bf16 or f32 "
                        "first");
      return false;
    }
    return true;
  }
  error(loc, what + ": expected " + to.str() + ", got " + from.str() +
                 "; convert with cast(" + to.str() + ", x)");
  return false;
}

static bool isCmp(BinaryOp op) {
  return op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge || op == BinaryOp::Eq || op == BinaryOp::Ne;
}

bool Checker::checkUnary(UnaryExpr *e) {
  if (!check(e->operand.get()))
    return false;
  Expr *x = e->operand.get();
  std::string what = std::string("operator '") + spelling(e->op) + "'";
  if (!requireValue(x, what))
    return false;
  ElemType t = x->ty.elem;
  switch (e->op) {
  case UnaryOp::Neg:
    if (!(t.isInteger() || t.isArithFloat())) {
      error(e->loc,
            what + " expects an integer or float operand, got " + t.str());
      return false;
    }
    if (t.kind == ElemType::UInt) {
      error(e->loc, "cannot negate an unsigned " + t.str() + " value");
      return false;
    }
    e->ty = x->ty;
    if (x->cv.kind == ConstVal::Int) {
      if (x->cv.i == INT64_MIN) {
        error(e->loc, "integer overflow in compile-time expression");
        return false;
      }
      e->cv = ConstVal::ofInt(-x->cv.i);
    } else if (x->cv.kind == ConstVal::Float) {
      e->cv = ConstVal::ofFloat(-x->cv.f);
    }
    return true;
  case UnaryOp::Not:
    if (t.kind != ElemType::Bool) {
      error(e->loc, "operator '!' expects a bool operand, got " + t.str() +
                        "; compare explicitly (x != 0)");
      return false;
    }
    e->ty = x->ty;
    if (x->cv.kind == ConstVal::Bool)
      e->cv = ConstVal::ofBool(!x->cv.b);
    return true;
  case UnaryOp::BitNot:
    if (!t.isInteger()) {
      error(e->loc, "operator '~' expects an integer operand, got " + t.str());
      return false;
    }
    e->ty = x->ty;
    if (x->cv.kind == ConstVal::Int)
      e->cv = ConstVal::ofInt(~x->cv.i);
    return true;
  }
  return false;
}

/// Folds an integer binary operation; returns false with \p err set.
static bool foldInt(BinaryOp op, int64_t a, int64_t b, int64_t &r,
                    std::string &err) {
  switch (op) {
  case BinaryOp::Add:
    if (__builtin_add_overflow(a, b, &r))
      return err = "integer overflow in compile-time expression", false;
    return true;
  case BinaryOp::Sub:
    if (__builtin_sub_overflow(a, b, &r))
      return err = "integer overflow in compile-time expression", false;
    return true;
  case BinaryOp::Mul:
    if (__builtin_mul_overflow(a, b, &r))
      return err = "integer overflow in compile-time expression", false;
    return true;
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (b == 0)
      return err = "division by zero in compile-time expression", false;
    if (a == INT64_MIN && b == -1)
      return err = "integer overflow in compile-time expression", false;
    r = op == BinaryOp::Div ? a / b : a % b;
    return true;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (b < 0 || b > 62) {
      return err = "shift amount " + std::to_string(b) +
                   " is out of range in compile-time expression "
                   "(expected 0..62)",
             false;
    }
    if (op == BinaryOp::Shr) {
      r = a >> b;
      return true;
    }
    if (a < 0 || (b > 0 && (a >> (63 - b)) != 0))
      return err = "integer overflow in compile-time expression", false;
    r = a << b;
    return true;
  case BinaryOp::BitAnd:
    r = a & b;
    return true;
  case BinaryOp::BitOr:
    r = a | b;
    return true;
  case BinaryOp::BitXor:
    r = a ^ b;
    return true;
  default:
    return err = "internal: not an integer operation", false;
  }
}

bool Checker::checkBinary(BinaryExpr *e) {
  bool okL = check(e->lhs.get());
  bool okR = check(e->rhs.get());
  if (!okL || !okR)
    return false;
  Expr *a = e->lhs.get(), *b = e->rhs.get();
  std::string what = std::string("operator '") + spelling(e->op) + "'";
  if (!requireValue(a, what) || !requireValue(b, what))
    return false;
  auto shape = broadcast(a->ty.shape, b->ty.shape, e->loc);
  if (!shape)
    return false;
  BinaryOp op = e->op;
  ElemType ta = a->ty.elem, tb = b->ty.elem;
  bool logical = op == BinaryOp::LogAnd || op == BinaryOp::LogOr;
  bool bitwise =
      op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor;
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  bool isBoolA = ta.kind == ElemType::Bool, isBoolB = tb.kind == ElemType::Bool;
  ElemType common;
  if (logical) {
    if (!isBoolA || !isBoolB) {
      error(e->loc, what + " expects bool operands, got " + ta.str() + " and " +
                        tb.str());
      return false;
    }
    common = ta;
  } else if (isBoolA || isBoolB) {
    if (!(isBoolA && isBoolB) ||
        !(bitwise || op == BinaryOp::Eq || op == BinaryOp::Ne)) {
      error(e->loc, what + " is not defined on " + ta.str() + " and " +
                        tb.str() +
                        (isBoolA && isBoolB
                             ? "; bools support && || ! == != & | ^"
                             : "; use where(cond, a, b) or cast(T, cond)"));
      return false;
    }
    common = ta;
  } else {
    auto u = unify(a, b, e->loc, what);
    if (!u)
      return false;
    common = *u;
    if ((bitwise || shift) && !common.isInteger()) {
      error(e->loc, what + " expects integer operands, got " + ta.str() +
                        " and " + tb.str());
      return false;
    }
  }
  // A constant shift count must be below the operand's width: LLVM's
  // shifts by the width or more give poison, which targets turn into
  // different values.
  if (shift && b->cv.kind == ConstVal::Int &&
      (common.kind == ElemType::SInt || common.kind == ElemType::UInt) &&
      (b->cv.i < 0 || b->cv.i >= common.bits)) {
    error(b->loc, "shift count " + std::to_string(b->cv.i) + " is outside 0.." +
                      std::to_string(common.bits - 1) + " for " + common.str() +
                      " operands");
    return false;
  }
  e->operandElem = common;
  ElemType resElem = isCmp(op) ? ElemType::get(ElemType::Bool) : common;
  setValueTy(e, resElem, *shape);

  // Constant folding.
  const ConstVal &x = a->cv, &y = b->cv;
  if (!x.isSet() || !y.isSet())
    return true;
  std::string err;
  if (x.kind == ConstVal::Bool && y.kind == ConstVal::Bool) {
    bool r;
    switch (op) {
    case BinaryOp::LogAnd:
    case BinaryOp::BitAnd:
      r = x.b && y.b;
      break;
    case BinaryOp::LogOr:
    case BinaryOp::BitOr:
      r = x.b || y.b;
      break;
    case BinaryOp::BitXor:
    case BinaryOp::Ne:
      r = x.b != y.b;
      break;
    case BinaryOp::Eq:
      r = x.b == y.b;
      break;
    default:
      return true;
    }
    e->cv = ConstVal::ofBool(r);
    return true;
  }
  if (x.kind == ConstVal::Int && y.kind == ConstVal::Int) {
    int64_t r;
    if (isCmp(op)) {
      bool c = op == BinaryOp::Lt   ? x.i < y.i
               : op == BinaryOp::Le ? x.i <= y.i
               : op == BinaryOp::Gt ? x.i > y.i
               : op == BinaryOp::Ge ? x.i >= y.i
               : op == BinaryOp::Eq ? x.i == y.i
                                    : x.i != y.i;
      e->cv = ConstVal::ofBool(c);
      return true;
    }
    if (!foldInt(op, x.i, y.i, r, err)) {
      error(e->loc, err);
      return false;
    }
    e->cv = ConstVal::ofInt(r);
    return true;
  }
  auto toF = [](const ConstVal &c) {
    return c.kind == ConstVal::Int ? (double)c.i : c.f;
  };
  if ((x.kind == ConstVal::Int || x.kind == ConstVal::Float) &&
      (y.kind == ConstVal::Int || y.kind == ConstVal::Float)) {
    double p = toF(x), q = toF(y);
    switch (op) {
    case BinaryOp::Add:
      e->cv = ConstVal::ofFloat(p + q);
      break;
    case BinaryOp::Sub:
      e->cv = ConstVal::ofFloat(p - q);
      break;
    case BinaryOp::Mul:
      e->cv = ConstVal::ofFloat(p * q);
      break;
    case BinaryOp::Div:
      e->cv = ConstVal::ofFloat(p / q);
      break;
    case BinaryOp::Rem:
      e->cv = ConstVal::ofFloat(std::fmod(p, q));
      break;
    case BinaryOp::Lt:
      e->cv = ConstVal::ofBool(p < q);
      break;
    case BinaryOp::Le:
      e->cv = ConstVal::ofBool(p <= q);
      break;
    case BinaryOp::Gt:
      e->cv = ConstVal::ofBool(p > q);
      break;
    case BinaryOp::Ge:
      e->cv = ConstVal::ofBool(p >= q);
      break;
    case BinaryOp::Eq:
      e->cv = ConstVal::ofBool(p == q);
      break;
    case BinaryOp::Ne:
      e->cv = ConstVal::ofBool(p != q);
      break;
    default:
      break;
    }
  }
  return true;
}

bool Checker::checkList(ListExpr *e) {
  bool ok = true;
  for (auto &x : e->elems)
    ok &= check(x.get());
  e->ty = Ty::of(Ty::ShapeList);
  return ok;
}

/// ", got <what e is>" for an error about a constant \p e is not: a
/// constant of another kind (2.5, true) is not "runtime".
static std::string gotText(const Expr *e) {
  const char *got = !e->ty.isValue() ? ", got "
                    : e->cv.isSet()  ? ", got a "
                                     : ", got a runtime ";
  return got + e->ty.str();
}

std::optional<int64_t> Checker::requireCtInt(Expr *e, llvm::StringRef what) {
  if (!e->ty.isValid())
    return std::nullopt;
  if (e->cv.kind != ConstVal::Int) {
    error(e->loc,
          what + " must be a compile-time integer constant" + gotText(e));
    return std::nullopt;
  }
  return e->cv.i;
}

std::optional<bool> Checker::requireCtBool(Expr *e, llvm::StringRef word) {
  if (!e->ty.isValid())
    return std::nullopt;
  if (e->cv.kind != ConstVal::Bool) {
    error(e->loc, "'" + word +
                      "' takes a compile-time bool constant (true, false, "
                      "a bool parameter)" +
                      gotText(e));
    return std::nullopt;
  }
  return e->cv.b;
}

std::optional<ElemType> Checker::requireType(Expr *e, llvm::StringRef what) {
  if (!e->ty.isValid())
    return std::nullopt;
  if (e->cv.kind != ConstVal::Type) {
    error(e->loc,
          what + " must be a type (f16, u4, T, ...), got " + e->ty.str());
    return std::nullopt;
  }
  return e->cv.type;
}

bool Checker::checkTileSize(const Shape &s, SMLoc loc) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d <= 0) {
      // Not shapeStr, which prints negative extents as '?' (unknown).
      std::string dims;
      for (int64_t x : s)
        dims += (dims.empty() ? "" : ", ") + std::to_string(x);
      error(loc, "tile dimensions must be positive, got [" + dims + "]");
      return false;
    }
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxTileElements) {
      error(loc, "tile " + shapeStr(s) + " is too large (more than " +
                     llvm::Twine(kMaxTileElements) + " elements)");
      return false;
    }
  }
  return true;
}

std::optional<Shape> Checker::requireShape(Expr *e, llvm::StringRef what) {
  auto *list = dyn_cast<ListExpr>(e);
  if (!list) {
    error(e->loc, what + " must be a list of compile-time integers, like "
                         "[BM, BN]");
    return std::nullopt;
  }
  if (!check(e))
    return std::nullopt;
  if (list->elems.empty()) {
    error(e->loc, what + " needs at least one dimension");
    return std::nullopt;
  }
  Shape s;
  for (auto &x : list->elems) {
    auto v = requireCtInt(x.get(), "a shape dimension");
    if (!v)
      return std::nullopt;
    s.push_back(*v);
  }
  if (!checkTileSize(s, e->loc))
    return std::nullopt;
  return s;
}

bool Checker::requireIntScalar(Expr *e, llvm::StringRef what) {
  if (!e->ty.isValid())
    return false;
  if (!e->ty.isScalar() || !e->ty.elem.isInteger()) {
    error(e->loc, what + " must be an integer scalar, got " + e->ty.str());
    return false;
  }
  if (e->ty.elem.kind != ElemType::IntLit && e->ty.elem != ElemType::sint(32)) {
    error(e->loc, what + " must be i32, got " + e->ty.elem.str() +
                      "; use cast(i32, x)");
    return false;
  }
  if (e->cv.kind == ConstVal::Int && !fitsInt(e->cv.i, ElemType::sint(32))) {
    error(e->loc, what + " " + e->cv.str() + " does not fit in i32");
    return false;
  }
  return true;
}

std::optional<int64_t> Checker::sliceExtent(Expr *lo, Expr *hi, SMLoc loc) {
  LinForm d = linAdd(lin(hi), lin(lo), -1);
  if (!d.isConstant()) {
    error(loc, "slice extent is not a compile-time constant: in 'a : b', "
               "b - a must simplify to a constant (as in 'm0 : m0 + BM')");
    return std::nullopt;
  }
  if (d.c <= 0) {
    error(loc, "slice extent must be positive, got " + llvm::Twine(d.c));
    return std::nullopt;
  }
  if (d.c > kMaxTileElements) {
    error(loc, "slice extent " + llvm::Twine(d.c) + " is too large");
    return std::nullopt;
  }
  return d.c;
}

LinForm Checker::lin(const Expr *e) {
  if (e->cv.kind == ConstVal::Int)
    return LinForm::constant(e->cv.i);
  if (!e->ty.isScalar() || !e->ty.elem.isInteger())
    return LinForm();
  auto it = exprLin.find(e);
  if (it != exprLin.end())
    return it->second;
  LinForm r;
  if (auto *n = dyn_cast<NameExpr>(e)) {
    auto d = declLin.find(n->decl);
    if (d != declLin.end())
      r = d->second;
  } else if (auto *u = dyn_cast<UnaryExpr>(e)) {
    if (u->op == UnaryOp::Neg)
      r = linScale(lin(u->operand.get()), -1);
  } else if (auto *b = dyn_cast<BinaryExpr>(e)) {
    LinForm x = lin(b->lhs.get()), y = lin(b->rhs.get());
    if (b->op == BinaryOp::Add) {
      r = linAdd(x, y, 1);
    } else if (b->op == BinaryOp::Sub) {
      r = linAdd(x, y, -1);
    } else if (b->op == BinaryOp::Mul && x.isConstant()) {
      r = linScale(y, x.c);
    } else if (b->op == BinaryOp::Mul && y.isConstant()) {
      r = linScale(x, y.c);
    } else if (x.valid && y.valid) {
      r = LinForm::atom(std::string("(") + spelling(b->op) + " " + x.key() +
                        " " + y.key() + ")");
    }
  } else if (auto *c = dyn_cast<CallExpr>(e)) {
    if (c->builtin != Builtin::None &&
        builtinInfo(c->builtin).has(BuiltinFlags::Uniform)) {
      std::string key = c->callee + "(";
      bool ok = true;
      for (auto &a : c->args) {
        LinForm l = lin(a.get());
        ok &= l.valid;
        key += l.key() + ",";
      }
      if (ok)
        r = LinForm::atom(key + ")");
    }
  }
  if (!r.valid)
    r = freshAtom("expr");
  exprLin[e] = r;
  return r;
}

bool Checker::checkArgCount(CallExpr *e, size_t lo, size_t hi,
                            const char *usage) {
  if (e->args.size() < lo || e->args.size() > hi) {
    error(e->loc, "wrong number of arguments to '" + e->callee + "': got " +
                      llvm::Twine(e->args.size()) + ", expected " + usage);
    return false;
  }
  return true;
}

/// The T of a builtin called as NAME(T, x) (cast, bitcast), once the call
/// has these two arguments, no keyword arguments, and x is a value.
std::optional<ElemType> Checker::checkTypeThenValue(CallExpr *e,
                                                    const char *usage) {
  if (!noKwargs(e) || !checkArgCount(e, 2, 2, usage))
    return std::nullopt;
  auto t = requireType(e->args[0].get(), e->callee + "'s first argument");
  if (!t || !requireValue(e->args[1].get(), e->callee + "()"))
    return std::nullopt;
  return t;
}

std::optional<ElemType> Checker::unifyNumbers(const Expr *a, const Expr *b,
                                              SMLoc loc,
                                              const std::string &what) {
  auto u = unify(a, b, loc, what);
  if (u && !(u->isInteger() || u->isArithFloat())) {
    error(loc, what + " expects numbers, got " + u->str());
    return std::nullopt;
  }
  return u;
}

bool Checker::noKwargs(CallExpr *e) {
  if (e->kwargs.empty())
    return true;
  error(e->kwargs.front().loc, "'" + e->callee + "' has no keyword argument '" +
                                   e->kwargs.front().name + "'");
  return false;
}

bool Checker::checkIndex(IndexExpr *e) {
  if (!check(e->base.get()))
    return false;
  Expr *base = e->base.get();
  Ty bt = base->ty;
  bool ok = true;
  for (auto &ent : e->entries) {
    if (ent.lo)
      ok &= check(ent.lo.get());
    if (ent.hi)
      ok &= check(ent.hi.get());
  }
  if (!ok)
    return false;

  if (bt.isValue()) {
    // Register tiles: only ':' and None (new axes).
    Shape s;
    size_t dim = 0;
    for (auto &ent : e->entries) {
      if (ent.kind == IndexEntry::NewAxis) {
        s.push_back(1);
      } else if (ent.kind == IndexEntry::Full) {
        if (dim >= bt.shape.size()) {
          error(ent.loc, "too many ':' entries for " + bt.str());
          return false;
        }
        s.push_back(bt.shape[dim++]);
      } else {
        error(ent.loc, "register tiles can only be indexed with ':' and "
                       "None (to add an axis); slice the global tensor "
                       "before load() instead");
        return false;
      }
    }
    if (dim != bt.shape.size()) {
      error(e->loc, "index of " + bt.str() + " must mention all " +
                        llvm::Twine(bt.shape.size()) + " dimensions with ':'");
      return false;
    }
    if (!checkTileSize(s, e->loc))
      return false;
    setValueTy(e, bt.elem, s);
    return true;
  }

  if (bt.kind != Ty::Tensor && bt.kind != Ty::Shared) {
    error(e->loc, "cannot index " + bt.str());
    return false;
  }
  bool isShared = bt.kind == Ty::Shared;
  size_t rank = bt.shape.size();
  if (e->entries.size() > rank) {
    error(e->entries[rank].loc,
          "too many indices: the " +
              std::string(isShared ? "shared buffer" : "tensor") +
              " has rank " + llvm::Twine(rank));
    return false;
  }
  // Fill in trailing ':'.
  while (e->entries.size() < rank) {
    IndexEntry ent;
    ent.kind = IndexEntry::Full;
    ent.loc = e->loc;
    e->entries.push_back(std::move(ent));
  }
  e->extents.clear();
  Shape result;
  bool seenSlice = false;
  for (size_t i = 0; i < rank; ++i) {
    IndexEntry &ent = e->entries[i];
    switch (ent.kind) {
    case IndexEntry::NewAxis:
      error(ent.loc, "None is only valid on register tiles");
      return false;
    case IndexEntry::Index:
      if (isShared && seenSlice) {
        error(ent.loc, "shared buffers can only be indexed in leading "
                       "dimensions (indices before slices)");
        return false;
      }
      if (!requireIntScalar(ent.lo.get(), "an index"))
        return false;
      e->extents.push_back(1);
      break;
    case IndexEntry::Slice: {
      seenSlice = true;
      if (!requireIntScalar(ent.lo.get(), "a slice start") ||
          !requireIntScalar(ent.hi.get(), "a slice end"))
        return false;
      auto n = sliceExtent(ent.lo.get(), ent.hi.get(), ent.loc);
      if (!n)
        return false;
      e->extents.push_back(*n);
      result.push_back(*n);
      break;
    }
    case IndexEntry::Full:
      seenSlice = true;
      if (bt.shape[i] < 0) {
        auto *n = dyn_cast<NameExpr>(base);
        error(ent.loc, "':' takes the whole dimension " + llvm::Twine(i) +
                           " of '" + (n ? n->name : std::string("tensor")) +
                           "', whose size is not a compile-time constant; "
                           "use a slice 'a : a + EXTENT'");
        return false;
      }
      e->extents.push_back(bt.shape[i]);
      result.push_back(bt.shape[i]);
      break;
    }
  }
  if (!result.empty() && !checkTileSize(result, e->loc))
    return false;
  e->ty = Ty::of(isShared ? Ty::SSlice : Ty::GSlice);
  e->ty.elem = bt.elem;
  e->ty.shape = result;
  return true;
}