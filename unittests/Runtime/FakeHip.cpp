//===- FakeHip.cpp - A simulated libamdhip64 for testing the HIP backend --===//
//
// Exports the HIP entry points the runtime resolves, backed by host memory.
// A launch of a function named "vadd" runs C = A + B over f32 on the host
// from the kernel parameters. Environment: TILE_FAKE_HIP_INIT (hipInit's
// result, default 0). Two devices exist.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {
constexpr int Success = 0;
constexpr int InvalidValue = 1;
constexpr int NoDevice = 100;
constexpr int InvalidImage = 200;
constexpr int NotFound = 500;

const fake::ErrorText Errors[] = {
    {InvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {NoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {InvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {NotFound, "hipErrorNotFound", "named symbol not found"},
};

int ModuleToken;
FakeLaunch Last;
int Current = -1;
} // namespace

extern "C" {
const FakeLaunch *fakeHipLastLaunch() { return &Last; }

int hipInit(unsigned) {
  const char *V = std::getenv("TILE_FAKE_HIP_INIT");
  return V ? std::atoi(V) : Success;
}
const char *hipGetErrorName(int R) {
  const fake::ErrorText *E = fake::findError(Errors, R);
  return E ? E->Name : "hipErrorUnknown";
}
const char *hipGetErrorString(int R) {
  const fake::ErrorText *E = fake::findError(Errors, R);
  return E ? E->Text : "unknown error";
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
  fake::recordLaunch(Last, Gx, Gy, Gz, Bx, By, Bz, Shared, Stream);
  if (Extra || Current < 0)
    return InvalidValue;
  if (*static_cast<std::string *>(F) == "vadd")
    fake::runVadd(Params, Gx, Bx);
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

int hipMemsetD8Async(void *Dst, unsigned char V, size_t Bytes, void *Stream) {
  std::memset(Dst, V, Bytes);
  Last.FillStream = Stream;
  return Success;
}

int hipStreamCreate(void **S) {
  *S = fake::newStream();
  return Success;
}
int hipStreamDestroy(void *S) {
  fake::deleteStream(S);
  return Success;
}
int hipStreamSynchronize(void *) { return Success; }
int hipEventCreate(void **E) {
  *E = fake::newEvent();
  return Success;
}
int hipEventDestroy(void *E) {
  fake::deleteEvent(E);
  return Success;
}
int hipEventRecord(void *E, void *) {
  fake::recordEvent(E);
  return Success;
}
int hipEventSynchronize(void *) { return Success; }
int hipEventElapsedTime(float *Ms, void *Start, void *End) {
  *Ms = fake::elapsedMs(Start, End);
  return Success;
}
}
