//===- LowerCast.cpp - Numeric conversions on GPUs ------------------------===//
//
// Part of tilec. tile.cast with the rules of lib/Numerics (round to nearest
// even, saturating, NaN handling of docs/Numerics.md), bit-exact.
//
// Sources of at most 8 bits to f16/bf16/f32 (the dequantization of
// gemm_wq) convert with ALU operations only:
//  - integers u1..u8, i1..i8 -> f16 and (at most 7 bits) -> bf16 two at a
//    time with magic-number exponents: the code (xored with its sign bit
//    when signed) or-ed with 0x6400 (1024.0 in f16; 0x4300 = 128.0 in
//    bf16), then one packed f16x2/bf16x2 subtraction of the magic (plus
//    2^(b-1) when signed); the PTX backend selects lop3/prmt and
//    sub.f16x2. Tiles whose packed 32-bit words the lowering kept (global
//    and shared loads of 1-, 2- and 4-bit elements) convert a whole word
//    at a time, two slots per lop3 (packedIntWords; 4-bit floats to f16 by
//    packedFloatWords); 3-, 5-, 6- and 7-bit integers to f16 convert the
//    pairs of the pre-packed operand order from shifted windows of their
//    words, one lop3 and one fma per pair (oddWidthWords).
//    u8/i8 -> bf16 and every integer of <= 8 bits -> f32 by one exact
//    hardware conversion;
//  - small floats eXmY with X <= 4 (finite-only: f4e2m1, f6e2m3, f6e3m2,
//    f5e2m2, every other split with X <= 4; and f8e4m3 with its NaN codes)
//    -> f16/bf16/f32 two at a time: the code's exponent and mantissa fields
//    shifted into an f16's, the sign to bit 15, one packed multiplication
//    by 2^(15 - bias) (exact, see smallFloatPairs), then an exact widening
//    to f32 (and narrowing to bf16);
//  - finite-only small floats with X >= 5 (f6e5m0, f7e5m1, f7e6m0, f8e6m1,
//    f8e7m0) -> f16/bf16/f32 one at a time: an exact f32 from the fields
//    (exponent rebiased by an integer add, subnormal codes as M times a
//    power of two), then one round-to-nearest-even conversion
//    (smallFloatViaF32);
//  - f8e5m2 -> f16/bf16 by a shift (it is the top byte of an f16), bf16
//    through f32, exactly;
//  - NaN codes become the destination's canonical quiet NaN with the code's
//    sign, as in lib/Numerics.
// The rest of the <= 8-bit sources (e8m0, f8e4m3/f8e5m2 -> f32, and every
// narrow source to an integer or small-float destination) loads from a lookup
// table that lib/Numerics computes at compile time (one constant global per
// pair).
//
// Other conversions:
//  - f16/bf16/f32 <-> f16/bf16/f32 and wider integers -> f16/bf16/f32 by the
//    hardware's round-to-nearest-even conversions (one rounding);
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
#include "tile/Numerics/OperandPack.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using ::tile::layout::DistributedLayout;
namespace num = ::tile::numerics;

namespace tile::gpu {

/// The lib/Numerics format of an element type (integers read as unsigned
/// when `isUnsigned`).
static std::optional<num::Format> formatOf(Type type, bool isUnsigned) {
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
                                            bool srcUnsigned,
                                            bool dstUnsigned) {
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

/// Two codes per 32-bit word: in[i] in the low half, in[i + 1] in the high
/// half (zero past the end of an odd-sized list).
static SmallVector<Value> pairWords(KernelLowering &kl, Location loc,
                                    const Regs &in) {
  OpBuilder &b = kl.builder();
  Type i32 = b.getI32Type();
  SmallVector<Value> words;
  for (size_t i = 0; i < in.size(); i += 2) {
    Value word = arith::ExtUIOp::create(b, loc, i32, in[i]);
    if (i + 1 < in.size()) {
      Value hi = arith::ExtUIOp::create(b, loc, i32, in[i + 1]);
      word = arith::OrIOp::create(
          b, loc, word, arith::ShLIOp::create(b, loc, hi, kl.i32(16)));
    }
    words.push_back(word);
  }
  return words;
}

/// The elements of the packed pairs `pairs` (vector<2xT>), `count` of them.
static Regs unpackPairs(KernelLowering &kl, Location loc, ArrayRef<Value> pairs,
                        size_t count) {
  OpBuilder &b = kl.builder();
  Regs out;
  for (Value pair : pairs)
    for (int k = 0; k < 2 && out.size() < count; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, pair, kl.i32(k)));
  return out;
}

/// A vector<2xT> constant (lo, hi).
static Value const2(OpBuilder &b, Location loc, Type elem, double lo,
                    double hi) {
  auto vecType = VectorType::get({2}, elem);
  SmallVector<Attribute> elems{b.getFloatAttr(elem, lo),
                               b.getFloatAttr(elem, hi)};
  return arith::ConstantOp::create(b, loc, vecType,
                                   DenseElementsAttr::get(vecType, elems));
}

/// A vector<2xT> splat constant.
static Value splat2(OpBuilder &b, Location loc, Type elem, double v) {
  return const2(b, loc, elem, v, v);
}

/// Magic-number fast path: pairs of b-bit integers (b <= 8) -> f16x2, and
/// (b <= 7) -> bf16x2. f16: the bits 0x6400 | k are 1024 + k for
/// 0 <= k < 1024, so (0x6400 | u) - 1024 is u exactly; a signed code i
/// xored with its sign bit 2^(b-1) is i + 2^(b-1) in [0, 2^b), so
/// (0x6400 | (i ^ 2^(b-1))) - (1024 + 2^(b-1)) is i exactly. bf16: 0x4300
/// is 128 with 7 mantissa bits, so 0x4300 | k is 128 + k for k < 128.
/// Both subtractions are exact (integers below 2^11 resp. 2^8). Returns an
/// empty vector when no fast path applies.
static Regs magicPairs(KernelLowering &kl, Location loc, const Regs &in,
                       unsigned bits, bool isUnsigned, Type dst) {
  OpBuilder &b = kl.builder();
  bool f16 = dst.isF16();
  if (!(f16 || dst.isBF16()) || bits < 1 || bits > (f16 ? 8u : 7u))
    return {};
  int64_t magic = f16 ? 0x6400 : 0x4300;
  double magicValue = f16 ? 1024.0 : 128.0;
  int64_t half = int64_t(1) << (bits - 1);
  double bias = magicValue + (isUnsigned ? 0 : double(half));
  auto vecType = VectorType::get({2}, dst);
  Value biasVec = splat2(b, loc, dst, bias);
  int64_t flip = isUnsigned ? 0 : (half | (half << 16));
  SmallVector<Value> pairs;
  for (Value word : pairWords(kl, loc, in)) {
    word = arith::XOrIOp::create(b, loc, word,
                                 kl.i32(magic | (magic << 16) | flip));
    Value pair = LLVM::BitcastOp::create(b, loc, vecType, word);
    pairs.push_back(arith::SubFOp::create(b, loc, pair, biasVec));
  }
  return unpackPairs(kl, loc, pairs, in.size());
}

/// Small floats eXmY with X <= 4 (finite-only, or f8e4m3 with its NaN
/// codes) -> f16/bf16/f32, two at a time, without a table. The code's
/// magnitude bits shifted left by 10 - Y are an f16 with the code's exponent
/// field (X <= 4 bits, so never 31: finite) and its mantissa top-aligned;
/// for E > 0 that f16 is (1 + M/2^Y) 2^(E-15), for E = 0 it is the f16
/// subnormal M/2^Y 2^(1-15), i.e. always the code's value times
/// 2^(bias-15). One packed multiplication by 2^(15-bias) (bias <= 7, so
/// 2^8..2^15: representable) restores the value, and the product is exact:
/// every value of these formats has at most Y + 1 <= 7 significant bits,
/// magnitude <= 448 < 65504 and lowest bit >= 2^(1-bias-Y) >= 2^-9 >
/// 2^-24, so it is an f16 (normal or subnormal) and round-to-nearest leaves
/// it unchanged (f16 arithmetic keeps subnormals). The sign goes to bit 15
/// (-0 stays -0). bf16 and f32 go on through f32 (exact: f32 holds every
/// f16, bf16 every value with <= 8 significant bits in f16's range). f8e4m3
/// NaN codes (magnitude 0x7F) become the destination's canonical quiet NaN
/// with the code's sign, as in lib/Numerics. Returns an empty vector when
/// the path does not apply.
/// Two small-float codes eXmY (X <= 4), in the 16-bit halves of `word`
/// (other bits ignored), as an f16 pair: each code's exponent and mantissa
/// fields moved into an f16's (mantissa top-aligned at bit 9), its sign to
/// bit 15, times 2^(15 - bias), which is the value exactly (see
/// smallFloatPairs).
static Value smallFloatFieldsToF16(KernelLowering &kl, Location loc, Value word,
                                   const num::Format &from) {
  OpBuilder &b = kl.builder();
  unsigned x = from.expBits(), y = from.manBits();
  int64_t magMask = (int64_t(1) << (x + y)) - 1;
  int64_t signBit = int64_t(1) << (x + y);
  Type f16 = b.getF16Type();
  Value mag = arith::ShLIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, word, kl.i32(magMask | magMask << 16)),
      kl.i32(10 - y));
  Value sign = arith::ShLIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, word, kl.i32(signBit | signBit << 16)),
      kl.i32(15 - (x + y)));
  Value pair = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, f16),
                                       arith::OrIOp::create(b, loc, mag, sign));
  return arith::MulFOp::create(
      b, loc, pair, splat2(b, loc, f16, std::ldexp(1.0, 15 - from.bias())));
}

/// The f16 pair `r` converted from the two f8e4m3 codes in the 16-bit halves
/// of `word` (each at most 8 bits), with each half whose code is a NaN code
/// (magnitude bits all ones, `magMask`) replaced by f16's canonical NaN
/// with the code's sign: word operations on both halves at once. The
/// magnitude plus one reaches bit 7 only for the NaN code, so no carry
/// crosses the halves; that bit spread over the half is the select mask.
static Value nanPairsToF16(KernelLowering &kl, Location loc, Value word,
                           Value r, int64_t magMask) {
  OpBuilder &b = kl.builder();
  auto c = [&](int64_t v) { return kl.i32(v); };
  int64_t top = magMask + 1; // 0x80: the bit only a NaN code's + 1 reaches
  Value mag = arith::AndIOp::create(b, loc, word, c(magMask | magMask << 16));
  Value hit = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mag, c(1 | 1 << 16)),
      c(top | top << 16));
  // 0x80 -> 0xFFFF in each half: (hit >> 7) * 0xFFFF.
  Value mask = arith::MulIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, hit, c(llvm::Log2_64(uint64_t(top)))),
      c(0xFFFF));
  Value bits = LLVM::BitcastOp::create(b, loc, b.getI32Type(), r);
  Value nan = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, bits, c(0x80008000)),
      c(0x7E007E00));
  Value merged = arith::OrIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, bits,
                            arith::XOrIOp::create(b, loc, mask, c(-1))),
      arith::AndIOp::create(b, loc, nan, mask));
  return LLVM::BitcastOp::create(b, loc, r.getType(), merged);
}

static Regs smallFloatPairs(KernelLowering &kl, Location loc, const Regs &in,
                            const num::Format &from, Type dst) {
  OpBuilder &b = kl.builder();
  if (from.kind() != num::FormatKind::SmallFloat || from.expBits() > 4 ||
      !(dst.isF16() || dst.isBF16() || dst.isF32()))
    return {};
  bool nanCodes = from.hasNaN();
  // Only E4M3FN has NaN codes among X <= 4; its f32 results keep the
  // table for now (test/Codegen/NVIDIA/tile-convert-to-nvvm-cast.mlir).
  if (from.hasInf() ||
      (nanCodes && (from.expBits() != 4 || from.manBits() != 3 || dst.isF32())))
    return {};
  unsigned x = from.expBits(), y = from.manBits();
  int64_t magMask = (int64_t(1) << (x + y)) - 1;
  int64_t signBit = int64_t(1) << (x + y);
  SmallVector<Value> pairs;
  for (Value word : pairWords(kl, loc, in)) {
    Value r = smallFloatFieldsToF16(kl, loc, word, from);
    if (nanCodes && dst.isF16())
      r = nanPairsToF16(kl, loc, word, r, magMask);
    if (!dst.isF16()) {
      r = arith::ExtFOp::create(b, loc, VectorType::get({2}, b.getF32Type()),
                                r);
      if (dst.isBF16())
        r = arith::TruncFOp::create(b, loc, VectorType::get({2}, dst), r);
    }
    pairs.push_back(r);
  }
  Regs out = unpackPairs(kl, loc, pairs, in.size());
  if (!nanCodes || dst.isF16())
    return out;
  unsigned width = dst.getIntOrFloatBitWidth();
  Type dstInt = b.getIntegerType(width);
  uint32_t nanCode = formatOf(dst, false)->nanCode();
  for (size_t i = 0; i < in.size(); ++i) {
    Value code = in[i];
    Type codeType = code.getType();
    Value isNaN = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, code, kl.constant(codeType, magMask)),
        kl.constant(codeType, magMask));
    Value nanBits = arith::OrIOp::create(
        b, loc,
        arith::ShLIOp::create(
            b, loc,
            arith::AndIOp::create(b, loc,
                                  arith::ExtUIOp::create(b, loc, dstInt, code),
                                  kl.constant(dstInt, signBit)),
            kl.constant(dstInt, width - 1 - (x + y))),
        kl.constant(dstInt, nanCode));
    out[i] = arith::SelectOp::create(
        b, loc, isNaN, arith::BitcastOp::create(b, loc, dst, nanBits), out[i]);
  }
  return out;
}

/// Finite-only small floats eXmY with X >= 5 -> f16/bf16/f32, one at a
/// time, without a table. Their values (at most Y + 1 <= 3 significant bits,
/// magnitudes in [2^(1-bias-Y), 2^(2^X-bias)) with bias <= 63) are all
/// normal f32s, built exactly: E > 0 codes by moving the fields into an
/// f32's and adding 127 - bias to the exponent field; E = 0 codes
/// (subnormals, M/2^Y 2^(1-bias)) as the exact integer M times the normal
/// power of two 2^(1-bias-Y), so no subnormal f32 operand appears (the
/// result does not depend on a target's f32 denormal mode). The sign is
/// or-ed into bit 31 (-0 stays -0). bf16 (8 significant bits, f32's range)
/// and f16 then take one round-to-nearest-even conversion, which is exactly
/// lib/Numerics' single rounding of the exact value (including overflow to
/// inf and f16 subnormals). Returns an empty vector when it does not apply.
static Regs smallFloatViaF32(KernelLowering &kl, Location loc, const Regs &in,
                             const num::Format &from, Type dst) {
  OpBuilder &b = kl.builder();
  if (from.kind() != num::FormatKind::SmallFloat || from.expBits() < 5 ||
      from.specials() != num::SpecialValues::FiniteOnly ||
      !(dst.isF16() || dst.isBF16() || dst.isF32()))
    return {};
  unsigned x = from.expBits(), y = from.manBits();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value subScale = arith::ConstantOp::create(
      b, loc, f32,
      b.getF32FloatAttr(float(std::ldexp(1.0, 1 - from.bias() - int(y)))));
  Regs out;
  for (Value v : in) {
    Value code = arith::ExtUIOp::create(b, loc, i32, v);
    Value mag = arith::AndIOp::create(b, loc, code,
                                      kl.i32((int64_t(1) << (x + y)) - 1));
    Value normal = arith::AddIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, mag, kl.i32(23 - y)),
        kl.i32(int64_t(127 - from.bias()) << 23));
    Value sub = arith::BitcastOp::create(
        b, loc, i32,
        arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32, mag),
                              subScale));
    Value isSub = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, mag,
                                        kl.i32(int64_t(1) << y));
    Value bits = arith::SelectOp::create(b, loc, isSub, sub, normal);
    Value sign = arith::ShLIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, code, kl.i32(int64_t(1) << (x + y))),
        kl.i32(31 - (x + y)));
    Value r = arith::BitcastOp::create(
        b, loc, f32, arith::OrIOp::create(b, loc, bits, sign));
    if (!dst.isF32())
      r = arith::TruncFOp::create(b, loc, dst, r);
    out.push_back(r);
  }
  return out;
}

/// Word-wide fast path for packed b-bit integers, b in {1, 2, 4}, ->
/// f16/bf16: a word w holds the n = 32 / b slots n*i .. n*i + n - 1, and
/// the fields of slots n*i + j and n*i + j + n/2 sit b*j and b*j + 16 bits
/// up. One lop3 (the fields masked, xor the magic exponent and the sign
/// flip) and one packed subtraction convert both (exact: see magicPairs).
/// For f16 a field s = b*j mod 8 bits up in its byte is converted where it
/// stands, as 2^s times its value, and scaled back by an exact packed fma:
/// one shift per byte offset instead of one per field (bf16 has too few
/// mantissa bits for that).
/// 4-bit small floats eXmY (X <= 4, finite-only: f4e2m1, ...) -> f16 from
/// the thread's packed 32-bit words, as packedIntWords: slots j and j + 4
/// of a word form one f16 pair (smallFloatFieldsToF16).
static Regs packedFloatWords(KernelLowering &kl, Location loc,
                             const Regs &words, const num::Format &from,
                             Type dst) {
  OpBuilder &b = kl.builder();
  if (from.kind() != num::FormatKind::SmallFloat || from.bits() != 4 ||
      from.expBits() > 4 || from.hasInf() || from.hasNaN() || !dst.isF16())
    return {};
  Regs out(words.size() * 8);
  for (auto [i, w] : llvm::enumerate(words)) {
    for (int64_t j = 0; j < 4; ++j) {
      Value t =
          j ? arith::ShRUIOp::create(b, loc, w, kl.i32(4 * j)).getResult() : w;
      Value r = smallFloatFieldsToF16(kl, loc, t, from);
      out[8 * i + j] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
      out[8 * i + j + 4] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
    }
  }
  return out;
}

static Regs packedIntWords(KernelLowering &kl, Location loc, const Regs &words,
                           Type src, bool isUnsigned, Type dst) {
  OpBuilder &b = kl.builder();
  unsigned bits = src.isSignlessInteger() ? src.getIntOrFloatBitWidth() : 0;
  if (!(bits == 1 || bits == 2 || bits == 4) || !(dst.isF16() || dst.isBF16()))
    return {};
  bool f16 = dst.isF16();
  int64_t magic = f16 ? 0x6400 : 0x4300;
  double magicValue = f16 ? 1024.0 : 128.0;
  int64_t halfRange = int64_t(1) << (bits - 1);
  double offset = isUnsigned ? 0.0 : double(halfRange);
  int64_t flip = isUnsigned ? 0 : (halfRange | (halfRange << 16));
  int64_t mask = (int64_t(1) << bits) - 1;
  int64_t perWord = 32 / bits, half = perWord / 2;
  auto vecType = VectorType::get({2}, dst);
  auto splat = [&](double v) -> Value {
    SmallVector<Attribute> elems(2, b.getFloatAttr(dst, v));
    return arith::ConstantOp::create(b, loc, vecType,
                                     DenseElementsAttr::get(vecType, elems));
  };
  Regs out(words.size() * perWord);
  for (auto [i, w] : llvm::enumerate(words)) {
    for (int64_t j = 0; j < half; ++j) {
      int64_t at = bits * j;
      int64_t up = f16 ? at % 8 : 0; // where the field stays
      Value t =
          at - up
              ? arith::ShRUIOp::create(b, loc, w, kl.i32(at - up)).getResult()
              : w;
      t = kl.target().andXor(b, loc, t, (mask | (mask << 16)) << up,
                             (magic | (magic << 16)) | (flip << up));
      Value pair = LLVM::BitcastOp::create(b, loc, vecType, t);
      Value r;
      if (up == 0) {
        r = arith::SubFOp::create(b, loc, pair, splat(magicValue + offset));
      } else {
        double scale = std::ldexp(1.0, -int(up));
        r = LLVM::FMAOp::create(b, loc, pair, splat(scale),
                                splat(-(magicValue * scale + offset)));
      }
      out[perWord * i + j] =
          LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
      out[perWord * i + j + half] =
          LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
    }
  }
  return out;
}

/// Bits [from, from + 32) of the thread's packed stream `words` (zeros
/// below bit 0 and past the end): one shift, or a funnel shift of two
/// words.
static Value streamWindow(KernelLowering &kl, Location loc, const Regs &words,
                          int64_t from) {
  OpBuilder &b = kl.builder();
  if (from < 0)
    return arith::ShLIOp::create(b, loc, words[0], kl.i32(-from));
  size_t first = size_t(from / 32);
  int64_t shift = from % 32;
  if (shift == 0)
    return words[first];
  if (first + 1 < words.size())
    return LLVM::FshrOp::create(b, loc, b.getI32Type(), words[first + 1],
                                words[first], kl.i32(shift));
  return arith::ShRUIOp::create(b, loc, words[first], kl.i32(shift));
}

/// Packed 3-, 5-, 6- and 7-bit integers -> f16 from the thread's 32-bit
/// words (slot i at stream bit b*i). Slot i pairs with slot i + D (D =
/// num::oddWidthPairDistance(b); i % 2D < D): the two codes of an operand
/// register in the pre-packed order (OperandPack.h). The 32 stream bits
/// from bit t hold the first code s bits up and the second
/// sHi = s + D*b - 16 bits up in the upper half, both below bit 10 (s
/// within [lo, hi] below); one lop3 masks both, flips signed codes and sets
/// the exponents: 25 (0x6400, 1024) in the upper half and 25 + sHi - s in
/// the lower, so that both halves are 2^(10 - their offset) + code * 2^sHi;
/// one fma.rn.f16x2 by the splat 2^-sHi minus the per-half bias (a
/// sub.f16x2 when sHi = 0) gives the codes (exact: the product is a power
/// of two times an f16, the difference a small integer). Consecutive pairs
/// share a window while their offsets fit: b = 3 needs one shift per two
/// pairs, the other widths one per pair.
static Regs oddWidthWords(KernelLowering &kl, Location loc, const Regs &words,
                          Type src, bool isUnsigned, Type dst) {
  OpBuilder &b = kl.builder();
  unsigned bits = src.isSignlessInteger() ? src.getIntOrFloatBitWidth() : 0;
  if (!(bits == 3 || bits == 5 || bits == 6 || bits == 7) || !dst.isF16())
    return {};
  int64_t d = int64_t(num::oddWidthPairDistance(bits));
  int64_t span = d * bits, streamBits = int64_t(words.size()) * 32;
  int64_t lo = std::max<int64_t>(0, 16 - span);
  int64_t hi = std::min<int64_t>(10 - bits, 26 - bits - span);
  if (lo > hi || streamBits % bits || (streamBits / bits) % (2 * d))
    return {};
  int64_t count = streamBits / bits;
  int64_t mask = (int64_t(1) << bits) - 1, halfRange = mask / 2 + 1;
  double offset = isUnsigned ? 0.0 : double(halfRange);
  Type f16 = b.getF16Type();
  auto vecType = VectorType::get({2}, f16);
  Regs out(count);
  int64_t from = 0;
  Value window;
  for (int64_t i = 0; i < count; ++i) {
    if (i % (2 * d) >= d)
      continue;
    int64_t at = i * bits;
    if (!window || at - from < lo || at - from > hi) {
      from = at - lo;
      window = streamWindow(kl, loc, words, from);
    }
    int64_t sLo = at - from, sHi = sLo + span - 16;
    int64_t fields = (mask << sLo) | (mask << (16 + sHi));
    int64_t flip =
        isUnsigned ? 0 : (halfRange << sLo) | (halfRange << (16 + sHi));
    // The low half's exponent is sLo - sHi below the high half's 25
    // (0x6400): both halves are then 2^(10 - s) + code * 2^sHi, so one
    // splat scale 2^-sHi serves both (no per-half constant register).
    int64_t expLo = 25 + sHi - sLo;
    Value t = kl.target().andXor(b, loc, window, fields,
                                 ((expLo << 10) | (0x6400 << 16)) | flip);
    Value pair = LLVM::BitcastOp::create(b, loc, vecType, t);
    double biasLo = std::ldexp(1.0, 10 - int(sLo)) + offset;
    double biasHi = std::ldexp(1.0, 10 - int(sHi)) + offset;
    Value r = sHi == 0 ? arith::SubFOp::create(
                             b, loc, pair, const2(b, loc, f16, biasLo, biasHi))
                             .getResult()
                       : LLVM::FMAOp::create(
                             b, loc, pair,
                             splat2(b, loc, f16, std::ldexp(1.0, -int(sHi))),
                             const2(b, loc, f16, -biasLo, -biasHi))
                             .getResult();
    out[i] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
    out[i + d] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
  }
  return out;
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
  if (const Regs *words = lookupPackedWords(op.getSrc())) {
    Regs fast = packedIntWords(*this, loc, *words, srcElem, su, dstElem);
    if (fast.empty())
      fast = oddWidthWords(*this, loc, *words, srcElem, su, dstElem);
    if (fast.empty())
      if (std::optional<num::Format> from = formatOf(srcElem, su))
        fast = packedFloatWords(*this, loc, *words, *from, dstElem);
    if (fast.size() == in.size()) {
      values[op.getResult()] = fast;
      return success();
    }
  }
  if (srcElem.isSignlessInteger()) {
    Regs fast = magicPairs(*this, loc, in, srcElem.getIntOrFloatBitWidth(), su,
                           dstElem);
    if (!fast.empty()) {
      values[op.getResult()] = fast;
      return success();
    }
  }
  if (std::optional<num::Format> from = formatOf(srcElem, su)) {
    Regs fast = smallFloatPairs(*this, loc, in, *from, dstElem);
    if (fast.empty())
      fast = smallFloatViaF32(*this, loc, in, *from, dstElem);
    if (!fast.empty()) {
      values[op.getResult()] = fast;
      return success();
    }
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
  for (Value v : in) {
    FailureOr<Value> r = castScalar(op, v, srcElem, dstElem, su, du);
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
