//===- TestRun.cpp - Set up a kernel launch from a test case --------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/TestRun.h"

#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"

#include <algorithm>

using namespace tile::rt;

Expected<PreparedRun> tile::rt::prepareRun(const KernelSignature &Sig,
                                           const TestCase &T, Device &D,
                                           const std::string &BaseDir) {
  for (const ParamInfo &P : Sig.Params)
    if (P.Kind == ParamKind::Dim && !T.Sizes.count(P.Name))
      return makeError("no size given for dimension " + P.Name + " of kernel " +
                       Sig.Name);

  PreparedRun Run;
  std::vector<ArgValue> Args;
  for (const ParamInfo &P : Sig.Params) {
    if (P.Kind == ParamKind::Dim)
      continue;
    if (P.Kind == ParamKind::Scalar) {
      auto It = T.Scalars.find(P.Name);
      if (It == T.Scalars.end())
        return makeError("no value given for scalar " + P.Name + " (" +
                         P.DType + ") of kernel " + Sig.Name);
      Args.push_back(ArgValue::scalar(It->second));
      continue;
    }
    TensorArg TA;
    TA.Param = &P;
    Expected<std::vector<int64_t>> Shape = evaluateShape(P, T.Sizes);
    if (!Shape)
      return Shape.takeError();
    TA.Shape = *Shape;
    for (int64_t E : TA.Shape)
      TA.NumElements *= static_cast<uint64_t>(E);
    auto Format = tile::numerics::parseFormat(P.DType);
    if (!Format)
      return makeError("tensor " + P.Name + ": unknown type " + P.DType);
    TA.Bytes = denseBytes(TA.NumElements, Format->bits());

    if (auto It = T.InputFiles.find(P.Name); It != T.InputFiles.end()) {
      std::string Path = It->second;
      if (!BaseDir.empty() && !Path.empty() && Path[0] != '/')
        Path = BaseDir + "/" + Path;
      Expected<NpyArray> A = readNpy(Path);
      if (!A)
        return A.takeError();
      Expected<std::vector<uint8_t>> Data = fromNpy(*A, P.DType, TA.Shape);
      if (!Data)
        return makeError(Path + ": " + Data.message());
      TA.Initial = std::move(*Data);
    } else if (P.Mut && std::find(T.InOut.begin(), T.InOut.end(), P.Name) ==
                            T.InOut.end()) {
      TA.Initial.assign(TA.Bytes, PoisonByte);
      TA.Poisoned = true;
    } else {
      Expected<std::vector<uint8_t>> Data =
          generateTensor(P.DType, TA.NumElements, T.Seed, P.Name);
      if (!Data)
        return Data.takeError();
      TA.Initial = std::move(*Data);
    }

    // Allocate at least one byte so that empty tensors still have an
    // address.
    Expected<Buffer> Buf = D.allocate(std::max<uint64_t>(TA.Bytes, 1));
    if (!Buf)
      return Buf.takeError();
    TA.Buf = *Buf;
    if (TA.Bytes)
      if (Error E = TA.Buf.upload(TA.Initial.data(), TA.Bytes))
        return E;
    Args.push_back(
        ArgValue::tensor(TA.Buf.address(), TA.Bytes, TA.Shape, P.DType));
    Run.Tensors.push_back(std::move(TA));
  }

  Expected<BoundArgs> Bound = bindArguments(Sig, Args, T.Sizes);
  if (!Bound)
    return Bound.takeError();
  Run.Bound = std::move(*Bound);
  return Run;
}
