//===- FakeHip.cpp - A simulated libamdhip64 for testing the HIP backend --===//
//
// Exports the HIP entry points the runtime resolves, backed by host memory.
// A launch of a function named "vadd" runs C = A + B over f32 on the host
// from the kernel parameters. Environment: TILE_FAKE_HIP_INIT (hipInit's
// result, default 0). Two devices exist.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
constexpr int Success = 0;
constexpr int InvalidValue = 1;
constexpr int NoDevice = 100;
constexpr int InvalidImage = 200;
constexpr int NotFound = 500;

int ModuleToken;
FakeLaunch Last;
int Current = -1;

using Clock = std::chrono::steady_clock;
} // namespace

extern "C" {
const FakeLaunch *fakeHipLastLaunch() { return &Last; }

int hipInit(unsigned) {
  const char *V = std::getenv("TILE_FAKE_HIP_INIT");
  return V ? std::atoi(V) : Success;
}
const char *hipGetErrorName(int R) {
  switch (R) {
  case InvalidValue:
    return "hipErrorInvalidValue";
  case NoDevice:
    return "hipErrorNoDevice";
  case InvalidImage:
    return "hipErrorInvalidImage";
  case NotFound:
    return "hipErrorNotFound";
  }
  return "hipErrorUnknown";
}
const char *hipGetErrorString(int R) {
  switch (R) {
  case InvalidValue:
    return "invalid argument";
  case NoDevice:
    return "no ROCm-capable device is detected";
  case InvalidImage:
    return "device kernel image is invalid";
  case NotFound:
    return "named symbol not found";
  }
  return "unknown error";
}
int hipGetDeviceCount(int *N) {
  *N = 2;
  return Success;
}
int hipSetDevice(int D) {
  if (D < 0 || D >= 2)
    return InvalidValue;
  Current = D;
  return Success;
}
int hipDeviceGetName(char *Name, int Len, int D) {
  std::strncpy(Name, D == 0 ? "Fake AMD 0" : "Fake AMD 1", Len);
  return Success;
}
int hipDeviceSynchronize() { return Current >= 0 ? Success : InvalidValue; }

int hipModuleLoadData(void **Mod, const void *Image) {
  if (std::strncmp(static_cast<const char *>(Image), "BAD", 3) == 0)
    return InvalidImage;
  *Mod = &ModuleToken;
  return Success;
}
int hipModuleUnload(void *) { return Success; }
int hipModuleGetFunction(void **F, void *Mod, const char *Name) {
  if (Mod != &ModuleToken || std::strcmp(Name, "missing") == 0)
    return NotFound;
  *F = new std::string(Name); // Leaked: functions live as long as modules.
  return Success;
}
int hipModuleLaunchKernel(void *F, unsigned Gx, unsigned Gy, unsigned Gz,
                          unsigned Bx, unsigned By, unsigned Bz,
                          unsigned Shared, void *Stream, void **Params,
                          void **Extra) {
  Last.Grid[0] = Gx, Last.Grid[1] = Gy, Last.Grid[2] = Gz;
  Last.Block[0] = Bx, Last.Block[1] = By, Last.Block[2] = Bz;
  Last.Shared = Shared;
  Last.Stream = Stream;
  if (Extra || Current < 0)
    return InvalidValue;
  if (*static_cast<std::string *>(F) == "vadd") {
    auto *A = *static_cast<float **>(Params[0]);
    auto *B = *static_cast<float **>(Params[1]);
    auto *C = *static_cast<float **>(Params[2]);
    int N = *static_cast<int *>(Params[3]);
    for (long I = 0; I < N && I < long(Gx) * Bx; ++I)
      C[I] = A[I] + B[I];
  }
  return Success;
}

int hipMalloc(void **Ptr, size_t Bytes) {
  if (Bytes == 0)
    return InvalidValue;
  *Ptr = std::malloc(Bytes);
  ++Last.LiveAllocations;
  return Success;
}
int hipFree(void *Ptr) {
  std::free(Ptr);
  --Last.LiveAllocations;
  return Success;
}
int hipMemcpyHtoD(void *Dst, void *Src, size_t Bytes) {
  std::memcpy(Dst, Src, Bytes);
  return Success;
}
int hipMemcpyDtoH(void *Dst, void *Src, size_t Bytes) {
  std::memcpy(Dst, Src, Bytes);
  return Success;
}
int hipMemsetD8(void *Dst, unsigned char V, size_t Bytes) {
  std::memset(Dst, V, Bytes);
  return Success;
}

int hipStreamCreate(void **S) {
  *S = new int(0);
  return Success;
}
int hipStreamDestroy(void *S) {
  delete static_cast<int *>(S);
  return Success;
}
int hipStreamSynchronize(void *) { return Success; }
int hipEventCreate(void **E) {
  *E = new Clock::time_point();
  return Success;
}
int hipEventDestroy(void *E) {
  delete static_cast<Clock::time_point *>(E);
  return Success;
}
int hipEventRecord(void *E, void *) {
  *static_cast<Clock::time_point *>(E) = Clock::now();
  return Success;
}
int hipEventSynchronize(void *) { return Success; }
int hipEventElapsedTime(float *Ms, void *Start, void *End) {
  *Ms = std::chrono::duration<float, std::milli>(
            *static_cast<Clock::time_point *>(End) -
            *static_cast<Clock::time_point *>(Start))
            .count();
  return Success;
}
}
