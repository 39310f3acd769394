//===- Signature.cpp - Kernel signatures and argument binding -------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Signature.h"

#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <unordered_map>

using namespace tile::rt;
namespace num = tile::numerics;

ArgValue ArgValue::tensor(uint64_t Address, uint64_t Bytes,
                          std::vector<int64_t> Shape, std::string DType) {
  ArgValue A;
  A.K = Kind::Tensor;
  A.Address = Address;
  A.Bytes = Bytes;
  A.Shape = std::move(Shape);
  A.DType = std::move(DType);
  return A;
}

ArgValue ArgValue::strided(uint64_t Address, uint64_t Bytes,
                           std::vector<int64_t> Shape,
                           std::vector<int64_t> Strides, std::string DType) {
  ArgValue A = tensor(Address, Bytes, std::move(Shape), std::move(DType));
  A.Strides = std::move(Strides);
  return A;
}

namespace {
/// num::parseFormat once per distinct name in the process (binding runs at
/// every launch).
num::Result<num::Format> formatOf(const std::string &Name) {
  static std::mutex Lock;
  static std::unordered_map<std::string, num::Format> Known;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Known.find(Name);
    if (It != Known.end())
      return It->second;
  }
  num::Result<num::Format> F = num::parseFormat(Name);
  if (F) {
    std::lock_guard<std::mutex> Guard(Lock);
    Known.emplace(Name, *F);
  }
  return F;
}

std::string toHex(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof Buf, "%llx", static_cast<unsigned long long>(V));
  return Buf;
}

} // namespace

bool tile::rt::isDenseRowMajor(const std::vector<int64_t> &Shape,
                               const std::vector<int64_t> &Strides) {
  if (Strides.empty())
    return true;
  if (Strides.size() != Shape.size())
    return false;
  int64_t Expected = 1;
  bool Empty = false;
  for (int64_t E : Shape)
    Empty |= E == 0;
  if (Empty)
    return true;
  for (size_t D = Shape.size(); D-- > 0;) {
    if (Shape[D] != 1 && Strides[D] != Expected)
      return false;
    Expected *= Shape[D];
  }
  return true;
}

ArgValue ArgValue::storage(uint64_t Address, uint64_t Bytes,
                           std::string DType) {
  ArgValue A = tensor(Address, Bytes, {}, std::move(DType));
  A.ShapeFromSignature = true;
  return A;
}

ArgValue ArgValue::scalar(double Value) {
  ArgValue A;
  A.K = Kind::Scalar;
  A.Number = Value;
  return A;
}

std::vector<void *> BoundArgs::pointers() {
  std::vector<void *> Ptrs;
  Ptrs.reserve(Slots.size());
  for (uint64_t &S : Slots)
    Ptrs.push_back(&S);
  return Ptrs;
}

uint64_t tile::rt::denseBytes(uint64_t NumElements, unsigned Bits) {
  return (NumElements * Bits + 7) / 8;
}

static std::string joinShape(const std::vector<std::string> &Shape) {
  std::string S;
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + Shape[I];
  return "[" + S + "]";
}

static std::string joinShape(const std::vector<int64_t> &Shape) {
  std::string S;
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  return "[" + S + "]";
}

size_t KernelSignature::numUserParams() const {
  size_t N = 0;
  for (const ParamInfo &P : Params)
    N += P.Kind != ParamKind::Dim;
  return N;
}

int KernelSignature::findParam(const std::string &N) const {
  for (size_t I = 0; I < Params.size(); ++I)
    if (Params[I].Name == N)
      return static_cast<int>(I);
  return -1;
}

/// Checks TensorMaps[\p I] of \p Sig (verify() adds the kernel's name).
static Error verifyTensorMap(const KernelSignature &Sig, size_t I) {
  const TensorMapInfo &M = Sig.TensorMaps[I];
  std::string Where = "tensor map " + std::to_string(I) + ": ";
  if (M.Param >= Sig.Params.size() ||
      Sig.Params[M.Param].Kind != ParamKind::Tensor)
    return makeError(Where + "parameter " + std::to_string(M.Param) +
                     " is not a tensor parameter");
  const ParamInfo &P = Sig.Params[M.Param];
  Where = "tensor map " + std::to_string(I) + " of " + P.Name + ": ";
  if (P.Shape.empty() || P.Shape.size() > 5)
    return makeError(Where + "a TMA copy needs a tensor of rank 1-5, not " +
                     std::to_string(P.Shape.size()));
  if (M.Box.size() != P.Shape.size())
    return makeError(Where + "the box has " + std::to_string(M.Box.size()) +
                     " extents but the tensor has rank " +
                     std::to_string(P.Shape.size()));
  for (uint32_t B : M.Box)
    if (B < 1 || B > 256)
      return makeError(Where + "box extent " + std::to_string(B) +
                       " is outside 1-256");
  if (M.SwizzleBytes != 0 && M.SwizzleBytes != 32 && M.SwizzleBytes != 64 &&
      M.SwizzleBytes != 128)
    return makeError(Where + "swizzle " + std::to_string(M.SwizzleBytes) +
                     " is not 0, 32, 64 or 128 bytes");
  num::Result<num::Format> F = num::parseFormat(P.DType);
  // 1- to 7-bit elements (packed weights) are mapped as bytes.
  if (!F ||
      (F->bits() > 8 && F->bits() != 16 && F->bits() != 32 && F->bits() != 64))
    return makeError(Where +
                     "a TMA copy needs elements of 1-8, 16, 32 or 64 "
                     "bits, not " +
                     P.DType);
  return Error::success();
}

Error KernelSignature::verify() const {
  std::string Where = "kernel " + Name + ": ";
  std::vector<std::string> Dims;
  bool SeenDim = false;
  for (const ParamInfo &P : Params) {
    if (P.Name.empty())
      return makeError(Where + "a parameter has no name");
    if (P.Kind == ParamKind::Dim) {
      SeenDim = true;
      Dims.push_back(P.Name);
      continue;
    }
    if (SeenDim)
      return makeError(Where + "parameter " + P.Name +
                       " comes after the dimension parameters");
    num::Result<num::Format> F = num::parseFormat(P.DType);
    if (!F)
      return makeError(Where + "parameter " + P.Name + ": " + F.message());
  }
  auto checkExpr = [&](const std::string &Text,
                       const std::string &What) -> Error {
    Expected<Expr> E = Expr::parse(Text);
    if (!E)
      return makeError(Where + What + ": " + E.message());
    for (const std::string &N : E->names())
      if (std::find(Dims.begin(), Dims.end(), N) == Dims.end())
        return makeError(Where + What + ": '" + N +
                         "' is not a dimension parameter");
    return Error::success();
  };
  for (const ParamInfo &P : Params) {
    if (P.Kind != ParamKind::Tensor)
      continue;
    for (const std::string &S : P.Shape)
      if (Error E = checkExpr(S, "shape of " + P.Name))
        return E;
  }
  for (const std::string &G : Grid)
    if (Error E = checkExpr(G, "grid"))
      return E;
  if (TensorMaps.size() > TensorMapInfo::MaxMaps)
    return makeError(Where + std::to_string(TensorMaps.size()) +
                     " tensor maps, more than the " +
                     std::to_string(TensorMapInfo::MaxMaps) +
                     " a kernel may take");
  for (size_t I = 0; I < TensorMaps.size(); ++I)
    if (Error E = verifyTensorMap(*this, I))
      return makeError(Where + E.message());
  return Error::success();
}

Expected<std::vector<int64_t>> tile::rt::evaluateShape(const ParamInfo &P,
                                                       const DimMap &Dims) {
  std::vector<int64_t> Shape;
  for (const std::string &S : P.Shape) {
    Expected<int64_t> V = evaluateExpr(S, Dims);
    if (!V)
      return makeError("shape of " + P.Name + ": " + V.message());
    if (*V < 0)
      return makeError("shape of " + P.Name + ": '" + S + "' is negative (" +
                       std::to_string(*V) + ")");
    Shape.push_back(*V);
  }
  return Shape;
}

/// Converts a scalar argument to the bits of its parameter type.
static Expected<uint64_t> scalarBits(const ParamInfo &P, double V) {
  num::Result<num::Format> F = num::parseFormat(P.DType);
  if (!F)
    return makeError(F.message());
  if (F->isFloat())
    return static_cast<uint64_t>(num::encode(*F, V));
  double Lo = F->kind() == num::FormatKind::SInt
                  ? -std::ldexp(1.0, F->bits() - 1)
                  : 0.0;
  double Hi = F->kind() == num::FormatKind::SInt
                  ? std::ldexp(1.0, F->bits() - 1) - 1
                  : std::ldexp(1.0, F->bits()) - 1;
  if (F->bits() == 1) // Booleans: 0 or 1 whatever the signedness.
    Lo = 0, Hi = 1;
  if (!(V == std::floor(V)) || V < Lo || V > Hi) {
    char Buf[64];
    std::snprintf(Buf, sizeof(Buf), "%.17g", V);
    return makeError("scalar " + P.Name + " of type " + P.DType +
                     " cannot hold " + Buf);
  }
  return static_cast<uint64_t>(static_cast<int64_t>(V));
}

Expected<BoundArgs> tile::rt::bindArguments(const KernelSignature &Sig,
                                            const std::vector<ArgValue> &Args,
                                            const DimMap &Given) {
  std::string Where = Sig.Name + ": ";
  size_t NumUser = Sig.numUserParams();
  if (Args.size() != NumUser) {
    std::string Names;
    for (const ParamInfo &P : Sig.Params)
      if (P.Kind != ParamKind::Dim)
        Names += (Names.empty() ? "" : ", ") + P.Name;
    return makeError(Where + "expected " + std::to_string(NumUser) +
                     " arguments (" + Names + ") but got " +
                     std::to_string(Args.size()));
  }

  BoundArgs B;
  B.Dims = Given;
  std::map<std::string, std::string> Source; // Dim -> where it was bound.
  for (const auto &[Name, V] : Given)
    Source[Name] = "the given sizes";

  // Pass 1: kinds, dtypes, ranks, and dims bound by bare-name extents.
  for (size_t I = 0; I < NumUser; ++I) {
    const ParamInfo &P = Sig.Params[I];
    const ArgValue &A = Args[I];
    std::string Arg = "argument " + std::to_string(I) + " (" + P.Name + ")";
    bool WantTensor = P.Kind == ParamKind::Tensor;
    if (WantTensor != (A.K == ArgValue::Kind::Tensor))
      return makeError(Where + Arg + ": expected a " +
                       (WantTensor ? "tensor" : "scalar") + " of " + P.DType +
                       " but got a " + (WantTensor ? "scalar" : "tensor"));
    if (!WantTensor)
      continue;
    if (!A.DType.empty()) {
      num::Result<num::Format> Want = formatOf(P.DType);
      num::Result<num::Format> Got = formatOf(A.DType);
      if (!Got)
        return makeError(Where + Arg + ": " + Got.message());
      if (!Want || *Want != *Got)
        return makeError(Where + Arg + ": expected a tensor of " + P.DType +
                         " but got " + A.DType);
    }
    if (A.Address % 4 != 0)
      return makeError(Where + Arg + ": address 0x" + toHex(A.Address) +
                       " is not 4-byte aligned (runtime/README.md, kernel "
                       "calling convention)");
    if (A.ShapeFromSignature)
      continue; // Its shape is checked once every dimension is known.
    if (A.Shape.size() != P.Shape.size())
      return makeError(
          Where + Arg + ": expected a rank-" + std::to_string(P.Shape.size()) +
          " tensor " + joinShape(P.Shape) + " but got rank " +
          std::to_string(A.Shape.size()) + " " + joinShape(A.Shape));
    if (!isDenseRowMajor(A.Shape, A.Strides))
      return makeError(Where + Arg + ": strides " + joinShape(A.Strides) +
                       " of shape " + joinShape(A.Shape) +
                       " are not dense row-major (kernels take contiguous "
                       "tensors: make it contiguous first)");
    for (size_t D = 0; D < P.Shape.size(); ++D) {
      if (A.Shape[D] < 0)
        return makeError(Where + Arg + ": negative extent " +
                         std::to_string(A.Shape[D]));
      Expected<std::shared_ptr<const Expr>> E = Expr::parseShared(P.Shape[D]);
      if (!E)
        return makeError(Where + "shape of " + P.Name + ": " + E.message());
      std::string Dim = (*E)->singleName();
      if (Dim.empty())
        continue;
      auto It = B.Dims.find(Dim);
      if (It == B.Dims.end()) {
        B.Dims[Dim] = A.Shape[D];
        Source[Dim] = P.Name;
      } else if (It->second != A.Shape[D]) {
        return makeError(Where + "dimension " + Dim + " is " +
                         std::to_string(It->second) + " in " + Source[Dim] +
                         " but " + std::to_string(A.Shape[D]) + " in " +
                         P.Name);
      }
    }
  }

  // Pass 2: every shape expression, buffer sizes, and the parameter slots.
  B.Slots.resize(Sig.Params.size());
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    const ParamInfo &P = Sig.Params[I];
    if (P.Kind == ParamKind::Dim) {
      auto It = B.Dims.find(P.Name);
      if (It == B.Dims.end())
        return makeError(Where + "dimension " + P.Name +
                         " is not determined by any argument; give its size");
      if (It->second < 0 || It->second > INT32_MAX)
        return makeError(Where + "dimension " + P.Name + " = " +
                         std::to_string(It->second) +
                         " does not fit in an i32");
      B.Slots[I] = static_cast<uint64_t>(It->second);
      continue;
    }
    const ArgValue &A = Args[I];
    if (P.Kind == ParamKind::Scalar) {
      Expected<uint64_t> Bits = scalarBits(P, A.Number);
      if (!Bits)
        return makeError(Where + Bits.message());
      B.Slots[I] = *Bits;
      continue;
    }
    uint64_t NumElements = 1;
    std::vector<int64_t> Shape;
    for (size_t D = 0; D < P.Shape.size(); ++D) {
      Expected<int64_t> V = evaluateExpr(P.Shape[D], B.Dims);
      if (!V)
        return makeError(Where + "shape of " + P.Name + ": " + V.message() +
                         (V.message().find("unknown dimension") == 0
                              ? " (give its size)"
                              : ""));
      if (A.ShapeFromSignature) {
        if (*V < 0)
          return makeError(Where + "tensor " + P.Name + " dimension " +
                           std::to_string(D) + " = " + P.Shape[D] + " is " +
                           std::to_string(*V));
        Shape.push_back(*V);
      } else if (*V != A.Shape[D])
        return makeError(Where + "tensor " + P.Name + " dimension " +
                         std::to_string(D) + " should be " + P.Shape[D] +
                         " = " + std::to_string(*V) + " but is " +
                         std::to_string(A.Shape[D]));
      NumElements *= static_cast<uint64_t>(*V);
    }
    num::Result<num::Format> F = formatOf(P.DType);
    if (!F)
      return makeError(Where + "parameter " + P.Name + ": " + F.message());
    uint64_t Need = denseBytes(NumElements, F->bits());
    if (A.Bytes < Need)
      return makeError(Where + "tensor " + P.Name + " " + P.DType +
                       joinShape(A.ShapeFromSignature ? Shape : A.Shape) +
                       " needs " + std::to_string(Need) +
                       " bytes but its buffer has " + std::to_string(A.Bytes));
    if (A.Address == 0 && Need != 0)
      return makeError(Where + "tensor " + P.Name + " has a null address");
    B.Slots[I] = A.Address;
  }

  for (int D = 0; D < 3; ++D) {
    Expected<int64_t> V = evaluateExpr(Sig.Grid[D], B.Dims);
    if (!V)
      return makeError(Where + "grid: " + V.message());
    if (*V < 0 || *V > INT32_MAX)
      return makeError(Where + "grid dimension " + std::to_string(D) + " '" +
                       Sig.Grid[D] + "' = " + std::to_string(*V) +
                       " is out of range");
    B.Grid[D] = static_cast<uint32_t>(*V);
  }
  return B;
}
