//===- EmuCore.cpp - The machinery shared by the GPU emulators ------------===//
//
// Part of tilec. See EmuCore.h. A launch runs the blocks of the grid one
// after the other, in order (x fastest). A block's threads are fibers on the
// launching OS thread, run round-robin from a FIFO of ready fibers; a fiber
// runs until it blocks (at a barrier or a wave collective) or exits. The
// last thread to arrive completes the barrier or the collective and
// continues; the others become ready again. When no fiber is ready but some
// have not exited, the block has deadlocked: the error says what each wave
// waits on, and the block is abandoned (its fibers are never resumed).
//
// Every access the generated code checks is validated against the live
// allocations (global), the block's shared memory (shared / LDS) or the
// fiber's stack (local); shared-memory accesses also feed a race detector
// whose epochs are the intervals between block barriers, and are checked
// for reads of bytes never written in the block and for touching bytes that
// an NVIDIA cp.async still in flight targets. Errors are collected (the
// first few verbatim, the rest counted) and fail the launch once it has run
// to its end.
//
//===----------------------------------------------------------------------===//

#include "emulator/EmuCore.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

using namespace tile::rt;
using namespace tile::rt::emu;

thread_local Launch *tile::rt::emu::CurrentLaunch = nullptr;
thread_local EmuThread *tile::rt::emu::CurrentThread = nullptr;

namespace {
/// Errors of a launch quoted in full; the rest are counted.
constexpr size_t MaxQuotedErrors = 10;
/// Shared memory is garbage on a GPU: each block starts with this pattern.
constexpr uint8_t SharedPoison = 0xCD;
} // namespace

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string emu::hex(uint64_t V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

std::string emu::laneRange(unsigned First, unsigned Last) {
  return First == Last
             ? "lane " + std::to_string(First)
             : "lanes " + std::to_string(First) + "-" + std::to_string(Last);
}

void emu::addError(Launch &L, std::string Msg) {
  ++L.TotalErrors;
  if (L.Errors.size() < MaxQuotedErrors)
    L.Errors.push_back(std::move(Msg));
}

bool emu::countedOnly(Launch &L) {
  if (L.Errors.size() < MaxQuotedErrors)
    return false;
  ++L.TotalErrors;
  return true;
}

std::string emu::blockName(const Launch &L) {
  return std::string(L.Dev->target().Block) + " (" +
         std::to_string(L.Block[0]) + "," + std::to_string(L.Block[1]) + "," +
         std::to_string(L.Block[2]) + ")";
}

std::string emu::where(const Launch &L, const EmuThread &T) {
  return " (" + blockName(L) + ", " + L.Dev->target().Thread + " " +
         std::to_string(T.Tid) + ")";
}

std::string emu::waveName(const Launch &L, unsigned Wave) {
  return blockName(L) + ", " + L.Dev->target().Wave + " " +
         std::to_string(Wave);
}

EmuThread &emu::laneThread(Launch &L, unsigned Wave, unsigned Lane) {
  return *L.Dev->Threads[Wave * L.WaveSize + Lane];
}

std::string EmuDevice::describeWait(const EmuThread &T) const {
  switch (T.State) {
  case ThreadState::AtBarrier:
    return "at " + describeBarrier(T.BarrierId);
  case ThreadState::AtCollective:
    return "at " + describeCollective(T);
  case ThreadState::AtMbarrier:
    return "at " + describeMbarrierWait(T);
  case ThreadState::Exited:
    return "exited";
  case ThreadState::Ready:
  case ThreadState::Running:
    return "ready";
  }
  return "?";
}

std::string emu::describeLanes(Launch &L, unsigned Wave, uint64_t Mask) {
  std::string Out;
  unsigned Lane = 0;
  while (Lane < L.WaveSize) {
    if (!(Mask >> Lane & 1)) {
      ++Lane;
      continue;
    }
    std::string What = L.Dev->describeWait(laneThread(L, Wave, Lane));
    unsigned Last = Lane;
    while (Last + 1 < L.WaveSize && (Mask >> (Last + 1) & 1) &&
           L.Dev->describeWait(laneThread(L, Wave, Last + 1)) == What)
      ++Last;
    if (!Out.empty())
      Out += ", ";
    Out += laneRange(Lane, Last) + " " + What;
    Lane = Last + 1;
  }
  return Out;
}

void emu::opUnsupported(const char *What) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  addError(*L, std::string("unsupported operation: ") +
                   (What ? What : "(unnamed)") + where(*L, *T));
}

uint32_t emu::readRegister(const RegisterSpec *Table, uint32_t NumRegs,
                           uint32_t Which) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 0;
  if (Which >= NumRegs) {
    addError(*L, "unknown special register " + std::to_string(Which) +
                     where(*L, *T));
    return 0;
  }
  unsigned Dim = Table[Which].Dim;
  switch (Table[Which].What) {
  case RegisterSpec::ThreadId:
    return Dim == 0 ? T->Tid : 0;
  case RegisterSpec::BlockSize:
    return Dim == 0 ? L->Threads : 1;
  case RegisterSpec::BlockId:
    return L->Block[Dim];
  case RegisterSpec::GridSize:
    return L->Grid[Dim];
  case RegisterSpec::Lane:
    return T->Tid % L->WaveSize;
  case RegisterSpec::WaveId:
    return T->Tid / L->WaveSize;
  }
  return 0;
}

uint32_t emu::opAccess(const void *Address, uint32_t Bytes, uint32_t Flags) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 1;
  return checkAccess(*L, *T, Address, Bytes, Flags) ? 1 : 0;
}

float emu::mathF32(uint32_t Fn, float X,
                   float (*More)(uint32_t Fn, float X, bool &Known)) {
  switch (Fn) {
  case 0:
    return std::exp2(X);
  case 1:
    return std::log2(X);
  case 2:
    return 1.0f / std::sqrt(X);
  case 3:
    return 1.0f / X;
  case 4:
    return std::sqrt(X);
  }
  bool Known = true;
  float R = More(Fn, X, Known);
  if (Known)
    return R;
  if (Launch *L = CurrentLaunch)
    addError(*L, "unknown math function " + std::to_string(Fn) +
                     (CurrentThread ? where(*L, *CurrentThread) : ""));
  return 0.0f;
}
//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

namespace {

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
// Scheduling
//===----------------------------------------------------------------------===//

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
  L.BarrierThreads[Id] = 0;
  L.Dev->advanceEpoch(L);
}

/// Checks that the arrived lanes of \p Wave agree on their collective and
/// has the target compute it; zeros the results otherwise.
void completeCollective(Launch &L, unsigned Wave) {
  uint64_t Lanes = L.Waves[Wave].Arrived;
  unsigned First = static_cast<unsigned>(__builtin_ctzll(Lanes));
  const EmuThread &F = laneThread(L, Wave, First);
  for (unsigned I = First + 1; I < L.WaveSize; ++I) {
    if (!(Lanes >> I & 1))
      continue;
    const EmuThread &T = laneThread(L, Wave, I);
    if (T.Coll == F.Coll && T.P0 == F.P0 && T.P1 == F.P1)
      continue;
    addError(L, std::string("divergent ") + L.Dev->target().Wave +
                    " collective (" + waveName(L, Wave) +
                    "): " + describeLanes(L, Wave, Lanes));
    for (unsigned J = 0; J < L.WaveSize; ++J) {
      if (!(Lanes >> J & 1))
        continue;
      EmuThread &Z = laneThread(L, Wave, J);
      Z.Result = Z.Pred = 0;
      unsigned N = L.Dev->resultWords(Z);
      for (unsigned W = 0; W < N; ++W)
        Z.Out[W] = 0;
    }
    return;
  }
  L.Dev->computeCollective(L, Wave, Lanes);
}

/// Completes the collective \p Wave's arrived lanes wait in and readies
/// them (all but \p Caller, which continues).
void finishCollective(Launch &L, unsigned Wave, EmuThread *Caller) {
  WaveState &W = L.Waves[Wave];
  completeCollective(L, Wave);
  uint64_t Lanes = W.Arrived;
  W.Arrived = 0;
  for (unsigned I = 0; I < L.WaveSize; ++I) {
    if (!(Lanes >> I & 1))
      continue;
    EmuThread &Other = laneThread(L, Wave, I);
    if (&Other == Caller)
      Other.State = ThreadState::Running;
    else
      makeReady(L, Other);
  }
}

/// Bookkeeping when \p T's entry returns; may complete a collective or a
/// barrier the remaining threads wait in.
void exitThread(Launch &L, EmuThread &T) {
  L.Dev->exitThread(L, T);
  T.State = ThreadState::Exited;
  --L.LiveThreads;
  unsigned Wave = T.Tid / L.WaveSize;
  WaveState &W = L.Waves[Wave];
  W.Live &= ~(1ull << (T.Tid % L.WaveSize));
  if (W.Arrived != 0 && W.Arrived == W.Live)
    finishCollective(L, Wave, nullptr);
  for (uint32_t Id = 0; Id < NumBarriers; ++Id)
    if (L.AtBarrier[Id] != 0 && L.BarrierThreads[Id] == 0 &&
        L.AtBarrier[Id] == L.LiveThreads)
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

bool inStack(const EmuThread &T, uint64_t Address, uint64_t Bytes) {
  auto Low = reinterpret_cast<uint64_t>(T.Stack->low());
  auto High = reinterpret_cast<uint64_t>(T.Stack->high());
  return Address >= Low && Address <= High && Bytes <= High - Address;
}

std::string signedOffset(uint64_t Address, uint64_t Base) {
  return Address >= Base ? std::to_string(Address - Base)
                         : "-" + std::to_string(Base - Address);
}

} // namespace

void emu::arriveAtCollective(Launch &L, EmuThread &T) {
  unsigned Wave = T.Tid / L.WaveSize;
  WaveState &W = L.Waves[Wave];
  W.Arrived |= 1ull << (T.Tid % L.WaveSize);
  T.State = ThreadState::AtCollective;
  if (W.Arrived != W.Live) {
    suspend(L, T);
    return;
  }
  finishCollective(L, Wave, &T);
}

void emu::arriveAtBarrier(Launch &L, EmuThread &T, uint32_t Id,
                          uint32_t Threads) {
  // A barrier with a thread count (a named barrier of one role of a
  // warp-specialized program) completes when that many threads arrived.
  if (L.AtBarrier[Id] != 0 && L.BarrierThreads[Id] != Threads)
    addError(L, "barrier " + std::to_string(Id) + " reached with " +
                    (Threads ? std::to_string(Threads) : "all") +
                    " threads while threads wait in it for " +
                    (L.BarrierThreads[Id] ? std::to_string(L.BarrierThreads[Id])
                                          : "all") +
                    " (" + blockName(L) + ")");
  L.BarrierThreads[Id] = Threads;
  T.State = ThreadState::AtBarrier;
  T.BarrierId = Id;
  if (++L.AtBarrier[Id] == (Threads ? Threads : L.LiveThreads))
    releaseBarrier(L, Id, &T);
  else
    suspend(L, T);
}

void emu::blockThread(Launch &L, EmuThread &T, ThreadState State) {
  T.State = State;
  suspend(L, T);
}

void emu::wakeThread(Launch &L, EmuThread &T) { makeReady(L, T); }

bool emu::requireFullWave(Launch &L, unsigned Wave, uint64_t Lanes) {
  if (Lanes == fullWaveMask(L.WaveSize))
    return true;
  const EmuThread &F =
      laneThread(L, Wave, static_cast<unsigned>(__builtin_ctzll(Lanes)));
  addError(L, L.Dev->describeCollective(F) + " needs all " +
                  std::to_string(L.WaveSize) + " lanes of the " +
                  L.Dev->target().Wave + ", but only " +
                  std::to_string(__builtin_popcountll(Lanes)) +
                  " have not exited (" + waveName(L, Wave) + ")");
  return false;
}

//===----------------------------------------------------------------------===//
// Access checks
//===----------------------------------------------------------------------===//

bool emu::inShared(const Launch &L, uint64_t Address, uint64_t Bytes,
                   uint64_t &Offset) {
  auto Base = reinterpret_cast<uint64_t>(L.Shared);
  if (Address < Base || Address - Base > L.SharedBytes ||
      Bytes > L.SharedBytes - (Address - Base))
    return false;
  Offset = Address - Base;
  return true;
}

/// A 32-bit atomic read-modify-write of the aligned word that holds an
/// allocation's last bytes: how sub-byte elements are merged into memory
/// (the compiler's storeElement). Device allocations are granular to at
/// least 4 bytes (CUDA/HIP: 256; the emulator rounds up too), and the
/// atomic changes only the element's own bits, so the bytes past the end
/// are neither corrupted nor exposed.
static bool atomicWordOfAllocation(Launch &L, uint64_t Address, uint64_t Bytes,
                                   bool Atomic) {
  return Atomic && Bytes == 4 && Address % 4 == 0 &&
         L.Dev->findAllocation(L, Address, 1);
}

bool emu::checkAccess(Launch &L, EmuThread &T, const void *Ptr, uint64_t Bytes,
                      uint32_t Flags) {
  if (Bytes == 0)
    return true;
  auto Address = reinterpret_cast<uint64_t>(Ptr);
  uint32_t Space = Flags & 0xffu;
  bool Write = Flags & AccessWrite;
  bool Atomic = Flags & AccessAtomic;
  SharedAccess Kind = Flags & AccessAsyncIssue  ? SharedAccess::AsyncIssue
                      : Flags & AccessAsyncRead ? SharedAccess::AsyncRead
                      : Flags & AccessTmaIssue  ? SharedAccess::TmaIssue
                      : Write                   ? SharedAccess::Write
                                                : SharedAccess::Read;
  const EmuTarget &Target = L.Dev->target();
  uint64_t Alignment = uint64_t(1) << ((Flags >> AccessAlignShift) & 0xfu);
  if (Address % Alignment && (Space == SpaceGeneric || Space == SpaceGlobal ||
                              Space == SpaceShared || Space == SpaceLocal)) {
    if (!countedOnly(L))
      addError(L, "misaligned " + std::string(Target.SpaceNames[Space]) + " " +
                      (Write ? "write" : "read") + " of " +
                      std::to_string(Bytes) + " bytes at " + hex(Address) +
                      " (the access needs " + std::to_string(Alignment) +
                      "-byte alignment)" + where(L, T));
    return false;
  }
  uint64_t Offset = 0;
  switch (Space) {
  case SpaceGlobal:
    if (L.Dev->findAllocation(L, Address, Bytes) ||
        atomicWordOfAllocation(L, Address, Bytes, Atomic))
      return true;
    break;
  case SpaceShared:
    if (inShared(L, Address, Bytes, Offset)) {
      if (!Atomic)
        L.Dev->checkShared(L, T, Offset, Bytes, Kind);
      return true;
    }
    break;
  case SpaceGeneric:
    if (inShared(L, Address, Bytes, Offset)) {
      if (!Atomic)
        L.Dev->checkShared(L, T, Offset, Bytes, Kind);
      return true;
    }
    if (L.Dev->findAllocation(L, Address, Bytes) ||
        atomicWordOfAllocation(L, Address, Bytes, Atomic) ||
        inStack(T, Address, Bytes))
      return true;
    break;
  case SpaceLocal:
    if (inStack(T, Address, Bytes))
      return true;
    break;
  case SpaceConst:
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
  if (Space == SpaceShared)
    What = "offset " + signedOffset(Address, SharedBase) + " from the " +
           std::to_string(L.SharedBytes) + "-byte " + Target.SharedBlock;
  else if (Space == SpaceLocal)
    What = "address " + hex(Address) + " (outside the " + Target.Thread +
           "'s stack)";
  else
    What = L.Dev->describeGlobal(Address);
  addError(L, "out-of-bounds " + std::string(Target.SpaceNames[Space]) + " " +
                  (Write ? "write" : "read") + " of " + std::to_string(Bytes) +
                  " bytes at " + What + where(L, T));
  return false;
}

bool EmuDevice::findAllocation(Launch &L, uint64_t Address, uint64_t Bytes) {
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

std::string EmuDevice::describeGlobal(uint64_t Address) {
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

void EmuDevice::advanceEpoch(Launch &L) {
  if (++Epoch == 0) {
    // Wrapped around: forget the history (epoch 0 is never current) but
    // not the copies in flight.
    for (ShadowByte &S : Shadow) {
      uint16_t Pending = S.Pending, PendingReads = S.PendingReads,
               PendingTma = S.PendingTma;
      S = ShadowByte();
      S.Pending = Pending;
      S.PendingReads = PendingReads;
      S.PendingTma = PendingTma;
    }
    Epoch = 1;
    L.BlockEpoch = 0;
  }
}

void EmuDevice::checkShared(Launch &L, EmuThread &T, uint64_t Offset,
                            uint64_t Bytes, SharedAccess Kind) {
  auto Me = static_cast<uint16_t>(T.Tid);
  if (Kind == SharedAccess::AsyncReadRetire) {
    for (uint64_t I = Offset; I < Offset + Bytes; ++I)
      if (Shadow[I].PendingReads != 0)
        --Shadow[I].PendingReads;
    return;
  }
  if (Kind == SharedAccess::TmaLand) {
    for (uint64_t I = Offset; I < Offset + Bytes; ++I) {
      ShadowByte &S = Shadow[I];
      if (S.PendingTma != 0)
        --S.PendingTma;
      S.WriteEpoch = Epoch;
      S.Writer = TmaWriter;
    }
    return;
  }
  bool Write = Kind != SharedAccess::Read && Kind != SharedAccess::AsyncRead;
  bool Async = Kind == SharedAccess::AsyncIssue ||
               Kind == SharedAccess::AsyncRetire ||
               Kind == SharedAccess::TmaIssue;
  // The first problem of the access: a race with thread Other, a byte
  // with a copy in flight, or a read of a byte nobody wrote.
  enum {
    None,
    Race,
    InFlight,
    TmaInFlight,
    ReadInFlight,
    Uninitialized
  } Problem = None;
  int Other = -1;
  uint64_t At = 0;
  bool OtherWrote = false;
  for (uint64_t I = Offset; I < Offset + Bytes; ++I) {
    ShadowByte &S = Shadow[I];
    if (Problem == None) {
      At = I;
      if (S.Pending != 0 && !Async) {
        Problem = InFlight;
      } else if (S.PendingTma != 0) {
        Problem = TmaInFlight;
      } else if (S.PendingReads != 0 && (Kind == SharedAccess::Write ||
                                         Kind == SharedAccess::AsyncIssue ||
                                         Kind == SharedAccess::TmaIssue)) {
        Problem = ReadInFlight;
      } else if (S.WriteEpoch == Epoch && S.Writer != Me &&
                 S.Writer != TmaWriter) {
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
      else if (Kind == SharedAccess::TmaIssue)
        ++S.PendingTma;
      else if (Kind == SharedAccess::AsyncRetire && S.Pending != 0)
        --S.Pending;
    } else {
      if (Kind == SharedAccess::AsyncRead)
        ++S.PendingReads;
      if (S.ReadEpoch != Epoch) {
        S.ReadEpoch = Epoch;
        S.Readers[0] = Me;
        S.NumReaders = 1;
      } else if (S.NumReaders == 1 && S.Readers[0] != Me) {
        S.Readers[1] = Me;
        S.NumReaders = 2;
      }
    }
  }
  if (Problem == None || countedOnly(L))
    return;
  std::string Thread = Target.Thread;
  std::string Access = Thread + " " + std::to_string(T.Tid) + " " +
                       (Write ? "writes" : "reads") + " byte " +
                       std::to_string(At) + " (access of " +
                       std::to_string(Bytes) + " bytes at offset " +
                       std::to_string(Offset) + ")";
  switch (Problem) {
  case Race:
    addError(L, std::string(Target.Shared) + " race: " + Access + ", which " +
                    Thread + " " + std::to_string(Other) + " " +
                    (OtherWrote ? "wrote" : "read") +
                    " since the last barrier (" + blockName(L) + ")");
    break;
  case InFlight:
    addError(L, "cp.async hazard: " + Access +
                    " while a cp.async onto it is in flight (not yet "
                    "retired by cp.async.wait_group) (" +
                    blockName(L) + ")");
    break;
  case TmaInFlight:
    addError(L, "TMA hazard: " + Access +
                    " while a TMA copy onto it is in flight (its mbarrier "
                    "phase has not completed) (" +
                    blockName(L) + ")");
    break;
  case ReadInFlight:
    addError(L, "wgmma hazard: " + Access +
                    " while a wgmma.mma_async reading it is in flight (not "
                    "yet retired by wgmma.wait_group) (" +
                    blockName(L) + ")");
    break;
  case Uninitialized:
    addError(L, "uninitialized " + std::string(Target.Shared) +
                    " read: " + Access + ", which no " + Thread + " of the " +
                    Target.Block + " has written (" + blockName(L) + ")");
    break;
  case None:
    break;
  }
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

EmuDevice::~EmuDevice() { std::free(SharedStorage); }

Expected<uint64_t> EmuDevice::allocate(uint64_t Bytes) {
  uint64_t Rounded = std::max<uint64_t>(Alignment, (Bytes + Alignment - 1) /
                                                       Alignment * Alignment);
  void *Mem = std::aligned_alloc(Alignment, Rounded);
  if (!Mem)
    return makeError("out of host memory allocating " + std::to_string(Bytes) +
                     " bytes");
  auto Address = reinterpret_cast<uint64_t>(Mem);
  std::lock_guard<std::mutex> G(AllocLock);
  Allocations[Address] = Bytes;
  return Address;
}

void EmuDevice::release(uint64_t Address) {
  {
    std::lock_guard<std::mutex> G(AllocLock);
    Allocations.erase(Address);
  }
  std::free(reinterpret_cast<void *>(Address));
}

using Clock = std::chrono::steady_clock;

Expected<void *> EmuDevice::recordEvent(void *) {
  return static_cast<void *>(new Clock::time_point(Clock::now()));
}
void EmuDevice::destroyEvent(void *E) {
  delete static_cast<Clock::time_point *>(E);
}
Expected<float> EmuDevice::elapsedMs(void *Start, void *End) {
  auto D = *static_cast<Clock::time_point *>(End) -
           *static_cast<Clock::time_point *>(Start);
  return std::chrono::duration<float, std::milli>(D).count();
}

namespace {

/// A loaded code object: a host shared object bound to the device's ops.
class EmuModule : public ModuleImpl {
public:
  EmuModule(EmuDevice &Dev, void *Handle, std::string Path)
      : Dev(Dev), Handle(Handle), Path(std::move(Path)) {}
  ~EmuModule() override { dlclose(Handle); }

  Expected<void *> getFunction(const std::string &Name,
                               uint32_t SharedBytes) override {
    const EmuTarget &Target = Dev.target();
    if (SharedBytes > Target.MaxSharedBytes)
      return makeError("kernel '" + Name + "' needs " +
                       std::to_string(SharedBytes) + " bytes of " +
                       Target.SharedBlock + "; the emulated " + Target.Model +
                       " has at most " + std::to_string(Target.MaxSharedBytes));
    std::string Symbol = "__tile_emu_entry_" + Name;
    dlerror();
    void *F = dlsym(Handle, Symbol.c_str());
    if (!F)
      return makeError("entry '" + Name + "' (symbol " + Symbol +
                       ") not found in " + Path);
    Expected<uint32_t> Static = Dev.kernelSharedBytes(Handle, Name, Path);
    if (!Static)
      return Static.takeError();
    std::lock_guard<std::mutex> G(Lock);
    Functions[F] = {Name, *Static};
    return F;
  }

  Error launch(void *Function, const LaunchConfig &Config,
               const std::array<uint32_t, 3> &Grid, void **Args,
               void *) override {
    std::pair<std::string, uint32_t> Info{"?", 0};
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = Functions.find(Function);
      if (It != Functions.end())
        Info = It->second;
    }
    return Dev.run(Info.first, reinterpret_cast<EmuEntry>(Function),
                   Info.second, Config, Grid, Args);
  }

private:
  EmuDevice &Dev;
  void *Handle;
  std::string Path;
  std::mutex Lock;
  /// Entry -> (kernel name, shared bytes it declares).
  std::map<void *, std::pair<std::string, uint32_t>> Functions;
};

Expected<std::shared_ptr<ModuleImpl>>
makeModule(EmuDevice &Dev, Expected<void *> Handle, const std::string &Path) {
  if (!Handle)
    return Handle.takeError();
  using BindFn = void (*)(const void *);
  auto Bind = reinterpret_cast<BindFn>(dlsym(*Handle, "__tile_emu_bind"));
  if (!Bind) {
    dlclose(*Handle);
    return makeError(Path + " is not an " + Dev.target().ObjectKind +
                     " code object: it does not export __tile_emu_bind");
  }
  Bind(Dev.opsTable());
  return std::shared_ptr<ModuleImpl>(
      std::make_shared<EmuModule>(Dev, *Handle, Path));
}

} // namespace

Expected<std::shared_ptr<ModuleImpl>>
EmuDevice::loadModule(const std::string &Path, ObjectKind) {
  std::string What = std::string(Target.ObjectKind) + " code object";
  return makeModule(*this, openSharedObject(Path, What.c_str()), Path);
}

Expected<std::shared_ptr<ModuleImpl>>
EmuDevice::loadModuleData(const std::vector<uint8_t> &Data, ObjectKind,
                          const std::string &Name) {
  std::string What = std::string(Target.ObjectKind) + " code object";
  return makeModule(*this, openSharedObjectData(Data, What.c_str()), Name);
}

Error EmuDevice::run(const std::string &Kernel, EmuEntry Entry,
                     uint32_t StaticShared, const LaunchConfig &Config,
                     const std::array<uint32_t, 3> &Grid, void **Args) {
  std::string PerBlock = std::string(Target.Thread) + "s per " + Target.Block;
  if (Config.ThreadsPerBlock == 0 || Config.ThreadsPerBlock > Target.MaxThreads)
    return makeError("cannot launch " + std::to_string(Config.ThreadsPerBlock) +
                     " " + PerBlock + " (the emulated " + Target.Model +
                     " allows 1-" + std::to_string(Target.MaxThreads) + ")");
  uint64_t SharedBytes = uint64_t(StaticShared) + Config.SharedBytes;
  if (SharedBytes > Target.MaxSharedBytes)
    return makeError("cannot launch with " + std::to_string(SharedBytes) +
                     " bytes of " + Target.SharedBlock + " (the emulated " +
                     Target.Model + " allows at most " +
                     std::to_string(Target.MaxSharedBytes) + ")");
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
  if (SharedCapacity < SharedBytes || !SharedStorage) {
    std::free(SharedStorage);
    // Aligned to 256 KiB, past any block's shared memory: offsets in it are
    // the low bits of its addresses, as shared-memory addresses are on the
    // GPU (wgmma descriptors keep address bits 4-17; swizzles act on
    // address bits).
    constexpr size_t SharedAlign = size_t(1) << 18;
    SharedCapacity = std::max<size_t>(SharedBytes, 128);
    SharedStorage = static_cast<uint8_t *>(
        std::aligned_alloc(SharedAlign, (SharedCapacity + SharedAlign - 1) /
                                            SharedAlign * SharedAlign));
    if (!SharedStorage) {
      SharedCapacity = 0;
      return makeError("out of host memory for the " +
                       std::string(Target.SharedBlock));
    }
    Shadow.assign(SharedCapacity, ShadowByte());
  }

  Launch L;
  L.Dev = this;
  L.WaveSize = Target.WaveSize;
  L.Kernel = Kernel;
  L.Entry = Entry;
  L.Args = Args;
  L.Threads = NumThreads;
  L.SharedBytes = static_cast<uint32_t>(SharedBytes);
  L.Grid = Grid;
  L.Shared = SharedStorage;
  L.ReadyQueue.assign(NumThreads, nullptr);
  L.Waves.resize((NumThreads + L.WaveSize - 1) / L.WaveSize);
  beginLaunch(L);

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
                    "), " + std::to_string(NumThreads) + " " + PerBlock + "):";
  for (const std::string &E : L.Errors)
    Msg += "\n  " + E;
  if (L.TotalErrors > L.Errors.size())
    Msg += "\n  ... and " + std::to_string(L.TotalErrors - L.Errors.size()) +
           " more";
  return makeError(Msg);
}

void EmuDevice::runBlock(Launch &L) {
  std::memset(L.Shared, SharedPoison, L.SharedBytes);
  advanceEpoch(L);
  L.BlockEpoch = Epoch;
  L.ReadyHead = L.ReadyCount = 0;
  L.LiveThreads = L.Threads;
  std::fill(std::begin(L.AtBarrier), std::end(L.AtBarrier), 0);
  std::fill(std::begin(L.BarrierThreads), std::end(L.BarrierThreads), 0);
  for (size_t W = 0; W < L.Waves.size(); ++W) {
    uint32_t Lanes =
        std::min<uint32_t>(L.WaveSize, L.Threads - uint32_t(W) * L.WaveSize);
    L.Waves[W].Live = fullWaveMask(Lanes);
    L.Waves[W].Arrived = 0;
  }
  for (uint32_t I = 0; I < L.Threads; ++I) {
    EmuThread &T = *Threads[I];
    startThread(L, T);
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
                  "-KiB fiber stack is exhausted (" + Target.StackEnv +
                  " sets its size)"
            : std::string(L.FaultSignal == SIGBUS ? "bus error"
                                                  : "segmentation fault") +
                  " accessing address " + hex(L.FaultAddress);
    addError(L, What + where(L, T) + "; the rest of the launch is skipped");
    abandonBlock(L);
    return;
  }
  while (L.LiveThreads != 0) {
    if (L.ReadyCount == 0) {
      // Nobody can proceed: report what every wave waits on and abandon
      // the block.
      std::string Msg = "deadlock in " + blockName(L) + ": every " +
                        Target.Thread + " that has not exited waits";
      for (size_t W = 0; W < L.Waves.size(); ++W) {
        if (L.Waves[W].Live == 0)
          continue;
        Msg += "; " + std::string(Target.Wave) + " " + std::to_string(W) +
               ": " +
               describeLanes(L, static_cast<unsigned>(W), L.Waves[W].Live);
      }
      addError(L, Msg);
      abandonBlock(L);
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
  if (L.LiveThreads == 0)
    endBlock(L);
}

Expected<size_t> emu::stackBytesFromEnv(const char *Var, size_t Default) {
  const char *Env = std::getenv(Var);
  if (!Env)
    return Default;
  char *End = nullptr;
  long KB = std::strtol(Env, &End, 10);
  if (*Env == '\0' || *End != '\0' || KB < 64 || KB > 65536)
    return makeError(std::string(Var) +
                     " must be an integer in [64, 65536], "
                     "not '" +
                     Env + "'");
  return static_cast<size_t>(KB) * 1024;
}
