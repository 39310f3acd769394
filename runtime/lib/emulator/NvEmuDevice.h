//===- NvEmuDevice.h - The NVIDIA emulator's device -----------*- C++ -*-===//
//
// Part of tilec. The NVIDIA emulator platform ("cuda-emu") shared by its
// files: NvEmuBackend.cpp (the device, its collectives and the ops table)
// and NvEmuTma.cpp (mbarriers and TMA copies).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_NVEMUDEVICE_H
#define TILE_RUNTIME_LIB_NVEMUDEVICE_H

#include "emulator/EmuCore.h"
#include "emulator/NvEmuWarp.h"

#include <map>
#include <string>
#include <vector>

namespace tile {
namespace rt {
namespace nvemu {

using emu::EmuDevice;
using emu::EmuThread;
using emu::Launch;

/// Limits and words of the emulated device (sm_90).
extern const emu::EmuTarget NvTarget;

enum CollectiveKind : uint8_t { Shfl, Ldmatrix, Mma, Wgmma };

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
  /// The current phase has plain arrivals (mbarrier.arrive): its
  /// completion orders their shared-memory accesses before the waiters'.
  bool Released = false;
};

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

// The ops table's mbarrier and TMA entries (NvEmuTma.cpp; NvEmuAbi.h).
void opMbarrierInit(uint32_t Bar, uint32_t Count);
void opMbarrierArriveExpectTx(uint32_t Bar, uint32_t Bytes);
uint32_t opMbarrierTryWaitParity(uint32_t Bar, uint32_t Parity);
void opMbarrierInval(uint32_t Bar);
void opMbarrierArrive(uint32_t Bar);
void opTmaLoad(uint32_t Dst, const void *MapAddress, const int32_t *Coords,
               uint32_t Rank, uint32_t Bar);

} // namespace nvemu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_NVEMUDEVICE_H
