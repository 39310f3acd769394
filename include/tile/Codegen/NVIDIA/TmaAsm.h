//===- TmaAsm.h - PTX statements of TMA copies and mbarriers -*- C++ -*-===//
//
// Part of tilec. The inline-PTX statements the NVIDIA lowering emits for
// TMA copies (cp.async.bulk.tensor) and the mbarriers that track them, in
// one place: NVVMTargetLowering emits exactly these texts and the emulator
// rewrite (Emulation.cpp) recognizes exactly these texts, turning each into
// a call through the emulator's table (NvEmuAbi.h). Inline PTX rather than
// NVVM intrinsics: the intrinsics' signatures change between LLVM releases
// (flags for multicast, cache hints, CTA groups), the PTX does not.
//
// Shared-memory operands are 32-bit shared-window addresses ("r"); the
// tensor map is the generic address of a __grid_constant__ kernel parameter
// ("l"); coordinates are element indices, innermost dimension first.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_NVIDIA_TMAASM_H
#define TILE_CODEGEN_NVIDIA_TMAASM_H

#include <string>

namespace tile::nvidia::tma_asm {

/// mbarrier.init: $0 barrier address, $1 expected arrivals. "r,r".
inline constexpr const char *kInit = "mbarrier.init.shared::cta.b64 [$0], $1;";

/// Makes initialized mbarriers visible to the async proxy (TMA); no
/// operands. Followed by a block barrier.
inline constexpr const char *kInitFence =
    "fence.mbarrier_init.release.cluster;";

/// One arrival that also expects $1 more transaction bytes: $0 barrier
/// address, $1 bytes. "r,r".
inline constexpr const char *kArriveExpectTx =
    "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;";

/// Waits until the phase of parity $2 of barrier $1 has completed; $0 is 1
/// when it has, 0 when the wait timed out (the caller loops). "=r,r,r".
inline constexpr const char *kTryWaitParity =
    "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; "
    "selp.u32 $0, 1, 0, p; }";

/// One plain arrival of the calling thread (a consumer warp releasing a
/// ring stage): $0 barrier address. "r".
inline constexpr const char *kArrive =
    "mbarrier.arrive.shared::cta.b64 _, [$0];";

/// mbarrier.inval before the barrier's memory is used for anything else: $0
/// barrier address. "r".
inline constexpr const char *kInval = "mbarrier.inval.shared::cta.b64 [$0];";

/// The TMA load of a `rank`-D box (1-5): $0 shared destination, $1 tensor
/// map, $2 .. $(rank+1) the coordinates, innermost first, $(rank+2) the
/// barrier whose transaction count the bytes complete. "r,l,r,...,r".
/// For rank 2: "cp.async.bulk.tensor.2d.shared::cluster.global.tile.
/// mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];".
inline std::string loadText(unsigned rank) {
  std::string coords;
  for (unsigned i = 0; i < rank; ++i)
    coords += (i ? ", $" : "$") + std::to_string(i + 2);
  return "cp.async.bulk.tensor." + std::to_string(rank) +
         "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], "
         "[$1, {" +
         coords + "}], [$" + std::to_string(rank + 2) + "];";
}

} // namespace tile::nvidia::tma_asm

#endif // TILE_CODEGEN_NVIDIA_TMAASM_H
