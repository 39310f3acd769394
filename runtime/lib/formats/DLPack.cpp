//===- DLPack.cpp - Tensors from DLPack -----------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/DLPack.h"

#include "tile/Numerics/Format.h"

using namespace tile::rt;
namespace num = tile::numerics;

Expected<const char *> tile::rt::dlpackTypeName(const TileDLDataType &T) {
  std::string What = "DLPack dtype (code " + std::to_string(T.code) +
                     ", bits " + std::to_string(T.bits) + ", lanes " +
                     std::to_string(T.lanes) + ")";
  if (T.lanes != 1)
    return makeError(What + ": vector dtypes are not supported");
  // (code, bits) -> name: int, uint, float, bfloat, bool (a byte each),
  // float8 e4m3fn, e5m2, e8m0fnu.
  static const struct {
    uint8_t Code, Bits;
    const char *Name;
  } Known[] = {{0, 8, "i8"},   {0, 16, "i16"},    {0, 32, "i32"},
               {1, 8, "u8"},   {1, 16, "u16"},    {1, 32, "u32"},
               {2, 16, "f16"}, {2, 32, "f32"},    {4, 16, "bf16"},
               {6, 8, "u8"},   {10, 8, "f8e4m3"}, {12, 8, "f8e5m2"},
               {14, 8, "e8m0"}};
  for (const auto &K : Known)
    if (K.Code == T.code && K.Bits == T.bits)
      return K.Name;
  return makeError(What + " has no tile type (pass its storage as uint8 "
                          "with a dtype to reinterpret it as)");
}

namespace {

/// Whether a tensor on DLPack device \p Dev can be read by kernels of \p D.
bool deviceMatches(const TileDLDevice &Dev, const Device &D) {
  switch (D.platform()) {
  case Platform::Host:
  case Platform::NvEmu:
  case Platform::AmdEmu:
    return Dev.device_type == kTileDLCPU || Dev.device_type == kTileDLCUDAHost;
  case Platform::Cuda:
    return (Dev.device_type == kTileDLCUDA ||
            Dev.device_type == kTileDLCUDAManaged) &&
           Dev.device_id == D.ordinal();
  case Platform::Hip:
    return Dev.device_type == kTileDLROCM && Dev.device_id == D.ordinal();
  }
  return false;
}

} // namespace

Expected<ArgValue>
tile::rt::tensorFromDLPack(const TileDLTensor &T, const Device &D,
                           std::string_view AsDType,
                           const std::vector<int64_t> &AsShape) {
  if (T.ndim < 0 || (T.ndim > 0 && !T.shape))
    return makeError("DLPack tensor without a shape");
  if (!deviceMatches(T.device, D))
    return makeError(
        "DLPack tensor on device type " + std::to_string(T.device.device_type) +
        " id " + std::to_string(T.device.device_id) +
        " cannot be read by kernels on " + D.name() + " (" +
        platformName(D.platform()) + ":" + std::to_string(D.ordinal()) + ")");
  Expected<const char *> Type = dlpackTypeName(T.dtype);
  if (!Type && AsDType.empty())
    return Type.takeError();
  std::vector<int64_t> Shape(T.shape, T.shape + T.ndim);
  uint64_t Elements = 1;
  for (int64_t E : Shape) {
    if (E < 0)
      return makeError("DLPack tensor with a negative extent");
    Elements *= uint64_t(E);
  }
  uint64_t Bytes = denseBytes(Elements, T.dtype.bits * T.dtype.lanes);
  std::vector<int64_t> Strides;
  if (T.strides)
    Strides.assign(T.strides, T.strides + T.ndim);
  uint64_t Address = reinterpret_cast<uint64_t>(T.data) + T.byte_offset;
  if (AsDType.empty())
    return ArgValue::strided(Address, Bytes, Shape, Strides, *Type);

  // Reinterpreted storage: it must be dense, and large enough for the view.
  num::Result<num::Format> F = num::parseFormat(std::string(AsDType));
  if (!F)
    return makeError("reinterpreting a DLPack tensor: " + F.message());
  std::vector<int64_t> View = AsShape.empty() ? Shape : AsShape;
  uint64_t ViewElements = 1;
  for (int64_t E : View)
    ViewElements *= uint64_t(E < 0 ? 0 : E);
  uint64_t Need = denseBytes(ViewElements, F->bits());
  if (Need > Bytes)
    return makeError("a DLPack tensor of " + std::to_string(Bytes) +
                     " bytes cannot hold " + std::string(AsDType) + " of " +
                     std::to_string(ViewElements) + " elements (" +
                     std::to_string(Need) + " bytes)");
  ArgValue A = ArgValue::tensor(Address, Bytes, View, std::string(AsDType));
  // The storage's own strides must be dense for the reinterpretation to
  // mean anything: checked against its own shape.
  if (!isDenseRowMajor(Shape, Strides))
    return makeError("a DLPack tensor with strides that are not dense "
                     "row-major cannot be reinterpreted");
  return A;
}
