//===- LowerElementwise.cpp - arith/math ops, splats and iotas ------------===//
//
// Part of tilec. The elementwise ops of the generic GPU lowering: every
// arith and math op on tiles becomes one op per register (f16/bf16 add,
// sub and mul two registers at a time), the transcendental functions go
// through the target's fast f32 instructions, tile constants, splats and
// iotas become per-register scalars.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;

namespace tile::gpu {

FailureOr<Value> KernelLowering::lowerMath(Operation *op, ValueRange operands,
                                           Type resultType) {
  if (!isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::RsqrtOp,
           math::TanhOp>(op))
    return Value();
  Type f32 = b.getF32Type();
  if (!isa<FloatType>(resultType) ||
      cast<FloatType>(resultType).getWidth() > 32)
    return op->emitOpError("only f16/bf16/f32 are supported on GPUs");
  Value x = operands[0];
  if (resultType != f32)
    x = arith::ExtFOp::create(b, loc, f32, x);
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(float(v)));
  };
  Value r;
  if (isa<math::Exp2Op>(op)) {
    r = tl.exp2(b, loc, x);
  } else if (isa<math::ExpOp>(op)) {
    r = tl.exp2(b, loc, arith::MulFOp::create(b, loc, x, cst(M_LOG2E)));
  } else if (isa<math::Log2Op>(op)) {
    r = tl.log2(b, loc, x);
  } else if (isa<math::LogOp>(op)) {
    r = arith::MulFOp::create(b, loc, tl.log2(b, loc, x), cst(M_LN2));
  } else if (isa<math::RsqrtOp>(op)) {
    r = tl.rsqrt(b, loc, x);
  } else {
    // tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1)), exact at 0 and
    // saturating to +-1 for large |x|.
    Value ax = math::AbsFOp::create(b, loc, x);
    Value e =
        tl.exp2(b, loc, arith::MulFOp::create(b, loc, ax, cst(2.0 * M_LOG2E)));
    Value frac = arith::DivFOp::create(
        b, loc, cst(2.0), arith::AddFOp::create(b, loc, e, cst(1.0)));
    Value mag = arith::SubFOp::create(b, loc, cst(1.0), frac);
    r = math::CopySignOp::create(b, loc, mag, x);
  }
  if (resultType != f32)
    r = arith::TruncFOp::create(b, loc, resultType, r);
  return r;
}

/// Marks a float multiplication, addition or subtraction of the program as
/// contractible: the backend may fuse a product feeding a sum into one fma
/// (one rounding), as nvcc and hipcc do by default (HFMA2 for f16 pairs,
/// one instruction instead of HMUL2 + HADD2). Only the program's own
/// arithmetic: the compiler's internal sequences (casts) keep their
/// roundings. The host, the reference, does not contract.
void allowContraction(Operation *op) {
  if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
    return;
  auto fm = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue();
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::contract));
}

/// f16/bf16 additions, subtractions and multiplications: lowered two slots
/// at a time (lowerHalfPairs).
static bool isPairedHalfOp(Operation *op, ArrayRef<Type> resultTypes) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op) &&
         resultTypes.size() == 1 &&
         (resultTypes[0].isF16() || resultTypes[0].isBF16());
}

/// The element (0 or 1) of a two-element vector that \p v extracts, with
/// the vector, or a null vector.
static std::pair<Value, int64_t> pairElement(Value v) {
  auto extract = v.getDefiningOp<LLVM::ExtractElementOp>();
  if (!extract)
    return {};
  auto vecType = dyn_cast<VectorType>(extract.getVector().getType());
  IntegerAttr index;
  if (!vecType || vecType.getNumElements() != 2 ||
      !matchPattern(extract.getPosition(), m_Constant(&index)))
    return {};
  return {extract.getVector(), index.getInt()};
}

/// Whether every use of \p result, through reshapes, transposes, layout
/// conversions that rename registers and other paired operations, is a
/// dot: such a chain takes the pairs it is given, so every link of it
/// reuses its operands' pairs and the dot gets them. (A store or a layout
/// conversion that moves data wants the slots (2m, 2m + 1); a chain whose
/// links paired differently would pay byte permutes between them.)
bool KernelLowering::feedsOnlyDots(Value result) {
  SmallVector<Value> work{result};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<tile::DotOp>(user))
        continue;
      bool link =
          isa<tile::ReshapeOp, tile::TransOp>(user) ||
          (user->getNumResults() == 1 &&
           isPairedHalfOp(user,
                          getElementTypeOrSelf(user->getResult(0).getType())));
      if (auto convert = dyn_cast<tile::ConvertLayoutOp>(user)) {
        FailureOr<DistributedLayout> src =
            layoutOf(user, convert.getSrc().getType());
        FailureOr<DistributedLayout> dst = layoutOf(user, convert.getType());
        link = succeeded(src) && succeeded(dst) &&
               staticRemap(*src, *dst, [](ArrayRef<int64_t> c) {
                 return SmallVector<int64_t, 4>(c.begin(), c.end());
               });
      }
      if (!link)
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

/// The slot pairs of a paired lowering over \p count slots (count even):
/// two slots whose values in one operand are the two elements of one
/// vector (a word-wise conversion's pair, another paired operation's
/// result) form a pair, in element order, so that the vector is used as it
/// is; the other slots pair in order, (2m, 2m + 1) when no operand has such
/// vectors. The slots of a conversion's pair need not be neighbours: a
/// register renaming (the pre-packed weights' reshape and transpose) may
/// have moved them, and pairing (2m, 2m + 1) then would cost a byte
/// permute per register on the way in and another on the way to the mma.
static SmallVector<std::pair<int64_t, int64_t>>
halfPairSlots(ArrayRef<const Regs *> operands, int64_t count) {
  // partner[l]: the slot paired with l; elementZero[l]: l is the pair's
  // first element.
  SmallVector<int64_t> partner(count, -1);
  SmallVector<bool> elementZero(count, false);
  for (const Regs *regs : operands) {
    if (int64_t(regs->size()) != count)
      continue;
    llvm::DenseMap<Value, std::array<int64_t, 2>> slotsOf;
    for (int64_t l = 0; l < count; ++l) {
      auto [vec, element] = pairElement((*regs)[l]);
      if (!vec)
        continue;
      auto it = slotsOf.try_emplace(vec, std::array<int64_t, 2>{-1, -1}).first;
      // An element read by two slots: not a pair to reuse.
      it->second[element] = it->second[element] < 0 ? l : count;
    }
    bool found = false;
    for (auto &[vec, slots] : slotsOf) {
      auto [lo, hi] = slots;
      if (lo < 0 || hi < 0 || lo == count || hi == count || partner[lo] >= 0 ||
          partner[hi] >= 0)
        continue;
      partner[lo] = hi;
      partner[hi] = lo;
      elementZero[lo] = true;
      found = true;
    }
    // The first operand with such pairs decides.
    if (found)
      break;
  }
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  int64_t pending = -1;
  for (int64_t l = 0; l < count; ++l) {
    if (partner[l] >= 0) {
      if (l < partner[l])
        pairs.push_back(elementZero[l] ? std::make_pair(l, partner[l])
                                       : std::make_pair(partner[l], l));
      continue;
    }
    if (pending < 0) {
      pending = l;
    } else {
      pairs.push_back({pending, l});
      pending = -1;
    }
  }
  return pairs;
}

/// One <2 x half> operation per slot pair (HADD2 / HMUL2 / HFMA2 on
/// NVIDIA, v_pk_* on AMD), the pairs of halfPairSlots: the pairs matrix
/// operands and the word-wise conversions use, so that LLVM neither splits
/// them nor pairs other slots (which costs a PRMT per register on the way
/// to an mma).
Regs KernelLowering::lowerHalfPairs(Operation *op, int64_t count, Type elem) {
  auto vecType = VectorType::get({2}, elem);
  SmallVector<const Regs *> operandRegs;
  for (Value v : op->getOperands())
    operandRegs.push_back(&values[v]);
  auto pairOf = [&](const Regs &regs, int64_t lo, int64_t hi) -> Value {
    Value vec = LLVM::PoisonOp::create(b, loc, vecType);
    vec = LLVM::InsertElementOp::create(
        b, loc, vec, regs.size() == 1 ? regs[0] : regs[lo], i32(0));
    return LLVM::InsertElementOp::create(
        b, loc, vec, regs.size() == 1 ? regs[0] : regs[hi], i32(1));
  };
  // The operands' pairs are reused only where the consumers keep them.
  SmallVector<std::pair<int64_t, int64_t>> pairs = halfPairSlots(
      feedsOnlyDots(op->getResult(0)) ? ArrayRef<const Regs *>(operandRegs)
                                      : ArrayRef<const Regs *>(),
      count);
  Regs out(count);
  for (auto [lo, hi] : pairs) {
    SmallVector<Value> operands;
    for (const Regs *regs : operandRegs)
      operands.push_back(pairOf(*regs, lo, hi));
    OperationState state(loc, op->getName().getStringRef(), operands,
                         TypeRange{vecType}, op->getAttrs());
    Operation *pair = b.create(state);
    allowContraction(pair);
    out[lo] =
        LLVM::ExtractElementOp::create(b, loc, pair->getResult(0), i32(0));
    out[hi] =
        LLVM::ExtractElementOp::create(b, loc, pair->getResult(0), i32(1));
  }
  return out;
}

LogicalResult KernelLowering::lowerElementwise(Operation *op) {
  // Constants: splats of tiles become one scalar per register.
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    Type type = cst.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
      if (!dense)
        return op->emitOpError("only splat tile constants are supported");
      FailureOr<DistributedLayout> layout = layoutOf(op, type);
      if (failed(layout))
        return failure();
      Type elem = tensor.getElementType();
      if (storageType(elem) != elem)
        return op->emitOpError("small-float constants are not supported");
      Value scalar = arith::ConstantOp::create(
          b, loc, elem, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      values[cst.getResult()] = Regs(layout->localSize(), scalar);
      return success();
    }
    values[cst.getResult()] = {
        arith::ConstantOp::create(b, loc, type, cst.getValue())};
    return success();
  }

  int64_t count = 1;
  SmallVector<Type> resultTypes;
  for (Type t : op->getResultTypes()) {
    Type elem = t;
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      FailureOr<DistributedLayout> layout = layoutOf(op, t);
      if (failed(layout))
        return failure();
      count = layout->localSize();
      elem = tensor.getElementType();
    }
    if (storageType(elem) != elem)
      return op->emitOpError("arithmetic on small floats (")
             << elem << ") is not supported; cast to f16/f32 first";
    resultTypes.push_back(elem);
  }
  // Scalar operands (arith.select's condition) are used by every slot.
  for (Value v : op->getOperands())
    if (values[v].size() != size_t(count) &&
        (isa<RankedTensorType>(v.getType()) || values[v].size() != 1))
      return op->emitOpError("operands must have the same layout as the "
                             "result (insert tile.convert_layout)");
  SmallVector<Regs> results(op->getNumResults());
  if (count % 2 == 0 && isPairedHalfOp(op, resultTypes)) {
    results[0] = lowerHalfPairs(op, count, resultTypes[0]);
    values[op->getResult(0)] = results[0];
    return success();
  }
  for (int64_t l = 0; l < count; ++l) {
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(values[v].size() == 1 ? values[v][0] : values[v][l]);
    if (op->getNumResults() == 1) {
      FailureOr<Value> special = lowerMath(op, operands, resultTypes[0]);
      if (failed(special))
        return failure();
      if (*special) {
        results[0].push_back(*special);
        continue;
      }
    }
    OperationState state(loc, op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Operation *clone = b.create(state);
    allowContraction(clone);
    for (unsigned r = 0; r < clone->getNumResults(); ++r)
      results[r].push_back(clone->getResult(r));
  }
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    values[op->getResult(r)] = results[r];
  return success();
}

LogicalResult KernelLowering::lowerSplat(tile::SplatOp op) {
  FailureOr<DistributedLayout> layout = layoutOf(op, op.getType());
  if (failed(layout))
    return failure();
  values[op.getResult()] = Regs(layout->localSize(), values[op.getSrc()][0]);
  return success();
}

LogicalResult KernelLowering::lowerIota(tile::IotaOp op) {
  FailureOr<DistributedLayout> layout = layoutOf(op, op.getType());
  if (failed(layout))
    return failure();
  Type elem = cast<RankedTensorType>(op.getType()).getElementType();
  if (!elem.isSignlessInteger())
    return op->emitOpError("iota needs an integer element type");
  Value base = spatialCoords(*layout)[0];
  if (elem.getIntOrFloatBitWidth() < 32)
    base = arith::TruncIOp::create(b, loc, elem, base);
  else if (elem.getIntOrFloatBitWidth() > 32)
    base = arith::ExtUIOp::create(b, loc, elem, base);
  Regs regs;
  for (int64_t l = 0; l < layout->localSize(); ++l)
    regs.push_back(arith::AddIOp::create(
        b, loc, base, constant(elem, layout->apply(0, l)[0])));
  values[op.getResult()] = regs;
  return success();
}

namespace {

/// Any arith or math op the conversion target finds illegal (an operand or
/// result is a tile, or a small float).
class ElementwiseLowering : public ConversionPattern {
public:
  ElementwiseLowering(KernelLowering &kl)
      : ConversionPattern(kl.getTypeConverter(), MatchAnyOpTypeTag(),
                          /*benefit=*/1, kl.getContext()),
        kl(kl) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return failure();
    return kl.lowerWith(op, operands, rewriter,
                        [&] { return kl.lowerElementwise(op); });
  }

private:
  KernelLowering &kl;
};

} // namespace

void populateElementwisePatterns(KernelLowering &kl,
                                 RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(kl);
  addLowering(patterns, kl, &KernelLowering::lowerSplat);
  addLowering(patterns, kl, &KernelLowering::lowerIota);
}

} // namespace tile::gpu
