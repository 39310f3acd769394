//===- ScalarCodes.cpp - Arith builders for tile number formats -----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Utils/ScalarCodes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Value tile::buildE8M0FromF32(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, value);
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7FFFFFFF));
  Value exp = arith::ShRUIOp::create(b, loc, magnitude, c(23));
  Value man = arith::AndIOp::create(b, loc, magnitude, c(0x7FFFFF));
  // Half way to the next scale: mantissa 0.5 for normals; for f32
  // subnormals (scale 2^-127 only) 1.5 * 2^-127.
  Value half =
      arith::SelectOp::create(b, loc, cmp(arith::CmpIPredicate::eq, exp, c(0)),
                              c(0x600000), c(0x400000));
  Value up = arith::ExtUIOp::create(b, loc, i32,
                                    cmp(arith::CmpIPredicate::uge, man, half));
  Value code = arith::AddIOp::create(b, loc, exp, up);
  code = arith::MinUIOp::create(b, loc, code, c(0xFE));
  Value negative =
      arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::slt, bits, c(0)),
                            cmp(arith::CmpIPredicate::ne, magnitude, c(0)));
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
  Value invalid = arith::OrIOp::create(b, loc, negative, isNaN);
  code = arith::SelectOp::create(b, loc, invalid, c(0xFF), code);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

Value tile::buildIntToF32RoundOdd(OpBuilder &b, Location loc, Value value,
                                  bool isUnsigned) {
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  unsigned width = value.getType().getIntOrFloatBitWidth();
  Value w = value;
  if (width < 64)
    w = isUnsigned ? arith::ExtUIOp::create(b, loc, i64, value).getResult()
                   : arith::ExtSIOp::create(b, loc, i64, value).getResult();
  // |w| as an unsigned 64-bit magnitude (-2^63 included).
  Value negative =
      isUnsigned
          ? arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0).getResult()
          : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, w, c(0))
                .getResult();
  Value mag = arith::SelectOp::create(
      b, loc, negative, arith::SubIOp::create(b, loc, c(0), w), w);
  // Bits to drop: the magnitude's width beyond 24 significant bits.
  Value lz = LLVM::CountLeadingZerosOp::create(b, loc, i64, mag,
                                               /*is_zero_poison=*/false);
  Value drop = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(64 - 24), lz), c(0));
  Value kept = arith::ShRUIOp::create(b, loc, mag, drop);
  Value lost = arith::AndIOp::create(
      b, loc, mag,
      arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, c(1), drop),
                            c(1)));
  Value sticky = arith::ExtUIOp::create(
      b, loc, i64,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, lost, c(0)));
  kept = arith::OrIOp::create(b, loc, kept, sticky);
  // kept < 2^24: exact in f32; times 2^drop (drop <= 40): exact.
  Value x = arith::UIToFPOp::create(b, loc, f32, kept);
  Value scale = arith::BitcastOp::create(
      b, loc, f32,
      arith::TruncIOp::create(
          b, loc, b.getI32Type(),
          arith::ShLIOp::create(
              b, loc, arith::AddIOp::create(b, loc, drop, c(127)), c(23))));
  x = arith::MulFOp::create(b, loc, x, scale);
  return arith::SelectOp::create(b, loc, negative,
                                 arith::NegFOp::create(b, loc, x), x);
}
