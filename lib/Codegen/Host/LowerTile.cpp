//===- LowerTile.cpp - tile-host-lower-tile -------------------------------===//
//
// Part of tilec. Lowers the tile dialect for the host: register tiles become
// builtin tensors with value semantics (linalg / tensor ops, bufferized
// later by one-shot bufferization), global memory is reached through
// !llvm.ptr with bounds-checked element loads and stores, shared memory
// becomes per-program memrefs. Small-float elements are stored as integers
// of their width; only tile.cast interprets them (through lib/Numerics).
// This file: the types, the computation patterns and the pass; the memory
// patterns are in LowerTileMemory.cpp, the casts in LowerTileCasts.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tile/Codegen/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/MathExtras.h"

namespace tile {
#define GEN_PASS_DEF_TILEHOSTLOWERTILE
#include "tile/Codegen/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace ::tile;
using host::getStorageType;
using host::HostPattern;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

namespace {

/// Host types: !tile.ptr -> !llvm.ptr, !tile.shared -> memref, small floats
/// -> iN, tensors lose their layout encoding. Views stay (they are resolved
/// at their uses and erased).
class HostTypeConverter : public TypeConverter {
public:
  explicit HostTypeConverter(MLIRContext *ctx) {
    addConversion([](Type type) { return type; });
    addConversion([](Type type) -> std::optional<Type> {
      if (isSmallFloatType(type))
        return getStorageType(type);
      return std::nullopt;
    });
    addConversion([](RankedTensorType type) -> Type {
      return RankedTensorType::get(type.getShape(),
                                   getStorageType(type.getElementType()));
    });
    addConversion(
        [ctx](PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
    addConversion([](SharedType type) -> Type {
      return MemRefType::get(type.getShape(),
                             getStorageType(type.getElementType()));
    });
    auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                          Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(materialize);
    addTargetMaterialization(materialize);
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Reshapes \p src (same element count, row-major order) to \p type.
static Value reshapeTensor(OpBuilder &b, Location loc, Value src,
                           RankedTensorType type) {
  auto srcType = cast<RankedTensorType>(src.getType());
  if (srcType == type)
    return src;
  Value flat = src;
  if (srcType.getRank() != 1) {
    ReassociationIndices all =
        llvm::to_vector<2>(llvm::seq<int64_t>(0, srcType.getRank()));
    auto flatType = RankedTensorType::get({srcType.getNumElements()},
                                          srcType.getElementType());
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, src,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all =
      llvm::to_vector<2>(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// A tensor of \p type filled with \p value.
static Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                          Value value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

/// Converts tile \p value (storage of \p from) to element type \p to.
static Value castTile(OpBuilder &b, Location loc, Value value, Type from,
                      Type to) {
  if (from == to)
    return value;
  auto srcType = cast<RankedTensorType>(value.getType());
  auto resultType = RankedTensorType::get(srcType.getShape(), to);
  unsigned rank = srcType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, srcType.getShape(), to);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, resultType, value, init, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       host::emitScalarCast(nb, nl, args[0],
                                                            from, to, false,
                                                            false));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Patterns: computation
//===----------------------------------------------------------------------===//

namespace {

struct DotLowering : public HostPattern<DotOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = op.getA().getType().getElementType();
    Type accElem = op.getAcc().getType().getElementType();
    // Products are formed in the accumulator type (exactly for f16, bf16
    // and 8-bit floats into f32, i8 into i32); an f16 accumulator is carried
    // in f32 and rounded once at the end.
    if (failed(host::getFormatId(elem, false)) ||
        failed(host::getFormatId(accElem, false)))
      return op.emitOpError() << "cannot multiply " << elem << " into "
                              << accElem << " on the host: no numeric format";
    Type compute = accElem.isF16() ? rewriter.getF32Type() : accElem;
    Value a = castTile(rewriter, loc, adaptor.getA(), elem, compute);
    Value b = castTile(rewriter, loc, adaptor.getB(), elem, compute);
    Value acc = castTile(rewriter, loc, adaptor.getAcc(), accElem, compute);
    auto resultType = cast<RankedTensorType>(acc.getType());
    // A batched (3-D) dot is one linalg.batch_matmul.
    Value product =
        resultType.getRank() == 3
            ? linalg::BatchMatmulOp::create(rewriter, loc,
                                            TypeRange{resultType},
                                            ValueRange{a, b}, ValueRange{acc})
                  .getResult(0)
            : linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
                                       ValueRange{a, b}, ValueRange{acc})
                  .getResult(0);
    rewriter.replaceOp(op, castTile(rewriter, loc, product, compute, accElem));
    return success();
  }
};

struct ReduceLowering : public HostPattern<ReduceOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSrc();
    auto srcType = cast<RankedTensorType>(src.getType());
    Type elem = srcType.getElementType();
    int64_t axis = op.getAxis();
    ReduceKind kind = op.getKind();
    bool isUnsigned = op.getIsUnsigned();
    auto floatType = dyn_cast<mlir::FloatType>(elem);
    auto intType = dyn_cast<IntegerType>(elem);
    if (!floatType && !intType)
      return op.emitOpError() << "cannot reduce " << elem << " on the host";
    TypedAttr identity;
    if (kind == ReduceKind::Sum) {
      identity = rewriter.getZeroAttr(elem);
    } else if (floatType) {
      identity = rewriter.getFloatAttr(
          elem, APFloat::getInf(floatType.getFloatSemantics(),
                                /*Negative=*/kind == ReduceKind::Max));
    } else {
      unsigned width = intType.getWidth();
      APInt value = kind == ReduceKind::Max
                        ? (isUnsigned ? APInt::getMinValue(width)
                                      : APInt::getSignedMinValue(width))
                        : (isUnsigned ? APInt::getMaxValue(width)
                                      : APInt::getSignedMaxValue(width));
      identity = rewriter.getIntegerAttr(elem, value);
    }
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + axis);
    auto initType = RankedTensorType::get(shape, elem);
    Value init =
        filledTensor(rewriter, loc, initType,
                     arith::ConstantOp::create(rewriter, loc, identity));
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{src}, ValueRange{init},
        ArrayRef<int64_t>{axis},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], acc = args[1], r;
          switch (kind) {
          case ReduceKind::Sum:
            r = floatType ? arith::AddFOp::create(b, l, acc, x).getResult()
                          : arith::AddIOp::create(b, l, acc, x).getResult();
            break;
          case ReduceKind::Max:
            if (floatType)
              r = arith::MaximumFOp::create(b, l, acc, x);
            else if (isUnsigned)
              r = arith::MaxUIOp::create(b, l, acc, x);
            else
              r = arith::MaxSIOp::create(b, l, acc, x);
            break;
          case ReduceKind::Min:
            if (floatType)
              r = arith::MinimumFOp::create(b, l, acc, x);
            else if (isUnsigned)
              r = arith::MinUIOp::create(b, l, acc, x);
            else
              r = arith::MinSIOp::create(b, l, acc, x);
            break;
          }
          linalg::YieldOp::create(b, l, r);
        });
    Value result = reduce.getResult(0);
    if (!isa<RankedTensorType>(op.getType()))
      result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastLowering : public HostPattern<BroadcastOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = convertTile(op.getType());
    Value src = adaptor.getSrc();
    auto srcType = cast<RankedTensorType>(src.getType());
    unsigned rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    for (unsigned d = 0; d < rank; ++d)
      exprs.push_back(srcType.getDimSize(d) == 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, src, init, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct SplatLowering : public HostPattern<SplatOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertTile(op.getType());
    if (adaptor.getSrc().getType() != type.getElementType())
      return op.emitOpError() << "cannot splat a " << adaptor.getSrc().getType()
                              << " into " << type;
    rewriter.replaceOp(
        op, filledTensor(rewriter, op.getLoc(), type, adaptor.getSrc()));
    return success();
  }
};

template <typename OpTy> struct ReshapeLowering : public HostPattern<OpTy> {
  using HostPattern<OpTy>::HostPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = this->convertTile(op.getType());
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, op.getLoc(), adaptor.getSrc(), type));
    return success();
  }
};

struct TransLowering : public HostPattern<TransOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = convertTile(op.getType());
    SmallVector<int64_t> perm;
    for (int32_t p : op.getPermutation())
      perm.push_back(p);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    auto trans = linalg::TransposeOp::create(rewriter, loc, adaptor.getSrc(),
                                             init, perm);
    rewriter.replaceOp(op, trans->getResult(0));
    return success();
  }
};

struct IotaLowering : public HostPattern<IotaOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = convertTile(op.getType());
    Type elem = type.getElementType();
    if (!isa<IntegerType>(elem))
      return op.emitOpError()
             << "iota of " << elem << " is not supported on the host";
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elem);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(1)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value v = arith::IndexCastOp::create(b, l, elem, i);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ConvertLayoutLowering : public HostPattern<ConvertLayoutOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Patterns: other dialects' ops on converted types
//===----------------------------------------------------------------------===//

/// arith.constant of small-float tiles or scalars: the same bits as
/// integers.
struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || type == op.getType())
      return failure();
    Attribute value = op.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      Type elem = getElementTypeOrSelf(type);
      if (dense.getElementType().getIntOrFloatBitWidth() !=
          elem.getIntOrFloatBitWidth())
        return op.emitOpError() << "cannot be stored as " << type;
      value = dense.bitcast(elem);
    } else if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
      value = IntegerAttr::get(type, floatAttr.getValue().bitcastToAPInt());
    } else {
      return op.emitOpError()
             << "has a value the host cannot store as " << type;
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   cast<TypedAttr>(value));
    return success();
  }
};

/// Any other op (arith.select, tensor ops, ...) whose operand or result
/// types change: the same op on the converted types. Arithmetic on small
/// floats has no meaning on their storage integers and is rejected.
struct ConvertAnyOpTypes : public ConversionPattern {
  ConvertAnyOpTypes(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Dialect *dialect = op->getDialect();
    if (isa_and_nonnull<TileDialect, scf::SCFDialect, func::FuncDialect>(
            dialect))
      return failure();
    const TypeConverter *converter = getTypeConverter();
    bool legal = converter->isLegal(op) &&
                 llvm::all_of(op->getRegions(), [&](Region &region) {
                   return converter->isLegal(&region);
                 });
    if (legal)
      return failure();
    // Arithmetic on small floats was rejected by checkLowerable().
    if (isa_and_nonnull<arith::ArithDialect, math::MathDialect>(dialect) &&
        !isa<arith::SelectOp>(op))
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(converter->convertTypes(op->getResultTypes(), resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs(), op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *newRegion = state.addRegion();
      rewriter.inlineRegionBefore(region, *newRegion, newRegion->begin());
      if (failed(rewriter.convertRegionTypes(newRegion, *converter)))
        return failure();
    }
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct LowerTilePass : public tile::impl::TileHostLowerTileBase<LowerTilePass> {
  /// Reports what the host cannot lower, once per op, before conversion.
  static LogicalResult checkLowerable(ModuleOp module) {
    bool ok = true;
    module.walk([&](Operation *op) {
      Value view;
      if (auto load = dyn_cast<LoadOp>(op))
        view = load.getView();
      else if (auto store = dyn_cast<StoreOp>(op))
        view = store.getView();
      else if (auto add = dyn_cast<AtomicAddOp>(op))
        view = add.getView();
      else if (auto copy = dyn_cast<CopyAsyncOp>(op))
        view = copy.getSrc();
      if (view && !view.getDefiningOp<ViewOp>()) {
        op->emitOpError() << "needs its view to come from a tile.view in the "
                             "same function (the host lowering cannot follow "
                             "views through block arguments)";
        ok = false;
        return;
      }
      if (auto cast = dyn_cast<CastOp>(op)) {
        Type from = getElementTypeOrSelf(cast.getSrc().getType());
        Type to = getElementTypeOrSelf(cast.getType());
        if (failed(host::getFormatId(from, cast.getSrcUnsigned())) ||
            failed(host::getFormatId(to, cast.getDstUnsigned()))) {
          op->emitOpError() << "cannot convert " << from << " to " << to
                            << " on the host: no numeric format";
          ok = false;
        }
        return;
      }
      if (auto dot = dyn_cast<DotOp>(op)) {
        Type elem = dot.getA().getType().getElementType();
        Type accElem = dot.getAcc().getType().getElementType();
        if (failed(host::getFormatId(elem, false)) ||
            failed(host::getFormatId(accElem, false))) {
          op->emitOpError() << "cannot multiply " << elem << " into " << accElem
                            << " on the host: no numeric format";
          ok = false;
        }
        return;
      }
      if (isa<ProgramIdOp, NumProgramsOp>(op)) {
        op->emitOpError() << "must be replaced by tile-host-emit-entry "
                             "before tile-host-lower-tile (is it outside a "
                             "tile.kernel function?)";
        ok = false;
        return;
      }
      if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
              op->getDialect()) ||
          isa<arith::SelectOp, arith::ConstantOp>(op))
        return;
      auto isSmall = [](Type type) {
        return isSmallFloatType(getElementTypeOrSelf(type));
      };
      if (llvm::any_of(op->getOperandTypes(), isSmall) ||
          llvm::any_of(op->getResultTypes(), isSmall)) {
        op->emitOpError() << "on small-float (storage) types is not "
                             "supported; cast to f16 or f32 first";
        ok = false;
      }
    });
    return success(ok);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkLowerable(module)))
      return signalPassFailure();

    // The lib/Numerics entry point casts call.
    func::FuncOp convertFn =
        module.lookupSymbol<func::FuncOp>(host::kConvertFn);
    if (!convertFn) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      Type i32 = b.getI32Type();
      convertFn =
          func::FuncOp::create(b, module.getLoc(), host::kConvertFn,
                               b.getFunctionType({i32, i32, i32}, {i32}));
      convertFn.setPrivate();
    }

    host::defineMemoryHelpers(module);
    HostTypeConverter converter(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalOp<ViewOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(), [&](Region &region) {
               return converter.isLegal(&region);
             });
    });

    RewritePatternSet patterns(ctx);
    host::populateMemoryPatterns(converter, patterns);
    patterns.add<DotLowering, ReduceLowering, BroadcastLowering, SplatLowering,
                 ReshapeLowering<ReshapeOp>, ReshapeLowering<ExpandDimsOp>,
                 TransLowering, IotaLowering, ConvertLayoutLowering,
                 ConstantLowering, ConvertAnyOpTypes>(converter, ctx);
    host::populateCastPatterns(converter, patterns);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Views were resolved at their uses.
    bool failedViews = false;
    module.walk([&](ViewOp view) {
      if (!view->use_empty()) {
        view.emitOpError() << "is used by an op the host lowering cannot "
                              "follow (views must be used directly by "
                              "tile.load, tile.store or tile.copy_async)";
        failedViews = true;
        return;
      }
      view.erase();
    });
    if (failedViews)
      return signalPassFailure();
    // Casts left without users by the erased views.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    for (auto op : llvm::reverse(casts))
      if (op->use_empty())
        op.erase();
    if (SymbolTable::symbolKnownUseEmpty(convertFn, module))
      convertFn.erase();
    host::eraseUnusedMemoryHelpers(module);
  }
};

} // namespace
