//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
//
// Part of tilec. Verifiers and folders of the tile ops.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace ::tile;

#include "tile/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints a shape as 64x32 (or "scalar" for rank 0).
static std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

static Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto shaped = dyn_cast<RankedTensorType>(type))
    return shaped.getShape();
  return {};
}

/// Every register tile has a static, positive shape and a tile element type.
static LogicalResult verifyTile(Operation *op, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (int64_t dim : tensor.getShape())
    if (ShapedType::isDynamic(dim) || dim <= 0)
      return op->emitOpError() << what << " must have a static, positive "
                               << "shape, got " << type;
  if (!isTileElementType(tensor.getElementType()))
    return op->emitOpError()
           << what << " has element type " << tensor.getElementType()
           << ", which is not a tile element type";
  return success();
}

/// A padding or constant attribute must carry the element type.
static LogicalResult verifyPadding(Operation *op, TypedAttr padding,
                                   Type elementType) {
  if (!padding)
    return success();
  if (padding.getType() != elementType)
    return op->emitOpError() << "padding value " << padding
                             << " must have the element type " << elementType;
  if (!isa<IntegerAttr, FloatAttr>(padding))
    return op->emitOpError() << "padding must be an integer or float constant";
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  ViewType view = getResult().getType();
  if (getPtr().getType().getElementType() != view.getElementType())
    return emitOpError() << "pointer element type "
                         << getPtr().getType().getElementType()
                         << " differs from the view element type "
                         << view.getElementType();
  if (getDims().size() != view.getNumDynamicDims())
    return emitOpError() << "expects one dimension operand per '?' of the "
                            "result type ("
                         << view.getNumDynamicDims() << "), got "
                         << getDims().size();
  if (!getStrides().empty() && getStrides().size() != view.getRank())
    return emitOpError() << "expects no strides or one per dimension ("
                         << view.getRank() << "), got " << getStrides().size();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp / AtomicAddOp
//===----------------------------------------------------------------------===//

/// Common checks for a rectangular access of `tile` into `view` at `offsets`.
static LogicalResult verifyGlobalAccess(Operation *op, ViewType view,
                                        size_t numOffsets,
                                        RankedTensorType tile,
                                        StringRef tileName) {
  if (numOffsets != view.getRank())
    return op->emitOpError() << "expects one offset per view dimension ("
                             << view.getRank() << "), got " << numOffsets;
  if (tile.getRank() != view.getRank())
    return op->emitOpError()
           << tileName << " rank " << tile.getRank()
           << " differs from the view rank " << view.getRank()
           << " (load size-1 dimensions and reshape to drop them)";
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << tileName << " element type " << tile.getElementType()
           << " differs from the view element type " << view.getElementType();
  return verifyTile(op, tile, tileName);
}

LogicalResult LoadOp::verify() {
  auto tile = getResult().getType();
  if (failed(verifyGlobalAccess(*this, getView().getType(), getOffsets().size(),
                                tile, "result")))
    return failure();
  return verifyPadding(*this, getPaddingAttr(), tile.getElementType());
}

LogicalResult StoreOp::verify() {
  return verifyGlobalAccess(*this, getView().getType(), getOffsets().size(),
                            getValue().getType(), "stored tile");
}

LogicalResult AtomicAddOp::verify() {
  if (failed(verifyGlobalAccess(*this, getView().getType(), getOffsets().size(),
                                getValue().getType(), "added tile")))
    return failure();
  Type elem = getValue().getType().getElementType();
  if (elem.isF32() || elem.isF16() || elem.isBF16() || elem.isInteger(32))
    return success();
  return emitOpError() << "adds f32, f16, bf16 or i32 elements, not " << elem;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// A shared access indexes every buffer dimension; the tile covers the
/// trailing dimensions and must fit in them.
static LogicalResult verifySharedAccess(Operation *op, SharedType buffer,
                                        size_t numIndices,
                                        ArrayRef<int64_t> tileShape,
                                        Type tileElement, StringRef tileName) {
  if (numIndices != buffer.getRank())
    return op->emitOpError() << "expects one index per buffer dimension ("
                             << buffer.getRank() << "), got " << numIndices;
  if (tileShape.size() > buffer.getRank())
    return op->emitOpError() << tileName << " rank " << tileShape.size()
                             << " exceeds the buffer rank " << buffer.getRank();
  if (tileElement != buffer.getElementType())
    return op->emitOpError() << tileName << " element type " << tileElement
                             << " differs from the buffer element type "
                             << buffer.getElementType();
  ArrayRef<int64_t> trailing = buffer.getShape().take_back(tileShape.size());
  for (auto [tileDim, bufDim] : llvm::zip(tileShape, trailing))
    if (tileDim > bufDim)
      return op->emitOpError()
             << tileName << " shape " << shapeStr(tileShape)
             << " does not fit in the trailing buffer dimensions "
             << shapeStr(trailing);
  return success();
}

LogicalResult SharedLoadOp::verify() {
  auto tile = getResult().getType();
  if (failed(verifyTile(*this, tile, "result")))
    return failure();
  return verifySharedAccess(*this, getBuffer().getType(), getIndices().size(),
                            tile.getShape(), tile.getElementType(), "result");
}

LogicalResult SharedStoreOp::verify() {
  auto tile = getValue().getType();
  if (failed(verifyTile(*this, tile, "stored tile")))
    return failure();
  return verifySharedAccess(*this, getBuffer().getType(), getIndices().size(),
                            tile.getShape(), tile.getElementType(),
                            "stored tile");
}

/// mbarriers live in a rank-1 shared buffer of i64, one per element.
static LogicalResult verifyBarrierBuffer(Operation *op, Value barriers) {
  auto type = cast<SharedType>(barriers.getType());
  if (type.getRank() != 1 || !type.getElementType().isInteger(64))
    return op->emitOpError("expects mbarriers in a rank-1 buffer of i64, got ")
           << type;
  return success();
}

LogicalResult CopyAsyncOp::verify() {
  ViewType src = getSrc().getType();
  SharedType dst = getDst().getType();
  if (getSrcOffsets().size() != src.getRank())
    return emitOpError() << "expects one source offset per view dimension ("
                         << src.getRank() << "), got "
                         << getSrcOffsets().size();
  if (dst.getRank() < src.getRank())
    return emitOpError() << "destination rank " << dst.getRank()
                         << " is lower than the source rank " << src.getRank();
  if (Value barrier = getBarrier()) {
    if (failed(verifyBarrierBuffer(*this, barrier)))
      return failure();
    if (!getBarrierIndex())
      return emitOpError("expects an index into its mbarrier buffer");
  }
  return verifySharedAccess(*this, dst, getDstIndices().size(),
                            dst.getShape().take_back(src.getRank()),
                            src.getElementType(), "copied tile");
}

LogicalResult PrefetchOp::verify() {
  ViewType src = getSrc().getType();
  if (getOffsets().size() != src.getRank())
    return emitOpError() << "expects one offset per view dimension ("
                         << src.getRank() << "), got " << getOffsets().size();
  if (getShape().size() != src.getRank())
    return emitOpError() << "expects one extent per view dimension ("
                         << src.getRank() << "), got " << getShape().size();
  if (llvm::any_of(getShape(), [](int64_t e) { return e <= 0; }))
    return emitOpError("expects positive extents");
  return success();
}

LogicalResult WaitPrecedingGridsOp::verify() {
  auto func = dyn_cast<func::FuncOp>((*this)->getParentOp());
  if (!func || !func->hasAttr(TileDialect::kKernelAttr))
    return emitOpError("must be directly in the body of a tile.kernel");
  return success();
}

LogicalResult MbarrierInitOp::verify() {
  return verifyBarrierBuffer(*this, getBarriers());
}
LogicalResult MbarrierWaitOp::verify() {
  return verifyBarrierBuffer(*this, getBarriers());
}
LogicalResult MbarrierInvalOp::verify() {
  return verifyBarrierBuffer(*this, getBarriers());
}
LogicalResult MbarrierArriveOp::verify() {
  return verifyBarrierBuffer(*this, getBarriers());
}

/// Whether \p count is a register count setmaxnreg takes.
static bool isRegisterCount(int64_t count) {
  return count >= 24 && count <= 256 && count % 8 == 0;
}

LogicalResult WarpSpecializeOp::verify() {
  auto func = dyn_cast<func::FuncOp>((*this)->getParentOp());
  if (!func || !func->hasAttr(TileDialect::kKernelAttr))
    return emitOpError("must be directly in the body of a tile.kernel");
  Operation *next = (*this)->getNextNode();
  if (!next || !next->hasTrait<OpTrait::IsTerminator>())
    return emitOpError("must be the last op of its kernel before the return");
  auto warps = func->getAttrOfType<IntegerAttr>(TileDialect::kWarpsAttr);
  auto producers =
      func->getAttrOfType<IntegerAttr>(TileDialect::kProducerWarpsAttr);
  int64_t p = getProducerWarps();
  if (!producers || producers.getInt() != p)
    return emitOpError("expects its kernel's 'tile.producer_warps' to be ")
           << p;
  if (p % 4 != 0 || !warps || warps.getInt() % 4 != 0)
    return emitOpError("needs whole warpgroups: producer warps (")
           << p << ") and the kernel's tile.warps ("
           << (warps ? warps.getInt() : 0) << ") multiples of 4";
  int64_t rp = getProducerRegisters(), rc = getConsumerRegisters();
  if (!isRegisterCount(rp) || !isRegisterCount(rc))
    return emitOpError("register counts must be multiples of 8 in "
                       "[24, 256], got ")
           << rp << " and " << rc;
  int64_t total = p * 32 * rp + warps.getInt() * 32 * rc;
  if (total > 65536)
    return emitOpError("asks for ")
           << total << " registers, more than the 65536 of a block";
  return success();
}

// SharedAccessOpInterface.
Value SharedLoadOp::getSharedBuffer() { return getBuffer(); }
OperandRange SharedLoadOp::getSharedIndices() { return getIndices(); }
unsigned SharedLoadOp::getAccessRank() { return getType().getRank(); }
bool SharedLoadOp::isSharedWrite() { return false; }
bool SharedLoadOp::isAsyncAccess() { return false; }
Value SharedLoadOp::getRegisterTile() { return getResult(); }

Value SharedStoreOp::getSharedBuffer() { return getBuffer(); }
OperandRange SharedStoreOp::getSharedIndices() { return getIndices(); }
unsigned SharedStoreOp::getAccessRank() {
  return getValue().getType().getRank();
}
bool SharedStoreOp::isSharedWrite() { return true; }
bool SharedStoreOp::isAsyncAccess() { return false; }
Value SharedStoreOp::getRegisterTile() { return getValue(); }

Value CopyAsyncOp::getSharedBuffer() { return getDst(); }
OperandRange CopyAsyncOp::getSharedIndices() { return getDstIndices(); }
unsigned CopyAsyncOp::getAccessRank() { return getSrc().getType().getRank(); }
bool CopyAsyncOp::isSharedWrite() { return true; }
bool CopyAsyncOp::isAsyncAccess() { return true; }
Value CopyAsyncOp::getRegisterTile() { return Value(); }

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

namespace {

/// `x + tile.dot(a, b, 0)` (either order; the product used only there) ->
/// `tile.dot(a, b, x)`: the order of a dot's additions is unspecified, so
/// the accumulator may start at x instead of 0 (see DotOp's description).
template <typename AddOp>
struct FoldAddIntoDotAccumulator : public OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - i);
      if (!dot || !dot->hasOneUse() || other.getType() != dot.getType() ||
          !(matchPattern(dot.getAcc(), m_AnyZeroFloat()) ||
            matchPattern(dot.getAcc(), m_Zero())))
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getType(), dot.getA(),
                                         dot.getB(), other);
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};

} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<FoldAddIntoDotAccumulator<arith::AddFOp>,
               FoldAddIntoDotAccumulator<arith::AddIOp>>(context);
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  int64_t rank = a.getRank();
  if ((rank != 2 && rank != 3) || b.getRank() != rank || acc.getRank() != rank)
    return emitOpError() << "expects 2-D operands (or 3-D ones: a batch), got "
                         << shapeStr(a.getShape()) << ", "
                         << shapeStr(b.getShape()) << " and "
                         << shapeStr(acc.getShape());
  if (failed(verifyTile(*this, a, "a")) || failed(verifyTile(*this, b, "b")) ||
      failed(verifyTile(*this, acc, "acc")))
    return failure();
  if (rank == 3 && (a.getDimSize(0) != b.getDimSize(0) ||
                    a.getDimSize(0) != acc.getDimSize(0)))
    return emitOpError() << "batch dimensions differ: "
                         << shapeStr(a.getShape()) << ", "
                         << shapeStr(b.getShape()) << " and "
                         << shapeStr(acc.getShape());
  if (a.getDimSize(rank - 1) != b.getDimSize(rank - 2))
    return emitOpError() << "inner dimensions differ: a is "
                         << shapeStr(a.getShape()) << " and b is "
                         << shapeStr(b.getShape());
  if (acc.getDimSize(rank - 2) != a.getDimSize(rank - 2) ||
      acc.getDimSize(rank - 1) != b.getDimSize(rank - 1))
    return emitOpError() << "accumulator is " << shapeStr(acc.getShape())
                         << " but a x b is " << a.getDimSize(rank - 2) << "x"
                         << b.getDimSize(rank - 1);
  if (getResult().getType() != acc)
    return emitOpError() << "result type " << getResult().getType()
                         << " differs from the accumulator type " << acc;
  Type elem = a.getElementType();
  if (elem != b.getElementType())
    return emitOpError() << "operand element types differ: " << elem << " and "
                         << b.getElementType();
  Type accElem = acc.getElementType();
  if (elem.isInteger(8)) {
    if (!accElem.isInteger(32))
      return emitOpError() << "i8 operands need an i32 accumulator, got "
                           << accElem;
    return success();
  }
  bool floatOperand = elem.isF16() || elem.isBF16() || elem.isF32() ||
                      (isa<mlir::FloatType>(elem) &&
                       cast<mlir::FloatType>(elem).getWidth() == 8);
  if (!floatOperand)
    return emitOpError() << "operand element type " << elem
                         << " is not supported by tile.dot (f16, bf16, f32, "
                            "8-bit floats or i8; cast low-bit types first)";
  if (!accElem.isF32() && !(accElem.isF16() && elem.isF16()))
    return emitOpError() << "accumulator element type must be f32 (or f16 "
                            "for f16 operands), got "
                         << accElem;
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

/// A small-float code type a block-scaled dot takes: an MLIR float of at
/// most 8 bits other than e8m0, or a !tile.float.
static bool isScaledDotCode(Type t) {
  if (isa<tile::SmallFloatType>(t))
    return true;
  auto f = dyn_cast<mlir::FloatType>(t);
  return f && f.getWidth() <= 8 && !isa<Float8E8M0FNUType>(t);
}

LogicalResult DotScaledOp::verify() {
  auto a = getA().getType(), sa = getAScale().getType(), b = getB().getType(),
       sb = getBScale().getType(), acc = getAcc().getType();
  for (auto [t, what] : {std::pair{a, "a"},
                         {sa, "a_scale"},
                         {b, "b"},
                         {sb, "b_scale"},
                         {acc, "acc"}}) {
    if (t.getRank() != 2)
      return emitOpError() << "expects 2-D operands, " << what << " is "
                           << shapeStr(t.getShape());
    if (failed(verifyTile(*this, t, what)))
      return failure();
  }
  for (auto t : {a, b})
    if (!isScaledDotCode(t.getElementType()))
      return emitOpError() << "operand element type " << t.getElementType()
                           << " is not a small-float code type";
  for (auto t : {sa, sb})
    if (!isa<Float8E8M0FNUType, Float8E4M3FNType>(t.getElementType()))
      return emitOpError() << "scale element type " << t.getElementType()
                           << " is neither e8m0 nor f8E4M3FN";
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError() << "inner dimensions differ: a is "
                         << shapeStr(a.getShape()) << " and b is "
                         << shapeStr(b.getShape());
  int64_t blocksA = sa.getDimSize(1), blocksB = sb.getDimSize(0);
  if (sa.getDimSize(0) != m || blocksA <= 0 || k % blocksA != 0)
    return emitOpError() << "a_scale is " << shapeStr(sa.getShape())
                         << ", expected " << m << "x(a divisor of " << k << ")";
  if (sb.getDimSize(1) != n || blocksB <= 0 || k % blocksB != 0)
    return emitOpError() << "b_scale is " << shapeStr(sb.getShape())
                         << ", expected (a divisor of " << k << ")x" << n;
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n ||
      !acc.getElementType().isF32())
    return emitOpError() << "accumulator must be f32 " << m << "x" << n
                         << ", got " << acc;
  if (getResult().getType() != acc)
    return emitOpError() << "result type " << getResult().getType()
                         << " differs from the accumulator type " << acc;
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  if (failed(verifyTile(*this, src, "source")))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a "
                         << src.getRank() << "-D tile";
  Type elem = src.getElementType();
  if (!elem.isIntOrFloat() || isSmallFloatType(elem))
    return emitOpError() << "cannot reduce elements of type " << elem
                         << " (cast small floats to f16/f32 first)";
  if (getIsUnsigned() && !isa<IntegerType>(elem))
    return emitOpError() << "'is_unsigned' only applies to integer tiles";
  Type result = getResult().getType();
  if (src.getRank() == 1) {
    if (result != elem)
      return emitOpError() << "reducing a 1-D tile gives a scalar of type "
                           << elem << ", not " << result;
    return success();
  }
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + axis);
  auto resultTensor = dyn_cast<RankedTensorType>(result);
  if (!resultTensor || resultTensor.getShape() != ArrayRef(expected) ||
      resultTensor.getElementType() != elem)
    return emitOpError() << "result must be a " << shapeStr(expected)
                         << " tile of " << elem << ", got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// Shape ops keep the element type.
static LogicalResult verifySameElement(Operation *op, Type src, Type result) {
  if (elementTypeOf(src) != elementTypeOf(result))
    return op->emitOpError()
           << "element type changes from " << elementTypeOf(src) << " to "
           << elementTypeOf(result);
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (failed(verifyTile(*this, result, "result")) ||
      failed(verifySameElement(*this, src, result)))
    return failure();
  if (src.getRank() != result.getRank())
    return emitOpError() << "cannot broadcast a " << src.getRank()
                         << "-D tile to rank " << result.getRank()
                         << " (insert dimensions with tile.expand_dims)";
  for (auto [i, dims] :
       llvm::enumerate(llvm::zip(src.getShape(), result.getShape()))) {
    auto [from, to] = dims;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << i << " of size " << from
                           << " cannot broadcast to " << to
                           << " (only size-1 dimensions expand)";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult SplatOp::verify() {
  auto result = getResult().getType();
  if (failed(verifyTile(*this, result, "result")))
    return failure();
  if (getSrc().getType() != result.getElementType())
    return emitOpError() << "scalar type " << getSrc().getType()
                         << " differs from the tile element type "
                         << result.getElementType();
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getResult().getType(), value);
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (failed(verifySameElement(*this, src, result)))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a "
                         << src.getRank() << "-D tile (0.." << src.getRank()
                         << ")";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (result.getShape() != ArrayRef(expected))
    return emitOpError() << "result shape must be " << shapeStr(expected)
                         << ", got " << shapeStr(result.getShape());
  return success();
}

SmallVector<int32_t> TransOp::getPermutation() {
  if (auto perm = getPermAttr())
    return SmallVector<int32_t>(perm.asArrayRef());
  int32_t rank = getSrc().getType().getRank();
  SmallVector<int32_t> perm;
  for (int32_t i = rank - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (failed(verifySameElement(*this, src, result)))
    return failure();
  SmallVector<int32_t> perm = getPermutation();
  if (perm.size() != static_cast<size_t>(src.getRank()))
    return emitOpError() << "permutation has " << perm.size()
                         << " entries for a " << src.getRank() << "-D tile";
  SmallVector<bool> seen(perm.size(), false);
  for (int32_t p : perm) {
    if (p < 0 || p >= src.getRank() || seen[p])
      return emitOpError() << "perm is not a permutation of 0.."
                           << src.getRank() - 1;
    seen[p] = true;
  }
  SmallVector<int64_t> expected;
  for (int32_t p : perm)
    expected.push_back(src.getDimSize(p));
  if (result.getShape() != ArrayRef(expected))
    return emitOpError() << "result shape must be " << shapeStr(expected)
                         << ", got " << shapeStr(result.getShape());
  return success();
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  SmallVector<int32_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int32_t>(0, perm.size())))
    return getSrc();
  // trans(trans(x)) folds to x when the permutations compose to identity.
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    SmallVector<int32_t> innerPerm = inner.getPermutation();
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= innerPerm[p] == static_cast<int32_t>(i);
    if (identity && inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (failed(verifyTile(*this, result, "result")) ||
      failed(verifySameElement(*this, src, result)))
    return failure();
  if (src.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << shapeStr(src.getShape())
                         << " (" << src.getNumElements() << " elements) to "
                         << shapeStr(result.getShape()) << " ("
                         << result.getNumElements() << " elements)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult IotaOp::verify() {
  auto result = getResult().getType();
  if (result.getRank() != 1 || !result.getElementType().isInteger(32))
    return emitOpError() << "result must be a 1-D tile of i32, got " << result;
  return verifyTile(*this, result, "result");
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// Scalars stay scalars and tiles keep their shape.
static LogicalResult verifyElementwiseShapes(Operation *op, Type src,
                                             Type result) {
  bool srcTile = isa<RankedTensorType>(src);
  bool resultTile = isa<RankedTensorType>(result);
  if (srcTile != resultTile)
    return op->emitOpError() << "source and result must both be tiles or "
                                "both be scalars, got "
                             << src << " and " << result;
  if (srcTile && shapeOf(src) != shapeOf(result))
    return op->emitOpError() << "shape changes from " << shapeStr(shapeOf(src))
                             << " to " << shapeStr(shapeOf(result));
  return verifyTile(op, result, "result");
}

LogicalResult CastOp::verify() {
  Type src = getSrc().getType(), result = getResult().getType();
  if (failed(verifyElementwiseShapes(*this, src, result)))
    return failure();
  if (getSrcUnsigned() && !isa<IntegerType>(elementTypeOf(src)))
    return emitOpError() << "'src_unsigned' needs an integer source, got "
                         << elementTypeOf(src);
  if (getDstUnsigned() && !isa<IntegerType>(elementTypeOf(result)))
    return emitOpError() << "'dst_unsigned' needs an integer result, got "
                         << elementTypeOf(result);
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  // A cast to the same type is the identity when both sides are read alike.
  if (getSrc().getType() == getResult().getType() &&
      getSrcUnsigned() == getDstUnsigned())
    return getSrc();
  return {};
}

LogicalResult BitcastOp::verify() {
  Type src = getSrc().getType(), result = getResult().getType();
  unsigned srcBits = getElementBitWidth(elementTypeOf(src));
  unsigned dstBits = getElementBitWidth(elementTypeOf(result));
  if (failed(verifyTile(*this, result, "result")))
    return failure();
  bool srcTile = isa<RankedTensorType>(src);
  if (srcTile != isa<RankedTensorType>(result))
    return emitOpError() << "source and result must both be tiles or both be "
                            "scalars";
  if (!srcTile) {
    if (srcBits != dstBits)
      return emitOpError() << "bit count does not match: " << src << " has "
                           << srcBits << " bits, " << result << " has "
                           << dstBits << " bits";
    return success();
  }
  ArrayRef<int64_t> from = shapeOf(src), to = shapeOf(result);
  if (from.size() != to.size() || from.drop_back() != to.drop_back())
    return emitOpError() << "only the last dimension may change, got "
                         << shapeStr(from) << " to " << shapeStr(to);
  if (from.back() * srcBits != to.back() * dstBits)
    return emitOpError() << "bit count does not match: a row of " << from.back()
                         << " x " << srcBits << " bits is "
                         << from.back() * srcBits << " bits, a row of "
                         << to.back() << " x " << dstBits << " bits is "
                         << to.back() * dstBits << " bits";
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<BitcastOp>()) {
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (src.getShape() != result.getShape() ||
      src.getElementType() != result.getElementType())
    return emitOpError() << "may change only the layout, not " << src << " to "
                         << result;
  return verifyTile(*this, result, "result");
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}
