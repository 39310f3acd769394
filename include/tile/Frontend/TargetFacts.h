//===- TargetFacts.h - What compile-time expressions know of the target ---===//
//
// Part of tilec. The facts of the compilation target that the language's
// compile-time builtins return (`warp_size()`, `shared_memory()`,
// `has_wgmma()`, `has_mma(T)`), so that a kernel's defaults can follow the
// target. The front end does not depend on lib/Target: whoever knows the target
// (tilec, the JIT, tune) gets this from its TargetInfo
// (TargetInfo::frontendFacts).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_TARGETFACTS_H
#define TILE_FRONTEND_TARGETFACTS_H

namespace tile {
namespace frontend {

struct TargetFacts {
  /// Threads per warp: 32 on NVIDIA, 64 on AMD CDNA, 1 on the host; 0 when
  /// no target is known, where the target's builtins are errors.
  unsigned warpSize = 0;
  /// Shared memory (LDS) one program may use, in bytes, with opt-in (the
  /// target's maxSharedBytes: 227 KB on sm_90a and the host, 163 KB on
  /// sm_80, 160 KB on gfx950, 64 KB on gfx942).
  unsigned sharedBytes = 0;
  /// Warpgroup MMA (wgmma.mma_async: sm_90a).
  bool wgmma = false;
  /// Warps (wavefronts) one SM (CU) holds at once: what bounds `warps W
  /// occupancy N` (0: no bound, the host).
  unsigned maxWarpsPerProcessor = 0;
  /// Which operand types `dot` runs on matrix instructions for (mma.sync,
  /// wgmma, MFMA): 16-bit floats, 8-bit integers, e4m3 / e5m2; otherwise
  /// on per-thread FMA (`has_mma(T)`).
  bool mmaFloat16 = false, mmaInt8 = false, mmaFloat8 = false;

  bool known() const { return warpSize != 0; }
};

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_TARGETFACTS_H
