//===- CudaBackend.cpp - The CUDA driver API, loaded with dlopen ----------===//
//
// Part of tilec. No CUDA header is needed: the few driver types and enum
// values used are declared here. libcuda.so.1 is opened at the first
// Device::open("cuda:N") (TILE_CUDA_LIBRARY overrides the file name), and
// every driver call is checked and turned into an error naming the call and
// cuGetErrorName / cuGetErrorString.
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"

#include <algorithm>
#include <mutex>

using namespace tile::rt;

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr uint32_t StaticSharedLimit = 48 * 1024;
// cuTensorMapEncodeTiled's enumerations (CUtensorMapDataType, ...).
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

/// CUlaunchAttribute and CUlaunchConfig (cuLaunchKernelEx), as cuda.h lays
/// them out: the value is a 64-byte union aligned as a pointer.
struct CuLaunchAttribute {
  int Id = 0;
  char Pad[4] = {};
  union alignas(8) {
    char Bytes[64];
    int Int;
  } Value = {};
};
static_assert(sizeof(CuLaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");
struct CuLaunchConfig {
  unsigned GridDimX, GridDimY, GridDimZ;
  unsigned BlockDimX, BlockDimY, BlockDimZ;
  unsigned SharedMemBytes;
  CUstream Stream;
  CuLaunchAttribute *Attrs;
  unsigned NumAttrs;
};

/// The driver entry points, resolved once.
struct CudaApi {
  std::shared_ptr<DynamicLibrary> Lib;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  /// Optional (CUDA 12+): null when the driver lacks it; only kernels with
  /// TMA tensor maps need it.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);

  /// Optional (CUDA 11.8+): null when the driver lacks it; kernels
  /// compiled for dependent launch then start as any kernel (their wait is
  /// then for nothing).
  CUresult (*cuLaunchKernelEx)(const CuLaunchConfig *, CUfunction, void **,
                               void **);
  /// Optional (CUDA 10+): null when the driver lacks it; Stream::hold()
  /// then holds nothing.
  CUresult (*cuLaunchHostFunc)(CUstream, void (*)(void *), void *);

  /// "cuX failed: CUDA_ERROR_Y (text)" or success.
  Error check(CUresult R, const char *Call) const {
    if (R == CUDA_SUCCESS)
      return Error::success();
    const char *Name = nullptr, *Text = nullptr;
    if (cuGetErrorName(R, &Name) != CUDA_SUCCESS)
      Name = nullptr;
    if (cuGetErrorString(R, &Text) != CUDA_SUCCESS)
      Text = nullptr;
    return makeError(std::string(Call) + " failed: " +
                     (Name ? Name : "CUDA error " + std::to_string(R)) +
                     (Text ? std::string(" (") + Text + ")" : ""));
  }
};

template <typename Fn>
bool resolve(const DynamicLibrary &Lib, Fn &Ptr, const char *Name,
             std::string &Missing) {
  Ptr = reinterpret_cast<Fn>(Lib.symbol(Name));
  if (!Ptr)
    Missing += std::string(Missing.empty() ? "" : ", ") + Name;
  return Ptr != nullptr;
}

/// Loads the driver once; a failure is retried on the next call.
Expected<const CudaApi *> loadCuda() {
  static std::mutex Lock;
  static CudaApi *Api = nullptr;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Api)
    return static_cast<const CudaApi *>(Api);
  Expected<std::shared_ptr<DynamicLibrary>> Lib =
      DynamicLibrary::open({"libcuda.so.1", "libcuda.so"}, "TILE_CUDA_LIBRARY");
  if (!Lib)
    return makeError("no CUDA driver found (" + Lib.message() + ")");
  auto A = std::make_unique<CudaApi>();
  A->Lib = *Lib;
  const DynamicLibrary &L = **Lib;
  std::string Missing;
#define TILE_RESOLVE(Field, Symbol) resolve(L, A->Field, Symbol, Missing)
  TILE_RESOLVE(cuInit, "cuInit");
  TILE_RESOLVE(cuGetErrorName, "cuGetErrorName");
  TILE_RESOLVE(cuGetErrorString, "cuGetErrorString");
  TILE_RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
  TILE_RESOLVE(cuDeviceGet, "cuDeviceGet");
  TILE_RESOLVE(cuDeviceGetName, "cuDeviceGetName");
  TILE_RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  TILE_RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  TILE_RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
  TILE_RESOLVE(cuCtxSynchronize, "cuCtxSynchronize");
  TILE_RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx");
  TILE_RESOLVE(cuModuleUnload, "cuModuleUnload");
  TILE_RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
  TILE_RESOLVE(cuFuncSetAttribute, "cuFuncSetAttribute");
  // Optional (persistent launches assume one program per SM without it).
  A->cuOccupancyMaxActiveBlocksPerMultiprocessor = reinterpret_cast<
      decltype(A->cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
      L.symbol("cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  TILE_RESOLVE(cuLaunchKernel, "cuLaunchKernel");
  TILE_RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
  TILE_RESOLVE(cuMemFree, "cuMemFree_v2");
  TILE_RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  TILE_RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  TILE_RESOLVE(cuMemsetD8, "cuMemsetD8_v2");
  TILE_RESOLVE(cuMemsetD8Async, "cuMemsetD8Async");
  TILE_RESOLVE(cuStreamCreate, "cuStreamCreate");
  TILE_RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2");
  TILE_RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
  TILE_RESOLVE(cuEventCreate, "cuEventCreate");
  TILE_RESOLVE(cuEventDestroy, "cuEventDestroy_v2");
  TILE_RESOLVE(cuEventRecord, "cuEventRecord");
  TILE_RESOLVE(cuEventSynchronize, "cuEventSynchronize");
  TILE_RESOLVE(cuEventElapsedTime, "cuEventElapsedTime");
#undef TILE_RESOLVE
  std::string Optional;
  resolve(L, A->cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", Optional);
  resolve(L, A->cuLaunchHostFunc, "cuLaunchHostFunc", Optional);
  resolve(L, A->cuLaunchKernelEx, "cuLaunchKernelEx", Optional);
  if (!Missing.empty())
    return makeError("CUDA driver " + L.path() + " lacks " + Missing);
  if (Error E = A->check(A->cuInit(0), "cuInit"))
    return E;
  Api = A.release(); // Kept for the life of the process.
  return static_cast<const CudaApi *>(Api);
}

class CudaModule : public ModuleImpl {
public:
  CudaModule(const CudaApi &Api, CUcontext Ctx, CUmodule Mod, int MaxShared)
      : Api(Api), Ctx(Ctx), Mod(Mod), MaxShared(MaxShared) {}
  ~CudaModule() override {
    if (Api.cuCtxSetCurrent(Ctx) == CUDA_SUCCESS)
      (void)Api.cuModuleUnload(Mod);
  }

  Expected<void *> getFunction(const std::string &Name,
                               uint32_t SharedBytes) override {
    if (Error E = Api.check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
      return E;
    CUfunction F;
    if (Error E = Api.check(Api.cuModuleGetFunction(&F, Mod, Name.c_str()),
                            ("cuModuleGetFunction(" + Name + ")").c_str()))
      return E;
    if (SharedBytes > static_cast<uint32_t>(MaxShared))
      return makeError(Name + " needs " + std::to_string(SharedBytes) +
                       " bytes of shared memory but the device allows " +
                       std::to_string(MaxShared));
    if (SharedBytes > StaticSharedLimit)
      if (Error E =
              Api.check(Api.cuFuncSetAttribute(
                            F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            static_cast<int>(SharedBytes)),
                        ("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
                         std::to_string(SharedBytes) + ")")
                            .c_str()))
        return E;
    return static_cast<void *>(F);
  }

  Error launch(void *Function, const LaunchConfig &Config,
               const std::array<uint32_t, 3> &Grid, void **Args,
               void *Stream) override {
    if (Error E = Api.check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
      return E;
    if (Config.DependentLaunch && Api.cuLaunchKernelEx) {
      // The kernel waits for the grid before it (griddepcontrol.wait), so
      // it may be scheduled as that grid ends.
      CuLaunchAttribute Serialization;
      Serialization.Id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      Serialization.Value.Int = 1;
      CuLaunchConfig C{Grid[0],
                       Grid[1],
                       Grid[2],
                       Config.ThreadsPerBlock,
                       1,
                       1,
                       Config.SharedBytes,
                       static_cast<CUstream>(Stream),
                       &Serialization,
                       1};
      return Api.check(Api.cuLaunchKernelEx(&C,
                                            static_cast<CUfunction>(Function),
                                            Args, nullptr),
                       "cuLaunchKernelEx");
    }
    return Api.check(
        Api.cuLaunchKernel(static_cast<CUfunction>(Function), Grid[0], Grid[1],
                           Grid[2], Config.ThreadsPerBlock, 1, 1,
                           Config.SharedBytes, static_cast<CUstream>(Stream),
                           Args, nullptr),
        "cuLaunchKernel");
  }

  Expected<uint32_t> residentPerUnit(void *Function,
                                     const LaunchConfig &Config) override {
    if (!Api.cuOccupancyMaxActiveBlocksPerMultiprocessor)
      return 1u;
    if (Error E = Api.check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
      return E;
    int Blocks = 0;
    if (Error E = Api.check(Api.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                &Blocks, static_cast<CUfunction>(Function),
                                static_cast<int>(Config.ThreadsPerBlock),
                                Config.SharedBytes),
                            "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
      return E;
    return uint32_t(std::max(Blocks, 1));
  }

private:
  const CudaApi &Api;
  CUcontext Ctx;
  CUmodule Mod;
  int MaxShared;
};

class CudaDevice : public DeviceImpl {
public:
  CudaDevice(const CudaApi &Api, CUcontext Ctx, int MaxShared)
      : Api(Api), Ctx(Ctx), MaxShared(MaxShared) {}

  Error activate() {
    return Api.check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent");
  }

  Expected<uint64_t> allocate(uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    CUdeviceptr P = 0;
    // cuMemAlloc rejects 0 bytes; keep every buffer addressable.
    if (Error E =
            Api.check(Api.cuMemAlloc(&P, Bytes ? Bytes : 1),
                      ("cuMemAlloc(" + std::to_string(Bytes) + ")").c_str()))
      return E;
    return static_cast<uint64_t>(P);
  }
  void release(uint64_t Address) override {
    if (!activate())
      (void)Api.cuMemFree(Address);
  }
  Error upload(uint64_t Dst, const void *Src, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.cuMemcpyHtoD(Dst, Src, Bytes), "cuMemcpyHtoD");
  }
  Error download(void *Dst, uint64_t Src, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.cuMemcpyDtoH(Dst, Src, Bytes), "cuMemcpyDtoH");
  }
  Error fill(uint64_t Dst, uint8_t Byte, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    if (Error E = Api.check(Api.cuMemsetD8(Dst, Byte, Bytes), "cuMemsetD8"))
      return E;
    return Api.check(Api.cuCtxSynchronize(), "cuCtxSynchronize");
  }
  Error fillAsync(uint64_t Dst, uint8_t Byte, uint64_t Bytes,
                  void *Stream) override {
    if (Error E = activate())
      return E;
    return Api.check(
        Api.cuMemsetD8Async(Dst, Byte, Bytes, static_cast<CUstream>(Stream)),
        "cuMemsetD8Async");
  }

  Expected<std::shared_ptr<ModuleImpl>>
  loadModuleData(const std::vector<uint8_t> &Bytes, ObjectKind Kind,
                 const std::string &Path) override {
    std::vector<uint8_t> Copy;
    const std::vector<uint8_t> *Data = &Bytes;
    if (Kind == ObjectKind::Ptx && (Bytes.empty() || Bytes.back() != 0)) {
      Copy = Bytes;
      Copy.push_back(0); // PTX is passed as a NUL-terminated string.
      Data = &Copy;
    }
    if (Error E = activate())
      return E;
    char Log[4096] = {0};
    int Options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Values[] = {Log, reinterpret_cast<void *>(sizeof(Log))};
    CUmodule Mod;
    CUresult R = Api.cuModuleLoadDataEx(&Mod, Data->data(), 2, Options, Values);
    if (Error E = Api.check(R, ("cuModuleLoadData(" + Path + ")").c_str()))
      return makeError(E.message() + (Log[0] ? std::string("\n") + Log : ""));
    return std::shared_ptr<ModuleImpl>(
        std::make_shared<CudaModule>(Api, Ctx, Mod, MaxShared));
  }

  Expected<void *> createStream() override {
    if (Error E = activate())
      return E;
    CUstream S;
    if (Error E = Api.check(Api.cuStreamCreate(&S, 0), "cuStreamCreate"))
      return E;
    return static_cast<void *>(S);
  }
  void destroyStream(void *S) override {
    if (!activate())
      (void)Api.cuStreamDestroy(static_cast<CUstream>(S));
  }
  Error synchronize(void *S) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.cuStreamSynchronize(static_cast<CUstream>(S)),
                     "cuStreamSynchronize");
  }
  Error synchronizeDevice() override {
    if (Error E = activate())
      return E;
    return Api.check(Api.cuCtxSynchronize(), "cuCtxSynchronize");
  }
  Expected<void *> recordEvent(void *S) override {
    if (Error E = activate())
      return E;
    CUevent Ev;
    if (Error E = Api.check(Api.cuEventCreate(&Ev, 0), "cuEventCreate"))
      return E;
    if (Error E = Api.check(Api.cuEventRecord(Ev, static_cast<CUstream>(S)),
                            "cuEventRecord")) {
      (void)Api.cuEventDestroy(Ev);
      return E;
    }
    return static_cast<void *>(Ev);
  }
  void destroyEvent(void *Ev) override {
    if (!activate())
      (void)Api.cuEventDestroy(static_cast<CUevent>(Ev));
  }
  Expected<void *> holdStream(void *S) override {
    if (!Api.cuLaunchHostFunc)
      return nullptr;
    if (Error E = activate())
      return E;
    auto *Gate = new StreamGate;
    if (Error E = Api.check(Api.cuLaunchHostFunc(static_cast<CUstream>(S),
                                                 &StreamGate::wait, Gate),
                            "cuLaunchHostFunc")) {
      delete Gate;
      return E;
    }
    return static_cast<void *>(Gate);
  }
  Error encodeTensorMap(const TensorMapRequest &R, void *Out128) override;
  Expected<float> elapsedMs(void *Start, void *End) override {
    if (Error E = activate())
      return E;
    if (Error E = Api.check(Api.cuEventSynchronize(static_cast<CUevent>(End)),
                            "cuEventSynchronize"))
      return E;
    float Ms = 0;
    if (Error E =
            Api.check(Api.cuEventElapsedTime(&Ms, static_cast<CUevent>(Start),
                                             static_cast<CUevent>(End)),
                      "cuEventElapsedTime"))
      return E;
    return Ms;
  }

private:
  const CudaApi &Api;
  CUcontext Ctx;
  int MaxShared;
};

Error CudaDevice::encodeTensorMap(const TensorMapRequest &R, void *Out128) {
  if (!Api.cuTensorMapEncodeTiled)
    return makeError("the CUDA driver " + Api.Lib->path() +
                     " lacks cuTensorMapEncodeTiled (CUDA 12 or later is "
                     "needed for the kernel's TMA copies)");
  int Type = R.ElementBytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
             : R.ElementBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
             : R.ElementBytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                   : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  int Swizzle = R.SwizzleBytes == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
                : R.SwizzleBytes == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                : R.SwizzleBytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                        : CU_TENSOR_MAP_SWIZZLE_NONE;
  // The driver takes the strides of dimensions 1.. only (dimension 0 is
  // dense).
  uint64_t Strides[5] = {0, 0, 0, 0, 0};
  for (unsigned I = 1; I < R.Rank; ++I)
    Strides[I - 1] = R.Strides[I];
  const uint32_t ElementStrides[5] = {1, 1, 1, 1, 1};
  if (Error E = activate())
    return E;
  return Api.check(
      Api.cuTensorMapEncodeTiled(Out128, Type, R.Rank,
                                 reinterpret_cast<void *>(R.Address),
                                 R.Dims.data(), Strides, R.Box.data(),
                                 ElementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 Swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "cuTensorMapEncodeTiled");
}

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createCudaDevice(int Ordinal) {
  Expected<const CudaApi *> ApiOr = loadCuda();
  if (!ApiOr)
    return ApiOr.takeError();
  const CudaApi &Api = **ApiOr;
  int Count = 0;
  if (Error E = Api.check(Api.cuDeviceGetCount(&Count), "cuDeviceGetCount"))
    return E;
  if (Ordinal >= Count)
    return makeError("no CUDA device cuda:" + std::to_string(Ordinal) + " (" +
                     std::to_string(Count) + " present)");
  CUdevice Dev;
  if (Error E = Api.check(Api.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet"))
    return E;
  CUcontext Ctx;
  if (Error E = Api.check(Api.cuDevicePrimaryCtxRetain(&Ctx, Dev),
                          "cuDevicePrimaryCtxRetain"))
    return E;
  char Name[256] = {0};
  if (Error E = Api.check(Api.cuDeviceGetName(Name, sizeof(Name) - 1, Dev),
                          "cuDeviceGetName"))
    return E;
  int Major = 0, Minor = 0, MaxShared = 0, SMs = 0;
  for (auto [Value, Attribute] :
       {std::pair{&SMs, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        std::pair{&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        std::pair{&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        std::pair{&MaxShared,
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}})
    if (Error E = Api.check(Api.cuDeviceGetAttribute(Value, Attribute, Dev),
                            "cuDeviceGetAttribute"))
      return E;
  auto D = std::make_shared<CudaDevice>(Api, Ctx, MaxShared);
  D->P = Platform::Cuda;
  D->Ordinal = Ordinal;
  D->Name = Name;
  D->Arch = "sm_" + std::to_string(Major * 10 + Minor);
  D->ComputeUnits = static_cast<unsigned>(SMs);
  D->SharedPerBlock = static_cast<uint64_t>(MaxShared);
  return std::shared_ptr<DeviceImpl>(D);
}
