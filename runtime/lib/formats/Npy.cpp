//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Npy.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace tile::rt;
namespace num = tile::numerics;

uint64_t NpyArray::numElements() const {
  uint64_t N = 1;
  for (int64_t E : Shape)
    N *= static_cast<uint64_t>(E);
  return N;
}

unsigned NpyArray::elementBytes() const {
  if (Descr.size() < 3 || !std::strchr("<|=", Descr[0]))
    return 0;
  if (!std::strchr("uifb", Descr[1]))
    return 0;
  std::string Width = Descr.substr(2);
  if (Width == "1" || Width == "2" || Width == "4" || Width == "8")
    return static_cast<unsigned>(Width[0] - '0');
  return 0;
}

/// The Python tuple literal of \p Shape: "()", "(5,)", "(2, 3)".
static std::string shapeString(const std::vector<int64_t> &Shape) {
  std::string S = "(";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  return S + (Shape.size() == 1 ? ",)" : ")");
}

Error tile::rt::writeNpy(const std::string &Path, const NpyArray &A) {
  if (A.elementBytes() == 0)
    return makeError("cannot write " + Path + ": unsupported dtype '" +
                     A.Descr + "'");
  if (A.Data.size() != A.numElements() * A.elementBytes())
    return makeError("cannot write " + Path +
                     ": data size does not match shape");
  std::string Header =
      "{'descr': '" + A.Descr +
      "', 'fortran_order': False, 'shape': " + shapeString(A.Shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  size_t Total = 10 + Header.size() + 1;
  Header.append((64 - Total % 64) % 64, ' ');
  Header += '\n';
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  if (!Out)
    return makeError("cannot write " + Path);
  uint16_t Len = static_cast<uint16_t>(Header.size());
  const char Magic[] = "\x93NUMPY\x01\x00";
  Out.write(Magic, 8);
  char LenBytes[2] = {static_cast<char>(Len & 0xFF),
                      static_cast<char>(Len >> 8)};
  Out.write(LenBytes, 2);
  Out << Header;
  Out.write(reinterpret_cast<const char *>(A.Data.data()),
            static_cast<std::streamsize>(A.Data.size()));
  if (!Out.flush())
    return makeError("cannot write " + Path);
  return Error::success();
}

namespace {
/// Reads the Python dict literal of a .npy header.
class HeaderParser {
public:
  HeaderParser(std::string_view S) : S(S) {}

  Error parse(NpyArray &A) {
    bool HaveDescr = false, HaveOrder = false, HaveShape = false;
    if (!eat('{'))
      return makeError("header is not a dict");
    while (!eat('}')) {
      std::string Key;
      if (!readString(Key) || !eat(':'))
        return makeError("malformed header key");
      if (Key == "descr") {
        if (!readString(A.Descr))
          return makeError("'descr' is not a string");
        HaveDescr = true;
      } else if (Key == "fortran_order") {
        skip();
        if (S.substr(Pos, 5) == "False") {
          Pos += 5;
        } else if (S.substr(Pos, 4) == "True") {
          return makeError("Fortran-ordered arrays are not supported");
        } else {
          return makeError("'fortran_order' is not a bool");
        }
        HaveOrder = true;
      } else if (Key == "shape") {
        if (!readShape(A.Shape))
          return makeError("'shape' is not a tuple of integers");
        HaveShape = true;
      } else {
        return makeError("unknown header key '" + Key + "'");
      }
      eat(',');
    }
    if (!HaveDescr || !HaveOrder || !HaveShape)
      return makeError("header lacks descr, fortran_order or shape");
    return Error::success();
  }

private:
  std::string_view S;
  size_t Pos = 0;

  void skip() {
    while (Pos < S.size() && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
  }
  bool eat(char C) {
    skip();
    if (Pos < S.size() && S[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool readString(std::string &Out) {
    skip();
    if (Pos >= S.size() || (S[Pos] != '\'' && S[Pos] != '"'))
      return false;
    char Quote = S[Pos++];
    size_t End = S.find(Quote, Pos);
    if (End == std::string_view::npos)
      return false;
    Out = std::string(S.substr(Pos, End - Pos));
    Pos = End + 1;
    return true;
  }
  bool readShape(std::vector<int64_t> &Out) {
    if (!eat('('))
      return false;
    while (!eat(')')) {
      skip();
      int64_t V = 0;
      size_t Start = Pos;
      while (Pos < S.size() &&
             std::isdigit(static_cast<unsigned char>(S[Pos]))) {
        if (V > (INT64_MAX - 9) / 10)
          return false;
        V = V * 10 + (S[Pos++] - '0');
      }
      if (Pos == Start)
        return false;
      Out.push_back(V);
      eat(',');
    }
    return true;
  }
};
} // namespace

Expected<NpyArray> tile::rt::readNpy(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return makeError("cannot open " + Path);
  std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(In)),
                             std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &What) {
    return makeError(Path + ": not a valid .npy file: " + What);
  };
  if (Bytes.size() < 10 || std::memcmp(Bytes.data(), "\x93NUMPY", 6) != 0)
    return fail("bad magic");
  unsigned Major = Bytes[6];
  size_t HeaderLen, HeaderStart;
  if (Major == 1) {
    HeaderLen = Bytes[8] | (Bytes[9] << 8);
    HeaderStart = 10;
  } else if (Major == 2 || Major == 3) {
    if (Bytes.size() < 12)
      return fail("truncated header");
    HeaderLen = Bytes[8] | (Bytes[9] << 8) | (Bytes[10] << 16) |
                (static_cast<size_t>(Bytes[11]) << 24);
    HeaderStart = 12;
  } else {
    return fail("unsupported version " + std::to_string(Major));
  }
  if (Bytes.size() < HeaderStart + HeaderLen)
    return fail("truncated header");
  std::string_view Header(
      reinterpret_cast<const char *>(Bytes.data()) + HeaderStart, HeaderLen);
  NpyArray A;
  if (Error E = HeaderParser(Header).parse(A))
    return fail(E.message());
  unsigned ElemBytes = A.elementBytes();
  if (ElemBytes == 0 || (A.Descr[0] == '>' && ElemBytes > 1))
    return fail("unsupported dtype '" + A.Descr + "'");
  uint64_t N = A.numElements();
  size_t DataStart = HeaderStart + HeaderLen;
  if (Bytes.size() - DataStart != N * ElemBytes)
    return fail("expected " + std::to_string(N * ElemBytes) +
                " data bytes for shape " + shapeString(A.Shape) +
                " but found " + std::to_string(Bytes.size() - DataStart));
  A.Data.assign(Bytes.begin() + static_cast<std::ptrdiff_t>(DataStart),
                Bytes.end());
  return A;
}

Expected<std::string> tile::rt::npyDescr(std::string_view DType) {
  num::Result<num::Format> F = num::parseFormat(DType);
  if (!F)
    return makeError(F.message());
  unsigned Bits = F->bits();
  switch (F->kind()) {
  case num::FormatKind::F32:
    return std::string("<f4");
  case num::FormatKind::F16:
    return std::string("<f2");
  case num::FormatKind::SInt:
    if (Bits == 8 || Bits == 16 || Bits == 32)
      return std::string(Bits == 8 ? "|i1" : Bits == 16 ? "<i2" : "<i4");
    break;
  default:
    break;
  }
  return std::string(Bits <= 8 ? "|u1" : Bits <= 16 ? "<u2" : "<u4");
}

static std::string describeShape(const std::vector<int64_t> &Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  return S + "]";
}

Expected<NpyArray> tile::rt::toNpy(std::string_view DType,
                                   const std::vector<int64_t> &Shape,
                                   const std::vector<uint8_t> &Packed) {
  Expected<std::string> Descr = npyDescr(DType);
  if (!Descr)
    return Descr.takeError();
  num::Format F = *num::parseFormat(DType);
  NpyArray A;
  A.Descr = *Descr;
  A.Shape = Shape;
  uint64_t N = A.numElements();
  if (Packed.size() < num::packedSizeBytes(N, F.bits()))
    return makeError("tensor data too short for " + std::string(DType) +
                     describeShape(Shape));
  unsigned Width = A.elementBytes();
  A.Data.resize(N * Width);
  for (uint64_t I = 0; I < N; ++I) {
    uint32_t Code = num::readPacked(Packed.data(), I, F.bits());
    for (unsigned B = 0; B < Width; ++B)
      A.Data[I * Width + B] = static_cast<uint8_t>(Code >> (8 * B));
  }
  return A;
}

Expected<std::vector<uint8_t>>
tile::rt::fromNpy(const NpyArray &A, std::string_view DType,
                  const std::vector<int64_t> &Shape) {
  Expected<std::string> Descr = npyDescr(DType);
  if (!Descr)
    return Descr.takeError();
  num::Format F = *num::parseFormat(DType);
  if (A.Shape != Shape)
    return makeError("array has shape " + describeShape(A.Shape) +
                     " but the tensor is " + std::string(DType) +
                     describeShape(Shape));
  unsigned Width = A.elementBytes();
  char Kind = A.Descr.size() > 1 ? A.Descr[1] : '?';
  bool SameWidthCodes = (Kind == 'u' || Kind == 'i') &&
                        Width == static_cast<unsigned>(A.Descr.back() - '0') &&
                        A.Descr.substr(2) == Descr->substr(2);
  bool FloatValues = Kind == 'f' && F.isFloat() && A.Descr != *Descr;
  if (A.Descr != *Descr && !SameWidthCodes && !FloatValues)
    return makeError("array of dtype '" + A.Descr + "' cannot hold " +
                     std::string(DType) + " elements (expected '" + *Descr +
                     "')");
  uint64_t N = A.numElements();
  std::vector<uint8_t> Packed(num::packedSizeBytes(N, F.bits()), 0);
  for (uint64_t I = 0; I < N; ++I) {
    const uint8_t *P = A.Data.data() + I * Width;
    uint64_t Raw = 0;
    for (unsigned B = 0; B < Width; ++B)
      Raw |= static_cast<uint64_t>(P[B]) << (8 * B);
    uint32_t Code;
    if (FloatValues) {
      double V;
      if (Width == 8) {
        std::memcpy(&V, &Raw, 8);
      } else if (Width == 4) {
        float X;
        uint32_t R32 = static_cast<uint32_t>(Raw);
        std::memcpy(&X, &R32, 4);
        V = X;
      } else {
        V = num::f16ToF32(static_cast<uint16_t>(Raw));
      }
      Code = num::encode(F, V);
    } else {
      Code = static_cast<uint32_t>(Raw);
      if (F.bits() < 32 && Width * 8 > F.bits() && (Code & ~F.codeMask())) {
        // A signed array may hold a negative value for an iN code.
        bool NegativeFits = false;
        if (Kind == 'i' && F.kind() == num::FormatKind::SInt) {
          int64_t S =
              static_cast<int64_t>(Raw << (64 - 8 * Width)) >> (64 - 8 * Width);
          NegativeFits = S >= -(int64_t(1) << (F.bits() - 1)) && S < 0;
        }
        if (!NegativeFits)
          return makeError("element " + std::to_string(I) + " (code " +
                           std::to_string(Code) + ") does not fit in " +
                           std::string(DType));
      }
      Code &= F.codeMask();
    }
    num::writePacked(Packed.data(), I, F.bits(), Code);
  }
  return Packed;
}
