//===- ExpandScaledDot.cpp - tile.dot_scaled as casts and tile.dot --------===//
//
// Part of tilec. Implements tile-expand-scaled-dot (see Passes.td and
// docs/Passes.md): a block-scaled product becomes
//
//   a' = cast(bf16, a) * reshape(broadcast(expand_dims(cast(bf16, sa), 2)))
//   b' = cast(bf16, b) * reshape(broadcast(expand_dims(cast(bf16, sb), 1)))
//   tile.dot a', b', acc
//
// so every target runs it with the casts, broadcasts and dots it already
// has. Each bf16 product is exact (at most 6 significant bits), so the only
// rounding is the dot's f32 accumulation, as in a block-scaled MMA.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tile {
#define GEN_PASS_DEF_TILEEXPANDSCALEDDOT
#include "tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {

/// cast(bf16, codes) * scales widened to one per element. \p blockAxis is
/// the axis of \p scales that counts blocks (1 for a's [M, K / B] scales,
/// 0 for b's [K / B, N]).
Value scaleOperand(OpBuilder &b, Location loc, Value codes, Value scales,
                   int32_t blockAxis) {
  auto codeType = cast<RankedTensorType>(codes.getType());
  auto scaleType = cast<RankedTensorType>(scales.getType());
  Type bf16 = b.getBF16Type();
  ArrayRef<int64_t> shape = codeType.getShape();
  int64_t blocks = scaleType.getDimSize(blockAxis);
  int64_t block = shape[blockAxis] / blocks;

  Value x =
      tile::CastOp::create(b, loc, RankedTensorType::get(shape, bf16), codes);
  Value s = tile::CastOp::create(
      b, loc, RankedTensorType::get(scaleType.getShape(), bf16), scales);
  if (block != 1) {
    // [M, blocks] -> [M, blocks, 1] -> [M, blocks, block] -> [M, K]
    // [blocks, N] -> [blocks, 1, N] -> [blocks, block, N] -> [K, N]
    SmallVector<int64_t, 3> expanded(scaleType.getShape());
    expanded.insert(expanded.begin() + blockAxis + 1, 1);
    s = tile::ExpandDimsOp::create(b, loc,
                                   RankedTensorType::get(expanded, bf16), s,
                                   b.getI32IntegerAttr(blockAxis + 1));
    expanded[blockAxis + 1] = block;
    s = tile::BroadcastOp::create(b, loc, RankedTensorType::get(expanded, bf16),
                                  s);
    s = tile::ReshapeOp::create(b, loc, RankedTensorType::get(shape, bf16), s);
  }
  return arith::MulFOp::create(b, loc, x, s);
}

LogicalResult expand(tile::DotScaledOp op) {
  for (Value v : op->getOperands())
    if (cast<RankedTensorType>(v.getType()).getEncoding() && v != op.getAcc())
      return op.emitOpError()
             << "operands and scales of a block-scaled dot cannot carry a "
                "layout; pin the result instead";
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value a = scaleOperand(b, loc, op.getA(), op.getAScale(), 1);
  Value w = scaleOperand(b, loc, op.getB(), op.getBScale(), 0);
  Value dot = tile::DotOp::create(b, loc, op.getType(), a, w, op.getAcc());
  op.replaceAllUsesWith(dot);
  op.erase();
  return success();
}

struct ExpandScaledDotPass
    : public tile::impl::TileExpandScaledDotBase<ExpandScaledDotPass> {
  void runOnOperation() override {
    SmallVector<tile::DotScaledOp> ops;
    getOperation().walk([&](tile::DotScaledOp op) { ops.push_back(op); });
    for (tile::DotScaledOp op : ops)
      if (failed(expand(op)))
        return signalPassFailure();
  }
};

} // namespace
