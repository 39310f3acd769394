//===- Types.cpp - Semantic types of the .tile language -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Types.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <cstdio>

using namespace tile::frontend;

ElemType ElemType::get(Kind k) {
  ElemType t;
  t.kind = k;
  switch (k) {
  case Bool:
    t.bits = 1;
    break;
  case F16:
  case BF16:
    t.bits = 16;
    break;
  case F32:
    t.bits = 32;
    break;
  case E8M0:
    t.bits = 8;
    break;
  case IntLit:
  case FloatLit:
    t.bits = 64;
    break;
  default:
    break;
  }
  return t;
}

std::optional<ElemType> ElemType::parse(llvm::StringRef name) {
  if (name == "f32")
    return get(F32);
  if (name == "f16")
    return get(F16);
  if (name == "bf16")
    return get(BF16);
  if (name == "bool")
    return get(Bool);
  if (name == "e8m0")
    return get(E8M0);
  auto parseNum = [](llvm::StringRef s, unsigned &v) {
    return !(s.empty() || s.size() > 2 || s.getAsInteger(10, v) || s[0] == '0');
  };
  if (name.size() >= 2 && (name[0] == 'i' || name[0] == 'u')) {
    unsigned bits;
    if (!parseNum(name.drop_front(), bits) || bits < 1 || bits > 32)
      return std::nullopt;
    return name[0] == 'i' ? sint(bits) : uint(bits);
  }
  // fNeXmY
  if (name.size() >= 5 && name[0] == 'f') {
    llvm::StringRef rest = name.drop_front();
    size_t e = rest.find('e');
    if (e == llvm::StringRef::npos)
      return std::nullopt;
    size_t m = rest.find('m', e);
    if (m == llvm::StringRef::npos)
      return std::nullopt;
    unsigned n, x, y;
    if (!parseNum(rest.substr(0, e), n) ||
        !parseNum(rest.substr(e + 1, m - e - 1), x))
      return std::nullopt;
    llvm::StringRef ys = rest.substr(m + 1);
    // A zero-mantissa type (e.g. f4e3m0) is allowed: "0" is a valid Y.
    if (ys == "0") {
      y = 0;
    } else if (!parseNum(ys, y)) {
      return std::nullopt;
    }
    if (x < 1 || n != 1 + x + y || n > 8 || n < 2)
      return std::nullopt;
    return smallFloat(x, y);
  }
  return std::nullopt;
}

std::string ElemType::str() const {
  switch (kind) {
  case Invalid:
    return "<invalid>";
  case Bool:
    return "bool";
  case SInt:
    return "i" + std::to_string(bits);
  case UInt:
    return "u" + std::to_string(bits);
  case F16:
    return "f16";
  case BF16:
    return "bf16";
  case F32:
    return "f32";
  case SmallFloat:
    return "f" + std::to_string(bits) + "e" + std::to_string(exp) + "m" +
           std::to_string(mant);
  case E8M0:
    return "e8m0";
  case IntLit:
    return "integer constant";
  case FloatLit:
    return "float constant";
  }
  return "<invalid>";
}

std::string tile::frontend::shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t Ty::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string Ty::str() const {
  switch (kind) {
  case Invalid:
    return "<invalid>";
  case Void:
    return "nothing";
  case Scalar:
    return "scalar " + elem.str();
  case Tile:
    return "tile " + elem.str() + shapeStr(shape);
  case Tensor:
    return "global tensor " + elem.str() + shapeStr(shape);
  case GSlice:
    return "slice " + elem.str() + shapeStr(shape) + " of a global tensor";
  case Shared:
    return "shared buffer " + elem.str() + shapeStr(shape);
  case SSlice:
    return "slice " + elem.str() + shapeStr(shape) + " of a shared buffer";
  case TypeVal:
    return "type";
  case Layout:
    return "layout";
  case ShapeList:
    return "list";
  }
  return "<invalid>";
}

std::string ConstVal::str() const {
  switch (kind) {
  case None:
    return "<none>";
  case Int:
    return std::to_string(i);
  case Float: {
    if (std::isinf(f))
      return f < 0 ? "-inf" : "inf";
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", f);
    return buf;
  }
  case Bool:
    return b ? "true" : "false";
  case Type:
    return type.str();
  }
  return "<none>";
}
