//===- LowerMemory.cpp - Global and shared memory accesses ----------------===//
//
// Part of tilec. tile.load / tile.store / tile.shared_load /
// tile.shared_store for the generic GPU lowering (tile.copy_async:
// LowerCopy.cpp).
//
// Global accesses have two paths per thread, chosen at run time by one
// branch: when every slot of the thread is inside the view and each vector
// group is aligned, groups of consecutive slots move with one vector access
// of up to 16 bytes (sub-byte elements as packed words, unpacked with shifts);
// otherwise every slot is accessed alone under its own bounds check (edge
// tiles). Shared accesses: LowerShared.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

unsigned alignOf(int64_t bytes) {
  unsigned a = 1;
  while (a < 16 && bytes % (2 * a) == 0)
    a *= 2;
  return a;
}

namespace {

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
Regs loadGroup(OpBuilder &b, Location loc, Value ptr, Type storage,
               int64_t count, unsigned bits, unsigned align, Regs **words) {
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
void storeGroup(OpBuilder &b, Location loc, Value ptr, ArrayRef<Value> slots,
                unsigned bits, unsigned align) {
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

Value linearIndexNSW(OpBuilder &b, Location loc, const ViewValue &view,
                     ArrayRef<Value> coords) {
  auto nsw = arith::IntegerOverflowFlags::nsw;
  if (coords.empty())
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value acc;
  for (auto [c, s] : llvm::zip(coords, view.strides)) {
    Value term = arith::MulIOp::create(
        b, loc, arith::ExtSIOp::create(b, loc, b.getI64Type(), c), s, nsw);
    acc =
        acc ? arith::AddIOp::create(b, loc, acc, term, nsw).getResult() : term;
  }
  return acc;
}

Value alignedBytes(OpBuilder &b, Location loc, Value x, unsigned bits) {
  Type t = x.getType();
  if (bits % 8 == 0)
    return arith::MulIOp::create(
        b, loc, x, arith::ConstantIntOp::create(b, loc, t, bits / 8),
        arith::IntegerOverflowFlags::nsw);
  if (8 % bits == 0)
    return arith::ShRSIOp::create(
        b, loc, x,
        arith::ConstantIntOp::create(b, loc, t, llvm::Log2_32(8 / bits)));
  // 3, 5, 6, 7 bits: x is a multiple of 8 / gcd(8, bits) elements.
  return arith::ShRSIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, x,
                            arith::ConstantIntOp::create(b, loc, t, bits),
                            arith::IntegerOverflowFlags::nsw),
      arith::ConstantIntOp::create(b, loc, t, 3));
}

/// Reads one element at linear index `index` of a view (no bounds check).
Value loadElement(OpBuilder &b, Location loc, const ViewValue &view,
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
  Value index0;               ///< linear index of slot 0 (i64)
  SmallVector<Value> groupPtrs;
};
} // namespace

/// The elements (i64) from slot `from` of an access to slot `to`: their
/// static local offsets' difference times the view's strides (null when
/// none). Addresses chained slot to slot need a few uniform steps (the
/// strides times the layout's distinct strides between slots), not one
/// linear index per slot, nor one uniform offset per slot (which LLVM hoists
/// out of loops and AMDGPU then keeps in scalar registers).
static Value offsetBetween(KernelLowering &kl, Location loc,
                           const ViewValue &view, const GlobalPlan &plan,
                           int64_t from, int64_t to) {
  OpBuilder &b = kl.builder();
  Value delta;
  for (unsigned d = 0; d < plan.local[to].size(); ++d) {
    int64_t dl = plan.local[to][d] - plan.local[from][d];
    if (dl == 0)
      continue;
    Value term = arith::MulIOp::create(b, loc, view.strides[d], kl.i64(dl));
    delta =
        delta ? arith::AddIOp::create(b, loc, delta, term).getResult() : term;
  }
  return delta;
}

/// The linear indices (i64) of every slot: slot 0's, then each from the
/// one before it.
static SmallVector<Value> slotIndices(KernelLowering &kl, Location loc,
                                      const ViewValue &view,
                                      const GlobalAccess &a) {
  SmallVector<Value> indices{a.index0};
  for (int64_t l = 1; l < int64_t(a.plan.local.size()); ++l) {
    Value step = offsetBetween(kl, loc, view, a.plan, l - 1, l);
    indices.push_back(
        step ? arith::AddIOp::create(kl.builder(), loc, indices.back(), step)
                   .getResult()
             : indices.back());
  }
  return indices;
}

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
  SmallVector<Value, 4> coords0;
  for (unsigned d = 0; d < layout.rank(); ++d)
    coords0.push_back(
        arith::AddIOp::create(b, loc, a.base[d], kl.i32(a.plan.local[0][d])));
  a.index0 = linearIndex(b, loc, view, coords0);
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
  // Group addresses: group 0's from its coordinates, every other group at
  // its static offset from the group before it (sum_d dl[d] x stride[d]
  // elements), so that a thread computes one linear index, not one per
  // group.
  a.groupPtrs.push_back(
      kl.gep(view.ptr, alignedBytes(b, loc, a.index0, bits)));
  for (int64_t g = a.plan.vec; g < layout.localSize(); g += a.plan.vec) {
    Value step = offsetBetween(kl, loc, view, a.plan, g - a.plan.vec, g);
    a.groupPtrs.push_back(
        step ? kl.gep(a.groupPtrs.back(), alignedBytes(b, loc, step, bits))
             : a.groupPtrs.back());
  }
  // Alignment: every group is aligned when group 0 is and each dim's step
  // between groups (the gcd of their offsets from group 0) moves a multiple
  // of the alignment; one check per dim instead of one per group.
  unsigned natural = bits % 8 == 0 ? bits / 8 : 0;
  if (a.plan.align > natural || bits % 8) {
    int64_t alignBits = 8 * int64_t(a.plan.align);
    Value bit0 = arith::MulIOp::create(b, loc, a.index0, kl.i64(bits));
    Value addr = arith::AddIOp::create(
        b, loc, LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), view.ptr),
        arith::ShRUIOp::create(b, loc, bit0, kl.i64(3)));
    Value misalign =
        arith::AndIOp::create(b, loc, addr, kl.i64(a.plan.align - 1));
    if (bits % 8)
      misalign = arith::OrIOp::create(
          b, loc, misalign, arith::AndIOp::create(b, loc, bit0, kl.i64(7)));
    for (unsigned d = 0; d < layout.rank(); ++d) {
      int64_t step = 0;
      for (int64_t g = 0; g < layout.localSize(); g += a.plan.vec)
        step = std::gcd(step, a.plan.local[g][d] - a.plan.local[0][d]);
      if (step == 0)
        continue;
      std::optional<int64_t> stride = getConstantIntValue(view.strides[d]);
      if (stride) {
        if ((*stride * step * bits) % alignBits)
          andWith(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
        continue;
      }
      Value stepBits =
          arith::MulIOp::create(b, loc, view.strides[d], kl.i64(step * bits));
      misalign = arith::OrIOp::create(
          b, loc, misalign,
          arith::AndIOp::create(b, loc, stepBits, kl.i64(alignBits - 1)));
    }
    andWith(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misalign,
                                  kl.i64(0)));
  }
  a.fast = fast;
  return a;
}

LogicalResult KernelLowering::lowerLoad(tile::LoadOp op) {
  ViewValue *view = lookupView(op.getView());
  if (!view)
    return op.emitOpError("view was not lowered (views must be defined by "
                          "tile.view in the kernel)");
  FailureOr<DistributedLayout> layout = layoutOf(op, op.getType());
  if (failed(layout))
    return failure();
  Type elem = op.getType().getElementType();
  Type storage = storageType(elem);
  unsigned bits = tile::getElementBitWidth(elem);
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
    SmallVector<Value> indices = slotIndices(*this, loc, *view, a);
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
        scf::YieldOp::create(
            b, loc, loadElement(b, loc, *view, indices[l], storage, bits));
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

LogicalResult KernelLowering::lowerStore(tile::StoreOp op) {
  ViewValue *view = lookupView(op.getView());
  if (!view)
    return op.emitOpError("view was not lowered");
  auto type = cast<RankedTensorType>(op.getValue().getType());
  FailureOr<DistributedLayout> layout = layoutOf(op, type);
  if (failed(layout))
    return failure();
  unsigned bits = tile::getElementBitWidth(type.getElementType());
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
  SmallVector<Value> indices = slotIndices(*this, loc, *view, a);
  for (int64_t l = 0; l < layout->localSize(); ++l) {
    SmallVector<Value, 4> coords;
    for (unsigned d = 0; d < layout->rank(); ++d)
      coords.push_back(
          arith::AddIOp::create(b, loc, a.base[d], i32(a.plan.local[l][d])));
    Value ok = inBounds(b, loc, coords, view->dims);
    auto elemIf = scf::IfOp::create(b, loc, ok, false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&elemIf.getThenRegion().front());
    storeElement(b, loc, *view, indices[l], regs[l], bits);
  }
  return success();
}

} // namespace tile::gpu

//===----------------------------------------------------------------------===//
// Views, shared buffers and synchronization
//===----------------------------------------------------------------------===//

namespace tile::gpu {

LogicalResult KernelLowering::lowerView(tile::ViewOp op) {
  ViewValue v;
  v.ptr = values[op.getPtr()][0];
  auto type = cast<tile::ViewType>(op.getType());
  v.elementType = type.getElementType();
  unsigned dyn = 0;
  for (int64_t d : type.getShape())
    v.dims.push_back(ShapedType::isDynamic(d) ? values[op.getDims()[dyn++]][0]
                                              : i32(d));
  if (!op.getStrides().empty()) {
    v.contiguous = false;
    for (Value s : op.getStrides())
      v.strides.push_back(
          arith::ExtSIOp::create(b, loc, b.getI64Type(), values[s][0]));
  } else {
    // Row-major: stride[d] = prod(dims[d+1:]).
    v.strides.assign(type.getRank(), Value());
    Value acc = i64(1);
    for (int d = int(type.getRank()) - 1; d >= 0; --d) {
      v.strides[d] = acc;
      if (d > 0)
        acc = arith::MulIOp::create(
            b, loc, acc,
            arith::ExtUIOp::create(b, loc, b.getI64Type(), v.dims[d]));
    }
  }
  views[op.getResult()] = v;
  return success();
}

SharedLayout sharedLayoutOf(tile::SharedType type) {
  if (auto enc = dyn_cast_or_null<tile::SharedLayoutAttr>(type.getEncoding()))
    return enc.getLayout();
  return SharedLayout::rowMajor(type.getShape());
}

LogicalResult KernelLowering::lowerAllocShared(tile::AllocSharedOp op) {
  auto offset = op->getAttrOfType<IntegerAttr>("tile.offset");
  if (!offset)
    return op->emitOpError(
        "needs a tile.offset attribute; run tile-allocate-shared first");
  auto type = cast<tile::SharedType>(op.getType());
  SharedValue s;
  s.type = type;
  s.layout = sharedLayoutOf(type);
  s.ptr = gep(sharedBase(), i32(offset.getInt()));
  shareds[op.getResult()] = s;
  return success();
}

/// The tile.barriers whose block, back to an earlier tile.barrier, holds
/// only ops that write no memory (shared loads, dots, arithmetic): no
/// shared memory was written since that barrier's proxy fence, so they
/// need none (tile-pipeline's barrier between a wgmma group's wait and the
/// copies that refill its stage); and every barrier of a kernel whose
/// shared buffers only TMA writes. Computed before the conversion, which
/// puts LLVM ops with side effects in between.
DenseSet<Operation *> KernelLowering::barriersAfterSharedReads() {
  auto writesNothing = [](Operation *op) {
    if (isa<tile::DotOp>(op))
      return true;
    // A cp.async wait lands copies: shared memory written since.
    if (isa<tile::WaitOp>(op))
      return false;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return false;
    return !effects.hasEffect<MemoryEffects::Write>() &&
           !effects.hasEffect<MemoryEffects::Allocate>() &&
           !effects.hasEffect<MemoryEffects::Free>();
  };
  DenseSet<Operation *> out;
  // Without shared stores and cp.async copies, what wgmma reads was written
  // by TMA (the async proxy, like wgmma; the mbarrier wait orders it): no
  // barrier needs the fence (scratch of layout conversions and reductions
  // is written and read by the generic proxy only).
  bool genericOperandWrites = false;
  kernel.walk([&](Operation *op) {
    auto copy = dyn_cast<tile::CopyAsyncOp>(op);
    if (isa<tile::SharedStoreOp>(op) || (copy && !copy.isTensorCopy()))
      genericOperandWrites = true;
  });
  kernel.walk([&](tile::BarrierOp barrier) {
    if (!genericOperandWrites) {
      out.insert(barrier);
      return;
    }
    for (Operation *p = barrier->getPrevNode(); p; p = p->getPrevNode()) {
      if (isa<tile::BarrierOp>(p)) {
        out.insert(barrier);
        break;
      }
      if (!writesNothing(p))
        break;
    }
  });
  return out;
}

LogicalResult KernelLowering::lowerBarrier(tile::BarrierOp op) {
  // Shared memory this thread wrote (its cp.async retired by the wait
  // before) may be read by wgmma after the barrier: order it for them.
  if (warpgroupMmaKernel && !unfencedBarriers.contains(op))
    tl.fenceSharedForWarpgroupMma(b, loc);
  tl.barrier(b, loc);
  return success();
}

LogicalResult KernelLowering::lowerWait(tile::WaitOp op) {
  tl.asyncWait(b, loc, op.getPending());
  return success();
}

void populateMemoryPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerLoad);
  addLowering(patterns, kl, &KernelLowering::lowerStore);
  addLowering(patterns, kl, &KernelLowering::lowerSharedLoad);
  addLowering(patterns, kl, &KernelLowering::lowerSharedStore);
  addLowering(patterns, kl, &KernelLowering::lowerView);
  addLowering(patterns, kl, &KernelLowering::lowerAllocShared);
  addLowering(patterns, kl, &KernelLowering::lowerBarrier);
  addLowering(patterns, kl, &KernelLowering::lowerWait);
}

} // namespace tile::gpu
