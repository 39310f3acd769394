//===- DriverTest.cpp - CUDA/HIP driver loading error paths ---------------===//
//
// These run everywhere (label unit): the driver library is redirected with
// TILE_CUDA_LIBRARY / TILE_HIP_LIBRARY to files that are not drivers. The
// CUDA backend against a simulated driver is FakeCudaTest.cpp; tests that
// need a real GPU are GpuTest.cpp (label gpu).
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace tile::rt;

namespace {

/// Sets an environment variable for the scope.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const std::string &Value) : Name(Name) {
    setenv(Name, Value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(Name); }

private:
  const char *Name;
};

bool startsWith(const std::string &S, const std::string &Prefix) {
  return S.rfind(Prefix, 0) == 0;
}

TEST(DriverTest, CudaDriverNotFound) {
  ScopedEnv Env("TILE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
  Expected<Device> D = Device::open("cuda:0");
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.message(), "no CUDA driver found (tried:\n"
                                      "  /nonexistent/libcuda.so.1: "))
      << D.message();
  // Failure is not cached: the same answer again.
  EXPECT_TRUE(
      startsWith(Device::open("cuda").message(), "no CUDA driver found"));
  // The GPU tests skip here (GpuTest.cpp).
  EXPECT_TRUE(test::cudaDeviceAbsent(D.message()));
}

TEST(DriverTest, HipRuntimeNotFound) {
  ScopedEnv Env("TILE_HIP_LIBRARY", "/nonexistent/libamdhip64.so");
  Expected<Device> D = Device::open("hip");
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.message(), "no HIP runtime found (tried:\n"
                                      "  /nonexistent/libamdhip64.so: "))
      << D.message();
}

TEST(DriverTest, LibraryWithoutTheEntryPoints) {
  {
    ScopedEnv Env("TILE_CUDA_LIBRARY", TILE_TEST_KERNELS);
    Expected<Device> D = Device::open("cuda");
    ASSERT_FALSE(D);
    EXPECT_EQ(D.message(), std::string("CUDA driver ") + TILE_TEST_KERNELS +
                               " lacks cuInit, cuGetErrorName, "
                               "cuGetErrorString, cuDeviceGetCount, "
                               "cuDeviceGet, cuDeviceGetName, "
                               "cuDeviceGetAttribute, "
                               "cuDevicePrimaryCtxRetain, cuCtxSetCurrent, "
                               "cuCtxSynchronize, cuModuleLoadDataEx, "
                               "cuModuleUnload, cuModuleGetFunction, "
                               "cuFuncSetAttribute, cuLaunchKernel, "
                               "cuMemAlloc_v2, cuMemFree_v2, cuMemcpyHtoD_v2, "
                               "cuMemcpyDtoH_v2, cuMemsetD8_v2, "
                               "cuMemsetD8Async, "
                               "cuStreamCreate, cuStreamDestroy_v2, "
                               "cuStreamSynchronize, cuEventCreate, "
                               "cuEventDestroy_v2, cuEventRecord, "
                               "cuEventSynchronize, cuEventElapsedTime");
    // A driver is there, so the GPU tests fail rather than skip.
    EXPECT_FALSE(test::cudaDeviceAbsent(D.message()));
  }
  ScopedEnv Env("TILE_HIP_LIBRARY", TILE_TEST_KERNELS);
  Expected<Device> D = Device::open("hip:0");
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.message(), std::string("HIP runtime ") +
                                          TILE_TEST_KERNELS +
                                          " lacks hipInit, hipGetErrorName"))
      << D.message();
}

} // namespace
