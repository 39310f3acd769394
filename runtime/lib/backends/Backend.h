//===- Backend.h - Interface every platform implements ----------*- C++ -*-===//
//
// Part of tilec. Internal to runtime/lib: the handles of Runtime.h forward
// to a DeviceImpl / ModuleImpl of the platform.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_BACKEND_H
#define TILE_RUNTIME_LIB_BACKEND_H

#include "tile/runtime/Runtime.h"

#include <array>
#include <atomic>

namespace tile {
namespace rt {

/// A loaded code object of some platform.
class ModuleImpl {
public:
  virtual ~ModuleImpl() = default;
  /// Finds entry \p Name; enables \p SharedBytes of dynamic shared memory.
  virtual Expected<void *> getFunction(const std::string &Name,
                                       uint32_t SharedBytes) = 0;
  /// Launches \p Function over \p Grid programs; \p Args are pointers to
  /// the parameter values.
  virtual Error launch(void *Function, const LaunchConfig &Config,
                       const std::array<uint32_t, 3> &Grid, void **Args,
                       void *Stream) = 0;
  /// How many programs of \p Function one compute unit runs at once
  /// (occupancy); default 1.
  virtual Expected<uint32_t> residentPerUnit(void *Function,
                                             const LaunchConfig &Config);
};

/// A TMA tensor map to encode (KernelSignature::TensorMaps): a dense
/// tensor and the box one copy moves; every list is innermost dimension
/// first, Rank entries long.
struct TensorMapRequest {
  uint64_t Address = 0;              ///< Device address of element 0.
  unsigned ElementBytes = 0;         ///< 1, 2, 4 or 8.
  unsigned Rank = 0;                 ///< 1-5.
  std::array<uint64_t, 5> Dims{};    ///< Extents.
  std::array<uint64_t, 5> Strides{}; ///< In bytes; Strides[0] = ElementBytes.
  std::array<uint32_t, 5> Box{};     ///< Box extents in elements.
  unsigned SwizzleBytes = 0;         ///< 0, 32, 64 or 128.
};

/// The flag a held stream's host function waits for (DeviceImpl::holdStream):
/// shared by that function and the holder, freed by whichever of the two
/// lets go of it last.
struct StreamGate {
  std::atomic<bool> Open{false};
  std::atomic<int> Refs{2};
  /// The host function queued on the stream: waits until the gate opens (at
  /// most a minute, so that a holder that died cannot stall the device for
  /// good), then lets go.
  static void wait(void *Gate);
  /// Opens \p Gate and lets go of the holder's reference.
  static void open(StreamGate *Gate);
};

/// One device of some platform.
class DeviceImpl {
public:
  virtual ~DeviceImpl() = default;

  Platform P = Platform::Host;
  int Ordinal = 0;
  std::string Name;
  std::string Arch;
  unsigned ComputeUnits = 0;   ///< See Device::computeUnits().
  uint64_t SharedPerBlock = 0; ///< See Device::sharedBytesPerBlock().

  virtual Expected<uint64_t> allocate(uint64_t Bytes) = 0;
  virtual void release(uint64_t Address) = 0;
  virtual Error upload(uint64_t Dst, const void *Src, uint64_t Bytes) = 0;
  virtual Error download(void *Dst, uint64_t Src, uint64_t Bytes) = 0;
  virtual Error fill(uint64_t Dst, uint8_t Byte, uint64_t Bytes) = 0;
  /// Queues a fill on \p Stream (default: the synchronous fill).
  virtual Error fillAsync(uint64_t Dst, uint8_t Byte, uint64_t Bytes,
                          void *Stream) {
    (void)Stream;
    return fill(Dst, Byte, Bytes);
  }
  /// Loads the code object file \p Path (default: reads it and calls
  /// loadModuleData).
  virtual Expected<std::shared_ptr<ModuleImpl>>
  loadModule(const std::string &Path, ObjectKind Kind);
  /// Loads a code object from memory; \p Name is used in messages.
  virtual Expected<std::shared_ptr<ModuleImpl>>
  loadModuleData(const std::vector<uint8_t> &Data, ObjectKind Kind,
                 const std::string &Name) = 0;
  /// Creates a stream; null stands for the default stream.
  virtual Expected<void *> createStream() = 0;
  virtual void destroyStream(void *Stream) = 0;
  virtual Error synchronize(void *Stream) = 0;
  virtual Error synchronizeDevice() = 0;
  /// Creates an event and records it on \p Stream.
  virtual Expected<void *> recordEvent(void *Stream) = 0;
  virtual void destroyEvent(void *Event) = 0;
  virtual Expected<float> elapsedMs(void *Start, void *End) = 0;
  /// Queues on \p Stream a host function that holds the work queued after
  /// it until the returned StreamGate opens (releaseStream). Default: null,
  /// nothing held (the platform runs launches as they are queued, or its
  /// driver has no host functions).
  virtual Expected<void *> holdStream(void *Stream) {
    (void)Stream;
    return nullptr;
  }
  /// Releases a hold of holdStream() (null: nothing).
  void releaseStream(void *Hold) {
    if (Hold)
      StreamGate::open(static_cast<StreamGate *>(Hold));
  }
  /// Encodes \p R into the 128-byte, 64-byte aligned kernel parameter
  /// \p Out128 (CUDA: a CUtensorMap). Default: an error (no TMA).
  virtual Error encodeTensorMap(const TensorMapRequest &R, void *Out128);
};

/// A device whose memory is host memory (the host platform, the NVIDIA
/// emulator): addresses are pointers, copies are memcpy.
class HostMemoryDeviceImpl : public DeviceImpl {
public:
  Error upload(uint64_t Dst, const void *Src, uint64_t Bytes) override;
  Error download(void *Dst, uint64_t Src, uint64_t Bytes) override;
  Error fill(uint64_t Dst, uint8_t Byte, uint64_t Bytes) override;
};

/// Platform factories (HostBackend.cpp, CudaBackend.cpp, HipBackend.cpp,
/// NvEmuBackend.cpp, AmdEmuBackend.cpp).
Expected<std::shared_ptr<DeviceImpl>> createHostDevice();
Expected<std::shared_ptr<DeviceImpl>> createNvEmuDevice();
Expected<std::shared_ptr<DeviceImpl>> createAmdEmuDevice();
Expected<std::shared_ptr<DeviceImpl>> createCudaDevice(int Ordinal);
Expected<std::shared_ptr<DeviceImpl>> createHipDevice(int Ordinal);

/// Reads a whole file (code objects).
Expected<std::vector<uint8_t>> readBinaryFile(const std::string &Path);

/// dlopen's the shared object \p Path (RTLD_NOW | RTLD_LOCAL; a name
/// without a slash is taken relative to the working directory). \p What
/// names the kind of object in the error ("host code object").
Expected<void *> openSharedObject(const std::string &Path, const char *What);
/// Writes \p Data to a temporary file, dlopen's it and removes the file
/// (the mapping stays valid).
Expected<void *> openSharedObjectData(const std::vector<uint8_t> &Data,
                                      const char *What);

/// A dlopen'ed library.
class DynamicLibrary {
public:
  /// Opens the first of \p Candidates that loads (the value of environment
  /// variable \p EnvOverride, when set, is the only candidate). On failure
  /// the error lists each attempt with dlerror().
  static Expected<std::shared_ptr<DynamicLibrary>>
  open(const std::vector<std::string> &Candidates, const char *EnvOverride);
  ~DynamicLibrary();
  /// The address of \p Symbol or null.
  void *symbol(const char *Symbol) const;
  const std::string &path() const { return Path; }

private:
  void *Handle = nullptr;
  std::string Path;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_BACKEND_H
