//===- MLIRGenCalls.cpp - The tile dialect of builtin calls ---------------===//
//
// Part of tilec. Each builtin call of a checked kernel becomes tile and
// arith ops (docs/Language.md, "Builtins"; MLIRGenImpl.h for the generator).
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace tile::frontend;
using namespace tile::frontend::gen;

Value MLIRGen::emitUnaryMath(Builtin bi, Value x, Location l) {
  namespace m = mlir::math;
  namespace ar = mlir::arith;
  Type ty = x.getType();
  switch (bi) {
  case Builtin::Exp:
    return m::ExpOp::create(b, l, x);
  case Builtin::Exp2:
    return m::Exp2Op::create(b, l, x);
  case Builtin::Log:
    return m::LogOp::create(b, l, x);
  case Builtin::Log2:
    return m::Log2Op::create(b, l, x);
  case Builtin::Sqrt:
    return m::SqrtOp::create(b, l, x);
  case Builtin::Rsqrt:
    return m::RsqrtOp::create(b, l, x);
  case Builtin::Floor:
    return m::FloorOp::create(b, l, x);
  case Builtin::Ceil:
    return m::CeilOp::create(b, l, x);
  case Builtin::Tanh:
    return m::TanhOp::create(b, l, x);
  case Builtin::Sigmoid:
  case Builtin::Silu: {
    // sigmoid(x) = 1 / (1 + exp(-x)); silu(x) = x * sigmoid(x).
    Value one = constFloat(1.0, ty, l);
    Value ex = m::ExpOp::create(b, l, ar::NegFOp::create(b, l, x));
    Value sg = ar::DivFOp::create(b, l, one, ar::AddFOp::create(b, l, one, ex));
    if (bi == Builtin::Sigmoid)
      return sg;
    return ar::MulFOp::create(b, l, x, sg);
  }
  case Builtin::Gelu: {
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
    Value half = constFloat(0.5, ty, l), one = constFloat(1.0, ty, l);
    Value k0 = constFloat(0.7978845608028654, ty, l);
    Value k1 = constFloat(0.044715, ty, l);
    Value x3 = ar::MulFOp::create(b, l, ar::MulFOp::create(b, l, x, x), x);
    Value inner = ar::MulFOp::create(
        b, l, k0,
        ar::AddFOp::create(b, l, x, ar::MulFOp::create(b, l, k1, x3)));
    Value t = ar::AddFOp::create(b, l, one, m::TanhOp::create(b, l, inner));
    return ar::MulFOp::create(b, l, ar::MulFOp::create(b, l, half, x), t);
  }
  default:
    return Value();
  }
}

Value MLIRGen::emitCall(CallExpr *e) {
  // The builder of each builtin, from Builtins.def.
  using EmitFn = Value (MLIRGen::*)(CallExpr *);
  static const EmitFn emitters[] = {
#define TILE_BUILTIN(Id, Name, Signature, Flags, Check, Emit) &MLIRGen::Emit,
#include "tile/Frontend/Builtins.def"
  };
  if (e->builtin == Builtin::None)
    return unhandledBuiltin(e);
  return (this->*emitters[unsigned(e->builtin) - 1])(e);
}

/// program_id, num_programs, cdiv (bits() and the target's builtins are
/// always constants).
Value MLIRGen::emitScalarCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Builtin bi = e->builtin;
  auto i32 = ElemType::sint(32);
  switch (bi) {
  case Builtin::ProgramId:
  case Builtin::NumPrograms: {
    auto axis = static_cast<tile::Axis>(args[0]->cv.i);
    auto attr = tile::AxisAttr::get(&ctx, axis);
    if (bi == Builtin::ProgramId)
      return tile::ProgramIdOp::create(b, l, b.getI32Type(), attr);
    return tile::NumProgramsOp::create(b, l, b.getI32Type(), attr);
  }
  case Builtin::Cdiv: {
    Value x = emitAs(args[0].get(), i32, {});
    Value y = emitAs(args[1].get(), i32, {});
    Value one = constI32(1, l);
    Value s = mlir::arith::AddIOp::create(
        b, l, x, mlir::arith::SubIOp::create(b, l, y, one));
    return mlir::arith::DivSIOp::create(b, l, s, y);
  }
  default:
    return unhandledBuiltin(e);
  }
}

/// min, max of two scalars; maximum, minimum of tiles.
Value MLIRGen::emitMinMaxCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Builtin bi = e->builtin;
  ElemType t = concrete(e->operandElem);
  Value x, y;
  if (!emitOperands(args[0].get(), args[1].get(), t, e->ty.shape, l, x, y))
    return Value();
  bool isMax = bi == Builtin::Max || bi == Builtin::Maximum;
  namespace ar = mlir::arith;
  if (t.isArithFloat()) {
    return isMax ? (Value)ar::MaximumFOp::create(b, l, x, y)
                 : (Value)ar::MinimumFOp::create(b, l, x, y);
  }
  if (t.kind == ElemType::UInt) {
    return isMax ? (Value)ar::MaxUIOp::create(b, l, x, y)
                 : (Value)ar::MinUIOp::create(b, l, x, y);
  }
  return isMax ? (Value)ar::MaxSIOp::create(b, l, x, y)
               : (Value)ar::MinSIOp::create(b, l, x, y);
}

/// sum(x, axis), max(x, axis), min(x, axis).
Value MLIRGen::emitReduceCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Builtin bi = e->builtin;
  Value x = emit(args[0].get());
  if (!x)
    return x;
  auto kind = bi == Builtin::Sum         ? tile::ReduceKind::Sum
              : bi == Builtin::ReduceMax ? tile::ReduceKind::Max
                                         : tile::ReduceKind::Min;
  auto op = tile::ReduceOp::create(b, l, typeOf(e->ty.elem, e->ty.shape),
                                   tile::ReduceKindAttr::get(&ctx, kind), x,
                                   b.getI32IntegerAttr(args[1]->cv.i),
                                   e->operandElem.kind == ElemType::UInt
                                       ? b.getUnitAttr()
                                       : mlir::UnitAttr());
  return op;
}

/// where(c, a, b).
Value MLIRGen::emitWhereCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Value c = emitAs(args[0].get(), ElemType::get(ElemType::Bool), e->ty.shape);
  Value x = emitAs(args[1].get(), e->operandElem, e->ty.shape);
  Value y = emitAs(args[2].get(), e->operandElem, e->ty.shape);
  if (!c || !x || !y)
    return Value();
  Value operands[] = {c, x, y};
  matchEncodings(operands, l);
  return mlir::arith::SelectOp::create(b, l, operands[0], operands[1],
                                       operands[2]);
}

/// zeros, full, arange.
Value MLIRGen::emitConstructorCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  switch (e->builtin) {
  case Builtin::Zeros:
    return constant(e->ty.elem, ConstVal::ofInt(0), e->ty.shape, l);
  case Builtin::Full: {
    Expr *v = args[2].get();
    if (v->cv.isSet())
      return constant(e->ty.elem, v->cv, e->ty.shape, l);
    return emitAs(v, e->ty.elem, e->ty.shape);
  }
  case Builtin::Arange: {
    auto ty = mlir::RankedTensorType::get(e->ty.shape, b.getI32Type());
    Value iota = tile::IotaOp::create(b, l, ty);
    Expr *start = args[0].get();
    if (start->cv.kind == ConstVal::Int && start->cv.i == 0)
      return iota;
    Value s = emitAs(start, ElemType::sint(32), e->ty.shape);
    return mlir::arith::AddIOp::create(b, l, iota, s);
  }
  default:
    return unhandledBuiltin(e);
  }
}

/// dot and dot_scaled.
Value MLIRGen::emitDotCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Type result = typeOf(e->ty.elem, e->ty.shape);
  if (e->builtin == Builtin::Dot) {
    Value x = emit(args[0].get()), y = emit(args[1].get());
    Value acc = args.size() == 3
                    ? emit(args[2].get())
                    : constant(e->ty.elem, ConstVal::ofInt(0), e->ty.shape, l);
    if (!x || !y || !acc)
      return Value();
    // The dot's accumulator and result share the layout that layout
    // inference gives the dot; a pinned accumulator is converted.
    acc = withEncodingOf(acc, result, l);
    return tile::DotOp::create(b, l, result, x, y, acc);
  }
  llvm::SmallVector<Value, 5> ops;
  for (auto &arg : args)
    ops.push_back(emit(arg.get()));
  if (ops.size() == 4)
    ops.push_back(constant(e->ty.elem, ConstVal::ofInt(0), e->ty.shape, l));
  if (llvm::is_contained(ops, Value()))
    return Value();
  Value acc = withEncodingOf(ops[4], result, l);
  return tile::DotScaledOp::create(b, l, result, ops[0], ops[1], ops[2], ops[3],
                                   acc);
}

/// exp ... gelu, abs.
Value MLIRGen::emitUnaryMathCall(CallExpr *e) {
  Location l = loc(e->loc);
  Value x = emitAs(e->args[0].get(), concrete(e->operandElem), e->ty.shape);
  if (!x)
    return x;
  if (e->builtin == Builtin::Abs) {
    return e->operandElem.isArithFloat()
               ? (Value)mlir::math::AbsFOp::create(b, l, x)
               : (Value)mlir::math::AbsIOp::create(b, l, x);
  }
  Value r = emitUnaryMath(e->builtin, x, l);
  return r ? r : unhandledBuiltin(e);
}

/// load, store, atomic_add, shared, copy_async, wait and barrier: views,
/// shared buffers and the ops that move data between them.
Value MLIRGen::emitMemoryCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  Builtin bi = e->builtin;
  switch (bi) {
  case Builtin::Load: {
    auto *idx = cast<IndexExpr>(args[0].get());
    llvm::SmallVector<Value> offs;
    offsetsOf(idx, offs);
    auto *base = cast<NameExpr>(idx->base.get());
    Type full = typeOf(e->ty.elem, idx->extents);
    Value r;
    if (idx->ty.kind == Ty::SSlice) {
      Value buf = vals.lookup(base->decl);
      r = tile::SharedLoadOp::create(b, l, typeOf(e->ty.elem, e->ty.shape), buf,
                                     offs);
      return r;
    }
    Value view = views.lookup(base->decl).first;
    mlir::TypedAttr pad;
    if (!e->kwargs.empty()) {
      const ConstVal &cv = e->kwargs[0].value->cv;
      Type et = elemType(e->ty.elem);
      if (e->ty.elem.isArithFloat() ||
          mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(et)) {
        double v = cv.kind == ConstVal::Int ? (double)cv.i : cv.f;
        pad = b.getFloatAttr(et, v);
      } else if (e->ty.elem.kind == ElemType::SInt ||
                 e->ty.elem.kind == ElemType::UInt) {
        pad = b.getIntegerAttr(
            et, llvm::APInt(e->ty.elem.bits, (uint64_t)cv.i, false, true));
      } else {
        fail(e->kwargs[0].loc,
             "'other' is not supported for element type " + e->ty.elem.str());
        return Value();
      }
    }
    r = tile::LoadOp::create(b, l, full, view, offs, pad);
    if (llvm::ArrayRef<int64_t>(idx->extents) !=
        llvm::ArrayRef<int64_t>(e->ty.shape)) {
      r = tile::ReshapeOp::create(b, l, typeOf(e->ty.elem, e->ty.shape), r);
    }
    return r;
  }
  case Builtin::Store:
  case Builtin::AtomicAdd: {
    auto *idx = cast<IndexExpr>(args[0].get());
    auto *base = cast<NameExpr>(idx->base.get());
    Value v = emitAs(args[1].get(), idx->ty.elem, idx->ty.shape);
    if (!v)
      return v;
    llvm::SmallVector<Value> offs;
    offsetsOf(idx, offs);
    if (idx->ty.kind == Ty::SSlice) {
      tile::SharedStoreOp::create(b, l, vals.lookup(base->decl), offs, v);
      return Value();
    }
    if (llvm::ArrayRef<int64_t>(idx->extents) !=
        llvm::ArrayRef<int64_t>(idx->ty.shape)) {
      v = tile::ReshapeOp::create(b, l, typeOf(idx->ty.elem, idx->extents), v);
    }
    Value view = views.lookup(base->decl).first;
    if (bi == Builtin::AtomicAdd)
      tile::AtomicAddOp::create(b, l, view, offs, v);
    else
      tile::StoreOp::create(b, l, view, offs, v);
    return Value();
  }
  case Builtin::Shared: {
    auto st = tile::SharedType::get(e->ty.shape, elemType(e->ty.elem));
    return tile::AllocSharedOp::create(b, l, st);
  }
  case Builtin::CopyAsync: {
    auto *dst = cast<IndexExpr>(args[0].get());
    auto *src = cast<IndexExpr>(args[1].get());
    llvm::SmallVector<Value> dOffs, sOffs;
    offsetsOf(dst, dOffs);
    offsetsOf(src, sOffs);
    Value buf = vals.lookup(cast<NameExpr>(dst->base.get())->decl);
    Value view = views.lookup(cast<NameExpr>(src->base.get())->decl).first;
    tile::CopyAsyncOp::create(b, l, view, sOffs, buf, dOffs, Value(), Value(),
                              Value());
    return Value();
  }
  case Builtin::Wait:
    tile::WaitOp::create(b, l, b.getI32IntegerAttr(args[0]->cv.i));
    return Value();
  case Builtin::Barrier:
    tile::BarrierOp::create(b, l);
    return Value();
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// cast, bitcast, trans and reshape: one tile op each.
Value MLIRGen::emitConversionCall(CallExpr *e) {
  Location l = loc(e->loc);
  auto &args = e->args;
  switch (e->builtin) {
  case Builtin::Cast: {
    Expr *x = args[1].get();
    Value v = emit(x);
    if (!v)
      return v;
    return convert(v, x->ty.elem, e->ty.elem, l);
  }
  case Builtin::Bitcast: {
    Value v = emit(args[1].get());
    if (!v)
      return v;
    return tile::BitcastOp::create(b, l, typeOf(e->ty.elem, e->ty.shape), v);
  }
  case Builtin::Trans: {
    Value v = emit(args[0].get());
    if (!v)
      return v;
    mlir::DenseI32ArrayAttr perm;
    if (args.size() == 2) {
      llvm::SmallVector<int32_t, 4> axes;
      for (auto &a : cast<ListExpr>(args[1].get())->elems)
        axes.push_back(int32_t(a->cv.i));
      perm = b.getDenseI32ArrayAttr(axes);
    }
    return tile::TransOp::create(b, l, typeOf(e->ty.elem, e->ty.shape), v,
                                 perm);
  }
  case Builtin::Reshape: {
    Value v = emit(args[0].get());
    if (!v)
      return v;
    return tile::ReshapeOp::create(b, l, typeOf(e->ty.elem, e->ty.shape), v);
  }
  default:
    break;
  }
  return unhandledBuiltin(e);
}
