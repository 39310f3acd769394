//===- NvEmuTma.cpp - mbarriers and TMA copies on the NVIDIA emulator -----===//
//
// Part of tilec. The NVIDIA emulator's mbarriers (init, arrive with
// transaction bytes, try_wait.parity, inval) and TMA loads
// (cp.async.bulk.tensor through an emulated tensor map, NvEmuAbi.h): a
// copy reads its box at the issue and lands only when a thread waits on
// its mbarrier and every arrival is in, so that reading a stage without
// waiting sees what was there before (and is reported as a TMA hazard).
// See runtime/README.md.
//
//===----------------------------------------------------------------------===//

#include "emulator/NvEmuDevice.h"

#include "tile/Emulation/NvEmuAbi.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace tile::rt;
using namespace tile::rt::emu;
using namespace tile::rt::nvemu;

static_assert(sizeof(tile_emu_tensor_map) <= 128,
              "an emulated tensor map must fit a CUtensorMap's 128 bytes");

namespace {

std::string barrierName(uint32_t Offset) {
  return "mbarrier at shared offset " + hex(Offset);
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

/// What an mbarrier op works on: the calling thread, its device and the
/// live barrier at shared address `Bar`.
struct BarrierCall {
  Launch *L = nullptr;
  EmuThread *T = nullptr;
  NvEmuDevice *D = nullptr;
  uint32_t Offset = 0;
  Mbarrier *B = nullptr;
};

/// The barrier op \p Op of the calling thread on \p Bar, or nothing (after
/// recording why, when the barrier is not usable).
std::optional<BarrierCall> barrierCall(uint32_t Bar, const char *Op) {
  BarrierCall C;
  C.L = CurrentLaunch;
  C.T = CurrentThread;
  if (!C.L || !C.T)
    return std::nullopt;
  C.D = &nvDevice(*C.L);
  C.Offset = Bar & SharedOffsetMask;
  C.B = C.D->barrier(*C.L, *C.T, Bar, Op);
  if (!C.B)
    return std::nullopt;
  return C;
}

} // namespace

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
  // Plain arrivals release what their threads did before (a consumer warp
  // hands a ring stage back): the race detector cannot tell which threads
  // synchronize through the barrier, so it starts a new epoch, as a block
  // barrier does.
  if (B.Released)
    advanceEpoch(L);
  B.Released = false;
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

void nvemu::opMbarrierInit(uint32_t Bar, uint32_t Count) {
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

namespace {

/// One arrival of the calling thread on \p Bar (op \p Op): with
/// transaction bytes (\p Bytes, expect_tx) or a plain one, which releases
/// what the thread did before (NvEmuDevice::advanceBarrier).
void arrive(uint32_t Bar, const char *Op, std::optional<uint32_t> Bytes) {
  std::optional<BarrierCall> C = barrierCall(Bar, Op);
  if (!C)
    return;
  auto [L, T, Device, Offset, B] = *C;
  NvEmuDevice &D = *Device;
  // Every arrival of the phase is in: it completes once its copies land,
  // before this arrival (of the next phase) counts.
  if (B->Pending == 0 && !D.advanceBarrier(*L, *B, Offset)) {
    addError(*L, std::string(Op) + " on the " + barrierName(Offset) +
                     " beyond the " + std::to_string(B->Count) +
                     " arrivals its phase expects (the phase waits for " +
                     std::to_string(B->Tx) + " transaction bytes)" +
                     where(*L, *T));
    return;
  }
  if (Bytes)
    B->Tx += *Bytes;
  else
    B->Released = true;
  --B->Pending;
  if (B->Pending == 0 && (B->Copies.empty() || !B->Waiters.empty()))
    D.advanceBarrier(*L, *B, Offset);
}

} // namespace

void nvemu::opMbarrierArriveExpectTx(uint32_t Bar, uint32_t Bytes) {
  arrive(Bar, "mbarrier.arrive.expect_tx", Bytes);
}

void nvemu::opMbarrierArrive(uint32_t Bar) {
  arrive(Bar, "mbarrier.arrive", std::nullopt);
}

uint32_t nvemu::opMbarrierTryWaitParity(uint32_t Bar, uint32_t Parity) {
  std::optional<BarrierCall> C = barrierCall(Bar, "mbarrier.try_wait.parity");
  if (!C)
    return 1;
  auto [L, T, Device, Offset, B] = *C;
  NvEmuDevice &D = *Device;
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

void nvemu::opMbarrierInval(uint32_t Bar) {
  std::optional<BarrierCall> C = barrierCall(Bar, "mbarrier.inval");
  if (!C)
    return;
  auto [L, T, Device, Offset, B] = *C;
  NvEmuDevice &D = *Device;
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

void nvemu::opTmaLoad(uint32_t Dst, const void *MapAddress,
                      const int32_t *Coords, uint32_t Rank, uint32_t Bar) {
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
