//===- SemaBuiltins.cpp - Calls of builtin functions ----------------------===//
//
// Part of tilec. The names of the builtins and the type rule of each call
// (docs/Language.md, "Builtins").
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
    } else if (llvm::StringRef near = suggestBuiltin(e->callee);
               !near.empty()) {
      error(e->calleeLoc, "unknown function '" + e->callee +
                              "'; did you mean '" + near + "'?");
    } else {
      error(e->calleeLoc, "unknown function '" + e->callee +
                              "'; see docs/Language.md for the builtins");
    }
    return false;
  }
  // The type rule of each builtin, from Builtins.def.
  using CheckFn = bool (Checker::*)(CallExpr *);
  static const CheckFn checks[] = {
#define TILE_BUILTIN(Id, Name, Signature, Flags, Check, Emit) &Checker::Check,
#include "tile/Frontend/Builtins.def"
  };
  CheckFn check = checks[unsigned(e->builtin) - 1];
  if (builtinInfo(e->builtin).has(BuiltinFlags::RawArgs))
    return (this->*check)(e);
  bool ok = true;
  for (auto &a : e->args)
    ok &= this->check(a.get());
  for (auto &k : e->kwargs)
    ok &= this->check(k.value.get());
  if (!ok)
    return false;
  return (this->*check)(e);
}

/// warp_size(), shared_memory(), has_wgmma(): facts of the target, constants
/// (an error without a target).
bool Checker::checkTargetCall(CallExpr *e) {
  const char *name = e->builtin == Builtin::WarpSize       ? "warp_size()"
                     : e->builtin == Builtin::SharedMemory ? "shared_memory()"
                                                           : "has_wgmma()";
  std::string usage = std::string("none: ") + name;
  if (!noKwargs(e) || !checkArgCount(e, 0, 0, usage.c_str()))
    return false;
  if (!target.known()) {
    error(e->loc, std::string(name) + " needs a target: compile with --target "
                                      "(sm_80, sm_90a, gfx942, host, ...)");
    return false;
  }
  if (e->builtin == Builtin::HasWgmma) {
    e->ty = Ty::scalar(ElemType::get(ElemType::Bool));
    e->cv = ConstVal::ofBool(target.wgmma);
    return true;
  }
  e->ty = Ty::scalar(ElemType::get(ElemType::IntLit));
  e->cv = ConstVal::ofInt(e->builtin == Builtin::WarpSize ? target.warpSize
                                                          : target.sharedBytes);
  return true;
}

/// has_mma(T): whether `dot` of T operands runs on the target's matrix
/// instructions (16-bit floats, 8-bit integers, e4m3 / e5m2 where the
/// target has them), a constant bool; an error without a target.
bool Checker::checkHasMma(CallExpr *e) {
  if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1: has_mma(T)"))
    return false;
  auto t = requireType(e->args[0].get(), "has_mma's argument");
  if (!t)
    return false;
  if (!target.known()) {
    error(e->loc, "has_mma() needs a target: compile with --target (sm_80, "
                  "sm_90a, gfx942, host, ...)");
    return false;
  }
  bool float16 = t->kind == ElemType::F16 || t->kind == ElemType::BF16;
  bool int8 = t->isInteger() && t->bits == 8;
  bool float8 =
      t->kind == ElemType::SmallFloat && t->bits == 8 &&
      ((t->exp == 4 && t->mant == 3) || (t->exp == 5 && t->mant == 2));
  e->ty = Ty::scalar(ElemType::get(ElemType::Bool));
  e->cv = ConstVal::ofBool((float16 && target.mmaFloat16) ||
                           (int8 && target.mmaInt8) ||
                           (float8 && target.mmaFloat8));
  return true;
}

/// program_id, num_programs, cdiv, bits, warp_size, shared_memory,
/// has_wgmma, has_mma: scalars.
bool Checker::checkScalarCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
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
  case Builtin::WarpSize:
  case Builtin::SharedMemory:
  case Builtin::HasWgmma:
    return checkTargetCall(e);
  case Builtin::HasMma:
    return checkHasMma(e);
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// min and max of two scalars, or sum / max / min of a tile along an
/// axis.
bool Checker::checkReductionCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
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
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// Unary math: exp ... gelu, elementwise; folded on constants.
bool Checker::checkUnaryMathCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
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

/// maximum, minimum and where, with broadcasting.
bool Checker::checkElementwiseCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
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
    if (c->cv.kind == ConstVal::Bool && x->cv.isSet() && y->cv.isSet() &&
        s->empty()) {
      // Three constants: folded like min / max, so `where` can choose a
      // compile-time parameter's default.
      const ConstVal &v = c->cv.b ? x->cv : y->cv;
      e->operandElem = *u;
      e->ty = Ty::scalar(*u);
      e->cv = v.kind == ConstVal::Int && u->isArithFloat()
                  ? ConstVal::ofFloat(double(v.i))
                  : v;
      return true;
    }
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
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// dot and dot_scaled.
bool Checker::checkDotCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
  case Builtin::Dot: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 3, "2 or 3: dot(a, b [, acc])"))
      return false;
    Expr *x = args[0].get(), *y = args[1].get();
    // 2-D tiles, or 3-D ones: a batch of products along the first dimension.
    for (Expr *o : {x, y}) {
      if (!o->ty.isTile() ||
          (o->ty.shape.size() != 2 && o->ty.shape.size() != 3)) {
        error(o->loc, "dot() expects 2-D tiles (or 3-D ones, a batch of "
                      "products), got " +
                          o->ty.str());
        return false;
      }
    }
    size_t rank = x->ty.shape.size();
    if (y->ty.shape.size() != rank) {
      error(e->loc, "dot(): operands of different ranks: a is " + x->ty.str() +
                        " and b is " + y->ty.str());
      return false;
    }
    if (rank == 3 && x->ty.shape[0] != y->ty.shape[0]) {
      error(e->loc, "dot(): batch dimensions differ: a is " + x->ty.str() +
                        " and b is " + y->ty.str() + " (" +
                        llvm::Twine(x->ty.shape[0]) + " vs " +
                        llvm::Twine(y->ty.shape[0]) + ")");
      return false;
    }
    int64_t xk = x->ty.shape[rank - 1], yk = y->ty.shape[rank - 2];
    if (xk != yk) {
      error(e->loc, "dot(): inner dimensions differ: a is " + x->ty.str() +
                        " and b is " + y->ty.str() + " (" + llvm::Twine(xk) +
                        " vs " + llvm::Twine(yk) + ")");
      return false;
    }
    if (x->ty.elem != y->ty.elem) {
      error(e->loc, "dot(): operands have different element types " +
                        x->ty.elem.str() + " and " + y->ty.elem.str() +
                        "; cast one of them");
      return false;
    }
    ElemType in = x->ty.elem;
    // 8-bit floats: the formats of the matrix instructions, f8e4m3 and
    // f8e5m2 (tile.dot's own rule).
    bool fp8 = in.kind == ElemType::SmallFloat && in.bits == 8 &&
               ((in.exp == 4 && in.mant == 3) || (in.exp == 5 && in.mant == 2));
    bool okIn = in.kind == ElemType::F16 || in.kind == ElemType::BF16 ||
                in.kind == ElemType::F32 || in == ElemType::sint(8) || fp8;
    if (!okIn) {
      error(e->loc, "dot() operands must be f16, bf16, f32, i8, f8e4m3 or "
                    "f8e5m2, got " +
                        in.str() + "; cast them first");
      return false;
    }
    ElemType accT =
        in.isInteger() ? ElemType::sint(32) : ElemType::get(ElemType::F32);
    Shape rs = {x->ty.shape[rank - 2], y->ty.shape[rank - 1]};
    if (rank == 3)
      rs.insert(rs.begin(), x->ty.shape[0]);
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
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// cast, bitcast, trans and reshape.
bool Checker::checkConversionCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
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
  default:
    break;
  }
  return unhandledBuiltin(e);
}
