//===- Arguments.h - Python objects as kernel arguments ---------*- C++ -*-===//
//
// Part of tilec's Python package. Turns the objects a Python caller passes
// to a kernel (numpy arrays and anything else with the buffer protocol,
// torch tensors, DLPack producers, ints and floats) into the runtime's
// ArgValues, without copying: the kernel reads and writes the caller's
// memory. Host memory given to a kernel of a GPU or an emulator is staged
// through device buffers (copied in, and out for mut tensors).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_ARGUMENTS_H
#define TILEC_PYTHON_ARGUMENTS_H

#include "tile/runtime/Runtime.h"

#include <Python.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tile {
namespace python {

/// A failure the caller can fix (bad argument, launch error): raised in
/// Python as tilec.Error.
struct TileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value of \p E, or a TileError with its message.
template <typename T> T unwrap(rt::Expected<T> E) {
  if (!E)
    throw TileError(E.message());
  return std::move(*E);
}

/// Throws a TileError for a failed \p E.
inline void check(const rt::Error &E) {
  if (E)
    throw TileError(E.message());
}

/// Where a tensor's memory lives.
enum class Memory { Host, Cuda, Hip };

/// A tensor argument as read from its Python object.
struct TensorView {
  uint64_t Address = 0;
  uint64_t Bytes = 0;
  std::vector<int64_t> Shape;
  std::vector<int64_t> Strides; ///< Elements; empty: dense.
  std::string DType;            ///< Tile type name ("f16", "u8", ...).
  Memory Where = Memory::Host;
  int DeviceIndex = 0;
  bool ReadOnly = false;
};

/// Owns what reading Python objects acquired (buffer views, DLPack
/// capsules) until the launch that uses them has been queued.
class HeldObjects {
public:
  HeldObjects() = default;
  HeldObjects(const HeldObjects &) = delete;
  HeldObjects &operator=(const HeldObjects &) = delete;
  ~HeldObjects();
  Py_buffer *newBuffer();
  void keepCapsule(PyObject *Capsule); ///< Takes a reference.

private:
  std::vector<Py_buffer *> Buffers;
  std::vector<PyObject *> Capsules;
};

/// Reads the tensor \p Obj. Throws TileError (a message without the
/// argument's name, which the caller adds: no string is built for a call
/// that succeeds) for objects that are not tensors or have no tile type.
TensorView readTensor(PyObject *Obj, HeldObjects &Held);

/// Reads a scalar (int, float or bool). Throws TileError otherwise.
double readScalar(PyObject *Obj);

/// The ArgValue of \p V for a parameter of type \p ParamDType: the tensor
/// itself, or its storage reinterpreted when it holds a type the caller's
/// library has no name for (a uint8 array of packed u4 codes, of f8e4m3 or
/// e8m0 codes; a uint16 array of bf16): same shape when the widths match,
/// else the shape the signature gives (rt::ArgValue::storage). Moves the
/// shape and strides out of \p V.
rt::ArgValue toArgValue(TensorView &V, const std::string &ParamDType);

/// The caller's current CUDA stream for tensors on CUDA device \p Index
/// (PyTorch's, when torch is imported; else the default stream).
void *currentCudaStream(int Index);

/// A stream given as `stream=`: None, an int (CUstream / hipStream_t) or an
/// object with a `cuda_stream` attribute (torch.cuda.Stream).
void *readStream(PyObject *Obj);

} // namespace python
} // namespace tile

#endif // TILEC_PYTHON_ARGUMENTS_H
