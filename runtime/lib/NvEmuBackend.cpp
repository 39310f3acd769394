//===- NvEmuBackend.cpp - The NVIDIA emulator platform ("cuda-emu") -------===//
//
// Part of tilec. Runs code objects of kind nvemu-so (NvEmuAbi.h): NVPTX-bound
// LLVM IR retargeted to the host, with every llvm.nvvm.* intrinsic turned
// into a call through the tile_emu_ops table implemented here.
//
// A launch runs the blocks of the grid one after the other, in order (x
// fastest). A block's threads are fibers on the launching OS thread, run
// round-robin from a FIFO of ready fibers; a fiber runs until it blocks (at
// a barrier or a warp collective) or exits. The last thread to arrive
// completes the barrier or the collective and continues; the others become
// ready again. When no fiber is ready but some have not exited, the block
// has deadlocked: the error says what each warp waits on, and the block is
// abandoned (its fibers are never resumed).
//
// Every access the generated code checks is validated against the live
// allocations (global), the block's dynamic shared memory (shared) or the
// fiber's stack (local); shared-memory accesses also feed a race detector
// whose epochs are the intervals between block barriers, and are checked for
// reads of bytes never written in the block and for touching bytes that a
// cp.async still in flight targets. Errors are
// collected (the first few verbatim, the rest counted) and fail the launch
// once it has run to its end.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "NvEmuFiber.h"
#include "NvEmuWarp.h"

#include "tile/runtime/NvEmuAbi.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <unistd.h>

using namespace tile::rt;
using namespace tile::rt::nvemu;

namespace {

using EmuEntry = void (*)(void **);
using EmuBind = void (*)(const tile_emu_ops *);

/// Limits of the emulated device (those of sm_90).
constexpr uint32_t MaxThreadsPerBlock = 1024;
constexpr uint32_t MaxSharedBytes = 232448; // 227 KiB, opt-in maximum.
constexpr uint32_t NumBarriers = 16;
/// Errors of a launch quoted in full; the rest are counted.
constexpr size_t MaxQuotedErrors = 10;
/// Shared memory is garbage on a GPU: each block starts with this pattern.
constexpr uint8_t SharedPoison = 0xCD;
constexpr size_t DefaultStackBytes = 512 * 1024;

enum class ThreadState : uint8_t {
  Ready,
  Running,
  AtBarrier,
  AtCollective,
  Exited
};
enum class CollectiveKind : uint8_t { Shfl, Ldmatrix, Mma };

/// One queued cp.async copy (at most 16 bytes, PTX's largest cp-size).
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

  // The collective this thread waits in, and its operands.
  CollectiveKind Coll = CollectiveKind::Shfl;
  uint32_t P0 = 0, P1 = 0; // shfl: mode, mask; ldmatrix: count, trans;
                           // mma: kind.
  uint32_t Value = 0, B = 0, C = 0;
  const void *Address = nullptr;
  uint32_t *Out = nullptr;
  const uint32_t *MmaA = nullptr, *MmaB = nullptr, *MmaC = nullptr;
  uint32_t Result = 0, Pred = 0;

  // cp.async: copies in issue order from CopyHead on; Committed groups.
  std::vector<AsyncCopy> Copies;
  size_t CopyHead = 0;
  uint64_t Committed = 0;
};

struct WarpState {
  uint32_t Live = 0;    ///< Lanes that exist and have not exited.
  uint32_t Arrived = 0; ///< Lanes waiting in a collective.
};

/// Checker state of one byte of shared memory.
struct ShadowByte {
  uint32_t WriteEpoch = 0;
  uint32_t ReadEpoch = 0;
  uint16_t Writer = 0;
  uint16_t Readers[2] = {0, 0};
  uint8_t NumReaders = 0; ///< Distinct readers seen in ReadEpoch (<= 2).
  uint16_t Pending = 0;   ///< cp.async copies in flight onto the byte.
};

/// What a checked shared-memory access is.
enum class SharedAccess { Read, Write, AsyncIssue, AsyncRetire };

/// Internal flag of checkAccess(): the access is the issue of a cp.async.
constexpr uint32_t AccessAsyncIssue = 0x10000u;

class NvEmuDevice;

/// A live launch; reached from the ops table through CurrentLaunch.
struct Launch {
  NvEmuDevice *Dev = nullptr;
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
  std::vector<WarpState> Warps;

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

thread_local Launch *CurrentLaunch = nullptr;
thread_local EmuThread *CurrentThread = nullptr;

std::string hex(uint64_t V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

/// "lanes 0-15" / "lane 3" for a run of lanes.
std::string laneRange(unsigned First, unsigned Last) {
  return First == Last
             ? "lane " + std::to_string(First)
             : "lanes " + std::to_string(First) + "-" + std::to_string(Last);
}

const char *shflModeName(uint32_t Mode) {
  switch (Mode) {
  case TILE_EMU_SHFL_UP:
    return "up";
  case TILE_EMU_SHFL_DOWN:
    return "down";
  case TILE_EMU_SHFL_BFLY:
    return "bfly";
  case TILE_EMU_SHFL_IDX:
    return "idx";
  }
  return "?";
}

const char *spaceName(uint32_t Space) {
  switch (Space) {
  case TILE_EMU_GENERIC:
    return "generic";
  case TILE_EMU_GLOBAL:
    return "global";
  case TILE_EMU_SHARED:
    return "shared";
  case TILE_EMU_CONST:
    return "const";
  case TILE_EMU_LOCAL:
    return "local";
  }
  return "unknown-space";
}

/// What thread \p T of the running block waits on, for deadlock reports.
std::string describeWait(const EmuThread &T) {
  switch (T.State) {
  case ThreadState::AtBarrier:
    return "at barrier " + std::to_string(T.BarrierId);
  case ThreadState::AtCollective:
    switch (T.Coll) {
    case CollectiveKind::Shfl:
      return std::string("at shfl.sync.") + shflModeName(T.P0) +
             " (member_mask " + hex(T.P1) + ")";
    case CollectiveKind::Ldmatrix:
      return "at ldmatrix.sync.aligned.m8n8.x" + std::to_string(T.P0) +
             (T.P1 ? ".trans" : "") + ".b16";
    case CollectiveKind::Mma: {
      const MmaKindInfo *Info = mmaKindInfo(T.P0);
      return std::string("at ") +
             (Info ? Info->Name
                   : ("mma of unknown kind " + std::to_string(T.P0)).c_str());
    }
    }
    break;
  case ThreadState::Exited:
    return "exited";
  case ThreadState::Ready:
  case ThreadState::Running:
    return "ready";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

struct sigaction SavedSegv, SavedBus;

/// SIGSEGV / SIGBUS while a fiber of this OS thread runs: leave the fiber
/// for the scheduler, which reports the fault. Any other fault goes to the
/// previous handler (the faulting instruction runs again under it).
void onFault(int Sig, siginfo_t *Info, void *) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T) {
    sigaction(Sig, Sig == SIGSEGV ? &SavedSegv : &SavedBus, nullptr);
    return;
  }
  L->FaultSignal = Sig;
  L->FaultAddress = reinterpret_cast<uint64_t>(Info->si_addr);
  L->FaultThread = T;
  siglongjmp(L->FaultJump, 1);
}

/// Catches faults of the fibers for the lifetime of a launch, on an
/// alternate signal stack (a fiber that overflowed its stack has none
/// left).
class FaultGuard {
public:
  FaultGuard() : AltStack(64 * 1024) {
    stack_t Stack = {};
    Stack.ss_sp = AltStack.data();
    Stack.ss_size = AltStack.size();
    sigaltstack(&Stack, &OldStack);
    struct sigaction Action = {};
    Action.sa_sigaction = &onFault;
    Action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&Action.sa_mask);
    sigaction(SIGSEGV, &Action, &SavedSegv);
    sigaction(SIGBUS, &Action, &SavedBus);
  }
  ~FaultGuard() {
    sigaction(SIGSEGV, &SavedSegv, nullptr);
    sigaction(SIGBUS, &SavedBus, nullptr);
    sigaltstack(&OldStack, nullptr);
  }
  FaultGuard(const FaultGuard &) = delete;
  FaultGuard &operator=(const FaultGuard &) = delete;

private:
  std::vector<char> AltStack;
  stack_t OldStack = {};
};

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

class NvEmuDevice : public HostMemoryDeviceImpl {
public:
  static constexpr uint64_t Alignment = 256;

  /// \p StackBytes: the stack of each fiber.
  explicit NvEmuDevice(size_t StackBytes) : StackBytes(StackBytes) {
    P = Platform::NvEmu;
    Name = "NVIDIA emulator (CPU)";
    Arch = "sm_90a";
  }
  ~NvEmuDevice() override { std::free(SharedStorage); }

  Expected<uint64_t> allocate(uint64_t Bytes) override {
    uint64_t Rounded = std::max<uint64_t>(Alignment, (Bytes + Alignment - 1) /
                                                         Alignment * Alignment);
    void *Mem = std::aligned_alloc(Alignment, Rounded);
    if (!Mem)
      return makeError("out of host memory allocating " +
                       std::to_string(Bytes) + " bytes");
    auto Address = reinterpret_cast<uint64_t>(Mem);
    std::lock_guard<std::mutex> G(AllocLock);
    Allocations[Address] = Bytes;
    return Address;
  }
  void release(uint64_t Address) override {
    {
      std::lock_guard<std::mutex> G(AllocLock);
      Allocations.erase(Address);
    }
    std::free(reinterpret_cast<void *>(Address));
  }

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

  /// Runs \p Entry over \p Grid (one launch at a time per device).
  Error run(const std::string &Kernel, EmuEntry Entry,
            const LaunchConfig &Config, const std::array<uint32_t, 3> &Grid,
            void **Args);

  // Used by the ops table while a launch runs.
  bool findAllocation(Launch &L, uint64_t Address, uint64_t Bytes);
  std::string describeGlobal(uint64_t Address);
  void checkShared(Launch &L, EmuThread &T, uint64_t Offset, uint64_t Bytes,
                   SharedAccess Kind);
  void advanceEpoch(Launch &L);
  void dropPendingCopies(Launch &L);

  std::vector<std::unique_ptr<EmuThread>> Threads;

private:
  void runBlock(Launch &L);

  std::mutex LaunchLock;
  std::mutex AllocLock;
  std::map<uint64_t, uint64_t> Allocations; // Base -> requested bytes.
  size_t StackBytes;
  std::vector<std::unique_ptr<FiberStack>> Stacks;
  uint8_t *SharedStorage = nullptr;
  size_t SharedCapacity = 0;
  std::vector<ShadowByte> Shadow;
  uint32_t Epoch = 1;
};

//===----------------------------------------------------------------------===//
// Errors and scheduling
//===----------------------------------------------------------------------===//

void addError(Launch &L, std::string Msg) {
  ++L.TotalErrors;
  if (L.Errors.size() < MaxQuotedErrors)
    L.Errors.push_back(std::move(Msg));
}

/// Counts an error without building its message when it would not be
/// quoted anyway (checks in hot loops); returns true in that case.
bool countedOnly(Launch &L) {
  if (L.Errors.size() < MaxQuotedErrors)
    return false;
  ++L.TotalErrors;
  return true;
}

std::string blockName(const Launch &L) {
  return "block (" + std::to_string(L.Block[0]) + "," +
         std::to_string(L.Block[1]) + "," + std::to_string(L.Block[2]) + ")";
}

/// " (block (x,y,z), thread t)".
std::string where(const Launch &L, const EmuThread &T) {
  return " (" + blockName(L) + ", thread " + std::to_string(T.Tid) + ")";
}

void makeReady(Launch &L, EmuThread &T) {
  T.State = ThreadState::Ready;
  L.ReadyQueue[(L.ReadyHead + L.ReadyCount) % L.ReadyQueue.size()] = &T;
  ++L.ReadyCount;
}

/// Suspends the running fiber until the scheduler resumes it.
void suspend(Launch &L, EmuThread &T) { Context::swap(T.Ctx, L.Scheduler); }

void releaseBarrier(Launch &L, uint32_t Id, EmuThread *Caller) {
  for (auto &T : L.Dev->Threads) {
    if (T->Tid >= L.Threads)
      break;
    if (T->State != ThreadState::AtBarrier || T->BarrierId != Id)
      continue;
    if (T.get() == Caller)
      T->State = ThreadState::Running;
    else
      makeReady(L, *T);
  }
  L.AtBarrier[Id] = 0;
  L.Dev->advanceEpoch(L);
}

//===----------------------------------------------------------------------===//
// Access checks
//===----------------------------------------------------------------------===//

bool inStack(const EmuThread &T, uint64_t Address, uint64_t Bytes) {
  auto Low = reinterpret_cast<uint64_t>(T.Stack->low());
  auto High = reinterpret_cast<uint64_t>(T.Stack->high());
  return Address >= Low && Address <= High && Bytes <= High - Address;
}

bool inShared(const Launch &L, uint64_t Address, uint64_t Bytes,
              uint64_t &Offset) {
  auto Base = reinterpret_cast<uint64_t>(L.Shared);
  if (Address < Base || Address - Base > L.SharedBytes ||
      Bytes > L.SharedBytes - (Address - Base))
    return false;
  Offset = Address - Base;
  return true;
}

std::string signedOffset(uint64_t Address, uint64_t Base) {
  return Address >= Base ? std::to_string(Address - Base)
                         : "-" + std::to_string(Base - Address);
}

/// Checks an access by \p T; records an error and returns false when it is
/// not allowed.
bool checkAccess(Launch &L, EmuThread &T, const void *Ptr, uint64_t Bytes,
                 uint32_t Flags) {
  if (Bytes == 0)
    return true;
  auto Address = reinterpret_cast<uint64_t>(Ptr);
  uint32_t Space = Flags & 0xffu;
  bool Write = Flags & TILE_EMU_ACCESS_WRITE;
  bool Atomic = Flags & TILE_EMU_ACCESS_ATOMIC;
  SharedAccess Kind = Flags & AccessAsyncIssue ? SharedAccess::AsyncIssue
                      : Write                  ? SharedAccess::Write
                                               : SharedAccess::Read;
  uint64_t Offset = 0;
  switch (Space) {
  case TILE_EMU_GLOBAL:
    if (L.Dev->findAllocation(L, Address, Bytes))
      return true;
    break;
  case TILE_EMU_SHARED:
    if (inShared(L, Address, Bytes, Offset)) {
      if (!Atomic)
        L.Dev->checkShared(L, T, Offset, Bytes, Kind);
      return true;
    }
    break;
  case TILE_EMU_GENERIC:
    if (inShared(L, Address, Bytes, Offset)) {
      if (!Atomic)
        L.Dev->checkShared(L, T, Offset, Bytes, Kind);
      return true;
    }
    if (L.Dev->findAllocation(L, Address, Bytes) || inStack(T, Address, Bytes))
      return true;
    break;
  case TILE_EMU_LOCAL:
    if (inStack(T, Address, Bytes))
      return true;
    break;
  case TILE_EMU_CONST:
    return true; // Module constants: not tracked.
  default:
    addError(L, "access in unknown address space " + std::to_string(Space) +
                    where(L, T));
    return false;
  }
  if (countedOnly(L))
    return false;
  std::string What;
  auto SharedBase = reinterpret_cast<uint64_t>(L.Shared);
  if (Space == TILE_EMU_SHARED)
    What = "offset " + signedOffset(Address, SharedBase) + " from the " +
           std::to_string(L.SharedBytes) + "-byte dynamic shared memory";
  else if (Space == TILE_EMU_LOCAL)
    What = "address " + hex(Address) + " (outside the thread's stack)";
  else
    What = L.Dev->describeGlobal(Address);
  addError(L, "out-of-bounds " + std::string(spaceName(Space)) + " " +
                  (Write ? "write" : "read") + " of " + std::to_string(Bytes) +
                  " bytes at " + What + where(L, T));
  return false;
}

bool NvEmuDevice::findAllocation(Launch &L, uint64_t Address, uint64_t Bytes) {
  if (Address >= L.CachedBase && Address - L.CachedBase <= L.CachedSize &&
      Bytes <= L.CachedSize - (Address - L.CachedBase))
    return true;
  std::lock_guard<std::mutex> G(AllocLock);
  auto It = Allocations.upper_bound(Address);
  if (It == Allocations.begin())
    return false;
  --It;
  uint64_t Base = It->first, Size = It->second;
  if (Address - Base > Size || Bytes > Size - (Address - Base))
    return false;
  L.CachedBase = Base;
  L.CachedSize = Size;
  return true;
}

std::string NvEmuDevice::describeGlobal(uint64_t Address) {
  std::lock_guard<std::mutex> G(AllocLock);
  // The allocation just below the address, else the one just above.
  auto It = Allocations.upper_bound(Address);
  if (It != Allocations.begin()) {
    --It;
  } else if (It == Allocations.end()) {
    return "address " + hex(Address) + " (no allocation is live)";
  }
  return "offset " + signedOffset(Address, It->first) + " from the " +
         std::to_string(It->second) + "-byte allocation at " + hex(It->first);
}

void NvEmuDevice::advanceEpoch(Launch &L) {
  if (++Epoch == 0) {
    // Wrapped around: forget the history (epoch 0 is never current) but
    // not the copies in flight.
    for (ShadowByte &S : Shadow) {
      uint16_t Pending = S.Pending;
      S = ShadowByte();
      S.Pending = Pending;
    }
    Epoch = 1;
    L.BlockEpoch = 0;
  }
}

void NvEmuDevice::checkShared(Launch &L, EmuThread &T, uint64_t Offset,
                              uint64_t Bytes, SharedAccess Kind) {
  auto Me = static_cast<uint16_t>(T.Tid);
  bool Write = Kind != SharedAccess::Read;
  // The first problem of the access: a race with thread Other, a byte
  // with a copy in flight, or a read of a byte nobody wrote.
  enum { None, Race, InFlight, Uninitialized } Problem = None;
  int Other = -1;
  uint64_t At = 0;
  bool OtherWrote = false;
  for (uint64_t I = Offset; I < Offset + Bytes; ++I) {
    ShadowByte &S = Shadow[I];
    if (Problem == None) {
      At = I;
      if (S.Pending != 0 &&
          (Kind == SharedAccess::Read || Kind == SharedAccess::Write)) {
        Problem = InFlight;
      } else if (S.WriteEpoch == Epoch && S.Writer != Me) {
        Problem = Race;
        Other = S.Writer;
        OtherWrote = true;
      } else if (Write && S.ReadEpoch == Epoch) {
        for (uint8_t R = 0; R < S.NumReaders; ++R)
          if (S.Readers[R] != Me) {
            Problem = Race;
            Other = S.Readers[R];
            break;
          }
      } else if (!Write && S.WriteEpoch < L.BlockEpoch) {
        Problem = Uninitialized;
      }
    }
    if (Write) {
      S.WriteEpoch = Epoch;
      S.Writer = Me;
      if (Kind == SharedAccess::AsyncIssue)
        ++S.Pending;
      else if (Kind == SharedAccess::AsyncRetire && S.Pending != 0)
        --S.Pending;
    } else if (S.ReadEpoch != Epoch) {
      S.ReadEpoch = Epoch;
      S.Readers[0] = Me;
      S.NumReaders = 1;
    } else if (S.NumReaders == 1 && S.Readers[0] != Me) {
      S.Readers[1] = Me;
      S.NumReaders = 2;
    }
  }
  if (Problem == None || countedOnly(L))
    return;
  std::string Access =
      "thread " + std::to_string(T.Tid) + " " + (Write ? "writes" : "reads") +
      " byte " + std::to_string(At) + " (access of " + std::to_string(Bytes) +
      " bytes at offset " + std::to_string(Offset) + ")";
  switch (Problem) {
  case Race:
    addError(L, "shared-memory race: " + Access + ", which thread " +
                    std::to_string(Other) + " " +
                    (OtherWrote ? "wrote" : "read") +
                    " since the last barrier (" + blockName(L) + ")");
    break;
  case InFlight:
    addError(L, "cp.async hazard: " + Access +
                    " while a cp.async onto it is in flight (not yet "
                    "retired by cp.async.wait_group) (" +
                    blockName(L) + ")");
    break;
  case Uninitialized:
    addError(L, "uninitialized shared-memory read: " + Access +
                    ", which no thread of the block has written (" +
                    blockName(L) + ")");
    break;
  case None:
    break;
  }
}

void NvEmuDevice::dropPendingCopies(Launch &L) {
  for (uint32_t I = 0; I < L.Threads; ++I) {
    EmuThread &T = *Threads[I];
    for (size_t C = T.CopyHead; C < T.Copies.size(); ++C) {
      uint64_t Offset;
      const AsyncCopy &Copy = T.Copies[C];
      if (!inShared(L, reinterpret_cast<uint64_t>(Copy.Dst), Copy.Bytes,
                    Offset))
        continue;
      for (uint64_t B = Offset; B < Offset + Copy.Bytes; ++B)
        if (Shadow[B].Pending != 0)
          --Shadow[B].Pending;
    }
    T.Copies.clear();
    T.CopyHead = 0;
  }
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

void retireCopy(Launch &L, EmuThread &T, const AsyncCopy &C) {
  // The write lands now: for the race detector a write by T in this epoch.
  uint64_t Offset;
  if (!inShared(L, reinterpret_cast<uint64_t>(C.Dst), C.Bytes, Offset))
    return; // Reported at issue.
  L.Dev->checkShared(L, T, Offset, C.Bytes, SharedAccess::AsyncRetire);
  std::memcpy(C.Dst, C.Data, C.SrcBytes);
  std::memset(C.Dst + C.SrcBytes, 0, C.Bytes - C.SrcBytes);
}

/// Retires T's copies of groups below \p Limit (all with UINT64_MAX).
void retireCopies(Launch &L, EmuThread &T, uint64_t Limit) {
  while (T.CopyHead < T.Copies.size() && T.Copies[T.CopyHead].Group < Limit)
    retireCopy(L, T, T.Copies[T.CopyHead++]);
  if (T.CopyHead == T.Copies.size()) {
    T.Copies.clear();
    T.CopyHead = 0;
  }
}

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

std::string warpName(const Launch &L, unsigned Warp) {
  return blockName(L) + ", warp " + std::to_string(Warp);
}

/// Lists the lanes in \p Mask by what they wait on ("lanes 0-15 at ...").
std::string describeLanes(Launch &L, unsigned Warp, uint32_t Mask) {
  std::string Out;
  unsigned Lane = 0;
  while (Lane < WarpSize) {
    if (!(Mask >> Lane & 1)) {
      ++Lane;
      continue;
    }
    const EmuThread &T = *L.Dev->Threads[Warp * WarpSize + Lane];
    std::string What = describeWait(T);
    unsigned Last = Lane;
    while (Last + 1 < WarpSize && (Mask >> (Last + 1) & 1) &&
           describeWait(*L.Dev->Threads[Warp * WarpSize + Last + 1]) == What)
      ++Last;
    if (!Out.empty())
      Out += ", ";
    Out += laneRange(Lane, Last) + " " + What;
    Lane = Last + 1;
  }
  return Out;
}

void zeroResults(Launch &L, unsigned Warp, uint32_t Lanes) {
  for (unsigned Lane = 0; Lane < WarpSize; ++Lane) {
    if (!(Lanes >> Lane & 1))
      continue;
    EmuThread &T = *L.Dev->Threads[Warp * WarpSize + Lane];
    T.Result = 0;
    T.Pred = 0;
    unsigned N = 0;
    if (T.Coll == CollectiveKind::Ldmatrix)
      N = T.P0 <= 4 ? T.P0 : 0;
    else if (T.Coll == CollectiveKind::Mma)
      N = mmaKindInfo(T.P0) ? mmaKindInfo(T.P0)->DRegs : 0;
    for (unsigned I = 0; I < N; ++I)
      T.Out[I] = 0;
  }
}

/// Computes the results of the collective the arrived lanes of \p Warp wait
/// in, after checking that they agree on it.
void completeCollective(Launch &L, unsigned Warp) {
  WarpState &W = L.Warps[Warp];
  uint32_t Lanes = W.Arrived;
  auto Thread = [&](unsigned Lane) -> EmuThread & {
    return *L.Dev->Threads[Warp * WarpSize + Lane];
  };
  unsigned First = static_cast<unsigned>(__builtin_ctz(Lanes));
  const EmuThread &F = Thread(First);
  for (unsigned I = First + 1; I < WarpSize; ++I) {
    if (!(Lanes >> I & 1))
      continue;
    const EmuThread &T = Thread(I);
    if (T.Coll != F.Coll || T.P0 != F.P0 || T.P1 != F.P1) {
      addError(L, "divergent warp collective (" + warpName(L, Warp) +
                      "): " + describeLanes(L, Warp, Lanes));
      zeroResults(L, Warp, Lanes);
      return;
    }
  }

  if (F.Coll == CollectiveKind::Shfl) {
    uint32_t Mask = F.P1;
    if (F.P0 > TILE_EMU_SHFL_IDX) {
      addError(L, "shfl.sync with unknown mode " + std::to_string(F.P0) + " (" +
                      warpName(L, Warp) + ")");
      zeroResults(L, Warp, Lanes);
      return;
    }
    if (uint32_t Outside = Lanes & ~Mask) {
      addError(L, "shfl.sync executed by " +
                      laneRange(__builtin_ctz(Outside),
                                31 - __builtin_clz(Outside)) +
                      " outside its member_mask " + hex(Mask) + " (" +
                      warpName(L, Warp) + ")");
      zeroResults(L, Warp, Lanes);
      return;
    }
    uint32_t Results[WarpSize];
    bool Bad = false;
    for (unsigned I = 0; I < WarpSize; ++I) {
      if (!(Lanes >> I & 1))
        continue;
      EmuThread &T = Thread(I);
      bool InRange = false;
      unsigned J = shflSourceLane(F.P0, I, T.B, T.C, InRange);
      T.Pred = InRange;
      if (!(Lanes >> J & 1)) {
        // PTX leaves the value undefined: the source lane has exited (or
        // does not exist).
        if (!Bad)
          addError(L, "shfl.sync." + std::string(shflModeName(F.P0)) +
                          ": lane " + std::to_string(I) + " reads lane " +
                          std::to_string(J) + ", which has exited (" +
                          warpName(L, Warp) + ")");
        Bad = true;
        Results[I] = 0;
        continue;
      }
      if (!(Mask >> J & 1)) {
        if (!Bad)
          addError(L, "shfl.sync." + std::string(shflModeName(F.P0)) +
                          ": lane " + std::to_string(I) + " reads lane " +
                          std::to_string(J) + ", which is not in member_mask " +
                          hex(Mask) + " (" + warpName(L, Warp) + ")");
        Bad = true;
        Results[I] = 0;
        continue;
      }
      Results[I] = Thread(J).Value;
    }
    for (unsigned I = 0; I < WarpSize; ++I)
      if (Lanes >> I & 1)
        Thread(I).Result = Results[I];
    return;
  }

  // ldmatrix and mma are .aligned: the whole warp executes them.
  if (Lanes != 0xffffffffu) {
    addError(L, describeWait(F).substr(3) +
                    " needs all 32 lanes of the warp, "
                    "but only " +
                    std::to_string(__builtin_popcount(Lanes)) +
                    " have not exited (" + warpName(L, Warp) + ")");
    zeroResults(L, Warp, Lanes);
    return;
  }

  if (F.Coll == CollectiveKind::Ldmatrix) {
    unsigned Count = F.P0;
    if ((Count != 1 && Count != 2 && Count != 4) || F.P1 > 1) {
      addError(L, "unsupported ldmatrix .x" + std::to_string(Count) +
                      (F.P1 ? " .trans" : "") + " (" + warpName(L, Warp) + ")");
      zeroResults(L, Warp, Lanes);
      return;
    }
    uint16_t Rows[4][8][8];
    for (unsigned M = 0; M < Count; ++M) {
      for (unsigned R = 0; R < 8; ++R) {
        EmuThread &T = Thread(M * 8 + R);
        auto Address = reinterpret_cast<uint64_t>(T.Address);
        std::memset(Rows[M][R], 0, 16);
        if (Address % 16 != 0) {
          addError(L, "ldmatrix row address " + hex(Address) +
                          " is not 16-byte aligned" + where(L, T));
          continue;
        }
        if (checkAccess(L, T, T.Address, 16, TILE_EMU_SHARED))
          std::memcpy(Rows[M][R], T.Address, 16);
      }
    }
    for (unsigned I = 0; I < WarpSize; ++I)
      for (unsigned M = 0; M < Count; ++M)
        Thread(I).Out[M] = ldmatrixRegister(Rows[M], I, F.P1 != 0);
    return;
  }

  // mma.sync.
  const MmaKindInfo *Info = mmaKindInfo(F.P0);
  if (!Info) {
    addError(L, "unknown mma kind " + std::to_string(F.P0) + " (" +
                    warpName(L, Warp) + ")");
    return;
  }
  uint32_t A[WarpSize][4] = {}, B[WarpSize][2] = {}, C[WarpSize][4] = {},
           D[WarpSize][4];
  for (unsigned I = 0; I < WarpSize; ++I) {
    const EmuThread &T = Thread(I);
    std::memcpy(A[I], T.MmaA, Info->ARegs * 4);
    std::memcpy(B[I], T.MmaB, Info->BRegs * 4);
    std::memcpy(C[I], T.MmaC, Info->CRegs * 4);
  }
  mmaWarp(F.P0, A, B, C, D);
  for (unsigned I = 0; I < WarpSize; ++I)
    std::memcpy(Thread(I).Out, D[I], Info->DRegs * 4);
}

/// The calling thread \p T has filled in its collective: wait for the warp.
void arriveAtCollective(Launch &L, EmuThread &T) {
  unsigned Warp = T.Tid / WarpSize;
  WarpState &W = L.Warps[Warp];
  W.Arrived |= 1u << (T.Tid % WarpSize);
  T.State = ThreadState::AtCollective;
  if (W.Arrived != W.Live) {
    suspend(L, T);
    return;
  }
  completeCollective(L, Warp);
  uint32_t Lanes = W.Arrived;
  W.Arrived = 0;
  for (unsigned I = 0; I < WarpSize; ++I) {
    if (!(Lanes >> I & 1))
      continue;
    EmuThread &Other = *L.Dev->Threads[Warp * WarpSize + I];
    if (&Other == &T)
      Other.State = ThreadState::Running;
    else
      makeReady(L, Other);
  }
}

/// Bookkeeping when \p T's entry returns; may complete a collective or a
/// barrier the remaining threads wait in.
void exitThread(Launch &L, EmuThread &T) {
  retireCopies(L, T, UINT64_MAX);
  T.State = ThreadState::Exited;
  --L.LiveThreads;
  unsigned Warp = T.Tid / WarpSize;
  WarpState &W = L.Warps[Warp];
  W.Live &= ~(1u << (T.Tid % WarpSize));
  if (W.Arrived != 0 && W.Arrived == W.Live) {
    completeCollective(L, Warp);
    uint32_t Lanes = W.Arrived;
    W.Arrived = 0;
    for (unsigned I = 0; I < WarpSize; ++I)
      if (Lanes >> I & 1)
        makeReady(L, *L.Dev->Threads[Warp * WarpSize + I]);
  }
  for (uint32_t Id = 0; Id < NumBarriers; ++Id)
    if (L.AtBarrier[Id] != 0 && L.AtBarrier[Id] == L.LiveThreads)
      releaseBarrier(L, Id, nullptr);
}

void fiberMain(void *Arg) {
  auto &T = *static_cast<EmuThread *>(Arg);
  Launch &L = *CurrentLaunch;
  L.Entry(L.Args);
  exitThread(L, T);
  Context::swap(T.Ctx, L.Scheduler);
  std::abort(); // An exited fiber is never resumed.
}

//===----------------------------------------------------------------------===//
// The ops table
//===----------------------------------------------------------------------===//

uint32_t opSreg(uint32_t Which) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 0;
  switch (Which) {
  case TILE_EMU_TID_X:
    return T->Tid;
  case TILE_EMU_TID_Y:
  case TILE_EMU_TID_Z:
    return 0;
  case TILE_EMU_NTID_X:
    return L->Threads;
  case TILE_EMU_NTID_Y:
  case TILE_EMU_NTID_Z:
    return 1;
  case TILE_EMU_CTAID_X:
  case TILE_EMU_CTAID_Y:
  case TILE_EMU_CTAID_Z:
    return L->Block[Which - TILE_EMU_CTAID_X];
  case TILE_EMU_NCTAID_X:
  case TILE_EMU_NCTAID_Y:
  case TILE_EMU_NCTAID_Z:
    return L->Grid[Which - TILE_EMU_NCTAID_X];
  case TILE_EMU_LANEID:
    return T->Tid % WarpSize;
  case TILE_EMU_WARPID:
    return T->Tid / WarpSize;
  }
  addError(*L,
           "unknown special register " + std::to_string(Which) + where(*L, *T));
  return 0;
}

void *opSharedBase() {
  Launch *L = CurrentLaunch;
  return L ? L->Shared : nullptr;
}

void opBarrier(uint32_t Id) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  if (Id >= NumBarriers) {
    addError(*L, "barrier id " + std::to_string(Id) +
                     " out of range (PTX has barriers 0-15)" + where(*L, *T));
    Id = 0;
  }
  T->State = ThreadState::AtBarrier;
  T->BarrierId = Id;
  if (++L->AtBarrier[Id] == L->LiveThreads)
    releaseBarrier(*L, Id, T);
  else
    suspend(*L, *T);
}

uint32_t opShfl(uint32_t Mode, uint32_t Mask, uint32_t Value, uint32_t B,
                uint32_t C, uint32_t *PredOut) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 0;
  T->Coll = CollectiveKind::Shfl;
  T->P0 = Mode;
  T->P1 = Mask;
  T->Value = Value;
  T->B = B;
  T->C = C;
  T->Out = nullptr;
  arriveAtCollective(*L, *T);
  if (PredOut)
    *PredOut = T->Pred;
  return T->Result;
}

void opLdmatrix(uint32_t Count, uint32_t Trans, const void *RowAddress,
                uint32_t *Out) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  T->Coll = CollectiveKind::Ldmatrix;
  T->P0 = Count;
  T->P1 = Trans;
  T->Address = RowAddress;
  T->Out = Out;
  arriveAtCollective(*L, *T);
}

void opMma(uint32_t Kind, const uint32_t *A, const uint32_t *B,
           const uint32_t *C, uint32_t *D) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  T->Coll = CollectiveKind::Mma;
  T->P0 = Kind;
  T->P1 = 0;
  T->MmaA = A;
  T->MmaB = B;
  T->MmaC = C;
  T->Out = D;
  arriveAtCollective(*L, *T);
}

void opCpAsync(void *Dst, const void *Src, uint32_t Bytes, uint32_t SrcBytes) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  if (Bytes != 4 && Bytes != 8 && Bytes != 16) {
    addError(*L, "cp.async of " + std::to_string(Bytes) +
                     " bytes (PTX allows 4, 8 or 16)" + where(*L, *T));
    return;
  }
  if (SrcBytes > Bytes) {
    addError(*L, "cp.async with src-size " + std::to_string(SrcBytes) +
                     " above its cp-size " + std::to_string(Bytes) +
                     where(*L, *T));
    SrcBytes = Bytes;
  }
  auto DstAddr = reinterpret_cast<uint64_t>(Dst);
  auto SrcAddr = reinterpret_cast<uint64_t>(Src);
  if (DstAddr % Bytes != 0 || (SrcBytes != 0 && SrcAddr % Bytes != 0)) {
    addError(*L, "cp.async of " + std::to_string(Bytes) + " bytes from " +
                     hex(SrcAddr) + " to " + hex(DstAddr) +
                     " is not aligned to its size" + where(*L, *T));
    return;
  }
  // The issue counts as a write (it may land any time until retired).
  if (!checkAccess(*L, *T, Dst, Bytes,
                   TILE_EMU_SHARED | TILE_EMU_ACCESS_WRITE | AccessAsyncIssue))
    return;
  AsyncCopy C;
  C.Dst = static_cast<uint8_t *>(Dst);
  C.Bytes = Bytes;
  C.SrcBytes = SrcBytes;
  C.Group = T->Committed;
  std::memset(C.Data, 0, sizeof(C.Data));
  // The source is read now (a snapshot): later writes to it do not show.
  if (SrcBytes != 0 && checkAccess(*L, *T, Src, SrcBytes, TILE_EMU_GLOBAL))
    std::memcpy(C.Data, Src, SrcBytes);
  T->Copies.push_back(C);
}

void opCpAsyncCommit() {
  if (EmuThread *T = CurrentThread)
    ++T->Committed;
}

void opCpAsyncWait(uint32_t Pending) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  // Committed groups 0 .. Committed-1; at most Pending may stay in flight.
  // Copies not yet committed are not waited for.
  if (T->Committed > Pending)
    retireCopies(*L, *T, T->Committed - Pending);
}

uint32_t opAccess(const void *Address, uint32_t Bytes, uint32_t Flags) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 1;
  return checkAccess(*L, *T, Address, Bytes, Flags) ? 1 : 0;
}

float opMathF32(uint32_t Fn, float X) {
  switch (Fn) {
  case TILE_EMU_EX2_APPROX:
    return std::exp2(X);
  case TILE_EMU_LG2_APPROX:
    return std::log2(X);
  case TILE_EMU_RSQRT_APPROX:
    return 1.0f / std::sqrt(X);
  case TILE_EMU_RCP_APPROX:
    return 1.0f / X;
  case TILE_EMU_SQRT_APPROX:
    return std::sqrt(X);
  case TILE_EMU_SIN_APPROX:
    return std::sin(X);
  case TILE_EMU_COS_APPROX:
    return std::cos(X);
  case TILE_EMU_TANH_APPROX:
    return std::tanh(X);
  }
  if (Launch *L = CurrentLaunch)
    addError(*L, "unknown math function " + std::to_string(Fn) +
                     (CurrentThread ? where(*L, *CurrentThread) : ""));
  return 0.0f;
}

void opUnsupported(const char *What) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  addError(*L, std::string("unsupported operation: ") +
                   (What ? What : "(unnamed)") + where(*L, *T));
}

const tile_emu_ops Ops = {
    TILE_EMU_ABI_VERSION,
    opSreg,
    opSharedBase,
    opBarrier,
    opShfl,
    opLdmatrix,
    opMma,
    opCpAsync,
    opCpAsyncCommit,
    opCpAsyncWait,
    opAccess,
    opMathF32,
    opUnsupported,
};

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

class NvEmuModule : public ModuleImpl {
public:
  NvEmuModule(NvEmuDevice &Dev, void *Handle, std::string Path)
      : Dev(Dev), Handle(Handle), Path(std::move(Path)) {}
  ~NvEmuModule() override { dlclose(Handle); }

  Expected<void *> getFunction(const std::string &Name,
                               uint32_t SharedBytes) override {
    if (SharedBytes > MaxSharedBytes)
      return makeError("kernel '" + Name + "' needs " +
                       std::to_string(SharedBytes) +
                       " bytes of dynamic shared memory; the emulated sm_90 "
                       "has at most " +
                       std::to_string(MaxSharedBytes));
    std::string Symbol = TILE_EMU_ENTRY_PREFIX + Name;
    dlerror();
    void *F = dlsym(Handle, Symbol.c_str());
    if (!F)
      return makeError("entry '" + Name + "' (symbol " + Symbol +
                       ") not found in " + Path);
    std::lock_guard<std::mutex> G(Lock);
    Names[F] = Name;
    return F;
  }

  Error launch(void *Function, const LaunchConfig &Config,
               const std::array<uint32_t, 3> &Grid, void **Args,
               void *) override {
    std::string Name;
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = Names.find(Function);
      Name = It != Names.end() ? It->second : "?";
    }
    return Dev.run(Name, reinterpret_cast<EmuEntry>(Function), Config, Grid,
                   Args);
  }

private:
  NvEmuDevice &Dev;
  void *Handle;
  std::string Path;
  std::mutex Lock;
  std::map<void *, std::string> Names;
};

Expected<std::shared_ptr<ModuleImpl>>
makeModule(NvEmuDevice &Dev, Expected<void *> Handle, const std::string &Path) {
  if (!Handle)
    return Handle.takeError();
  auto Bind = reinterpret_cast<EmuBind>(dlsym(*Handle, TILE_EMU_BIND_SYMBOL));
  if (!Bind) {
    dlclose(*Handle);
    return makeError(Path + " is not an nvemu-so code object: it does not "
                            "export " TILE_EMU_BIND_SYMBOL);
  }
  Bind(&Ops);
  return std::shared_ptr<ModuleImpl>(
      std::make_shared<NvEmuModule>(Dev, *Handle, Path));
}

Expected<std::shared_ptr<ModuleImpl>>
NvEmuDevice::loadModule(const std::string &Path, ObjectKind) {
  return makeModule(*this, openSharedObject(Path, "nvemu-so code object"),
                    Path);
}

Expected<std::shared_ptr<ModuleImpl>>
NvEmuDevice::loadModuleData(const std::vector<uint8_t> &Data, ObjectKind,
                            const std::string &Name) {
  return makeModule(*this, openSharedObjectData(Data, "nvemu-so code object"),
                    Name);
}

Error NvEmuDevice::run(const std::string &Kernel, EmuEntry Entry,
                       const LaunchConfig &Config,
                       const std::array<uint32_t, 3> &Grid, void **Args) {
  if (Config.ThreadsPerBlock == 0 ||
      Config.ThreadsPerBlock > MaxThreadsPerBlock)
    return makeError("cannot launch " + std::to_string(Config.ThreadsPerBlock) +
                     " threads per block (the emulated sm_90 allows 1-" +
                     std::to_string(MaxThreadsPerBlock) + ")");
  if (Config.SharedBytes > MaxSharedBytes)
    return makeError("cannot launch with " +
                     std::to_string(Config.SharedBytes) +
                     " bytes of dynamic shared memory (the emulated sm_90 "
                     "allows at most " +
                     std::to_string(MaxSharedBytes) + ")");
  std::lock_guard<std::mutex> Serial(LaunchLock);
  if (CurrentLaunch)
    return makeError("a kernel launched from inside an emulated kernel");

  // Fibers, stacks and shared memory are kept from launch to launch.
  uint32_t NumThreads = Config.ThreadsPerBlock;
  while (Stacks.size() < NumThreads) {
    Expected<std::unique_ptr<FiberStack>> S = FiberStack::create(StackBytes);
    if (!S)
      return S.takeError();
    Stacks.push_back(std::move(*S));
  }
  while (Threads.size() < NumThreads) {
    Threads.push_back(std::make_unique<EmuThread>());
    Threads.back()->Tid = static_cast<uint32_t>(Threads.size() - 1);
    Threads.back()->Stack = Stacks[Threads.size() - 1].get();
  }
  if (SharedCapacity < Config.SharedBytes || !SharedStorage) {
    std::free(SharedStorage);
    SharedCapacity = std::max<size_t>(Config.SharedBytes, 128);
    SharedStorage = static_cast<uint8_t *>(
        std::aligned_alloc(128, (SharedCapacity + 127) / 128 * 128));
    if (!SharedStorage) {
      SharedCapacity = 0;
      return makeError("out of host memory for the shared memory");
    }
    Shadow.assign(SharedCapacity, ShadowByte());
  }

  Launch L;
  L.Dev = this;
  L.Kernel = Kernel;
  L.Entry = Entry;
  L.Args = Args;
  L.Threads = NumThreads;
  L.SharedBytes = Config.SharedBytes;
  L.Grid = Grid;
  L.Shared = SharedStorage;
  L.ReadyQueue.assign(NumThreads, nullptr);
  L.Warps.resize((NumThreads + WarpSize - 1) / WarpSize);

  {
    FaultGuard Guard;
    CurrentLaunch = &L;
    for (uint32_t Z = 0; Z < Grid[2] && !L.FaultSignal; ++Z)
      for (uint32_t Y = 0; Y < Grid[1] && !L.FaultSignal; ++Y)
        for (uint32_t X = 0; X < Grid[0] && !L.FaultSignal; ++X) {
          L.Block = {X, Y, Z};
          runBlock(L);
        }
    CurrentLaunch = nullptr;
    CurrentThread = nullptr;
  }

  if (L.TotalErrors == 0)
    return Error::success();
  std::string Msg = std::to_string(L.TotalErrors) + " error" +
                    (L.TotalErrors == 1 ? "" : "s") + " in emulated kernel '" +
                    Kernel + "' (grid (" + std::to_string(Grid[0]) + "," +
                    std::to_string(Grid[1]) + "," + std::to_string(Grid[2]) +
                    "), " + std::to_string(NumThreads) + " threads per block):";
  for (const std::string &E : L.Errors)
    Msg += "\n  " + E;
  if (L.TotalErrors > L.Errors.size())
    Msg += "\n  ... and " + std::to_string(L.TotalErrors - L.Errors.size()) +
           " more";
  return makeError(Msg);
}

void NvEmuDevice::runBlock(Launch &L) {
  std::memset(L.Shared, SharedPoison, L.SharedBytes);
  advanceEpoch(L);
  L.BlockEpoch = Epoch;
  L.ReadyHead = L.ReadyCount = 0;
  L.LiveThreads = L.Threads;
  std::fill(std::begin(L.AtBarrier), std::end(L.AtBarrier), 0);
  for (size_t W = 0; W < L.Warps.size(); ++W) {
    uint32_t Lanes = std::min<uint32_t>(WarpSize, L.Threads - W * WarpSize);
    L.Warps[W].Live = Lanes == WarpSize ? 0xffffffffu : (1u << Lanes) - 1;
    L.Warps[W].Arrived = 0;
  }
  for (uint32_t I = 0; I < L.Threads; ++I) {
    EmuThread &T = *Threads[I];
    T.Copies.clear();
    T.CopyHead = 0;
    T.Committed = 0;
    T.Ctx.start(*T.Stack, &fiberMain, &T);
    makeReady(L, T);
  }

  if (sigsetjmp(L.FaultJump, 1) != 0) {
    // A fiber faulted: the kernel touched memory it does not own without
    // (or despite) an access check, or overflowed its stack. Nothing can
    // be trusted any more: the launch ends here.
    CurrentThread = nullptr;
    EmuThread &T = *L.FaultThread;
    auto Low = reinterpret_cast<uint64_t>(T.Stack->low());
    auto Page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::string What =
        L.FaultAddress < Low && L.FaultAddress >= Low - Page
            ? "stack overflow: the " + std::to_string(StackBytes / 1024) +
                  "-KiB fiber stack is exhausted (TILE_NVEMU_STACK_KB sets "
                  "its size)"
            : std::string(L.FaultSignal == SIGBUS ? "bus error"
                                                  : "segmentation fault") +
                  " accessing address " + hex(L.FaultAddress);
    addError(L, What + where(L, T) + "; the rest of the launch is skipped");
    dropPendingCopies(L);
    return;
  }
  while (L.LiveThreads != 0) {
    if (L.ReadyCount == 0) {
      // Nobody can proceed: report what every warp waits on and abandon
      // the block.
      std::string Msg = "deadlock in " + blockName(L) +
                        ": every thread that has not exited waits";
      for (size_t W = 0; W < L.Warps.size(); ++W) {
        if (L.Warps[W].Live == 0)
          continue;
        Msg += "; warp " + std::to_string(W) + ": " +
               describeLanes(L, static_cast<unsigned>(W), L.Warps[W].Live);
      }
      addError(L, Msg);
      dropPendingCopies(L);
      break;
    }
    EmuThread *T = L.ReadyQueue[L.ReadyHead];
    L.ReadyHead = (L.ReadyHead + 1) % L.ReadyQueue.size();
    --L.ReadyCount;
    T->State = ThreadState::Running;
    CurrentThread = T;
    Context::swap(L.Scheduler, T->Ctx);
    CurrentThread = nullptr;
  }
}

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createNvEmuDevice() {
  size_t StackBytes = DefaultStackBytes;
  if (const char *Env = std::getenv("TILE_NVEMU_STACK_KB")) {
    char *End = nullptr;
    long KB = std::strtol(Env, &End, 10);
    if (*Env == '\0' || *End != '\0' || KB < 64 || KB > 65536)
      return makeError("TILE_NVEMU_STACK_KB must be an integer in [64, "
                       "65536], not '" +
                       std::string(Env) + "'");
    StackBytes = static_cast<size_t>(KB) * 1024;
  }
  return std::shared_ptr<DeviceImpl>(std::make_shared<NvEmuDevice>(StackBytes));
}
