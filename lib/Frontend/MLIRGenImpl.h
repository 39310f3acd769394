//===- MLIRGenImpl.h - The tile dialect generator, private -----*- C++ -*-===//
//
// Part of tilec. Private to lib/Frontend: the generator that walks a
// checked kernel and emits the tile dialect, shared by MLIRGen.cpp
// (kernels, statements, expressions) and MLIRGenCalls.cpp (builtin calls).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_MLIRGENIMPL_H
#define TILE_LIB_FRONTEND_MLIRGENIMPL_H

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

namespace tile {
namespace frontend {
namespace gen {

using llvm::cast;
using llvm::dyn_cast;
using mlir::Location;
using mlir::Type;
using mlir::Value;

/// Literal types become the types they are generated as (i32, f32).
inline ElemType concrete(ElemType t) {
  if (t.kind == ElemType::IntLit || t.kind == ElemType::Invalid)
    return ElemType::sint(32);
  if (t.kind == ElemType::FloatLit)
    return ElemType::get(ElemType::F32);
  return t;
}

class MLIRGen {
public:
  MLIRGen(mlir::MLIRContext &ctx, llvm::SourceMgr &sm, DiagEngine &diags)
      : ctx(ctx), sm(sm), diags(diags), b(&ctx) {}

  /// Emits one kernel into \p module; false after reporting errors.
  bool genKernel(CheckedKernel &ck, mlir::ModuleOp module);

private:
  // Types and locations.
  Location loc(llvm::SMLoc l) {
    if (!l.isValid())
      return b.getUnknownLoc();
    unsigned buf = sm.FindBufferContainingLoc(l);
    if (!buf)
      return b.getUnknownLoc();
    auto lc = sm.getLineAndColumn(l, buf);
    return mlir::FileLineColLoc::get(
        &ctx, sm.getMemoryBuffer(buf)->getBufferIdentifier(), lc.first,
        lc.second);
  }
  Type elemType(ElemType t);
  Type typeOf(ElemType elem, llvm::ArrayRef<int64_t> shape) {
    Type e = elemType(elem);
    if (shape.empty())
      return e;
    return mlir::RankedTensorType::get(shape, e);
  }

  // Values.
  Value constant(ElemType t, const ConstVal &cv, llvm::ArrayRef<int64_t> shape,
                 Location l);
  Value constFloat(double v, Type like, Location l);
  Value constI32(int64_t v, Location l) {
    return mlir::arith::ConstantOp::create(b, l, b.getI32IntegerAttr(v));
  }
  Value emit(Expr *e);
  Value emitAs(Expr *e, ElemType t, llvm::ArrayRef<int64_t> shape);
  Value convert(Value v, ElemType from, ElemType to, Location l);
  Value broadcastTo(Value v, llvm::ArrayRef<int64_t> shape, Location l);
  /// Emits \p lhs and \p rhs as \p t tiles of \p shape (or scalars) with a
  /// common layout encoding, for ops whose operands share one type; false
  /// after an error.
  bool emitOperands(Expr *lhs, Expr *rhs, ElemType t,
                    llvm::ArrayRef<int64_t> shape, Location l, Value &x,
                    Value &y);
  Value emitBinary(BinaryExpr *e);
  /// A builtin call, through the table of Builtins.def; one emitter per
  /// family.
  Value emitCall(CallExpr *e);
  Value emitScalarCall(CallExpr *e);
  Value emitMinMaxCall(CallExpr *e);
  Value emitReduceCall(CallExpr *e);
  Value emitWhereCall(CallExpr *e);
  Value emitConstructorCall(CallExpr *e);
  Value emitDotCall(CallExpr *e);
  Value emitUnaryMathCall(CallExpr *e);
  Value emitMemoryCall(CallExpr *e);
  Value emitConversionCall(CallExpr *e);
  Value emitIndex(IndexExpr *e);
  Value emitUnaryMath(Builtin bi, Value x, Location l);
  void offsetsOf(IndexExpr *idx, llvm::SmallVectorImpl<Value> &offs);

  // Pinned layouts (layout(x, L)).
  Value emitLayout(CallExpr *e);
  /// \p v with the layout encoding of \p like (a tile of the same shape):
  /// a tile.convert_layout when the encodings differ.
  Value withEncodingOf(Value v, Type like, Location l);
  /// Gives every tile in \p values the encoding of the first encoded one, so
  /// that ops whose operands must have one type (arith, select, yields)
  /// accept values that come from layout().
  void matchEncodings(llvm::MutableArrayRef<Value> values, Location l);

  // Statements.
  bool emitBlock(BlockStmt *blk);
  bool emitStmt(Stmt *s);
  bool emitFor(ForStmt *s);
  bool emitIf(IfStmt *s);

  bool fail(llvm::SMLoc l, const llvm::Twine &msg) {
    diags.error(l, msg);
    failed = true;
    return false;
  }
  /// Reports a builtin that reached an emitter not written for it (a bug
  /// in the dispatch of emitCall); a null Value.
  Value unhandledBuiltin(CallExpr *e) {
    fail(e->loc, "internal error: unhandled builtin '" + e->callee + "'");
    return Value();
  }

  mlir::MLIRContext &ctx;
  llvm::SourceMgr &sm;
  DiagEngine &diags;
  mlir::OpBuilder b;
  llvm::DenseMap<const Decl *, Value> vals;
  llvm::DenseMap<const Decl *, std::pair<Value, ElemType>> views;
  bool failed = false;
};

} // namespace gen
} // namespace frontend
} // namespace tile

#endif // TILE_LIB_FRONTEND_MLIRGENIMPL_H
