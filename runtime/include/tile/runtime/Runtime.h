//===- Runtime.h - Devices, modules, kernels, streams, buffers --*- C++ -*-===//
//
// Part of tilec. The core of the runtime: handles are cheap to copy (they
// share ownership of the underlying object) and every operation reports
// failure through Error / Expected. Five platforms:
//   host     - kernels are shared objects (see runtime/README.md for the ABI),
//              buffers are aligned host memory, programs run on a thread pool;
//   cuda:N   - libcuda.so.1, loaded with dlopen at first use;
//   hip:N    - libamdhip64.so, loaded with dlopen at first use;
//   cuda-emu - the NVIDIA emulator: NVPTX-bound code retargeted to the host
//              (NvEmuAbi.h), every GPU thread a fiber, accesses checked;
//   hip-emu  - the AMD emulator: the same for AMDGPU-bound code (AmdEmuAbi.h),
//              in 64-lane waves.
// Every handle may be used from any thread (the GPU backends make their
// context current in each call; host launches run one at a time).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include "tile/runtime/Error.h"
#include "tile/runtime/Signature.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace rt {

class DeviceImpl;
class ModuleImpl;
class Stream;

/// Where kernels run.
enum class Platform { Host, Cuda, Hip, NvEmu, AmdEmu };

/// The kind of a code object file.
enum class ObjectKind { HostSO, Cubin, Ptx, Hsaco, NvEmuSO, AmdEmuSO };

/// "host", "cuda", "hip", "cuda-emu" or "hip-emu".
const char *platformName(Platform P);
/// "host-so", "cubin", "ptx", "hsaco", "nvemu-so" or "amdemu-so".
const char *objectKindName(ObjectKind K);
/// Inverse of objectKindName().
Expected<ObjectKind> parseObjectKind(std::string_view Name);
/// The platform that runs code objects of kind \p K.
Platform platformOf(ObjectKind K);

/// How a kernel is launched besides its grid.
struct LaunchConfig {
  uint32_t ThreadsPerBlock = 128; ///< Ignored by the host platform.
  uint32_t SharedBytes = 0;       ///< Dynamic shared memory per block.
  /// The code waits for the grids before it in its stream (tilec
  /// --dependent-launch): CUDA launches it with programmatic stream
  /// serialization, so it may be scheduled while the grid before it ends.
  /// Other platforms launch it as any kernel.
  bool DependentLaunch = false;
};

/// A block of device memory, freed when the last handle goes away.
class Buffer {
public:
  Buffer() = default;
  /// The device address (for the host platform, the pointer).
  uint64_t address() const;
  /// Size in bytes.
  uint64_t size() const;
  explicit operator bool() const { return S != nullptr; }

  /// Copies \p Bytes bytes from host memory \p Src to offset \p Offset.
  Error upload(const void *Src, uint64_t Bytes, uint64_t Offset = 0);
  /// Copies everything from \p Data.
  Error upload(const std::vector<uint8_t> &Data) {
    return upload(Data.data(), Data.size());
  }
  /// Copies \p Bytes bytes at \p Offset into host memory \p Dst.
  Error download(void *Dst, uint64_t Bytes, uint64_t Offset = 0) const;
  /// Reads the whole buffer.
  Expected<std::vector<uint8_t>> read() const;
  /// Sets every byte to \p Byte (done when it returns).
  Error fill(uint8_t Byte);
  /// Queues setting every byte to \p Byte on \p S and returns at once
  /// (the host backend fills before returning).
  Error fill(uint8_t Byte, Stream &S);

  struct State;

private:
  friend class Device;
  std::shared_ptr<State> S;
};

/// A timestamp recorded on a stream.
class Event {
public:
  Event() = default;
  /// Milliseconds between \p Start and \p End (waits for \p End).
  static Expected<float> elapsedMs(const Event &Start, const Event &End);

  struct State;

private:
  friend class Stream;
  std::shared_ptr<State> S;
};

/// A hold on a stream (Stream::hold()): the work queued after the hold
/// waits until release() (or the destructor), so that a window of launches
/// queued by the host runs back to back on the device however slowly the
/// host queues it. On platforms that run a launch as it is queued (host,
/// emulators) and with drivers without host functions nothing is held.
class StreamHold {
public:
  StreamHold() = default;
  /// Whether work on the stream is being held back.
  bool held() const;
  /// Lets the held work run (nothing when already released).
  void release();

  struct State;

private:
  friend class Stream;
  std::shared_ptr<State> S;
};

/// An ordered queue of work on a device. The default-constructed stream of
/// a device (Device::defaultStream()) is the platform's default stream.
class Stream {
public:
  Stream() = default;
  /// Waits until all work queued so far has finished.
  Error synchronize();
  /// Records an event after the work queued so far.
  Expected<Event> record();
  /// Holds back the work queued from now on until the hold is released
  /// (StreamHold; on CUDA and HIP a host function queued on the stream).
  Expected<StreamHold> hold();
  /// The backend's handle (CUstream / hipStream_t; null for the default).
  void *nativeHandle() const;

  struct State;

private:
  friend class Device;
  friend class Kernel;
  std::shared_ptr<State> S;
};

/// An entry point of a loaded module together with its signature.
class Kernel {
public:
  Kernel() = default;
  const KernelSignature &signature() const;
  const LaunchConfig &config() const;

  /// Binds \p Args (one per tensor/scalar parameter) with bindArguments()
  /// and launches the kernel on \p S (the default stream when null).
  /// Returns when the launch is queued (host: when it has finished).
  Error launch(const std::vector<ArgValue> &Args, const DimMap &Given = {},
               Stream *S = nullptr);
  /// Launches already bound arguments.
  Error launch(BoundArgs &Bound, Stream *S = nullptr);

  /// Pairs this kernel with \p F, its copy compiled without TMA copies
  /// (tile-clone-fallbacks): launches run \p F instead where one of this
  /// kernel's tensor maps cannot be made (an address or a byte stride not
  /// a multiple of 16, an extent beyond 2^32). \p F must be another
  /// kernel on the same device with the same parameters, no tensor maps
  /// and no fallback of its own.
  Error setFallback(const Kernel &F);
  /// Whether a launch with \p Bound runs the fallback.
  bool runsFallback(const BoundArgs &Bound) const;

  struct State;

private:
  friend class Module;
  std::shared_ptr<State> S;
};

/// A loaded code object.
class Module {
public:
  Module() = default;
  /// Looks up \p Entry and pairs it with \p Sig (which is verified) and
  /// \p Config. Dynamic shared memory above 48 KB is enabled here.
  Expected<Kernel> getKernel(const std::string &Entry, KernelSignature Sig,
                             LaunchConfig Config = {});

private:
  friend class Device;
  std::shared_ptr<DeviceImpl> Dev;
  std::shared_ptr<ModuleImpl> Impl;
};

/// A device of one platform.
class Device {
public:
  /// Opens "host", "cuda", "cuda:N", "hip", "hip:N" ("cuda" is
  /// "cuda:0"), "cuda-emu" (the NVIDIA emulator, NvEmuAbi.h) or "hip-emu"
  /// (the AMD emulator, AmdEmuAbi.h; the emulators have ordinal 0 only).
  /// Opening the same device twice gives the same device. Fails with "no CUDA
  /// driver found ..." / "no HIP runtime found ..." when the driver library
  /// cannot be loaded.
  static Expected<Device> open(std::string_view Spec);

  Platform platform() const;
  int ordinal() const;
  /// A readable name ("host (16 threads)", "NVIDIA H100 80GB HBM3").
  std::string name() const;
  /// The architecture: "host", "sm_90", "gfx942" (empty when unknown).
  std::string arch() const;
  /// Programs that run at once at one per unit: streaming multiprocessors
  /// (CUDA), worker threads (host), those of the modeled device for the
  /// emulators (132 for cuda-emu, 304 for hip-emu); 0 when unknown (HIP).
  unsigned computeUnits() const;
  /// The most shared memory one program may use, in bytes (0: unknown or
  /// not applicable, as on the host).
  uint64_t sharedBytesPerBlock() const;

  /// Allocates \p Bytes bytes (at least 256-byte aligned).
  Expected<Buffer> allocate(uint64_t Bytes);
  /// Loads the code object file at \p Path.
  Expected<Module> loadModule(const std::string &Path, ObjectKind Kind);
  /// Loads a code object held in memory (a host shared object is written
  /// to a temporary file first).
  Expected<Module> loadModuleData(const std::vector<uint8_t> &Data,
                                  ObjectKind Kind);
  /// Creates a new stream.
  Expected<Stream> createStream();
  /// The platform's default stream.
  Stream defaultStream();
  /// A stream the caller owns (a CUstream / hipStream_t, e.g. PyTorch's
  /// current stream; null is the default stream): launches are queued on it
  /// and return at once; the runtime never destroys it. The host and the
  /// emulators have only their default stream and run launches before
  /// returning.
  Stream wrapStream(void *Native);
  /// Waits for all work on the device.
  Error synchronize();

private:
  std::shared_ptr<DeviceImpl> Impl;
};

} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_RUNTIME_H
