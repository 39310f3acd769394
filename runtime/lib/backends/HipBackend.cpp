//===- HipBackend.cpp - The HIP module API, loaded with dlopen ------------===//
//
// Part of tilec. No HIP header is needed: the few types used are declared
// here. libamdhip64.so is opened at the first Device::open("hip:N")
// (TILE_HIP_LIBRARY overrides the file name); every call is checked and
// turned into an error naming the call and hipGetErrorName/String. The
// architecture (gfx942, ...) is not queried (hipDeviceProp_t's layout
// changes between ROCm releases): set TILE_HIP_ARCH to name it.
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"

#include <cstdlib>
#include <mutex>

using namespace tile::rt;

namespace {

using hipError_t = int;
using hipDevice_t = int;
using hipDeviceptr_t = void *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;

constexpr hipError_t hipSuccess = 0;

struct HipApi {
  std::shared_ptr<DynamicLibrary> Lib;
  hipError_t (*hipInit)(unsigned);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetName)(char *, int, hipDevice_t);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *, hipFunction_t, int, size_t);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t, void *, size_t);
  hipError_t (*hipMemcpyDtoH)(void *, hipDeviceptr_t, size_t);
  hipError_t (*hipMemsetD8)(hipDeviceptr_t, unsigned char, size_t);
  hipError_t (*hipMemsetD8Async)(hipDeviceptr_t, unsigned char, size_t,
                                 hipStream_t);
  hipError_t (*hipStreamCreate)(hipStream_t *);
  hipError_t (*hipStreamDestroy)(hipStream_t);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  /// Optional: null when the runtime lacks it; Stream::hold() then holds
  /// nothing.
  hipError_t (*hipLaunchHostFunc)(hipStream_t, void (*)(void *), void *);

  Error check(hipError_t R, const std::string &Call) const {
    if (R == hipSuccess)
      return Error::success();
    const char *Name = hipGetErrorName(R);
    const char *Text = hipGetErrorString(R);
    return makeError(
        Call + " failed: " + (Name ? Name : "HIP error " + std::to_string(R)) +
        (Text ? std::string(" (") + Text + ")" : ""));
  }
};

template <typename Fn>
void resolve(const DynamicLibrary &Lib, Fn &Ptr, const char *Name,
             std::string &Missing) {
  Ptr = reinterpret_cast<Fn>(Lib.symbol(Name));
  if (!Ptr)
    Missing += std::string(Missing.empty() ? "" : ", ") + Name;
}

Expected<const HipApi *> loadHip() {
  static std::mutex Lock;
  static HipApi *Api = nullptr;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Api)
    return static_cast<const HipApi *>(Api);
  Expected<std::shared_ptr<DynamicLibrary>> Lib =
      DynamicLibrary::open({"libamdhip64.so", "libamdhip64.so.6",
                            "libamdhip64.so.5", "/opt/rocm/lib/libamdhip64.so"},
                           "TILE_HIP_LIBRARY");
  if (!Lib)
    return makeError("no HIP runtime found (" + Lib.message() + ")");
  auto A = std::make_unique<HipApi>();
  A->Lib = *Lib;
  const DynamicLibrary &L = **Lib;
  std::string Missing;
#define TILE_RESOLVE(Field) resolve(L, A->Field, #Field, Missing)
  TILE_RESOLVE(hipInit);
  TILE_RESOLVE(hipGetErrorName);
  TILE_RESOLVE(hipGetErrorString);
  TILE_RESOLVE(hipGetDeviceCount);
  TILE_RESOLVE(hipSetDevice);
  TILE_RESOLVE(hipDeviceGetName);
  TILE_RESOLVE(hipDeviceSynchronize);
  TILE_RESOLVE(hipModuleLoadData);
  TILE_RESOLVE(hipModuleUnload);
  TILE_RESOLVE(hipModuleGetFunction);
  TILE_RESOLVE(hipModuleLaunchKernel);
  // Optional (persistent launches assume one program per CU without it).
  A->hipModuleOccupancyMaxActiveBlocksPerMultiprocessor = reinterpret_cast<
      decltype(A->hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)>(
      L.symbol("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"));
  TILE_RESOLVE(hipMalloc);
  TILE_RESOLVE(hipFree);
  TILE_RESOLVE(hipMemcpyHtoD);
  TILE_RESOLVE(hipMemcpyDtoH);
  TILE_RESOLVE(hipMemsetD8);
  TILE_RESOLVE(hipMemsetD8Async);
  TILE_RESOLVE(hipStreamCreate);
  TILE_RESOLVE(hipStreamDestroy);
  TILE_RESOLVE(hipStreamSynchronize);
  TILE_RESOLVE(hipEventCreate);
  TILE_RESOLVE(hipEventDestroy);
  TILE_RESOLVE(hipEventRecord);
  TILE_RESOLVE(hipEventSynchronize);
  TILE_RESOLVE(hipEventElapsedTime);
#undef TILE_RESOLVE
  A->hipLaunchHostFunc = reinterpret_cast<decltype(A->hipLaunchHostFunc)>(
      L.symbol("hipLaunchHostFunc"));
  if (!Missing.empty())
    return makeError("HIP runtime " + L.path() + " lacks " + Missing);
  if (Error E = A->check(A->hipInit(0), "hipInit"))
    return E;
  Api = A.release(); // Kept for the life of the process.
  return static_cast<const HipApi *>(Api);
}

class HipModule : public ModuleImpl {
public:
  HipModule(const HipApi &Api, int Ordinal, hipModule_t Mod)
      : Api(Api), Ordinal(Ordinal), Mod(Mod) {}
  ~HipModule() override {
    if (Api.hipSetDevice(Ordinal) == hipSuccess)
      (void)Api.hipModuleUnload(Mod);
  }

  Expected<void *> getFunction(const std::string &Name, uint32_t) override {
    if (Error E = Api.check(Api.hipSetDevice(Ordinal), "hipSetDevice"))
      return E;
    hipFunction_t F;
    if (Error E = Api.check(Api.hipModuleGetFunction(&F, Mod, Name.c_str()),
                            "hipModuleGetFunction(" + Name + ")"))
      return E;
    return static_cast<void *>(F);
  }

  Error launch(void *Function, const LaunchConfig &Config,
               const std::array<uint32_t, 3> &Grid, void **Args,
               void *Stream) override {
    if (Error E = Api.check(Api.hipSetDevice(Ordinal), "hipSetDevice"))
      return E;
    return Api.check(Api.hipModuleLaunchKernel(
                         static_cast<hipFunction_t>(Function), Grid[0], Grid[1],
                         Grid[2], Config.ThreadsPerBlock, 1, 1,
                         Config.SharedBytes, static_cast<hipStream_t>(Stream),
                         Args, nullptr),
                     "hipModuleLaunchKernel");
  }

  Expected<uint32_t> residentPerUnit(void *Function,
                                     const LaunchConfig &Config) override {
    if (!Api.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)
      return 1u;
    if (Error E = Api.check(Api.hipSetDevice(Ordinal), "hipSetDevice"))
      return E;
    int Blocks = 0;
    if (Error E = Api.check(
            Api.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
                &Blocks, static_cast<hipFunction_t>(Function),
                static_cast<int>(Config.ThreadsPerBlock), Config.SharedBytes),
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"))
      return E;
    return uint32_t(Blocks > 1 ? Blocks : 1);
  }

private:
  const HipApi &Api;
  int Ordinal;
  hipModule_t Mod;
};

class HipDevice : public DeviceImpl {
public:
  explicit HipDevice(const HipApi &Api) : Api(Api) {}

  Error activate() {
    return Api.check(Api.hipSetDevice(Ordinal), "hipSetDevice");
  }

  Expected<uint64_t> allocate(uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    void *P = nullptr;
    if (Error E = Api.check(Api.hipMalloc(&P, Bytes ? Bytes : 1),
                            "hipMalloc(" + std::to_string(Bytes) + ")"))
      return E;
    return reinterpret_cast<uint64_t>(P);
  }
  void release(uint64_t Address) override {
    if (!activate())
      (void)Api.hipFree(reinterpret_cast<void *>(Address));
  }
  Error upload(uint64_t Dst, const void *Src, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.hipMemcpyHtoD(reinterpret_cast<void *>(Dst),
                                       const_cast<void *>(Src), Bytes),
                     "hipMemcpyHtoD");
  }
  Error download(void *Dst, uint64_t Src, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    return Api.check(
        Api.hipMemcpyDtoH(Dst, reinterpret_cast<void *>(Src), Bytes),
        "hipMemcpyDtoH");
  }
  Error fill(uint64_t Dst, uint8_t Byte, uint64_t Bytes) override {
    if (Error E = activate())
      return E;
    if (Error E = Api.check(
            Api.hipMemsetD8(reinterpret_cast<void *>(Dst), Byte, Bytes),
            "hipMemsetD8"))
      return E;
    return Api.check(Api.hipDeviceSynchronize(), "hipDeviceSynchronize");
  }
  Error fillAsync(uint64_t Dst, uint8_t Byte, uint64_t Bytes,
                  void *Stream) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.hipMemsetD8Async(reinterpret_cast<void *>(Dst), Byte,
                                          Bytes,
                                          static_cast<hipStream_t>(Stream)),
                     "hipMemsetD8Async");
  }

  Expected<std::shared_ptr<ModuleImpl>>
  loadModuleData(const std::vector<uint8_t> &Data, ObjectKind,
                 const std::string &Path) override {
    if (Error E = activate())
      return E;
    hipModule_t Mod;
    if (Error E = Api.check(Api.hipModuleLoadData(&Mod, Data.data()),
                            "hipModuleLoadData(" + Path + ")"))
      return E;
    return std::shared_ptr<ModuleImpl>(
        std::make_shared<HipModule>(Api, Ordinal, Mod));
  }

  Expected<void *> createStream() override {
    if (Error E = activate())
      return E;
    hipStream_t S;
    if (Error E = Api.check(Api.hipStreamCreate(&S), "hipStreamCreate"))
      return E;
    return static_cast<void *>(S);
  }
  void destroyStream(void *S) override {
    if (!activate())
      (void)Api.hipStreamDestroy(static_cast<hipStream_t>(S));
  }
  Error synchronize(void *S) override {
    if (Error E = activate())
      return E;
    return Api.check(Api.hipStreamSynchronize(static_cast<hipStream_t>(S)),
                     "hipStreamSynchronize");
  }
  Error synchronizeDevice() override {
    if (Error E = activate())
      return E;
    return Api.check(Api.hipDeviceSynchronize(), "hipDeviceSynchronize");
  }
  Expected<void *> recordEvent(void *S) override {
    if (Error E = activate())
      return E;
    hipEvent_t Ev;
    if (Error E = Api.check(Api.hipEventCreate(&Ev), "hipEventCreate"))
      return E;
    if (Error E = Api.check(Api.hipEventRecord(Ev, static_cast<hipStream_t>(S)),
                            "hipEventRecord")) {
      (void)Api.hipEventDestroy(Ev);
      return E;
    }
    return static_cast<void *>(Ev);
  }
  void destroyEvent(void *Ev) override {
    if (!activate())
      (void)Api.hipEventDestroy(static_cast<hipEvent_t>(Ev));
  }
  Expected<void *> holdStream(void *S) override {
    if (!Api.hipLaunchHostFunc)
      return nullptr;
    if (Error E = activate())
      return E;
    auto *Gate = new StreamGate;
    if (Error E = Api.check(Api.hipLaunchHostFunc(static_cast<hipStream_t>(S),
                                                  &StreamGate::wait, Gate),
                            "hipLaunchHostFunc")) {
      delete Gate;
      return E;
    }
    return static_cast<void *>(Gate);
  }
  Expected<float> elapsedMs(void *Start, void *End) override {
    if (Error E = activate())
      return E;
    if (Error E =
            Api.check(Api.hipEventSynchronize(static_cast<hipEvent_t>(End)),
                      "hipEventSynchronize"))
      return E;
    float Ms = 0;
    if (Error E = Api.check(
            Api.hipEventElapsedTime(&Ms, static_cast<hipEvent_t>(Start),
                                    static_cast<hipEvent_t>(End)),
            "hipEventElapsedTime"))
      return E;
    return Ms;
  }

private:
  const HipApi &Api;
};

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createHipDevice(int Ordinal) {
  Expected<const HipApi *> ApiOr = loadHip();
  if (!ApiOr)
    return ApiOr.takeError();
  const HipApi &Api = **ApiOr;
  int Count = 0;
  if (Error E = Api.check(Api.hipGetDeviceCount(&Count), "hipGetDeviceCount"))
    return E;
  if (Ordinal >= Count)
    return makeError("no HIP device hip:" + std::to_string(Ordinal) + " (" +
                     std::to_string(Count) + " present)");
  char Name[256] = {0};
  if (Error E = Api.check(Api.hipDeviceGetName(Name, sizeof(Name) - 1, Ordinal),
                          "hipDeviceGetName"))
    return E;
  auto D = std::make_shared<HipDevice>(Api);
  D->P = Platform::Hip;
  D->Ordinal = Ordinal;
  D->Name = Name;
  if (const char *Arch = std::getenv("TILE_HIP_ARCH"))
    D->Arch = Arch;
  return std::shared_ptr<DeviceImpl>(D);
}
