//===- LowerPrefetch.cpp - L2 prefetches and the dependent-launch wait ----===//
//
// Part of tilec. tile.prefetch and tile.wait_preceding_grids for the generic
// GPU lowering (tile-prefetch-prologue puts them at a dependent launch's
// start). A prefetch spreads its slice's cache lines over the program's
// threads: each row of the slice (its last dimension, contiguous) is
// fetched from its first byte in steps of 128 bytes, line p of the slice
// by thread p mod threads, each under its own bounds check, so no address
// outside the view is touched (the emulators check it). Targets without
// L2 prefetches (TargetLowering::hasL2Prefetch) drop it, and targets
// without dependent launches drop the wait.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tile::gpu {

namespace {
/// The cache line prefetched at a time (NVIDIA L2 lines are 128 bytes,
/// fetched as 32-byte sectors).
constexpr int64_t kLineBytes = 128;
} // namespace

/// The coordinates of line \p p (i32) of a prefetch of \p shape at
/// \p offsets: its row decomposed over the leading extents, its column
/// \p elementsPerLine elements per line into the row.
static SmallVector<Value>
lineCoordinates(OpBuilder &b, Location loc, KernelLowering &kl, Value p,
                ArrayRef<int64_t> shape, ArrayRef<Value> offsets,
                int64_t linesPerRow, int64_t elementsPerLine) {
  SmallVector<Value> coords(shape.size());
  Value line = arith::RemUIOp::create(b, loc, p, kl.i32(linesPerRow));
  Value row = arith::DivUIOp::create(b, loc, p, kl.i32(linesPerRow));
  coords.back() = arith::AddIOp::create(
      b, loc, offsets.back(),
      arith::MulIOp::create(b, loc, line, kl.i32(elementsPerLine)));
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) {
    Value c =
        d == 0
            ? row
            : arith::RemUIOp::create(b, loc, row, kl.i32(shape[d])).getResult();
    if (d > 0)
      row = arith::DivUIOp::create(b, loc, row, kl.i32(shape[d]));
    coords[d] = arith::AddIOp::create(b, loc, offsets[d], c);
  }
  return coords;
}

LogicalResult KernelLowering::lowerPrefetch(tile::PrefetchOp op) {
  ViewValue *view = lookupView(op.getSrc());
  if (!view)
    return op.emitOpError("source view was not lowered");
  // A hint: nothing where the target has no prefetch or the rows are not
  // contiguous.
  if (!tl.hasL2Prefetch() || !view->contiguous)
    return success();
  ArrayRef<int64_t> shape = op.getShape();
  unsigned bits = tile::getElementBitWidth(view->elementType);
  int64_t rowBytes = (shape.back() * bits + 7) / 8;
  int64_t linesPerRow = (rowBytes + kLineBytes - 1) / kLineBytes;
  int64_t elementsPerLine = kLineBytes * 8 / bits;
  int64_t lines = linesPerRow;
  for (int64_t e : shape.drop_back())
    lines *= e;
  // Every thread of the program, a producer warpgroup's included (the
  // prefetches precede the split).
  int64_t warps = kernel->getAttrOfType<IntegerAttr>("tile.warps").getInt();
  if (auto producers = kernel->getAttrOfType<IntegerAttr>(
          tile::TileDialect::kProducerWarpsAttr))
    warps += producers.getInt();
  int64_t threads = warps * warpSize();
  SmallVector<Value> offsets;
  for (Value o : op.getOffsets())
    offsets.push_back(values[o][0]);

  OpBuilder::InsertionGuard guard(b);
  if (Value pred = op.getPred()) {
    auto predicated =
        scf::IfOp::create(b, loc, values[pred][0], /*withElse=*/false);
    b.setInsertionPointToStart(&predicated.getThenRegion().front());
  }
  for (int64_t round = 0; round * threads < lines; ++round) {
    OpBuilder::InsertionGuard roundGuard(b);
    Value p = arith::AddIOp::create(b, loc, tid, i32(round * threads));
    SmallVector<Value> coords = lineCoordinates(
        b, loc, *this, p, shape, offsets, linesPerRow, elementsPerLine);
    Value ok = inBounds(b, loc, coords, view->dims);
    if ((round + 1) * threads > lines)
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                i32(lines)));
    auto inside = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    // Bytes from the view's start: elements x bits / 8, rounded down to
    // the byte that holds the first element of the line.
    Value bitIndex = arith::MulIOp::create(
        b, loc, linearIndexNSW(b, loc, *view, coords), i64(bits));
    Value byte = arith::ShRUIOp::create(b, loc, bitIndex, i64(3));
    tl.prefetchL2(b, loc, gep(view->ptr, byte));
  }
  return success();
}

LogicalResult
KernelLowering::lowerWaitPrecedingGrids(tile::WaitPrecedingGridsOp op) {
  if (tl.getTargetInfo().hasDependentLaunch() &&
      module->hasAttr(tile::TileDialect::kDependentLaunchAttr))
    tl.waitForPrecedingGrids(b, loc);
  return success();
}

void populatePrefetchPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerPrefetch);
  addLowering(patterns, kl, &KernelLowering::lowerWaitPrecedingGrids);
}

} // namespace tile::gpu
