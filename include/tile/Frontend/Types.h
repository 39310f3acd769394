//===- Types.h - Semantic types of the .tile language ------------*- C++
//-*-===//
//
// Part of tilec. Element types (f16, u4, f8e4m3, ...), value types (scalars,
// register tiles, global tensors, slices, shared buffers) and compile-time
// values, free of MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_TYPES_H
#define TILE_FRONTEND_TYPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace tile {
namespace frontend {

/// An element (scalar) type.
struct ElemType {
  enum Kind : uint8_t {
    Invalid,
    Bool,       ///< Result of comparisons; i1 in MLIR.
    SInt,       ///< i1 .. i32.
    UInt,       ///< u1 .. u32.
    F16,        ///< IEEE half.
    BF16,       ///< bfloat16.
    F32,        ///< IEEE single.
    SmallFloat, ///< fNeXmY with N = 1 + X + Y <= 8.
    E8M0,       ///< Power-of-two scale type.
    IntLit,     ///< Untyped compile-time integer (literal, int parameter).
    FloatLit,   ///< Untyped compile-time float literal.
  };
  Kind kind = Invalid;
  uint8_t bits = 0; ///< Storage width in bits.
  uint8_t exp = 0;  ///< SmallFloat exponent bits.
  uint8_t mant = 0; ///< SmallFloat mantissa bits.

  static ElemType get(Kind k);
  static ElemType sint(unsigned bits) { return {SInt, (uint8_t)bits, 0, 0}; }
  static ElemType uint(unsigned bits) { return {UInt, (uint8_t)bits, 0, 0}; }
  static ElemType smallFloat(unsigned e, unsigned m) {
    return {SmallFloat, (uint8_t)(1 + e + m), (uint8_t)e, (uint8_t)m};
  }

  /// Parses a language type name (f16, u4, f8e4m3, e8m0, bool, ...).
  static std::optional<ElemType> parse(llvm::StringRef name);

  bool isValid() const { return kind != Invalid; }
  bool isInteger() const {
    return kind == SInt || kind == UInt || kind == IntLit;
  }
  bool isUnsigned() const { return kind == UInt; }
  /// f16, bf16, f32 and float literals: types arithmetic is defined on.
  bool isArithFloat() const {
    return kind == F16 || kind == BF16 || kind == F32 || kind == FloatLit;
  }
  /// Any floating-point type, small floats and e8m0 included.
  bool isFloat() const {
    return isArithFloat() || kind == SmallFloat || kind == E8M0;
  }
  /// Storage-only types (no arithmetic; cast first).
  bool isStorageOnly() const { return kind == SmallFloat || kind == E8M0; }
  bool isLiteral() const { return kind == IntLit || kind == FloatLit; }

  /// The language spelling ("f16", "u4", "f8e4m3", "bool", "int literal").
  std::string str() const;

  bool operator==(const ElemType &o) const {
    return kind == o.kind && bits == o.bits && exp == o.exp && mant == o.mant;
  }
  bool operator!=(const ElemType &o) const { return !(*this == o); }
};

/// A static tile shape.
using Shape = llvm::SmallVector<int64_t, 4>;

/// Formats a shape as "[128, 64]".
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// The semantic type of an expression.
struct Ty {
  enum Kind : uint8_t {
    Invalid,  ///< Error already reported.
    Void,     ///< Statements-only builtins (store, barrier, ...).
    Scalar,   ///< A scalar value of `elem`.
    Tile,     ///< A register tile of `elem` and `shape`.
    Tensor,   ///< A global tensor parameter (shape has -1 for runtime dims).
    GSlice,   ///< A slice of a global tensor (`shape` = loaded tile shape).
    Shared,   ///< A shared-memory buffer of `shape`.
    SSlice,   ///< A slice of a shared buffer.
    TypeVal,  ///< A type used as a value (`f16`, `T`).
    Layout,   ///< A register layout expression (layout()).
    ShapeList ///< A bracketed list of compile-time ints (`[BM, BN]`).
  };
  Kind kind = Invalid;
  ElemType elem;
  Shape shape;

  static Ty invalid() { return Ty(); }
  static Ty scalar(ElemType e) {
    Ty t;
    t.kind = Scalar;
    t.elem = e;
    return t;
  }
  static Ty tile(ElemType e, llvm::ArrayRef<int64_t> s) {
    Ty t;
    t.kind = Tile;
    t.elem = e;
    t.shape.assign(s.begin(), s.end());
    return t;
  }
  static Ty of(Kind k) {
    Ty t;
    t.kind = k;
    return t;
  }

  bool isValid() const { return kind != Invalid; }
  bool isScalar() const { return kind == Scalar; }
  bool isTile() const { return kind == Tile; }
  /// Scalars and tiles: values arithmetic applies to.
  bool isValue() const { return kind == Scalar || kind == Tile; }
  int64_t numElements() const;

  /// Human-readable form: "f16[128, 64]", "i32", "global tensor f16[?, ?]".
  std::string str() const;
};

/// A compile-time value.
struct ConstVal {
  enum Kind : uint8_t { None, Int, Float, Bool, Type } kind = None;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  ElemType type;

  static ConstVal ofInt(int64_t v) {
    ConstVal c;
    c.kind = Int;
    c.i = v;
    return c;
  }
  static ConstVal ofFloat(double v) {
    ConstVal c;
    c.kind = Float;
    c.f = v;
    return c;
  }
  static ConstVal ofBool(bool v) {
    ConstVal c;
    c.kind = Bool;
    c.b = v;
    return c;
  }
  static ConstVal ofType(ElemType t) {
    ConstVal c;
    c.kind = Type;
    c.type = t;
    return c;
  }
  bool isSet() const { return kind != None; }
  /// Prints the value as source text ("128", "true", "u4", "1.5").
  std::string str() const;
};

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_TYPES_H
