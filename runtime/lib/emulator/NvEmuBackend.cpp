//===- NvEmuBackend.cpp - The NVIDIA emulator platform ("cuda-emu") -------===//
//
// Part of tilec. Runs code objects of kind nvemu-so (NvEmuAbi.h): NVPTX-bound
// LLVM IR retargeted to the host, with every llvm.nvvm.* intrinsic turned
// into a call through the tile_emu_ops table implemented here. The device,
// scheduler, barriers, access checks and race detector are the emulators'
// shared machinery (EmuCore.h); this file adds what is NVIDIA's own: 32-lane
// warps, the special registers, shfl.sync / ldmatrix / mma.sync (semantics
// in NvEmuWarp.cpp), cp.async, whose copies land in shared memory only
// when a cp.async.wait_group retires their group, and TMA copies with
// their mbarriers: a copy reads global memory at its issue and lands when a
// wait on its mbarrier completes the phase (after the phase's arrivals),
// so that reading a stage before the wait is caught.
//
//===----------------------------------------------------------------------===//

#include "emulator/NvEmuDevice.h"

#include "tile/Emulation/NvEmuAbi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace tile::rt;
using namespace tile::rt::emu;
using namespace tile::rt::nvemu;

const EmuTarget nvemu::NvTarget = {
    WarpSize,
    /*MaxThreads=*/1024,
    /*MaxSharedBytes=*/232448, // 227 KiB, the opt-in maximum.
    /*ComputeUnits=*/132,      // An H100 SXM.
    "sm_90",
    "block",
    "thread",
    "warp",
    "shared-memory",
    "dynamic shared memory",
    "nvemu-so",
    "TILE_NVEMU_STACK_KB",
    {"generic", "global", "space-2", "shared", "const", "local"}};

namespace {

static_assert(TILE_EMU_GENERIC == SpaceGeneric &&
                  TILE_EMU_GLOBAL == SpaceGlobal &&
                  TILE_EMU_SHARED == SpaceShared &&
                  TILE_EMU_CONST == SpaceConst &&
                  TILE_EMU_LOCAL == SpaceLocal &&
                  TILE_EMU_ACCESS_WRITE == AccessWrite &&
                  TILE_EMU_ACCESS_ATOMIC == AccessAtomic &&
                  TILE_EMU_ACCESS_ALIGN_SHIFT == AccessAlignShift,
              "NvEmuAbi.h spaces differ from the emulator core's");

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

/// The shape's K and the types of a wgmma kind, as the PTX names them.
const char *wgmmaShapeTypes(uint32_t Kind) {
  switch (Kind) {
  case TILE_EMU_WGMMA_F32_BF16:
    return "k16.f32.bf16.bf16";
  case TILE_EMU_WGMMA_F32_E4M3:
    return "k32.f32.e4m3.e4m3";
  case TILE_EMU_WGMMA_F32_E5M2:
    return "k32.f32.e5m2.e5m2";
  case TILE_EMU_WGMMA_S32_S8:
    return "k32.s32.s8.s8";
  default:
    return "k16.f32.f16.f16";
  }
}

} // namespace

std::string NvEmuDevice::describeCollective(const EmuThread &T) const {
  switch (T.Coll) {
  case Shfl:
    return std::string("shfl.sync.") + shflModeName(T.P0) + " (member_mask " +
           hex(T.P1) + ")";
  case Ldmatrix:
    return "ldmatrix.sync.aligned.m8n8.x" + std::to_string(T.P0) +
           (T.P1 ? ".trans" : "") + ".b16";
  case Mma:
    if (const MmaKindInfo *Info = mmaKindInfo(T.P0))
      return Info->Name;
    return "mma of unknown kind " + std::to_string(T.P0);
  case Wgmma:
    return "wgmma.mma_async.sync.aligned.m64n" + std::to_string(T.P1) +
           wgmmaShapeTypes(T.P0);
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// What an abandoned block leaves in flight
//===----------------------------------------------------------------------===//

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
    for (const EmuThread::AsyncRead &R : T.WgmmaReads)
      checkShared(L, T, R.Offset, R.Bytes, SharedAccess::AsyncReadRetire);
    T.WgmmaReads.clear();
  }
}

namespace {

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

/// Retires the shared-memory reads of T's wgmma groups below \p Limit.
void retireWgmmaReads(Launch &L, EmuThread &T, uint64_t Limit) {
  size_t Kept = 0;
  for (const EmuThread::AsyncRead &R : T.WgmmaReads) {
    if (R.Group < Limit)
      L.Dev->checkShared(L, T, R.Offset, R.Bytes,
                         SharedAccess::AsyncReadRetire);
    else
      T.WgmmaReads[Kept++] = R;
  }
  T.WgmmaReads.resize(Kept);
}

} // namespace

void NvEmuDevice::exitThread(Launch &L, EmuThread &T) {
  retireCopies(L, T, UINT64_MAX);
  retireWgmmaReads(L, T, UINT64_MAX);
}

namespace {

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

void zeroResults(Launch &L, unsigned Warp, uint32_t Lanes) {
  for (unsigned Lane = 0; Lane < WarpSize; ++Lane) {
    if (!(Lanes >> Lane & 1))
      continue;
    EmuThread &T = laneThread(L, Warp, Lane);
    T.Result = 0;
    T.Pred = 0;
    unsigned N = L.Dev->resultWords(T);
    for (unsigned I = 0; I < N; ++I)
      T.Out[I] = 0;
  }
}

} // namespace

void NvEmuDevice::computeCollective(Launch &L, unsigned Warp,
                                    uint64_t Lanes64) {
  auto Lanes = static_cast<uint32_t>(Lanes64);
  auto Thread = [&](unsigned Lane) -> EmuThread & {
    return laneThread(L, Warp, Lane);
  };
  const EmuThread &F = Thread(static_cast<unsigned>(__builtin_ctz(Lanes)));
  if (F.Coll == Shfl) {
    uint32_t Mask = F.P1;
    if (F.P0 > TILE_EMU_SHFL_IDX) {
      addError(L, "shfl.sync with unknown mode " + std::to_string(F.P0) + " (" +
                      waveName(L, Warp) + ")");
      zeroResults(L, Warp, Lanes);
      return;
    }
    if (uint32_t Outside = Lanes & ~Mask) {
      addError(L, "shfl.sync executed by " +
                      laneRange(__builtin_ctz(Outside),
                                31 - __builtin_clz(Outside)) +
                      " outside its member_mask " + hex(Mask) + " (" +
                      waveName(L, Warp) + ")");
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
                          waveName(L, Warp) + ")");
        Bad = true;
        Results[I] = 0;
        continue;
      }
      if (!(Mask >> J & 1)) {
        if (!Bad)
          addError(L, "shfl.sync." + std::string(shflModeName(F.P0)) +
                          ": lane " + std::to_string(I) + " reads lane " +
                          std::to_string(J) + ", which is not in member_mask " +
                          hex(Mask) + " (" + waveName(L, Warp) + ")");
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
  if (!requireFullWave(L, Warp, Lanes)) {
    zeroResults(L, Warp, Lanes);
    return;
  }

  if (F.Coll == Ldmatrix) {
    unsigned Count = F.P0;
    if ((Count != 1 && Count != 2 && Count != 4) || F.P1 > 1) {
      addError(L, "unsupported ldmatrix .x" + std::to_string(Count) +
                      (F.P1 ? " .trans" : "") + " (" + waveName(L, Warp) + ")");
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

  if (F.Coll == Wgmma) {
    computeWgmma(L, Warp);
    return;
  }

  // mma.sync.
  const MmaKindInfo *Info = mmaKindInfo(F.P0);
  if (!Info) {
    addError(L, "unknown mma kind " + std::to_string(F.P0) + " (" +
                    waveName(L, Warp) + ")");
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

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

/// One warp's rows of a wgmma.mma_async: every lane passes the same kind,
/// N, descriptors and flags; the shared memory read is checked (races,
/// uninitialized bytes, cp.async in flight) and stays in flight, on the
/// warp's first lane, until a wgmma.wait_group retires the group.
void NvEmuDevice::computeWgmma(Launch &L, unsigned Warp) {
  EmuThread &F = laneThread(L, Warp, 0);
  uint32_t Kind = F.P0, N = F.P1, Flags = F.Value;
  if (Kind >= TILE_EMU_NUM_WGMMA_KINDS || N == 0 || N % 8 != 0 || N > 256) {
    addError(L, "unsupported wgmma.mma_async (kind " + std::to_string(Kind) +
                    ", n " + std::to_string(N) + ") (" + waveName(L, Warp) +
                    ")");
    zeroResults(L, Warp, ~0u);
    return;
  }
  for (unsigned Lane = 0; Lane < WarpSize; ++Lane) {
    const EmuThread &T = laneThread(L, Warp, Lane);
    if (T.DescA != F.DescA || T.DescB != F.DescB || T.Value != Flags) {
      addError(L, describeCollective(F) + ": lane " + std::to_string(Lane) +
                      " passes other descriptors or flags than lane 0 (" +
                      waveName(L, Warp) + ")");
      zeroResults(L, Warp, ~0u);
      return;
    }
    if (!T.WgmmaFenced) {
      addError(L, describeCollective(F) + " without a wgmma.fence since the " +
                      "thread's last wgmma.wait_group" + where(L, T));
      zeroResults(L, Warp, ~0u);
      return;
    }
  }
  bool TransA = Flags & TILE_EMU_WGMMA_TRANS_A;
  bool TransB = Flags & TILE_EMU_WGMMA_TRANS_B;
  bool RegisterA = Flags & TILE_EMU_WGMMA_REGISTER_A;
  unsigned WarpInGroup = Warp % 4;
  // 32 bytes of K per instruction: 16 2-byte or 32 1-byte elements.
  unsigned K = wgmmaK(Kind), Bytes = 32 / K;
  const char *Bad = nullptr;
  if (Bytes == 1 && (TransA || TransB))
    Bad = "8-bit operands are K-major only";
  else if (RegisterA && Bytes == 1)
    Bad = "the emulator takes A from registers for 16-bit operands only";
  else if (RegisterA && TransA)
    Bad = "a register A has no transpose";
  if (Bad) {
    addError(L, describeCollective(F) + ": " + Bad + " (" + waveName(L, Warp) +
                    ")");
    zeroResults(L, Warp, ~0u);
    return;
  }
  static thread_local uint16_t A[64][32], B[32][256];
  // Reads element (Mn, K) of an operand; false after recording an error.
  auto Read = [&](uint64_t Desc, bool MnMajor, unsigned Mn, unsigned Kk,
                  uint16_t &Out, const char *Operand) {
    uint64_t Offset;
    const char *Why = "";
    Out = 0;
    if (!wgmmaElementOffset(Desc, MnMajor, Bytes, Mn, Kk, Offset, Why)) {
      addError(L, describeCollective(F) + ": descriptor " + Operand + " " +
                      hex(Desc) + " has " + Why + " (" + waveName(L, Warp) +
                      ")");
      return false;
    }
    uint8_t *Ptr = L.Shared + Offset;
    if (!checkAccess(L, F, Ptr, Bytes, TILE_EMU_SHARED | AccessAsyncRead))
      return false;
    std::vector<EmuThread::AsyncRead> &Reads = F.WgmmaReads;
    if (!Reads.empty() && Reads.back().Group == F.WgmmaCommitted &&
        Reads.back().Offset + Reads.back().Bytes == Offset)
      Reads.back().Bytes += Bytes;
    else
      Reads.push_back({F.WgmmaCommitted, Offset, Bytes});
    std::memcpy(&Out, Ptr, Bytes);
    return true;
  };
  bool Ok = true;
  if (RegisterA) {
    // The m16n8k16 A fragment: register r of lane l holds (row l / 4 +
    // 8 (r % 2), k 2 (l % 4) + 8 (r / 2) + i), element i in half i.
    for (unsigned Lane = 0; Lane < WarpSize; ++Lane)
      for (unsigned R = 0; R < 4; ++R)
        for (unsigned I = 0; I < 2; ++I)
          A[16 * WarpInGroup + Lane / 4 + 8 * (R % 2)]
           [2 * (Lane % 4) + 8 * (R / 2) + I] =
               uint16_t(laneThread(L, Warp, Lane).MmaA[R] >> (16 * I));
  }
  for (unsigned Row = 16 * WarpInGroup;
       !RegisterA && Ok && Row < 16 * WarpInGroup + 16; ++Row)
    for (unsigned Kk = 0; Ok && Kk < K; ++Kk)
      Ok = Read(F.DescA, TransA, Row, Kk, A[Row][Kk], "A");
  for (unsigned Kk = 0; Ok && Kk < K; ++Kk)
    for (unsigned Col = 0; Ok && Col < N; ++Col)
      Ok = Read(F.DescB, TransB, Col, Kk, B[Kk][Col], "B");
  if (!Ok) {
    zeroResults(L, Warp, ~0u);
    return;
  }
  const uint32_t *C[WarpSize];
  uint32_t *D[WarpSize];
  for (unsigned Lane = 0; Lane < WarpSize; ++Lane) {
    C[Lane] = laneThread(L, Warp, Lane).MmaC;
    D[Lane] = laneThread(L, Warp, Lane).Out;
  }
  wgmmaWarp(Kind, N, WarpInGroup, A, B, Flags & TILE_EMU_WGMMA_SCALE_D, C, D);
}

namespace {

//===----------------------------------------------------------------------===//
// The ops table
//===----------------------------------------------------------------------===//

/// The special registers in tile_emu_sreg order.
const RegisterSpec NvRegisters[TILE_EMU_NUM_SREGS] = {
    {RegisterSpec::ThreadId, 0},  {RegisterSpec::ThreadId, 1},
    {RegisterSpec::ThreadId, 2},  {RegisterSpec::BlockSize, 0},
    {RegisterSpec::BlockSize, 1}, {RegisterSpec::BlockSize, 2},
    {RegisterSpec::BlockId, 0},   {RegisterSpec::BlockId, 1},
    {RegisterSpec::BlockId, 2},   {RegisterSpec::GridSize, 0},
    {RegisterSpec::GridSize, 1},  {RegisterSpec::GridSize, 2},
    {RegisterSpec::Lane, 0},      {RegisterSpec::WaveId, 0}};

uint32_t opSreg(uint32_t Which) {
  return readRegister(NvRegisters, TILE_EMU_NUM_SREGS, Which);
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
  arriveAtBarrier(*L, *T, Id);
}

void opBarrierCount(uint32_t Id, uint32_t Count) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  if (Id >= NumBarriers || Count == 0 || Count % 32 != 0 ||
      Count > L->Threads) {
    addError(*L, "bar.sync " + std::to_string(Id) + ", " +
                     std::to_string(Count) +
                     ": PTX needs a barrier id 0-15 and a positive multiple "
                     "of 32 threads, at most the block's " +
                     std::to_string(L->Threads) + where(*L, *T));
    Id = Id < NumBarriers ? Id : 0;
    Count = 0;
  }
  arriveAtBarrier(*L, *T, Id, Count);
}

void opSetmaxnreg(uint32_t Count, uint32_t Increase) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  if (Count < 24 || Count > 256 || Count % 8 != 0)
    addError(*L, std::string("setmaxnreg.") + (Increase ? "inc" : "dec") + " " +
                     std::to_string(Count) +
                     ": PTX needs a multiple of 8 in [24, 256]" +
                     where(*L, *T));
  else if (L->Threads % 128 != 0)
    addError(*L, "setmaxnreg in a block of " + std::to_string(L->Threads) +
                     " threads: it acts on whole warpgroups (128 threads)" +
                     where(*L, *T));
}

uint32_t opShfl(uint32_t Mode, uint32_t Mask, uint32_t Value, uint32_t B,
                uint32_t C, uint32_t *PredOut) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 0;
  T->Coll = Shfl;
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
  T->Coll = Ldmatrix;
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
  T->Coll = Mma;
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

void opWgmmaFence() {
  if (EmuThread *T = CurrentThread)
    T->WgmmaFenced = true;
}

/// Both wgmma forms: the collective's operands (A through a descriptor, or
/// the thread's registers \p A with TILE_EMU_WGMMA_REGISTER_A in \p Flags),
/// then the arrival.
void arriveAtWgmma(uint32_t Kind, uint32_t N, uint64_t DescA, const uint32_t *A,
                   uint64_t DescB, uint32_t Flags, const uint32_t *C,
                   uint32_t *D) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  T->Coll = Wgmma;
  T->P0 = Kind;
  T->P1 = N;
  T->DescA = DescA;
  T->DescB = DescB;
  T->Value = Flags;
  T->MmaA = A;
  T->MmaC = C;
  T->Out = D;
  arriveAtCollective(*L, *T);
}

void opWgmma(uint32_t Kind, uint32_t N, uint64_t DescA, uint64_t DescB,
             uint32_t Flags, const uint32_t *C, uint32_t *D) {
  arriveAtWgmma(Kind, N, DescA, nullptr, DescB,
                Flags & ~TILE_EMU_WGMMA_REGISTER_A, C, D);
}

// A TILE_EMU_WGMMA_TRANS_A in Flags stays: computeWgmma reports it.
void opWgmmaRegisterA(uint32_t Kind, uint32_t N, const uint32_t *A,
                      uint64_t DescB, uint32_t Flags, const uint32_t *C,
                      uint32_t *D) {
  arriveAtWgmma(Kind, N, 0, A, DescB, Flags | TILE_EMU_WGMMA_REGISTER_A, C, D);
}

void opWgmmaCommit() {
  if (EmuThread *T = CurrentThread)
    ++T->WgmmaCommitted;
}

void opWgmmaWait(uint32_t Pending) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  // The accumulators may be touched again only after another fence.
  T->WgmmaFenced = false;
  if (T->WgmmaCommitted > Pending)
    retireWgmmaReads(*L, *T, T->WgmmaCommitted - Pending);
}

/// fence.proxy.async.shared::cta orders this thread's shared-memory writes
/// before reads by the async proxy (wgmma); threads run one at a time here,
/// so there is nothing to do.
void opFenceProxyAsync() {}

static_assert(TILE_EMU_EX2_APPROX == 0 && TILE_EMU_LG2_APPROX == 1 &&
                  TILE_EMU_RSQRT_APPROX == 2 && TILE_EMU_RCP_APPROX == 3 &&
                  TILE_EMU_SQRT_APPROX == 4,
              "the shared math functions are numbered differently");

/// The approximate math of PTX beyond the shared functions.
float nvMath(uint32_t Fn, float X, bool &Known) {
  switch (Fn) {
  case TILE_EMU_SIN_APPROX:
    return std::sin(X);
  case TILE_EMU_COS_APPROX:
    return std::cos(X);
  case TILE_EMU_TANH_APPROX:
    return std::tanh(X);
  case TILE_EMU_EX2_APPROX_FTZ: {
    // ex2.approx.ftz.f32 (PTX ISA): subnormal inputs are +-0 (2^0 = 1),
    // subnormal results +0.
    float R = std::fpclassify(X) == FP_SUBNORMAL ? 1.0f : std::exp2(X);
    return std::fpclassify(R) == FP_SUBNORMAL ? 0.0f : R;
  }
  }
  Known = false;
  return 0.0f;
}

float opMathF32(uint32_t Fn, float X) { return mathF32(Fn, X, nvMath); }

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
    opWgmmaFence,
    opWgmma,
    opWgmmaCommit,
    opWgmmaWait,
    opFenceProxyAsync,
    opMbarrierInit,
    opMbarrierArriveExpectTx,
    opMbarrierTryWaitParity,
    opMbarrierInval,
    opTmaLoad,
    opWgmmaRegisterA,
    opBarrierCount,
    opMbarrierArrive,
    opSetmaxnreg,
};

} // namespace

const void *NvEmuDevice::opsTable() const { return &Ops; }

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createNvEmuDevice() {
  return createEmuDevice<NvEmuDevice>(NvTarget);
}