//===- HostBackend.cpp - Kernels as host shared objects -------------------===//
//
// Part of tilec. A host code object is a shared object exporting
//   void entry(void **args, const uint32_t program_id[3],
//              const uint32_t num_programs[3]);
// called once per program of the grid. Programs run in parallel on a pool
// of worker threads; a launch returns when every program has finished, so
// streams and events are trivially ordered.
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <mutex>
#include <thread>

using namespace tile::rt;

namespace {

using HostEntry = void (*)(void **, const uint32_t *, const uint32_t *);

/// A fixed set of workers running one parallel loop at a time.
class ThreadPool {
public:
  explicit ThreadPool(unsigned NumThreads) {
    for (unsigned I = 1; I < NumThreads; ++I)
      Workers.emplace_back([this] { workerLoop(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> G(Lock);
      Quit = true;
    }
    Wake.notify_all();
    for (std::thread &T : Workers)
      T.join();
  }
  unsigned size() const { return static_cast<unsigned>(Workers.size()) + 1; }

  /// Runs Body(I) for I in [0, Count); the caller works too.
  void parallelFor(uint64_t Count, const std::function<void(uint64_t)> &Body) {
    std::lock_guard<std::mutex> Serial(LaunchLock);
    {
      std::lock_guard<std::mutex> G(Lock);
      Job = &Body;
      JobCount = Count;
      Next = 0;
      Active = static_cast<unsigned>(Workers.size());
      ++Generation;
    }
    Wake.notify_all();
    drain();
    std::unique_lock<std::mutex> G(Lock);
    Done.wait(G, [&] { return Active == 0; });
    Job = nullptr;
  }

private:
  void drain() {
    for (uint64_t I; (I = Next.fetch_add(1)) < JobCount;)
      (*Job)(I);
  }
  void workerLoop() {
    uint64_t Seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> G(Lock);
        Wake.wait(G, [&] { return Quit || Generation != Seen; });
        if (Quit)
          return;
        Seen = Generation;
      }
      drain();
      std::lock_guard<std::mutex> G(Lock);
      if (--Active == 0)
        Done.notify_one();
    }
  }

  std::vector<std::thread> Workers;
  std::mutex LaunchLock, Lock;
  std::condition_variable Wake, Done;
  const std::function<void(uint64_t)> *Job = nullptr;
  uint64_t JobCount = 0;
  std::atomic<uint64_t> Next{0};
  unsigned Active = 0;
  uint64_t Generation = 0;
  bool Quit = false;
};

class HostModule : public ModuleImpl {
public:
  HostModule(void *Handle, std::string Path, ThreadPool &Pool)
      : Handle(Handle), Path(std::move(Path)), Pool(Pool) {}
  ~HostModule() override { dlclose(Handle); }

  Expected<void *> getFunction(const std::string &Name, uint32_t) override {
    dlerror();
    void *F = dlsym(Handle, Name.c_str());
    if (!F)
      return makeError("entry '" + Name + "' not found in " + Path);
    return F;
  }

  Error launch(void *Function, const LaunchConfig &,
               const std::array<uint32_t, 3> &Grid, void **Args,
               void *) override {
    auto Entry = reinterpret_cast<HostEntry>(Function);
    uint64_t Count = uint64_t(Grid[0]) * Grid[1] * Grid[2];
    std::function<void(uint64_t)> Body = [&](uint64_t I) {
      uint32_t Pid[3] = {static_cast<uint32_t>(I % Grid[0]),
                         static_cast<uint32_t>(I / Grid[0] % Grid[1]),
                         static_cast<uint32_t>(I / Grid[0] / Grid[1])};
      Entry(Args, Pid, Grid.data());
    };
    Pool.parallelFor(Count, Body);
    return Error::success();
  }

private:
  void *Handle;
  std::string Path;
  ThreadPool &Pool;
};

class HostDevice : public HostMemoryDeviceImpl {
public:
  static constexpr uint64_t Alignment = 256;

  explicit HostDevice(unsigned Threads) : Pool(Threads) {
    P = Platform::Host;
    Name = "host (" + std::to_string(Pool.size()) + " threads)";
    Arch = "host";
    ComputeUnits = static_cast<unsigned>(Pool.size());
  }

  Expected<uint64_t> allocate(uint64_t Bytes) override {
    uint64_t Rounded = std::max<uint64_t>(Alignment, (Bytes + Alignment - 1) /
                                                         Alignment * Alignment);
    void *P = std::aligned_alloc(Alignment, Rounded);
    if (!P)
      return makeError("out of host memory allocating " +
                       std::to_string(Bytes) + " bytes");
    return reinterpret_cast<uint64_t>(P);
  }
  void release(uint64_t Address) override {
    std::free(reinterpret_cast<void *>(Address));
  }

  Expected<std::shared_ptr<ModuleImpl>> loadModule(const std::string &Path,
                                                   ObjectKind) override {
    Expected<void *> Handle = openSharedObject(Path, "host code object");
    if (!Handle)
      return Handle.takeError();
    return std::shared_ptr<ModuleImpl>(
        std::make_shared<HostModule>(*Handle, Path, Pool));
  }

  Expected<std::shared_ptr<ModuleImpl>>
  loadModuleData(const std::vector<uint8_t> &Data, ObjectKind,
                 const std::string &Name) override {
    Expected<void *> Handle = openSharedObjectData(Data, "host code object");
    if (!Handle)
      return Handle.takeError();
    return std::shared_ptr<ModuleImpl>(
        std::make_shared<HostModule>(*Handle, Name, Pool));
  }

  // Launches are synchronous: streams are only tokens.
  Expected<void *> createStream() override { return static_cast<void *>(this); }
  void destroyStream(void *) override {}
  Error synchronize(void *) override { return Error::success(); }
  Error synchronizeDevice() override { return Error::success(); }

  using Clock = std::chrono::steady_clock;
  Expected<void *> recordEvent(void *) override {
    return static_cast<void *>(new Clock::time_point(Clock::now()));
  }
  void destroyEvent(void *E) override {
    delete static_cast<Clock::time_point *>(E);
  }
  Expected<float> elapsedMs(void *Start, void *End) override {
    auto D = *static_cast<Clock::time_point *>(End) -
             *static_cast<Clock::time_point *>(Start);
    return std::chrono::duration<float, std::milli>(D).count();
  }

private:
  ThreadPool Pool;
};

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createHostDevice() {
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  if (const char *Env = std::getenv("TILE_HOST_THREADS")) {
    char *End = nullptr;
    long N = std::strtol(Env, &End, 10);
    if (*Env == '\0' || *End != '\0' || N < 1 || N > 4096)
      return makeError("TILE_HOST_THREADS must be an integer in [1, 4096], "
                       "not '" +
                       std::string(Env) + "'");
    Threads = static_cast<unsigned>(N);
  }
  return std::shared_ptr<DeviceImpl>(std::make_shared<HostDevice>(Threads));
}

Error HostMemoryDeviceImpl::upload(uint64_t Dst, const void *Src,
                                   uint64_t Bytes) {
  std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  return Error::success();
}

Error HostMemoryDeviceImpl::download(void *Dst, uint64_t Src, uint64_t Bytes) {
  std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
  return Error::success();
}

Error HostMemoryDeviceImpl::fill(uint64_t Dst, uint8_t Byte, uint64_t Bytes) {
  std::memset(reinterpret_cast<void *>(Dst), Byte, Bytes);
  return Error::success();
}
