//===- MLIRGen.cpp - Tile dialect generation from checked kernels ---------===//
//
// Part of tilec.
//
// Walks the annotated AST of each CheckedKernel and emits the IR contract of
// docs/Dialect.md: a func.func per kernel with tile.* attributes, tensors as
// !tile.ptr + tile.view, i32 scalars, scf.for / scf.if for control flow.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Frontend.h"
#include "tile/Frontend/Sema.h"
#include "tile/Layout/DistributedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace tile::frontend;
using namespace tile::frontend::gen;

Type MLIRGen::elemType(ElemType t) {
  switch (t.kind) {
  case ElemType::Bool:
    return b.getI1Type();
  case ElemType::SInt:
  case ElemType::UInt:
    return b.getIntegerType(t.bits);
  case ElemType::F16:
    return b.getF16Type();
  case ElemType::BF16:
    return b.getBF16Type();
  case ElemType::F32:
  case ElemType::FloatLit:
    return b.getF32Type();
  case ElemType::IntLit:
  case ElemType::Invalid:
    return b.getI32Type();
  case ElemType::E8M0:
    return mlir::Float8E8M0FNUType::get(&ctx);
  case ElemType::SmallFloat:
    if (t.exp == 2 && t.mant == 1)
      return mlir::Float4E2M1FNType::get(&ctx);
    if (t.exp == 2 && t.mant == 3)
      return mlir::Float6E2M3FNType::get(&ctx);
    if (t.exp == 3 && t.mant == 2)
      return mlir::Float6E3M2FNType::get(&ctx);
    if (t.exp == 4 && t.mant == 3)
      return mlir::Float8E4M3FNType::get(&ctx);
    if (t.exp == 5 && t.mant == 2)
      return mlir::Float8E5M2Type::get(&ctx);
    return tile::SmallFloatType::get(&ctx, t.exp, t.mant);
  }
  return b.getI32Type();
}

Value MLIRGen::constant(ElemType t, const ConstVal &cv,
                        llvm::ArrayRef<int64_t> shape, Location l) {
  t = concrete(t);
  Type et = elemType(t);
  mlir::TypedAttr attr;
  if (t.isStorageOnly()) {
    // Materialize in f32 and convert (round to nearest even, saturate).
    ElemType f32 = ElemType::get(ElemType::F32);
    Value v = constant(f32, cv, shape, l);
    return convert(v, f32, t, l);
  }
  if (t.isArithFloat()) {
    double v = cv.kind == ConstVal::Int    ? (double)cv.i
               : cv.kind == ConstVal::Bool ? (double)cv.b
                                           : cv.f;
    attr = b.getFloatAttr(et, v);
  } else {
    int64_t v = cv.kind == ConstVal::Bool ? (cv.b ? 1 : 0) : cv.i;
    if (cv.kind == ConstVal::Float)
      v = (int64_t)cv.f;
    attr = b.getIntegerAttr(et, llvm::APInt(t.bits, (uint64_t)v,
                                            /*isSigned=*/false,
                                            /*implicitTrunc=*/true));
  }
  if (shape.empty())
    return mlir::arith::ConstantOp::create(b, l, attr);
  auto tt = mlir::RankedTensorType::get(shape, et);
  return mlir::arith::ConstantOp::create(
      b, l, mlir::DenseElementsAttr::get(tt, mlir::Attribute(attr)));
}

Value MLIRGen::constFloat(double v, Type like, Location l) {
  Type et = like;
  auto tt = dyn_cast<mlir::RankedTensorType>(like);
  if (tt)
    et = tt.getElementType();
  auto attr = b.getFloatAttr(et, v);
  if (!tt)
    return mlir::arith::ConstantOp::create(b, l, attr);
  return mlir::arith::ConstantOp::create(
      b, l, mlir::DenseElementsAttr::get(tt, mlir::Attribute(attr)));
}

Value MLIRGen::convert(Value v, ElemType from, ElemType to, Location l) {
  from = concrete(from);
  to = concrete(to);
  if (from == to)
    return v;
  Type rt = elemType(to);
  if (auto tt = dyn_cast<mlir::RankedTensorType>(v.getType())) {
    rt = mlir::RankedTensorType::get(tt.getShape(), rt);
  } else if (v.getType() == rt) {
    rt = rt; // Same storage (e.g. i8 vs u8): still a conversion op.
  }
  auto op = tile::CastOp::create(b, l, rt, v);
  if (from.kind == ElemType::UInt || from.kind == ElemType::Bool)
    op->setAttr("src_unsigned", b.getUnitAttr());
  if (to.kind == ElemType::UInt)
    op->setAttr("dst_unsigned", b.getUnitAttr());
  return op;
}

Value MLIRGen::broadcastTo(Value v, llvm::ArrayRef<int64_t> shape, Location l) {
  auto tt = dyn_cast<mlir::RankedTensorType>(v.getType());
  if (shape.empty())
    return v;
  Type et = tt ? tt.getElementType() : v.getType();
  auto target = mlir::RankedTensorType::get(shape, et);
  if (!tt)
    return tile::SplatOp::create(b, l, target, v);
  if (tt.getShape() == shape)
    return v;
  if ((size_t)tt.getRank() < shape.size()) {
    llvm::SmallVector<int64_t> s(shape.size() - tt.getRank(), 1);
    s.append(tt.getShape().begin(), tt.getShape().end());
    v = tile::ReshapeOp::create(b, l, mlir::RankedTensorType::get(s, et), v);
    if (llvm::ArrayRef<int64_t>(s) == shape)
      return v;
  }
  return tile::BroadcastOp::create(b, l, target, v);
}

Value MLIRGen::emitAs(Expr *e, ElemType t, llvm::ArrayRef<int64_t> shape) {
  Location l = loc(e->loc);
  if (e->cv.isSet() && e->ty.isScalar())
    return constant(t, e->cv, shape, l);
  Value v = emit(e);
  if (!v)
    return v;
  v = convert(v, e->ty.elem, t, l);
  return broadcastTo(v, shape, l);
}

Value MLIRGen::emit(Expr *e) {
  Location l = loc(e->loc);
  if (e->cv.isSet() && e->ty.isScalar())
    return constant(e->ty.elem, e->cv, {}, l);
  switch (e->kind) {
  case Expr::Name: {
    auto *n = cast<NameExpr>(e);
    auto it = vals.find(n->decl);
    if (it == vals.end()) {
      fail(e->loc, "internal error: no value for '" + n->name + "'");
      return Value();
    }
    return it->second;
  }
  case Expr::Unary: {
    auto *u = cast<UnaryExpr>(e);
    Value x = emit(u->operand.get());
    if (!x)
      return x;
    ElemType t = u->operand->ty.elem;
    // A constant operand like x (with x's layout, if pinned).
    auto like = [&](const ConstVal &cv) {
      return withEncodingOf(constant(t, cv, u->ty.shape, l), x.getType(), l);
    };
    switch (u->op) {
    case UnaryOp::Neg:
      if (t.isArithFloat())
        return mlir::arith::NegFOp::create(b, l, x);
      return mlir::arith::SubIOp::create(b, l, like(ConstVal::ofInt(0)), x);
    case UnaryOp::Not:
      return mlir::arith::XOrIOp::create(b, l, x, like(ConstVal::ofBool(true)));
    case UnaryOp::BitNot:
      return mlir::arith::XOrIOp::create(b, l, x, like(ConstVal::ofInt(-1)));
    }
    return Value();
  }
  case Expr::Binary:
    return emitBinary(cast<BinaryExpr>(e));
  case Expr::Call:
    return emitCall(cast<CallExpr>(e));
  case Expr::Index:
    return emitIndex(cast<IndexExpr>(e));
  default:
    fail(e->loc, "internal error: cannot generate code for this expression");
    return Value();
  }
}

bool MLIRGen::emitOperands(Expr *lhs, Expr *rhs, ElemType t,
                           llvm::ArrayRef<int64_t> shape, Location l, Value &x,
                           Value &y) {
  Value operands[] = {emitAs(lhs, t, shape), emitAs(rhs, t, shape)};
  if (!operands[0] || !operands[1])
    return false;
  matchEncodings(operands, l);
  x = operands[0];
  y = operands[1];
  return true;
}

Value MLIRGen::emitBinary(BinaryExpr *e) {
  Location l = loc(e->loc);
  ElemType t = concrete(e->operandElem);
  Value x, y;
  if (!emitOperands(e->lhs.get(), e->rhs.get(), t, e->ty.shape, l, x, y))
    return Value();
  namespace ar = mlir::arith;
  bool fl = t.isArithFloat();
  bool un = t.kind == ElemType::UInt || t.kind == ElemType::Bool;
  switch (e->op) {
  case BinaryOp::Add:
    return fl ? (Value)ar::AddFOp::create(b, l, x, y)
              : (Value)ar::AddIOp::create(b, l, x, y);
  case BinaryOp::Sub:
    return fl ? (Value)ar::SubFOp::create(b, l, x, y)
              : (Value)ar::SubIOp::create(b, l, x, y);
  case BinaryOp::Mul:
    return fl ? (Value)ar::MulFOp::create(b, l, x, y)
              : (Value)ar::MulIOp::create(b, l, x, y);
  case BinaryOp::Div:
    if (fl)
      return ar::DivFOp::create(b, l, x, y);
    return un ? (Value)ar::DivUIOp::create(b, l, x, y)
              : (Value)ar::DivSIOp::create(b, l, x, y);
  case BinaryOp::Rem:
    if (fl)
      return ar::RemFOp::create(b, l, x, y);
    return un ? (Value)ar::RemUIOp::create(b, l, x, y)
              : (Value)ar::RemSIOp::create(b, l, x, y);
  case BinaryOp::Shl:
    return ar::ShLIOp::create(b, l, x, y);
  case BinaryOp::Shr:
    return un ? (Value)ar::ShRUIOp::create(b, l, x, y)
              : (Value)ar::ShRSIOp::create(b, l, x, y);
  case BinaryOp::BitAnd:
  case BinaryOp::LogAnd:
    return ar::AndIOp::create(b, l, x, y);
  case BinaryOp::BitOr:
  case BinaryOp::LogOr:
    return ar::OrIOp::create(b, l, x, y);
  case BinaryOp::BitXor:
    return ar::XOrIOp::create(b, l, x, y);
  default:
    break;
  }
  // Comparisons.
  if (fl) {
    ar::CmpFPredicate p;
    switch (e->op) {
    case BinaryOp::Lt:
      p = ar::CmpFPredicate::OLT;
      break;
    case BinaryOp::Le:
      p = ar::CmpFPredicate::OLE;
      break;
    case BinaryOp::Gt:
      p = ar::CmpFPredicate::OGT;
      break;
    case BinaryOp::Ge:
      p = ar::CmpFPredicate::OGE;
      break;
    case BinaryOp::Eq:
      p = ar::CmpFPredicate::OEQ;
      break;
    default:
      p = ar::CmpFPredicate::UNE;
      break;
    }
    return ar::CmpFOp::create(b, l, p, x, y);
  }
  ar::CmpIPredicate p;
  switch (e->op) {
  case BinaryOp::Lt:
    p = un ? ar::CmpIPredicate::ult : ar::CmpIPredicate::slt;
    break;
  case BinaryOp::Le:
    p = un ? ar::CmpIPredicate::ule : ar::CmpIPredicate::sle;
    break;
  case BinaryOp::Gt:
    p = un ? ar::CmpIPredicate::ugt : ar::CmpIPredicate::sgt;
    break;
  case BinaryOp::Ge:
    p = un ? ar::CmpIPredicate::uge : ar::CmpIPredicate::sge;
    break;
  case BinaryOp::Eq:
    p = ar::CmpIPredicate::eq;
    break;
  default:
    p = ar::CmpIPredicate::ne;
    break;
  }
  return ar::CmpIOp::create(b, l, p, x, y);
}

void MLIRGen::offsetsOf(IndexExpr *idx, llvm::SmallVectorImpl<Value> &offs) {
  for (auto &ent : idx->entries) {
    if (ent.kind == IndexEntry::Full) {
      offs.push_back(constI32(0, loc(ent.loc)));
    } else {
      offs.push_back(emitAs(ent.lo.get(), ElemType::sint(32), {}));
    }
  }
}

Value MLIRGen::emitIndex(IndexExpr *e) {
  // Register tile: insert new axes.
  Location l = loc(e->loc);
  Value v = emit(e->base.get());
  if (!v)
    return v;
  if (e->base->ty.isScalar())
    return broadcastTo(v, e->ty.shape, l);
  auto tt = cast<mlir::RankedTensorType>(v.getType());
  llvm::SmallVector<int64_t> cur(tt.getShape().begin(), tt.getShape().end());
  for (size_t i = 0; i < e->entries.size(); ++i) {
    if (e->entries[i].kind != IndexEntry::NewAxis)
      continue;
    cur.insert(cur.begin() + i, 1);
    v = tile::ExpandDimsOp::create(
        b, l, mlir::RankedTensorType::get(cur, tt.getElementType()), v,
        b.getI32IntegerAttr(i));
  }
  return v;
}

/// The layout written as \p l (checked by sema: a product of factors with
/// positive compile-time extents, one per dimension of a rank-\p rank tile,
/// and replicate(k)).
static llvm::Expected<tile::layout::DistributedLayout>
buildLayout(const Expr *l, unsigned rank) {
  using tile::layout::DistributedLayout;
  if (auto *bin = dyn_cast<BinaryExpr>(l)) {
    auto lhs = buildLayout(bin->lhs.get(), rank);
    if (!lhs)
      return lhs.takeError();
    auto rhs = buildLayout(bin->rhs.get(), rank);
    if (!rhs)
      return rhs.takeError();
    return *lhs * *rhs;
  }
  auto *c = dyn_cast<CallExpr>(l);
  if (!c)
    return llvm::createStringError("expected a layout factor");
  llvm::SmallVector<int64_t, 4> extents;
  for (const auto &a : c->args) {
    if (a->cv.kind != ConstVal::Int || a->cv.i < 1) {
      return llvm::createStringError("layout extents must be positive "
                                     "compile-time integers");
    }
    extents.push_back(a->cv.i);
  }
  if (c->callee == "replicate") {
    if (extents.size() != 1)
      return llvm::createStringError("replicate(k) takes one count");
    return DistributedLayout::replicate(extents[0]);
  }
  if (extents.size() != rank)
    return llvm::createStringError("layout factor of the wrong rank");
  // Row-major digit order; the column_ forms reverse it.
  llvm::SmallVector<unsigned, 4> order(rank);
  for (unsigned d = 0; d < rank; ++d)
    order[d] = d;
  if (c->callee.rfind("column_", 0) == 0)
    std::reverse(order.begin(), order.end());
  if (c->callee == "local" || c->callee == "column_local")
    return DistributedLayout::local(extents, order);
  if (c->callee == "spatial" || c->callee == "column_spatial")
    return DistributedLayout::spatial(extents, order);
  return llvm::createStringError("unknown layout factor '" + c->callee + "'");
}

Value MLIRGen::emitLayout(CallExpr *e) {
  Value x = emit(e->args[0].get());
  if (!x)
    return x;
  auto type = cast<mlir::RankedTensorType>(x.getType());
  auto layout = buildLayout(e->args[1].get(), type.getRank());
  if (!layout) {
    fail(e->args[1]->loc,
         "invalid layout: " + llvm::toString(layout.takeError()));
    return Value();
  }
  if (layout->shape() != type.getShape()) {
    fail(e->args[1]->loc, "internal error: the layout does not cover the "
                          "tile's shape");
    return Value();
  }
  auto encoded =
      mlir::RankedTensorType::get(type.getShape(), type.getElementType(),
                                  tile::LayoutAttr::get(&ctx, *layout));
  return tile::ConvertLayoutOp::create(b, loc(e->loc), encoded, x);
}

Value MLIRGen::withEncodingOf(Value v, Type like, Location l) {
  auto from = dyn_cast<mlir::RankedTensorType>(v.getType());
  auto to = dyn_cast<mlir::RankedTensorType>(like);
  if (!from || !to || from.getEncoding() == to.getEncoding() ||
      from.getShape() != to.getShape())
    return v;
  auto type = mlir::RankedTensorType::get(
      from.getShape(), from.getElementType(), to.getEncoding());
  return tile::ConvertLayoutOp::create(b, l, type, v);
}

void MLIRGen::matchEncodings(llvm::MutableArrayRef<Value> values, Location l) {
  auto *encoded = llvm::find_if(values, [](Value v) {
    auto type = v ? dyn_cast<mlir::RankedTensorType>(v.getType()) : nullptr;
    return type && type.getEncoding();
  });
  if (encoded == values.end())
    return;
  Type like = encoded->getType();
  for (Value &v : values) {
    if (v)
      v = withEncodingOf(v, like, l);
  }
}

bool MLIRGen::emitBlock(BlockStmt *blk) {
  for (auto &s : blk->stmts) {
    if (!emitStmt(s.get()))
      return false;
  }
  return !failed;
}

bool MLIRGen::emitStmt(Stmt *s) {
  switch (s->kind) {
  case Stmt::Let:
  case Stmt::Var: {
    auto *bs = cast<BindStmt>(s);
    Decl *d = bs->decl;
    Expr *init = bs->init.get();
    if (s->kind == Stmt::Let) {
      if (init->cv.isSet() || d->ty.kind == Ty::TypeVal)
        return true; // Compile-time value: materialized at each use.
      Value v = emit(init);
      if (!v)
        return false;
      vals[d] = v;
      return true;
    }
    Value v = emitAs(init, d->ty.elem, d->ty.shape);
    if (!v)
      return false;
    vals[d] = v;
    return true;
  }
  case Stmt::Assign: {
    auto *as = cast<AssignStmt>(s);
    Value v = emitAs(as->value.get(), as->decl->ty.elem, as->decl->ty.shape);
    if (!v)
      return false;
    vals[as->decl] = v;
    return true;
  }
  case Stmt::For:
    return emitFor(cast<ForStmt>(s));
  case Stmt::If:
    return emitIf(cast<IfStmt>(s));
  case Stmt::Block:
    return emitBlock(cast<BlockStmt>(s));
  case Stmt::ExprS:
    emit(cast<ExprStmt>(s)->expr.get());
    return !failed;
  }
  return false;
}

bool MLIRGen::emitFor(ForStmt *s) {
  Location l = loc(s->loc);
  auto i32 = ElemType::sint(32);
  Value lo = emitAs(s->lo.get(), i32, {});
  Value hi = emitAs(s->hi.get(), i32, {});
  Value step = s->step ? emitAs(s->step.get(), i32, {}) : constI32(1, l);
  if (!lo || !hi || !step)
    return false;
  llvm::SmallVector<Value> inits;
  for (Decl *d : s->carried)
    inits.push_back(vals.lookup(d));
  auto forOp = mlir::scf::ForOp::create(b, l, lo, hi, step, inits);
  if (s->pipelineStages > 0)
    forOp->setAttr("tile.pipeline", b.getI32IntegerAttr(s->pipelineStages));
  if (s->pipelineStages > 1 && s->warpSpecialize)
    forOp->setAttr("tile.warp_specialize", b.getUnitAttr());
  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block *body = forOp.getBody();
  b.setInsertionPointToStart(body);
  vals[s->ivDecl] = forOp.getInductionVar();
  for (size_t i = 0; i < s->carried.size(); ++i)
    vals[s->carried[i]] = forOp.getRegionIterArgs()[i];
  if (!emitBlock(s->body.get()))
    return false;
  // The builder created an implicit yield only without iter_args.
  if (!body->empty() && mlir::isa<mlir::scf::YieldOp>(body->back()))
    body->back().erase();
  b.setInsertionPointToEnd(body);
  // A carried value keeps the type (and pinned layout) it entered with.
  llvm::SmallVector<Value> yields;
  for (size_t i = 0; i < s->carried.size(); ++i) {
    yields.push_back(
        withEncodingOf(vals.lookup(s->carried[i]), inits[i].getType(), l));
  }
  mlir::scf::YieldOp::create(b, l, yields);
  for (size_t i = 0; i < s->carried.size(); ++i)
    vals[s->carried[i]] = forOp.getResult(i);
  return true;
}

bool MLIRGen::emitIf(IfStmt *s) {
  if (s->ctCond == 1)
    return emitBlock(s->thenBlock.get());
  if (s->ctCond == 0)
    return s->elseStmt ? emitStmt(s->elseStmt.get()) : true;
  Location l = loc(s->loc);
  Value c = emitAs(s->cond.get(), ElemType::get(ElemType::Bool), {});
  if (!c)
    return false;
  llvm::SmallVector<Type> resultTypes;
  llvm::SmallVector<Value> before;
  for (Decl *d : s->carried) {
    before.push_back(vals.lookup(d));
    resultTypes.push_back(before.back().getType());
  }
  bool withElse = s->elseStmt || !s->carried.empty();
  auto ifOp = mlir::scf::IfOp::create(b, l, resultTypes, c, withElse);
  auto emitRegion = [&](mlir::Region &region, Stmt *body) -> bool {
    mlir::OpBuilder::InsertionGuard guard(b);
    mlir::Block *blk = &region.front();
    if (!blk->empty() && mlir::isa<mlir::scf::YieldOp>(blk->back()))
      blk->back().erase();
    b.setInsertionPointToEnd(blk);
    if (body && !emitStmt(body))
      return false;
    llvm::SmallVector<Value> yields;
    for (size_t i = 0; i < s->carried.size(); ++i) {
      yields.push_back(
          withEncodingOf(vals.lookup(s->carried[i]), resultTypes[i], l));
    }
    mlir::scf::YieldOp::create(b, l, yields);
    for (size_t i = 0; i < s->carried.size(); ++i)
      vals[s->carried[i]] = before[i];
    return true;
  };
  if (!emitRegion(ifOp.getThenRegion(), s->thenBlock.get()))
    return false;
  if (withElse && !emitRegion(ifOp.getElseRegion(), s->elseStmt.get()))
    return false;
  for (size_t i = 0; i < s->carried.size(); ++i)
    vals[s->carried[i]] = ifOp.getResult(i);
  return true;
}

bool MLIRGen::genKernel(CheckedKernel &ck, mlir::ModuleOp module) {
  KernelDecl &k = *ck.decl;
  Location l = loc(k.loc);
  llvm::SmallVector<Type> argTypes;
  for (auto &p : ck.params) {
    argTypes.push_back(p.isTensor
                           ? (Type)tile::PtrType::get(&ctx, elemType(p.elem))
                           : elemType(p.elem));
  }
  for (size_t i = 0; i < ck.dims.size(); ++i)
    argTypes.push_back(b.getI32Type());
  b.setInsertionPointToEnd(module.getBody());
  auto fn =
      mlir::func::FuncOp::create(b, l, k.name, b.getFunctionType(argTypes, {}));
  // Attributes.
  fn->setAttr("tile.kernel", b.getUnitAttr());
  fn->setAttr("tile.warps", b.getI32IntegerAttr(ck.warps));
  if (ck.persistent)
    fn->setAttr(tile::TileDialect::kPersistAttr, b.getUnitAttr());
  if (ck.occupancy > 1)
    fn->setAttr(tile::TileDialect::kOccupancyAttr,
                b.getI32IntegerAttr(int32_t(ck.occupancy)));
  fn->setAttr("tile.grid",
              b.getStrArrayAttr({ck.grid[0], ck.grid[1], ck.grid[2]}));
  llvm::SmallVector<mlir::NamedAttribute> consts;
  for (auto &c : ck.constants) {
    mlir::Attribute a;
    if (c.second.kind == ConstVal::Int) {
      a = b.getI64IntegerAttr(c.second.i);
    } else if (c.second.kind == ConstVal::Bool) {
      a = b.getBoolAttr(c.second.b);
    } else {
      a = b.getStringAttr(c.second.str());
    }
    consts.push_back(b.getNamedAttr(c.first, a));
  }
  fn->setAttr("tile.constants", b.getDictionaryAttr(consts));
  for (size_t i = 0; i < ck.params.size(); ++i) {
    auto &p = ck.params[i];
    fn.setArgAttr(i, "tile.name", b.getStringAttr(p.decl->name));
    fn.setArgAttr(i, "tile.dtype", b.getStringAttr(p.elem.str()));
    if (p.isTensor) {
      llvm::SmallVector<llvm::StringRef> dims;
      for (auto &d : p.dims)
        dims.push_back(d.text);
      fn.setArgAttr(i, "tile.shape", b.getStrArrayAttr(dims));
      if (p.isMut)
        fn.setArgAttr(i, "tile.mut", b.getUnitAttr());
    }
  }
  for (size_t i = 0; i < ck.dims.size(); ++i) {
    fn.setArgAttr(ck.params.size() + i, "tile.dim",
                  b.getStringAttr(ck.dims[i]->name));
  }

  mlir::Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  for (size_t i = 0; i < ck.params.size(); ++i)
    vals[ck.params[i].decl] = entry->getArgument(i);
  for (size_t i = 0; i < ck.dims.size(); ++i)
    vals[ck.dims[i]] = entry->getArgument(ck.params.size() + i);
  // One view per tensor.
  for (size_t i = 0; i < ck.params.size(); ++i) {
    auto &p = ck.params[i];
    if (!p.isTensor)
      continue;
    Location pl = loc(p.decl->loc);
    llvm::SmallVector<int64_t> shape;
    llvm::SmallVector<Value> dyn;
    for (auto &d : p.dims) {
      if (d.value) {
        shape.push_back(*d.value);
      } else {
        shape.push_back(mlir::ShapedType::kDynamic);
        dyn.push_back(emitAs(d.expr, ElemType::sint(32), {}));
      }
    }
    auto vt = tile::ViewType::get(&ctx, shape, elemType(p.elem));
    Value v = tile::ViewOp::create(b, pl, vt, entry->getArgument(i), dyn,
                                   mlir::ValueRange());
    views[p.decl] = {v, p.elem};
  }
  if (!emitBlock(k.body.get()))
    return false;
  mlir::func::ReturnOp::create(b, loc(k.body->loc));
  return !failed;
}

mlir::OwningOpRef<mlir::ModuleOp>
tile::frontend::compileToMLIR(llvm::SourceMgr &sm, mlir::MLIRContext &ctx,
                              const CompileOptions &options,
                              llvm::raw_ostream *diagOS) {
  DiagEngine diags(sm, diagOS);
  diags.setMaxErrors(options.maxErrors);
  auto checked =
      checkModule(options.defines, options.kernel, diags, options.target);
  if (!checked)
    return nullptr;
  ctx.loadDialect<tile::TileDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect>();
  auto fileName = sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::FileLineColLoc::get(&ctx, fileName, 1, 1));
  for (auto &ck : checked->kernels) {
    MLIRGen gen(ctx, sm, diags);
    if (!gen.genKernel(*ck, *module))
      return nullptr;
  }
  // The generated IR must verify; a failure here is a front-end bug.
  std::string msg;
  {
    llvm::raw_string_ostream os(msg);
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      os << d.getLocation() << ": " << d.str() << "\n";
      return mlir::success();
    });
    if (mlir::failed(mlir::verify(*module))) {
      diags.errorNoLoc("internal error: the generated IR does not verify "
                       "(please report this bug):\n" +
                       msg);
      return nullptr;
    }
  }
  return module;
}
