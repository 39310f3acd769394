//===- LowerDequant.cpp - Fast conversions of narrow codes on GPUs --------===//
//
// Part of tilec. The ALU fast paths of tile.cast for sources of at most 8
// bits to f16/bf16/f32 (the dequantization of the quantized GEMMs),
// bit-exact with lib/Numerics like the rest of LowerCast.cpp, which falls
// back to hardware conversions and tables where none applies:
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
//    words, one lop3 and one fma per pair (oddWidthWords), and 3-, 5-, 6-
//    and 7-bit small floats from two windows per pair (oddWidthFloatWords).
//    8-bit tiles
//    read from shared memory as whole words whose bytes are the slots in
//    another order (the pre-packed pairs: bytes 0 and 2, 1 and 3) convert
//    a pair per byte permutation, prmt on NVIDIA (byteWordPairs; f8e5m2,
//    the top byte of an f16, by that permutation alone: e5m2BytePairs);
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
//  - NaN codes become the destination's canonical quiet NaN with the code's
//    sign, as in lib/Numerics; where the result only feeds arithmetic (its
//    NaN bits are not observable, nanBitsUnobservable), f8e4m3's NaN code
//    becomes some f16 NaN in two instructions per pair instead.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/OperandPack.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace num = ::tile::numerics;

namespace tile::gpu {

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
/// The f16 field pairs `bits` of two codes of `from` (magnitude fields at
/// bit 10 - Y of each half, signs at bit 15) with every all-ones magnitude
/// (the NaN code of f8e4m3) turned into an f16 NaN: such fields plus one
/// step of the mantissa's lowest bit reach bit 14 (the fields of every
/// other code stay below it, without a carry out of the half), which,
/// or-ed in, sets the exponent to all ones over a non-zero mantissa. Two
/// instructions per pair; the NaN's bits are not lib/Numerics' canonical
/// ones (see nanBitsUnobservable for where that is allowed).
static Value nanCodeFieldsToNaN(KernelLowering &kl, Location loc, Value bits,
                                const num::Format &from) {
  OpBuilder &b = kl.builder();
  unsigned y = from.manBits();
  int64_t top = int64_t(1) << (from.expBits() + y); // all-ones magnitude + 1
  int64_t step = int64_t(1) << (10 - y);
  Value reach = arith::AddIOp::create(b, loc, bits, kl.i32(step | step << 16));
  return arith::OrIOp::create(
      b, loc, bits,
      arith::AndIOp::create(b, loc, reach,
                            kl.i32((top << (10 - y)) | (top << (26 - y)))));
}

/// Two small-float codes eXmY (X <= 4), in the 16-bit halves of `word`
/// (other bits ignored), as an f16 pair: each code's exponent and mantissa
/// fields moved into an f16's (mantissa top-aligned at bit 9), its sign to
/// bit 15, times 2^(15 - bias), which is the value exactly (see
/// smallFloatPairs). With `nanToAny`, NaN codes give some f16 NaN
/// (nanCodeFieldsToNaN).
static Value smallFloatFieldsToF16(KernelLowering &kl, Location loc, Value word,
                                   const num::Format &from,
                                   bool nanToAny = false) {
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
  Value bits = arith::OrIOp::create(b, loc, mag, sign);
  if (nanToAny)
    bits = nanCodeFieldsToNaN(kl, loc, bits, from);
  Value pair = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, f16), bits);
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
                            const num::Format &from, Type dst, bool anyNaN) {
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
  bool nanToAny = nanCodes && dst.isF16() && anyNaN;
  for (Value word : pairWords(kl, loc, in)) {
    Value r = smallFloatFieldsToF16(kl, loc, word, from, nanToAny);
    if (nanCodes && dst.isF16() && !nanToAny)
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

/// Whether the bits of a NaN in `v` cannot be observed: every use, through
/// reshapes, transposes, layout conversions, broadcasts and inserted
/// dimensions, is a floating-point multiplication, addition, subtraction,
/// division or dot. Their result for a NaN operand is a NaN whatever that
/// NaN's sign and payload (GPUs return their canonical NaN), so a
/// conversion feeding only them may produce any NaN for a NaN code.
bool nanBitsUnobservable(Value v, unsigned depth) {
  if (depth > 8)
    return false;
  for (Operation *user : v.getUsers()) {
    if (isa<tile::ReshapeOp, tile::TransOp, tile::ConvertLayoutOp,
            tile::BroadcastOp, tile::ExpandDimsOp>(user)) {
      if (!nanBitsUnobservable(user->getResult(0), depth + 1))
        return false;
      continue;
    }
    if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp, arith::DivFOp,
             tile::DotOp>(user))
      return false;
  }
  return true;
}

/// The byte-permutation selector that moves bytes (lo, hi) of a word into
/// bytes `pos` and pos + 2 (an f16 pair's halves: pos 0 low bytes, 1 high
/// bytes), the others from the constant operand's byte 0.
static uint32_t pairSelector(int32_t lo, int32_t hi, unsigned pos) {
  uint32_t sel = 0x4444;
  sel &= ~(0xFu << (4 * pos)) & ~(0xFu << (4 * (pos + 2)));
  return sel | uint32_t(lo % 4) << (4 * pos) |
         uint32_t(hi % 4) << (4 * (pos + 2));
}

/// Per 8-bit code of each word, bit 7 set where the code's magnitude (its
/// low 7 bits) plus \p addend reaches 0x80, clear elsewhere: the NaN codes
/// of f8e4m3 (0x7F, addend 1) or f8e5m2 (0x7D..0x7F, addend 3). No carry
/// crosses a byte (at most 0x7F + 3).
static SmallVector<Value> byteNaNFlags(KernelLowering &kl, Location loc,
                                       ArrayRef<Value> words, int64_t addend) {
  OpBuilder &b = kl.builder();
  SmallVector<Value> flags;
  for (Value w : words)
    flags.push_back(arith::AndIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::AndIOp::create(b, loc, w, kl.i32(int64_t(0x7F7F7F7F))),
            kl.i32(addend * 0x01010101)),
        kl.i32(int64_t(0x80808080))));
  return flags;
}

static bool isE5M2(const num::Format &f) {
  return f.kind() == num::FormatKind::SmallFloat && f.bits() == 8 &&
         f.expBits() == 5 && f.manBits() == 2;
}

/// f8e5m2 codes read as permuted bytes of whole words (ByteWords) -> f16:
/// an e5m2 code is the top byte of the f16 of the same value (Inf
/// included), so one byte permutation per pair (the codes into the high
/// bytes of the halves, zeros below) is the conversion. A NaN code
/// (magnitude 0x7D..0x7F) becomes 0x7D00..0x7F00 with its sign: a NaN of
/// f16, enough where the result's NaN bits are not observable (anyNaN:
/// two instructions per pair with the scaling's fma, 2026-11-28; 265 us
/// for the decode GEMM at N = 57344, K = 8192 on an H100 with the
/// compare-and-select per value before, f8e4m3 194). Otherwise it becomes
/// f16's canonical quiet NaN 0x7E00 with its sign, as in lib/Numerics: a
/// per-word flag (the magnitude plus 3 reaches bit 7 for NaN codes alone,
/// no carry across bytes), moved to bit 7 of each half by the same
/// permutation, times 6 sets bits 8 and 9 (t), and (x | t) ^ (t & 0x100)
/// sets the quiet bit 9 and clears bit 8 (one lop3).
static Regs e5m2BytePairs(KernelLowering &kl, Location loc, const ByteWords &bw,
                          bool anyNaN) {
  OpBuilder &b = kl.builder();
  const SmallVector<int32_t> &at = bw.byteOf;
  auto vecType = VectorType::get({2}, b.getF16Type());
  SmallVector<Value> flags;
  if (!anyNaN)
    flags = byteNaNFlags(kl, loc, bw.words, 3);
  Regs out(at.size());
  for (size_t i = 0; i < at.size(); i += 2) {
    Value x = kl.target().permuteBytes(b, loc, bw.words[at[i] / 4], 0,
                                       pairSelector(at[i], at[i + 1], 1));
    if (!anyNaN) {
      Value flag = kl.target().permuteBytes(b, loc, flags[at[i] / 4], 0,
                                            pairSelector(at[i], at[i + 1], 0));
      Value t = arith::MulIOp::create(b, loc, flag, kl.i32(6));
      x = arith::XOrIOp::create(
          b, loc, arith::OrIOp::create(b, loc, x, t),
          arith::AndIOp::create(b, loc, t, kl.i32(int64_t(0x01000100))));
    }
    Value r = LLVM::BitcastOp::create(b, loc, vecType, x);
    out[i] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
    out[i + 1] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
  }
  return out;
}

/// 8-bit codes read as permuted bytes of whole words (ByteWords) -> f16, a
/// register pair (slots 2j, 2j + 1) at a time, when one word holds both
/// codes of every pair (the pre-packed operand order: bytes 0 and 2, 1 and
/// 3). Integers: one byte permutation (prmt) puts the two codes into the
/// low bytes of an f16 pair's halves and the magic exponent byte 0x64 above
/// them, then one packed subtraction (magicPairs; signed codes have their
/// sign bits flipped once per word first). Small floats eXmY with X <= 4:
/// the permutation puts the codes into the high bytes (sign at bit 15),
/// the magnitude moves down to an f16's fields by one shift and mask, then
/// the packed multiplication of smallFloatFieldsToF16. f8e4m3's NaN code
/// (magnitude 0x7F) comes out of that multiplication as +-480 (0x5F80); a
/// per-word flag (magnitude + 1 reaches bit 7, no carry across bytes),
/// moved to bit 7 of each half by the same permutation and spread by one
/// multiplication, xors it into f16's canonical NaN 0x7E00 with the code's
/// sign. With `anyNaN` (the result's NaN bits are not observable,
/// nanBitsUnobservable) the NaN code's fields 0x3F80 instead get bit 14 set
/// before the multiplication (the fields plus 0x80 reach it only for that
/// code): an f16 NaN, which the multiplication keeps a NaN; two instructions
/// per pair instead of four and a half. Returns an empty vector when the
/// path does not apply.
static Regs byteWordPairs(KernelLowering &kl, Location loc, const ByteWords &bw,
                          Type src, bool isUnsigned, Type dst, bool anyNaN) {
  OpBuilder &b = kl.builder();
  const SmallVector<int32_t> &at = bw.byteOf;
  if (!dst.isF16() || at.size() % 2)
    return {};
  for (size_t i = 0; i < at.size(); i += 2)
    if (at[i] / 4 != at[i + 1] / 4)
      return {};
  std::optional<num::Format> from = formatOf(src, isUnsigned);
  bool isInt = src.isSignlessInteger(8);
  bool isFloat =
      from && from->kind() == num::FormatKind::SmallFloat &&
      from->bits() == 8 && from->expBits() <= 4 && !from->hasInf() &&
      (!from->hasNaN() || (from->expBits() == 4 && from->manBits() == 3));
  if (from && isE5M2(*from))
    return e5m2BytePairs(kl, loc, bw, anyNaN);
  if (!isInt && !isFloat)
    return {};
  Type f16 = b.getF16Type();
  auto vecType = VectorType::get({2}, f16);
  Regs words = bw.words;
  Regs out(at.size());
  if (isInt) {
    if (!isUnsigned)
      for (Value &w : words)
        w = arith::XOrIOp::create(b, loc, w, kl.i32(int64_t(0x80808080)));
    Value bias = splat2(b, loc, f16, 1024.0 + (isUnsigned ? 0.0 : 128.0));
    for (size_t i = 0; i < at.size(); i += 2) {
      Value pair = kl.target().permuteBytes(b, loc, words[at[i] / 4], 0x64,
                                            pairSelector(at[i], at[i + 1], 0));
      Value r = arith::SubFOp::create(
          b, loc, LLVM::BitcastOp::create(b, loc, vecType, pair), bias);
      out[i] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
      out[i + 1] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
    }
    return out;
  }
  unsigned y = from->manBits();
  int64_t magMask = 0x7F; // the code's exponent and mantissa bits
  int64_t fields = (magMask << (10 - y)) | (magMask << (26 - y));
  Value scale = splat2(b, loc, f16, std::ldexp(1.0, 15 - from->bias()));
  // f8e4m3: the NaN flags of every word, and the xor that turns the
  // product of a NaN code (fields 0x3F80 times 2^8: 0x5F80) into 0x7E00,
  // 0x80 x 0x43.
  bool nan = from->hasNaN();
  int64_t nanProduct = (magMask << (10 - y)) + ((15 - from->bias()) << 10);
  int64_t nanXor = nanProduct ^ 0x7E00;
  SmallVector<Value> flags;
  if (nan && !anyNaN)
    flags = byteNaNFlags(kl, loc, words, 1);
  for (size_t i = 0; i < at.size(); i += 2) {
    Value x = kl.target().permuteBytes(b, loc, words[at[i] / 4], 0,
                                       pairSelector(at[i], at[i + 1], 1));
    Value sign = arith::AndIOp::create(b, loc, x, kl.i32(int64_t(0x80008000)));
    // The magnitude from bits 8.. of each half down to bit 10 - y (y >= 3
    // for 8-bit codes with X <= 4).
    Value mag = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, x, kl.i32(int64_t(y) - 2)),
        kl.i32(fields));
    Value bits = arith::OrIOp::create(b, loc, sign, mag);
    if (nan && anyNaN)
      bits = nanCodeFieldsToNaN(kl, loc, bits, *from);
    Value pair = LLVM::BitcastOp::create(b, loc, vecType, bits);
    Value r = arith::MulFOp::create(b, loc, pair, scale);
    if (nan && !anyNaN) {
      Value flag = kl.target().permuteBytes(b, loc, flags[at[i] / 4], 0,
                                            pairSelector(at[i], at[i + 1], 0));
      Value fix = arith::MulIOp::create(b, loc, flag, kl.i32(nanXor >> 7));
      Value rBits = LLVM::BitcastOp::create(b, loc, b.getI32Type(), r);
      r = LLVM::BitcastOp::create(b, loc, vecType,
                                  arith::XOrIOp::create(b, loc, rBits, fix));
    }
    out[i] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(0));
    out[i + 1] = LLVM::ExtractElementOp::create(b, loc, r, kl.i32(1));
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

/// Packed small floats eXmY of 3, 5, 6 or 7 bits (X <= 4, finite-only:
/// f5e2m2, f6e3m2, f6e2m3, ...) -> f16 from the thread's 32-bit words, in
/// the pairs of the pre-packed operand order (slot i with slot i + D, as
/// oddWidthWords). A float's fields must land at fixed places (unlike an
/// integer, whose place a scale undoes), so each code gets its own window
/// of the stream: the low code's exponent and mantissa at bit 10 - Y of
/// the low half, the high code's at the same bit of the high half. One
/// lop3 takes the low half of the first window and the high half of the
/// second, one keeps the fields (an f16 with the code's exponent and
/// mantissa, exact as in smallFloatFieldsToF16), a shift and one more lop3
/// build the factor 2^(15 - bias) with each code's sign, and one packed
/// multiplication gives the signed values: 7 instructions per pair with
/// the two window shifts, against 11-12 for codes unpacked one by one.
static Regs oddWidthFloatWords(KernelLowering &kl, Location loc,
                               const Regs &words, const num::Format &from,
                               Type dst) {
  OpBuilder &b = kl.builder();
  unsigned bits = from.bits();
  if (from.kind() != num::FormatKind::SmallFloat || from.expBits() > 4 ||
      from.hasInf() || from.hasNaN() || !dst.isF16() ||
      !(bits == 3 || bits == 5 || bits == 6 || bits == 7))
    return {};
  int64_t x = from.expBits(), y = from.manBits();
  int64_t d = int64_t(num::oddWidthPairDistance(bits));
  int64_t span = d * bits, streamBits = int64_t(words.size()) * 32;
  if (streamBits % bits || (streamBits / bits) % (2 * d))
    return {};
  int64_t count = streamBits / bits;
  int64_t fields = ((int64_t(1) << (x + y)) - 1) << (10 - y);
  Type f16 = b.getF16Type();
  auto vecType = VectorType::get({2}, f16);
  // 2^(15 - bias) in each half (its sign bits clear).
  int64_t rebias = int64_t(
      num::encode(num::Format::f16(), std::ldexp(1.0, 15 - from.bias())));
  Regs out(count);
  for (int64_t i = 0; i < count; ++i) {
    if (i % (2 * d) >= d)
      continue;
    int64_t at = i * bits;
    Value lo = streamWindow(kl, loc, words, at - (10 - y));
    Value hi = streamWindow(kl, loc, words, at + span - (26 - y));
    TargetLowering &tl = kl.target();
    Value both = tl.bitSelect(b, loc, lo, hi, 0xFFFF);
    Value mag = tl.andXor(b, loc, both, fields | fields << 16, 0);
    // The factor 2^(15 - bias) with each code's sign (bit 10 + X of each
    // half, shifted to 15): the product is the signed value, zeros too.
    Value factor =
        tl.andXor(b, loc, arith::ShLIOp::create(b, loc, both, kl.i32(5 - x)),
                  int64_t(0x80008000u), rebias | rebias << 16);
    Value pair = arith::MulFOp::create(
        b, loc, LLVM::BitcastOp::create(b, loc, vecType, mag),
        LLVM::BitcastOp::create(b, loc, vecType, factor));
    out[i] = LLVM::ExtractElementOp::create(b, loc, pair, kl.i32(0));
    out[i + d] = LLVM::ExtractElementOp::create(b, loc, pair, kl.i32(1));
  }
  return out;
}

Regs dequantizeFast(KernelLowering &kl, Location loc, tile::CastOp op,
                    const Regs &in, Type srcElem, Type dstElem) {
  bool su = op.getSrcUnsigned();
  bool anyNaN = nanBitsUnobservable(op.getResult());
  if (const Regs *words = kl.lookupPackedWords(op.getSrc())) {
    Regs fast = packedIntWords(kl, loc, *words, srcElem, su, dstElem);
    if (fast.empty())
      fast = oddWidthWords(kl, loc, *words, srcElem, su, dstElem);
    if (fast.empty())
      if (std::optional<num::Format> from = formatOf(srcElem, su)) {
        fast = packedFloatWords(kl, loc, *words, *from, dstElem);
        if (fast.empty())
          fast = oddWidthFloatWords(kl, loc, *words, *from, dstElem);
      }
    if (fast.size() == in.size())
      return fast;
  }
  if (const ByteWords *bytes = kl.lookupByteWords(op.getSrc())) {
    Regs fast = byteWordPairs(kl, loc, *bytes, srcElem, su, dstElem, anyNaN);
    if (fast.size() == in.size())
      return fast;
  }
  if (srcElem.isSignlessInteger()) {
    Regs fast =
        magicPairs(kl, loc, in, srcElem.getIntOrFloatBitWidth(), su, dstElem);
    if (!fast.empty())
      return fast;
  }
  if (std::optional<num::Format> from = formatOf(srcElem, su)) {
    Regs fast = smallFloatPairs(kl, loc, in, *from, dstElem, anyNaN);
    if (fast.empty())
      fast = smallFloatViaF32(kl, loc, in, *from, dstElem);
    return fast;
  }
  return {};
}

} // namespace tile::gpu
