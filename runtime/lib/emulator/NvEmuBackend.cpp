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

#include "emulator/EmuCore.h"
#include "emulator/NvEmuWarp.h"

#include "tile/Emulation/NvEmuAbi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace tile::rt;
using namespace tile::rt::emu;
using namespace tile::rt::nvemu;

namespace {

static_assert(TILE_EMU_GENERIC == SpaceGeneric &&
                  TILE_EMU_GLOBAL == SpaceGlobal &&
                  TILE_EMU_SHARED == SpaceShared &&
                  TILE_EMU_CONST == SpaceConst &&
                  TILE_EMU_LOCAL == SpaceLocal &&
                  TILE_EMU_ACCESS_WRITE == AccessWrite &&
                  TILE_EMU_ACCESS_ATOMIC == AccessAtomic,
              "NvEmuAbi.h spaces differ from the emulator core's");

/// Limits and words of the emulated device (sm_90).
const EmuTarget NvTarget = {
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

enum CollectiveKind : uint8_t { Shfl, Ldmatrix, Mma, Wgmma };

static_assert(sizeof(tile_emu_tensor_map) <= 128,
              "an emulated tensor map must fit a CUtensorMap's 128 bytes");

/// Shared-window addresses (mbarriers, TMA destinations) are 32-bit; the
/// block's shared memory is aligned to 2^18 (EmuCore.cpp), so their low 18
/// bits are the offset in it.
constexpr uint32_t SharedOffsetMask = (1u << 18) - 1;

/// A queued TMA copy: the box as read at the issue, by 16-byte chunks with
/// the (swizzled) shared offset of each.
struct TmaCopy {
  EmuThread *Issuer = nullptr;
  uint32_t Bytes = 0;           ///< Transaction bytes: the whole box.
  std::vector<uint32_t> Chunks; ///< Shared offset of each chunk.
  std::vector<uint8_t> Data;    ///< 16 bytes per chunk.
};

/// The state of one mbarrier of the running block.
struct Mbarrier {
  uint32_t Count = 0;   ///< Arrivals per phase.
  uint32_t Pending = 0; ///< Arrivals still missing in the current phase.
  uint64_t Tx = 0;      ///< Transaction bytes expected, not yet delivered.
  uint32_t Phase = 0;   ///< Completed phases; the current parity is Phase & 1.
  std::vector<TmaCopy> Copies;      ///< Queued, not landed.
  std::vector<EmuThread *> Waiters; ///< Blocked in try_wait.parity.
};

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

class NvEmuDevice : public EmuDevice {
public:
  explicit NvEmuDevice(size_t StackBytes) : EmuDevice(NvTarget, StackBytes) {
    P = Platform::NvEmu;
    Name = "NVIDIA emulator (CPU)";
    Arch = "sm_90a";
  }

  const void *opsTable() const override;
  void computeCollective(Launch &L, unsigned Warp, uint64_t Lanes) override;
  std::string describeCollective(const EmuThread &T) const override;
  unsigned resultWords(const EmuThread &T) const override {
    if (T.Coll == Ldmatrix)
      return T.P0 <= 4 ? T.P0 : 0;
    if (T.Coll == Mma)
      return mmaKindInfo(T.P0) ? mmaKindInfo(T.P0)->DRegs : 0;
    if (T.Coll == Wgmma)
      return T.P1 <= 256 ? T.P1 / 2 : 0;
    return 0;
  }
  std::string describeBarrier(uint32_t Id) const override {
    return "barrier " + std::to_string(Id);
  }
  void startThread(Launch &, EmuThread &T) override {
    T.Copies.clear();
    T.CopyHead = 0;
    T.Committed = 0;
    T.WgmmaFenced = false;
    T.WgmmaCommitted = 0;
    T.WgmmaReads.clear();
  }
  void exitThread(Launch &L, EmuThread &T) override;
  void abandonBlock(Launch &L) override {
    dropPendingCopies(L);
    dropBarriers(L, /*Report=*/false);
  }
  void endBlock(Launch &L) override { dropBarriers(L, /*Report=*/true); }
  void beginLaunch(Launch &) override { Barriers.clear(); }
  std::string describeMbarrierWait(const EmuThread &T) const override;
  Error encodeTensorMap(const TensorMapRequest &R, void *Out128) override;

  /// The live barrier at shared address \p Bar, or null after recording
  /// why \p Op cannot use it.
  Mbarrier *barrier(Launch &L, EmuThread &T, uint32_t Bar, const char *Op);
  /// Lands \p B's copies once the phase has all its arrivals and
  /// completes the phase when no transaction bytes remain (the parity
  /// flips, the waiters wake); true when it completed.
  bool advanceBarrier(Launch &L, Mbarrier &B, uint32_t Offset);

  /// The mbarriers of the running block by shared offset.
  std::map<uint32_t, Mbarrier> Barriers;

private:
  void dropBarriers(Launch &L, bool Report);
  void dropPendingCopies(Launch &L);
  void computeWgmma(Launch &L, unsigned Warp);
};

const char *wgmmaTypeName(uint32_t Kind) {
  return Kind == TILE_EMU_WGMMA_F32_BF16 ? "bf16" : "f16";
}

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
           "k16.f32." + wgmmaTypeName(T.P0) + "." + wgmmaTypeName(T.P0);
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// cp.async
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

void NvEmuDevice::exitThread(Launch &L, EmuThread &T) {
  retireCopies(L, T, UINT64_MAX);
  retireWgmmaReads(L, T, UINT64_MAX);
}

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
  unsigned WarpInGroup = Warp % 4;
  // 32 bytes of K per instruction: 16 2-byte or 32 1-byte elements.
  unsigned K = wgmmaK(Kind), Bytes = 32 / K;
  if (Bytes == 1 && (TransA || TransB)) {
    addError(L, describeCollective(F) + ": 8-bit operands are K-major only (" +
                    waveName(L, Warp) + ")");
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
  for (unsigned Row = 16 * WarpInGroup; Ok && Row < 16 * WarpInGroup + 16;
       ++Row)
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

//===----------------------------------------------------------------------===//
// mbarriers and TMA copies
//===----------------------------------------------------------------------===//

std::string barrierName(uint32_t Offset) {
  return "mbarrier at shared offset " + hex(Offset);
}

std::string NvEmuDevice::describeMbarrierWait(const EmuThread &T) const {
  std::string What = "mbarrier (shared offset " + hex(T.WaitBar) +
                     ") waiting for phase parity " +
                     std::to_string(T.WaitParity);
  auto It = Barriers.find(T.WaitBar);
  if (It == Barriers.end())
    return What + " (invalidated)";
  const Mbarrier &B = It->second;
  return What + ": " + std::to_string(B.Pending) + " of " +
         std::to_string(B.Count) + " arrivals pending, " +
         std::to_string(B.Tx) + " transaction bytes outstanding";
}

Mbarrier *NvEmuDevice::barrier(Launch &L, EmuThread &T, uint32_t Bar,
                               const char *Op) {
  uint32_t Offset = Bar & SharedOffsetMask;
  if (Offset % 8 != 0 || uint64_t(Offset) + 8 > L.SharedBytes) {
    addError(L, std::string(Op) + ": mbarrier address " + hex(Bar) +
                    " (shared offset " + hex(Offset) + ") is " +
                    (Offset % 8 != 0
                         ? "not 8-byte aligned"
                         : "outside the " + std::to_string(L.SharedBytes) +
                               "-byte dynamic shared memory") +
                    where(L, T));
    return nullptr;
  }
  auto It = Barriers.find(Offset);
  if (It == Barriers.end()) {
    addError(L, std::string(Op) + " on the " + barrierName(Offset) +
                    ", which is not initialized (no mbarrier.init since the "
                    "block started or since its mbarrier.inval)" +
                    where(L, T));
    return nullptr;
  }
  return &It->second;
}

/// Writes copy \p C into shared memory and takes its bytes off \p B's
/// transaction count.
void landCopy(Launch &L, Mbarrier &B, uint32_t Offset, const TmaCopy &C) {
  for (size_t I = 0; I < C.Chunks.size(); ++I) {
    L.Dev->checkShared(L, *C.Issuer, C.Chunks[I], 16, SharedAccess::TmaLand);
    std::memcpy(L.Shared + C.Chunks[I], &C.Data[16 * I], 16);
  }
  if (C.Bytes > B.Tx) {
    addError(L, "TMA copies deliver more bytes to the " + barrierName(Offset) +
                    " than its mbarrier.arrive.expect_tx announced: a copy "
                    "of " +
                    std::to_string(C.Bytes) + " bytes with " +
                    std::to_string(B.Tx) + " expected" + where(L, *C.Issuer));
    B.Tx = 0;
    return;
  }
  B.Tx -= C.Bytes;
}

bool NvEmuDevice::advanceBarrier(Launch &L, Mbarrier &B, uint32_t Offset) {
  if (B.Pending != 0)
    return false;
  for (const TmaCopy &C : B.Copies)
    landCopy(L, B, Offset, C);
  B.Copies.clear();
  if (B.Tx != 0)
    return false;
  ++B.Phase;
  B.Pending = B.Count;
  for (EmuThread *W : B.Waiters)
    wakeThread(L, *W);
  B.Waiters.clear();
  return true;
}

void NvEmuDevice::dropBarriers(Launch &L, bool Report) {
  for (auto &[Offset, B] : Barriers) {
    if (B.Copies.empty())
      continue;
    if (Report)
      addError(L, "the " + std::string(blockName(L)) + " exited with " +
                      std::to_string(B.Copies.size()) + " TMA cop" +
                      (B.Copies.size() == 1 ? "y" : "ies") + " queued on the " +
                      barrierName(Offset) + " that no wait completed");
    for (const TmaCopy &C : B.Copies)
      for (uint32_t Chunk : C.Chunks)
        checkShared(L, *C.Issuer, Chunk, 16, SharedAccess::TmaLand);
  }
  Barriers.clear();
}

/// Why tensor map \p M cannot be used by a copy of rank \p Rank to shared
/// offset \p Dst, or "".
std::string checkTensorMap(const tile_emu_tensor_map &M, uint32_t Rank,
                           uint32_t Dst) {
  if (M.magic != TILE_EMU_TENSOR_MAP_MAGIC)
    return "it is not an emulated tensor map (magic " + hex(M.magic) + ")";
  if (M.rank < 1 || M.rank > 5 || M.rank != Rank)
    return "its rank " + std::to_string(M.rank) + " is not the copy's " +
           std::to_string(Rank);
  uint32_t E = M.element_bytes, S = M.swizzle_bytes;
  if (E != 1 && E != 2 && E != 4 && E != 8)
    return "its elements of " + std::to_string(E) + " bytes";
  if (S != 0 && S != 32 && S != 64 && S != 128)
    return "its swizzle of " + std::to_string(S) + " bytes";
  if (M.strides[0] != E)
    return "its innermost stride " + std::to_string(M.strides[0]) +
           " is not the element size";
  for (uint32_t D = 0; D < Rank; ++D)
    if (M.box[D] < 1 || M.box[D] > 256)
      return "box extent " + std::to_string(M.box[D]) + " outside 1-256";
  uint64_t Inner = uint64_t(M.box[0]) * E;
  if (Inner % 16 != 0 || (S != 0 && Inner > S))
    return "its box rows of " + std::to_string(Inner) +
           " bytes (a multiple of 16 is needed, at most the swizzle span)";
  uint32_t Align = S ? 8 * S : 128;
  if (Dst % Align != 0)
    return "the destination (shared offset " + hex(Dst) +
           ") is not aligned to " + std::to_string(Align) + " bytes";
  return "";
}

/// Reads the box of \p M at \p Coords into \p Data (dense, innermost
/// fastest); elements outside the tensor are zero.
void readBox(Launch &L, EmuThread &T, const tile_emu_tensor_map &M,
             const int32_t *Coords, std::vector<uint8_t> &Data) {
  uint32_t Rank = M.rank, E = M.element_bytes;
  uint64_t Rows = 1;
  for (uint32_t D = 1; D < Rank; ++D)
    Rows *= M.box[D];
  uint64_t RowBytes = uint64_t(M.box[0]) * E;
  Data.assign(Rows * RowBytes, 0);
  // The inner run of the row inside the tensor: elements [Lo, Hi).
  int64_t C0 = Coords[0];
  int64_t Lo = std::clamp<int64_t>(-C0, 0, M.box[0]);
  int64_t Hi = std::clamp<int64_t>(int64_t(M.dims[0]) - C0, Lo, M.box[0]);
  for (uint64_t Row = 0; Row < Rows && Hi > Lo; ++Row) {
    uint64_t Rest = Row, Offset = (C0 + Lo) * M.strides[0];
    bool Inside = true;
    for (uint32_t D = 1; D < Rank && Inside; ++D) {
      int64_t C = int64_t(Coords[D]) + int64_t(Rest % M.box[D]);
      Rest /= M.box[D];
      Inside = C >= 0 && uint64_t(C) < M.dims[D];
      Offset += uint64_t(C) * M.strides[D];
    }
    if (!Inside)
      continue;
    const void *Src = reinterpret_cast<const void *>(M.address + Offset);
    uint64_t Bytes = uint64_t(Hi - Lo) * E;
    if (checkAccess(L, T, Src, Bytes, TILE_EMU_GLOBAL))
      std::memcpy(&Data[Row * RowBytes + uint64_t(Lo) * E], Src, Bytes);
  }
}

/// The shared offset of the 16-byte chunk at \p Offset under a swizzle of
/// \p Bytes: address bits [4, 4 + log2(Bytes / 16)) ^= bits [7, ...).
uint32_t swizzleChunk(uint32_t Offset, uint32_t Bytes) {
  if (Bytes == 0)
    return Offset;
  uint32_t Mask = Bytes / 16 - 1;
  return Offset ^ (((Offset >> 7) & Mask) << 4);
}

/// The issue of \p C, a write of every destination byte for the race
/// detector (checked by contiguous runs, one report per run).
void issueChunks(Launch &L, EmuThread &T, const TmaCopy &C) {
  std::vector<uint32_t> Sorted = C.Chunks;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t I = 0; I < Sorted.size();) {
    size_t J = I + 1;
    while (J < Sorted.size() && Sorted[J] == Sorted[J - 1] + 16)
      ++J;
    checkAccess(L, T, L.Shared + Sorted[I], 16 * (J - I),
                TILE_EMU_SHARED | TILE_EMU_ACCESS_WRITE | AccessTmaIssue);
    I = J;
  }
}

NvEmuDevice &nvDevice(Launch &L) { return static_cast<NvEmuDevice &>(*L.Dev); }

void opMbarrierInit(uint32_t Bar, uint32_t Count) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  uint32_t Offset = Bar & SharedOffsetMask;
  if (Offset % 8 != 0 || uint64_t(Offset) + 8 > L->SharedBytes) {
    nvDevice(*L).barrier(*L, *T, Bar, "mbarrier.init"); // Reports it.
    return;
  }
  if (Count < 1 || Count >= (1u << 20)) {
    addError(*L, "mbarrier.init of the " + barrierName(Offset) + " with " +
                     std::to_string(Count) +
                     " expected arrivals (PTX allows 1 to 2^20 - 1)" +
                     where(*L, *T));
    return;
  }
  std::map<uint32_t, Mbarrier> &Barriers = nvDevice(*L).Barriers;
  if (Barriers.count(Offset)) {
    addError(*L, "mbarrier.init of the " + barrierName(Offset) +
                     ", which is initialized already (mbarrier.inval it "
                     "first)" +
                     where(*L, *T));
    return;
  }
  Mbarrier &B = Barriers[Offset];
  B.Count = B.Pending = Count;
}

void opMbarrierArriveExpectTx(uint32_t Bar, uint32_t Bytes) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  NvEmuDevice &D = nvDevice(*L);
  uint32_t Offset = Bar & SharedOffsetMask;
  Mbarrier *B = D.barrier(*L, *T, Bar, "mbarrier.arrive.expect_tx");
  if (!B)
    return;
  // Every arrival of the phase is in: it completes once its copies land,
  // before this arrival (of the next phase) counts.
  if (B->Pending == 0 && !D.advanceBarrier(*L, *B, Offset)) {
    addError(*L, "mbarrier.arrive.expect_tx on the " + barrierName(Offset) +
                     " beyond the " + std::to_string(B->Count) +
                     " arrivals its phase expects (the phase waits for " +
                     std::to_string(B->Tx) + " transaction bytes)" +
                     where(*L, *T));
    return;
  }
  B->Tx += Bytes;
  --B->Pending;
  if (B->Pending == 0 && (B->Copies.empty() || !B->Waiters.empty()))
    D.advanceBarrier(*L, *B, Offset);
}

uint32_t opMbarrierTryWaitParity(uint32_t Bar, uint32_t Parity) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return 1;
  NvEmuDevice &D = nvDevice(*L);
  uint32_t Offset = Bar & SharedOffsetMask;
  Mbarrier *B = D.barrier(*L, *T, Bar, "mbarrier.try_wait.parity");
  if (!B)
    return 1;
  Parity &= 1;
  // Complete when the current phase has the other parity.
  if ((B->Phase & 1) != Parity || D.advanceBarrier(*L, *B, Offset))
    return 1;
  B->Waiters.push_back(T);
  T->WaitBar = Offset;
  T->WaitParity = Parity;
  blockThread(*L, *T, ThreadState::AtMbarrier);
  return 1;
}

void opMbarrierInval(uint32_t Bar) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  NvEmuDevice &D = nvDevice(*L);
  uint32_t Offset = Bar & SharedOffsetMask;
  Mbarrier *B = D.barrier(*L, *T, Bar, "mbarrier.inval");
  if (!B)
    return;
  if (!B->Copies.empty() || !B->Waiters.empty())
    addError(*L, "mbarrier.inval of the " + barrierName(Offset) + " while " +
                     std::to_string(B->Copies.size()) +
                     " TMA copies are queued on it and " +
                     std::to_string(B->Waiters.size()) + " threads wait on it" +
                     where(*L, *T));
  for (const TmaCopy &C : B->Copies)
    for (uint32_t Chunk : C.Chunks)
      D.checkShared(*L, *C.Issuer, Chunk, 16, SharedAccess::TmaLand);
  D.Barriers.erase(Offset);
}

void opTmaLoad(uint32_t Dst, const void *MapAddress, const int32_t *Coords,
               uint32_t Rank, uint32_t Bar) {
  Launch *L = CurrentLaunch;
  EmuThread *T = CurrentThread;
  if (!L || !T)
    return;
  NvEmuDevice &D = nvDevice(*L);
  std::string Op = "cp.async.bulk.tensor." + std::to_string(Rank) + "d";
  uint32_t BarOffset = Bar & SharedOffsetMask;
  Mbarrier *B = D.barrier(*L, *T, Bar, Op.c_str());
  if (!B || !MapAddress)
    return;
  tile_emu_tensor_map M;
  std::memcpy(&M, MapAddress, sizeof(M));
  uint32_t DstOffset = Dst & SharedOffsetMask;
  std::string Why = checkTensorMap(M, Rank, DstOffset);
  if (!Why.empty()) {
    addError(*L, Op + " with the tensor map at " +
                     hex(reinterpret_cast<uint64_t>(MapAddress)) + ": " + Why +
                     where(*L, *T));
    return;
  }
  uint64_t BoxBytes = M.element_bytes;
  for (uint32_t Dim = 0; Dim < Rank; ++Dim)
    BoxBytes *= M.box[Dim];
  if (BoxBytes > L->SharedBytes) {
    addError(*L, Op + " of a " + std::to_string(BoxBytes) +
                     "-byte box, larger than the " +
                     std::to_string(L->SharedBytes) +
                     "-byte dynamic shared memory" + where(*L, *T));
    return;
  }
  TmaCopy C;
  C.Issuer = T;
  readBox(*L, *T, M, Coords, C.Data);
  C.Bytes = static_cast<uint32_t>(C.Data.size());
  for (uint32_t At = 0; At < C.Bytes; At += 16) {
    uint32_t Chunk = swizzleChunk(DstOffset + At, M.swizzle_bytes);
    if (uint64_t(Chunk) + 16 > L->SharedBytes) {
      addError(*L, Op + " of a " + std::to_string(C.Bytes) +
                       "-byte box to shared offset " + hex(DstOffset) +
                       " overruns the " + std::to_string(L->SharedBytes) +
                       "-byte dynamic shared memory" + where(*L, *T));
      return;
    }
    C.Chunks.push_back(Chunk);
  }
  issueChunks(*L, *T, C);
  B->Copies.push_back(std::move(C));
  if (!B->Waiters.empty())
    D.advanceBarrier(*L, *B, BarOffset);
}

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

void opWgmma(uint32_t Kind, uint32_t N, uint64_t DescA, uint64_t DescB,
             uint32_t Flags, const uint32_t *C, uint32_t *D) {
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
  T->MmaC = C;
  T->Out = D;
  arriveAtCollective(*L, *T);
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
};

const void *NvEmuDevice::opsTable() const { return &Ops; }

Error NvEmuDevice::encodeTensorMap(const TensorMapRequest &R, void *Out128) {
  tile_emu_tensor_map M;
  std::memset(&M, 0, sizeof(M));
  M.magic = TILE_EMU_TENSOR_MAP_MAGIC;
  M.rank = R.Rank;
  M.element_bytes = R.ElementBytes;
  M.swizzle_bytes = R.SwizzleBytes;
  M.address = R.Address;
  for (unsigned D = 0; D < R.Rank && D < 5; ++D) {
    M.dims[D] = R.Dims[D];
    M.strides[D] = R.Strides[D];
    M.box[D] = R.Box[D];
  }
  std::memset(Out128, 0, 128);
  std::memcpy(Out128, &M, sizeof(M));
  return Error::success();
}

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createNvEmuDevice() {
  return createEmuDevice<NvEmuDevice>(NvTarget);
}