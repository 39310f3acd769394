//===- FakeDriver.h - Shared parts of the simulated drivers -----*- C++ -*-===//
//
// FakeCuda.cpp and FakeHip.cpp simulate libcuda and libamdhip64 on the host;
// what they have in common (the record of the last launch, the vadd kernel
// they execute, events, streams, error tables) lives here, and so does the
// tests' access to the record.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H
#define TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H

#include <chrono>
#include <cstddef>

/// The arguments of the last cuTensorMapEncodeTiled (FakeCuda.cpp).
struct FakeTensorMapEncode {
  int Calls = 0;
  int DataType = -1;
  unsigned Rank = 0;
  void *Address = nullptr;
  unsigned long long Dims[5] = {0, 0, 0, 0, 0};
  unsigned long long Strides[5] = {0, 0, 0, 0, 0}; ///< Rank - 1 of them.
  unsigned Box[5] = {0, 0, 0, 0, 0};
  unsigned ElementStrides[5] = {0, 0, 0, 0, 0};
  int Interleave = -1, Swizzle = -1, L2Promotion = -1, OobFill = -1;
};

/// The last launch and other observations of a simulated driver.
struct FakeLaunch {
  unsigned Grid[3] = {0, 0, 0};
  unsigned Block[3] = {0, 0, 0};
  unsigned Shared = 0;
  void *Stream = nullptr;
  int SetAttributeValue = -1;
  void *FillStream = nullptr; ///< Stream of the last asynchronous fill.
  int LiveAllocations = 0;
  int Launches = 0;         ///< Every launch call.
  int Allocations = 0;      ///< Every allocation call.
  int Synchronizations = 0; ///< Every context or stream synchronization.
  int HostFunctions = 0;    ///< cuLaunchHostFunc calls (FakeCuda.cpp).
  int HostFunctionsRun = 0; ///< Of those, run (at a synchronization).
  /// Launches queued while a host function was pending (held by it).
  int HeldLaunches = 0;
  /// Whether the last launch came through cuLaunchKernelEx, and the value
  /// of its programmatic-stream-serialization attribute (-1: none).
  bool LastLaunchEx = false;
  int ProgrammaticSerialization = -1;
  FakeTensorMapEncode Encode;
  /// A launch of a function named "tma": its parameter 3 (the tensor map
  /// after A, M, N), and whether it was 64-byte aligned.
  unsigned char MapParam[128] = {};
  bool MapParamAligned = false;
};

extern "C" const FakeLaunch *fakeCudaLastLaunch();
extern "C" const FakeLaunch *fakeHipLastLaunch();

namespace fake {

/// A driver error code with its name and description.
struct ErrorText {
  int Code;
  const char *Name;
  const char *Text;
};

/// The entry of \p Code in \p Table, or null.
template <size_t N>
const ErrorText *findError(const ErrorText (&Table)[N], int Code) {
  for (const ErrorText &E : Table)
    if (E.Code == Code)
      return &E;
  return nullptr;
}

/// Records the launch geometry in \p Last.
inline void recordLaunch(FakeLaunch &Last, unsigned Gx, unsigned Gy,
                         unsigned Gz, unsigned Bx, unsigned By, unsigned Bz,
                         unsigned Shared, void *Stream) {
  Last.Grid[0] = Gx, Last.Grid[1] = Gy, Last.Grid[2] = Gz;
  Last.Block[0] = Bx, Last.Block[1] = By, Last.Block[2] = Bz;
  Last.Shared = Shared;
  Last.Stream = Stream;
  ++Last.Launches;
}

/// Executes vadd (C = A + B over N f32 elements) from kernel parameters as
/// the real kernel reads them; only what the launched blocks cover.
inline void runVadd(void **Params, unsigned Gx, unsigned Bx) {
  auto *A = *static_cast<float **>(Params[0]);
  auto *B = *static_cast<float **>(Params[1]);
  auto *C = *static_cast<float **>(Params[2]);
  int N = *static_cast<int *>(Params[3]);
  for (long I = 0; I < N && I < long(Gx) * Bx; ++I)
    C[I] = A[I] + B[I];
}

using Clock = std::chrono::steady_clock;

/// Events are host time points.
inline void *newEvent() { return new Clock::time_point(); }
inline void deleteEvent(void *E) { delete static_cast<Clock::time_point *>(E); }
inline void recordEvent(void *E) {
  *static_cast<Clock::time_point *>(E) = Clock::now();
}
inline float elapsedMs(void *Start, void *End) {
  return std::chrono::duration<float, std::milli>(
             *static_cast<Clock::time_point *>(End) -
             *static_cast<Clock::time_point *>(Start))
      .count();
}

/// Streams are distinct tokens.
inline void *newStream() { return new int(0); }
inline void deleteStream(void *S) { delete static_cast<int *>(S); }

} // namespace fake

#endif // TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H
