//===- CApi.cpp - C API of the tile runtime -------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/tile_runtime.h"

#include "tile/Numerics/OperandPack.h"
#include "tile/runtime/Bundle.h"
#include "tile/runtime/DLPack.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace tile::rt;

struct tile_device {
  Device D;
  std::string Arch;
};
struct tile_buffer {
  Buffer B;
};
/// A loaded bundle: each kernel name with its variants (one per tuned shape
/// bucket, plus the one for every other shape).
struct tile_bundle {
  struct Entry {
    std::string Name;
    std::vector<KernelInfo> Infos; ///< Parallel to Loaded.
    std::vector<Kernel> Loaded;
  };
  Device D;
  std::vector<Entry> Kernels;
};

static thread_local std::string LastError;

static int failWith(const std::string &Msg) {
  LastError = Msg;
  return -1;
}

template <typename T> static T *failNull(const std::string &Msg) {
  LastError = Msg;
  return nullptr;
}

const char *tile_last_error(void) { return LastError.c_str(); }

tile_device *tile_device_open(const char *Spec) {
  if (!Spec)
    return failNull<tile_device>("tile_device_open: null spec");
  Expected<Device> D = Device::open(Spec);
  if (!D)
    return failNull<tile_device>(D.message());
  return new (std::nothrow) tile_device{*D, D->arch()};
}

void tile_device_close(tile_device *Device) { delete Device; }

const char *tile_device_arch(tile_device *Device) {
  return Device ? Device->Arch.c_str() : "";
}

int tile_device_synchronize(tile_device *Device) {
  if (!Device)
    return failWith("tile_device_synchronize: null device");
  if (Error E = Device->D.synchronize())
    return failWith(E.message());
  return 0;
}

tile_buffer *tile_buffer_create(tile_device *Device, uint64_t Bytes) {
  if (!Device)
    return failNull<tile_buffer>("tile_buffer_create: null device");
  Expected<Buffer> B = Device->D.allocate(Bytes);
  if (!B)
    return failNull<tile_buffer>(B.message());
  return new (std::nothrow) tile_buffer{*B};
}

void tile_buffer_free(tile_buffer *Buffer) { delete Buffer; }

uint64_t tile_buffer_size(const tile_buffer *Buffer) {
  return Buffer ? Buffer->B.size() : 0;
}

int tile_buffer_upload(tile_buffer *Buffer, const void *Src, uint64_t Bytes,
                       uint64_t Offset) {
  if (!Buffer || (!Src && Bytes))
    return failWith("tile_buffer_upload: null buffer or source");
  if (Error E = Buffer->B.upload(Src, Bytes, Offset))
    return failWith(E.message());
  return 0;
}

int tile_buffer_download(const tile_buffer *Buffer, void *Dst, uint64_t Bytes,
                         uint64_t Offset) {
  if (!Buffer || (!Dst && Bytes))
    return failWith("tile_buffer_download: null buffer or destination");
  if (Error E = Buffer->B.download(Dst, Bytes, Offset))
    return failWith(E.message());
  return 0;
}

tile_bundle *tile_bundle_load(tile_device *Device, const char *Dir) {
  if (!Device || !Dir)
    return failNull<tile_bundle>("tile_bundle_load: null device or path");
  Expected<Bundle> B = Bundle::load(Dir);
  if (!B)
    return failNull<tile_bundle>(B.message());
  auto *Result = new (std::nothrow) tile_bundle{Device->D, {}};
  if (!Result)
    return failNull<tile_bundle>("out of memory");
  for (const KernelInfo &K : B->manifest().Kernels) {
    if (!targetRunsOn(K.Target, K.Kind, Device->D))
      continue;
    Expected<Kernel> Loaded = B->loadKernel(Device->D, K);
    if (!Loaded) {
      delete Result;
      return failNull<tile_bundle>(Loaded.message());
    }
    auto It = std::find_if(
        Result->Kernels.begin(), Result->Kernels.end(),
        [&](const tile_bundle::Entry &E) { return E.Name == K.name(); });
    if (It == Result->Kernels.end())
      It = Result->Kernels.insert(It, tile_bundle::Entry{K.name(), {}, {}});
    It->Infos.push_back(K);
    It->Loaded.push_back(*Loaded);
  }
  return Result;
}

void tile_bundle_free(tile_bundle *Bundle) { delete Bundle; }

size_t tile_bundle_num_kernels(const tile_bundle *Bundle) {
  return Bundle ? Bundle->Kernels.size() : 0;
}

const char *tile_bundle_kernel_name(const tile_bundle *Bundle, size_t Index) {
  if (!Bundle || Index >= Bundle->Kernels.size())
    return nullptr;
  return Bundle->Kernels[Index].Name.c_str();
}

/// Binds \p Values to the variant of kernel \p Name whose bucket their
/// dimensions fall in and launches it on \p St (null: default stream).
static int launchVariant(const char *Api, tile_bundle *Bundle, const char *Name,
                         const std::vector<ArgValue> &Values, Stream *St) {
  tile_bundle::Entry *Found = nullptr;
  for (tile_bundle::Entry &E : Bundle->Kernels)
    if (E.Name == Name)
      Found = &E;
  if (!Found)
    return failWith(std::string(Api) + ": no kernel named '" + Name +
                    "' for this device in the bundle");
  Expected<BoundVariant> V = bindVariant(Found->Infos, Found->Loaded, Values);
  if (!V)
    return failWith(V.message());
  if (Error E = Found->Loaded[V->Index].launch(V->Bound, St))
    return failWith(E.message());
  return 0;
}

int tile_launch(tile_bundle *Bundle, const char *Name, const tile_arg *Args,
                size_t NumArgs) {
  if (!Bundle || !Name || (!Args && NumArgs))
    return failWith("tile_launch: null bundle, name or arguments");
  std::vector<ArgValue> Values;
  for (size_t I = 0; I < NumArgs; ++I) {
    const tile_arg &A = Args[I];
    if (!A.is_tensor) {
      Values.push_back(ArgValue::scalar(A.scalar));
      continue;
    }
    if (!A.buffer || A.rank < 0 || (A.rank > 0 && !A.shape))
      return failWith("tile_launch: argument " + std::to_string(I) +
                      " is a tensor without a buffer or shape");
    Values.push_back(
        ArgValue::tensor(A.buffer->B.address(), A.buffer->B.size(),
                         std::vector<int64_t>(A.shape, A.shape + A.rank),
                         A.dtype ? A.dtype : ""));
  }
  if (launchVariant("tile_launch", Bundle, Name, Values, nullptr))
    return -1;
  if (Error E = Bundle->D.synchronize())
    return failWith(E.message());
  return 0;
}

int tile_launch_async(tile_bundle *Bundle, const char *Name,
                      const tile_value *Values, size_t NumValues,
                      void *NativeStream) {
  if (!Bundle || !Name || (!Values && NumValues))
    return failWith("tile_launch_async: null bundle, name or values");
  std::vector<ArgValue> Args;
  Args.reserve(NumValues);
  for (size_t I = 0; I < NumValues; ++I) {
    const tile_value &V = Values[I];
    if (!V.is_tensor) {
      Args.push_back(ArgValue::scalar(V.scalar));
      continue;
    }
    if (V.rank < 0 || (V.rank > 0 && !V.shape))
      return failWith("tile_launch_async: value " + std::to_string(I) +
                      " is a tensor without a shape");
    std::vector<int64_t> Shape(V.shape, V.shape + V.rank);
    std::vector<int64_t> Strides;
    if (V.strides)
      Strides.assign(V.strides, V.strides + V.rank);
    Args.push_back(ArgValue::strided(V.data, V.bytes, std::move(Shape),
                                     std::move(Strides),
                                     V.dtype ? V.dtype : ""));
  }
  Stream St = Bundle->D.wrapStream(NativeStream);
  return launchVariant("tile_launch_async", Bundle, Name, Args, &St);
}

int tile_value_from_dlpack(const void *DLTensorPtr, tile_device *Device,
                           const char *AsDType, const int64_t *AsShape,
                           int AsRank, tile_value *Out) {
  if (!DLTensorPtr || !Device || !Out || AsRank < 0 || (AsRank > 0 && !AsShape))
    return failWith("tile_value_from_dlpack: null tensor, device, output or "
                    "shape");
  const auto &T = *static_cast<const TileDLTensor *>(DLTensorPtr);
  std::vector<int64_t> View(AsShape, AsShape + AsRank);
  Expected<ArgValue> A =
      tensorFromDLPack(T, Device->D, AsDType ? AsDType : "", View);
  if (!A)
    return failWith("tile_value_from_dlpack: " + A.message());
  // dlpackTypeName's names are static: they outlive the call.
  Expected<const char *> DType = dlpackTypeName(T.dtype);
  *Out = tile_value{};
  Out->is_tensor = 1;
  Out->data = A->Address;
  Out->bytes = A->Bytes;
  Out->shape = AsRank ? AsShape : T.shape;
  Out->strides = AsDType ? nullptr : T.strides;
  Out->rank = AsRank ? AsRank : T.ndim;
  Out->dtype = AsDType ? AsDType : *DType;
  return 0;
}

static int permuteWeights(const char *What, const void *In, void *Out,
                          unsigned Bits, uint64_t K, uint64_t N, uint64_t BK,
                          const char *OrderName, bool Pack) {
  if (!In || !Out)
    return failWith(std::string(What) + ": null pointer");
  if (BK == 0)
    BK = tile::numerics::defaultOperandBlockK(Bits);
  auto Order = tile::numerics::parseOperandOrder(OrderName ? OrderName : "mma");
  if (!Order)
    return failWith(std::string(What) + ": " + Order.message());
  const auto *Bytes = static_cast<const uint8_t *>(In);
  auto Permuted =
      Pack ? tile::numerics::packOperandOrder(Bytes, Bits, K, N, BK, *Order)
           : tile::numerics::unpackOperandOrder(Bytes, Bits, K, N, BK, *Order);
  if (!Permuted)
    return failWith(std::string(What) + ": " + Permuted.message());
  std::memcpy(Out, Permuted->data(), Permuted->size());
  return 0;
}

int tile_pack_weights(const void *W, void *Out, unsigned Bits, uint64_t K,
                      uint64_t N, uint64_t BK) {
  return permuteWeights("tile_pack_weights", W, Out, Bits, K, N, BK, nullptr,
                        true);
}

int tile_unpack_weights(const void *Packed, void *Out, unsigned Bits,
                        uint64_t K, uint64_t N, uint64_t BK) {
  return permuteWeights("tile_unpack_weights", Packed, Out, Bits, K, N, BK,
                        nullptr, false);
}

int tile_pack_weights_for(const void *W, void *Out, unsigned Bits, uint64_t K,
                          uint64_t N, uint64_t BK, const char *Order) {
  return permuteWeights("tile_pack_weights_for", W, Out, Bits, K, N, BK, Order,
                        true);
}

int tile_unpack_weights_for(const void *Packed, void *Out, unsigned Bits,
                            uint64_t K, uint64_t N, uint64_t BK,
                            const char *Order) {
  return permuteWeights("tile_unpack_weights_for", Packed, Out, Bits, K, N, BK,
                        Order, false);
}
