//===- Arguments.cpp - Python objects as kernel arguments -----------------===//
//
// Part of tilec's Python package. Three ways to read a tensor, tried in this
// order: the buffer protocol (numpy, memoryview; host memory), the torch
// tensor surface (data_ptr, shape, stride, dtype, device), DLPack
// (__dlpack__). Attribute names are interned once: a launch reads a few
// attributes per tensor and nothing else.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "tile/Numerics/Format.h"
#include "tile/runtime/DLPack.h"

#include <cstring>
#include <map>
#include <set>

using namespace tile;
using namespace tile::python;

namespace {

/// An interned attribute name, created on first use.
PyObject *name(const char *Text) {
  PyObject *N = PyUnicode_InternFromString(Text);
  if (!N)
    throw TileError("out of memory");
  return N;
}

/// A new reference to Obj.Attr, or a TileError.
PyObject *attr(PyObject *Obj, PyObject *Attr) {
  PyObject *R = PyObject_GetAttr(Obj, Attr);
  if (!R) {
    PyErr_Clear();
    throw TileError("has no attribute '" + std::string(PyUnicode_AsUTF8(Attr)) +
                    "'");
  }
  return R;
}

/// Decrements a reference at scope exit.
struct Ref {
  PyObject *P;
  explicit Ref(PyObject *P) : P(P) {}
  ~Ref() { Py_XDECREF(P); }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
};

std::vector<int64_t> readInts(PyObject *Seq) {
  PyObject *Fast = PySequence_Fast(Seq, "expected a sequence");
  if (!Fast) {
    PyErr_Clear();
    throw TileError("expected a sequence of integers");
  }
  Ref Hold(Fast);
  Py_ssize_t N = PySequence_Fast_GET_SIZE(Fast);
  std::vector<int64_t> R(static_cast<size_t>(N));
  for (Py_ssize_t I = 0; I < N; ++I) {
    R[I] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(Fast, I));
    if (R[I] == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      throw TileError("expected a sequence of integers");
    }
  }
  return R;
}

/// The tile type of a struct-module format character (numpy's buffers).
const char *typeOfFormat(const char *Format, Py_ssize_t ItemSize) {
  if (*Format == '@' || *Format == '=' || *Format == '<')
    ++Format;
  if (!Format[0] || Format[1])
    return nullptr; // Big-endian, structured or multi-character formats.
  switch (*Format) {
  case 'e':
    return "f16";
  case 'f':
    return "f32";
  case 'b':
    return "i8";
  case 'B':
  case '?':
    return "u8";
  case 'h':
    return "i16";
  case 'H':
    return "u16";
  case 'i':
  case 'l':
    return ItemSize == 4 ? "i32" : nullptr;
  case 'I':
  case 'L':
    return ItemSize == 4 ? "u32" : nullptr;
  default:
    return nullptr;
  }
}

bool readBuffer(PyObject *Obj, HeldObjects &Held, TensorView &V) {
  if (!PyObject_CheckBuffer(Obj))
    return false;
  Py_buffer *B = Held.newBuffer();
  // Writable when possible; a read-only buffer is refused later for mut.
  if (PyObject_GetBuffer(Obj, B, PyBUF_RECORDS) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(Obj, B, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      B->obj = nullptr;
      throw TileError("its buffer cannot be read");
    }
    V.ReadOnly = true;
  }
  const char *Type = typeOfFormat(B->format ? B->format : "B", B->itemsize);
  if (!Type)
    throw TileError("element format '" +
                    std::string(B->format ? B->format : "?") +
                    "' has no tile type (f16, f32, i8-i32, u8-u32; other "
                    "types as uint8 or uint16 storage)");
  V.DType = Type;
  V.Address = reinterpret_cast<uint64_t>(B->buf);
  V.Bytes = static_cast<uint64_t>(B->len);
  V.Shape.assign(B->shape, B->shape + B->ndim);
  for (int D = 0; D < B->ndim; ++D) {
    if (B->strides[D] % B->itemsize != 0)
      throw TileError("a stride that is not a whole number of "
                      "elements");
    V.Strides.push_back(B->strides[D] / B->itemsize);
  }
  return true;
}

/// Tile names of torch dtypes, by the dtype object (they are singletons).
/// A tile type named by a string dtype (tilec.runtime.DeviceArray's "f32",
/// "u4"): its canonical name, kept for the life of the process.
const char *tileTypeNamed(PyObject *Text) {
  static std::set<std::string> Names;
  const char *Name = PyUnicode_AsUTF8(Text);
  if (!Name) {
    PyErr_Clear();
    return nullptr;
  }
  auto Format = numerics::parseFormat(Name);
  if (!Format)
    return nullptr;
  return Names.insert(numerics::formatName(*Format)).first->c_str();
}

const char *torchType(PyObject *DType) {
  // Called with the GIL held, as everything here: no lock of its own. The
  // dtype objects seen are kept (a reference each, so that an address is
  // never reused by another object) with their tile names, up to a bound.
  static std::vector<std::pair<PyObject *, const char *>> Known;
  for (const auto &[Object, Name] : Known)
    if (Object == DType)
      return Name;
  if (PyUnicode_Check(DType)) {
    const char *Found = tileTypeNamed(DType);
    if (Known.size() < 64) {
      Py_INCREF(DType);
      Known.emplace_back(DType, Found);
    }
    return Found;
  }
  PyObject *Text = PyObject_Str(DType);
  if (!Text) {
    PyErr_Clear();
    return nullptr;
  }
  Ref Hold(Text);
  static const struct {
    const char *Torch, *Tile;
  } Names[] = {{"torch.float16", "f16"},
               {"torch.float32", "f32"},
               {"torch.bfloat16", "bf16"},
               {"torch.int8", "i8"},
               {"torch.uint8", "u8"},
               {"torch.bool", "u8"},
               {"torch.int16", "i16"},
               {"torch.uint16", "u16"},
               {"torch.int32", "i32"},
               {"torch.uint32", "u32"},
               {"torch.float8_e4m3fn", "f8e4m3"},
               {"torch.float8_e5m2", "f8e5m2"},
               {"torch.float8_e8m0fnu", "e8m0"}};
  const char *Found = nullptr;
  for (const auto &N : Names)
    if (std::strcmp(PyUnicode_AsUTF8(Text), N.Torch) == 0)
      Found = N.Tile;
  if (Known.size() < 64) {
    Py_INCREF(DType);
    Known.emplace_back(DType, Found);
  }
  return Found;
}

/// Bits per element of the types torchType() gives.
unsigned storageBits(const std::string &Type) {
  if (Type == "f32" || Type == "i32" || Type == "u32")
    return 32;
  if (Type == "f16" || Type == "bf16" || Type == "i16" || Type == "u16")
    return 16;
  if (Type == "u8" || Type == "i8")
    return 8;
  auto Format = numerics::parseFormat(Type); // Sub-byte string dtypes.
  return Format ? Format->bits() : 8;
}

bool readTorch(PyObject *Obj, TensorView &V) {
  // The cheapest attributes of a torch.Tensor: no strides or device object
  // unless needed (a launch reads a few of these per tensor).
  static PyObject *DataPtr = name("data_ptr"), *Stride = name("stride"),
                  *Shape = name("shape"), *DType = name("dtype"),
                  *Contiguous = name("is_contiguous"),
                  *IsCuda = name("is_cuda"), *IsCpu = name("is_cpu"),
                  *GetDevice = name("get_device");
  if (!PyObject_HasAttr(Obj, DataPtr) || !PyObject_HasAttr(Obj, Contiguous))
    return false;
  Ref DT(attr(Obj, DType));
  const char *T = torchType(DT.P);
  if (!T) {
    PyObject *Text = PyObject_Str(DT.P);
    std::string S = Text ? PyUnicode_AsUTF8(Text) : "?";
    Py_XDECREF(Text);
    PyErr_Clear();
    throw TileError("dtype " + S + " has no tile type");
  }
  V.DType = T;
  Ref Ptr(PyObject_CallMethodNoArgs(Obj, DataPtr));
  Ref Dense(PyObject_CallMethodNoArgs(Obj, Contiguous));
  if (!Ptr.P || !Dense.P) {
    PyErr_Clear();
    throw TileError("data_ptr() or is_contiguous() failed");
  }
  V.Address = PyLong_AsUnsignedLongLong(Ptr.P);
  Ref Sh(attr(Obj, Shape));
  V.Shape = readInts(Sh.P);
  if (Dense.P != Py_True) {
    Ref Strides(PyObject_CallMethodNoArgs(Obj, Stride));
    if (!Strides.P) {
      PyErr_Clear();
      throw TileError("stride() failed");
    }
    V.Strides = readInts(Strides.P);
  }
  uint64_t Elements = 1;
  for (int64_t E : V.Shape)
    Elements *= uint64_t(E < 0 ? 0 : E);
  V.Bytes = rt::denseBytes(Elements, storageBits(V.DType));
  Ref Cpu(attr(Obj, IsCpu));
  if (Cpu.P == Py_True) {
    V.Where = Memory::Host;
    return true;
  }
  Ref Cuda(attr(Obj, IsCuda));
  if (Cuda.P != Py_True)
    throw TileError("tensors on devices other than cpu and cuda are not "
                    "supported");
  // PyTorch calls HIP devices "cuda" too: the kernel's device decides.
  V.Where = Memory::Cuda;
  Ref Index(PyObject_CallMethodNoArgs(Obj, GetDevice));
  if (!Index.P) {
    PyErr_Clear();
    throw TileError("get_device() failed");
  }
  V.DeviceIndex = int(PyLong_AsLong(Index.P));
  return true;
}

bool readDLPack(PyObject *Obj, HeldObjects &Held, TensorView &V) {
  static PyObject *DLPack = name("__dlpack__");
  if (!PyObject_HasAttr(Obj, DLPack))
    return false;
  PyObject *Capsule = PyObject_CallMethodNoArgs(Obj, DLPack);
  if (!Capsule) {
    PyErr_Clear();
    throw TileError("__dlpack__() failed");
  }
  Held.keepCapsule(Capsule);
  Py_DECREF(Capsule);
  auto *M = static_cast<TileDLManagedTensor *>(
      PyCapsule_GetPointer(Capsule, "dltensor"));
  if (!M) {
    PyErr_Clear();
    throw TileError("__dlpack__() did not return a DLPack capsule");
  }
  const TileDLTensor &T = M->dl_tensor;
  rt::Expected<const char *> Type = rt::dlpackTypeName(T.dtype);
  if (!Type)
    throw TileError("" + Type.message());
  V.DType = *Type;
  V.Address = reinterpret_cast<uint64_t>(T.data) + T.byte_offset;
  V.Shape.assign(T.shape, T.shape + T.ndim);
  if (T.strides)
    V.Strides.assign(T.strides, T.strides + T.ndim);
  uint64_t Elements = 1;
  for (int64_t E : V.Shape)
    Elements *= uint64_t(E < 0 ? 0 : E);
  V.Bytes = rt::denseBytes(Elements, T.dtype.bits);
  switch (T.device.device_type) {
  case kTileDLCPU:
  case kTileDLCUDAHost:
    V.Where = Memory::Host;
    break;
  case kTileDLCUDA:
  case kTileDLCUDAManaged:
    V.Where = Memory::Cuda;
    break;
  case kTileDLROCM:
    V.Where = Memory::Hip;
    break;
  default:
    throw TileError("DLPack device type " +
                    std::to_string(T.device.device_type) +
                    " is not supported (CPU, CUDA, ROCm)");
  }
  V.DeviceIndex = T.device.device_id;
  return true;
}

std::string typeName(PyObject *Obj) {
  return Py_TYPE(Obj)->tp_name ? Py_TYPE(Obj)->tp_name : "?";
}

} // namespace

HeldObjects::~HeldObjects() {
  for (Py_buffer *B : Buffers) {
    if (B->obj)
      PyBuffer_Release(B);
    delete B;
  }
  // A consumed DLPack capsule: the tensor's memory belongs to its producer,
  // whose object the caller holds; the capsule's own deleter frees the
  // DLManagedTensor when the capsule dies.
  for (PyObject *C : Capsules)
    Py_DECREF(C);
}

Py_buffer *HeldObjects::newBuffer() {
  auto *B = new Py_buffer();
  B->obj = nullptr;
  Buffers.push_back(B);
  return B;
}

void HeldObjects::keepCapsule(PyObject *Capsule) {
  Py_INCREF(Capsule);
  Capsules.push_back(Capsule);
}

TensorView python::readTensor(PyObject *Obj, HeldObjects &Held) {
  // How each Python type is read, learned from its first object: a launch
  // then reads its tensors' attributes without probing for them.
  enum class Kind : uint8_t { Unknown, Buffer, Torch, DLPack };
  static std::vector<std::pair<PyTypeObject *, Kind>> Kinds;
  Kind K = Kind::Unknown;
  for (const auto &[Type, Seen] : Kinds)
    if (Type == Py_TYPE(Obj))
      K = Seen;
  bool Known = K != Kind::Unknown;
  TensorView V;
  bool Read = false;
  if (K == Kind::Buffer || K == Kind::Unknown)
    Read = readBuffer(Obj, Held, V) && (K = Kind::Buffer, true);
  if (!Read && (K == Kind::Torch || K == Kind::Unknown))
    Read = readTorch(Obj, V) && (K = Kind::Torch, true);
  if (!Read && (K == Kind::DLPack || K == Kind::Unknown))
    Read = readDLPack(Obj, Held, V) && (K = Kind::DLPack, true);
  if (!Read)
    throw TileError("expected a tensor (a numpy array, a torch tensor or an "
                    "object with __dlpack__) but got " +
                    typeName(Obj));
  if (Kinds.size() < 16 && !Known) // Types live as long as their module.
    Kinds.emplace_back(Py_TYPE(Obj), K);
  return V;
}

double python::readScalar(PyObject *Obj) {
  if (PyFloat_Check(Obj))
    return PyFloat_AS_DOUBLE(Obj);
  if (PyLong_Check(Obj)) { // bool is an int.
    double D = PyLong_AsDouble(Obj);
    if (D == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw TileError("integer out of range");
    }
    return D;
  }
  static PyObject *Item = name("item");
  // 0-d numpy values and torch scalars.
  if (!PyObject_CheckBuffer(Obj) || !PyObject_HasAttr(Obj, Item))
    throw TileError("expected a number but got " + typeName(Obj));
  Ref V(PyObject_CallMethodNoArgs(Obj, Item));
  if (!V.P || (!PyFloat_Check(V.P) && !PyLong_Check(V.P))) {
    PyErr_Clear();
    throw TileError("expected a number but got " + typeName(Obj));
  }
  return readScalar(V.P);
}

rt::ArgValue python::toArgValue(TensorView &V, const std::string &ParamDType) {
  // Types numpy or torch name themselves are never reinterpreted: a uint8
  // array for an i8 parameter is a mistake the binding reports.
  static const char *const Native[] = {"f16", "f32", "i8",  "u8",
                                       "i16", "u16", "i32", "u32"};
  bool IsNative = false;
  for (const char *N : Native)
    IsNative |= ParamDType == N;
  if (V.DType == ParamDType)
    return rt::ArgValue::strided(V.Address, V.Bytes, std::move(V.Shape),
                                 std::move(V.Strides), V.DType);
  bool IntegerStorage = V.DType == "u8" || V.DType == "i8" ||
                        V.DType == "u16" || V.DType == "i16";
  auto Param = numerics::parseFormat(ParamDType);
  auto Have = numerics::parseFormat(V.DType);
  if (V.DType != ParamDType && !IsNative && IntegerStorage && Param && Have) {
    // Codes of the same width keep the shape (uint8 of f8e4m3 or e8m0
    // codes, uint16 of bf16); narrower codes packed in bytes take the
    // shape the signature gives (uint8 of u4 codes).
    if (Param->bits() == Have->bits())
      return rt::ArgValue::strided(V.Address, V.Bytes, std::move(V.Shape),
                                   std::move(V.Strides), ParamDType);
    if (Param->bits() < 8 && Have->bits() == 8) {
      if (!rt::isDenseRowMajor(V.Shape, V.Strides))
        throw TileError("storage of " + ParamDType +
                        " codes must be contiguous");
      return rt::ArgValue::storage(V.Address, V.Bytes, ParamDType);
    }
  }
  return rt::ArgValue::strided(V.Address, V.Bytes, V.Shape, V.Strides, V.DType);
}

void *python::currentCudaStream(int Index) {
  // PyTorch's current stream when torch is loaded (what torch's own kernels
  // use); `_cuda_getCurrentRawStream` is the cheap way Triton uses too.
  // Looked up until torch has been imported.
  static PyObject *GetStream = nullptr;
  if (!GetStream) {
    PyObject *Torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
    if (!Torch)
      return nullptr;
    PyObject *C = PyObject_GetAttrString(Torch, "_C");
    GetStream =
        C ? PyObject_GetAttrString(C, "_cuda_getCurrentRawStream") : nullptr;
    Py_XDECREF(C);
    PyErr_Clear();
    if (!GetStream)
      return nullptr;
  }
  Ref R(PyObject_CallFunction(GetStream, "i", Index));
  if (!R.P) {
    PyErr_Clear();
    throw TileError("cannot get PyTorch's current CUDA stream");
  }
  return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(R.P));
}

void *python::readStream(PyObject *Obj) {
  if (!Obj || Obj == Py_None)
    return nullptr;
  static PyObject *CudaStream = name("cuda_stream");
  if (PyLong_Check(Obj))
    return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(Obj));
  if (PyObject_HasAttr(Obj, CudaStream)) {
    Ref S(PyObject_GetAttr(Obj, CudaStream));
    if (S.P && PyLong_Check(S.P))
      return reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(S.P));
  }
  PyErr_Clear();
  throw TileError("stream: expected None, an int or an object with "
                  "'cuda_stream' but got " +
                  typeName(Obj));
}
