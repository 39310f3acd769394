//===- LowerTileMemory.cpp - tile-host-lower-tile: memory -----------------===//
//
// Part of tilec. The memory patterns of the host lowering (LowerTile.cpp):
// global memory through !llvm.ptr with bounds-checked element loads and
// stores (sub-byte elements by read-modify-write of their bytes, atomic
// adds through a per-type helper), shared memory as per-program memrefs,
// asynchronous copies as synchronous ones, waits and barriers erased (one
// program runs in one thread on the host).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ::tile;
using host::getStorageType;
using host::HostPattern;

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

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

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
    // Under a false predicate nothing is copied.
    OpBuilder::InsertionGuard guard(rewriter);
    if (Value pred = adaptor.getPred()) {
      auto ifOp = scf::IfOp::create(rewriter, loc, pred, /*withElse=*/false);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
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

} // namespace

void host::populateMemoryPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<LoadLowering, GlobalWriteLowering<StoreOp>,
               GlobalWriteLowering<AtomicAddOp>, AllocSharedLowering,
               SharedLoadLowering, SharedStoreLowering, CopyAsyncLowering,
               EraseLowering<WaitOp>, EraseLowering<BarrierOp>,
               EraseLowering<PrefetchOp>, EraseLowering<WaitPrecedingGridsOp>>(
      converter, patterns.getContext());
}

void host::defineMemoryHelpers(ModuleOp module) { defineUpdateByteFn(module); }

void host::eraseUnusedMemoryHelpers(ModuleOp module) {
  if (Operation *updateByte = module.lookupSymbol(kUpdateByteFn))
    if (SymbolTable::symbolKnownUseEmpty(updateByte, module))
      updateByte->erase();
}
