//===- LowerTile.cpp - tile-host-lower-tile -------------------------------===//
//
// Part of tilec. Lowers the tile dialect for the host: register tiles become
// builtin tensors with value semantics (linalg / tensor ops, bufferized
// later by one-shot bufferization), global memory is reached through
// !llvm.ptr with bounds-checked element loads and stores, shared memory
// becomes per-program memrefs. Small-float elements are stored as integers
// of their width; only tile.cast interprets them (through lib/Numerics).
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

namespace mlir::tile {
#define GEN_PASS_DEF_TILEHOSTLOWERTILE
#include "tile/Codegen/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using host::getStorageType;

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

static Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

static Value i64Const(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// i32 (or index) -> i64, sign-extending.
static Value toI64(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
  if (value.getType().isInteger(64))
    return value;
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), value);
}

/// i32 -> index.
static Value toIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

/// A loop nest over the static \p shape.
static void
buildLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
           function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : shape) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(indexConst(b, loc, size));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// The constant \p attr (of the element type \p elemType) as a value of the
/// storage type; zero when \p attr is null.
static FailureOr<Value> storageConstant(OpBuilder &b, Location loc,
                                        Attribute attr, Type elemType) {
  Type storage = getStorageType(elemType);
  if (!attr)
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(storage))
        .getResult();
  if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
    if (isa<IntegerType>(storage))
      attr = IntegerAttr::get(storage, floatAttr.getValue().bitcastToAPInt());
    else if (floatAttr.getType() != storage)
      return failure();
  } else if (auto intAttr = dyn_cast<IntegerAttr>(attr)) {
    if (intAttr.getType() != storage) {
      if (!isa<IntegerType>(storage) ||
          intAttr.getType().getIntOrFloatBitWidth() !=
              storage.getIntOrFloatBitWidth())
        return failure();
      attr = IntegerAttr::get(storage, intAttr.getValue());
    }
  } else {
    return failure();
  }
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr)).getResult();
}

/// True if elements of \p width bits are loaded and stored as whole LLVM
/// values (bytes, halves, words); other widths use the bit stream.
static bool isWholeBytes(unsigned width) {
  return width % 8 == 0 && llvm::isPowerOf2_32(width);
}

/// Loads element \p linear (i64) of the stream at \p ptr.
static Value loadElement(OpBuilder &b, Location loc, Value ptr, Value linear,
                         Type elemType) {
  Type storage = getStorageType(elemType);
  unsigned width = getElementBitWidth(elemType);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  if (isWholeBytes(width)) {
    Value addr =
        LLVM::GEPOp::create(b, loc, ptrType, storage, ptr, ValueRange{linear});
    return LLVM::LoadOp::create(b, loc, storage, addr);
  }
  // Sub-byte (or odd) widths: element i is bits [i*w, (i+1)*w) of the
  // LSB-first stream. Read only the bytes that hold those bits.
  Type i8 = b.getI8Type(), i64 = b.getI64Type();
  Value bit = arith::MulIOp::create(b, loc, linear, i64Const(b, loc, width));
  Value byte = arith::ShRUIOp::create(b, loc, bit, i64Const(b, loc, 3));
  Value shift = arith::AndIOp::create(b, loc, bit, i64Const(b, loc, 7));
  Value end = arith::AddIOp::create(b, loc, shift, i64Const(b, loc, width));
  unsigned maxBytes = (7 + width + 7) / 8;
  Value acc = i64Const(b, loc, 0);
  for (unsigned k = 0; k < maxBytes; ++k) {
    auto readByte = [&](OpBuilder &nb, Location nl) -> Value {
      Value at = arith::AddIOp::create(nb, nl, byte, i64Const(nb, nl, k));
      Value addr =
          LLVM::GEPOp::create(nb, nl, ptrType, i8, ptr, ValueRange{at});
      Value v = LLVM::LoadOp::create(nb, nl, i8, addr);
      v = arith::ExtUIOp::create(nb, nl, i64, v);
      if (k != 0)
        v = arith::ShLIOp::create(nb, nl, v, i64Const(nb, nl, 8 * k));
      return v;
    };
    Value part;
    if (k == 0) {
      part = readByte(b, loc);
    } else {
      Value touched = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                            end, i64Const(b, loc, 8 * k));
      auto ifOp = scf::IfOp::create(
          b, loc, touched,
          [&](OpBuilder &nb, Location nl) {
            scf::YieldOp::create(nb, nl, readByte(nb, nl));
          },
          [&](OpBuilder &nb, Location nl) {
            scf::YieldOp::create(nb, nl, i64Const(nb, nl, 0));
          });
      part = ifOp.getResult(0);
    }
    acc = arith::OrIOp::create(b, loc, acc, part);
  }
  Value field = arith::ShRUIOp::create(b, loc, acc, shift);
  return arith::TruncIOp::create(b, loc, storage, field);
}

/// The function that updates some bits of a byte atomically:
///   void f(ptr byte, i8 keepMask, i8 bits) { *byte &= keepMask; *byte |= bits;
///   }
/// (two atomic operations; other bits of the byte belong to other elements,
/// possibly written by programs running in parallel). It is an llvm.func so
/// that buffer deallocation, which rejects ops with unknown memory effects
/// such as llvm.atomicrmw, does not look into it.
static constexpr llvm::StringLiteral kUpdateByteFn = "__tile_host_update_byte";

static void defineUpdateByteFn(ModuleOp module) {
  if (module.lookupSymbol(kUpdateByteFn))
    return;
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i8 = b.getI8Type();
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {ptrType, i8, i8});
  auto fn = LLVM::LLVMFuncOp::create(b, loc, kUpdateByteFn, fnType,
                                     LLVM::Linkage::Internal);
  Block *body = fn.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::_and,
                            body->getArgument(0), body->getArgument(1),
                            LLVM::AtomicOrdering::monotonic);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::_or,
                            body->getArgument(0), body->getArgument(2),
                            LLVM::AtomicOrdering::monotonic);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

/// Stores \p value (of the storage type of \p elemType) as element \p linear
/// of the stream at \p ptr. Sub-byte elements update their bits with atomic
/// and/or (kUpdateByteFn) so that programs running in parallel may share a
/// byte.
static void storeElement(OpBuilder &b, Location loc, Value ptr, Value linear,
                         Value value, Type elemType) {
  Type storage = getStorageType(elemType);
  unsigned width = getElementBitWidth(elemType);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  if (isWholeBytes(width)) {
    Value addr =
        LLVM::GEPOp::create(b, loc, ptrType, storage, ptr, ValueRange{linear});
    LLVM::StoreOp::create(b, loc, value, addr);
    return;
  }
  Type i8 = b.getI8Type(), i64 = b.getI64Type();
  Value bit = arith::MulIOp::create(b, loc, linear, i64Const(b, loc, width));
  Value byte = arith::ShRUIOp::create(b, loc, bit, i64Const(b, loc, 3));
  Value shift = arith::AndIOp::create(b, loc, bit, i64Const(b, loc, 7));
  Value end = arith::AddIOp::create(b, loc, shift, i64Const(b, loc, width));
  Value bits = arith::ExtUIOp::create(b, loc, i64, value);
  bits = arith::ShLIOp::create(b, loc, bits, shift);
  Value mask = arith::ShLIOp::create(
      b, loc, i64Const(b, loc, (int64_t(1) << width) - 1), shift);
  unsigned maxBytes = (7 + width + 7) / 8;
  for (unsigned k = 0; k < maxBytes; ++k) {
    auto writeByte = [&](OpBuilder &nb, Location nl) {
      Value at = arith::AddIOp::create(nb, nl, byte, i64Const(nb, nl, k));
      Value addr =
          LLVM::GEPOp::create(nb, nl, ptrType, i8, ptr, ValueRange{at});
      Value amount = i64Const(nb, nl, 8 * k);
      Value m = arith::ShRUIOp::create(nb, nl, mask, amount);
      m = arith::TruncIOp::create(nb, nl, i8, m);
      Value notM = arith::XOrIOp::create(
          nb, nl, m, arith::ConstantIntOp::create(nb, nl, i8, -1));
      Value v = arith::ShRUIOp::create(nb, nl, bits, amount);
      v = arith::TruncIOp::create(nb, nl, i8, v);
      LLVM::CallOp::create(nb, nl, TypeRange{}, kUpdateByteFn,
                           ValueRange{addr, notM, v});
    };
    if (k == 0) {
      writeByte(b, loc);
      continue;
    }
    Value touched = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          end, i64Const(b, loc, 8 * k));
    scf::IfOp::create(b, loc, touched, [&](OpBuilder &nb, Location nl) {
      writeByte(nb, nl);
      scf::YieldOp::create(nb, nl);
    });
  }
}

namespace {

/// A global tensor as the host sees it: base pointer, dims and strides (i64,
/// in elements) and the element type.
struct GlobalView {
  Value ptr;
  SmallVector<Value> dims;
  SmallVector<Value> strides;
  Type elemType;

  /// Emits, for the tile element at \p ivs of a slice starting at
  /// \p offsets (i64), whether it lies inside the view and its linear index.
  std::pair<Value, Value> locate(OpBuilder &b, Location loc,
                                 ArrayRef<Value> offsets,
                                 ValueRange ivs) const {
    Value inBounds = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value linear = i64Const(b, loc, 0);
    Value zero = i64Const(b, loc, 0);
    for (auto [d, iv] : llvm::enumerate(ivs)) {
      Value at = arith::AddIOp::create(b, loc, offsets[d], toI64(b, loc, iv));
      Value ge =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at, zero);
      Value lt =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, dims[d]);
      inBounds = arith::AndIOp::create(b, loc, inBounds, ge);
      inBounds = arith::AndIOp::create(b, loc, inBounds, lt);
      Value term = arith::MulIOp::create(b, loc, at, strides[d]);
      linear = arith::AddIOp::create(b, loc, linear, term);
    }
    return {inBounds, linear};
  }

  /// The element at \p ivs of the slice at \p offsets, or \p padding.
  Value loadMasked(OpBuilder &b, Location loc, ArrayRef<Value> offsets,
                   ValueRange ivs, Value padding) const {
    auto [inBounds, linear] = locate(b, loc, offsets, ivs);
    auto ifOp = scf::IfOp::create(
        b, loc, inBounds,
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl,
                               loadElement(nb, nl, ptr, linear, elemType));
        },
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, padding);
        });
    return ifOp.getResult(0);
  }
};

} // namespace

/// Resolves \p view (made by tile.view) at the insertion point of
/// \p rewriter, which must be dominated by the tile.view.
static FailureOr<GlobalView> resolveView(Operation *user, Value view,
                                         ConversionPatternRewriter &rewriter) {
  auto viewOp = view.getDefiningOp<ViewOp>();
  if (!viewOp)
    return user->emitOpError()
           << "needs its view to come from a tile.view in the same function "
              "(the host lowering cannot follow views through block "
              "arguments)";
  Location loc = user->getLoc();
  GlobalView result;
  result.ptr = rewriter.getRemappedValue(viewOp.getPtr());
  if (!result.ptr)
    return user->emitOpError() << "cannot resolve the pointer of its view";
  if (!isa<LLVM::LLVMPointerType>(result.ptr.getType()))
    result.ptr =
        UnrealizedConversionCastOp::create(
            rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
            result.ptr)
            .getResult(0);
  ViewType type = viewOp.getType();
  result.elemType = type.getElementType();
  auto dynDims = viewOp.getDims();
  unsigned nextDyn = 0;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size))
      result.dims.push_back(toI64(rewriter, loc, dynDims[nextDyn++]));
    else
      result.dims.push_back(i64Const(rewriter, loc, size));
  }
  unsigned rank = type.getRank();
  if (!viewOp.getStrides().empty()) {
    for (Value stride : viewOp.getStrides())
      result.strides.push_back(toI64(rewriter, loc, stride));
  } else {
    result.strides.assign(rank, Value());
    Value stride = i64Const(rewriter, loc, 1);
    for (int d = rank - 1; d >= 0; --d) {
      result.strides[d] = stride;
      if (d > 0)
        stride = arith::MulIOp::create(rewriter, loc, stride, result.dims[d]);
    }
  }
  return result;
}

static SmallVector<Value> offsetsToI64(OpBuilder &b, Location loc,
                                       ValueRange offsets) {
  SmallVector<Value> result;
  for (Value offset : offsets)
    result.push_back(toI64(b, loc, offset));
  return result;
}

/// Wraps a freshly filled buffer as a tensor value.
static Value bufferToTensor(OpBuilder &b, Location loc, Value buffer,
                            RankedTensorType type) {
  return bufferization::ToTensorOp::create(b, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

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
// Patterns: memory
//===----------------------------------------------------------------------===//

namespace {

template <typename OpTy> struct HostPattern : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  RankedTensorType convertTile(Type type) const {
    return dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(type));
  }
};

struct LoadLowering : public HostPattern<LoadOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<GlobalView> view = resolveView(op, op.getView(), rewriter);
    if (failed(view))
      return failure();
    RankedTensorType type = convertTile(op.getType());
    FailureOr<Value> padding =
        storageConstant(rewriter, loc, op.getPaddingAttr(), view->elemType);
    if (failed(padding))
      return op.emitOpError() << "has a padding value the host cannot "
                                 "represent as "
                              << view->elemType;
    SmallVector<Value> offsets =
        offsetsToI64(rewriter, loc, adaptor.getOffsets());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(rewriter, loc, memrefType);
    buildLoops(rewriter, loc, type.getShape(),
               [&](OpBuilder &b, Location l, ValueRange ivs) {
                 Value v = view->loadMasked(b, l, offsets, ivs, *padding);
                 memref::StoreOp::create(b, l, v, buffer, ivs);
               });
    rewriter.replaceOp(op, bufferToTensor(rewriter, loc, buffer, type));
    return success();
  }
};

/// The function that adds to an element atomically (relaxed):
///   void f(ptr element, T value) { *element += value; }
/// for T in f32, f16, bf16, i32. An llvm.func for the same reason as
/// kUpdateByteFn; defined on first use.
static StringRef defineAtomicAddFn(ModuleOp module, Type elemType) {
  StringRef name = elemType.isF32()    ? "__tile_host_atomic_add_f32"
                   : elemType.isF16()  ? "__tile_host_atomic_add_f16"
                   : elemType.isBF16() ? "__tile_host_atomic_add_bf16"
                                       : "__tile_host_atomic_add_i32";
  if (module.lookupSymbol(name))
    return name;
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {LLVM::LLVMPointerType::get(ctx), elemType});
  auto fn =
      LLVM::LLVMFuncOp::create(b, loc, name, fnType, LLVM::Linkage::Internal);
  Block *body = fn.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  LLVM::AtomicRMWOp::create(b, loc,
                            isa<mlir::FloatType>(elemType)
                                ? LLVM::AtomicBinOp::fadd
                                : LLVM::AtomicBinOp::add,
                            body->getArgument(0), body->getArgument(1),
                            LLVM::AtomicOrdering::monotonic);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return name;
}

/// tile.store and tile.atomic_add: one element at a time under its bounds
/// check; atomic_add calls defineAtomicAddFn's function.
template <typename OpTy> struct GlobalWriteLowering : public HostPattern<OpTy> {
  using HostPattern<OpTy>::HostPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  static constexpr bool kAtomicAdd = std::is_same_v<OpTy, AtomicAddOp>;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<GlobalView> view = resolveView(op, op.getView(), rewriter);
    if (failed(view))
      return failure();
    Value value = adaptor.getValue();
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<Value> offsets =
        offsetsToI64(rewriter, loc, adaptor.getOffsets());
    StringRef addFn;
    if (kAtomicAdd)
      addFn = defineAtomicAddFn(op->template getParentOfType<ModuleOp>(),
                                view->elemType);
    buildLoops(
        rewriter, loc, type.getShape(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          auto [inBounds, linear] = view->locate(b, l, offsets, ivs);
          scf::IfOp::create(b, l, inBounds, [&](OpBuilder &nb, Location nl) {
            Value element = tensor::ExtractOp::create(nb, nl, value, ivs);
            if (kAtomicAdd) {
              Value addr = LLVM::GEPOp::create(
                  nb, nl, LLVM::LLVMPointerType::get(nb.getContext()),
                  view->elemType, view->ptr, ValueRange{linear});
              LLVM::CallOp::create(nb, nl, TypeRange{}, addFn,
                                   ValueRange{addr, element});
            } else {
              storeElement(nb, nl, view->ptr, linear, element, view->elemType);
            }
            scf::YieldOp::create(nb, nl);
          });
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Indices into a shared buffer for the tile element at \p ivs: leading
/// indices as given, trailing ones offset by the loop position.
static SmallVector<Value> sharedIndices(OpBuilder &b, Location loc,
                                        ArrayRef<Value> indices,
                                        ValueRange ivs) {
  SmallVector<Value> result(indices);
  unsigned lead = indices.size() - ivs.size();
  for (auto [k, iv] : llvm::enumerate(ivs))
    result[lead + k] = arith::AddIOp::create(b, loc, indices[lead + k], iv);
  return result;
}

static SmallVector<Value> indicesToIndex(OpBuilder &b, Location loc,
                                         ValueRange values) {
  SmallVector<Value> result;
  for (Value v : values)
    result.push_back(toIndex(b, loc, v));
  return result;
}

struct AllocSharedLowering : public HostPattern<AllocSharedOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(AllocSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<memref::AllocOp>(op, type);
    return success();
  }
};

struct SharedLoadLowering : public HostPattern<SharedLoadOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(SharedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = convertTile(op.getType());
    Value shared = adaptor.getBuffer();
    SmallVector<Value> indices =
        indicesToIndex(rewriter, loc, adaptor.getIndices());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(rewriter, loc, memrefType);
    buildLoops(rewriter, loc, type.getShape(),
               [&](OpBuilder &b, Location l, ValueRange ivs) {
                 Value v = memref::LoadOp::create(
                     b, l, shared, sharedIndices(b, l, indices, ivs));
                 memref::StoreOp::create(b, l, v, buffer, ivs);
               });
    rewriter.replaceOp(op, bufferToTensor(rewriter, loc, buffer, type));
    return success();
  }
};

struct SharedStoreLowering : public HostPattern<SharedStoreOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(SharedStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue();
    Value shared = adaptor.getBuffer();
    SmallVector<Value> indices =
        indicesToIndex(rewriter, loc, adaptor.getIndices());
    buildLoops(rewriter, loc,
               cast<RankedTensorType>(value.getType()).getShape(),
               [&](OpBuilder &b, Location l, ValueRange ivs) {
                 Value v = tensor::ExtractOp::create(b, l, value, ivs);
                 memref::StoreOp::create(b, l, v, shared,
                                         sharedIndices(b, l, indices, ivs));
               });
    rewriter.eraseOp(op);
    return success();
  }
};

struct CopyAsyncLowering : public HostPattern<CopyAsyncOp> {
  using HostPattern::HostPattern;

  LogicalResult
  matchAndRewrite(CopyAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<GlobalView> view = resolveView(op, op.getSrc(), rewriter);
    if (failed(view))
      return failure();
    Value shared = adaptor.getDst();
    auto sharedType = cast<MemRefType>(shared.getType());
    unsigned rank = view->dims.size();
    ArrayRef<int64_t> shape = sharedType.getShape().take_back(rank);
    SmallVector<Value> offsets =
        offsetsToI64(rewriter, loc, adaptor.getSrcOffsets());
    SmallVector<Value> indices =
        indicesToIndex(rewriter, loc, adaptor.getDstIndices());
    Value zero = *storageConstant(rewriter, loc, Attribute(), view->elemType);
    buildLoops(rewriter, loc, shape,
               [&](OpBuilder &b, Location l, ValueRange ivs) {
                 Value v = view->loadMasked(b, l, offsets, ivs, zero);
                 memref::StoreOp::create(b, l, v, shared,
                                         sharedIndices(b, l, indices, ivs));
               });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.wait and tile.barrier: one program runs in one thread on the host
/// and copies are synchronous.
template <typename OpTy> struct EraseLowering : public HostPattern<OpTy> {
  using HostPattern<OpTy>::HostPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Patterns: computation
//===----------------------------------------------------------------------===//

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
    Value product =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
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

struct LowerTilePass
    : public mlir::tile::impl::TileHostLowerTileBase<LowerTilePass> {
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

    defineUpdateByteFn(module);
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
    patterns.add<LoadLowering, GlobalWriteLowering<StoreOp>,
                 GlobalWriteLowering<AtomicAddOp>, AllocSharedLowering,
                 SharedLoadLowering, SharedStoreLowering, CopyAsyncLowering,
                 EraseLowering<WaitOp>, EraseLowering<BarrierOp>, DotLowering,
                 ReduceLowering, BroadcastLowering, SplatLowering,
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
    if (Operation *updateByte = module.lookupSymbol(kUpdateByteFn))
      if (SymbolTable::symbolKnownUseEmpty(updateByte, module))
        updateByte->erase();
  }
};

} // namespace
