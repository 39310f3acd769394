//===- Launcher.cpp - A bundle kernel callable from Python ----------------===//
//
// Part of tilec's Python package. The launch path: read each argument
// (Arguments.cpp), check where its memory is against the kernel's device,
// stage host memory through device buffers where the device cannot read
// it, bind, pick the shape-bucket variant, launch.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"

#include <algorithm>
#include <cstring>

using namespace tile;
using namespace tile::python;

namespace {

/// Releases the GIL while a kernel runs on the host or an emulator.
struct ReleaseGIL {
  PyThreadState *State = PyEval_SaveThread();
  ~ReleaseGIL() { PyEval_RestoreThread(State); }
};

} // namespace

/// What one call collected from its Python arguments.
struct Launcher::Prepared {
  HeldObjects Held;
  std::vector<rt::ArgValue> Values;
  std::vector<TensorView> Views; ///< Parallel to Values (tensors only).
  rt::DimMap Given;
  PyObject *Stream = nullptr; ///< `stream=` (borrowed), or null.
  bool OnCuda = false;        ///< Some tensor is in CUDA memory.
  int CudaIndex = 0;
  std::vector<rt::Buffer> Staged; ///< Parallel to Values; empty: not staged.
  bool AnyStaged = false;
};

Launcher::Launcher(const std::string &Dir, const std::string &Name,
                   const std::string &DeviceSpec)
    : Dir(Dir), Name(Name), Spec(DeviceSpec) {
  B = unwrap(rt::Bundle::load(Dir));
  for (const rt::KernelInfo &K : B.manifest().Kernels)
    if (K.name() == Name)
      Infos.push_back(K);
  if (Infos.empty()) {
    std::string Names;
    for (const rt::KernelInfo &K : B.manifest().Kernels)
      Names += (Names.empty() ? "" : ", ") + K.name();
    throw TileError("no kernel named '" + Name + "' in " + Dir +
                    " (it has: " + Names + ")");
  }
  for (const rt::ParamInfo &P : info().Signature.Params)
    if (P.Kind != rt::ParamKind::Dim)
      UserParams.push_back(&P);
}

void Launcher::load() {
  std::lock_guard<std::mutex> Guard(LoadLock);
  if (Loaded)
    return;
  rt::Device D = unwrap(rt::Device::open(Spec));
  std::vector<rt::KernelInfo> Runnable;
  std::vector<rt::Kernel> Ks;
  for (const rt::KernelInfo &K : Infos) {
    if (!rt::targetRunsOn(K.Target, K.Kind, D))
      continue;
    Ks.push_back(unwrap(B.loadKernel(D, K)));
    Runnable.push_back(K);
  }
  if (Ks.empty())
    throw TileError(Name + ": compiled for " + info().Target + " (" +
                    rt::objectKindName(info().Kind) + "), which " + D.name() +
                    " (" + Spec + ") cannot run");
  Dev = D;
  LoadedInfos = std::move(Runnable);
  Kernels = std::move(Ks);
  Loaded = true;
}

void Launcher::addTensor(size_t Index, PyObject *Obj, Prepared &P) {
  const rt::ParamInfo &Param = *UserParams[Index];
  // Messages name the argument; built only on failure.
  auto Fail = [&](const std::string &Msg) {
    return TileError(Name + ": argument " + std::to_string(Index) + " (" +
                     Param.Name + "): " + Msg);
  };
  TensorView V;
  try {
    V = readTensor(Obj, P.Held);
  } catch (const TileError &E) {
    throw Fail(E.what());
  }
  if (Param.Mut && V.ReadOnly)
    throw Fail("the kernel writes it but it is read-only");
  rt::Platform Pl = Dev->platform();
  bool DeviceMemory = V.Where != Memory::Host;
  bool Stage = false;
  switch (Pl) {
  case rt::Platform::Host:
    if (DeviceMemory)
      throw Fail("a GPU tensor cannot be read by a kernel on the host "
                 "(compiled for target host)");
    break;
  case rt::Platform::NvEmu:
  case rt::Platform::AmdEmu:
    if (DeviceMemory)
      throw Fail("a GPU tensor cannot be read by the emulator " + Spec +
                 " (pass host arrays)");
    Stage = true; // The emulator checks every access against its buffers.
    break;
  case rt::Platform::Cuda:
  case rt::Platform::Hip:
    if (!DeviceMemory) {
      Stage = true;
      break;
    }
    // PyTorch on ROCm calls its tensors "cuda" too.
    if (Pl == rt::Platform::Cuda && V.Where == Memory::Hip)
      throw Fail("memory of another platform than " + Spec);
    if (V.DeviceIndex != Dev->ordinal())
      throw Fail("the tensor is on device " + std::to_string(V.DeviceIndex) +
                 " but the kernel on " + Spec + " (compile with device=\"" +
                 rt::platformName(Pl) + ":" + std::to_string(V.DeviceIndex) +
                 "\")");
    P.OnCuda = true;
    P.CudaIndex = V.DeviceIndex;
    break;
  }
  if (Stage && !rt::isDenseRowMajor(V.Shape, V.Strides))
    throw Fail("host arrays given to " + Spec +
               " are copied and must be contiguous");
  try {
    P.Values[Index] = toArgValue(V, Param.DType);
  } catch (const TileError &E) {
    throw Fail(E.what());
  }
  if (Stage) {
    P.AnyStaged = true;
    P.Staged[Index] = unwrap(Dev->allocate(std::max<uint64_t>(V.Bytes, 4)));
  }
  P.Views[Index] = std::move(V);
}

void Launcher::prepare(PyObject *Args, PyObject *Kwargs, Prepared &P) {
  size_t N = UserParams.size();
  P.Values.resize(N);
  P.Views.resize(N);
  P.Staged.resize(N);
  Py_ssize_t NumArgs = PyTuple_GET_SIZE(Args);
  if (size_t(NumArgs) > N)
    throw TileError(Name + ": expected at most " + std::to_string(N) +
                    " arguments but got " + std::to_string(NumArgs));
  std::vector<PyObject *> Objects(N, nullptr);
  for (Py_ssize_t I = 0; I < NumArgs; ++I)
    Objects[I] = PyTuple_GET_ITEM(Args, I);
  if (Kwargs) {
    PyObject *Key, *Value;
    Py_ssize_t Pos = 0;
    while (PyDict_Next(Kwargs, &Pos, &Key, &Value)) {
      const char *K = PyUnicode_AsUTF8(Key);
      if (!K)
        throw TileError(Name + ": keyword names must be strings");
      if (std::strcmp(K, "stream") == 0) {
        readStream(Value); // Checked on every platform.
        P.Stream = Value == Py_None ? nullptr : Value;
        continue;
      }
      int Index = info().Signature.findParam(K);
      if (Index < 0)
        throw TileError(Name + ": no parameter or dimension named '" +
                        std::string(K) + "'");
      const rt::ParamInfo &Param = info().Signature.Params[Index];
      if (Param.Kind == rt::ParamKind::Dim) {
        try {
          P.Given[Param.Name] = int64_t(readScalar(Value));
        } catch (const TileError &E) {
          throw TileError(Name + ": dimension " + Param.Name + ": " + E.what());
        }
        continue;
      }
      if (Objects[Index])
        throw TileError(Name + ": argument '" + Param.Name + "' given twice");
      Objects[Index] = Value;
    }
  }
  for (size_t I = 0; I < N; ++I) {
    const rt::ParamInfo &Param = *UserParams[I];
    if (!Objects[I])
      throw TileError(Name + ": missing argument '" + Param.Name + "' (" +
                      Param.DType + ")");
    if (Param.Kind != rt::ParamKind::Scalar) {
      addTensor(I, Objects[I], P);
      continue;
    }
    try {
      P.Values[I] = rt::ArgValue::scalar(readScalar(Objects[I]));
    } catch (const TileError &E) {
      throw TileError(Name + ": argument " + std::to_string(I) + " (" +
                      Param.Name + "): " + E.what());
    }
  }
}

void Launcher::stageIn(Prepared &P) {
  for (size_t I = 0; I < P.Values.size(); ++I) {
    if (!P.Staged[I])
      continue;
    const TensorView &V = P.Views[I];
    check(
        P.Staged[I].upload(reinterpret_cast<const void *>(V.Address), V.Bytes));
    P.Values[I].Address = P.Staged[I].address();
  }
}

void Launcher::stageOut(Prepared &P) {
  check(Dev->synchronize());
  for (size_t I = 0; I < P.Values.size(); ++I)
    if (P.Staged[I] && UserParams[I]->Mut)
      check(P.Staged[I].download(reinterpret_cast<void *>(P.Views[I].Address),
                                 P.Views[I].Bytes));
}

void Launcher::call(PyObject *Args, PyObject *Kwargs) {
  if (!Loaded)
    load();
  Prepared P;
  prepare(Args, Kwargs, P);
  if (P.AnyStaged)
    stageIn(P);
  rt::BoundVariant V =
      unwrap(rt::bindVariant(LoadedInfos, Kernels, P.Values, P.Given));
  rt::Kernel &K = Kernels[V.Index];
  rt::Platform Pl = Dev->platform();
  if (Pl == rt::Platform::Cuda || Pl == rt::Platform::Hip) {
    // The caller's stream: given, else PyTorch's current one when tensors
    // are on the GPU (work queued there before this call comes first).
    void *Native = P.Stream ? readStream(P.Stream) : nullptr;
    if (!P.Stream && P.OnCuda)
      Native = currentCudaStream(P.CudaIndex);
    rt::Stream S = Dev->wrapStream(Native);
    check(K.launch(V.Bound, &S));
  } else {
    rt::Error E = rt::Error::success();
    {
      ReleaseGIL Release;
      E = K.launch(V.Bound, nullptr);
    }
    check(E);
  }
  if (P.AnyStaged)
    stageOut(P);
}
