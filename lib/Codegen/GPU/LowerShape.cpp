//===- LowerShape.cpp - Broadcasts, reshapes, transposes, conversions -----===//
//
// Part of tilec. The shape ops of the generic GPU lowering: registers are
// renamed when every thread keeps its elements, otherwise the tile goes
// through shared memory (convert_layout: through the conversion plans of
// LowerReduce.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

/// Row-major strides of a shape.
static SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

LogicalResult KernelLowering::lowerShapeOp(Operation *op) {
  Value src = op->getOperand(0);
  Value res = op->getResult(0);
  auto srcType = cast<RankedTensorType>(src.getType());
  auto resType = cast<RankedTensorType>(res.getType());
  FailureOr<DistributedLayout> srcLayout = layoutOf(op, srcType);
  FailureOr<DistributedLayout> dstLayout = layoutOf(op, resType);
  if (failed(srcLayout) || failed(dstLayout))
    return failure();
  ArrayRef<int64_t> srcShape = srcType.getShape();
  ArrayRef<int64_t> dstShape = resType.getShape();
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(srcShape);

  // dst coordinate -> src coordinate, and the dst-shaped view of the
  // row-major src buffer used by the shared-memory fallback.
  std::function<SmallVector<int64_t, 4>(ArrayRef<int64_t>)> coordMap;
  SmallVector<int64_t, 4> viewStrides;
  if (isa<tile::BroadcastOp>(op)) {
    coordMap = [=](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.begin(), c.end());
      for (unsigned d = 0; d < s.size(); ++d)
        if (srcShape[d] == 1)
          s[d] = 0;
      return s;
    };
    for (unsigned d = 0; d < dstShape.size(); ++d)
      viewStrides.push_back(srcShape[d] == 1 ? 0 : srcStrides[d]);
  } else if (auto trans = dyn_cast<tile::TransOp>(op)) {
    SmallVector<int32_t> perm = trans.getPermutation();
    coordMap = [=](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.size());
      for (unsigned i = 0; i < c.size(); ++i)
        s[perm[i]] = c[i];
      return s;
    };
    for (unsigned i = 0; i < dstShape.size(); ++i)
      viewStrides.push_back(srcStrides[perm[i]]);
  } else {
    // expand_dims, reshape and convert_layout keep the row-major order.
    SmallVector<int64_t, 4> dstStrides = rowMajorStrides(dstShape);
    coordMap = [=](ArrayRef<int64_t> c) {
      int64_t linear = 0;
      for (unsigned d = 0; d < c.size(); ++d)
        linear += c[d] * dstStrides[d];
      SmallVector<int64_t, 4> s(srcShape.size());
      for (unsigned d = 0; d < srcShape.size(); ++d)
        s[d] = srcShape.empty() ? 0 : (linear / srcStrides[d]) % srcShape[d];
      return s;
    };
    viewStrides = dstStrides;
  }

  const Regs &in = values[src];
  if (std::optional<SmallVector<int64_t>> remap =
          staticRemap(*srcLayout, *dstLayout, coordMap)) {
    Regs out;
    for (int64_t s : *remap)
      out.push_back(in[s]);
    values[res] = out;
    return success();
  }
  if (isa<tile::ConvertLayoutOp>(op)) {
    FailureOr<Regs> out =
        convertLayout(op, in, *srcLayout, *dstLayout, srcType.getElementType());
    if (failed(out))
      return failure();
    values[res] = *out;
    return success();
  }
  // Shared-memory round trip: store row-major, read through a strided view.
  Type elem = srcType.getElementType();
  int64_t bits = tile::getElementBitWidth(elem);
  int64_t bytes = (srcType.getNumElements() * bits + 7) / 8;
  Value base = scratch(op, bytes);
  SharedLayout store = SharedLayout::rowMajor(srcShape);
  auto view = SharedLayout::get(dstShape, viewStrides);
  if (!view)
    return op->emitOpError(llvm::toString(view.takeError()));
  if (failed(storeShared(op, base, store, Value(), 0, *srcLayout, elem, in,
                         /*onlyFirstHolder=*/true)))
    return failure();
  tl.barrier(b, loc);
  FailureOr<Regs> out =
      loadShared(op, base, *view, Value(), 0, *dstLayout, elem);
  if (failed(out))
    return failure();
  tl.barrier(b, loc);
  values[res] = *out;
  return success();
}

void populateShapePatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  using namespace ::tile;
  addLowering<BroadcastOp>(patterns, kl, &KernelLowering::lowerShapeOp);
  addLowering<ExpandDimsOp>(patterns, kl, &KernelLowering::lowerShapeOp);
  addLowering<ReshapeOp>(patterns, kl, &KernelLowering::lowerShapeOp);
  addLowering<TransOp>(patterns, kl, &KernelLowering::lowerShapeOp);
  addLowering<ConvertLayoutOp>(patterns, kl, &KernelLowering::lowerShapeOp);
}

} // namespace tile::gpu
