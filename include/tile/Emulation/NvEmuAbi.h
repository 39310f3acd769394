/*===- NvEmuAbi.h - Contract between emulated NVIDIA code and the runtime -===*
 *
 * Part of tilec. The NVIDIA emulator runs the exact LLVM IR that tilec hands
 * to the NVPTX backend (after optimization) on the CPU: the compiler
 * (lib/Codegen/NVIDIA/Emulation.cpp) retargets that module to the host,
 * replaces every llvm.nvvm.* intrinsic by a call through the table below and
 * puts an access check before every load and store of global or shared
 * memory; the runtime (runtime/lib/emulator/NvEmuBackend.cpp) runs each
 * thread of a block as a fiber and implements the table: warp collectives
 * (shuffles, ldmatrix, mma.sync) gather all lanes of the warp first,
 * barriers all threads of the block, cp.async writes shared memory only
 * when a wait_group retires its group, a TMA copy when a wait on its
 * mbarrier completes the phase, and accesses are checked against the
 * allocations (global) and the launch's dynamic shared memory, with a race
 * detector on shared memory between barriers.
 *
 * A code object of kind "nvemu-so" is a host shared object exporting
 *   void __tile_emu_bind(const struct tile_emu_ops *ops);
 *       called once after loading, before any entry;
 *   void __tile_emu_entry_<kernel>(void **args);
 *       one per kernel; runs ONE thread of the kernel (the runtime calls it
 *       in each fiber); args are pointers to the parameter values, exactly
 *       as for cuLaunchKernel.
 * and nothing else is required of it. Plain C so both sides agree without
 * sharing any C++ type.
 *
 * TMA tensor maps (CUtensorMap on a GPU) are, on the emulator, a
 * struct tile_emu_tensor_map in the kernel's 128-byte __grid_constant__
 * parameter: the runtime fills it at each launch (the entry passes the
 * address of the parameter's slot itself, not a value loaded from it).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILE_RUNTIME_NVEMUABI_H
#define TILE_RUNTIME_NVEMUABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped whenever the table or an enumeration changes. */
#define TILE_EMU_ABI_VERSION 6

#define TILE_EMU_BIND_SYMBOL "__tile_emu_bind"
#define TILE_EMU_ENTRY_PREFIX "__tile_emu_entry_"

/** Special registers (llvm.nvvm.read.ptx.sreg.*). */
enum tile_emu_sreg {
  TILE_EMU_TID_X = 0,
  TILE_EMU_TID_Y,
  TILE_EMU_TID_Z,
  TILE_EMU_NTID_X,
  TILE_EMU_NTID_Y,
  TILE_EMU_NTID_Z,
  TILE_EMU_CTAID_X,
  TILE_EMU_CTAID_Y,
  TILE_EMU_CTAID_Z,
  TILE_EMU_NCTAID_X,
  TILE_EMU_NCTAID_Y,
  TILE_EMU_NCTAID_Z,
  TILE_EMU_LANEID,
  TILE_EMU_WARPID,
  TILE_EMU_NUM_SREGS
};

/** shfl.sync modes (PTX: .up, .down, .bfly, .idx). */
enum tile_emu_shfl_mode {
  TILE_EMU_SHFL_UP = 0,
  TILE_EMU_SHFL_DOWN,
  TILE_EMU_SHFL_BFLY,
  TILE_EMU_SHFL_IDX
};

/**
 * mma.sync.aligned shapes and types, all .row.col. Fragments are passed as
 * arrays of 32-bit registers in PTX operand order, packed as PTX packs them
 * (two f16/bf16 per register, element 0 in the low half; four s8 per
 * register, element 0 in the low byte):
 *                                   a  b  c  d (registers)
 *   M16N8K16_F32_F16  f16 x f16 + f32   4  2  4  4
 *   M16N8K16_F32_BF16 bf16x bf16+ f32   4  2  4  4
 *   M16N8K16_F16_F16  f16 x f16 + f16   4  2  2  2
 *   M16N8K32_S32_S8   s8 x s8 + s32     4  2  4  4  (wrapping)
 *   M16N8K32_S32_S8_SAT                 4  2  4  4  (.satfinite)
 *   M16N8K8_F32_F16   f16 x f16 + f32   2  1  4  4
 *   M16N8K32_F32_E4M3 e4m3 x e4m3 + f32 4  2  4  4  (sm_89+; the s8 fragments)
 *   M16N8K32_F32_E5M2 e5m2 x e5m2 + f32 4  2  4  4
 */
enum tile_emu_mma_kind {
  TILE_EMU_MMA_M16N8K16_F32_F16 = 0,
  TILE_EMU_MMA_M16N8K16_F32_BF16,
  TILE_EMU_MMA_M16N8K16_F16_F16,
  TILE_EMU_MMA_M16N8K32_S32_S8,
  TILE_EMU_MMA_M16N8K32_S32_S8_SAT,
  TILE_EMU_MMA_M16N8K8_F32_F16,
  TILE_EMU_MMA_M16N8K32_F32_E4M3,
  TILE_EMU_MMA_M16N8K32_F32_E5M2,
  TILE_EMU_NUM_MMA_KINDS
};

/**
 * wgmma.mma_async.sync.aligned.m64n{N}k16 kinds (f32 accumulator). A and B
 * are read from shared memory through 64-bit matrix descriptors (PTX ISA,
 * "Matrix Descriptor Format"; addresses are offsets in the block's shared
 * memory); C and D are the thread's N / 2 f32 accumulator registers in the
 * PTX fragment order. Flags: TILE_EMU_WGMMA_SCALE_D (D = A x B + C; else
 * D = A x B), TILE_EMU_WGMMA_TRANS_A / _TRANS_B (imm-trans-a / -b: the
 * operand is MN-major).
 */
enum tile_emu_wgmma_kind {
  TILE_EMU_WGMMA_F32_F16 = 0,
  TILE_EMU_WGMMA_F32_BF16,
  /* m64nNk32 with 8-bit float A and B (K-major only: no trans flags). */
  TILE_EMU_WGMMA_F32_E4M3,
  TILE_EMU_WGMMA_F32_E5M2,
  /* m64nNk32 with s8 A and B (K-major only), s32 accumulators (C and D
     are the thread's N / 2 s32 registers; sums wrap modulo 2^32). */
  TILE_EMU_WGMMA_S32_S8,
  TILE_EMU_NUM_WGMMA_KINDS
};
#define TILE_EMU_WGMMA_SCALE_D 0x1u
#define TILE_EMU_WGMMA_TRANS_A 0x2u
#define TILE_EMU_WGMMA_TRANS_B 0x4u
/* Internal to the emulator: A came from registers (wgmma_register_a). */
#define TILE_EMU_WGMMA_REGISTER_A 0x8u

/** Approximate math (ex2.approx.f32, lg2.approx.f32, ...). */
enum tile_emu_math {
  TILE_EMU_EX2_APPROX = 0,
  TILE_EMU_LG2_APPROX,
  TILE_EMU_RSQRT_APPROX,
  TILE_EMU_RCP_APPROX,
  TILE_EMU_SQRT_APPROX,
  TILE_EMU_SIN_APPROX,
  TILE_EMU_COS_APPROX,
  TILE_EMU_TANH_APPROX,
  /* ex2.approx.ftz.f32: subnormal inputs read as zero, subnormal results
     flushed to zero (ABI version 5). */
  TILE_EMU_EX2_APPROX_FTZ,
  TILE_EMU_NUM_MATH
};

/** Memory spaces of an access check (the LLVM NVPTX address spaces). */
enum tile_emu_space {
  TILE_EMU_GENERIC = 0,
  TILE_EMU_GLOBAL = 1,
  TILE_EMU_SHARED = 3,
  TILE_EMU_CONST = 4,
  TILE_EMU_LOCAL = 5
};

/** Flags of an access check, or'ed with the space. */
#define TILE_EMU_ACCESS_WRITE 0x100u
#define TILE_EMU_ACCESS_ATOMIC 0x200u
/** log2 of the alignment the access declares (LLVM's `align`), shifted by
    this; an address that is not a multiple of it is a misaligned access. */
#define TILE_EMU_ACCESS_ALIGN_SHIFT 12u

/** What an emulated TMA tensor map holds (at most 128 bytes). */
#define TILE_EMU_TENSOR_MAP_MAGIC 0x50414d54u /* "TMAP" */
struct tile_emu_tensor_map {
  uint32_t magic;         /**< TILE_EMU_TENSOR_MAP_MAGIC */
  uint32_t rank;          /**< 1-5 */
  uint32_t element_bytes; /**< 1, 2, 4 or 8 */
  uint32_t swizzle_bytes; /**< 0 (none), 32, 64 or 128 */
  uint64_t address;       /**< Global address of element 0. */
  uint64_t dims[5];       /**< Extents, innermost first. */
  uint64_t strides[5];    /**< Bytes, innermost first (strides[0] =
                               element_bytes). */
  uint32_t box[5];        /**< Box extents in elements, innermost first. */
};

/**
 * The runtime's side. Every function acts for the calling thread (the
 * fiber that runs it); a warp collective returns only when every lane of
 * the warp that has not exited has reached a collective, and a barrier
 * when every thread of the block has. Errors (out-of-bounds access, race,
 * divergent collective, deadlock, unsupported operation) are recorded by
 * the runtime and fail the launch; functions still return normally (reads
 * return zeros) so that the kernel can run to its end.
 */
struct tile_emu_ops {
  uint32_t abi_version; /**< TILE_EMU_ABI_VERSION */
  /** A special register of the calling thread. */
  uint32_t (*sreg)(uint32_t which);
  /** The block's dynamic shared memory (the address of the PTX
   *  extern .shared array; LaunchConfig::SharedBytes long). */
  void *(*shared_base)(void);
  /** bar.sync / barrier.cta.sync.aligned.all with barrier id \p id. */
  void (*barrier)(uint32_t id);
  /** shfl.sync: returns the value; *pred_out (when not null) receives
   *  the PTX predicate (1 when the source lane is in range). */
  uint32_t (*shfl)(uint32_t mode, uint32_t member_mask, uint32_t value,
                   uint32_t b, uint32_t c, uint32_t *pred_out);
  /** ldmatrix.sync.aligned.m8n8.x{count}[.trans].b16: \p row_address is
   *  this lane's row address (lanes 8i..8i+7 address matrix i); writes
   *  \p count registers to \p out. */
  void (*ldmatrix)(uint32_t count, uint32_t trans, const void *row_address,
                   uint32_t *out);
  /** mma.sync.aligned of \p kind (tile_emu_mma_kind); see the table. */
  void (*mma)(uint32_t kind, const uint32_t *a, const uint32_t *b,
              const uint32_t *c, uint32_t *d);
  /** cp.async.{ca,cg}.shared.global: copies \p src_bytes (<= \p bytes)
   *  bytes from \p src and zero-fills the rest up to \p bytes, when the
   *  group holding it is retired. */
  void (*cp_async)(void *dst, const void *src, uint32_t bytes,
                   uint32_t src_bytes);
  /** cp.async.commit_group. */
  void (*cp_async_commit)(void);
  /** cp.async.wait_group \p pending (wait_all: 0 after a commit). */
  void (*cp_async_wait)(uint32_t pending);
  /** Checks an access of \p bytes at \p address; \p flags is a
   *  tile_emu_space or'ed with TILE_EMU_ACCESS_* flags. Returns 1 when
   *  the access is allowed, 0 when it was recorded as an error (the
   *  caller may then skip it, reading zeros; ignoring the result is
   *  allowed too). */
  uint32_t (*access)(const void *address, uint32_t bytes, uint32_t flags);
  /** Approximate math (tile_emu_math). */
  float (*math_f32)(uint32_t fn, float x);
  /** An operation the emulator does not implement (llvm.trap included):
   *  \p what names it. Fails the launch. */
  void (*unsupported)(const char *what);
  /** wgmma.fence.sync.aligned: allows the calling thread's next
   *  wgmma.mma_async (one is an error without a fence since the thread's
   *  last wgmma.wait_group). */
  void (*wgmma_fence)(void);
  /** wgmma.mma_async of \p kind (tile_emu_wgmma_kind), m64n\p n k16: a
   *  warp collective here (each warp's rows of D depend only on its rows
   *  of A); the shared memory it reads is in flight until the
   *  wgmma.wait_group that retires its group. */
  void (*wgmma)(uint32_t kind, uint32_t n, uint64_t desc_a, uint64_t desc_b,
                uint32_t flags, const uint32_t *c, uint32_t *d);
  /** wgmma.commit_group.sync.aligned. */
  void (*wgmma_commit)(void);
  /** wgmma.wait_group.sync.aligned \p pending. */
  void (*wgmma_wait)(uint32_t pending);
  /** fence.proxy.async.shared::cta. */
  void (*fence_proxy_async)(void);
  /** mbarrier.init.shared::cta.b64 of the barrier at shared address
   *  \p bar (a 32-bit shared-window address: its low 18 bits are the
   *  offset in the block's shared memory) expecting \p count arrivals
   *  per phase. */
  void (*mbarrier_init)(uint32_t bar, uint32_t count);
  /** mbarrier.arrive.expect_tx: the barrier's transaction count grows by
   *  \p bytes, then the calling thread arrives once. */
  void (*mbarrier_arrive_expect_tx)(uint32_t bar, uint32_t bytes);
  /** mbarrier.try_wait.parity: 1 once the phase of parity \p parity has
   *  completed; blocks the calling thread until it has (so never 0
   *  here). */
  uint32_t (*mbarrier_try_wait_parity)(uint32_t bar, uint32_t parity);
  /** mbarrier.inval. */
  void (*mbarrier_inval)(uint32_t bar);
  /** cp.async.bulk.tensor.<rank>d.shared::cluster.global.tile.mbarrier::
   *  complete_tx::bytes: copies the box at element coordinates \p coords
   *  (\p rank of them, innermost first, signed; elements outside the
   *  tensor read as zero) of tensor map \p map to shared address \p dst;
   *  the bytes complete transactions of barrier \p bar. The source is
   *  read at the issue; shared memory is written when a wait on the
   *  barrier completes the phase. */
  void (*tma_load)(uint32_t dst, const void *map, const int32_t *coords,
                   uint32_t rank, uint32_t bar);
  /** wgmma.mma_async of \p kind (16-bit kinds only) with A from
   *  registers: \p a is the thread's four 32-bit A registers (the
   *  m16n8k16 A fragment of its warp's 16 rows); otherwise as wgmma (no
   *  TILE_EMU_WGMMA_TRANS_A). */
  void (*wgmma_register_a)(uint32_t kind, uint32_t n, const uint32_t *a,
                           uint64_t desc_b, uint32_t flags, const uint32_t *c,
                           uint32_t *d);
  /** bar.sync / barrier.cta.sync.aligned \p id, \p count: completes
   *  when \p count threads (a multiple of 32) have arrived. */
  void (*barrier_count)(uint32_t id, uint32_t count);
  /** mbarrier.arrive (no transaction bytes): the calling thread arrives
   *  once. The shared-memory accesses before it are ordered before what
   *  the threads that wait for the phase do after (the race detector
   *  starts a new epoch when such a phase completes). */
  void (*mbarrier_arrive)(uint32_t bar);
  /** setmaxnreg.{inc,dec}.sync.aligned.u32 \p count (\p increase: 1 for
   *  inc): checks the count (a multiple of 8 in [24, 256]); registers
   *  are not modelled. */
  void (*setmaxnreg)(uint32_t count, uint32_t increase);
};

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_NVEMUABI_H */
