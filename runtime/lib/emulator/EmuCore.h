//===- EmuCore.h - The machinery shared by the GPU emulators ----*- C++ -*-===//
//
// Part of tilec. Internal to runtime/lib: what the NVIDIA ("cuda-emu",
// NvEmuBackend.cpp) and AMD ("hip-emu", AmdEmuBackend.cpp) emulators have in
// common. A launch runs the blocks (workgroups) of the grid one after the
// other; a block's threads (work-items) are fibers on the launching OS
// thread, scheduled round-robin, grouped into waves (32-lane warps on
// NVIDIA, 64-lane wavefronts on CDNA). This file provides the device (host
// memory allocations, code objects, launches), the scheduler, barriers,
// wave-collective gathering with deadlock and divergence reports, access
// checks and the shared-memory (LDS) race detector. A target plugs in its
// ops table, its collectives and its vocabulary through EmuDevice's hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_EMUCORE_H
#define TILE_RUNTIME_LIB_EMUCORE_H

#include "backends/Backend.h"
#include "emulator/EmuFiber.h"

#include <array>
#include <csetjmp>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tile {
namespace rt {
namespace emu {

/// One emulated thread's entry: runs the kernel for the calling fiber.
using EmuEntry = void (*)(void **);

/// Address spaces of an access check; NvEmuAbi.h and AmdEmuAbi.h both use
/// the LLVM numbering (generic/flat 0, global 1, shared/LDS 3, constant 4,
/// local/private 5) and the same flag bits.
constexpr uint32_t SpaceGeneric = 0;
constexpr uint32_t SpaceGlobal = 1;
constexpr uint32_t SpaceShared = 3;
constexpr uint32_t SpaceConst = 4;
constexpr uint32_t SpaceLocal = 5;
constexpr uint32_t AccessWrite = 0x100u;
constexpr uint32_t AccessAtomic = 0x200u;
/// Bits 12..15: log2 of the alignment the access declares (0: none).
constexpr uint32_t AccessAlignShift = 12;
/// Internal: the access is the issue of an NVIDIA cp.async.
constexpr uint32_t AccessAsyncIssue = 0x10000u;
/// Internal: a read by an NVIDIA wgmma.mma_async (in flight until retired).
constexpr uint32_t AccessAsyncRead = 0x20000u;
/// Internal: the issue of an NVIDIA TMA copy (in flight until it lands).
constexpr uint32_t AccessTmaIssue = 0x40000u;
/// The writer of shared bytes a TMA copy landed on: ordered by the
/// mbarrier wait, so no race with whoever waited.
constexpr uint16_t TmaWriter = 0xFFFF;

/// Barrier ids a block may use (PTX has 16; AMD's s_barrier is id 0).
constexpr uint32_t NumBarriers = 16;
/// The widest wave any target has.
constexpr unsigned MaxWaveSize = 64;

enum class ThreadState : uint8_t {
  Ready,
  Running,
  AtBarrier,
  AtCollective,
  AtMbarrier, ///< NVIDIA: blocked in mbarrier.try_wait (WaitBar, WaitParity).
  Exited
};

/// One queued NVIDIA cp.async copy (at most 16 bytes, PTX's largest).
struct AsyncCopy {
  uint8_t *Dst;
  uint32_t Bytes;
  uint32_t SrcBytes;
  uint64_t Group; ///< Index of the commit group holding the copy.
  uint8_t Data[16];
};

/// An emulated GPU thread.
struct EmuThread {
  uint32_t Tid = 0;
  Context Ctx;
  FiberStack *Stack = nullptr;
  ThreadState State = ThreadState::Ready;
  uint32_t BarrierId = 0;
  /// AtMbarrier: the barrier's shared offset and the awaited phase parity.
  uint32_t WaitBar = 0, WaitParity = 0;

  // The collective this thread waits in and its operands; the target
  // decides what they mean. Lanes agree when Coll, P0 and P1 are equal.
  uint8_t Coll = 0;
  uint32_t P0 = 0, P1 = 0;
  uint32_t Value = 0, B = 0, C = 0;
  const void *Address = nullptr;
  uint32_t *Out = nullptr;
  const uint32_t *MmaA = nullptr, *MmaB = nullptr, *MmaC = nullptr;
  uint32_t Result = 0, Pred = 0;

  // NVIDIA cp.async: copies in issue order from CopyHead on; Committed
  // groups.
  std::vector<AsyncCopy> Copies;
  size_t CopyHead = 0;
  uint64_t Committed = 0;

  // NVIDIA wgmma: descriptors of the collective, whether a wgmma.fence
  // allows the next wgmma.mma_async, committed groups, and (on the warp's
  // first lane) the shared bytes in-flight groups read.
  uint64_t DescA = 0, DescB = 0;
  bool WgmmaFenced = false;
  uint64_t WgmmaCommitted = 0;
  struct AsyncRead {
    uint64_t Group;
    uint64_t Offset, Bytes;
  };
  std::vector<AsyncRead> WgmmaReads;
};

struct WaveState {
  uint64_t Live = 0;    ///< Lanes that exist and have not exited.
  uint64_t Arrived = 0; ///< Lanes waiting in a collective.
};

/// Checker state of one byte of shared memory.
struct ShadowByte {
  uint32_t WriteEpoch = 0;
  uint32_t ReadEpoch = 0;
  uint16_t Writer = 0;
  uint16_t Readers[2] = {0, 0};
  uint8_t NumReaders = 0;    ///< Distinct readers seen in ReadEpoch (<= 2).
  uint16_t Pending = 0;      ///< cp.async copies in flight onto the byte.
  uint16_t PendingReads = 0; ///< wgmma.mma_async reads in flight.
  uint16_t PendingTma = 0;   ///< TMA copies in flight onto the byte.
};

/// What a checked shared-memory access is.
/// AsyncRead / AsyncReadRetire: the start and the end of an asynchronous
/// read (wgmma.mma_async), during which the byte must not be written.
/// TmaIssue / TmaLand: the issue of a TMA copy (a write, in flight until
/// it lands) and its landing (or its drop in an abandoned block), which
/// is checked against nothing: the mbarrier wait orders it.
enum class SharedAccess {
  Read,
  Write,
  AsyncIssue,
  AsyncRetire,
  AsyncRead,
  AsyncReadRetire,
  TmaIssue,
  TmaLand
};

/// What distinguishes one emulated target in the shared code: limits and
/// the words its errors use.
struct EmuTarget {
  unsigned WaveSize;
  uint32_t MaxThreads;     ///< Per block.
  uint32_t MaxSharedBytes; ///< Per block.
  /// Of the modeled device (Device::computeUnits(): the tuner's grid rule).
  uint32_t ComputeUnits;
  const char *Model;         ///< "sm_90", "gfx942": "the emulated <Model>".
  const char *Block;         ///< "block", "workgroup".
  const char *Thread;        ///< "thread", "work-item".
  const char *Wave;          ///< "warp", "wave".
  const char *Shared;        ///< "shared-memory", "LDS" (adjective).
  const char *SharedBlock;   ///< "dynamic shared memory", "LDS".
  const char *ObjectKind;    ///< "nvemu-so", "amdemu-so".
  const char *StackEnv;      ///< The variable that sets the fiber stack.
  const char *SpaceNames[6]; ///< Address space names by number.
};

class EmuDevice;

/// A live launch; reached from the ops tables through CurrentLaunch.
struct Launch {
  EmuDevice *Dev = nullptr;
  unsigned WaveSize = 32;
  std::string Kernel;
  EmuEntry Entry = nullptr;
  void **Args = nullptr;
  uint32_t Threads = 0;
  uint32_t SharedBytes = 0;
  std::array<uint32_t, 3> Grid{};
  std::array<uint32_t, 3> Block{};
  uint8_t *Shared = nullptr;

  std::vector<std::string> Errors;
  size_t TotalErrors = 0;

  // Scheduler state of the running block.
  Context Scheduler;
  std::vector<EmuThread *> ReadyQueue; ///< Ring buffer of Threads entries.
  size_t ReadyHead = 0, ReadyCount = 0;
  uint32_t LiveThreads = 0;
  uint32_t AtBarrier[NumBarriers] = {};
  /// Per barrier id, the thread count its current phase was given (PTX
  /// bar.sync id, count); 0: every live thread.
  uint32_t BarrierThreads[NumBarriers] = {};
  std::vector<WaveState> Waves;

  // Last allocation an access fell into (most accesses hit it again).
  uint64_t CachedBase = 0, CachedSize = 0;

  /// The epoch of the block's start: bytes last written before it are
  /// uninitialized (0 after the epoch counter wrapped: no such check).
  uint32_t BlockEpoch = 0;

  // A fault (SIGSEGV / SIGBUS) in a fiber jumps back to the scheduler.
  sigjmp_buf FaultJump;
  int FaultSignal = 0;
  uint64_t FaultAddress = 0;
  EmuThread *FaultThread = nullptr;
};

extern thread_local Launch *CurrentLaunch;
extern thread_local EmuThread *CurrentThread;

std::string hex(uint64_t V);
/// "lanes 0-15" / "lane 3" for a run of lanes.
std::string laneRange(unsigned First, unsigned Last);
/// Records an error of the launch (the first few are quoted in full).
void addError(Launch &L, std::string Msg);
/// Counts an error without building its message when it would not be
/// quoted anyway (checks in hot loops); returns true in that case.
bool countedOnly(Launch &L);
/// "block (x,y,z)" / "workgroup (x,y,z)".
std::string blockName(const Launch &L);
/// " (block (x,y,z), thread t)".
std::string where(const Launch &L, const EmuThread &T);
/// "block (x,y,z), warp w".
std::string waveName(const Launch &L, unsigned Wave);
/// The lanes of \p Wave in \p Mask, grouped by what they wait on.
std::string describeLanes(Launch &L, unsigned Wave, uint64_t Mask);
/// The mask of every lane of a full wave.
inline uint64_t fullWaveMask(unsigned WaveSize) {
  return WaveSize >= 64 ? ~0ull : (1ull << WaveSize) - 1;
}
/// The thread of lane \p Lane of wave \p Wave of the running block.
EmuThread &laneThread(Launch &L, unsigned Wave, unsigned Lane);

/// Checks an access by \p T (Flags: a space or'ed with Access* bits);
/// records an error and returns false when it is not allowed.
bool checkAccess(Launch &L, EmuThread &T, const void *Ptr, uint64_t Bytes,
                 uint32_t Flags);
/// True when [Address, Address + Bytes) is in the block's shared memory;
/// \p Offset receives the offset of Address.
bool inShared(const Launch &L, uint64_t Address, uint64_t Bytes,
              uint64_t &Offset);
/// The calling thread \p T has filled in its collective: waits until every
/// live lane of its wave has, then the target computes the results.
void arriveAtCollective(Launch &L, EmuThread &T);
/// Waits at barrier \p Id until every live thread of the block has arrived.
void arriveAtBarrier(Launch &L, EmuThread &T, uint32_t Id,
                     uint32_t Threads = 0);
/// Blocks the running thread \p T in state \p State until wakeThread.
void blockThread(Launch &L, EmuThread &T, ThreadState State);
/// Makes the blocked thread \p T ready again.
void wakeThread(Launch &L, EmuThread &T);
/// For collectives every lane must execute: records an error and returns
/// false unless all lanes of the wave are in \p Lanes.
bool requireFullWave(Launch &L, unsigned Wave, uint64_t Lanes);
/// What a special register of a target's sreg numbering reads.
struct RegisterSpec {
  enum Kind : uint8_t {
    ThreadId,  ///< Of the calling thread in its block (x; y, z are 0).
    BlockSize, ///< Threads per block (x; y, z are 1).
    BlockId,   ///< Of the running block.
    GridSize,  ///< Blocks of the grid.
    Lane,      ///< Of the calling thread in its wave.
    WaveId     ///< Of the calling thread's wave in its block.
  } What;
  uint8_t Dim; ///< 0, 1, 2 for x, y, z.
};
/// The ops tables' `sreg`: register \p Which of the calling thread, as
/// \p Table (NumRegs entries, indexed by register number) defines it.
uint32_t readRegister(const RegisterSpec *Table, uint32_t NumRegs,
                      uint32_t Which);

/// The ops tables' `access`: checks an access of the calling thread;
/// returns 1 when allowed, 0 when recorded as an error.
uint32_t opAccess(const void *Address, uint32_t Bytes, uint32_t Flags);
/// The ops tables' `unsupported`: records "unsupported operation: What".
void opUnsupported(const char *What);
/// The ops tables' `math_f32` for the functions both ABIs number alike
/// (0 exp2, 1 log2, 2 reciprocal square root, 3 reciprocal, 4 square
/// root); others go to \p More, which clears Known for an unknown one
/// (then an error).
float mathF32(uint32_t Fn, float X,
              float (*More)(uint32_t Fn, float X, bool &Known));

/// The emulated device; a target derives from it.
class EmuDevice : public HostMemoryDeviceImpl {
public:
  static constexpr uint64_t Alignment = 256;

  EmuDevice(const EmuTarget &Target, size_t StackBytes)
      : Target(Target), StackBytes(StackBytes) {
    SharedPerBlock = Target.MaxSharedBytes;
    ComputeUnits = Target.ComputeUnits;
  }
  ~EmuDevice() override;

  const EmuTarget &target() const { return Target; }

  Expected<uint64_t> allocate(uint64_t Bytes) override;
  void release(uint64_t Address) override;
  Expected<std::shared_ptr<ModuleImpl>> loadModule(const std::string &Path,
                                                   ObjectKind Kind) override;
  Expected<std::shared_ptr<ModuleImpl>>
  loadModuleData(const std::vector<uint8_t> &Data, ObjectKind Kind,
                 const std::string &Name) override;

  // Launches are synchronous: streams are only tokens.
  Expected<void *> createStream() override { return static_cast<void *>(this); }
  void destroyStream(void *) override {}
  Error synchronize(void *) override { return Error::success(); }
  Error synchronizeDevice() override { return Error::success(); }
  Expected<void *> recordEvent(void *) override;
  void destroyEvent(void *E) override;
  Expected<float> elapsedMs(void *Start, void *End) override;

  /// Runs \p Entry over \p Grid with \p StaticShared bytes of shared
  /// memory besides the launch's dynamic ones (one launch at a time).
  Error run(const std::string &Kernel, EmuEntry Entry, uint32_t StaticShared,
            const LaunchConfig &Config, const std::array<uint32_t, 3> &Grid,
            void **Args);

  // Target hooks.
  /// The ops table handed to the code object's bind function.
  virtual const void *opsTable() const = 0;
  /// Shared memory a kernel declares itself (AMD: its LDS symbol); read
  /// when the kernel is looked up.
  virtual Expected<uint32_t> kernelSharedBytes(void *Handle,
                                               const std::string &Name,
                                               const std::string &Path) {
    return 0u;
  }
  /// Computes the results of the collective the lanes \p Lanes of \p Wave
  /// agree on (Coll, P0, P1 equal).
  virtual void computeCollective(Launch &L, unsigned Wave, uint64_t Lanes) = 0;
  /// What \p T's collective is ("shfl.sync.bfly (...)"), for reports.
  virtual std::string describeCollective(const EmuThread &T) const = 0;
  /// How many result words \p T's collective writes through Out.
  virtual unsigned resultWords(const EmuThread &T) const = 0;
  /// What a thread at barrier \p Id waits at ("barrier 0").
  virtual std::string describeBarrier(uint32_t Id) const = 0;
  /// What a thread blocked AtMbarrier waits on (NVIDIA only).
  virtual std::string describeMbarrierWait(const EmuThread &T) const {
    return "mbarrier";
  }
  /// Called before the launch's first block (AMD: the dispatch packet).
  virtual void beginLaunch(Launch &) {}
  /// Called when a thread starts, exits, or its block is abandoned.
  virtual void startThread(Launch &, EmuThread &) {}
  virtual void exitThread(Launch &, EmuThread &) {}
  virtual void abandonBlock(Launch &) {}
  /// Called when every thread of a block has exited.
  virtual void endBlock(Launch &) {}

  // Used by the shared machinery while a launch runs.
  bool findAllocation(Launch &L, uint64_t Address, uint64_t Bytes);
  std::string describeGlobal(uint64_t Address);
  void checkShared(Launch &L, EmuThread &T, uint64_t Offset, uint64_t Bytes,
                   SharedAccess Kind);
  void advanceEpoch(Launch &L);
  /// What thread \p T waits on, for deadlock reports.
  std::string describeWait(const EmuThread &T) const;

  std::vector<std::unique_ptr<EmuThread>> Threads;
  /// Shadow state of the shared-memory bytes (race detector).
  std::vector<ShadowByte> Shadow;

private:
  void runBlock(Launch &L);

  EmuTarget Target;
  std::mutex LaunchLock;
  std::mutex AllocLock;
  std::map<uint64_t, uint64_t> Allocations; // Base -> requested bytes.
  size_t StackBytes;
  std::vector<std::unique_ptr<FiberStack>> Stacks;
  uint8_t *SharedStorage = nullptr;
  size_t SharedCapacity = 0;
  uint32_t Epoch = 1;
};

/// The fiber stack size: \p Default, or what the environment variable
/// \p Var says in KiB (an error when it is malformed).
Expected<size_t> stackBytesFromEnv(const char *Var, size_t Default);

/// A device of type \p DeviceT (constructed from its fiber stack size),
/// with the stack size \p Target.StackEnv sets (512 KiB by default).
template <typename DeviceT>
Expected<std::shared_ptr<DeviceImpl>> createEmuDevice(const EmuTarget &Target) {
  Expected<size_t> StackBytes = stackBytesFromEnv(Target.StackEnv, 512 * 1024);
  if (!StackBytes)
    return StackBytes.takeError();
  return std::shared_ptr<DeviceImpl>(std::make_shared<DeviceT>(*StackBytes));
}

} // namespace emu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_EMUCORE_H
