//===- LayoutChoice.h - The layouts tile-infer-layouts chooses --*- C++ -*-===//
//
// Part of tilec. The layout choices of tile-infer-layouts as plain functions
// (no MLIR), so that a lowering that must make the same choice (for
// instance the thread mapping of a tile.copy_async) and the tests can call
// them. See docs/Passes.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_LAYOUTCHOICE_H
#define TILE_TRANSFORMS_LAYOUTCHOICE_H

#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace tile {
struct TargetInfo;

namespace layout {

/// Elements one thread moves along the contiguous (last) dimension of a
/// global access of `elemBits`-bit elements: the smallest power of two whose
/// bits reach 128 (16 bytes) and fill whole 32-bit registers (u3: 64
/// elements = 192 bits, u5: 32 = 160 bits, u4: 32, f16: 8, f32: 4), reduced
/// to the largest power of two dividing `lastExtent` when the row is
/// shorter.
int64_t coalescedVectorWidth(unsigned elemBits, int64_t lastExtent);

/// The coalesced layout of a global load/store/copy of a tile: each thread
/// holds coalescedVectorWidth() contiguous elements of the last dimension,
/// consecutive threads take consecutive chunks (last dimension first, then
/// the dimensions before it), the pattern repeats over the tile in local
/// slots, and threads left over when the tile is small replicate it.
DistributedLayout coalescedLayout(llvm::ArrayRef<int64_t> shape,
                                  unsigned elemBits, int64_t numThreads);

/// The operand layouts of one tile.dot.
struct DotLayouts {
  DistributedLayout a, b, c;
  /// True when they tile a matrix instruction (mma.sync / MFMA) whose
  /// operand layouts are `atomA`, `atomB`, `atomC`; false for the FMA
  /// layouts (every thread holds full rows of A and full columns of B for
  /// its accumulator elements).
  bool isMma = false;
  DistributedLayout atomA, atomB, atomC;
  /// Warps along M and N (their product may be less than the warp count
  /// when the tile is small: the rest replicate).
  int64_t warpsM = 1, warpsN = 1;
  /// Warps along the batch dimension of a batched (3-D) dot; 1 otherwise.
  int64_t warpsBatch = 1;
};

/// Chooses the layouts of an (M x K) x (K x N) + (M x N) dot with operands
/// of `operandBits`-bit elements (`operandIsFloat` says whether they are
/// floats) for `numWarps` warps of `target`: NVIDIA mma.sync m16n8k16
/// (16-bit floats) or m16n8k32 (i8; e4m3 / e5m2 on sm_89+) when the target
/// has it and
/// the shape is a multiple of the atom; AMD MFMA 32x32x8 / 16x16x16 for
/// 16-bit floats; otherwise FMA layouts built from a coalesced-like
/// accumulator layout.
///
/// With \p warpsAlongM every warp takes its own rows (warpsN = 1) when M has
/// enough atoms: used for chained products (attention's P = softmax(Q K^T)
/// feeding P V), so that an accumulator becomes the next A operand without
/// leaving its warp. 8-bit float operands take the m16n8k32 atom (sm_89+)
/// only when \p fp8MmaFormat says they are e4m3 / e5m2, the formats of the
/// instruction; other 8-bit floats (e3m4, ...) take FMA layouts.
DotLayouts chooseDotLayouts(int64_t m, int64_t n, int64_t k,
                            unsigned operandBits, bool operandIsFloat,
                            int64_t numWarps, const TargetInfo &target,
                            bool warpsAlongM = false, bool fp8MmaFormat = true);

/// The rank-3 layouts of a batched dot, `batch` products (B x M x K) x
/// (B x K x N) + (B x M x N): with \p warpsAlongBatch the warps go along the
/// batch first (the largest power of two dividing both `batch` and
/// `numWarps`), each group of warps taking whole products in its local
/// slots; the warps of a group split M and N as chooseDotLayouts does for
/// that many warps. A K split into B slices so runs each slice on its own
/// warps, and the sum over the batch after the loop (tile.reduce) is one
/// exchange through shared memory. Without it every thread holds all B
/// products of its elements (the warps split only M and N), so a sum over
/// the batch is a thread's own additions: for products summed right away,
/// every iteration (per-group partial products scaled before their sum).
DotLayouts chooseBatchedDotLayouts(int64_t batch, int64_t m, int64_t n,
                                   int64_t k, unsigned operandBits,
                                   bool operandIsFloat, int64_t numWarps,
                                   const TargetInfo &target,
                                   bool warpsAlongM = false,
                                   bool fp8MmaFormat = true,
                                   bool warpsAlongBatch = true);

/// Whether an (M x K) x (K x N) dot with both operands read from shared
/// memory fits the Hopper warpgroup instruction tilec emits
/// (wgmma.mma_async on sm_90a; WgmmaOperand.h): m64nNk16 for 16-bit float
/// operands, m64nNk32 for 8-bit ones in the instruction's formats (e4m3 /
/// e5m2: `fp8MmaFormat`; or i8, `operandIsFloat` false), the accumulator
/// wide (`accIsWide`: f32 for floats, i32 for i8). 8-bit operands need B
/// stored N x K (`bTransposed`: wgmma reads them only K-major); rows of A
/// and of B of
/// 32, 64 or 128 bytes (K and N of 16, 32 or 64 16-bit elements) or
/// column-blocked (K or N a power of two above 128 bytes, N at most 256, over a
/// power of two of at least 8 rows: M for A, K for B), whole warpgroups (warps
/// a multiple of 4) and M a multiple of 16 rows per warp and of 64. Layout
/// inference then puts the warps along M (each warpgroup's accumulator is
/// m64nN), tile-allocate-shared gives the operand buffers the hardware
/// swizzle, and the GPU lowering emits wgmma. With `bTransposed`, B is
/// stored N x K (read through a transpose: K-major), rows of K elements
/// over N rows (N from 64 up to 256, a multiple of 8; of 16 for i8, the
/// integer instruction's shapes). A `chained` product (DotChain.h:
/// attention's two) fits only with one 64-row block per warpgroup (M = 16
/// x warps); its A may also come from registers (the GPU lowering's
/// register-A form).
bool fitsWarpgroupMma(int64_t m, int64_t n, int64_t k, unsigned operandBits,
                      bool operandIsFloat, bool accIsWide, int64_t numWarps,
                      const TargetInfo &target, bool bTransposed = false,
                      bool fp8MmaFormat = false, bool chained = false);

} // namespace layout
} // namespace tile

#endif // TILE_TRANSFORMS_LAYOUTCHOICE_H
