//===- LowerTileCasts.cpp - tile.cast / tile.bitcast on the host ----------===//
//
// Part of tilec. Patterns of tile-host-lower-tile for the numeric conversion
// (tile.cast) and the bit reinterpretation (tile.bitcast) of scalars and
// tiles. Casts are bit-exact with lib/Numerics: where no pure-arith
// lowering is provably identical, the generated code calls the C ABI
// function tile_num_convert() per element.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Utils/ScalarCodes.h"
#include "tile/Numerics/CAPI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace ::tile;

Type host::getStorageType(Type elementType) {
  if (isSmallFloatType(elementType))
    return IntegerType::get(elementType.getContext(),
                            getElementBitWidth(elementType));
  return elementType;
}

FailureOr<uint32_t> host::getFormatId(Type type, bool isUnsigned) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (width < 1 || width > 32)
      return failure();
    return TILE_NUM_FORMAT_ID(
        isUnsigned ? TILE_NUM_KIND_UINT : TILE_NUM_KIND_SINT, width, 0, 0);
  }
  if (type.isF16())
    return TILE_NUM_FORMAT_ID(TILE_NUM_KIND_F16, 16, 5, 10);
  if (type.isBF16())
    return TILE_NUM_FORMAT_ID(TILE_NUM_KIND_BF16, 16, 8, 7);
  if (type.isF32())
    return TILE_NUM_FORMAT_ID(TILE_NUM_KIND_F32, 32, 8, 23);
  if (isa<Float8E8M0FNUType>(type))
    return TILE_NUM_FORMAT_ID(TILE_NUM_KIND_E8M0, 8, 8, 0);
  auto smallFloat = [](unsigned e, unsigned m) -> uint32_t {
    return TILE_NUM_FORMAT_ID(TILE_NUM_KIND_SMALL_FLOAT, 1 + e + m, e, m);
  };
  if (isa<Float8E4M3FNType>(type))
    return smallFloat(4, 3);
  if (isa<Float8E5M2Type>(type))
    return smallFloat(5, 2);
  if (isa<Float6E2M3FNType>(type))
    return smallFloat(2, 3);
  if (isa<Float6E3M2FNType>(type))
    return smallFloat(3, 2);
  if (isa<Float4E2M1FNType>(type))
    return smallFloat(2, 1);
  if (auto tileFloat = dyn_cast<tile::SmallFloatType>(type))
    return smallFloat(tileFloat.getExponentBits(), tileFloat.getMantissaBits());
  return failure();
}

/// An i32 constant.
static Value i32Const(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                      static_cast<int64_t>(value));
}

/// Reinterprets a scalar storage value as the integer of its width.
static Value toBits(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (isa<IntegerType>(type))
    return value;
  auto intType = b.getIntegerType(type.getIntOrFloatBitWidth());
  return arith::BitcastOp::create(b, loc, intType, value);
}

/// Reinterprets integer bits as the storage type \p storage.
static Value fromBits(OpBuilder &b, Location loc, Value bits, Type storage) {
  if (bits.getType() == storage)
    return bits;
  return arith::BitcastOp::create(b, loc, storage, bits);
}

/// Small-float layouts the pure-arith decoder handles.
struct SmallFloatInfo {
  unsigned expBits = 0, manBits = 0;
  enum Specials { FiniteOnly, NaNOnly, Ieee, E8M0 } specials = FiniteOnly;
};

static std::optional<SmallFloatInfo> getSmallFloatInfo(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return SmallFloatInfo{4, 3, SmallFloatInfo::NaNOnly};
  if (isa<Float8E5M2Type>(type))
    return SmallFloatInfo{5, 2, SmallFloatInfo::Ieee};
  if (isa<Float6E2M3FNType>(type))
    return SmallFloatInfo{2, 3, SmallFloatInfo::FiniteOnly};
  if (isa<Float6E3M2FNType>(type))
    return SmallFloatInfo{3, 2, SmallFloatInfo::FiniteOnly};
  if (isa<Float4E2M1FNType>(type))
    return SmallFloatInfo{2, 1, SmallFloatInfo::FiniteOnly};
  if (isa<Float8E8M0FNUType>(type))
    return SmallFloatInfo{8, 0, SmallFloatInfo::E8M0};
  if (auto tileFloat = dyn_cast<tile::SmallFloatType>(type))
    return SmallFloatInfo{tileFloat.getExponentBits(),
                          tileFloat.getMantissaBits(),
                          SmallFloatInfo::FiniteOnly};
  return std::nullopt;
}

/// The f32 with bits \p bits.
static Value f32Bits(OpBuilder &b, Location loc, Value bits) {
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

/// Decodes a small-float code (storage iN) to its exact f32 value: every
/// small-float value is an f32 (at most 4 significand bits, exponents in
/// [-127, 127]). NaN codes give the quiet NaN with the code's sign, like
/// lib/Numerics' decodeF32.
static Value decodeSmallFloat(OpBuilder &b, Location loc, Value code,
                              const SmallFloatInfo &info) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return i32Const(b, loc, uint32_t(v)); };
  auto eq = [&](Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c(v))
        .getResult();
  };
  Value bits = arith::ExtUIOp::create(b, loc, i32, code);
  if (info.specials == SmallFloatInfo::E8M0) {
    // 2^(code - 127): the f32 exponent field is the code; code 0 is
    // 2^-127 (an f32 subnormal); 0xFF is NaN.
    Value normal = arith::ShLIOp::create(b, loc, bits, c(23));
    Value value =
        arith::SelectOp::create(b, loc, eq(bits, 0), c(0x00400000), normal);
    value =
        arith::SelectOp::create(b, loc, eq(bits, 0xFF), c(0x7FC00000), value);
    return f32Bits(b, loc, value);
  }
  unsigned e = info.expBits, m = info.manBits;
  int bias = (1 << (e - 1)) - 1;
  Value sign = arith::ShRUIOp::create(b, loc, bits, c(e + m));
  sign = arith::AndIOp::create(b, loc, sign, c(1));
  Value exp = arith::ShRUIOp::create(b, loc, bits, c(m));
  exp = arith::AndIOp::create(b, loc, exp, c((1 << e) - 1));
  Value man = arith::AndIOp::create(b, loc, bits, c((1 << m) - 1));
  // value = significand * 2^(max(exp, 1) - bias - m), exactly.
  Value isSub = eq(exp, 0);
  Value significand = arith::SelectOp::create(
      b, loc, isSub, man, arith::OrIOp::create(b, loc, man, c(1 << m)));
  Value scaleExp = arith::MaxUIOp::create(b, loc, exp, c(1));
  scaleExp = arith::AddIOp::create(b, loc, scaleExp, c(127 - bias - int(m)));
  Value scale = f32Bits(b, loc, arith::ShLIOp::create(b, loc, scaleExp, c(23)));
  Value magnitude = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), significand),
      scale);
  Value signBit = arith::ShLIOp::create(b, loc, sign, c(31));
  Value magBits = arith::BitcastOp::create(b, loc, i32, magnitude);
  Value result = arith::OrIOp::create(b, loc, magBits, signBit);
  Value quietNaN = arith::OrIOp::create(b, loc, signBit, c(0x7FC00000));
  if (info.specials == SmallFloatInfo::NaNOnly) {
    Value isNaN = arith::AndIOp::create(b, loc, eq(exp, (1 << e) - 1),
                                        eq(man, (1 << m) - 1));
    result = arith::SelectOp::create(b, loc, isNaN, quietNaN, result);
  } else if (info.specials == SmallFloatInfo::Ieee) {
    Value top = eq(exp, (1 << e) - 1);
    Value inf = arith::OrIOp::create(b, loc, signBit, c(0x7F800000));
    Value special = arith::SelectOp::create(b, loc, eq(man, 0), inf, quietNaN);
    result = arith::SelectOp::create(b, loc, top, special, result);
  }
  return f32Bits(b, loc, result);
}

/// The exact f32 value of \p value (storage of \p type), or null when f32
/// cannot hold every value of the type (integers wider than 24 bits).
static Value decodeToF32(OpBuilder &b, Location loc, Value value, Type type,
                         bool isUnsigned) {
  Type f32 = b.getF32Type();
  if (type.isF32())
    return value;
  if (type.isF16() || type.isBF16())
    return arith::ExtFOp::create(b, loc, f32, value);
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() > 24)
      return {};
    if (isUnsigned)
      return arith::UIToFPOp::create(b, loc, f32, value);
    return arith::SIToFPOp::create(b, loc, f32, value);
  }
  if (std::optional<SmallFloatInfo> info = getSmallFloatInfo(type))
    return decodeSmallFloat(b, loc, value, *info);
  return {};
}

/// Rounds f32 \p value to f16 / bf16 as lib/Numerics does: to nearest even,
/// overflow to inf, NaN to the canonical quiet NaN with the input's sign.
static Value roundF32ToHalf(OpBuilder &b, Location loc, Value value,
                            Type dstType) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  Value rounded = arith::TruncFOp::create(b, loc, dstType, value);
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value sign = arith::ShRUIOp::create(b, loc, bits, i32Const(b, loc, 16));
  sign = arith::AndIOp::create(b, loc, sign, i32Const(b, loc, 0x8000));
  Value nanBits = arith::OrIOp::create(
      b, loc, sign, i32Const(b, loc, dstType.isF16() ? 0x7E00 : 0x7FC0));
  nanBits = arith::TruncIOp::create(b, loc, i16, nanBits);
  Value nan = arith::BitcastOp::create(b, loc, dstType, nanBits);
  return arith::SelectOp::create(b, loc, isNaN, nan, rounded);
}

/// Converts integer \p value between integer types by clamping to the
/// destination's range (the language's saturating cast).
static Value clampInteger(OpBuilder &b, Location loc, Value value,
                          IntegerType src, bool srcUnsigned, IntegerType dst,
                          bool dstUnsigned) {
  Type i64 = b.getI64Type();
  Value wide = srcUnsigned
                   ? arith::ExtUIOp::create(b, loc, i64, value).getResult()
                   : arith::ExtSIOp::create(b, loc, i64, value).getResult();
  unsigned w = dst.getWidth();
  int64_t lo = dstUnsigned ? 0 : -(int64_t(1) << (w - 1));
  int64_t hi =
      dstUnsigned ? (int64_t(1) << w) - 1 : (int64_t(1) << (w - 1)) - 1;
  Value clamped = arith::MaxSIOp::create(
      b, loc, wide, arith::ConstantIntOp::create(b, loc, i64, lo));
  clamped = arith::MinSIOp::create(
      b, loc, clamped, arith::ConstantIntOp::create(b, loc, i64, hi));
  return arith::TruncIOp::create(b, loc, dst, clamped);
}

/// f32 with value 2^k (k an i32 in [-126, 127]).
static Value pow2(OpBuilder &b, Location loc, Value k) {
  Value biased = arith::AddIOp::create(b, loc, k, i32Const(b, loc, 127));
  return f32Bits(b, loc,
                 arith::ShLIOp::create(b, loc, biased, i32Const(b, loc, 23)));
}

/// Encodes f32 \p value into a small float (not e8m0) as lib/Numerics does:
/// round to nearest even (ties to the larger magnitude when there are no
/// mantissa bits), saturate finite values to +-max, +-inf to +-inf where the
/// format has it (else +-max), NaN to the format's quiet NaN with the
/// input's sign (+0 for finite-only formats), -0 for negative values that
/// round to zero.
static Value encodeSmallFloat(OpBuilder &b, Location loc, Value value,
                              const SmallFloatInfo &info, unsigned width) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) { return i32Const(b, loc, uint32_t(v)); };
  unsigned e = info.expBits, m = info.manBits;
  int bias = (1 << (e - 1)) - 1;
  // The largest finite code and value.
  uint32_t maxCode;
  switch (info.specials) {
  case SmallFloatInfo::NaNOnly: // S.1111.110
    maxCode = ((1u << (e + m)) - 1) - 1;
    break;
  case SmallFloatInfo::Ieee: // S.11110.11
    maxCode = (((1u << e) - 2) << m) | ((1u << m) - 1);
    break;
  default:
    maxCode = (1u << (e + m)) - 1;
    break;
  }
  int maxExp = int(maxCode >> m) - bias;
  double maxValue =
      std::ldexp(double((1u << m) | (maxCode & ((1u << m) - 1))), maxExp - m);

  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value signBit = arith::ShRUIOp::create(b, loc, bits, c(31));
  signBit = arith::ShLIOp::create(b, loc, signBit, c(e + m));
  Value magnitude = math::AbsFOp::create(b, loc, value);
  // Quantum exponent: the input's exponent, at least the smallest normal
  // exponent of the format, minus the mantissa bits.
  Value inputExp = arith::ShRUIOp::create(b, loc, bits, c(23));
  inputExp = arith::AndIOp::create(b, loc, inputExp, c(0xFF));
  inputExp = arith::SubIOp::create(b, loc, inputExp, c(127));
  Value quantumExp = arith::MaxSIOp::create(b, loc, inputExp, c(1 - bias));
  quantumExp = arith::MinSIOp::create(b, loc, quantumExp, c(maxExp + 1));
  quantumExp = arith::SubIOp::create(b, loc, quantumExp, c(m));
  Value scaled = arith::MulFOp::create(
      b, loc, magnitude,
      pow2(b, loc, arith::SubIOp::create(b, loc, c(0), quantumExp)));
  Value k = math::RoundEvenOp::create(b, loc, scaled);
  // Huge inputs (saturated below) must not overflow the conversion.
  k = arith::MinimumFOp::create(
      b, loc, k,
      arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, double(4u << m))));
  // code = ((quantumExp + m + bias) << m) + k - 2^m; the carry of k into
  // the exponent and subnormals (quantumExp + m + bias == 1) fall out.
  Value kInt = arith::FPToUIOp::create(b, loc, i32, k);
  Value code = arith::AddIOp::create(b, loc, quantumExp, c(m + bias));
  code = arith::ShLIOp::create(b, loc, code, c(m));
  code = arith::AddIOp::create(b, loc, code, kInt);
  code = arith::SubIOp::create(b, loc, code, c(1 << m));
  // Saturation: the rounded value exceeds the largest finite one.
  Value rounded = arith::MulFOp::create(b, loc, k, pow2(b, loc, quantumExp));
  Value maxF = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, maxValue));
  Value tooBig =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, rounded, maxF);
  code = arith::SelectOp::create(b, loc, tooBig, c(maxCode), code);
  Value isInf = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, magnitude,
      arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(f32, std::numeric_limits<double>::infinity())));
  if (info.specials == SmallFloatInfo::Ieee)
    code =
        arith::SelectOp::create(b, loc, isInf, c(((1u << e) - 1) << m), code);
  else
    code = arith::SelectOp::create(b, loc, isInf, c(maxCode), code);
  code = arith::OrIOp::create(b, loc, code, signBit);
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  Value nanCode;
  if (info.specials == SmallFloatInfo::NaNOnly)
    nanCode = arith::OrIOp::create(b, loc, signBit, c((1u << (e + m)) - 1));
  else if (info.specials == SmallFloatInfo::Ieee)
    nanCode = arith::OrIOp::create(b, loc, signBit,
                                   c((((1u << e) - 1) << m) | (1u << (m - 1))));
  else
    nanCode = c(0);
  code = arith::SelectOp::create(b, loc, isNaN, nanCode, code);
  return arith::TruncIOp::create(b, loc, b.getIntegerType(width), code);
}

/// Encodes f32 \p value into an integer of \p type as lib/Numerics does:
/// round to nearest even, clamp to the range, NaN to 0.
static Value encodeInteger(OpBuilder &b, Location loc, Value value,
                           IntegerType type, bool isUnsigned) {
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  unsigned w = type.getWidth();
  int64_t lo = isUnsigned ? 0 : -(int64_t(1) << (w - 1));
  int64_t hi = isUnsigned ? (int64_t(1) << w) - 1 : (int64_t(1) << (w - 1)) - 1;
  auto f = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, v))
        .getResult();
  };
  auto i = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  Value r = math::RoundEvenOp::create(b, loc, value);
  // hi + 1 and lo are powers of two (or 0): exact in f32.
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, r,
                                      f(double(hi) + 1.0));
  Value below =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, f(lo));
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  // In range now (NaN, above and below are replaced below).
  Value safe = arith::SelectOp::create(
      b, loc,
      arith::OrIOp::create(b, loc, isNaN,
                           arith::OrIOp::create(b, loc, above, below)),
      f(0.0), r);
  Value result = arith::FPToSIOp::create(b, loc, i64, safe);
  result = arith::SelectOp::create(b, loc, above, i(hi), result);
  result = arith::SelectOp::create(b, loc, below, i(lo), result);
  return arith::TruncIOp::create(b, loc, type, result);
}

Value host::emitScalarCast(OpBuilder &b, Location loc, Value value,
                           Type srcType, Type dstType, bool srcUnsigned,
                           bool dstUnsigned) {
  auto srcInt = dyn_cast<IntegerType>(srcType);
  auto dstInt = dyn_cast<IntegerType>(dstType);
  if (srcType == dstType && (!srcInt || srcUnsigned == dstUnsigned))
    return value;
  // Integers: widening that keeps every value, otherwise a clamp.
  if (srcInt && dstInt) {
    if (dstInt.getWidth() > srcInt.getWidth() &&
        (srcUnsigned == dstUnsigned || (srcUnsigned && !dstUnsigned))) {
      if (srcUnsigned)
        return arith::ExtUIOp::create(b, loc, dstInt, value);
      return arith::ExtSIOp::create(b, loc, dstInt, value);
    }
    return clampInteger(b, loc, value, srcInt, srcUnsigned, dstInt,
                        dstUnsigned);
  }
  // Integers to f32: one rounding (to nearest even), as in lib/Numerics.
  if (srcInt && dstType.isF32()) {
    if (srcUnsigned)
      return arith::UIToFPOp::create(b, loc, dstType, value);
    return arith::SIToFPOp::create(b, loc, dstType, value);
  }
  // To f32 / f16 / bf16 from any type whose values f32 holds exactly: one
  // rounding at most, the same as lib/Numerics.
  if (dstType.isF32() || dstType.isF16() || dstType.isBF16()) {
    if (Value exact = decodeToF32(b, loc, value, srcType, srcUnsigned))
      return dstType.isF32() ? exact : roundF32ToHalf(b, loc, exact, dstType);
  }

  // From any type f32 holds exactly (small floats, f16, bf16, integers up
  // to 24 bits) into integers and small floats: exact decode, one rounding.
  if (Value exact = decodeToF32(b, loc, value, srcType, srcUnsigned)) {
    if (dstInt)
      return encodeInteger(b, loc, exact, dstInt, dstUnsigned);
    std::optional<SmallFloatInfo> info = getSmallFloatInfo(dstType);
    if (info && info->specials == SmallFloatInfo::E8M0)
      return buildE8M0FromF32(b, loc, exact);
    if (info)
      return encodeSmallFloat(b, loc, exact, *info,
                              getElementBitWidth(dstType));
  }

  // Everything else (wide integers to f16 / bf16): lib/Numerics' C ABI.
  uint32_t fromId = *getFormatId(srcType, srcUnsigned);
  uint32_t toId = *getFormatId(dstType, dstUnsigned);
  Type i32 = b.getI32Type();
  Value code = toBits(b, loc, value);
  if (code.getType().getIntOrFloatBitWidth() < 32)
    code = arith::ExtUIOp::create(b, loc, i32, code);
  auto call = func::CallOp::create(
      b, loc, kConvertFn, TypeRange{i32},
      ValueRange{code, i32Const(b, loc, fromId), i32Const(b, loc, toId)});
  Value result = call.getResult(0);
  Type storage = getStorageType(dstType);
  unsigned width = storage.getIntOrFloatBitWidth();
  if (width < 32)
    result = arith::TruncIOp::create(b, loc, b.getIntegerType(width), result);
  return fromBits(b, loc, result, storage);
}

/// A linalg.generic of type \p resultType over the identity iteration space
/// of its result, reading \p inputs elementwise; \p body makes the element.
static Value
buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                 ValueRange inputs,
                 function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value element = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, element);
      });
  return generic.getResult(0);
}

namespace {

struct CastLowering : public OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type srcElem = getElementTypeOrSelf(op.getSrc().getType());
    Type dstElem = getElementTypeOrSelf(op.getType());
    bool srcUnsigned = op.getSrcUnsigned(), dstUnsigned = op.getDstUnsigned();
    if (failed(host::getFormatId(srcElem, srcUnsigned)) ||
        failed(host::getFormatId(dstElem, dstUnsigned)))
      return op.emitOpError() << "cannot convert " << srcElem << " to "
                              << dstElem << " on the host: no numeric format";
    Location loc = op.getLoc();
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!resultType) {
      rewriter.replaceOp(
          op, host::emitScalarCast(rewriter, loc, adaptor.getSrc(), srcElem,
                                   dstElem, srcUnsigned, dstUnsigned));
      return success();
    }
    Value result = buildElementwise(
        rewriter, loc, resultType, adaptor.getSrc(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return host::emitScalarCast(b, l, args[0], srcElem, dstElem,
                                      srcUnsigned, dstUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BitcastLowering : public OpConversionPattern<BitcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSrc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    Type srcStorage = getElementTypeOrSelf(src.getType());
    Type dstStorage = getElementTypeOrSelf(resultType);
    unsigned srcBits = srcStorage.getIntOrFloatBitWidth();
    unsigned dstBits = dstStorage.getIntOrFloatBitWidth();
    auto reinterpret = [&](OpBuilder &b, Location l, Value v) -> Value {
      if (srcStorage == dstStorage)
        return v;
      return arith::BitcastOp::create(b, l, dstStorage, v);
    };
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    if (!tensorType) {
      rewriter.replaceOp(op, reinterpret(rewriter, loc, src));
      return success();
    }
    if (srcBits == dstBits) {
      if (src.getType() == resultType) {
        rewriter.replaceOp(op, src);
        return success();
      }
      rewriter.replaceOp(
          op, buildElementwise(rewriter, loc, tensorType, src,
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 return reinterpret(b, l, args[0]);
                               }));
      return success();
    }
    // Different widths: element j of a result row is bits
    // [j * dstBits, (j + 1) * dstBits) of the source row, gathered from the
    // source elements covering them (LSB-first).
    auto srcType = cast<RankedTensorType>(src.getType());
    unsigned rank = tensorType.getRank();
    int64_t srcLast = srcType.getShape().back();
    unsigned count = (srcBits - 1 + dstBits + srcBits - 1) / srcBits;
    Value init = tensor::EmptyOp::create(rewriter, loc, tensorType.getShape(),
                                         dstStorage);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, tensorType, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)}, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          Type i64 = b.getI64Type();
          auto idx = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          SmallVector<Value> indices;
          for (unsigned d = 0; d < rank; ++d)
            indices.push_back(linalg::IndexOp::create(b, l, d));
          Value bit = arith::MulIOp::create(b, l, indices.back(), idx(dstBits));
          Value first = arith::DivUIOp::create(b, l, bit, idx(srcBits));
          Value shift = arith::RemUIOp::create(b, l, bit, idx(srcBits));
          Value acc = arith::ConstantIntOp::create(b, l, i64, 0);
          for (unsigned k = 0; k < count; ++k) {
            Value at = arith::AddIOp::create(b, l, first, idx(k));
            at = arith::MinUIOp::create(b, l, at, idx(srcLast - 1));
            SmallVector<Value> srcIndices(indices);
            srcIndices.back() = at;
            Value element = tensor::ExtractOp::create(b, l, src, srcIndices);
            Value bits = toBits(b, l, element);
            if (srcBits < 64)
              bits = arith::ExtUIOp::create(b, l, i64, bits);
            if (k != 0)
              bits = arith::ShLIOp::create(
                  b, l, bits,
                  arith::ConstantIntOp::create(b, l, i64, k * srcBits));
            acc = arith::OrIOp::create(b, l, acc, bits);
          }
          Value shift64 = arith::IndexCastUIOp::create(b, l, i64, shift);
          Value part = arith::ShRUIOp::create(b, l, acc, shift64);
          Value element =
              arith::TruncIOp::create(b, l, b.getIntegerType(dstBits), part);
          linalg::YieldOp::create(b, l, fromBits(b, l, element, dstStorage));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void host::populateCastPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<CastLowering, BitcastLowering>(converter, patterns.getContext());
}
