//===- TargetInfo.h - What the compiler knows about a target ----*- C++ -*-===//
//
// Part of tilec. Every target fact a pass or a lowering needs — warp size,
// shared memory, matrix instructions, async copies, the LLVM triple — lives
// here, so that passes stay target-neutral and ask instead of assuming.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGETINFO_H
#define TILE_TARGET_TARGETINFO_H

#include "tile/Frontend/TargetFacts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tile {

/// Who makes the chip a target runs on.
enum class Vendor { Host, NVIDIA, AMD };

/// The kind of code object a target produces at `--emit=obj`.
enum class ObjectKind { HostObject, Cubin, Hsaco };

/// A compilation target: `host`, an NVIDIA `sm_XY[a]` or an AMD `gfxNNN`.
struct TargetInfo {
  /// The name users write (`--target=sm_90a`).
  std::string name;
  Vendor vendor = Vendor::Host;
  /// LLVM target triple, CPU (chip) and feature string.
  std::string triple;
  std::string chip;
  std::string features;
  /// Threads per warp (NVIDIA) or wavefront (AMD CDNA: 64). 1 on the host,
  /// where a program runs in one thread.
  unsigned warpSize = 1;
  /// Shared memory (LDS) a thread block may use, in bytes, with opt-in.
  unsigned maxSharedBytes = 0;
  /// Shared memory available without opting in (48 KB on NVIDIA).
  unsigned defaultSharedBytes = 0;
  /// Shared-memory banks and the width of one bank in bytes.
  unsigned sharedBanks = 0;
  unsigned sharedBankBytes = 0;
  /// 32-bit registers available to one thread (NVIDIA: 255; AMD: 512
  /// VGPRs + AGPRs in wave64 on CDNA3/4).
  unsigned maxRegistersPerThread = 0;
  /// Warps (wavefronts) resident on one SM (CU) at most: 64 on sm_80 and
  /// sm_90, 48 on sm_86 / sm_89, 32 on CDNA (8 per SIMD); 0 on the host.
  unsigned maxWarpsPerProcessor = 0;
  /// Shared memory (LDS) of one SM (CU), in bytes, and what the hardware
  /// reserves of it per resident program (1 KB on NVIDIA).
  unsigned sharedBytesPerProcessor = 0;
  unsigned reservedSharedBytesPerProgram = 0;
  /// NVIDIA compute capability as 10 * major + minor (90 for sm_90a).
  unsigned computeCapability = 0;
  bool hasCpAsync = false;    ///< cp.async (sm_80+)
  bool hasLdmatrix = false;   ///< ldmatrix (sm_75+)
  bool hasMmaSync = false;    ///< mma.sync m16n8k16 (sm_80+)
  bool hasWgmma = false;      ///< wgmma (sm_90a)
  bool hasTma = false;        ///< cp.async.bulk.tensor (sm_90)
  /// e4m3 / e5m2 (the OCP formats of f8e4m3 / f8e5m2) as matrix operands:
  /// sm_89+, gfx950. gfx942's 8-bit float MFMA reads the FNUZ formats
  /// (another exponent bias, NaN at 0x80), so tilec's f8 dots take FMA there.
  bool hasFp8Mma = false;
  bool hasMfma = false;       ///< AMD MFMA
  bool hasMfmaGfx950 = false; ///< 16x16x32 / 32x32x16 f16 MFMA (gfx950)

  bool isHost() const { return vendor == Vendor::Host; }
  /// Programmatic dependent launch: a kernel waits in its code for the
  /// grids before it in its stream (griddepcontrol, sm_90+).
  bool hasDependentLaunch() const {
    return vendor == Vendor::NVIDIA && computeCapability >= 90;
  }
  bool isNVIDIA() const { return vendor == Vendor::NVIDIA; }
  bool isAMD() const { return vendor == Vendor::AMD; }
  /// Whether a dot of `bits`-bit operands (floats when `isFloat`; an 8-bit
  /// float in e4m3 / e5m2 when `fp8Format`) has a matrix instruction here
  /// (tile-infer-layouts' atoms; otherwise it runs on per-thread FMA).
  bool hasMatrixDot(unsigned bits, bool isFloat, bool fp8Format) const {
    if ((isNVIDIA() && hasMmaSync) || (isAMD() && hasMfma))
      return (bits == 16 && isFloat) ||
             (bits == 8 && (!isFloat || (hasFp8Mma && fp8Format)));
    return false;
  }
  /// What the language's target builtins return for this target
  /// (`warp_size()`, `shared_memory()`, `has_wgmma()`, `has_mma(T)`).
  frontend::TargetFacts frontendFacts() const {
    frontend::TargetFacts f;
    f.warpSize = warpSize;
    f.sharedBytes = maxSharedBytes;
    f.wgmma = hasWgmma;
    f.maxWarpsPerProcessor = maxWarpsPerProcessor;
    f.mmaFloat16 = hasMatrixDot(16, true, false);
    f.mmaInt8 = hasMatrixDot(8, false, false);
    f.mmaFloat8 = hasMatrixDot(8, true, true);
    return f;
  }
  ObjectKind objectKind() const {
    return isNVIDIA() ? ObjectKind::Cubin
           : isAMD()  ? ObjectKind::Hsaco
                      : ObjectKind::HostObject;
  }

  /// Looks up a target by name; std::nullopt for unknown names.
  static std::optional<TargetInfo> lookup(llvm::StringRef name);

  /// Every target name `lookup` accepts, in a stable order.
  static llvm::ArrayRef<llvm::StringRef> knownTargets();
};

} // namespace tile

#endif // TILE_TARGET_TARGETINFO_H
