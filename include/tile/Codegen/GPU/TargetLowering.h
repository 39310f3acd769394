//===- TargetLowering.h - Vendor hooks of the generic GPU lowering -*- C++ -*-//
//
// Part of tilec. The GPU lowering of the tile dialect (lib/Codegen/GPU) is
// written once for every vendor: it distributes each tile over the threads of
// a program following its #tile.layout, and emits loads, stores, reductions,
// layout conversions and matrix products as per-thread scalar code. The few
// places where vendors differ — thread and block ids, address spaces,
// barriers, cross-lane exchange, matrix instructions, asynchronous copies,
// fast transcendental functions, the kernel ABI — go through this interface.
// NVIDIA implements it in lib/Codegen/NVIDIA (NVVM ops); AMD will implement it
// with ROCDL ops (ds_bpermute, MFMA, buffer loads).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_GPU_TARGETLOWERING_H
#define TILE_CODEGEN_GPU_TARGETLOWERING_H

#include "tile/Layout/DistributedLayout.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>

namespace mlir {
class ModuleOp;
class OpBuilder;
namespace LLVM {
class LLVMFuncOp;
} // namespace LLVM
} // namespace mlir

namespace tile {
struct TargetInfo;
namespace gpu {

/// One matrix instruction a target can run on a warp: D(MxN) = A(MxK) x
/// B(KxN) + C, with the register layouts of its operands over one warp
/// (lib/Layout's MmaAtoms).
struct MmaAtom {
  unsigned m = 0, n = 0, k = 0;
  ::tile::layout::DistributedLayout a, b, c;
  /// The operands' element type (8-bit floats arrive as their i8 codes).
  mlir::Type operand;
};

/// The vendor-specific half of the GPU lowering. Every hook builds ops at the
/// builder's insertion point and returns values of LLVM-compatible builtin
/// types (i1/i8/i16/i32/i64, f16/bf16/f32, vectors) or `!llvm.ptr<AS>`.
/// The role of the code at a builder's insertion point in a
/// warp-specialized program: the GPU lowering of tile.warp_specialize
/// branches on the thread index with an op carrying `kAttr` = [consumer
/// threads, producer threads]; its region 0 is the producers' (thread
/// indices from the consumer count on), region 1 the consumers'.
struct WarpRoles {
  static constexpr const char *kAttr = "tile.warp_roles";
  /// 0 outside a specialized region; otherwise the threads of the role.
  unsigned threads = 0;
  /// The role's first thread index.
  unsigned firstThread = 0;
  /// The roles around \p block (its nearest specialized ancestor).
  static WarpRoles at(mlir::Block *block);
};

class TargetLowering {
public:
  virtual ~TargetLowering();

  /// The target description (warp size, shared memory, features).
  virtual const TargetInfo &getTargetInfo() const = 0;

  /// Address space of global memory pointers (NVVM: 1).
  virtual unsigned getGlobalAddressSpace() const = 0;
  /// Address space of shared memory / LDS (NVVM: 3).
  virtual unsigned getSharedAddressSpace() const = 0;

  /// The thread index inside the program (0 .. warps * warpSize - 1), i32.
  virtual mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc) = 0;
  /// The program (block) index along `axis` (0, 1, 2), i32.
  virtual mlir::Value programId(mlir::OpBuilder &b, mlir::Location loc,
                                unsigned axis) = 0;
  /// The number of programs along `axis`, i32.
  virtual mlir::Value numPrograms(mlir::OpBuilder &b, mlir::Location loc,
                                  unsigned axis) = 0;

  /// A barrier over every thread of the program that also orders shared
  /// memory accesses; inside one role of a warp-specialized program
  /// (WarpRoles), over the threads of that role only.
  virtual void barrier(mlir::OpBuilder &b, mlir::Location loc) = 0;

  /// Butterfly exchange: returns the 32-bit value (i32 or f32) `value` of
  /// lane `lane ^ laneMask` of the calling warp. Every lane of the warp calls
  /// it.
  virtual mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value, unsigned laneMask) = 0;
  /// Returns the 32-bit value `value` of lane `srcLane` (an i32 value).
  virtual mlir::Value shuffleIndex(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value value, mlir::Value srcLane) = 0;

  /// The base of the program's dynamic shared memory (`!llvm.ptr<shared>`),
  /// declaring it in `module` on first use.
  virtual mlir::Value sharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::ModuleOp module) = 0;

  /// The matrix instruction for operands of `operandType` accumulating into
  /// `accType`, or std::nullopt when the target has none.
  virtual std::optional<MmaAtom> getMmaAtom(mlir::Type operandType,
                                            mlir::Type accType) const = 0;
  /// One warp-wide matrix instruction of `atom`. `a`, `b`, `c` are the
  /// thread's operand slots in the slot order of the atom's layouts (for
  /// 16-bit elements, slots 2i and 2i+1 share register i); returns the result
  /// slots in the order of the accumulator layout.
  virtual llvm::SmallVector<mlir::Value>
  mma(mlir::OpBuilder &b, mlir::Location loc, const MmaAtom &atom,
      mlir::ValueRange a, mlir::ValueRange bOperand, mlir::ValueRange c) = 0;

  /// Whether the target has a warp-collective load of 8 x (128 / bits)
  /// matrices from shared memory into the matrix-instruction fragment layout
  /// (NVIDIA ldmatrix), for `elementBits`-bit elements, transposing when
  /// `transpose` is set. The default is no (AMD has none).
  virtual bool hasMatrixLoad(unsigned elementBits, bool transpose) const;
  /// One warp-wide matrix load of `numMatrices` (1, 2 or 4) matrices of 8
  /// rows of 16 bytes each. Lane l passes in `rowAddress` (a shared pointer)
  /// the start of row l % 8 of matrix l / 8 (lanes past 8 * numMatrices
  /// pass any valid address). Returns `numMatrices` i32 registers; register
  /// j holds the calling lane's fragment of matrix j: without `transpose`,
  /// bytes 4 * (l % 4) .. + 3 of row l / 4 (low bytes first); with
  /// `transpose` (16-bit elements), the elements (2 * (l % 4) + i, l / 4)
  /// of the matrix's rows, i = 0 in the low half. Only called when
  /// hasMatrixLoad() is true.
  virtual llvm::SmallVector<mlir::Value>
  loadMatrices(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rowAddress,
               unsigned numMatrices, bool transpose);

  /// Whether the target has warpgroup matrix instructions reading B (and A,
  /// or see warpgroupMmaRegisterA) from shared memory (NVIDIA
  /// wgmma.mma_async, sm_90a) for
  /// `operandType` operands and an `accType` accumulator. Default: no.
  virtual bool hasWarpgroupMma(mlir::Type operandType,
                               mlir::Type accType) const;
  /// One wgmma.mma_async m64n`n`k16 (k32 for 8-bit operands: 32 bytes of
  /// K either way) of the calling thread's warpgroup:
  /// `descA` and `descB` are the operands' 64-bit shared-memory matrix
  /// descriptors (lib/Layout's WgmmaOperand.h), `transA` / `transB` say
  /// that an operand is MN-major (16-bit operands only), `acc` are the
  /// thread's n / 2 f32 (s32 for s8 operands)
  /// accumulator registers (D += A x B); returns the new ones. They may be
  /// read only after warpgroupWait retires the group.
  virtual llvm::SmallVector<mlir::Value>
  warpgroupMma(mlir::OpBuilder &b, mlir::Location loc, mlir::Type operandType,
               unsigned n, mlir::Value descA, mlir::Value descB, bool transA,
               bool transB, mlir::ValueRange acc);
  /// warpgroupMma with A from registers (16-bit float operands only):
  /// `aWords` are the thread's 8-element A fragment for its warp's 16 rows
  /// of the 64-row block and the k16 slice, in the order of the mma.sync
  /// m16n8k16 A fragment (the same fragment; PTX ISA "Register Fragments"
  /// of wgmma .m64nNk16), packed two per i32 (element 2i in the low half of
  /// word i), made before the batch's warpgroupFence; B from shared memory
  /// through `descB`. The A registers, like the accumulators, may be
  /// written again only after warpgroupWait retires the group.
  virtual llvm::SmallVector<mlir::Value>
  warpgroupMmaRegisterA(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type operandType, unsigned n,
                        mlir::ValueRange aWords, mlir::Value descB, bool transB,
                        mlir::ValueRange acc);
  /// wgmma.fence: before the first warpgroupMma of a batch (orders the
  /// accumulator registers' earlier accesses).
  virtual void warpgroupFence(mlir::OpBuilder &b, mlir::Location loc);
  /// Closes the group of warpgroupMma issued since the last commit.
  virtual void warpgroupCommit(mlir::OpBuilder &b, mlir::Location loc);
  /// Waits until at most `pending` warpgroupMma groups are in flight;
  /// returns `acc` (f32 accumulators those groups write) as values that
  /// depend on the wait, so that no use of them moves above it.
  virtual llvm::SmallVector<mlir::Value> warpgroupWait(mlir::OpBuilder &b,
                                                       mlir::Location loc,
                                                       unsigned pending,
                                                       mlir::ValueRange acc);
  /// Orders the calling thread's earlier shared-memory writes before reads
  /// by warpgroupMma of any thread that passes a barrier after it (NVIDIA:
  /// fence.proxy.async.shared::cta). Default: nothing.
  virtual void fenceSharedForWarpgroupMma(mlir::OpBuilder &b,
                                          mlir::Location loc);

  /// Whether asynchronous global-to-shared copies exist (cp.async).
  virtual bool hasAsyncCopy() const = 0;
  /// Starts copying `bytes` (4, 8 or 16) from `src` (global) to `dst`
  /// (shared); only the first `srcBytes` (an i32 value, 0 .. bytes) are read,
  /// the rest is zero-filled.
  virtual void asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value dst, mlir::Value src, unsigned bytes,
                         mlir::Value srcBytes) = 0;
  /// Closes the current group of asynchronous copies.
  virtual void asyncCommitGroup(mlir::OpBuilder &b, mlir::Location loc) = 0;
  /// Waits until at most `pending` groups are in flight.
  virtual void asyncWait(mlir::OpBuilder &b, mlir::Location loc,
                         unsigned pending) = 0;

  /// Whether TMA copies and the mbarriers tracking them exist (NVIDIA
  /// sm_90). Default: no; the mbarrier and TMA hooks below are then never
  /// called.
  virtual bool hasTensorCopy() const;
  /// Initializes the mbarrier at shared address `bar` to expect `count`
  /// arrivals per phase (one thread).
  virtual void mbarrierInit(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value bar, unsigned count);
  /// Makes the initializations visible to TMA; a block barrier follows.
  virtual void mbarrierInitFence(mlir::OpBuilder &b, mlir::Location loc);
  /// One arrival on `bar` that announces `bytes` transaction bytes.
  virtual void mbarrierArriveExpectTx(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value bar, int64_t bytes);
  /// i32 1 once the phase of parity `parity` (i32 0 or 1) of `bar` has
  /// completed, 0 when the wait timed out first (the caller loops).
  virtual mlir::Value mbarrierTryWait(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value bar, mlir::Value parity);
  /// Invalidates `bar` (one thread; no thread waits on it any more).
  virtual void mbarrierInval(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value bar);
  /// One plain arrival of the calling thread on `bar`.
  virtual void mbarrierArrive(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value bar);
  /// The calling warpgroup's registers per thread become `count`
  /// (`increase`: more than it has, blocking until the block's pool has
  /// them; otherwise fewer, returned to the pool). NVIDIA sm_90a
  /// setmaxnreg; only where hasTensorCopy.
  virtual void setMaxRegisters(mlir::OpBuilder &b, mlir::Location loc,
                               unsigned count, bool increase);
  /// One TMA load through tensor map `map` (the generic address of a
  /// kernel parameter) of the box at element coordinates `coords` (1-5
  /// i32, innermost first, one per dimension of the map; outside the
  /// tensor reads zero) into shared `dst`; its bytes complete the
  /// transaction count of `bar`.
  virtual void tensorCopy(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value dst, mlir::Value map,
                          mlir::ValueRange coords, mlir::Value bar);

  /// 2^x for f32 x, the fast hardware approximation where there is one.
  virtual mlir::Value exp2(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x) = 0;
  /// log2(x) for f32 x.
  virtual mlir::Value log2(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x) = 0;
  /// 1 / sqrt(x) for f32 x.
  virtual mlir::Value rsqrt(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x) = 0;

  /// `(a & mask) ^ c` on i32 values, `mask` and `c` constants: the
  /// word-wise dequantization's field extraction with the magic exponent.
  /// By default an and and an xor; NVIDIA emits one `lop3.b32` (its
  /// backend and ptxas do not fuse two immediates into one LOP3).
  virtual mlir::Value andXor(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value a, int64_t mask, int64_t c);

  /// (a & mask) | (b & ~mask) of i32 `a` and `b`: the bits of `a` where
  /// the constant `mask` has ones, of `b` elsewhere. By default ands and an
  /// or; NVIDIA emits one `lop3.b32` (which LLVM's demanded-bits rewrites
  /// of its operands cannot split).
  virtual mlir::Value bitSelect(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value a, mlir::Value bValue,
                                int64_t mask);

  /// The bytes of the i32 `a` and the constant `c` picked by `selector`:
  /// result byte k is byte (selector >> 4k) & 7 of the pair (a, c), bytes
  /// 0-3 from `a`, 4-7 from `c` (PTX prmt's default mode). The word-wise
  /// dequantization of 8-bit codes builds its f16 pairs with it. By default
  /// shifts, masks and ors; NVIDIA emits one `prmt.b32`.
  virtual mlir::Value permuteBytes(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value a, uint32_t c,
                                   uint32_t selector);

  /// Adds `value` (f32, f16, bf16 or i32) to the global element at `ptr`
  /// atomically with relaxed ordering; the result is not used. By default
  /// a plain `atomicrmw fadd` / `add`, left to the backend.
  virtual void atomicAddGlobal(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value ptr, mlir::Value value);

  /// Whether atomicAddGlobalPair takes two `type` values (f16, bf16).
  virtual bool hasAtomicAddPair(mlir::Type type) const;
  /// Adds `lo` and `hi` to the two consecutive global elements at `ptr`
  /// (4-byte aligned: the caller checks) with one relaxed atomic addition
  /// of the pair (NVIDIA `red.global.add.noftz.f16x2`, AMD
  /// `global_atomic_pk_add_f16`: no compare-and-swap loop, no round trip);
  /// only where hasAtomicAddPair.
  virtual void atomicAddGlobalPair(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value ptr, mlir::Value lo,
                                   mlir::Value hi);

  /// Turns `func` into a kernel entry point launched with `numThreads`
  /// threads per program (calling convention, launch bounds) and, when
  /// `maxRegisters` is not 0, at most that many registers per thread at
  /// its start (a warp-specialized kernel, which setMaxRegisters adjusts).
  /// `occupancy` > 1 (`occupancy N`) asks the code generator to leave
  /// registers for that many programs per SM (CU).
  virtual void markKernel(mlir::LLVM::LLVMFuncOp func, unsigned numThreads,
                          unsigned maxRegisters, unsigned occupancy) = 0;

  /// Whether prefetchL2 brings lines into the L2 cache (else tile.prefetch
  /// lowers to nothing: it is a hint).
  virtual bool hasL2Prefetch() const { return false; }
  /// Brings the cache line holding the global address `ptr` into L2
  /// (changes no value). Only called where hasL2Prefetch.
  virtual void prefetchL2(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value ptr);

  /// At a kernel's start (where TargetInfo::hasDependentLaunch): waits
  /// until the grids before it in its stream have finished and their
  /// memory is visible, then lets the next grid be scheduled. Only called
  /// where hasDependentLaunch.
  virtual void waitForPrecedingGrids(mlir::OpBuilder &b, mlir::Location loc);

  /// Erases an op this lowering created and no longer needs (a step another
  /// instruction replaced): through the rewriter of the conversion pattern
  /// that is running, which the generic lowering sets, so that the dialect
  /// conversion knows.
  void eraseOp(mlir::Operation *op);
  void setRewriter(mlir::RewriterBase *r) { rewriter = r; }

private:
  mlir::RewriterBase *rewriter = nullptr;
};

} // namespace gpu
} // namespace tile

#endif // TILE_CODEGEN_GPU_TARGETLOWERING_H
