//===- Bundle.cpp - Compiled kernels plus a manifest ----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/Bundle.h"
#include "tile/runtime/TuneCache.h"

#include <algorithm>
#include <cmath>

using namespace tile::rt;
using json::Value;

namespace {
/// Typed access to the members of one JSON object, with errors that name
/// the path of the member ("kernels[1].grid").
class Fields {
public:
  Fields(const Value &V, std::string Path) : V(V), Path(std::move(Path)) {}

  Error checkObject() const {
    if (!V.isObject())
      return makeError(where() + "expected an object, found " + V.kindName());
    return Error::success();
  }
  std::string where(const std::string &Key = "") const {
    std::string P = Path;
    if (!Key.empty())
      P += (P.empty() ? "" : ".") + Key;
    return P.empty() ? "" : P + ": ";
  }
  std::string path(const std::string &Key) const {
    return Path.empty() ? Key : Path + "." + Key;
  }
  const Value *get(const std::string &Key) const { return V.find(Key); }

  Error string(const std::string &Key, std::string &Out,
               bool Required = true) const {
    const Value *F = V.find(Key);
    if (!F)
      return Required ? missing(Key) : Error::success();
    if (!F->isString())
      return wrongType(Key, "a string", *F);
    Out = F->getString();
    return Error::success();
  }
  Error integer(const std::string &Key, int64_t &Out, bool Required = true,
                int64_t Min = INT64_MIN) const {
    const Value *F = V.find(Key);
    if (!F)
      return Required ? missing(Key) : Error::success();
    if (!F->isInteger())
      return wrongType(Key, "an integer", *F);
    if (F->getInteger() < Min)
      return makeError(where(Key) + "must be at least " + std::to_string(Min));
    Out = F->getInteger();
    return Error::success();
  }
  Error boolean(const std::string &Key, bool &Out) const {
    const Value *F = V.find(Key);
    if (!F)
      return Error::success();
    if (!F->isBool())
      return wrongType(Key, "true or false", *F);
    Out = F->getBool();
    return Error::success();
  }
  Error missing(const std::string &Key) const {
    return makeError(where() + "missing \"" + Key + "\"");
  }
  Error wrongType(const std::string &Key, const char *Want,
                  const Value &Got) const {
    return makeError(where(Key) + "expected " + Want + ", found " +
                     Got.kindName());
  }

private:
  const Value &V;
  std::string Path;
};

Error readStringMap(const Fields &F, const std::string &Key,
                    std::map<std::string, std::string> &Out) {
  const Value *M = F.get(Key);
  if (!M)
    return Error::success();
  if (!M->isObject())
    return F.wrongType(Key, "an object of file names", *M);
  for (const auto &[Name, File] : M->getObject()) {
    if (!File.isString())
      return F.wrongType(Key + "." + Name, "a file name", File);
    Out[Name] = File.getString();
  }
  return Error::success();
}

Error readTolerance(const Value &V, const std::string &Path, Tolerance &T) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  for (const auto &[Key, Val] : V.getObject()) {
    if (Key != "atol" && Key != "rtol")
      return makeError(Path + ": unknown key \"" + Key +
                       "\" (expected atol, rtol)");
    if (!Val.isNumber() || Val.getNumber() < 0)
      return F.wrongType(Key, "a non-negative number", Val);
    (Key == "atol" ? T.Atol : T.Rtol) = Val.getNumber();
  }
  return Error::success();
}

Error readTest(const Value &V, const std::string &Path, const KernelInfo &K,
               TestCase &T) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  const Value *Sizes = F.get("sizes");
  if (!Sizes || !Sizes->isObject())
    return Sizes ? F.wrongType("sizes", "an object", *Sizes)
                 : F.missing("sizes");
  for (const auto &[Name, Size] : Sizes->getObject()) {
    if (!Size.isInteger() || Size.getInteger() < 0)
      return F.wrongType("sizes." + Name, "a non-negative integer", Size);
    T.Sizes[Name] = Size.getInteger();
  }
  if (const Value *Scalars = F.get("scalars")) {
    if (!Scalars->isObject())
      return F.wrongType("scalars", "an object", *Scalars);
    for (const auto &[Name, S] : Scalars->getObject()) {
      if (!S.isNumber() && !S.isBool())
        return F.wrongType("scalars." + Name, "a number", S);
      T.Scalars[Name] = S.isBool() ? (S.getBool() ? 1.0 : 0.0) : S.getNumber();
    }
  }
  int64_t Seed = 1;
  if (Error E = F.integer("seed", Seed, /*Required=*/false, 0))
    return E;
  T.Seed = static_cast<uint64_t>(Seed);
  if (Error E = readStringMap(F, "inputs", T.InputFiles))
    return E;
  if (Error E = readStringMap(F, "expected", T.ExpectedFiles))
    return E;
  if (const Value *InOut = F.get("inout")) {
    if (!InOut->isArray())
      return F.wrongType("inout", "an array of names", *InOut);
    for (const Value &N : InOut->getArray()) {
      if (!N.isString())
        return F.wrongType("inout", "an array of names", N);
      T.InOut.push_back(N.getString());
    }
  }
  if (const Value *Tol = F.get("tolerance")) {
    // Either {"atol", "rtol"} or {"C": {"atol", "rtol"}, ...}.
    bool PerOutput = Tol->isObject() && !Tol->getObject().empty() &&
                     Tol->getObject().front().second.isObject();
    if (!PerOutput) {
      if (Error E = readTolerance(*Tol, F.path("tolerance"), T.Tol))
        return E;
    } else {
      for (const auto &[Name, One] : Tol->getObject())
        if (Error E = readTolerance(One, F.path("tolerance." + Name),
                                    T.OutputTol[Name]))
          return E;
    }
  }
  // Names must refer to parameters of the right kind.
  auto checkNames = [&](const std::vector<std::string> &Names,
                        const char *Field, bool WantMut) -> Error {
    for (const std::string &N : Names) {
      int I = K.Signature.findParam(N);
      if (I < 0 || K.Signature.Params[I].Kind != ParamKind::Tensor)
        return makeError(F.where(Field) + "'" + N +
                         "' is not a tensor parameter of " + K.name());
      if (WantMut && !K.Signature.Params[I].Mut)
        return makeError(F.where(Field) + "'" + N +
                         "' is not a mut tensor of " + K.name());
    }
    return Error::success();
  };
  std::vector<std::string> Inputs, Expected, Tols;
  for (const auto &[N, File] : T.InputFiles)
    Inputs.push_back(N);
  for (const auto &[N, File] : T.ExpectedFiles)
    Expected.push_back(N);
  for (const auto &[N, Tol] : T.OutputTol)
    Tols.push_back(N);
  if (Error E = checkNames(Inputs, "inputs", false))
    return E;
  if (Error E = checkNames(Expected, "expected", true))
    return E;
  if (Error E = checkNames(T.InOut, "inout", true))
    return E;
  if (Error E = checkNames(Tols, "tolerance", true))
    return E;
  for (const ParamInfo &P : K.Signature.Params) {
    if (P.Kind == ParamKind::Dim && !T.Sizes.count(P.Name))
      return makeError(F.where("sizes") + "no size for dimension " + P.Name);
    if (P.Kind == ParamKind::Scalar && !T.Scalars.count(P.Name))
      return makeError(F.where("scalars") + "no value for scalar " + P.Name);
  }
  return Error::success();
}

Error readParam(const Value &V, const std::string &Path, ParamInfo &P) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  std::string Kind;
  if (Error E = F.string("name", P.Name))
    return E;
  if (Error E = F.string("kind", Kind))
    return E;
  if (Kind == "tensor")
    P.Kind = ParamKind::Tensor;
  else if (Kind == "scalar")
    P.Kind = ParamKind::Scalar;
  else if (Kind == "dim")
    P.Kind = ParamKind::Dim;
  else
    return makeError(F.where("kind") +
                     "expected \"tensor\", \"scalar\" or "
                     "\"dim\", found \"" +
                     Kind + "\"");
  P.DType = "i32";
  if (Error E = F.string("dtype", P.DType, P.Kind != ParamKind::Dim))
    return E;
  if (Error E = F.boolean("mut", P.Mut))
    return E;
  if (P.Kind != ParamKind::Tensor)
    return Error::success();
  const Value *Shape = F.get("shape");
  if (!Shape)
    return F.missing("shape");
  if (!Shape->isArray())
    return F.wrongType("shape", "an array of expressions", *Shape);
  for (const Value &D : Shape->getArray()) {
    if (D.isInteger())
      P.Shape.push_back(std::to_string(D.getInteger()));
    else if (D.isString())
      P.Shape.push_back(D.getString());
    else
      return F.wrongType("shape", "an array of expressions", D);
  }
  return Error::success();
}

/// One entry of "tensor_maps": {"param": 0, "box": [128, 64], "swizzle":
/// 128} (verify() checks the values).
Error readTensorMap(const Value &V, const std::string &Path, TensorMapInfo &M) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  int64_t Param = 0, Swizzle = 0;
  if (Error E = F.integer("param", Param, true, 0))
    return E;
  if (Error E = F.integer("swizzle", Swizzle, false, 0))
    return E;
  if (Param > 1 << 20 || Swizzle > 1 << 20)
    return makeError(F.where() + "param or swizzle out of range");
  M.Param = static_cast<unsigned>(Param);
  M.SwizzleBytes = static_cast<unsigned>(Swizzle);
  const Value *Box = F.get("box");
  if (!Box)
    return F.missing("box");
  if (!Box->isArray())
    return F.wrongType("box", "an array of integers", *Box);
  for (const Value &B : Box->getArray()) {
    if (!B.isInteger())
      return F.wrongType("box", "an array of integers", B);
    if (B.getInteger() < 1 || B.getInteger() > 256)
      return makeError(F.where("box") + "extent " +
                       std::to_string(B.getInteger()) + " is outside 1-256");
    M.Box.push_back(static_cast<uint32_t>(B.getInteger()));
  }
  return Error::success();
}

/// "fallback": {"entry": "k__fallback", "threads_per_block": 128,
/// "shared_bytes": 49152, "persistent": false}, the kernel's copy without
/// TMA copies in the same code object.
Error readFallback(const Value &V, const std::string &Path, KernelInfo &K) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  KernelInfo::FallbackInfo &Out = K.Fallback;
  if (Error E = F.string("entry", Out.Entry))
    return E;
  if (Out.Entry.empty())
    return makeError(F.where("entry") + "must not be empty");
  int64_t Threads = -1, Shared = 0;
  if (Error E = F.integer("threads_per_block", Threads, false, 1))
    return E;
  if (Error E = F.integer("shared_bytes", Shared, false, 0))
    return E;
  if (Threads > 1024 || Shared > (int64_t(1) << 30))
    return makeError(F.where() +
                     "threads_per_block or shared_bytes out of range");
  Out.Launch.ThreadsPerBlock =
      static_cast<uint32_t>(Threads > 0 ? Threads : K.Warps * 32);
  Out.Launch.SharedBytes = static_cast<uint32_t>(Shared);
  // The copy is compiled with the kernel: it waits as the kernel does.
  Out.Launch.DependentLaunch = K.Launch.DependentLaunch;
  return F.boolean("persistent", Out.Persistent);
}

Error readKernel(const Value &V, const std::string &Path, KernelInfo &K) {
  Fields F(V, Path);
  if (Error E = F.checkObject())
    return E;
  std::string Kind;
  if (Error E = F.string("name", K.Signature.Name))
    return E;
  K.Entry = K.Signature.Name;
  if (Error E = F.string("entry", K.Entry, /*Required=*/false))
    return E;
  if (Error E = F.string("target", K.Target))
    return E;
  if (Error E = F.string("object", K.Object))
    return E;
  if (Error E = F.string("object_kind", Kind))
    return E;
  Expected<ObjectKind> OK = parseObjectKind(Kind);
  if (!OK)
    return makeError(F.where("object_kind") + OK.message());
  K.Kind = *OK;
  if (const Value *C = F.get("constants")) {
    if (!C->isObject())
      return F.wrongType("constants", "an object", *C);
    K.Constants = *C;
  }
  int64_t Warps = 4, Threads = -1, Shared = 0;
  if (Error E = F.integer("warps", Warps, false, 1))
    return E;
  if (Error E = F.integer("threads_per_block", Threads, false, 1))
    return E;
  if (Error E = F.integer("shared_bytes", Shared, false, 0))
    return E;
  if (Warps > 1024 || Threads > 1024 || Shared > (int64_t(1) << 30))
    return makeError(F.where() + "warps, threads_per_block or shared_bytes "
                                 "out of range");
  K.Warps = static_cast<unsigned>(Warps);
  K.Launch.ThreadsPerBlock =
      static_cast<uint32_t>(Threads > 0 ? Threads : Warps * 32);
  K.Launch.SharedBytes = static_cast<uint32_t>(Shared);
  if (Error E = F.boolean("dependent_launch", K.Launch.DependentLaunch))
    return E;
  const Value *Grid = F.get("grid");
  if (!Grid)
    return F.missing("grid");
  if (!Grid->isArray() || Grid->getArray().size() != 3)
    return makeError(F.where("grid") + "expected 3 expressions");
  for (int I = 0; I < 3; ++I) {
    const Value &G = Grid->getArray()[I];
    if (G.isInteger())
      K.Signature.Grid[I] = std::to_string(G.getInteger());
    else if (G.isString())
      K.Signature.Grid[I] = G.getString();
    else
      return F.wrongType("grid", "an array of expressions", G);
  }
  const Value *Params = F.get("params");
  if (!Params)
    return F.missing("params");
  if (!Params->isArray())
    return F.wrongType("params", "an array", *Params);
  for (size_t I = 0; I < Params->getArray().size(); ++I) {
    ParamInfo P;
    if (Error E = readParam(Params->getArray()[I],
                            F.path("params[" + std::to_string(I) + "]"), P))
      return E;
    K.Signature.Params.push_back(std::move(P));
  }
  if (const Value *Maps = F.get("tensor_maps")) {
    if (!Maps->isArray())
      return F.wrongType("tensor_maps", "an array", *Maps);
    for (size_t I = 0; I < Maps->getArray().size(); ++I) {
      TensorMapInfo M;
      if (Error E = readTensorMap(
              Maps->getArray()[I],
              F.path("tensor_maps[" + std::to_string(I) + "]"), M))
        return E;
      K.Signature.TensorMaps.push_back(std::move(M));
    }
  }
  if (Error E = F.boolean("persistent", K.Signature.Persistent))
    return E;
  if (Error E = K.Signature.verify())
    return makeError(F.where() + E.message());
  if (const Value *Fallback = F.get("fallback"))
    if (Error E = readFallback(*Fallback, F.path("fallback"), K))
      return E;
  int64_t Registers = -1, Spills = -1;
  if (Error E = F.integer("registers", Registers, false, 0))
    return E;
  if (Error E = F.integer("spills", Spills, false, 0))
    return E;
  K.Registers = static_cast<int>(std::min<int64_t>(Registers, 1 << 20));
  K.Spills = Spills;
  if (Error E = F.string("warnings", K.Warnings, false))
    return E;
  if (const Value *B = F.get("bucket")) {
    if (!B->isObject())
      return F.wrongType("bucket", "an object of sizes", *B);
    for (const auto &[Name, Size] : B->getObject()) {
      if (!Size.isInteger())
        return F.wrongType("bucket", "an object of sizes", *B);
      K.Bucket[Name] = Size.getInteger();
    }
  }
  if (const Value *Tests = F.get("tests")) {
    if (!Tests->isArray())
      return F.wrongType("tests", "an array", *Tests);
    for (size_t I = 0; I < Tests->getArray().size(); ++I) {
      TestCase T;
      if (Error E = readTest(Tests->getArray()[I],
                             F.path("tests[" + std::to_string(I) + "]"), K, T))
        return E;
      K.Tests.push_back(std::move(T));
    }
  }
  return Error::success();
}

Value toleranceJson(const Tolerance &T) {
  Value V = json::Object{};
  if (T.Atol >= 0)
    V.set("atol", T.Atol);
  if (T.Rtol >= 0)
    V.set("rtol", T.Rtol);
  return V;
}

const char *paramKindName(ParamKind K) {
  return K == ParamKind::Tensor   ? "tensor"
         : K == ParamKind::Scalar ? "scalar"
                                  : "dim";
}
} // namespace

Expected<Manifest> Manifest::fromJson(const Value &V) {
  Fields F(V, "");
  if (Error E = F.checkObject())
    return E;
  std::string Format;
  int64_t Version = 0;
  if (Error E = F.string("format", Format))
    return E;
  if (Format != FormatName)
    return makeError("\"format\" is \"" + Format + "\", expected \"" +
                     FormatName + "\"");
  if (Error E = F.integer("version", Version))
    return E;
  if (Version != Manifest::Version)
    return makeError("unsupported bundle version " + std::to_string(Version) +
                     " (this runtime reads version " +
                     std::to_string(Manifest::Version) + ")");
  Manifest M;
  if (Error E = F.string("compiler", M.Compiler, /*Required=*/false))
    return E;
  const Value *Kernels = F.get("kernels");
  if (!Kernels)
    return F.missing("kernels");
  if (!Kernels->isArray())
    return F.wrongType("kernels", "an array", *Kernels);
  for (size_t I = 0; I < Kernels->getArray().size(); ++I) {
    KernelInfo K;
    if (Error E = readKernel(Kernels->getArray()[I],
                             "kernels[" + std::to_string(I) + "]", K))
      return E;
    M.Kernels.push_back(std::move(K));
  }
  return M;
}

Value Manifest::toJson() const {
  Value Root = json::Object{};
  Root.set("format", FormatName);
  Root.set("version", Version);
  Root.set("compiler", Compiler);
  json::Array Kernels;
  for (const KernelInfo &K : this->Kernels) {
    Value KV = json::Object{};
    KV.set("name", K.name());
    KV.set("entry", K.Entry);
    KV.set("target", K.Target);
    KV.set("object", K.Object);
    KV.set("object_kind", objectKindName(K.Kind));
    KV.set("constants", K.Constants);
    KV.set("warps", K.Warps);
    KV.set("threads_per_block", K.Launch.ThreadsPerBlock);
    KV.set("shared_bytes", K.Launch.SharedBytes);
    if (K.Launch.DependentLaunch)
      KV.set("dependent_launch", true);
    KV.set("grid",
           json::Array(K.Signature.Grid.begin(), K.Signature.Grid.end()));
    json::Array Params;
    for (const ParamInfo &P : K.Signature.Params) {
      Value PV = json::Object{};
      PV.set("name", P.Name);
      PV.set("kind", paramKindName(P.Kind));
      PV.set("dtype", P.DType);
      if (P.Kind == ParamKind::Tensor) {
        PV.set("shape", json::Array(P.Shape.begin(), P.Shape.end()));
        PV.set("mut", P.Mut);
      }
      Params.push_back(std::move(PV));
    }
    KV.set("params", std::move(Params));
    if (!K.Signature.TensorMaps.empty()) {
      json::Array Maps;
      for (const TensorMapInfo &M : K.Signature.TensorMaps) {
        Value MV = json::Object{};
        MV.set("param", M.Param);
        MV.set("box", json::Array(M.Box.begin(), M.Box.end()));
        MV.set("swizzle", M.SwizzleBytes);
        Maps.push_back(std::move(MV));
      }
      KV.set("tensor_maps", std::move(Maps));
    }
    if (K.Signature.Persistent)
      KV.set("persistent", true);
    if (!K.Fallback.Entry.empty()) {
      Value FV = json::Object{};
      FV.set("entry", K.Fallback.Entry);
      FV.set("threads_per_block", K.Fallback.Launch.ThreadsPerBlock);
      FV.set("shared_bytes", K.Fallback.Launch.SharedBytes);
      if (K.Fallback.Persistent)
        FV.set("persistent", true);
      KV.set("fallback", std::move(FV));
    }
    json::Array Tests;
    for (const TestCase &T : K.Tests) {
      Value TV = json::Object{};
      Value Sizes = json::Object{}, Scalars = json::Object{};
      for (const auto &[N, S] : T.Sizes)
        Sizes.set(N, S);
      for (const auto &[N, S] : T.Scalars)
        Scalars.set(N, S);
      TV.set("sizes", std::move(Sizes));
      TV.set("scalars", std::move(Scalars));
      TV.set("seed", T.Seed);
      Value Inputs = json::Object{}, Expected = json::Object{};
      for (const auto &[N, File] : T.InputFiles)
        Inputs.set(N, File);
      for (const auto &[N, File] : T.ExpectedFiles)
        Expected.set(N, File);
      TV.set("inputs", std::move(Inputs));
      TV.set("expected", std::move(Expected));
      if (!T.InOut.empty())
        TV.set("inout", json::Array(T.InOut.begin(), T.InOut.end()));
      if (!T.OutputTol.empty()) {
        Value Tol = json::Object{};
        for (const auto &[N, One] : T.OutputTol)
          Tol.set(N, toleranceJson(One));
        TV.set("tolerance", std::move(Tol));
      } else if (T.Tol.Atol >= 0 || T.Tol.Rtol >= 0) {
        TV.set("tolerance", toleranceJson(T.Tol));
      }
      Tests.push_back(std::move(TV));
    }
    KV.set("tests", std::move(Tests));
    if (K.Registers >= 0)
      KV.set("registers", K.Registers);
    if (K.Spills >= 0)
      KV.set("spills", K.Spills);
    if (!K.Warnings.empty())
      KV.set("warnings", K.Warnings);
    if (!K.Bucket.empty()) {
      Value B = json::Object{};
      for (const auto &[Name, Size] : K.Bucket)
        B.set(Name, Size);
      KV.set("bucket", std::move(B));
    }
    Kernels.push_back(std::move(KV));
  }
  Root.set("kernels", std::move(Kernels));
  return Root;
}

size_t tile::rt::selectVariant(const std::vector<const KernelInfo *> &Variants,
                               const DimMap &Dims) {
  size_t Fallback = 0;
  bool HaveFallback = false;
  for (size_t I = 0; I < Variants.size(); ++I) {
    const DimMap &B = Variants[I]->Bucket;
    if (B.empty()) {
      if (!HaveFallback)
        Fallback = I;
      HaveFallback = true;
      continue;
    }
    bool Match = true;
    for (const auto &[Name, Size] : B) {
      auto It = Dims.find(Name);
      Match &= It != Dims.end() && shapeBucket(It->second) == Size;
    }
    if (Match)
      return I;
  }
  return Fallback;
}

Expected<BoundVariant>
tile::rt::bindVariant(const std::vector<KernelInfo> &Infos,
                      const std::vector<Kernel> &Kernels,
                      const std::vector<ArgValue> &Args, const DimMap &Given) {
  if (Kernels.empty() || Kernels.size() != Infos.size())
    return makeError("bindVariant: no variants");
  Expected<BoundArgs> Bound =
      bindArguments(Kernels.front().signature(), Args, Given);
  if (!Bound)
    return Bound.takeError();
  BoundVariant R;
  if (Kernels.size() > 1) {
    std::vector<const KernelInfo *> Variants;
    for (const KernelInfo &I : Infos)
      Variants.push_back(&I);
    R.Index = selectVariant(Variants, Bound->Dims);
    if (R.Index != 0) {
      Bound = bindArguments(Kernels[R.Index].signature(), Args, Given);
      if (!Bound)
        return Bound.takeError();
    }
  }
  R.Bound = std::move(*Bound);
  return R;
}

Expected<Bundle> Bundle::load(const std::string &Dir) {
  std::string Path = Dir + "/manifest.json";
  Expected<Value> V = json::readFile(Path);
  if (!V)
    return V.takeError();
  Expected<Manifest> M = Manifest::fromJson(*V);
  if (!M)
    return makeError(Path + ": " + M.message());
  Bundle B;
  B.Dir = Dir;
  B.M = std::move(*M);
  return B;
}

Error Bundle::save(const std::string &Dir, const Manifest &M) {
  return json::writeFile(Dir + "/manifest.json", M.toJson());
}

std::string Bundle::path(const std::string &File) const {
  return Dir + "/" + File;
}

Expected<Kernel> Bundle::loadKernel(Device &D, const KernelInfo &K) const {
  Expected<Module> Mod = D.loadModule(path(K.Object), K.Kind);
  if (!Mod)
    return Mod.takeError();
  return kernelFromModule(*Mod, K);
}

Expected<Kernel> tile::rt::kernelFromModule(Module &M, const KernelInfo &K) {
  Expected<Kernel> Main = M.getKernel(K.Entry, K.Signature, K.Launch);
  if (!Main || K.Fallback.Entry.empty())
    return Main;
  KernelSignature Sig = K.Signature;
  Sig.TensorMaps.clear();
  Sig.Persistent = K.Fallback.Persistent;
  Expected<Kernel> Fallback =
      M.getKernel(K.Fallback.Entry, std::move(Sig), K.Fallback.Launch);
  if (!Fallback)
    return makeError(K.name() + "'s fallback: " + Fallback.message());
  if (Error E = Main->setFallback(*Fallback))
    return E;
  return Main;
}

bool tile::rt::targetRunsOn(const std::string &Target, ObjectKind Kind,
                            Platform P, const std::string &Arch) {
  if (platformOf(Kind) != P)
    return false;
  switch (P) {
  case Platform::Host:
    return Target == "host";
  case Platform::Hip:
    return Arch.empty() || Target == Arch;
  case Platform::NvEmu:
    // The emulator runs code compiled for any NVIDIA architecture.
    return Target.rfind("sm_", 0) == 0;
  case Platform::AmdEmu:
    // The AMD emulator runs code compiled for any GFX9 (CDNA) architecture.
    return Target.rfind("gfx9", 0) == 0;
  case Platform::Cuda:
    break;
  }
  // sm_XY[a] -> XY, arch-specific flag.
  auto parse = [](const std::string &S, int &CC, bool &Specific) {
    if (S.rfind("sm_", 0) != 0 || S.size() < 5)
      return false;
    std::string Digits = S.substr(3);
    Specific =
        !Digits.empty() && (Digits.back() == 'a' || Digits.back() == 'f');
    if (Specific)
      Digits.pop_back();
    if (Digits.empty() ||
        Digits.find_first_not_of("0123456789") != std::string::npos)
      return false;
    CC = std::stoi(Digits);
    return true;
  };
  int Want, Have;
  bool WantSpecific, HaveSpecific;
  if (!parse(Target, Want, WantSpecific) || !parse(Arch, Have, HaveSpecific))
    return false;
  if (WantSpecific)
    return Want == Have;
  if (Kind == ObjectKind::Ptx)
    return Want <= Have;
  return Want / 10 == Have / 10 && Want <= Have;
}

std::map<std::string, std::string>
tile::rt::constantTexts(const KernelInfo &K) {
  std::map<std::string, std::string> Texts;
  if (!K.Constants.isObject())
    return Texts;
  for (const auto &[Name, V] : K.Constants.getObject()) {
    if (V.isString())
      Texts[Name] = V.getString();
    else if (V.isBool())
      Texts[Name] = V.getBool() ? "true" : "false";
    else if (V.isInteger())
      Texts[Name] = std::to_string(V.getInteger());
    else if (V.isNumber())
      Texts[Name] = json::write(V, 0);
  }
  return Texts;
}
