//===- TargetInfo.cpp - Target descriptions
//--------------------------------===//
//
// Part of tilec. Figures are from the CUDA C Programming Guide (compute
// capability tables: shared memory per block with opt-in, 32 banks of 4 B)
// and AMD's CDNA3/CDNA4 ISA guides (64 KB / 160 KB LDS, wave64).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/TargetInfo.h"

#include "llvm/TargetParser/Host.h"

using namespace tile;

static TargetInfo makeNVIDIA(llvm::StringRef name, unsigned cc,
                             unsigned maxShared, unsigned maxWarps) {
  TargetInfo t;
  t.name = name.str();
  t.vendor = Vendor::NVIDIA;
  t.triple = "nvptx64-nvidia-cuda";
  t.chip = name.str();
  t.warpSize = 32;
  t.maxSharedBytes = maxShared;
  t.defaultSharedBytes = 48 * 1024;
  t.sharedBanks = 32;
  t.sharedBankBytes = 4;
  t.maxRegistersPerThread = 255;
  t.maxWarpsPerProcessor = maxWarps;
  // A program may use all but 1 KB of an SM's shared memory.
  t.sharedBytesPerProcessor = maxShared + 1024;
  t.reservedSharedBytesPerProgram = 1024;
  t.computeCapability = cc;
  t.hasCpAsync = t.hasLdmatrix = t.hasMmaSync = cc >= 80;
  t.hasFp8Mma = cc >= 89;
  // mma.sync with e4m3 / e5m2 operands needs PTX ISA 8.4 (LLVM's default
  // for sm_89 / sm_90a is older); ptxas of CUDA 12.4+ reads it.
  if (t.hasFp8Mma)
    t.features = "+ptx84";
  t.hasTma = cc >= 90;
  t.hasWgmma = name.ends_with("a") && cc >= 90;
  return t;
}

static TargetInfo makeAMD(llvm::StringRef name, unsigned ldsBytes,
                          bool gfx950) {
  TargetInfo t;
  t.name = name.str();
  t.vendor = Vendor::AMD;
  t.triple = "amdgcn-amd-amdhsa";
  t.chip = name.str();
  t.warpSize = 64;
  t.maxSharedBytes = t.defaultSharedBytes = ldsBytes;
  t.sharedBanks = gfx950 ? 64 : 32;
  t.sharedBankBytes = 4;
  t.maxRegistersPerThread = 512;
  // 4 SIMDs of 8 wavefronts; a workgroup's LDS comes from its CU's.
  t.maxWarpsPerProcessor = 32;
  t.sharedBytesPerProcessor = ldsBytes;
  t.hasMfma = true;
  // gfx950's v_mfma_f32_*_fp8_fp8 / bf8_bf8 read OCP e4m3 / e5m2; gfx942's
  // read the FNUZ formats, which are not tilec's f8e4m3 / f8e5m2.
  t.hasFp8Mma = gfx950;
  t.hasMfmaGfx950 = gfx950;
  return t;
}

std::optional<TargetInfo> TargetInfo::lookup(llvm::StringRef name) {
  if (name == "host") {
    TargetInfo t;
    t.name = "host";
    t.vendor = Vendor::Host;
    t.triple = llvm::sys::getProcessTriple();
    t.chip = "generic";
    t.warpSize = 1;
    // Shared memory is ordinary memory on the host; keep the NVIDIA limit of
    // the largest GPU so host runs reject what no GPU could run.
    t.maxSharedBytes = t.defaultSharedBytes = 227 * 1024;
    return t;
  }
  if (name == "sm_80")
    return makeNVIDIA(name, 80, 163 * 1024, 64);
  if (name == "sm_86")
    return makeNVIDIA(name, 86, 99 * 1024, 48);
  if (name == "sm_89")
    return makeNVIDIA(name, 89, 99 * 1024, 48);
  if (name == "sm_90" || name == "sm_90a")
    return makeNVIDIA(name, 90, 227 * 1024, 64);
  if (name == "gfx942")
    return makeAMD(name, 64 * 1024, /*gfx950=*/false);
  if (name == "gfx950")
    return makeAMD(name, 160 * 1024, /*gfx950=*/true);
  return std::nullopt;
}

llvm::ArrayRef<llvm::StringRef> TargetInfo::knownTargets() {
  static const llvm::StringRef kNames[] = {
      "host", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "gfx942", "gfx950"};
  return kNames;
}
