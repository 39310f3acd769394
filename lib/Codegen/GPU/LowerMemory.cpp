//===- LowerMemory.cpp - Global and shared memory accesses ----------------===//
//
// Part of tilec. tile.load / tile.store / tile.shared_load /
// tile.shared_store / tile.copy_async for the generic GPU lowering.
//
// Global accesses have two paths per thread, chosen at run time by one
// branch: when every slot of the thread is inside the view and each vector
// group is aligned, groups of consecutive slots move with one vector access
// of up to 16 bytes (sub-byte elements as packed words, unpacked with shifts);
// otherwise every slot is accessed alone under its own bounds check (edge
// tiles). Shared accesses are vectorized by lib/Layout's maxVectorWidth and
// addressed through the buffer's shared layout, swizzle included.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {
namespace {

/// Largest power of two dividing `bytes`, at most 16.
unsigned alignOf(int64_t bytes) {
  unsigned a = 1;
  while (a < 16 && bytes % (2 * a) == 0)
    a *= 2;
  return a;
}

/// The memory type a group of `count` elements of `bits` bits moves as.
Type groupMemType(MLIRContext *ctx, Type storage, int64_t count,
                  unsigned bits) {
  if (bits % 8 == 0 && llvm::isPowerOf2_32(bits))
    return count == 1 ? storage : VectorType::get({count}, storage);
  int64_t total = count * bits;
  unsigned word = total % 32 == 0 ? 32 : total % 16 == 0 ? 16 : 8;
  Type w = IntegerType::get(ctx, word);
  return total == word ? w : VectorType::get({total / word}, w);
}

} // namespace

/// Slot `i` (`bits` bits, LSB first) of the packed 32-bit `words`: one
/// shift of its word, or a funnel shift of two words when it straddles them.
static Value slotOfWords(OpBuilder &b, Location loc, ArrayRef<Value> words,
                         int64_t i, unsigned bits, Type storage) {
  Type i32 = b.getI32Type();
  int64_t first = i * bits / 32, shift = (i * bits) % 32;
  Value w = words[first];
  if (shift + bits > 32) {
    Value amount = arith::ConstantIntOp::create(b, loc, i32, shift);
    w = LLVM::FshrOp::create(b, loc, i32, words[first + 1], w, amount);
  } else if (shift) {
    w = arith::ShRUIOp::create(
        b, loc, w, arith::ConstantIntOp::create(b, loc, i32, shift));
  }
  return arith::TruncIOp::create(b, loc, storage, w);
}

/// Loads `count` consecutive elements at `ptr` and returns them as
/// registers (sub-byte elements unpacked LSB first). When `words` is given
/// and the group is a whole number of 32-bit words, sub-byte elements are
/// unpacked from 32-bit words (never wider integers) and those words are
/// appended to `words`; otherwise `words` is cleared and set to null.
static Regs loadGroup(OpBuilder &b, Location loc, Value ptr, Type storage,
                      int64_t count, unsigned bits, unsigned align,
                      Regs **words = nullptr) {
  Type memType = groupMemType(b.getContext(), storage, count, bits);
  Value v = LLVM::LoadOp::create(b, loc, memType, ptr, align);
  Regs regs;
  bool wanted = words && *words;
  bool wordWise = wanted && bits < 8 && (count * bits) % 32 == 0;
  if (wanted && !wordWise) {
    (*words)->clear();
    *words = nullptr;
  }
  if (memType == storage)
    return {v};
  if (bits % 8 == 0 && llvm::isPowerOf2_32(bits)) {
    for (int64_t i = 0; i < count; ++i)
      regs.push_back(LLVM::ExtractElementOp::create(
          b, loc, v, arith::ConstantIntOp::create(b, loc, b.getI32Type(), i)));
    return regs;
  }
  if (wordWise) {
    // groupMemType gives i32 or vector<N x i32> for whole words.
    Regs w;
    if (auto vt = dyn_cast<VectorType>(memType)) {
      for (int64_t k = 0; k < vt.getNumElements(); ++k)
        w.push_back(LLVM::ExtractElementOp::create(
            b, loc, v,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), k)));
    } else {
      w.push_back(v);
    }
    for (int64_t i = 0; i < count; ++i)
      regs.push_back(slotOfWords(b, loc, w, i, bits, storage));
    llvm::append_range(**words, w);
    return regs;
  }
  int64_t total = count * bits;
  Type wide = b.getIntegerType(total);
  Value w = LLVM::BitcastOp::create(b, loc, wide, v);
  for (int64_t i = 0; i < count; ++i) {
    Value s = w;
    if (i)
      s = arith::ShRUIOp::create(
          b, loc, w, arith::ConstantIntOp::create(b, loc, wide, i * bits));
    regs.push_back(arith::TruncIOp::create(b, loc, storage, s));
  }
  return regs;
}

/// Stores the registers `slots` as consecutive elements at `ptr`.
static void storeGroup(OpBuilder &b, Location loc, Value ptr,
                       ArrayRef<Value> slots, unsigned bits, unsigned align) {
  Type storage = slots[0].getType();
  int64_t count = slots.size();
  Type memType = groupMemType(b.getContext(), storage, count, bits);
  Value v;
  if (memType == storage) {
    v = slots[0];
  } else if (bits % 8 == 0 && llvm::isPowerOf2_32(bits)) {
    v = LLVM::PoisonOp::create(b, loc, memType);
    for (int64_t i = 0; i < count; ++i)
      v = LLVM::InsertElementOp::create(
          b, loc, v, slots[i],
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), i));
  } else {
    Type wide = b.getIntegerType(count * bits);
    Value w;
    for (int64_t i = 0; i < count; ++i) {
      Value s = arith::ExtUIOp::create(b, loc, wide, slots[i]);
      if (i)
        s = arith::ShLIOp::create(
            b, loc, s, arith::ConstantIntOp::create(b, loc, wide, i * bits));
      w = w ? arith::OrIOp::create(b, loc, w, s).getResult() : s;
    }
    v = memType == wide ? w : LLVM::BitcastOp::create(b, loc, memType, w);
  }
  LLVM::StoreOp::create(b, loc, v, ptr, align);
}

namespace {

/// Static facts about a thread's slots of a global access.
struct GlobalPlan {
  int64_t vec = 0; ///< Slots per vector group (0: no fast path).
  unsigned align = 1;
  SmallVector<SmallVector<int64_t, 4>> local; ///< apply(0, l) per slot.
  SmallVector<int64_t, 4> minLocal, maxLocal;
};

GlobalPlan planGlobal(const DistributedLayout &layout, unsigned bits) {
  GlobalPlan p;
  int64_t n = layout.localSize();
  unsigned rank = layout.rank();
  for (int64_t l = 0; l < n; ++l)
    p.local.push_back(layout.apply(0, l));
  p.minLocal.assign(rank, INT64_MAX);
  p.maxLocal.assign(rank, INT64_MIN);
  for (auto &c : p.local)
    for (unsigned d = 0; d < rank; ++d) {
      p.minLocal[d] = std::min(p.minLocal[d], c[d]);
      p.maxLocal[d] = std::max(p.maxLocal[d], c[d]);
    }
  for (int64_t v = n; v >= 1; --v) {
    if (n % v || v * bits > 128 || (v * bits) % 8)
      continue;
    bool ok = true;
    for (int64_t g = 0; ok && g < n; g += v) {
      if (p.local[g][rank - 1] % v)
        ok = false;
      for (int64_t k = 1; ok && k < v; ++k)
        for (unsigned d = 0; d < rank; ++d)
          if (p.local[g + k][d] != p.local[g][d] + (d == rank - 1 ? k : 0))
            ok = false;
    }
    if (ok) {
      p.vec = v;
      p.align = alignOf(v * bits / 8);
      break;
    }
  }
  return p;
}

} // namespace

/// The storage-typed padding value of a load.
static Value paddingValue(OpBuilder &b, Location loc, Attribute padding,
                          Type storage) {
  APInt bits(storage.getIntOrFloatBitWidth(), 0);
  if (auto f = dyn_cast_or_null<FloatAttr>(padding))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast_or_null<IntegerAttr>(padding))
    bits = i.getValue();
  if (isa<FloatType>(storage))
    return arith::ConstantOp::create(
        b, loc, storage,
        FloatAttr::get(
            storage,
            APFloat(cast<FloatType>(storage).getFloatSemantics(),
                    bits.zextOrTrunc(storage.getIntOrFloatBitWidth()))));
  return arith::ConstantOp::create(
      b, loc, storage,
      IntegerAttr::get(storage,
                       bits.zextOrTrunc(storage.getIntOrFloatBitWidth())));
}

Value linearIndex(OpBuilder &b, Location loc, const ViewValue &view,
                  ArrayRef<Value> coords) {
  Value acc;
  for (auto [c, s] : llvm::zip(coords, view.strides)) {
    Value term = arith::MulIOp::create(
        b, loc, arith::ExtSIOp::create(b, loc, b.getI64Type(), c), s);
    acc = acc ? arith::AddIOp::create(b, loc, acc, term).getResult() : term;
  }
  return acc;
}

Value inBounds(OpBuilder &b, Location loc, ArrayRef<Value> coords,
               ArrayRef<Value> dims) {
  Value acc;
  for (auto [c, d] : llvm::zip(coords, dims)) {
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, d);
    acc = acc ? arith::AndIOp::create(b, loc, acc, ok).getResult() : ok;
  }
  return acc;
}

/// Reads one element at linear index `index` of a view (no bounds check).
static Value loadElement(OpBuilder &b, Location loc, const ViewValue &view,
                         Value index, Type storage, unsigned bits) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  if (bits % 8 == 0) {
    Value off = arith::MulIOp::create(b, loc, index, c64(bits / 8));
    Value ptr = LLVM::GEPOp::create(b, loc, view.ptr.getType(), b.getI8Type(),
                                    view.ptr, ValueRange{off});
    return LLVM::LoadOp::create(b, loc, storage, ptr, bits / 8);
  }
  // Sub-byte: gather the bytes holding bits [bit, bit + bits) one at a time
  // (never past the element's last byte), then shift.
  Value bit = arith::MulIOp::create(b, loc, index, c64(bits));
  Value first = arith::ShRUIOp::create(b, loc, bit, c64(3));
  Value last = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bit, c64(bits - 1)), c64(3));
  Value word;
  unsigned maxBytes = (7 + bits + 7) / 8;
  for (unsigned k = 0; k < maxBytes; ++k) {
    Value at = first;
    if (k)
      at = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, first, c64(k)), last);
    Value ptr = LLVM::GEPOp::create(b, loc, view.ptr.getType(), b.getI8Type(),
                                    view.ptr, ValueRange{at});
    Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), ptr, 1);
    Value ext = arith::ExtUIOp::create(b, loc, i64, byte);
    if (k)
      ext = arith::ShLIOp::create(b, loc, ext, c64(8 * k));
    word = word ? arith::OrIOp::create(b, loc, word, ext).getResult() : ext;
  }
  Value shift = arith::AndIOp::create(b, loc, bit, c64(7));
  return arith::TruncIOp::create(b, loc, storage,
                                 arith::ShRUIOp::create(b, loc, word, shift));
}

/// Writes one element (no bounds check). Sub-byte elements are merged into
/// their 32-bit words with atomic and/or, so that threads and programs
/// writing neighbouring elements of a word never lose each other's bits.
/// Assumes 4-byte aligned tensors whose allocation covers the last word.
static void storeElement(OpBuilder &b, Location loc, const ViewValue &view,
                         Value index, Value value, unsigned bits) {
  Type i64 = b.getI64Type();
  Type i32 = b.getI32Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  if (bits % 8 == 0) {
    Value off = arith::MulIOp::create(b, loc, index, c64(bits / 8));
    Value ptr = LLVM::GEPOp::create(b, loc, view.ptr.getType(), b.getI8Type(),
                                    view.ptr, ValueRange{off});
    LLVM::StoreOp::create(b, loc, value, ptr, bits / 8);
    return;
  }
  Value bit = arith::MulIOp::create(b, loc, index, c64(bits));
  Value wordIndex = arith::ShRUIOp::create(b, loc, bit, c64(5));
  Value shift = arith::AndIOp::create(b, loc, bit, c64(31));
  Value val = arith::ShLIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, value), shift);
  Value mask =
      arith::ShLIOp::create(b, loc, c64((int64_t(1) << bits) - 1), shift);
  for (unsigned k = 0; k < 2; ++k) {
    Value v = val, m = mask;
    if (k) {
      v = arith::ShRUIOp::create(b, loc, v, c64(32));
      m = arith::ShRUIOp::create(b, loc, m, c64(32));
    }
    Value v32 = arith::TruncIOp::create(b, loc, i32, v);
    Value m32 = arith::TruncIOp::create(b, loc, i32, m);
    auto emit = [&](OpBuilder &ib) {
      Value wi = wordIndex;
      if (k)
        wi = arith::AddIOp::create(ib, loc, wi, c64(1));
      Value off = arith::MulIOp::create(ib, loc, wi, c64(4));
      Value ptr =
          LLVM::GEPOp::create(ib, loc, view.ptr.getType(), ib.getI8Type(),
                              view.ptr, ValueRange{off});
      Value notMask = arith::XOrIOp::create(
          ib, loc, m32, arith::ConstantIntOp::create(ib, loc, i32, -1));
      LLVM::AtomicRMWOp::create(ib, loc, LLVM::AtomicBinOp::_and, ptr, notMask,
                                LLVM::AtomicOrdering::monotonic);
      LLVM::AtomicRMWOp::create(ib, loc, LLVM::AtomicBinOp::_or, ptr, v32,
                                LLVM::AtomicOrdering::monotonic);
    };
    if (k == 0) {
      emit(b);
      continue;
    }
    // The second word only when the element straddles it.
    Value straddles = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ugt,
        arith::AddIOp::create(b, loc, shift, c64(bits)), c64(32));
    auto ifOp = scf::IfOp::create(b, loc, straddles, /*withElse=*/false);
    OpBuilder ib = ifOp.getThenBodyBuilder();
    emit(ib);
  }
}

/// Shared setup of tile.load and tile.store: coordinates of slot 0's
/// thread part, the fast-path condition and the group addresses.
namespace {
struct GlobalAccess {
  GlobalPlan plan;
  SmallVector<Value, 4> base; ///< offsets + spatial coordinates (i32)
  Value fast;                 ///< i1
  SmallVector<Value> groupPtrs;
};
} // namespace

static GlobalAccess prepareGlobal(KernelLowering &kl, Location loc,
                                  const ViewValue &view, ValueRange offsets,
                                  const DistributedLayout &layout,
                                  unsigned bits) {
  OpBuilder &b = kl.builder();
  GlobalAccess a;
  a.plan = planGlobal(layout, bits);
  SmallVector<Value, 4> sp = kl.spatialCoords(layout);
  for (unsigned d = 0; d < layout.rank(); ++d)
    a.base.push_back(arith::AddIOp::create(b, loc, offsets[d], sp[d]));
  if (a.plan.vec == 0) {
    a.fast = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    return a;
  }
  // Every slot inside the view: check the extreme local coordinates.
  Value fast;
  auto andWith = [&](Value c) {
    fast = fast ? arith::AndIOp::create(b, loc, fast, c).getResult() : c;
  };
  for (unsigned d = 0; d < layout.rank(); ++d) {
    Value lo =
        arith::AddIOp::create(b, loc, a.base[d], kl.i32(a.plan.minLocal[d]));
    Value hi =
        arith::AddIOp::create(b, loc, a.base[d], kl.i32(a.plan.maxLocal[d]));
    andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lo,
                                  kl.i32(0)));
    andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, hi,
                                  view.dims[d]));
  }
  if (!view.contiguous && a.plan.vec > 1)
    andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  view.strides.back(), kl.i64(1)));
  // Group addresses and their alignment.
  Value misalign;
  Value ptrInt = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), view.ptr);
  for (int64_t g = 0; g < layout.localSize(); g += a.plan.vec) {
    SmallVector<Value, 4> coords;
    for (unsigned d = 0; d < layout.rank(); ++d)
      coords.push_back(
          arith::AddIOp::create(b, loc, a.base[d], kl.i32(a.plan.local[g][d])));
    Value index = linearIndex(b, loc, view, coords);
    Value bit = arith::MulIOp::create(b, loc, index, kl.i64(bits));
    Value byte = arith::ShRUIOp::create(b, loc, bit, kl.i64(3));
    a.groupPtrs.push_back(kl.gep(view.ptr, byte));
    unsigned natural = bits % 8 == 0 ? bits / 8 : 0;
    if (a.plan.align > natural || bits % 8) {
      Value addr = arith::AddIOp::create(b, loc, ptrInt, byte);
      Value low = arith::AndIOp::create(b, loc, addr, kl.i64(a.plan.align - 1));
      if (bits % 8)
        low = arith::OrIOp::create(
            b, loc, low, arith::AndIOp::create(b, loc, bit, kl.i64(7)));
      misalign = misalign
                     ? arith::OrIOp::create(b, loc, misalign, low).getResult()
                     : low;
    }
  }
  if (misalign)
    andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misalign,
                                  kl.i64(0)));
  a.fast = fast;
  return a;
}

LogicalResult KernelLowering::lowerLoad(mlir::tile::LoadOp op) {
  ViewValue *view = lookupView(op.getView());
  if (!view)
    return op.emitOpError("view was not lowered (views must be defined by "
                          "tile.view in the kernel)");
  FailureOr<DistributedLayout> layout = layoutOf(op, op.getType());
  if (failed(layout))
    return failure();
  Type elem = op.getType().getElementType();
  Type storage = storageType(elem);
  unsigned bits = mlir::tile::getElementBitWidth(elem);
  SmallVector<Value, 4> offsets;
  for (Value o : op.getOffsets())
    offsets.push_back(values[o][0]);
  GlobalAccess a = prepareGlobal(*this, loc, *view, offsets, *layout, bits);
  int64_t n = layout->localSize();
  // Sub-byte tiles whose groups are whole 32-bit words travel as packed
  // words (lib/Layout's SubBytePacking) so that casts can use word-wide bit
  // tricks; the slots are unpacked after the join.
  bool asWords = bits < 8 && 32 % bits == 0 && (n * bits) % 32 == 0 &&
                 a.plan.vec && (a.plan.vec * bits) % 32 == 0;
  int64_t numWords = n * bits / 32;
  SmallVector<Type> types(asWords ? numWords : n,
                          asWords ? Type(b.getI32Type()) : storage);
  auto ifOp = scf::IfOp::create(b, loc, types, a.fast, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Regs regs;
    if (asWords) {
      int64_t perGroup = a.plan.vec * bits / 32;
      Type memType = perGroup == 1
                         ? Type(b.getI32Type())
                         : Type(VectorType::get({perGroup}, b.getI32Type()));
      for (Value ptr : a.groupPtrs) {
        Value v = LLVM::LoadOp::create(b, loc, memType, ptr, a.plan.align);
        if (perGroup == 1)
          regs.push_back(v);
        else
          for (int64_t k = 0; k < perGroup; ++k)
            regs.push_back(LLVM::ExtractElementOp::create(b, loc, v, i32(k)));
      }
    } else if (a.plan.vec)
      for (auto [g, ptr] : llvm::enumerate(a.groupPtrs))
        llvm::append_range(regs, loadGroup(b, loc, ptr, storage, a.plan.vec,
                                           bits, a.plan.align));
    else
      for (int64_t l = 0; l < n; ++l)
        regs.push_back(paddingValue(b, loc, Attribute(), storage));
    scf::YieldOp::create(b, loc, ValueRange(regs));
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Regs regs;
    Value pad = paddingValue(b, loc, op.getPaddingAttr(), storage);
    for (int64_t l = 0; l < n; ++l) {
      SmallVector<Value, 4> coords;
      for (unsigned d = 0; d < layout->rank(); ++d)
        coords.push_back(
            arith::AddIOp::create(b, loc, a.base[d], i32(a.plan.local[l][d])));
      Value ok = inBounds(b, loc, coords, view->dims);
      auto elemIf = scf::IfOp::create(b, loc, TypeRange{storage}, ok, true);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&elemIf.getThenRegion().front());
        Value index = linearIndex(b, loc, *view, coords);
        scf::YieldOp::create(b, loc,
                             loadElement(b, loc, *view, index, storage, bits));
        b.setInsertionPointToStart(&elemIf.getElseRegion().front());
        scf::YieldOp::create(b, loc, pad);
      }
      regs.push_back(elemIf.getResult(0));
    }
    if (asWords) {
      Regs words(numWords, Value());
      for (int64_t l = 0; l < n; ++l) {
        Value v = arith::ExtUIOp::create(b, loc, b.getI32Type(), regs[l]);
        if ((l * bits) % 32)
          v = arith::ShLIOp::create(b, loc, v, i32((l * bits) % 32));
        Value &w = words[l * bits / 32];
        w = w ? arith::OrIOp::create(b, loc, w, v).getResult() : v;
      }
      regs = words;
    }
    scf::YieldOp::create(b, loc, ValueRange(regs));
  }
  Regs results(ifOp.getResults().begin(), ifOp.getResults().end());
  if (asWords) {
    packedWords[op.getResult()] = results;
    Regs slots;
    for (int64_t l = 0; l < n; ++l) {
      Value w = results[l * bits / 32];
      if ((l * bits) % 32)
        w = arith::ShRUIOp::create(b, loc, w, i32((l * bits) % 32));
      slots.push_back(arith::TruncIOp::create(b, loc, storage, w));
    }
    results = slots;
  }
  values[op.getResult()] = results;
  return success();
}

LogicalResult KernelLowering::lowerStore(mlir::tile::StoreOp op) {
  ViewValue *view = lookupView(op.getView());
  if (!view)
    return op.emitOpError("view was not lowered");
  auto type = cast<RankedTensorType>(op.getValue().getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  unsigned bits = mlir::tile::getElementBitWidth(type.getElementType());
  const Regs &regs = values[op.getValue()];
  SmallVector<Value, 4> offsets;
  for (Value o : op.getOffsets())
    offsets.push_back(values[o][0]);
  // Replicated elements are written once, by their first holder.
  bool replicated = layout->replication() > 1;
  OpBuilder::InsertionGuard guard(b);
  if (replicated) {
    auto owner = scf::IfOp::create(b, loc, isFirstHolder(*layout), false);
    b.setInsertionPointToStart(&owner.getThenRegion().front());
  }
  GlobalAccess a = prepareGlobal(*this, loc, *view, offsets, *layout, bits);
  auto ifOp = scf::IfOp::create(b, loc, a.fast, /*withElse=*/true);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  if (a.plan.vec)
    for (auto [g, ptr] : llvm::enumerate(a.groupPtrs))
      storeGroup(b, loc, ptr,
                 ArrayRef<Value>(regs).slice(g * a.plan.vec, a.plan.vec), bits,
                 a.plan.align);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<Value, 4> coords;
    for (unsigned d = 0; d < layout->rank(); ++d)
      coords.push_back(
          arith::AddIOp::create(b, loc, a.base[d], i32(a.plan.local[l][d])));
    Value ok = inBounds(b, loc, coords, view->dims);
    auto elemIf = scf::IfOp::create(b, loc, ok, false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&elemIf.getThenRegion().front());
    storeElement(b, loc, *view, linearIndex(b, loc, *view, coords), regs[l],
                 bits);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

Value applySwizzle(KernelLowering &kl, Location loc, Value offset,
                   const ::tile::layout::Swizzle &s) {
  if (s.isIdentity())
    return offset;
  OpBuilder &b = kl.builder();
  int64_t mask = ((int64_t(1) << s.bits) - 1) << (s.base + s.shift);
  Value hi = arith::AndIOp::create(b, loc, offset, kl.i32(mask));
  Value moved = arith::ShRUIOp::create(b, loc, hi, kl.i32(s.shift));
  return arith::XOrIOp::create(b, loc, offset, moved);
}

namespace {
/// Addressing of a tile in shared memory.
struct SharedAccess {
  int64_t vec = 0;
  unsigned align = 1;
  SmallVector<Value> groupPtrs;
};
} // namespace

static FailureOr<SharedAccess>
prepareShared(KernelLowering &kl, Operation *op, Location loc, Value base,
              const SharedLayout &smem, Value prefix, int64_t prefixAlign,
              const DistributedLayout &layout, unsigned bits) {
  OpBuilder &b = kl.builder();
  SharedAccess a;
  a.vec = ::tile::layout::maxVectorWidth(layout, smem, bits);
  if (a.vec == 0)
    return op->emitOpError("sub-byte elements of this layout are not "
                           "byte-aligned in shared memory");
  if (prefix)
    while (a.vec > 1 && prefixAlign % a.vec)
      a.vec /= 2;
  a.align = alignOf(a.vec * bits / 8);
  SmallVector<Value, 4> sp = kl.spatialCoords(layout);
  ArrayRef<int64_t> strides = smem.strides();
  Value linT = prefix ? prefix : kl.i32(0);
  for (unsigned d = 0; d < layout.rank(); ++d)
    if (strides[d])
      linT = arith::AddIOp::create(
          b, loc, linT,
          arith::MulIOp::create(b, loc, sp[d], kl.i32(strides[d])));
  for (int64_t g = 0; g < layout.localSize(); g += a.vec) {
    SmallVector<int64_t, 4> c = layout.apply(0, g);
    int64_t linL = 0;
    for (unsigned d = 0; d < layout.rank(); ++d)
      linL += c[d] * strides[d];
    Value off =
        applySwizzle(kl, loc, arith::AddIOp::create(b, loc, linT, kl.i32(linL)),
                     smem.swizzle());
    Value byte =
        bits % 8 == 0
            ? arith::MulIOp::create(b, loc, off, kl.i32(bits / 8)).getResult()
            : arith::ShRUIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, off, kl.i32(bits)),
                  kl.i32(3))
                  .getResult();
    a.groupPtrs.push_back(kl.gep(base, byte));
  }
  return a;
}

LogicalResult KernelLowering::storeShared(Operation *op, Value base,
                                          const SharedLayout &smem,
                                          Value prefix, int64_t prefixAlign,
                                          const DistributedLayout &layout,
                                          Type elemType, const Regs &regs,
                                          bool onlyFirstHolder) {
  unsigned bits = mlir::tile::getElementBitWidth(elemType);
  OpBuilder::InsertionGuard guard(b);
  if (onlyFirstHolder && layout.replication() > 1) {
    auto owner = scf::IfOp::create(b, loc, isFirstHolder(layout), false);
    b.setInsertionPointToStart(&owner.getThenRegion().front());
  }
  FailureOr<SharedAccess> a = prepareShared(*this, op, loc, base, smem, prefix,
                                            prefixAlign, layout, bits);
  if (failed(a))
    return failure();
  for (auto [g, ptr] : llvm::enumerate(a->groupPtrs))
    storeGroup(b, loc, ptr, ArrayRef<Value>(regs).slice(g * a->vec, a->vec),
               bits, a->align);
  return success();
}

FailureOr<Regs> KernelLowering::loadShared(Operation *op, Value base,
                                           const SharedLayout &smem,
                                           Value prefix, int64_t prefixAlign,
                                           const DistributedLayout &layout,
                                           Type elemType, Regs *packedOut) {
  unsigned bits = mlir::tile::getElementBitWidth(elemType);
  FailureOr<SharedAccess> a = prepareShared(*this, op, loc, base, smem, prefix,
                                            prefixAlign, layout, bits);
  if (failed(a))
    return failure();
  Regs regs;
  Regs words;
  // NVIDIA only for now: measured and emulator-checked there; on gfx942
  // the word-wise unpacking was seen to put gemm_wq f4e2m1 in scratch.
  Regs *wordsOut = bits < 8 && warpSize() == 32 ? &words : nullptr;
  for (Value ptr : a->groupPtrs)
    llvm::append_range(regs, loadGroup(b, loc, ptr, storageType(elemType),
                                       a->vec, bits, a->align, &wordsOut));
  // Sub-byte tiles read as whole words keep them, packed as in lib/Layout's
  // SubBytePacking (slot l at bit l * bits of the thread's words), for the
  // word-wide conversions of LowerCast.cpp.
  if (wordsOut && !words.empty() && packedOut)
    *packedOut = std::move(words);
  return regs;
}

/// The slice of a shared buffer that a shared_load/store/copy_async touches:
/// the layout of the trailing dims (with the buffer's swizzle) and the
/// element offset of its origin (plus how much of it is known aligned).
static LogicalResult sliceOf(KernelLowering &kl, Operation *op,
                             const SharedValue &s, ValueRange oldIndices,
                             ArrayRef<Value> indices,
                             ArrayRef<int64_t> tileShape, SharedLayout &slice,
                             Value &prefix, int64_t &prefixAlign) {
  ArrayRef<int64_t> strides = s.layout.strides();
  unsigned lead = s.type.getRank() - tileShape.size();
  // The tile's own extents: a slice may cover part of a dimension
  // (`buf[0 : 4, :]` of an 8-row buffer); its start is in the prefix.
  SmallVector<int64_t, 4> shape(tileShape);
  SmallVector<int64_t, 4> sliceStrides(strides.drop_front(lead));
  auto l = SharedLayout::get(shape, sliceStrides, s.layout.swizzle());
  if (!l)
    return op->emitOpError(llvm::toString(l.takeError()));
  slice = *l;
  OpBuilder &b = kl.builder();
  Location loc = op->getLoc();
  prefix = Value();
  prefixAlign = int64_t(1) << 30;
  for (unsigned d = 0; d < indices.size(); ++d) {
    std::optional<int64_t> cst = getConstantIntValue(oldIndices[d]);
    if (cst && *cst == 0)
      continue;
    int64_t align = cst ? std::abs(*cst * strides[d]) : strides[d];
    if (align == 0)
      continue;
    prefixAlign = std::gcd(prefixAlign, align);
    Value term = arith::MulIOp::create(b, loc, indices[d], kl.i32(strides[d]));
    prefix =
        prefix ? arith::AddIOp::create(b, loc, prefix, term).getResult() : term;
  }
  if (!prefix)
    prefixAlign = 0;
  return success();
}

LogicalResult KernelLowering::lowerSharedLoad(mlir::tile::SharedLoadOp op) {
  SharedValue *s = lookupShared(op.getBuffer());
  if (!s)
    return op.emitOpError("shared buffer was not lowered");
  FailureOr<DistributedLayout> layout = layoutOf(op, op.getType());
  if (failed(layout))
    return failure();
  SmallVector<Value> idx;
  for (Value v : op.getIndices())
    idx.push_back(values[v][0]);
  SharedLayout slice;
  Value prefix;
  int64_t prefixAlign;
  if (failed(sliceOf(*this, op, *s, op.getIndices(), idx, layout->shape(),
                     slice, prefix, prefixAlign)))
    return failure();
  Regs words;
  FailureOr<Regs> regs =
      loadShared(op, s->ptr, slice, prefix, prefixAlign, *layout,
                 op.getType().getElementType(), &words);
  if (failed(regs))
    return failure();
  values[op.getResult()] = *regs;
  if (!words.empty())
    packedWords[op.getResult()] = std::move(words);
  return success();
}

LogicalResult KernelLowering::lowerSharedStore(mlir::tile::SharedStoreOp op) {
  SharedValue *s = lookupShared(op.getBuffer());
  if (!s)
    return op.emitOpError("shared buffer was not lowered");
  auto type = cast<RankedTensorType>(op.getValue().getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  SmallVector<Value> idx;
  for (Value v : op.getIndices())
    idx.push_back(values[v][0]);
  SharedLayout slice;
  Value prefix;
  int64_t prefixAlign;
  if (failed(sliceOf(*this, op, *s, op.getIndices(), idx, layout->shape(),
                     slice, prefix, prefixAlign)))
    return failure();
  return storeShared(op, s->ptr, slice, prefix, prefixAlign, *layout,
                     type.getElementType(), values[op.getValue()],
                     /*onlyFirstHolder=*/true);
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

/// Chunk size (16, 8 or 4 bytes) for copying a tile of `bits`-bit elements
/// as raw bytes, or 0. Requires every row of `slice` (the last dimension) to
/// be a contiguous packed bit stream (unit stride, no swizzle) that starts
/// on a chunk boundary and holds a whole number of chunks, so that a chunk
/// of global bytes lands on a chunk of shared bytes of the same row even
/// when it splits elements (3-, 5-, 6- and 7-bit types).
static int64_t rawChunkBytes(const SharedLayout &slice, Value prefix,
                             int64_t prefixAlign, unsigned bits) {
  ArrayRef<int64_t> shape = slice.shape();
  if (bits % 8 == 0 || !slice.swizzle().isIdentity() ||
      slice.strides().back() != 1)
    return 0;
  int64_t rows = 1;
  for (int64_t e : shape.drop_back())
    rows *= e;
  for (int64_t bytes : {16, 8, 4}) {
    int64_t chunkBits = bytes * 8;
    if ((shape.back() * bits) % chunkBits ||
        (prefix && (prefixAlign * bits) % chunkBits))
      continue;
    bool ok = true;
    SmallVector<int64_t, 4> c(shape.size(), 0);
    for (int64_t r = 0; ok && r < rows; ++r) {
      int64_t rest = r;
      for (int d = int(shape.size()) - 2; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
      }
      ok = (slice.offset(c) * int64_t(bits)) % chunkBits == 0;
    }
    if (ok)
      return bytes;
  }
  return 0;
}

/// Clamps an i64 to [lo, hi].
static Value clampI64(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                hi);
}

/// tile.copy_async of packed sub-byte rows as raw byte chunks (see
/// rawChunkBytes). Chunk j of a tile row covers the row's bits
/// [j * C, (j + 1) * C), C = 8 * chunkBytes. A chunk whose bits all belong to
/// elements inside the view, on an aligned global address of a unit-stride
/// row, is one cp.async (or one vector load and store); any other chunk is
/// assembled exactly: the bits of elements inside the view come from
/// global memory (only bytes holding such bits are read) and every other
/// bit is zero, as the host reference pads.
static LogicalResult lowerRawCopy(KernelLowering &kl,
                                  mlir::tile::CopyAsyncOp op,
                                  const ViewValue &view, const SharedValue &s,
                                  const SharedLayout &slice, Value prefix,
                                  int64_t chunkBytes, Value tid,
                                  int64_t threads) {
  OpBuilder &b = kl.builder();
  Location loc = op.getLoc();
  TargetLowering &tl = kl.target();
  unsigned rank = view.dims.size();
  unsigned bits = mlir::tile::getElementBitWidth(view.elementType);
  Type storage = KernelLowering::storageType(view.elementType);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  ArrayRef<int64_t> shape = slice.shape();
  int64_t last = shape.back();
  int64_t chunkBits = chunkBytes * 8;
  int64_t perRow = last * bits / chunkBits;
  int64_t rows = 1;
  for (int64_t e : shape.drop_back())
    rows *= e;
  int64_t numChunks = rows * perRow;
  int64_t numWords = chunkBytes / 4;
  Type wordsType = numWords == 1 ? Type(i32) : VectorType::get({numWords}, i32);
  SmallVector<Value, 4> srcOff;
  for (Value o : op.getSrcOffsets())
    srcOff.push_back(kl.lookup(o)[0]);
  Value ptrInt = LLVM::PtrToIntOp::create(b, loc, i64, view.ptr);
  bool async = tl.hasAsyncCopy();
  auto ext64 = [&](Value v) { return arith::ExtSIOp::create(b, loc, i64, v); };

  for (int64_t iter = 0; iter * threads < numChunks; ++iter) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk = arith::AddIOp::create(b, loc, tid, kl.i32(iter * threads));
    if ((iter + 1) * threads > numChunks) {
      Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         chunk, kl.i32(numChunks));
      auto guardIf = scf::IfOp::create(b, loc, live, false);
      b.setInsertionPointToStart(&guardIf.getThenRegion().front());
    }
    // Chunk j of row `row`; the row's coordinates (all but the last dim).
    Value j = arith::RemUIOp::create(b, loc, chunk, kl.i32(perRow));
    Value rest = arith::DivUIOp::create(b, loc, chunk, kl.i32(perRow));
    SmallVector<Value, 4> coord(rank, kl.i32(0));
    for (int d = int(rank) - 2; d >= 0; --d) {
      coord[d] = d == 0 ? rest
                        : arith::RemUIOp::create(b, loc, rest, kl.i32(shape[d]))
                              .getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(b, loc, rest, kl.i32(shape[d]));
    }
    // Shared address: the row's bit offset is a multiple of chunkBits.
    Value lin = prefix ? prefix : kl.i32(0);
    for (unsigned d = 0; d + 1 < rank; ++d)
      lin = arith::AddIOp::create(
          b, loc, lin,
          arith::MulIOp::create(b, loc, coord[d], kl.i32(slice.strides()[d])));
    Value dstByte = arith::AddIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc,
                               arith::MulIOp::create(b, loc, lin, kl.i32(bits)),
                               kl.i32(3)),
        arith::MulIOp::create(b, loc, j, kl.i32(chunkBytes)));
    Value dst = kl.gep(s.ptr, dstByte);
    // Global coordinates of the row's first element; rows inside the view.
    SmallVector<Value, 4> g;
    for (unsigned d = 0; d < rank; ++d)
      g.push_back(arith::AddIOp::create(b, loc, srcOff[d], coord[d]));
    Value rowOk = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    for (unsigned d = 0; d + 1 < rank; ++d)
      rowOk = arith::AndIOp::create(
          b, loc, rowOk,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g[d],
                                view.dims[d]));
    // Bits [lo, hi) of the tile row belong to elements inside the view.
    Value col0 = ext64(g.back());
    Value lo = arith::MulIOp::create(
        b, loc,
        arith::MaxSIOp::create(b, loc, kl.i64(0),
                               arith::SubIOp::create(b, loc, kl.i64(0), col0)),
        kl.i64(bits));
    Value hi = arith::MulIOp::create(
        b, loc,
        arith::MinSIOp::create(
            b, loc, kl.i64(last),
            arith::SubIOp::create(b, loc, ext64(view.dims.back()), col0)),
        kl.i64(bits));
    Value c0 = arith::MulIOp::create(b, loc, ext64(j), kl.i64(chunkBits));
    Value c1 = arith::AddIOp::create(b, loc, c0, kl.i64(chunkBits));
    // Bit address (relative to the view's pointer) of the row's element 0.
    Value rowBit = arith::MulIOp::create(b, loc, linearIndex(b, loc, view, g),
                                         kl.i64(bits));
    Value full = arith::AndIOp::create(
        b, loc, rowOk,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lo, c0),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, c1, hi)));
    Value rowByte = arith::ShRSIOp::create(b, loc, rowBit, kl.i64(3));
    Value addr = arith::AddIOp::create(b, loc, ptrInt, rowByte);
    Value low = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, addr, kl.i64(chunkBytes - 1)),
        arith::AndIOp::create(b, loc, rowBit, kl.i64(7)));
    Value aligned =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, kl.i64(0));
    if (!view.contiguous)
      aligned = arith::AndIOp::create(
          b, loc, aligned,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                view.strides.back(), kl.i64(1)));
    full = arith::AndIOp::create(b, loc, full, aligned);

    auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value src = kl.gep(
        view.ptr,
        arith::AddIOp::create(
            b, loc, rowByte,
            arith::MulIOp::create(b, loc, ext64(j), kl.i64(chunkBytes))));
    if (async) {
      tl.asyncCopy(b, loc, dst, src, chunkBytes, kl.i32(chunkBytes));
    } else {
      Value v = LLVM::LoadOp::create(b, loc, wordsType, src, chunkBytes);
      LLVM::StoreOp::create(b, loc, v, dst, chunkBytes);
    }

    // Edge, misaligned or strided chunk: assembled exactly, then stored.
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value a = arith::MaxSIOp::create(b, loc, lo, c0);
    Value z = arith::MinSIOp::create(b, loc, hi, c1);
    Value any = arith::AndIOp::create(
        b, loc, rowOk,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, z));
    SmallVector<Type> wordTypes(numWords, i32);
    auto anyIf = scf::IfOp::create(b, loc, wordTypes, any, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&anyIf.getElseRegion().front());
      SmallVector<Value> zeros(numWords, kl.i32(0));
      scf::YieldOp::create(b, loc, zeros);
      b.setInsertionPointToStart(&anyIf.getThenRegion().front());
      // Byte path (unit stride): the chunk is global bits
      // [rowBit + c0, rowBit + c1); read the bytes at floor((rowBit + c0) / 8)
      // + k clamped to the bytes holding bits [rowBit + a, rowBit + z), so
      // that no byte outside the view's elements is touched, then mask.
      auto bytePath = [&]() {
        Value g0 = arith::AddIOp::create(b, loc, rowBit, c0);
        Value b0 = arith::ShRSIOp::create(b, loc, g0, kl.i64(3));
        Value sh = arith::TruncIOp::create(
            b, loc, i32, arith::AndIOp::create(b, loc, g0, kl.i64(7)));
        Value firstByte = arith::ShRSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, rowBit, a), kl.i64(3));
        Value lastByte = arith::ShRSIOp::create(
            b, loc,
            arith::SubIOp::create(
                b, loc, arith::AddIOp::create(b, loc, rowBit, z), kl.i64(1)),
            kl.i64(3));
        SmallVector<Value> loaded;
        for (int64_t k = 0; k <= chunkBytes; ++k) {
          Value at =
              clampI64(b, loc, arith::AddIOp::create(b, loc, b0, kl.i64(k)),
                       firstByte, lastByte);
          Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(),
                                            kl.gep(view.ptr, at), 1);
          loaded.push_back(arith::ExtUIOp::create(b, loc, i32, byte));
        }
        SmallVector<Value> words(numWords, kl.i32(0));
        for (int64_t i = 0; i < chunkBytes; ++i) {
          Value pair = arith::OrIOp::create(
              b, loc, loaded[i],
              arith::ShLIOp::create(b, loc, loaded[i + 1], kl.i32(8)));
          Value v = arith::AndIOp::create(
              b, loc, arith::ShRUIOp::create(b, loc, pair, sh), kl.i32(0xff));
          // Bits k of this byte with a <= c0 + 8i + k < z.
          Value at = arith::AddIOp::create(b, loc, c0, kl.i64(8 * i));
          auto bound = [&](Value x) {
            return arith::TruncIOp::create(
                b, loc, i32,
                clampI64(b, loc, arith::SubIOp::create(b, loc, x, at),
                         kl.i64(0), kl.i64(8)));
          };
          Value one = kl.i32(1);
          Value below = arith::SubIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, one, bound(z)), one);
          Value under = arith::SubIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, one, bound(a)), one);
          Value mask = arith::AndIOp::create(
              b, loc, below, arith::XOrIOp::create(b, loc, under, kl.i32(-1)));
          v = arith::AndIOp::create(b, loc, v, mask);
          if (i % 4)
            v = arith::ShLIOp::create(b, loc, v, kl.i32(8 * (i % 4)));
          words[i / 4] = arith::OrIOp::create(b, loc, words[i / 4], v);
        }
        return words;
      };
      if (view.contiguous) {
        scf::YieldOp::create(b, loc, bytePath());
      } else {
        // Strided views: element by element when the stride is not 1.
        // Element eBase + k (eBase = floor(c0 / bits)) sits at bit
        // k * bits - (c0 - eBase * bits) of the chunk.
        Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           view.strides.back(), kl.i64(1));
        auto strideIf =
            scf::IfOp::create(b, loc, wordTypes, unit, /*withElse=*/true);
        scf::YieldOp::create(b, loc, strideIf.getResults());
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&strideIf.getThenRegion().front());
        scf::YieldOp::create(b, loc, bytePath());
        b.setInsertionPointToStart(&strideIf.getElseRegion().front());
        int64_t count = chunkBits / bits + 2;
        Type wide = b.getIntegerType(count * bits);
        Value eBase = arith::DivUIOp::create(b, loc, c0, kl.i64(bits));
        Value phase = arith::SubIOp::create(
            b, loc, c0, arith::MulIOp::create(b, loc, eBase, kl.i64(bits)));
        Value acc = arith::ConstantIntOp::create(b, loc, wide, 0);
        for (int64_t k = 0; k < count; ++k) {
          Value e = arith::AddIOp::create(b, loc, eBase, kl.i64(k));
          Value eb = arith::MulIOp::create(b, loc, e, kl.i64(bits));
          Value ok = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lo, eb),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, eb, hi));
          auto elemIf = scf::IfOp::create(b, loc, TypeRange{storage}, ok, true);
          {
            OpBuilder::InsertionGuard g4(b);
            b.setInsertionPointToStart(&elemIf.getThenRegion().front());
            SmallVector<Value, 4> ck(g.begin(), g.end());
            ck.back() = arith::AddIOp::create(
                b, loc, ck.back(), arith::TruncIOp::create(b, loc, i32, e));
            scf::YieldOp::create(b, loc,
                                 loadElement(b, loc, view,
                                             linearIndex(b, loc, view, ck),
                                             storage, bits));
            b.setInsertionPointToStart(&elemIf.getElseRegion().front());
            scf::YieldOp::create(b, loc,
                                 paddingValue(b, loc, Attribute(), storage));
          }
          Value code = elemIf.getResult(0);
          if (isa<FloatType>(storage))
            code =
                arith::BitcastOp::create(b, loc, b.getIntegerType(bits), code);
          Value part = arith::ExtUIOp::create(b, loc, wide, code);
          if (k)
            part = arith::ShLIOp::create(
                b, loc, part,
                arith::ConstantIntOp::create(b, loc, wide, k * bits));
          acc = arith::OrIOp::create(b, loc, acc, part);
        }
        acc = arith::ShRUIOp::create(
            b, loc, acc, arith::ExtUIOp::create(b, loc, wide, phase));
        SmallVector<Value> words;
        for (int64_t w = 0; w < numWords; ++w) {
          Value s = acc;
          if (w)
            s = arith::ShRUIOp::create(
                b, loc, acc,
                arith::ConstantIntOp::create(b, loc, wide, 32 * w));
          words.push_back(arith::TruncIOp::create(b, loc, i32, s));
        }
        scf::YieldOp::create(b, loc, words);
      }
    }
    Value v = anyIf.getResult(0);
    if (numWords > 1) {
      v = LLVM::PoisonOp::create(b, loc, wordsType);
      for (int64_t w = 0; w < numWords; ++w)
        v = LLVM::InsertElementOp::create(b, loc, v, anyIf.getResult(w),
                                          kl.i32(w));
    }
    LLVM::StoreOp::create(b, loc, v, dst, chunkBytes);
  }
  if (async)
    tl.asyncCommitGroup(b, loc);
  return success();
}

LogicalResult KernelLowering::lowerCopyAsync(mlir::tile::CopyAsyncOp op) {
  ViewValue *view = lookupView(op.getSrc());
  SharedValue *s = lookupShared(op.getDst());
  if (!view || !s)
    return op.emitOpError("source view or destination buffer not lowered");
  unsigned rank = view->dims.size();
  unsigned bits = mlir::tile::getElementBitWidth(view->elementType);
  Type storage = storageType(view->elementType);
  SmallVector<Value> idx;
  for (Value v : op.getDstIndices())
    idx.push_back(values[v][0]);
  SharedLayout slice;
  Value prefix;
  int64_t prefixAlign;
  // A copy fills the buffer's trailing dimensions (tile.copy_async).
  if (failed(sliceOf(*this, op, *s, op.getDstIndices(), idx,
                     s->type.getShape().take_back(rank), slice, prefix,
                     prefixAlign)))
    return failure();
  ArrayRef<int64_t> shape = slice.shape();
  int64_t numElements = 1;
  for (int64_t e : shape)
    numElements *= e;
  int64_t last = shape.back();

  // Chunk size: the widest of 16/8/4 bytes whose elements are contiguous
  // and aligned in shared memory for every chunk (checked by enumeration).
  int64_t vec = 0;
  for (int64_t bytes : {16, 8, 4}) {
    if ((bytes * 8) % bits)
      continue;
    int64_t v = bytes * 8 / bits;
    if (last % v || (prefix && prefixAlign % v))
      continue;
    bool ok = true;
    for (int64_t e = 0; ok && e < numElements; e += v) {
      SmallVector<int64_t, 4> c(shape.size());
      int64_t rest = e;
      for (int d = int(shape.size()) - 1; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
      }
      int64_t o0 = slice.offset(c);
      if (o0 % v)
        ok = false;
      for (int64_t k = 1; ok && k < v; ++k) {
        c.back() += 1;
        if (slice.offset(c) != o0 + k)
          ok = false;
      }
    }
    if (ok) {
      vec = v;
      break;
    }
  }
  // Rows narrower than the smallest cp.async (4 bytes) of whole-byte
  // elements: a synchronous copy, element by element.
  bool synchronous = false;
  if (vec == 0) {
    int64_t rawBytes = rawChunkBytes(slice, prefix, prefixAlign, bits);
    if (rawBytes == 0 && bits % 8)
      return op.emitOpError(
          "the shared layout of the destination has no 4-byte contiguous "
          "runs (neither of whole elements nor of packed rows); cannot copy");
    if (rawBytes != 0) {
      int64_t threads =
          kernel->getAttrOfType<IntegerAttr>("tile.warps").getInt() *
          warpSize();
      return lowerRawCopy(*this, op, *view, *s, slice, prefix, rawBytes, tid,
                          threads);
    }
    vec = 1;
    synchronous = true;
  }
  int64_t chunkBytes = vec * bits / 8;
  int64_t numChunks = numElements / vec;
  int64_t threads =
      kernel->getAttrOfType<IntegerAttr>("tile.warps").getInt() * warpSize();
  SmallVector<Value, 4> srcOff;
  for (Value o : op.getSrcOffsets())
    srcOff.push_back(values[o][0]);
  Value ptrInt = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), view->ptr);
  bool async = tl.hasAsyncCopy();

  for (int64_t iter = 0; iter * threads < numChunks; ++iter) {
    OpBuilder::InsertionGuard guard(b);
    Value chunk = arith::AddIOp::create(b, loc, tid, i32(iter * threads));
    if ((iter + 1) * threads > numChunks) {
      Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         chunk, i32(numChunks));
      auto guardIf = scf::IfOp::create(b, loc, live, false);
      b.setInsertionPointToStart(&guardIf.getThenRegion().front());
    }
    // Tile coordinate of the chunk's first element (row-major, last dim in
    // units of vec).
    SmallVector<Value, 4> coord(rank);
    Value rest = chunk;
    for (int d = int(rank) - 1; d >= 0; --d) {
      int64_t extent = d == int(rank) - 1 ? last / vec : shape[d];
      Value digit =
          d == 0
              ? rest
              : arith::RemUIOp::create(b, loc, rest, i32(extent)).getResult();
      if (d > 0)
        rest = arith::DivUIOp::create(b, loc, rest, i32(extent));
      coord[d] =
          d == int(rank) - 1
              ? arith::MulIOp::create(b, loc, digit, i32(vec)).getResult()
              : digit;
    }
    // Shared address.
    Value lin = prefix ? prefix : i32(0);
    for (unsigned d = 0; d < rank; ++d)
      lin = arith::AddIOp::create(
          b, loc, lin,
          arith::MulIOp::create(b, loc, coord[d], i32(slice.strides()[d])));
    Value off = applySwizzle(*this, loc, lin, slice.swizzle());
    Value dstByte = arith::ShRUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, off, i32(bits)), i32(3));
    Value dst = gep(s->ptr, dstByte);
    // Global coordinates, bounds and alignment.
    SmallVector<Value, 4> g;
    for (unsigned d = 0; d < rank; ++d)
      g.push_back(arith::AddIOp::create(b, loc, srcOff[d], coord[d]));
    Value full;
    auto andWith = [&](Value c) {
      full = full ? arith::AndIOp::create(b, loc, full, c).getResult() : c;
    };
    for (unsigned d = 0; d < rank; ++d) {
      int64_t extra = d == rank - 1 ? vec - 1 : 0;
      andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, g[d],
                                    i32(0)));
      andWith(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt,
          arith::AddIOp::create(b, loc, g[d], i32(extra)), view->dims[d]));
    }
    if (!view->contiguous)
      andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    view->strides.back(), i64(1)));
    Value index = linearIndex(b, loc, *view, g);
    Value bit = arith::MulIOp::create(b, loc, index, i64(bits));
    Value byte = arith::ShRUIOp::create(b, loc, bit, i64(3));
    Value addr = arith::AddIOp::create(b, loc, ptrInt, byte);
    Value low = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, addr, i64(chunkBytes - 1)),
        arith::AndIOp::create(b, loc, bit, i64(7)));
    andWith(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, i64(0)));
    auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value src = gep(view->ptr, byte);
    if (async && !synchronous) {
      tl.asyncCopy(b, loc, dst, src, chunkBytes, i32(chunkBytes));
    } else {
      Regs r = loadGroup(b, loc, src, storage, vec, bits, alignOf(chunkBytes));
      storeGroup(b, loc, dst, r, bits, alignOf(chunkBytes));
    }
    // Edge or misaligned chunk: element by element, zero outside.
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Regs r;
    Value zero = paddingValue(b, loc, Attribute(), storage);
    for (int64_t k = 0; k < vec; ++k) {
      SmallVector<Value, 4> ck(g.begin(), g.end());
      ck.back() = arith::AddIOp::create(b, loc, ck.back(), i32(k));
      Value ok = inBounds(b, loc, ck, view->dims);
      auto elemIf = scf::IfOp::create(b, loc, TypeRange{storage}, ok, true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&elemIf.getThenRegion().front());
      scf::YieldOp::create(b, loc,
                           loadElement(b, loc, *view,
                                       linearIndex(b, loc, *view, ck), storage,
                                       bits));
      b.setInsertionPointToStart(&elemIf.getElseRegion().front());
      scf::YieldOp::create(b, loc, zero);
      r.push_back(elemIf.getResult(0));
    }
    storeGroup(b, loc, dst, r, bits, alignOf(chunkBytes));
  }
  // A synchronous copy still commits its (empty) group: wait(n) counts the
  // copy_async ops issued.
  if (async)
    tl.asyncCommitGroup(b, loc);
  return success();
}

} // namespace tile::gpu
