//===- DLPack.h - Tensors from DLPack (PyTorch, JAX, CuPy, NumPy) -*- C++ -*-=//
//
// Part of tilec. A kernel argument from a DLPack tensor that another
// framework owns: its data pointer (plus byte offset), shape and dtype are
// checked against the device and the kernel's conventions (dense row-major,
// 4-byte aligned) and used in place, without a copy. The structs are the
// DLPack C ABI (https://dmlc.github.io/dlpack/latest/c_api.html), declared
// here so that no DLPack header is needed.
//
// Low-bit tensors travel as bytes: PyTorch has no u4, so packed weights are
// a uint8 tensor; `AsDType`/`AsShape` reinterpret its storage as the
// kernel's view (e.g. a [4096, 2048] uint8 tensor as u4 [4096, 4096]).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_DLPACK_H
#define TILE_RUNTIME_DLPACK_H

#include "tile/runtime/Runtime.h"

#include <cstdint>
#include <string_view>
#include <vector>

extern "C" {
/// DLPack's device types this runtime knows (others are rejected).
enum TileDLDeviceType : int32_t {
  kTileDLCPU = 1,
  kTileDLCUDA = 2,
  kTileDLCUDAHost = 3,
  kTileDLROCM = 10,
  kTileDLCUDAManaged = 13,
};
struct TileDLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct TileDLDataType {
  uint8_t code; ///< 0 int, 1 uint, 2 float, 4 bfloat, 6 bool, 10 f8e4m3fn, ...
  uint8_t bits;
  uint16_t lanes;
};
/// DLTensor.
struct TileDLTensor {
  void *data;
  TileDLDevice device;
  int32_t ndim;
  TileDLDataType dtype;
  int64_t *shape;
  int64_t *strides; ///< Elements; null: dense row-major.
  uint64_t byte_offset;
};
/// DLManagedTensor (the capsule payload of __dlpack__()).
struct TileDLManagedTensor {
  TileDLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(TileDLManagedTensor *self);
};
}

namespace tile {
namespace rt {

/// The language type of a DLPack dtype ("f16", "bf16", "i8", "f8e4m3", ...);
/// an error names the ones tile has no type for (f64, i64, complex,
/// vectors, the fnuz float8s). The name is a static string.
Expected<const char *> dlpackTypeName(const TileDLDataType &T);

/// A tensor argument for \p D from \p T (used in place). Fails when the
/// tensor lives on another device (a CPU tensor for a CUDA device, another
/// GPU ordinal), is not dense row-major, not 4-byte aligned, or of a dtype
/// tile lacks. With \p AsDType (and \p AsShape, default: T's shape) the
/// storage is reinterpreted: it must hold at least the bytes of that view.
Expected<ArgValue> tensorFromDLPack(const TileDLTensor &T, const Device &D,
                                    std::string_view AsDType = {},
                                    const std::vector<int64_t> &AsShape = {});

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_DLPACK_H
