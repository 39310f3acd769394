//===- AmdEmuBackend.cpp - The AMD emulator platform ("hip-emu") ----------===//
//
// Part of tilec. Runs code objects of kind amdemu-so (AmdEmuAbi.h): the
// AMDGPU-bound LLVM IR tilec compiles for CDNA, retargeted to the host, with
// every llvm.amdgcn.* intrinsic turned into a call through the
// tile_amd_emu_ops table implemented here. The device, scheduler, barrier,
// access checks and LDS race detector are the emulators' shared machinery
// (EmuCore.h); this file adds what is AMD's own: 64-lane waves, work-item
// and workgroup registers, the dispatch packet, the LDS size each kernel
// exports, and the wave collectives (DPP, ds_swizzle, ds_bpermute,
// ds_permute, readfirstlane, MFMA; semantics in AmdEmuWave.cpp).
//
//===----------------------------------------------------------------------===//

#include "emulator/AmdEmuWave.h"
#include "emulator/EmuCore.h"

#include "tile/Emulation/AmdEmuAbi.h"

#include <cmath>
#include <cstring>
#include <dlfcn.h>

using namespace tile::rt;
using namespace tile::rt::emu;
using namespace tile::rt::amdemu;

namespace {

static_assert(TILE_AMD_EMU_FLAT == SpaceGeneric &&
                  TILE_AMD_EMU_GLOBAL == SpaceGlobal &&
                  TILE_AMD_EMU_LDS == SpaceShared &&
                  TILE_AMD_EMU_CONSTANT == SpaceConst &&
                  TILE_AMD_EMU_ACCESS_WRITE == AccessWrite &&
                  TILE_AMD_EMU_ACCESS_ATOMIC == AccessAtomic &&
                  TILE_AMD_EMU_ACCESS_ALIGN_SHIFT == AccessAlignShift,
              "AmdEmuAbi.h spaces differ from the emulator core's");

/// Limits and words of the emulated device: a CDNA3 (gfx942) compute unit,
/// with gfx950's 160 KiB of LDS so that code for either runs.
const EmuTarget AmdTarget = {
    WaveSize,
    /*MaxThreads=*/1024,
    /*MaxSharedBytes=*/160 * 1024,
    /*ComputeUnits=*/304, // An MI300X.
    "gfx942",
    "workgroup",
    "work-item",
    "wave",
    "LDS",
    "LDS",
    "amdemu-so",
    "TILE_AMDEMU_STACK_KB",
    {"flat", "global", "region", "LDS", "constant", "private"}};

enum CollectiveKind : uint8_t {
  Dpp,
  Swizzle,
  Bpermute,
  Permute,
  ReadFirstLane,
  Mfma
};

class AmdEmuDevice : public EmuDevice {
public:
  explicit AmdEmuDevice(size_t StackBytes) : EmuDevice(AmdTarget, StackBytes) {
    P = Platform::AmdEmu;
    Name = "AMD emulator (CPU)";
    Arch = "gfx942";
  }

  const void *opsTable() const override;
  Expected<uint32_t> kernelSharedBytes(void *Handle, const std::string &Kernel,
                                       const std::string &Path) override;
  void computeCollective(Launch &L, unsigned Wave, uint64_t Lanes) override;
  std::string describeCollective(const EmuThread &T) const override;
  unsigned resultWords(const EmuThread &T) const override {
    const MfmaKindInfo *Info = mfmaKindInfo(T.P0);
    return T.Coll == Mfma && Info ? Info->AccWords : 0;
  }
  std::string describeBarrier(uint32_t) const override { return "s_barrier"; }
  void beginLaunch(Launch &L) override;

  /// The launch's hsa_kernel_dispatch_packet_t (launches are serialized).
  alignas(64) uint8_t Packet[64] = {};
};

Expected<uint32_t> AmdEmuDevice::kernelSharedBytes(void *Handle,
                                                   const std::string &Kernel,
                                                   const std::string &Path) {
  std::string Symbol = TILE_AMD_EMU_LDS_BYTES_PREFIX + Kernel;
  dlerror();
  auto *Bytes = static_cast<const uint32_t *>(dlsym(Handle, Symbol.c_str()));
  if (!Bytes)
    return makeError("kernel '" + Kernel + "' of " + Path +
                     " does not export its LDS size (symbol " + Symbol + ")");
  if (*Bytes > AmdTarget.MaxSharedBytes)
    return makeError("kernel '" + Kernel + "' needs " + std::to_string(*Bytes) +
                     " bytes of LDS; the emulated device has at most " +
                     std::to_string(AmdTarget.MaxSharedBytes));
  return *Bytes;
}

void AmdEmuDevice::beginLaunch(Launch &L) {
  // hsa_kernel_dispatch_packet_t (HSA runtime, hsa.h): u16 workgroup_size_x
  // / y / z at bytes 4 / 6 / 8, u32 grid_size_x / y / z (in work-items) at
  // 12 / 16 / 20. Workgroups are one-dimensional here.
  std::memset(Packet, 0, sizeof(Packet));
  auto Put16 = [&](unsigned At, uint32_t V) {
    auto H = static_cast<uint16_t>(V);
    std::memcpy(Packet + At, &H, 2);
  };
  auto Put32 = [&](unsigned At, uint32_t V) {
    std::memcpy(Packet + At, &V, 4);
  };
  Put16(4, L.Threads);
  Put16(6, 1);
  Put16(8, 1);
  Put32(12, L.Grid[0] * L.Threads);
  Put32(16, L.Grid[1]);
  Put32(20, L.Grid[2]);
}

std::string AmdEmuDevice::describeCollective(const EmuThread &T) const {
  switch (T.Coll) {
  case Dpp:
    return "DPP move (dpp_ctrl " + hex(T.P0) + ", row_mask " +
           hex(T.P1 & 0xff) + ", bank_mask " + hex(T.P1 >> 8 & 0xff) +
           ", bound_ctrl " + std::to_string(T.P1 >> 16 & 1) + ")";
  case Swizzle:
    return "ds_swizzle_b32 (offset " + hex(T.P0) + ")";
  case Bpermute:
    return "ds_bpermute_b32";
  case Permute:
    return "ds_permute_b32";
  case ReadFirstLane:
    return "v_readfirstlane_b32";
  case Mfma:
    if (const MfmaKindInfo *Info = mfmaKindInfo(T.P0))
      return Info->Name;
    return "MFMA of unknown kind " + std::to_string(T.P0);
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Wave collectives
//===----------------------------------------------------------------------===//

void AmdEmuDevice::computeCollective(Launch &L, unsigned Wave, uint64_t Lanes) {
  auto Thread = [&](unsigned Lane) -> EmuThread & {
    return laneThread(L, Wave, Lane);
  };
  auto Live = [&](int Lane) { return Lane >= 0 && (Lanes >> Lane & 1); };
  const EmuThread &F = Thread(static_cast<unsigned>(__builtin_ctzll(Lanes)));
  uint32_t Results[WaveSize] = {};
  switch (F.Coll) {
  case Dpp: {
    uint32_t RowMask = F.P1 & 0xff, BankMask = F.P1 >> 8 & 0xff;
    bool BoundCtrl = F.P1 >> 16 & 1;
    if (!isDppControl(F.P0)) {
      addError(L, "DPP control " + hex(F.P0) + " is not one CDNA defines (" +
                      waveName(L, Wave) + ")");
      break;
    }
    for (unsigned I = 0; I < WaveSize; ++I) {
      if (!Live(I))
        continue;
      const EmuThread &T = Thread(I);
      Results[I] = T.B; // old
      if (!dppWritesLane(I, RowMask, BankMask))
        continue;
      // A source lane that is out of range or inactive is invalid.
      int S = dppSourceLane(F.P0, I);
      if (Live(S))
        Results[I] = Thread(S).Value;
      else if (BoundCtrl)
        Results[I] = 0;
    }
    break;
  }
  case Swizzle: {
    if (swizzleSourceLane(F.P0, 0) < 0) {
      addError(L, "unsupported ds_swizzle_b32 offset " + hex(F.P0) +
                      " (only the bit-mask and quad-permute modes are "
                      "emulated) (" +
                      waveName(L, Wave) + ")");
      break;
    }
    bool Reported = false;
    for (unsigned I = 0; I < WaveSize; ++I) {
      if (!Live(I))
        continue;
      int S = swizzleSourceLane(F.P0, I);
      if (Live(S)) {
        Results[I] = Thread(S).Value;
      } else if (!Reported) {
        addError(L, "ds_swizzle_b32 (offset " + hex(F.P0) + "): lane " +
                        std::to_string(I) + " reads lane " + std::to_string(S) +
                        ", which is not active (" + waveName(L, Wave) + ")");
        Reported = true;
      }
    }
    break;
  }
  case Bpermute:
    // ds_bpermute_b32: lane i reads lane (addr_i / 4) mod 64; reading an
    // inactive lane gives 0.
    for (unsigned I = 0; I < WaveSize; ++I) {
      if (!Live(I))
        continue;
      int S = static_cast<int>(Thread(I).B / 4 % WaveSize);
      Results[I] = Live(S) ? Thread(S).Value : 0;
    }
    break;
  case Permute: {
    // ds_permute_b32: each active lane i writes its value to lane
    // (addr_i / 4) mod 64; the highest-numbered writer wins; lanes nobody
    // writes read 0.
    for (unsigned I = 0; I < WaveSize; ++I)
      if (Live(I))
        Results[Thread(I).B / 4 % WaveSize] = Thread(I).Value;
    break;
  }
  case ReadFirstLane:
    for (unsigned I = 0; I < WaveSize; ++I)
      Results[I] = F.Value;
    break;
  case Mfma: {
    const MfmaKindInfo *Info = mfmaKindInfo(F.P0);
    if (!Info) {
      addError(L, "unknown MFMA kind " + std::to_string(F.P0) + " (" +
                      waveName(L, Wave) + ")");
      return;
    }
    if (!requireFullWave(L, Wave, Lanes)) {
      for (unsigned I = 0; I < WaveSize; ++I)
        if (Live(I))
          std::memset(Thread(I).Out, 0, Info->AccWords * 4);
      return;
    }
    static thread_local uint32_t A[WaveSize][4], B[WaveSize][4],
        C[WaveSize][16], D[WaveSize][16];
    for (unsigned I = 0; I < WaveSize; ++I) {
      const EmuThread &T = Thread(I);
      std::memcpy(A[I], T.MmaA, Info->InWords * 4);
      std::memcpy(B[I], T.MmaB, Info->InWords * 4);
      std::memcpy(C[I], T.MmaC, Info->AccWords * 4);
    }
    mfmaWave(F.P0, A, B, C, D);
    for (unsigned I = 0; I < WaveSize; ++I)
      std::memcpy(Thread(I).Out, D[I], Info->AccWords * 4);
    return;
  }
  }
  for (unsigned I = 0; I < WaveSize; ++I)
    if (Live(I))
      Thread(I).Result = Results[I];
}

//===----------------------------------------------------------------------===//
// The ops table
//===----------------------------------------------------------------------===//

/// The running launch and work-item, or false outside a launch.
bool current(Launch *&L, EmuThread *&T) {
  L = CurrentLaunch;
  T = CurrentThread;
  return L && T;
}

/// Gathers a collective of kind \p Kind for the calling work-item and
/// returns its 32-bit result.
uint32_t collective(uint8_t Kind, uint32_t P0, uint32_t P1, uint32_t Value,
                    uint32_t B) {
  Launch *L;
  EmuThread *T;
  if (!current(L, T))
    return 0;
  T->Coll = Kind;
  T->P0 = P0;
  T->P1 = P1;
  T->Value = Value;
  T->B = B;
  T->Out = nullptr;
  arriveAtCollective(*L, *T);
  return T->Result;
}

/// The work-item and workgroup registers in tile_amd_emu_sreg order.
const RegisterSpec AmdRegisters[TILE_AMD_EMU_NUM_SREGS] = {
    {RegisterSpec::ThreadId, 0}, {RegisterSpec::ThreadId, 1},
    {RegisterSpec::ThreadId, 2}, {RegisterSpec::BlockId, 0},
    {RegisterSpec::BlockId, 1},  {RegisterSpec::BlockId, 2},
    {RegisterSpec::GridSize, 0}, {RegisterSpec::GridSize, 1},
    {RegisterSpec::GridSize, 2}, {RegisterSpec::BlockSize, 0}};

uint32_t opSreg(uint32_t Which) {
  return readRegister(AmdRegisters, TILE_AMD_EMU_NUM_SREGS, Which);
}
const void *opDispatchPtr() {
  Launch *L = CurrentLaunch;
  return L ? static_cast<AmdEmuDevice *>(L->Dev)->Packet : nullptr;
}

void *opLdsBase() {
  Launch *L = CurrentLaunch;
  return L ? L->Shared : nullptr;
}

void opBarrier() {
  Launch *L;
  EmuThread *T;
  if (current(L, T))
    arriveAtBarrier(*L, *T, 0);
}

uint32_t opDpp(uint32_t Old, uint32_t Src, uint32_t Ctrl, uint32_t RowMask,
               uint32_t BankMask, uint32_t BoundCtrl) {
  return collective(Dpp, Ctrl,
                    (RowMask & 0xff) | (BankMask & 0xff) << 8 |
                        uint32_t(BoundCtrl != 0) << 16,
                    Src, Old);
}

uint32_t opDsSwizzle(uint32_t Src, uint32_t Pattern) {
  return collective(Swizzle, Pattern, 0, Src, 0);
}

uint32_t opDsBpermute(uint32_t Address, uint32_t Src) {
  return collective(Bpermute, 0, 0, Src, Address);
}

uint32_t opDsPermute(uint32_t Address, uint32_t Src) {
  return collective(Permute, 0, 0, Src, Address);
}

void opMfma(uint32_t Kind, const uint32_t *A, const uint32_t *B,
            const uint32_t *C, uint32_t *D) {
  Launch *L;
  EmuThread *T;
  if (!current(L, T))
    return;
  T->Coll = Mfma;
  T->P0 = Kind;
  T->P1 = 0;
  T->MmaA = A;
  T->MmaB = B;
  T->MmaC = C;
  T->Out = D;
  arriveAtCollective(*L, *T);
}

uint32_t opReadFirstLane(uint32_t Value) {
  return collective(ReadFirstLane, 0, 0, Value, 0);
}

static_assert(TILE_AMD_EMU_EXP2 == 0 && TILE_AMD_EMU_LOG2 == 1 &&
                  TILE_AMD_EMU_RSQ == 2 && TILE_AMD_EMU_RCP == 3 &&
                  TILE_AMD_EMU_SQRT == 4,
              "the shared math functions are numbered differently");

/// v_sin_f32 / v_cos_f32, which take the angle in revolutions (CDNA3 ISA).
float amdMath(uint32_t Fn, float X, bool &Known) {
  constexpr double TwoPi = 6.283185307179586476925286766559;
  switch (Fn) {
  case TILE_AMD_EMU_SIN:
    return static_cast<float>(std::sin(TwoPi * X));
  case TILE_AMD_EMU_COS:
    return static_cast<float>(std::cos(TwoPi * X));
  }
  Known = false;
  return 0.0f;
}

float opMathF32(uint32_t Fn, float X) { return mathF32(Fn, X, amdMath); }

const tile_amd_emu_ops Ops = {
    TILE_AMD_EMU_ABI_VERSION,
    opSreg,
    opDispatchPtr,
    opLdsBase,
    opBarrier,
    opDpp,
    opDsSwizzle,
    opDsBpermute,
    opDsPermute,
    opMfma,
    opReadFirstLane,
    opAccess,
    opMathF32,
    opUnsupported,
};

const void *AmdEmuDevice::opsTable() const { return &Ops; }

} // namespace

Expected<std::shared_ptr<DeviceImpl>> tile::rt::createAmdEmuDevice() {
  return createEmuDevice<AmdEmuDevice>(AmdTarget);
}