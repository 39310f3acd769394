//===- Sema.cpp - Semantic analysis of .tile kernels ----------------------===//
//
// Part of tilec.
//
// Checking happens in one walk over a kernel with its compile-time values
// known. Every expression gets a type (Ty) and, when it is a compile-time
// constant, a value (ConstVal). Integer scalar expressions also get a linear
// symbolic form (LinForm) so that slice extents like
// `c0 / 32 : c0 / 32 + COLS / 32` can be proven constant.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Sema.h"
#include "tile/Frontend/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <functional>
#include <set>

using namespace tile::frontend;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;

/// Largest number of elements a register tile may have.
static constexpr int64_t kMaxTileElements = int64_t(1) << 24;

namespace {

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
// Builtin table
//===----------------------------------------------------------------------===//

static Builtin lookupBuiltin(llvm::StringRef name) {
  return llvm::StringSwitch<Builtin>(name)
      .Case("program_id", Builtin::ProgramId)
      .Case("num_programs", Builtin::NumPrograms)
      .Case("cdiv", Builtin::Cdiv)
      .Case("min", Builtin::Min)
      .Case("max", Builtin::Max)
      .Case("load", Builtin::Load)
      .Case("store", Builtin::Store)
      .Case("atomic_add", Builtin::AtomicAdd)
      .Case("zeros", Builtin::Zeros)
      .Case("full", Builtin::Full)
      .Case("arange", Builtin::Arange)
      .Case("dot", Builtin::Dot)
      .Case("dot_scaled", Builtin::DotScaled)
      .Case("cast", Builtin::Cast)
      .Case("bits", Builtin::Bits)
      .Case("bitcast", Builtin::Bitcast)
      .Case("sum", Builtin::Sum)
      .Case("maximum", Builtin::Maximum)
      .Case("minimum", Builtin::Minimum)
      .Case("where", Builtin::Where)
      .Case("exp", Builtin::Exp)
      .Case("exp2", Builtin::Exp2)
      .Case("log", Builtin::Log)
      .Case("log2", Builtin::Log2)
      .Case("sqrt", Builtin::Sqrt)
      .Case("rsqrt", Builtin::Rsqrt)
      .Case("abs", Builtin::Abs)
      .Case("floor", Builtin::Floor)
      .Case("ceil", Builtin::Ceil)
      .Case("tanh", Builtin::Tanh)
      .Case("sigmoid", Builtin::Sigmoid)
      .Case("silu", Builtin::Silu)
      .Case("gelu", Builtin::Gelu)
      .Case("trans", Builtin::Trans)
      .Case("reshape", Builtin::Reshape)
      .Case("shared", Builtin::Shared)
      .Case("copy_async", Builtin::CopyAsync)
      .Case("wait", Builtin::Wait)
      .Case("barrier", Builtin::Barrier)
      .Case("layout", Builtin::Layout)
      .Default(Builtin::None);
}

static bool isUnaryMath(Builtin b) {
  switch (b) {
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Abs:
  case Builtin::Floor:
  case Builtin::Ceil:
  case Builtin::Tanh:
  case Builtin::Sigmoid:
  case Builtin::Silu:
  case Builtin::Gelu:
    return true;
  default:
    return false;
  }
}

static double foldUnaryMath(Builtin b, double x) {
  switch (b) {
  case Builtin::Exp:
    return std::exp(x);
  case Builtin::Exp2:
    return std::exp2(x);
  case Builtin::Log:
    return std::log(x);
  case Builtin::Log2:
    return std::log2(x);
  case Builtin::Sqrt:
    return std::sqrt(x);
  case Builtin::Rsqrt:
    return 1.0 / std::sqrt(x);
  case Builtin::Abs:
    return std::fabs(x);
  case Builtin::Floor:
    return std::floor(x);
  case Builtin::Ceil:
    return std::ceil(x);
  case Builtin::Tanh:
    return std::tanh(x);
  case Builtin::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Builtin::Silu:
    return x / (1.0 + std::exp(-x));
  case Builtin::Gelu:
    return 0.5 * x *
           (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  default:
    return x;
  }
}

/// True when \p v fits in integer type \p t.
static bool fitsInt(int64_t v, ElemType t) {
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
  Checker(KernelDecl &k, DiagEngine &diags, CheckedKernel &out)
      : kernel(k), diags(diags), out(out) {}

  bool checkCtParams(const Defines &defines);
  bool checkSignature();
  bool checkBody();
  bool checkTune();

private:
  // Errors.
  void error(SMLoc loc, const llvm::Twine &msg) { diags.error(loc, msg); }

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
  std::optional<ElemType> requireType(Expr *e, llvm::StringRef what);
  std::optional<Shape> requireShape(Expr *e, llvm::StringRef what);
  bool requireIntScalar(Expr *e, llvm::StringRef what);
  bool checkTileSize(const Shape &s, SMLoc loc);
  std::optional<int64_t> sliceExtent(Expr *lo, Expr *hi, SMLoc loc);
  bool checkArgCount(CallExpr *e, size_t lo, size_t hi, const char *usage);
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

} // namespace

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

std::optional<int64_t> Checker::requireCtInt(Expr *e, llvm::StringRef what) {
  if (!e->ty.isValid())
    return std::nullopt;
  if (e->cv.kind != ConstVal::Int) {
    // A constant of another kind (2.5, true) is not "runtime".
    const char *got = !e->ty.isValue() ? ", got "
                      : e->cv.isSet()  ? ", got a "
                                       : ", got a runtime ";
    error(e->loc, what + " must be a compile-time integer constant" + got +
                      e->ty.str());
    return std::nullopt;
  }
  return e->cv.i;
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
    if (c->builtin == Builtin::ProgramId ||
        c->builtin == Builtin::NumPrograms || c->builtin == Builtin::Cdiv ||
        c->builtin == Builtin::Min || c->builtin == Builtin::Max) {
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

/// layout(x, L): L is a product of factors local(n...), spatial(n...),
/// column_local(n...), column_spatial(n...) (one compile-time extent per
/// dimension of x) and replicate(k). The factors must tile x exactly, and
/// the layout's thread count (the spatial extents times the replication)
/// must be warps x 32 or warps x 64; which of the two the target needs is
/// checked once the target is known (tile-infer-layouts).
bool Checker::checkLayoutCall(CallExpr *e) {
  if (!noKwargs(e) || !checkArgCount(e, 2, 2, "layout(x, L)"))
    return false;
  if (!check(e->args[0].get()))
    return false;
  Expr *x = e->args[0].get();
  if (!x->ty.isTile()) {
    error(x->loc, "layout() expects a tile, got " + x->ty.str());
    return false;
  }
  const Shape &shape = x->ty.shape;
  // Running products, capped: the shape product per dimension stops growing
  // past the tile's extent, the thread count past kMaxThreads.
  constexpr int64_t kMaxThreads = 32 * 64;
  Shape covered(shape.size(), 1);
  int64_t threads = 1;
  auto grow = [](int64_t &acc, int64_t by, int64_t cap) {
    acc = acc > cap / by ? cap + 1 : acc * by;
  };
  std::function<bool(Expr *)> checkL = [&](Expr *l) -> bool {
    if (auto *bin = dyn_cast<BinaryExpr>(l)) {
      if (bin->op != BinaryOp::Mul) {
        error(bin->loc, "layouts combine with '*' only");
        return false;
      }
      return checkL(bin->lhs.get()) && checkL(bin->rhs.get());
    }
    auto *c = dyn_cast<CallExpr>(l);
    bool isReplicate = c && c->callee == "replicate";
    bool isSpatial =
        c && (c->callee == "spatial" || c->callee == "column_spatial");
    if (!c || (!isReplicate && !isSpatial && c->callee != "local" &&
               c->callee != "column_local")) {
      error(l->loc, "expected a layout: local(...), spatial(...), "
                    "column_local(...), column_spatial(...) or "
                    "replicate(k) combined with '*'");
      return false;
    }
    if (!noKwargs(c))
      return false;
    size_t want = isReplicate ? 1 : shape.size();
    if (c->args.size() != want) {
      if (isReplicate) {
        error(c->loc, "replicate(k) takes one thread count, got " +
                          llvm::Twine(c->args.size()) + " arguments");
      } else {
        error(c->loc, "layout factor '" + c->callee + "' has " +
                          llvm::Twine(c->args.size()) +
                          (c->args.size() == 1 ? " extent" : " extents") +
                          " but the tile has rank " +
                          llvm::Twine(shape.size()));
      }
      return false;
    }
    for (size_t i = 0; i < c->args.size(); ++i) {
      Expr *a = c->args[i].get();
      if (!check(a))
        return false;
      auto v = requireCtInt(a, isReplicate ? "a replication count"
                                           : "a layout extent");
      if (!v)
        return false;
      if (*v <= 0) {
        error(a->loc, isReplicate ? "the replication count must be positive"
                                  : "layout extents must be positive");
        return false;
      }
      if (isReplicate || isSpatial)
        grow(threads, *v, kMaxThreads);
      if (!isReplicate)
        grow(covered[i], *v, shape[i]);
    }
    c->ty = Ty::of(Ty::Layout);
    return true;
  };
  Expr *l = e->args[1].get();
  if (!checkL(l))
    return false;
  l->ty = Ty::of(Ty::Layout);
  if (covered != shape) {
    // Capped extents print as "more than N".
    auto str = [&](const Shape &s) {
      std::string text = "[";
      for (size_t i = 0; i < s.size(); ++i) {
        text += i ? ", " : "";
        text += s[i] > shape[i] ? "more than " + std::to_string(shape[i])
                                : std::to_string(s[i]);
      }
      return text + "]";
    };
    error(e->loc, "the layout covers a tile of shape " + str(covered) +
                      ", but the tile has shape " + str(shape) +
                      "; the extents of its factors must multiply to the "
                      "tile's shape in every dimension");
    return false;
  }
  int64_t w = out.warps;
  if (threads != w * 32 && threads != w * 64) {
    error(e->loc, "the layout uses " +
                      (threads > kMaxThreads
                           ? "more than " + std::to_string(kMaxThreads)
                           : std::to_string(threads)) +
                      " threads, but 'warps " + std::to_string(w) + "' means " +
                      std::to_string(w * 32) +
                      " threads (warp size 32, NVIDIA) or " +
                      std::to_string(w * 64) +
                      " (warp size 64, AMD); the spatial extents times the "
                      "replication must be one of these");
    return false;
  }
  e->ty = x->ty;
  return true;
}

/// store(SLICE, TILE) and atomic_add(SLICE, TILE): a tile written into (or
/// added to) a slice of a writable tensor; atomic_add only into global
/// tensors of f32, f16, bf16, i32 or u32.
bool Checker::checkStoreLike(CallExpr *e, bool atomicAdd) {
  const char *name = atomicAdd ? "atomic_add()" : "store()";
  if (!noKwargs(e) || !checkArgCount(e, 2, 2,
                                     atomicAdd ? "2: atomic_add(SLICE, TILE)"
                                               : "2: store(SLICE, TILE)"))
    return false;
  Expr *dst = e->args[0].get(), *v = e->args[1].get();
  if (atomicAdd && dst->ty.kind != Ty::GSlice) {
    error(dst->loc, "atomic_add() expects a slice of a global tensor as its "
                    "first argument, got " +
                        dst->ty.str());
    return false;
  }
  if (dst->ty.kind != Ty::GSlice && dst->ty.kind != Ty::SSlice) {
    error(dst->loc, "store() expects a slice of a global tensor or a "
                    "shared buffer as its first argument, got " +
                        dst->ty.str());
    return false;
  }
  if (dst->ty.kind == Ty::GSlice) {
    auto *idx = cast<IndexExpr>(dst);
    auto *base = dyn_cast<NameExpr>(idx->base.get());
    if (base && base->decl && base->decl->kind == Decl::Tensor) {
      for (auto &p : out.params) {
        if (p.decl == base->decl && !p.isMut) {
          error(dst->loc, std::string(atomicAdd ? "cannot add to '"
                                                : "cannot store to '") +
                              base->name + "': it is not declared 'mut'");
          diags.note(base->decl->loc,
                     "declared here; write '" + base->name + ": mut ...'");
          return false;
        }
      }
    }
  }
  if (atomicAdd) {
    ElemType t = dst->ty.elem;
    bool ok = t.kind == ElemType::F32 || t.kind == ElemType::F16 ||
              t.kind == ElemType::BF16 ||
              ((t.kind == ElemType::SInt || t.kind == ElemType::UInt) &&
               t.bits == 32);
    if (!ok) {
      error(dst->loc, "atomic_add() adds into tensors of f32, f16, bf16, i32 "
                      "or u32, not " +
                          t.str());
      return false;
    }
  }
  if (!requireValue(v, name))
    return false;
  if (!convertibleTo(v, dst->ty.elem, v->loc, name))
    return false;
  auto s = broadcast(v->ty.shape, dst->ty.shape, v->loc);
  if (!s)
    return false;
  if (llvm::ArrayRef<int64_t>(*s) != llvm::ArrayRef<int64_t>(dst->ty.shape)) {
    error(v->loc,
          std::string(name) + ": value of shape " + shapeStr(v->ty.shape) +
              " does not fit a slice of shape " + shapeStr(dst->ty.shape));
    return false;
  }
  e->operandElem = dst->ty.elem;
  e->ty = Ty::of(Ty::Void);
  return true;
}

/// dot_scaled(a, sa, b, sb [, acc]): a block-scaled product. a [M, K] and
/// b [K, N] hold small-float codes (f4e2m1 ... f8e5m2); sa [M, K / BA] and
/// sb [K / BB, N] hold one e8m0 or f8e4m3 scale per block of BA (BB)
/// consecutive K elements. The result (and acc) is f32 [M, N].
bool Checker::checkDotScaled(CallExpr *e) {
  const char *usage = "4 or 5: dot_scaled(a, sa, b, sb [, acc])";
  if (!noKwargs(e) || !checkArgCount(e, 4, 5, usage))
    return false;
  auto &args = e->args;
  const char *names[] = {"a", "sa", "b", "sb", "acc"};
  for (size_t i = 0; i < args.size(); ++i) {
    Expr *o = args[i].get();
    if (!o->ty.isTile() || o->ty.shape.size() != 2) {
      error(o->loc, std::string("dot_scaled(): ") + names[i] +
                        " must be a 2-D tile, got " + o->ty.str());
      return false;
    }
  }
  Expr *a = args[0].get(), *sa = args[1].get(), *b = args[2].get(),
       *sb = args[3].get();
  for (Expr *o : {a, b})
    if (o->ty.elem.kind != ElemType::SmallFloat) {
      error(o->loc, "dot_scaled(): operands must hold small-float codes "
                    "(f4e2m1, f6e2m3, f6e3m2, f8e4m3, f8e5m2, ...), got " +
                        o->ty.elem.str() + "; use dot() for wider types");
      return false;
    }
  for (Expr *o : {sa, sb}) {
    ElemType t = o->ty.elem;
    if (t.kind != ElemType::E8M0 &&
        !(t.kind == ElemType::SmallFloat && t.exp == 4 && t.mant == 3)) {
      error(o->loc, "dot_scaled(): scales must be e8m0 (MX) or f8e4m3 "
                    "(NVFP4), got " +
                        t.str());
      return false;
    }
  }
  int64_t m = a->ty.shape[0], k = a->ty.shape[1], n = b->ty.shape[1];
  if (b->ty.shape[0] != k) {
    error(e->loc, "dot_scaled(): inner dimensions differ: a is " + a->ty.str() +
                      " and b is " + b->ty.str());
    return false;
  }
  // One scale per block of K: sa is [M, blocks], sb [blocks, N], and the
  // number of blocks divides K.
  auto checkScales = [&](Expr *s, bool rowsAreBlocks, int64_t other) {
    int64_t blocks = s->ty.shape[rowsAreBlocks ? 0 : 1];
    int64_t fixed = s->ty.shape[rowsAreBlocks ? 1 : 0];
    if (fixed == other && blocks > 0 && k % blocks == 0)
      return true;
    std::string o = std::to_string(other);
    error(s->loc, std::string("dot_scaled(): ") +
                      (rowsAreBlocks ? "sb must be [K / block, " + o + "]"
                                     : "sa must be [" + o + ", K / block]") +
                      " with a number of blocks that divides K = " +
                      std::to_string(k) + ", got " + s->ty.str());
    return false;
  };
  if (!checkScales(sa, false, m) || !checkScales(sb, true, n))
    return false;
  Shape rs = {m, n};
  ElemType f32 = ElemType::get(ElemType::F32);
  if (args.size() == 5) {
    Expr *acc = args[4].get();
    if (acc->ty.elem != f32 ||
        llvm::ArrayRef<int64_t>(acc->ty.shape) != llvm::ArrayRef<int64_t>(rs)) {
      error(acc->loc, "dot_scaled(): the accumulator must be f32" +
                          shapeStr(rs) + ", got " + acc->ty.str());
      return false;
    }
  }
  e->ty = Ty::tile(f32, rs);
  return true;
}

/// trans(x): the transpose of a 2-D tile; trans(x, [p0, ..., pr-1]): the
/// axes of a rank-r tile permuted, result dimension i being x's dimension
/// p_i (numpy.transpose).
bool Checker::checkTrans(CallExpr *e) {
  if (!noKwargs(e) ||
      !checkArgCount(e, 1, 2, "1 or 2: trans(x) or trans(x, [axes])"))
    return false;
  Expr *x = e->args[0].get();
  if (e->args.size() == 1) {
    if (!x->ty.isTile() || x->ty.shape.size() != 2) {
      error(x->loc, "trans() expects a 2-D tile, got " + x->ty.str() +
                        " (give the axes for other ranks: trans(x, [1, 0, "
                        "2]))");
      return false;
    }
    e->ty = Ty::tile(x->ty.elem, {x->ty.shape[1], x->ty.shape[0]});
    return true;
  }
  if (!x->ty.isTile()) {
    error(x->loc, "trans() expects a tile, got " + x->ty.str());
    return false;
  }
  auto *list = dyn_cast<ListExpr>(e->args[1].get());
  size_t rank = x->ty.shape.size();
  if (!list || list->elems.size() != rank) {
    error(e->args[1]->loc, "trans(): the axes must be a list of " +
                               std::to_string(rank) +
                               " compile-time integers, a permutation of 0.." +
                               std::to_string(rank - 1));
    return false;
  }
  Shape shape;
  llvm::SmallVector<bool, 4> seen(rank, false);
  for (auto &a : list->elems) {
    auto axis = requireCtInt(a.get(), "an axis of trans()");
    if (!axis)
      return false;
    if (*axis < 0 || *axis >= int64_t(rank) || seen[*axis]) {
      error(a->loc,
            "trans(): the axes must be a permutation of 0.." +
                std::to_string(rank - 1) + "; " + std::to_string(*axis) +
                (*axis < 0 || *axis >= int64_t(rank) ? " is out of range"
                                                     : " appears twice"));
      return false;
    }
    seen[*axis] = true;
    shape.push_back(x->ty.shape[*axis]);
  }
  e->ty = Ty::tile(x->ty.elem, shape);
  return true;
}

bool Checker::checkCall(CallExpr *e) {
  e->builtin = lookupBuiltin(e->callee);
  if (e->builtin == Builtin::None) {
    if (lookup(e->callee)) {
      error(e->calleeLoc, "'" + e->callee + "' is not a function");
    } else {
      error(e->calleeLoc, "unknown function '" + e->callee +
                              "'; see docs/Language.md for the builtins");
    }
    return false;
  }
  Builtin b = e->builtin;
  // Layout expressions are checked structurally, not as values.
  if (b == Builtin::Layout)
    return checkLayoutCall(e);

  bool ok = true;
  for (auto &a : e->args)
    ok &= check(a.get());
  for (auto &k : e->kwargs)
    ok &= check(k.value.get());
  if (!ok)
    return false;
  auto &args = e->args;

  if (isUnaryMath(b)) {
    if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1"))
      return false;
    Expr *x = args[0].get();
    if (!requireValue(x, "'" + e->callee + "'"))
      return false;
    ElemType t = x->ty.elem;
    bool okType = t.isArithFloat() || (b == Builtin::Abs && t.isInteger());
    if (!okType) {
      error(x->loc, "'" + e->callee + "' expects " +
                        (b == Builtin::Abs ? "an integer or float"
                                           : "a float (f16, bf16, f32)") +
                        " operand, got " + t.str() +
                        (t.isInteger() ? "; use cast(f32, x)" : ""));
      return false;
    }
    e->operandElem = t;
    e->ty = x->ty;
    if (x->cv.kind == ConstVal::Float ||
        (x->cv.kind == ConstVal::Int && b != Builtin::Abs)) {
      double v = x->cv.kind == ConstVal::Int ? (double)x->cv.i : x->cv.f;
      e->ty = Ty::scalar(ElemType::get(ElemType::FloatLit));
      e->cv = ConstVal::ofFloat(foldUnaryMath(b, v));
    } else if (x->cv.kind == ConstVal::Int) {
      if (x->cv.i == INT64_MIN) {
        error(e->loc, "integer overflow in compile-time expression");
        return false;
      }
      e->cv = ConstVal::ofInt(x->cv.i < 0 ? -x->cv.i : x->cv.i);
    }
    return true;
  }

  switch (b) {
  case Builtin::ProgramId:
  case Builtin::NumPrograms: {
    if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1 (the axis: 0, 1 or 2)"))
      return false;
    auto axis = requireCtInt(args[0].get(), "the axis");
    if (!axis)
      return false;
    if (*axis < 0 || *axis > 2) {
      error(args[0]->loc, "axis must be 0, 1 or 2, got " + llvm::Twine(*axis));
      return false;
    }
    e->ty = Ty::scalar(ElemType::sint(32));
    return true;
  }
  case Builtin::Cdiv: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2"))
      return false;
    if (!requireIntScalar(args[0].get(), "cdiv's first argument") ||
        !requireIntScalar(args[1].get(), "cdiv's second argument"))
      return false;
    auto u = unify(args[0].get(), args[1].get(), e->loc, "cdiv");
    if (!u)
      return false;
    e->operandElem = *u;
    e->ty = Ty::scalar(*u);
    if (args[0]->cv.kind == ConstVal::Int &&
        args[1]->cv.kind == ConstVal::Int) {
      int64_t x = args[0]->cv.i, y = args[1]->cv.i, r;
      if (y <= 0) {
        error(args[1]->loc, "cdiv by " + llvm::Twine(y) +
                                " in compile-time expression; the divisor "
                                "must be positive");
        return false;
      }
      if (__builtin_add_overflow(x, y - 1, &r)) {
        error(e->loc, "integer overflow in compile-time expression");
        return false;
      }
      // Round towards +inf for any sign of x.
      int64_t q = x / y;
      if (x % y != 0 && x > 0)
        ++q;
      e->cv = ConstVal::ofInt(q);
    }
    return true;
  }
  case Builtin::Min:
  case Builtin::Max:
  case Builtin::Sum: {
    if (!noKwargs(e))
      return false;
    bool isReduce =
        b == Builtin::Sum || (args.size() == 2 && args[0]->ty.isTile());
    if (isReduce) {
      if (!checkArgCount(e, 2, 2, "2: (x, axis)"))
        return false;
      if (b == Builtin::Max) {
        e->builtin = Builtin::ReduceMax;
      } else if (b == Builtin::Min) {
        e->builtin = Builtin::ReduceMin;
      }
      Expr *x = args[0].get();
      if (!x->ty.isTile()) {
        error(x->loc, "'" + e->callee + "' reduction expects a tile, got " +
                          x->ty.str());
        return false;
      }
      if (args[1]->ty.isTile()) {
        error(args[1]->loc, "'" + e->callee +
                                "(x, axis)' reduces a tile; for the "
                                "elementwise " +
                                e->callee + " of two tiles use " +
                                (b == Builtin::Max ? "maximum" : "minimum") +
                                "(a, b)");
        return false;
      }
      auto axis = requireCtInt(args[1].get(), "the reduction axis");
      if (!axis)
        return false;
      int64_t rank = x->ty.shape.size();
      int64_t ax = *axis < 0 ? *axis + rank : *axis;
      if (ax < 0 || ax >= rank) {
        error(args[1]->loc, "reduction axis " + llvm::Twine(*axis) +
                                " is out of range for a tile of rank " +
                                llvm::Twine(rank));
        return false;
      }
      args[1]->cv.i = ax;
      ElemType t = x->ty.elem;
      if (!(t.isArithFloat() || t.kind == ElemType::SInt ||
            t.kind == ElemType::UInt)) {
        error(x->loc, "'" + e->callee + "' cannot reduce " + t.str() +
                          (t.isStorageOnly() ? "; cast to f32 first" : ""));
        return false;
      }
      Shape s = x->ty.shape;
      s.erase(s.begin() + ax);
      e->operandElem = t;
      setValueTy(e, t, s);
      return true;
    }
    if (!checkArgCount(e, 2, 2, "2"))
      return false;
    Expr *x = args[0].get(), *y = args[1].get();
    std::string what = "'" + e->callee + "'";
    if (!requireValue(x, what) || !requireValue(y, what))
      return false;
    if (!x->ty.isScalar() || !y->ty.isScalar()) {
      error(e->loc, what + " on scalars takes two scalars; for tiles use " +
                        (b == Builtin::Max ? "maximum" : "minimum") +
                        "(a, b) or " + e->callee + "(x, axis)");
      return false;
    }
    auto u = unifyNumbers(x, y, e->loc, what);
    if (!u)
      return false;
    e->operandElem = *u;
    e->ty = Ty::scalar(*u);
    if (x->cv.kind == ConstVal::Int && y->cv.kind == ConstVal::Int) {
      e->cv = ConstVal::ofInt(b == Builtin::Min ? std::min(x->cv.i, y->cv.i)
                                                : std::max(x->cv.i, y->cv.i));
    } else if (x->cv.isSet() && y->cv.isSet()) {
      double p = x->cv.kind == ConstVal::Int ? x->cv.i : x->cv.f;
      double q = y->cv.kind == ConstVal::Int ? y->cv.i : y->cv.f;
      e->cv = ConstVal::ofFloat(b == Builtin::Min ? std::min(p, q)
                                                  : std::max(p, q));
    }
    return true;
  }
  case Builtin::Maximum:
  case Builtin::Minimum: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2"))
      return false;
    Expr *x = args[0].get(), *y = args[1].get();
    std::string what = "'" + e->callee + "'";
    if (!requireValue(x, what) || !requireValue(y, what))
      return false;
    auto s = broadcast(x->ty.shape, y->ty.shape, e->loc);
    if (!s)
      return false;
    auto u = unifyNumbers(x, y, e->loc, what);
    if (!u)
      return false;
    if (u->isLiteral()) {
      error(e->loc, what + " needs at least one runtime operand; use " +
                        (b == Builtin::Maximum ? "max" : "min") +
                        "(a, b) on constants");
      return false;
    }
    e->operandElem = *u;
    setValueTy(e, *u, *s);
    return true;
  }
  case Builtin::Where: {
    if (!noKwargs(e) || !checkArgCount(e, 3, 3, "3: (cond, a, b)"))
      return false;
    Expr *c = args[0].get(), *x = args[1].get(), *y = args[2].get();
    if (!requireValue(c, "'where'") || !requireValue(x, "'where'") ||
        !requireValue(y, "'where'"))
      return false;
    if (c->ty.elem.kind != ElemType::Bool) {
      error(c->loc, "where's condition must be bool, got " + c->ty.elem.str());
      return false;
    }
    auto s1 = broadcast(c->ty.shape, x->ty.shape, e->loc);
    if (!s1)
      return false;
    auto s = broadcast(*s1, y->ty.shape, e->loc);
    if (!s)
      return false;
    std::optional<ElemType> u;
    if (x->ty.elem.kind == ElemType::Bool ||
        y->ty.elem.kind == ElemType::Bool) {
      if (x->ty.elem != y->ty.elem) {
        error(e->loc, "where: cannot mix " + x->ty.elem.str() + " and " +
                          y->ty.elem.str());
        return false;
      }
      u = x->ty.elem;
    } else {
      u = unify(x, y, e->loc, "'where'");
    }
    if (!u)
      return false;
    if (u->isLiteral()) {
      u = ElemType::get(u->kind == ElemType::IntLit ? ElemType::SInt
                                                    : ElemType::F32);
    }
    if (u->kind == ElemType::SInt && u->bits == 0)
      u = ElemType::sint(32);
    e->operandElem = *u;
    setValueTy(e, *u, *s);
    return true;
  }
  case Builtin::Load: {
    if (!checkArgCount(e, 1, 1, "1: load(SLICE [, other = VALUE])"))
      return false;
    Expr *src = args[0].get();
    if (src->ty.kind != Ty::GSlice && src->ty.kind != Ty::SSlice) {
      error(src->loc, "load() expects a slice of a global tensor or a shared "
                      "buffer (e.g. A[m0 : m0 + BM, :]), got " +
                          src->ty.str());
      return false;
    }
    for (auto &k : e->kwargs) {
      if (k.name != "other") {
        error(k.loc, "load() has no keyword argument '" + k.name +
                         "'; expected 'other'");
        return false;
      }
      if (src->ty.kind != Ty::GSlice) {
        error(k.loc, "'other' is only valid when loading from a global "
                     "tensor");
        return false;
      }
      Expr *v = k.value.get();
      if (!v->ty.isScalar() || !v->cv.isSet() || v->cv.kind == ConstVal::Type) {
        error(v->loc, "'other' must be a compile-time constant scalar, like "
                      "0 or -inf");
        return false;
      }
      if (src->ty.elem.isStorageOnly()) {
        error(v->loc, "'other' is not supported for the storage-only type " +
                          src->ty.elem.str() +
                          "; cast the loaded tile and use where(...)");
        return false;
      }
      if (!convertibleTo(v, src->ty.elem, v->loc, "'other'"))
        return false;
      if (v->cv.kind == ConstVal::Float && src->ty.elem.isInteger()) {
        error(v->loc, "'other' must be an integer for " + src->ty.elem.str());
        return false;
      }
    }
    if (src->ty.shape.empty()) {
      error(src->loc, "load() needs at least one sliced dimension; use 'a : "
                      "a + 1' instead of an index");
      return false;
    }
    e->ty = Ty::tile(src->ty.elem, src->ty.shape);
    return true;
  }
  case Builtin::Store:
    return checkStoreLike(e, /*atomicAdd=*/false);
  case Builtin::AtomicAdd:
    return checkStoreLike(e, /*atomicAdd=*/true);
  case Builtin::Zeros:
  case Builtin::Full:
  case Builtin::Shared: {
    bool isFull = b == Builtin::Full;
    if (!noKwargs(e) ||
        !checkArgCount(e, isFull ? 3 : 2, isFull ? 3 : 2,
                       isFull ? "3: full(T, [dims], value)"
                              : (b == Builtin::Zeros ? "2: zeros(T, [dims])"
                                                     : "2: shared(T, [dims])")))
      return false;
    auto t =
        requireType(args[0].get(), "the first argument of '" + e->callee + "'");
    if (!t)
      return false;
    auto s = requireShape(args[1].get(), "the shape");
    if (!s)
      return false;
    if (b == Builtin::Shared) {
      e->ty = Ty::of(Ty::Shared);
      e->ty.elem = *t;
      e->ty.shape = *s;
      return true;
    }
    if (t->isStorageOnly() && b == Builtin::Full) {
      error(args[0]->loc, "full() of storage-only type " + t->str() +
                              " is not supported; build it in f32 and cast");
      return false;
    }
    if (isFull) {
      Expr *v = args[2].get();
      if (!requireValue(v, "full()"))
        return false;
      if (!v->ty.isScalar()) {
        error(v->loc, "full()'s value must be a scalar, got " + v->ty.str());
        return false;
      }
      if (!convertibleTo(v, *t, v->loc, "full()"))
        return false;
    }
    e->operandElem = *t;
    e->ty = Ty::tile(*t, *s);
    return true;
  }
  case Builtin::Arange: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2: arange(a, b)"))
      return false;
    if (!requireIntScalar(args[0].get(), "arange's start") ||
        !requireIntScalar(args[1].get(), "arange's end"))
      return false;
    auto n = sliceExtent(args[0].get(), args[1].get(), e->loc);
    if (!n)
      return false;
    e->ty = Ty::tile(ElemType::sint(32), {*n});
    return true;
  }
  case Builtin::Dot: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 3, "2 or 3: dot(a, b [, acc])"))
      return false;
    Expr *x = args[0].get(), *y = args[1].get();
    for (Expr *o : {x, y}) {
      if (!o->ty.isTile() || o->ty.shape.size() != 2) {
        error(o->loc, "dot() expects 2-D tiles, got " + o->ty.str());
        return false;
      }
    }
    if (x->ty.shape[1] != y->ty.shape[0]) {
      error(e->loc, "dot(): inner dimensions differ: a is " + x->ty.str() +
                        " and b is " + y->ty.str() + " (" +
                        llvm::Twine(x->ty.shape[1]) + " vs " +
                        llvm::Twine(y->ty.shape[0]) + ")");
      return false;
    }
    if (x->ty.elem != y->ty.elem) {
      error(e->loc, "dot(): operands have different element types " +
                        x->ty.elem.str() + " and " + y->ty.elem.str() +
                        "; cast one of them");
      return false;
    }
    ElemType in = x->ty.elem;
    bool okIn = in.kind == ElemType::F16 || in.kind == ElemType::BF16 ||
                in.kind == ElemType::F32 || in == ElemType::sint(8) ||
                (in.kind == ElemType::SmallFloat && in.bits == 8);
    if (!okIn) {
      error(e->loc, "dot() operands must be f16, bf16, f32, i8 or an 8-bit "
                    "float, got " +
                        in.str() + "; cast them first");
      return false;
    }
    ElemType accT =
        in.isInteger() ? ElemType::sint(32) : ElemType::get(ElemType::F32);
    Shape rs = {x->ty.shape[0], y->ty.shape[1]};
    if (args.size() == 3) {
      Expr *acc = args[2].get();
      if (!acc->ty.isTile() || llvm::ArrayRef<int64_t>(acc->ty.shape) !=
                                   llvm::ArrayRef<int64_t>(rs)) {
        error(acc->loc, "dot(): the accumulator must be a tile of shape " +
                            shapeStr(rs) + ", got " + acc->ty.str());
        return false;
      }
      bool f16Acc =
          in.kind == ElemType::F16 && acc->ty.elem.kind == ElemType::F16;
      if (f16Acc)
        accT = acc->ty.elem;
      if (acc->ty.elem != accT) {
        error(acc->loc, "dot(): the accumulator of a " + in.str() +
                            " product must be " + accT.str() +
                            (in.kind == ElemType::F16 ? " or f16" : "") +
                            ", got " + acc->ty.elem.str());
        return false;
      }
    }
    e->operandElem = in;
    e->ty = Ty::tile(accT, rs);
    return true;
  }
  case Builtin::DotScaled:
    return checkDotScaled(e);
  case Builtin::Cast: {
    auto t = checkTypeThenValue(e, "2: cast(T, x)");
    if (!t)
      return false;
    Expr *x = args[1].get();
    if (t->kind == ElemType::Bool) {
      error(args[0]->loc, "cast to bool is not supported; compare instead "
                          "(x != 0)");
      return false;
    }
    e->operandElem = x->ty.elem;
    setValueTy(e, *t, x->ty.shape);
    return true;
  }
  case Builtin::Bits: {
    if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1: bits(T)"))
      return false;
    auto t = requireType(args[0].get(), "bits' argument");
    if (!t)
      return false;
    e->ty = Ty::scalar(ElemType::get(ElemType::IntLit));
    e->cv = ConstVal::ofInt(t->bits);
    return true;
  }
  case Builtin::Bitcast: {
    auto t = checkTypeThenValue(e, "2: bitcast(T, x)");
    if (!t)
      return false;
    Expr *x = args[1].get();
    ElemType s = x->ty.elem;
    if (s.isLiteral() || s.kind == ElemType::Bool ||
        t->kind == ElemType::Bool) {
      error(e->loc, "bitcast() needs typed, non-bool values; got " + s.str() +
                        " to " + t->str());
      return false;
    }
    if (x->ty.isScalar()) {
      if (s.bits != t->bits) {
        error(e->loc, "bitcast(): bit count does not match: " + s.str() +
                          " has " + llvm::Twine((unsigned)s.bits) + " bits, " +
                          t->str() + " has " + llvm::Twine((unsigned)t->bits));
        return false;
      }
      e->ty = Ty::scalar(*t);
      return true;
    }
    Shape sh = x->ty.shape;
    int64_t totalBits = sh.back() * s.bits;
    if (totalBits % t->bits != 0) {
      error(e->loc,
            "bitcast(): bit count does not match: the last dimension "
            "holds " +
                llvm::Twine(sh.back()) + " x " + llvm::Twine((unsigned)s.bits) +
                " = " + llvm::Twine(totalBits) + " bits, not a multiple of " +
                t->str() + "'s " + llvm::Twine((unsigned)t->bits) + " bits");
      return false;
    }
    sh.back() = totalBits / t->bits;
    if (!checkTileSize(sh, e->loc))
      return false;
    e->operandElem = s;
    e->ty = Ty::tile(*t, sh);
    return true;
  }
  case Builtin::Trans:
    return checkTrans(e);
  case Builtin::Reshape: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2: reshape(x, [dims])"))
      return false;
    Expr *x = args[0].get();
    if (!x->ty.isTile()) {
      error(x->loc, "reshape() expects a tile, got " + x->ty.str());
      return false;
    }
    auto s = requireShape(args[1].get(), "the new shape");
    if (!s)
      return false;
    Ty r = Ty::tile(x->ty.elem, *s);
    if (r.numElements() != x->ty.numElements()) {
      error(e->loc, "reshape(): element count differs: " + x->ty.str() +
                        " has " + llvm::Twine(x->ty.numElements()) +
                        " elements, " + shapeStr(*s) + " has " +
                        llvm::Twine(r.numElements()));
      return false;
    }
    e->ty = r;
    return true;
  }
  case Builtin::CopyAsync: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2: copy_async(dst, SLICE)"))
      return false;
    Expr *dst = args[0].get(), *src = args[1].get();
    if (dst->ty.kind != Ty::SSlice) {
      error(dst->loc, "copy_async()'s destination must be a slice of a shared "
                      "buffer, got " +
                          dst->ty.str());
      return false;
    }
    if (src->ty.kind != Ty::GSlice) {
      error(src->loc, "copy_async()'s source must be a slice of a global "
                      "tensor, got " +
                          src->ty.str());
      return false;
    }
    if (llvm::is_contained(cast<IndexExpr>(src)->extents, 1) &&
        llvm::any_of(cast<IndexExpr>(src)->entries, [](const IndexEntry &x) {
          return x.kind == IndexEntry::Index;
        })) {
      error(src->loc, "copy_async()'s source must slice every dimension "
                      "(write 'a : a + 1' instead of an index)");
      return false;
    }
    if (dst->ty.elem != src->ty.elem ||
        llvm::ArrayRef<int64_t>(dst->ty.shape) !=
            llvm::ArrayRef<int64_t>(src->ty.shape)) {
      error(e->loc, "copy_async(): destination " + dst->ty.str() +
                        " and source " + src->ty.str() + " differ");
      return false;
    }
    // The copy fills whole trailing dimensions of the buffer: leading
    // dimensions may be indexed, the others must be taken whole (the op
    // addresses its destination by those leading indices only).
    auto *dstIndex = cast<IndexExpr>(dst);
    const Shape &buffer = dstIndex->base->ty.shape;
    bool slicing = false;
    for (size_t d = 0; d < dstIndex->entries.size() && d < buffer.size(); ++d) {
      const IndexEntry &entry = dstIndex->entries[d];
      bool whole =
          entry.kind != IndexEntry::Index && dstIndex->extents[d] == buffer[d];
      if (entry.kind == IndexEntry::Index && !slicing)
        continue;
      slicing = true;
      if (!whole) {
        error(entry.loc.isValid() ? entry.loc : dst->loc,
              "copy_async() fills whole rows of its shared buffer: after the "
              "indexed leading dimensions, take each dimension whole ("
              "dimension " +
                  llvm::Twine(d) + " of " + dstIndex->base->ty.str() + " has " +
                  llvm::Twine(dstIndex->extents[d]) + " of " +
                  llvm::Twine(buffer[d]) + ")");
        return false;
      }
    }
    e->ty = Ty::of(Ty::Void);
    return true;
  }
  case Builtin::Wait: {
    if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1: wait(n)"))
      return false;
    auto n = requireCtInt(args[0].get(), "wait's argument");
    if (!n)
      return false;
    if (*n < 0 || *n > 64) {
      error(args[0]->loc, "wait(n) needs 0 <= n <= 64");
      return false;
    }
    e->ty = Ty::of(Ty::Void);
    return true;
  }
  case Builtin::Barrier:
    if (!noKwargs(e) || !checkArgCount(e, 0, 0, "0"))
      return false;
    e->ty = Ty::of(Ty::Void);
    return true;
  default:
    break;
  }
  error(e->loc, "internal error: unhandled builtin '" + e->callee + "'");
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
      if (c->builtin != Builtin::Cdiv && c->builtin != Builtin::Min &&
          c->builtin != Builtin::Max) {
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
    }
  } else {
    ok = false;
  }
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
                            DiagEngine &diags) {
  auto out = std::make_unique<CheckedKernel>();
  out->decl = &kernel;
  unsigned before = diags.getNumErrors();
  Checker c(kernel, diags, *out);
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
    std::vector<std::pair<std::string, ConstVal>> &values) {
  CheckedKernel out;
  Checker c(kernel, diags, out);
  bool ok = c.checkCtParams(defines);
  ok &= c.checkTune();
  values = out.constants;
  return ok;
}
