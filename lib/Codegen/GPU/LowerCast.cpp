//===- LowerCast.cpp - Numeric conversions on GPUs ------------------------===//
//
// Part of tilec. tile.cast with the rules of lib/Numerics (round to nearest
// even, saturating, NaN handling of docs/Numerics.md), bit-exact.
//
// Sources of at most 8 bits to f16/bf16/f32 (the dequantization of the
// quantized GEMMs) take the ALU fast paths of LowerDequant.cpp
// (dequantizeFast) where one applies; here:
//  - u8/i8 -> bf16 and every integer of <= 8 bits -> f32 by one exact
//    hardware conversion;
//  - f8e5m2 -> f16/bf16 by a shift (it is the top byte of an f16), bf16
//    through f32, exactly; NaN codes become the destination's canonical
//    quiet NaN with the code's sign, as in lib/Numerics;
//  - the rest of the <= 8-bit sources (e8m0, f8e4m3/f8e5m2 -> f32, and
//    every narrow source to an integer or small-float destination) loads
//    from a lookup table that lib/Numerics computes at compile time (one
//    constant global per pair).
//
// Other conversions:
//  - f16/bf16/f32 <-> f16/bf16/f32 and wider integers -> f16/bf16/f32 by the
//    hardware's round-to-nearest-even conversions (one rounding); a NaN
//    becomes the canonical one with its sign, unless the result only feeds
//    arithmetic and dots (nanBitsUnobservable), where any NaN will do;
//  - floats -> integers: round to nearest even, then a saturating
//    conversion (NaN gives 0);
//  - integers -> integers: clamp to the destination range;
//  - f16/bf16/f32 and integers -> small floats and e8m0: arithmetic
//    encoding on the bits of an f32 (rounding on the mantissa bits,
//    subnormals on a scaled grid, saturation and the format's special
//    values); integers wider than 24 bits (and to bf16) through an f32
//    rounded to odd, so that the one rounding that follows is exact.
// tile.bitcast re-slices the thread's register bit stream.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Dialect/Tile/Utils/ScalarCodes.h"
#include "tile/Layout/SubBytePacking.h"
#include "tile/Numerics/Format.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using ::tile::layout::DistributedLayout;
namespace num = ::tile::numerics;

namespace tile::gpu {

std::optional<num::Format> formatOf(Type type, bool isUnsigned) {
  if (auto i = dyn_cast<IntegerType>(type)) {
    auto f = num::Format::integer(!isUnsigned, i.getWidth());
    return f ? std::optional<num::Format>(*f) : std::nullopt;
  }
  if (type.isF16())
    return num::Format::f16();
  if (type.isBF16())
    return num::Format::bf16();
  if (type.isF32())
    return num::Format::f32();
  if (isa<Float8E8M0FNUType>(type))
    return num::Format::e8m0();
  unsigned e = 0, m = 0;
  if (isa<Float8E4M3FNType>(type))
    e = 4, m = 3;
  else if (isa<Float8E5M2Type>(type))
    e = 5, m = 2;
  else if (isa<Float4E2M1FNType>(type))
    e = 2, m = 1;
  else if (isa<Float6E2M3FNType>(type))
    e = 2, m = 3;
  else if (isa<Float6E3M2FNType>(type))
    e = 3, m = 2;
  else if (auto t = dyn_cast<tile::SmallFloatType>(type))
    e = t.getExponentBits(), m = t.getMantissaBits();
  else
    return std::nullopt;
  auto f = num::Format::smallFloat(e, m);
  return f ? std::optional<num::Format>(*f) : std::nullopt;
}

static bool isStdFloat(Type t) { return t.isF16() || t.isBF16() || t.isF32(); }

/// A call of an overloaded LLVM intrinsic with one result.
static Value intrinsic(OpBuilder &b, Location loc, StringRef name, Type result,
                       ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, result, b.getStringAttr(name),
                                       args)
      .getResult(0);
}

/// Table lookup: table[code] computed by lib/Numerics, emitted once per
/// (source, destination) pair as a constant global.
static Value lookupTable(OpBuilder &b, Location loc, ModuleOp module,
                         Value code, const num::Format &from,
                         const num::Format &to, Type dstStorage) {
  unsigned srcBits = from.bits();
  unsigned dstBits = to.bits();
  unsigned entryBits = dstBits <= 8 ? 8 : dstBits <= 16 ? 16 : 32;
  Type entryType = b.getIntegerType(entryBits);
  int64_t n = int64_t(1) << srcBits;
  std::string name = ("__tile_cvt_" + llvm::Twine::utohexstr(from.id()) + "_" +
                      llvm::Twine::utohexstr(to.id()))
                         .str();
  auto arrayType = LLVM::LLVMArrayType::get(entryType, n);
  if (!module.lookupSymbol(name)) {
    SmallVector<APInt> entries;
    for (int64_t c = 0; c < n; ++c)
      entries.push_back(APInt(entryBits, num::convert(uint32_t(c), from, to)));
    auto tensor = RankedTensorType::get({n}, entryType);
    OpBuilder mb(module.getBodyRegion());
    LLVM::GlobalOp::create(mb, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           DenseElementsAttr::get(tensor, entries));
  }
  Value addr = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  Value idx = arith::ExtUIOp::create(b, loc, b.getI32Type(), code);
  Value ptr = LLVM::GEPOp::create(b, loc, addr.getType(), arrayType, addr,
                                  ArrayRef<LLVM::GEPArg>{0, idx});
  Value v = LLVM::LoadOp::create(b, loc, entryType, ptr, entryBits / 8);
  Type intDst = b.getIntegerType(dstStorage.getIntOrFloatBitWidth());
  if (entryType != intDst)
    v = arith::TruncIOp::create(b, loc, intDst, v);
  if (intDst != dstStorage)
    v = arith::BitcastOp::create(b, loc, dstStorage, v);
  return v;
}

/// f32 -> the code of a small float `to` (1 + E + M <= 8 bits), as
/// docs/Numerics.md §3 defines encode() with Overflow::Saturate.
static Value encodeSmallFloat(KernelLowering &kl, Location loc, Value x,
                              const num::Format &to, Type dstStorage) {
  OpBuilder &b = kl.builder();
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return kl.i32(v); };
  unsigned e = to.expBits(), m = to.manBits();
  int emin = 1 - to.bias();
  Value u = arith::BitcastOp::create(b, loc, i32, x);
  Value sign = arith::ShRUIOp::create(b, loc, u, c(31));
  Value a = arith::AndIOp::create(b, loc, u, c(0x7FFFFFFF));
  Value ax = arith::BitcastOp::create(b, loc, b.getF32Type(), a);
  auto f32c = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getF32Type(),
                                     b.getF32FloatAttr(float(v)));
  };
  // Subnormal range: |x| < 2^emin, code = roundeven(|x| / 2^(emin - m)).
  Value scaled =
      arith::MulFOp::create(b, loc, ax, f32c(std::ldexp(1.0, m - emin)));
  Value sub = arith::FPToUIOp::create(
      b, loc, i32, LLVM::RoundEvenOp::create(b, loc, scaled));
  // Normal range: round the f32 mantissa to m bits.
  Value norm;
  unsigned drop = 23 - m;
  Value rounded;
  if (m == 0) {
    // No mantissa bits: every significand is 1, ties go up.
    rounded = arith::AddIOp::create(b, loc, a, c(1 << (drop - 1)));
  } else {
    Value lsb = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, a, c(drop)), c(1));
    rounded = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, a, c((1 << (drop - 1)) - 1)),
        lsb);
  }
  Value exp32 = arith::ShRUIOp::create(b, loc, rounded, c(23));
  Value man = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, c(drop)),
      c((1 << m) - 1));
  Value biased = arith::SubIOp::create(b, loc, exp32, c(127 - to.bias()));
  norm = arith::OrIOp::create(b, loc,
                              arith::ShLIOp::create(b, loc, biased, c(m)), man);
  Value isSub = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ax,
                                      f32c(std::ldexp(1.0, emin)));
  Value code = arith::SelectOp::create(b, loc, isSub, sub, norm);
  // Saturation (finite overflow and, without inf, infinities).
  Value maxCode = c(to.maxFiniteCode());
  Value over =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, code, maxCode);
  code = arith::SelectOp::create(b, loc, over, maxCode, code);
  if (to.hasInf()) {
    Value isInf = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                        c(0x7F800000));
    code = arith::SelectOp::create(b, loc, isInf, c(((1 << e) - 1) << m), code);
  }
  code = arith::OrIOp::create(b, loc, code,
                              arith::ShLIOp::create(b, loc, sign, c(e + m)));
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, a,
                                      c(0x7F800000));
  Value nan =
      to.hasNaN()
          ? arith::OrIOp::create(b, loc, c(to.nanCode()),
                                 arith::ShLIOp::create(b, loc, sign, c(e + m)))
                .getResult()
          : c(0);
  code = arith::SelectOp::create(b, loc, isNaN, nan, code);
  return arith::TruncIOp::create(b, loc, dstStorage, code);
}

FailureOr<Value> KernelLowering::castScalar(Operation *op, Value v,
                                            Type srcType, Type dstType,
                                            bool srcUnsigned, bool dstUnsigned,
                                            bool canonicalNaN) {
  std::optional<num::Format> from = formatOf(srcType, srcUnsigned);
  std::optional<num::Format> to = formatOf(dstType, dstUnsigned);
  if (!from || !to)
    return op->emitOpError("no numeric format for ")
           << srcType << " -> " << dstType;
  if (*from == *to)
    return v;
  Type dstStorage = storageType(dstType);
  Type f32 = b.getF32Type();
  bool srcInt = from->isInteger(), dstInt = to->isInteger();

  if (srcInt && dstInt) {
    // Clamp in 64 bits.
    Type wide = b.getI64Type();
    Value w = srcUnsigned ? arith::ExtUIOp::create(b, loc, wide, v).getResult()
                          : arith::ExtSIOp::create(b, loc, wide, v).getResult();
    unsigned n = to->bits();
    int64_t lo = dstUnsigned ? 0 : -(int64_t(1) << (n - 1));
    int64_t hi =
        dstUnsigned ? (int64_t(1) << n) - 1 : (int64_t(1) << (n - 1)) - 1;
    w = arith::MaxSIOp::create(b, loc, w, i64(lo));
    w = arith::MinSIOp::create(b, loc, w, i64(hi));
    return arith::TruncIOp::create(b, loc, dstStorage, w).getResult();
  }
  if (isStdFloat(srcType) && isStdFloat(dstType)) {
    Value x = v;
    unsigned sw = srcType.getIntOrFloatBitWidth();
    unsigned dw = dstType.getIntOrFloatBitWidth();
    Value r;
    if (sw < dw) {
      r = arith::ExtFOp::create(b, loc, dstType, x);
    } else {
      if (sw == dw) // f16 <-> bf16
        x = arith::ExtFOp::create(b, loc, f32, x);
      r = arith::TruncFOp::create(b, loc, dstType, x);
    }
    if (!canonicalNaN)
      return r;
    // NaN becomes the destination's canonical quiet NaN with the input's
    // sign (hardware conversions keep payloads).
    Type srcInt = b.getIntegerType(sw), dstInt = b.getIntegerType(dw);
    Value sign = arith::ShRUIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, srcInt, v),
        constant(srcInt, sw - 1));
    sign = sw < dw   ? arith::ExtUIOp::create(b, loc, dstInt, sign).getResult()
           : sw > dw ? arith::TruncIOp::create(b, loc, dstInt, sign).getResult()
                     : sign;
    Value nanBits = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, sign, constant(dstInt, dw - 1)),
        constant(dstInt, to->nanCode()));
    Value isNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    return arith::SelectOp::create(
               b, loc, isNaN,
               arith::BitcastOp::create(b, loc, dstType, nanBits), r)
        .getResult();
  }
  // Narrow sources without an arithmetic path (see the file header): one
  // table lookup, exact by construction. Integers of <= 8 bits to
  // f16/bf16/f32 convert exactly below instead.
  if (from->bits() <= 8 && !(srcInt && isStdFloat(dstType)))
    return lookupTable(b, loc, module, v, *from, *to, dstStorage);
  if (srcInt && isStdFloat(dstType)) {
    if (from->bits() <= 24) {
      // Exact in f32, then one rounding.
      Value x = srcUnsigned
                    ? arith::UIToFPOp::create(b, loc, f32, v).getResult()
                    : arith::SIToFPOp::create(b, loc, f32, v).getResult();
      return dstType.isF32()
                 ? x
                 : arith::TruncFOp::create(b, loc, dstType, x).getResult();
    }
    if (dstType.isBF16()) // one rounding of an f32 rounded to odd
      return arith::TruncFOp::create(
                 b, loc, dstType,
                 tile::buildIntToF32RoundOdd(b, loc, v, srcUnsigned))
          .getResult();
    return srcUnsigned
               ? arith::UIToFPOp::create(b, loc, dstType, v).getResult()
               : arith::SIToFPOp::create(b, loc, dstType, v).getResult();
  }
  if (isStdFloat(srcType) && dstInt) {
    Value x = srcType.isF32() ? v : arith::ExtFOp::create(b, loc, f32, v);
    x = LLVM::RoundEvenOp::create(b, loc, x);
    std::string name = (llvm::Twine("llvm.fpto") + (dstUnsigned ? "u" : "s") +
                        "i.sat.i" + llvm::Twine(to->bits()) + ".f32")
                           .str();
    return intrinsic(b, loc, name, dstStorage, x);
  }
  // Small floats and e8m0 from f16/bf16/f32 and integers: an f32 that
  // holds the value exactly (integers of up to 24 bits) or rounded to odd
  // (wider ones), then one rounding.
  bool toE8M0 = to->kind() == num::FormatKind::E8M0;
  if ((toE8M0 || to->kind() == num::FormatKind::SmallFloat) &&
      (isStdFloat(srcType) || srcInt)) {
    Value x;
    if (isStdFloat(srcType))
      x = srcType.isF32() ? v : arith::ExtFOp::create(b, loc, f32, v);
    else if (from->bits() > 24)
      x = tile::buildIntToF32RoundOdd(b, loc, v, srcUnsigned);
    else
      x = srcUnsigned ? arith::UIToFPOp::create(b, loc, f32, v).getResult()
                      : arith::SIToFPOp::create(b, loc, f32, v).getResult();
    if (toE8M0) // i8 codes, as storageType keeps small floats
      return tile::buildE8M0FromF32(b, loc, x);
    return encodeSmallFloat(*this, loc, x, *to, dstStorage);
  }
  return op->emitOpError("cast from ")
         << srcType << " to " << dstType << " is not supported on GPUs yet";
}

LogicalResult KernelLowering::lowerCast(tile::CastOp op) {
  Type srcType = op.getSrc().getType();
  Type dstType = op.getType();
  Type srcElem = srcType, dstElem = dstType;
  if (auto t = dyn_cast<RankedTensorType>(srcType)) {
    srcElem = t.getElementType();
    dstElem = cast<RankedTensorType>(dstType).getElementType();
    FailureOr<DistributedLayout> ls = layoutOf(op, srcType);
    FailureOr<DistributedLayout> ld = layoutOf(op, dstType);
    if (failed(ls) || failed(ld))
      return failure();
    if (*ls != *ld)
      return op.emitOpError("source and result layouts must be equal");
  }
  const Regs &in = values[op.getSrc()];
  bool su = op.getSrcUnsigned(), du = op.getDstUnsigned();
  Regs fast = dequantizeFast(*this, loc, op, in, srcElem, dstElem);
  if (!fast.empty()) {
    values[op.getResult()] = fast;
    return success();
  }
  if (srcElem.isSignlessInteger(8) && dstElem.isBF16()) {
    // u8/i8 -> bf16: exact in f32 and in bf16 (at most 8 significant bits),
    // so the hardware conversions need no rounding (cvt.rn.bf16x2.f32 packs
    // two).
    Type f32 = b.getF32Type();
    Regs out;
    for (Value v : in) {
      Value x = su ? arith::UIToFPOp::create(b, loc, f32, v).getResult()
                   : arith::SIToFPOp::create(b, loc, f32, v).getResult();
      out.push_back(arith::TruncFOp::create(b, loc, dstElem, x));
    }
    values[op.getResult()] = out;
    return success();
  }
  if (isa<Float8E5M2Type>(srcElem) && (dstElem.isF16() || dstElem.isBF16())) {
    // e5m2 is the top byte of an f16; bf16 goes on through f32, exactly (2
    // mantissa bits, f16's exponent range). NaN codes become the
    // destination's canonical quiet NaN with the code's sign, as in
    // lib/Numerics.
    Type i16 = b.getI16Type();
    uint32_t nanCode = formatOf(dstElem, false)->nanCode();
    Regs out;
    for (Value v : in) {
      Value w = arith::ExtUIOp::create(b, loc, i16, v);
      Value h = arith::ShLIOp::create(b, loc, w, constant(i16, 8));
      Value mag = arith::AndIOp::create(b, loc, h, constant(i16, 0x7FFF));
      Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          mag, constant(i16, 0x7C00));
      Value nan = arith::OrIOp::create(
          b, loc, arith::AndIOp::create(b, loc, h, constant(i16, 0x8000)),
          constant(i16, nanCode));
      Value x = arith::BitcastOp::create(b, loc, b.getF16Type(), h);
      if (dstElem.isBF16())
        x = arith::TruncFOp::create(
            b, loc, dstElem, arith::ExtFOp::create(b, loc, b.getF32Type(), x));
      out.push_back(arith::SelectOp::create(
          b, loc, isNaN, arith::BitcastOp::create(b, loc, dstElem, nan), x));
    }
    values[op.getResult()] = out;
    return success();
  }
  Regs out;
  // Where the result is only computed with (nanBitsUnobservable: products,
  // sums, ...), which give a NaN for any NaN, its NaNs need not be
  // canonical: attention's P = cast(f16, exp2(...)) in its loop saves six
  // instructions per value (2026-11-27: 716 -> 526 SASS instructions per
  // iteration of attention_fwd at W = 8 with --tma).
  bool canonicalNaN = !nanBitsUnobservable(op.getResult());
  for (Value v : in) {
    FailureOr<Value> r =
        castScalar(op, v, srcElem, dstElem, su, du, canonicalNaN);
    if (failed(r))
      return failure();
    out.push_back(*r);
  }
  values[op.getResult()] = out;
  return success();
}

LogicalResult KernelLowering::lowerBitcast(tile::BitcastOp op) {
  Type srcType = op.getSrc().getType();
  Type dstType = op.getType();
  Type srcElem = srcType, dstElem = dstType;
  if (auto t = dyn_cast<RankedTensorType>(srcType)) {
    srcElem = t.getElementType();
    dstElem = cast<RankedTensorType>(dstType).getElementType();
  }
  unsigned bx = tile::getElementBitWidth(srcElem);
  unsigned by = tile::getElementBitWidth(dstElem);
  if (isa<RankedTensorType>(srcType)) {
    FailureOr<DistributedLayout> ls = layoutOf(op, srcType);
    FailureOr<DistributedLayout> ld = layoutOf(op, dstType);
    if (failed(ls) || failed(ld))
      return failure();
    auto expect = ::tile::layout::bitcastLayout(*ls, bx, by);
    if (!expect)
      return op.emitOpError(llvm::toString(expect.takeError()));
    if (*expect != *ld)
      return op.emitOpError("result layout must be ")
             << expect->str() << " (the bitcast of the source layout)";
  }
  if (bx > 32 || by > 32)
    return op.emitOpError("elements wider than 32 bits are not supported");
  const Regs &in = values[op.getSrc()];
  Type wide = b.getI64Type();
  SmallVector<Value> asInt;
  for (Value v : in) {
    Value x = v;
    if (isa<FloatType>(x.getType()))
      x = arith::BitcastOp::create(b, loc, b.getIntegerType(bx), x);
    asInt.push_back(arith::ExtUIOp::create(b, loc, wide, x));
  }
  Type dstStorage = storageType(dstElem);
  int64_t count = int64_t(in.size()) * bx / by;
  Regs out;
  for (int64_t j = 0; j < count; ++j) {
    int64_t begin = j * by, end = begin + by;
    Value acc;
    for (int64_t i = begin / bx; i * bx < end; ++i) {
      int64_t start = i * bx - begin;
      Value part =
          start >= 0
              ? arith::ShLIOp::create(b, loc, asInt[i], i64(start)).getResult()
              : arith::ShRUIOp::create(b, loc, asInt[i], i64(-start))
                    .getResult();
      acc = acc ? arith::OrIOp::create(b, loc, acc, part).getResult() : part;
    }
    Value r = arith::TruncIOp::create(b, loc, b.getIntegerType(by), acc);
    if (isa<FloatType>(dstStorage))
      r = arith::BitcastOp::create(b, loc, dstStorage, r);
    out.push_back(r);
  }
  values[op.getResult()] = out;
  return success();
}

void populateCastPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  addLowering(patterns, kl, &KernelLowering::lowerCast);
  addLowering(patterns, kl, &KernelLowering::lowerBitcast);
}

} // namespace tile::gpu
