//===- FakeCuda.cpp - A stand-in libcuda for the driver error paths -------===//
//
// Exports the driver entry points the runtime resolves. cuInit returns the
// value of TILE_FAKE_CUDA_INIT (default 0); there are no devices; every
// other call fails with CUDA_ERROR_NOT_SUPPORTED (801).
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

namespace {
constexpr int NotSupported = 801;
} // namespace

extern "C" {
int cuInit(unsigned) {
  const char *V = std::getenv("TILE_FAKE_CUDA_INIT");
  return V ? std::atoi(V) : 0;
}
int cuGetErrorName(int R, const char **Out) {
  *Out = R == 100   ? "CUDA_ERROR_NO_DEVICE"
         : R == 801 ? "CUDA_ERROR_NOT_SUPPORTED"
                    : nullptr;
  return *Out ? 0 : 1;
}
int cuGetErrorString(int R, const char **Out) {
  *Out = R == 100   ? "no CUDA-capable device is detected"
         : R == 801 ? "operation not supported"
                    : nullptr;
  return *Out ? 0 : 1;
}
int cuDeviceGetCount(int *N) {
  *N = 0;
  return 0;
}
#define TILE_FAKE(Name)                                                        \
  int Name() { return NotSupported; }
TILE_FAKE(cuDeviceGet)
TILE_FAKE(cuDeviceGetName)
TILE_FAKE(cuDeviceGetAttribute)
TILE_FAKE(cuDevicePrimaryCtxRetain)
TILE_FAKE(cuCtxSetCurrent)
TILE_FAKE(cuCtxSynchronize)
TILE_FAKE(cuModuleLoadDataEx)
TILE_FAKE(cuModuleUnload)
TILE_FAKE(cuModuleGetFunction)
TILE_FAKE(cuFuncSetAttribute)
TILE_FAKE(cuLaunchKernel)
TILE_FAKE(cuMemAlloc_v2)
TILE_FAKE(cuMemFree_v2)
TILE_FAKE(cuMemcpyHtoD_v2)
TILE_FAKE(cuMemcpyDtoH_v2)
TILE_FAKE(cuMemsetD8_v2)
TILE_FAKE(cuStreamCreate)
TILE_FAKE(cuStreamDestroy_v2)
TILE_FAKE(cuStreamSynchronize)
TILE_FAKE(cuEventCreate)
TILE_FAKE(cuEventDestroy_v2)
TILE_FAKE(cuEventRecord)
TILE_FAKE(cuEventSynchronize)
TILE_FAKE(cuEventElapsedTime)
#undef TILE_FAKE
}
