//===- FakeCuda.cpp - A simulated libcuda for testing the CUDA backend ----===//
//
// Exports the driver entry points the runtime resolves, backed by host
// memory, so that the CUDA backend's plumbing (context handling, memory,
// module loading, attributes, launch parameters, events and error
// translation) is tested on machines without a GPU. A launch of a function
// named "vadd" runs C = A + B over f32 on the host from the kernel
// parameters, exactly as the real kernel would read them.
//
// Environment: TILE_FAKE_CUDA_INIT (cuInit's result, default 0),
// TILE_FAKE_CUDA_DEVICES (device count, default 1).
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {
constexpr int Success = 0;
constexpr int InvalidValue = 1;
constexpr int NoDevice = 100;
constexpr int InvalidContext = 201;
constexpr int InvalidPtx = 218;
constexpr int NotFound = 500;

const fake::ErrorText Errors[] = {
    {InvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {NoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {InvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {InvalidPtx, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {NotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

int ContextToken;
int ModuleToken;
FakeLaunch Last;

/// Host functions queued by cuLaunchHostFunc: run at the next
/// synchronization (the simulated device runs launches as they are queued,
/// so a host function that holds a stream would otherwise wait for a
/// release that its own caller has not reached yet).
std::vector<std::pair<void (*)(void *), void *>> PendingHostFunctions;

void runHostFunctions() {
  for (auto [Fn, Data] : PendingHostFunctions) {
    Fn(Data);
    ++Last.HostFunctionsRun;
  }
  PendingHostFunctions.clear();
}
/// Like the real driver, the current context is per thread.
thread_local void *CurrentContext = nullptr;
bool noContext() { return CurrentContext != &ContextToken; }

struct Function {
  std::string Name;
  int MaxDynamicShared = 48 * 1024;
};

int envInt(const char *Name, int Default) {
  const char *V = std::getenv(Name);
  return V ? std::atoi(V) : Default;
}
} // namespace

extern "C" {
const FakeLaunch *fakeCudaLastLaunch() { return &Last; }

int cuInit(unsigned) { return envInt("TILE_FAKE_CUDA_INIT", 0); }

int cuGetErrorName(int R, const char **Out) {
  const fake::ErrorText *E = fake::findError(Errors, R);
  *Out = E ? E->Name : nullptr;
  return E ? Success : InvalidValue;
}

int cuGetErrorString(int R, const char **Out) {
  const fake::ErrorText *E = fake::findError(Errors, R);
  *Out = E ? E->Text : nullptr;
  return E ? Success : InvalidValue;
}

int cuDeviceGetCount(int *N) {
  *N = envInt("TILE_FAKE_CUDA_DEVICES", 1);
  return Success;
}
int cuDeviceGet(int *Dev, int Ordinal) {
  *Dev = Ordinal;
  return Success;
}
int cuDeviceGetName(char *Name, int Len, int) {
  std::strncpy(Name, "Fake GPU", Len);
  return Success;
}
int cuDeviceGetAttribute(int *V, int Attr, int) {
  switch (Attr) {
  case 16: // Multiprocessor count.
    *V = 132;
    return Success;
  case 75: // Compute capability major.
    *V = 9;
    return Success;
  case 76: // Minor.
    *V = 0;
    return Success;
  case 97: // Max shared memory per block, opt-in.
    *V = 227 * 1024;
    return Success;
  }
  return InvalidValue;
}
int cuDevicePrimaryCtxRetain(void **Ctx, int) {
  *Ctx = &ContextToken;
  return Success;
}
int cuCtxSetCurrent(void *Ctx) {
  CurrentContext = Ctx;
  return Ctx == &ContextToken ? Success : InvalidContext;
}
int cuCtxSynchronize() {
  ++Last.Synchronizations;
  runHostFunctions();
  return Success;
}

int cuModuleLoadDataEx(void **Mod, const void *Image, unsigned NumOptions,
                       int *Options, void **Values) {
  if (noContext())
    return InvalidContext;
  const char *Text = static_cast<const char *>(Image);
  if (std::strncmp(Text, "BAD", 3) == 0) {
    for (unsigned I = 0; I < NumOptions; ++I)
      if (Options[I] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::strcpy(static_cast<char *>(Values[I]),
                    "ptxas fatal: line 1: syntax error");
    return InvalidPtx;
  }
  *Mod = &ModuleToken;
  return Success;
}
int cuModuleUnload(void *) { return Success; }
int cuModuleGetFunction(void **F, void *Mod, const char *Name) {
  if (noContext())
    return InvalidContext;
  if (Mod != &ModuleToken || std::strcmp(Name, "missing") == 0)
    return NotFound;
  *F = new Function{Name}; // Leaked: functions live as long as modules.
  return Success;
}
int cuFuncSetAttribute(void *F, int Attr, int Value) {
  if (Attr != 8)
    return InvalidValue;
  static_cast<Function *>(F)->MaxDynamicShared = Value;
  Last.SetAttributeValue = Value;
  return Success;
}
/// CUlaunchConfig and CUlaunchAttribute as cuda.h lays them out.
struct LaunchAttribute {
  int Id;
  char Pad[4];
  union alignas(8) {
    char Bytes[64];
    int Int;
  } Value;
};
struct LaunchConfig {
  unsigned Gx, Gy, Gz, Bx, By, Bz, Shared;
  void *Stream;
  LaunchAttribute *Attrs;
  unsigned NumAttrs;
};

int cuLaunchKernel(void *F, unsigned Gx, unsigned Gy, unsigned Gz, unsigned Bx,
                   unsigned By, unsigned Bz, unsigned Shared, void *Stream,
                   void **Params, void **Extra);

/// Records the attributes, then launches as cuLaunchKernel.
int cuLaunchKernelEx(const LaunchConfig *C, void *F, void **Params,
                     void **Extra) {
  int Serialization = -1;
  for (unsigned I = 0; I < C->NumAttrs; ++I)
    if (C->Attrs[I].Id == 6) // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_...
      Serialization = C->Attrs[I].Value.Int;
  int R = cuLaunchKernel(F, C->Gx, C->Gy, C->Gz, C->Bx, C->By, C->Bz, C->Shared,
                         C->Stream, Params, Extra);
  Last.LastLaunchEx = true;
  Last.ProgrammaticSerialization = Serialization;
  return R;
}

int cuLaunchKernel(void *F, unsigned Gx, unsigned Gy, unsigned Gz, unsigned Bx,
                   unsigned By, unsigned Bz, unsigned Shared, void *Stream,
                   void **Params, void **Extra) {
  if (noContext())
    return InvalidContext;
  auto *Fn = static_cast<Function *>(F);
  fake::recordLaunch(Last, Gx, Gy, Gz, Bx, By, Bz, Shared, Stream);
  Last.LastLaunchEx = false;
  Last.ProgrammaticSerialization = -1;
  if (!PendingHostFunctions.empty())
    ++Last.HeldLaunches;
  if (Extra || static_cast<int>(Shared) > Fn->MaxDynamicShared)
    return InvalidValue;
  if (Fn->Name == "vadd")
    fake::runVadd(Params, Gx, Bx);
  if (Fn->Name == "tma") {
    std::memcpy(Last.MapParam, Params[3], sizeof(Last.MapParam));
    Last.MapParamAligned = reinterpret_cast<uintptr_t>(Params[3]) % 64 == 0;
  }
  return Success;
}

/// Records its arguments and writes "FAKETMAP" and the rank into the map.
int cuTensorMapEncodeTiled(void *Map, int DataType, unsigned Rank,
                           void *Address, const unsigned long long *Dims,
                           const unsigned long long *Strides,
                           const unsigned *Box, const unsigned *ElementStrides,
                           int Interleave, int Swizzle, int L2Promotion,
                           int OobFill) {
  FakeTensorMapEncode &E = Last.Encode;
  ++E.Calls;
  if (Rank < 1 || Rank > 5 || reinterpret_cast<uintptr_t>(Map) % 64 != 0)
    return InvalidValue;
  E.DataType = DataType;
  E.Rank = Rank;
  E.Address = Address;
  for (unsigned I = 0; I < Rank; ++I) {
    E.Dims[I] = Dims[I];
    E.Box[I] = Box[I];
    E.ElementStrides[I] = ElementStrides[I];
    if (I + 1 < Rank)
      E.Strides[I] = Strides[I];
  }
  E.Interleave = Interleave;
  E.Swizzle = Swizzle;
  E.L2Promotion = L2Promotion;
  E.OobFill = OobFill;
  std::memset(Map, 0, 128);
  std::memcpy(Map, "FAKETMAP", 8);
  std::memcpy(static_cast<char *>(Map) + 8, &Rank, sizeof(Rank));
  return Success;
}

int cuMemAlloc_v2(unsigned long long *Ptr, size_t Bytes) {
  if (noContext())
    return InvalidContext;
  if (Bytes == 0)
    return InvalidValue;
  *Ptr = reinterpret_cast<unsigned long long>(std::malloc(Bytes));
  ++Last.LiveAllocations;
  ++Last.Allocations;
  return Success;
}
int cuMemFree_v2(unsigned long long Ptr) {
  std::free(reinterpret_cast<void *>(Ptr));
  --Last.LiveAllocations;
  return Success;
}
int cuMemcpyHtoD_v2(unsigned long long Dst, const void *Src, size_t Bytes) {
  if (noContext())
    return InvalidContext;
  std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  return Success;
}
int cuMemcpyDtoH_v2(void *Dst, unsigned long long Src, size_t Bytes) {
  if (noContext())
    return InvalidContext;
  std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
  return Success;
}
int cuMemsetD8_v2(unsigned long long Dst, unsigned char V, size_t Bytes) {
  if (noContext())
    return InvalidContext;
  std::memset(reinterpret_cast<void *>(Dst), V, Bytes);
  return Success;
}

int cuMemsetD8Async(unsigned long long Dst, unsigned char V, size_t Bytes,
                    void *Stream) {
  if (noContext())
    return InvalidContext;
  std::memset(reinterpret_cast<void *>(Dst), V, Bytes);
  Last.FillStream = Stream;
  return Success;
}

int cuStreamCreate(void **S, unsigned) {
  if (noContext())
    return InvalidContext;
  *S = fake::newStream();
  return Success;
}
int cuStreamDestroy_v2(void *S) {
  fake::deleteStream(S);
  return Success;
}
int cuStreamSynchronize(void *) {
  ++Last.Synchronizations;
  runHostFunctions();
  return Success;
}
int cuLaunchHostFunc(void *, void (*Fn)(void *), void *Data) {
  if (noContext())
    return InvalidContext;
  PendingHostFunctions.emplace_back(Fn, Data);
  ++Last.HostFunctions;
  return Success;
}

int cuEventCreate(void **E, unsigned) {
  if (noContext())
    return InvalidContext;
  *E = fake::newEvent();
  return Success;
}
int cuEventDestroy_v2(void *E) {
  fake::deleteEvent(E);
  return Success;
}
int cuEventRecord(void *E, void *) {
  fake::recordEvent(E);
  return Success;
}
int cuEventSynchronize(void *) {
  runHostFunctions();
  return Success;
}
int cuEventElapsedTime(float *Ms, void *Start, void *End) {
  *Ms = fake::elapsedMs(Start, End);
  return Success;
}
}
