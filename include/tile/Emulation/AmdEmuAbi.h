/*===- AmdEmuAbi.h - Contract between emulated AMD code and the runtime ---===*
 *
 * Part of tilec. The AMD emulator runs the exact LLVM IR that tilec hands to
 * the AMDGPU backend (after optimization) on the CPU, like the NVIDIA
 * emulator (NvEmuAbi.h): the compiler (lib/Codegen/AMD/Emulation.cpp)
 * retargets the module to the host, replaces every llvm.amdgcn.* intrinsic
 * by a call through the table below, gives the module's LDS variables
 * offsets in one per-workgroup block and checks every global/LDS access;
 * the runtime (runtime/lib/emulator/AmdEmuBackend.cpp) runs each work-item as a
 * fiber, in waves of 64 lanes (CDNA is wave64). Wave collectives (DPP,
 * ds_swizzle, ds_bpermute, MFMA) return when every live lane of the wave
 * has reached one; s_barrier when every work-item of the workgroup has.
 *
 * A code object of kind "amdemu-so" is a host shared object exporting
 *   void __tile_emu_bind(const struct tile_amd_emu_ops *ops);
 *   void __tile_emu_entry_<kernel>(void **args);    one work-item
 *   uint32_t __tile_emu_lds_bytes_<kernel>;          LDS the kernel uses
 * args are pointers to the parameter values, as for hipModuleLaunchKernel.
 * The workgroup's LDS block is lds_bytes long, 16-byte aligned (more is
 * fine), and uninitialized (poisoned) at the start of each workgroup.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILE_RUNTIME_AMDEMUABI_H
#define TILE_RUNTIME_AMDEMUABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bumped whenever the table or an enumeration changes. */
#define TILE_AMD_EMU_ABI_VERSION 1

#define TILE_AMD_EMU_LDS_BYTES_PREFIX "__tile_emu_lds_bytes_"

/** Work-item and workgroup registers (llvm.amdgcn.workitem.id.*, ...). */
enum tile_amd_emu_sreg {
  TILE_AMD_EMU_WORKITEM_X = 0,
  TILE_AMD_EMU_WORKITEM_Y,
  TILE_AMD_EMU_WORKITEM_Z,
  TILE_AMD_EMU_WORKGROUP_X,
  TILE_AMD_EMU_WORKGROUP_Y,
  TILE_AMD_EMU_WORKGROUP_Z,
  TILE_AMD_EMU_NUM_WORKGROUPS_X,
  TILE_AMD_EMU_NUM_WORKGROUPS_Y,
  TILE_AMD_EMU_NUM_WORKGROUPS_Z,
  TILE_AMD_EMU_WORKGROUP_SIZE_X,
  TILE_AMD_EMU_NUM_SREGS
};

/**
 * MFMA kinds (v_mfma_*). Operands are passed as arrays of 32-bit words in
 * the order of the intrinsic's vector elements (an <4 x half> A operand is
 * 2 words, element 0 in the low half of word 0; an i64 of 8 x i8 is 2 words,
 * byte 0 lowest). cbsz/abid/blgp are 0 (others are refused by the
 * compiler). Per lane:                        a  b  c=d (words)
 *   F32_32X32X8_F16     v_mfma_f32_32x32x8_f16      2  2  16
 *   F32_16X16X16_F16    v_mfma_f32_16x16x16_f16     2  2   4
 *   F32_32X32X8_BF16    v_mfma_f32_32x32x8_bf16     2  2  16
 *   F32_16X16X16_BF16   v_mfma_f32_16x16x16_bf16    2  2   4
 *   I32_32X32X16_I8     v_mfma_i32_32x32x16_i8      2  2  16
 *   I32_16X16X32_I8     v_mfma_i32_16x16x32_i8      2  2   4
 *   F32_32X32X16_F16    v_mfma_f32_32x32x16_f16     4  4  16  (gfx950)
 *   F32_16X16X32_F16    v_mfma_f32_16x16x32_f16     4  4   4  (gfx950)
 *   F32_32X32X16_BF16   v_mfma_f32_32x32x16_bf16    4  4  16  (gfx950)
 *   F32_16X16X32_BF16   v_mfma_f32_16x16x32_bf16    4  4   4  (gfx950)
 *   I32_32X32X32_I8     v_mfma_i32_32x32x32_i8      4  4  16  (gfx950)
 *   I32_16X16X64_I8     v_mfma_i32_16x16x64_i8      4  4   4  (gfx950)
 *   F32_32X32X16_FP8    v_mfma_f32_32x32x16_fp8_fp8 2  2  16  (gfx950)
 *   F32_16X16X32_FP8    v_mfma_f32_16x16x32_fp8_fp8 2  2   4  (gfx950)
 *   F32_32X32X16_BF8    v_mfma_f32_32x32x16_bf8_bf8 2  2  16  (gfx950)
 *   F32_16X16X32_BF8    v_mfma_f32_16x16x32_bf8_bf8 2  2   4  (gfx950)
 * The 8-bit float kinds read gfx950's OCP formats: fp8 = e4m3 (NaN only at
 * S.1111.111, no infinities), bf8 = e5m2 (IEEE specials).
 */
enum tile_amd_emu_mfma_kind {
  TILE_AMD_EMU_MFMA_F32_32X32X8_F16 = 0,
  TILE_AMD_EMU_MFMA_F32_16X16X16_F16,
  TILE_AMD_EMU_MFMA_F32_32X32X8_BF16,
  TILE_AMD_EMU_MFMA_F32_16X16X16_BF16,
  TILE_AMD_EMU_MFMA_I32_32X32X16_I8,
  TILE_AMD_EMU_MFMA_I32_16X16X32_I8,
  TILE_AMD_EMU_MFMA_F32_32X32X16_F16,
  TILE_AMD_EMU_MFMA_F32_16X16X32_F16,
  TILE_AMD_EMU_MFMA_F32_32X32X16_BF16,
  TILE_AMD_EMU_MFMA_F32_16X16X32_BF16,
  TILE_AMD_EMU_MFMA_I32_32X32X32_I8,
  TILE_AMD_EMU_MFMA_I32_16X16X64_I8,
  TILE_AMD_EMU_MFMA_F32_32X32X16_FP8,
  TILE_AMD_EMU_MFMA_F32_16X16X32_FP8,
  TILE_AMD_EMU_MFMA_F32_32X32X16_BF8,
  TILE_AMD_EMU_MFMA_F32_16X16X32_BF8,
  TILE_AMD_EMU_NUM_MFMA_KINDS
};

/** Math the AMDGPU backend lowers to single instructions. */
enum tile_amd_emu_math {
  TILE_AMD_EMU_EXP2 = 0, /**< v_exp_f32 (llvm.amdgcn.exp2) */
  TILE_AMD_EMU_LOG2,     /**< v_log_f32 (llvm.amdgcn.log) */
  TILE_AMD_EMU_RSQ,      /**< v_rsq_f32 */
  TILE_AMD_EMU_RCP,      /**< v_rcp_f32 */
  TILE_AMD_EMU_SQRT,     /**< v_sqrt_f32 (llvm.amdgcn.sqrt) */
  TILE_AMD_EMU_SIN,      /**< v_sin_f32: input in revolutions */
  TILE_AMD_EMU_COS,      /**< v_cos_f32: input in revolutions */
  TILE_AMD_EMU_NUM_MATH
};

/** Address spaces of an access check (the LLVM AMDGPU ones). */
enum tile_amd_emu_space {
  TILE_AMD_EMU_FLAT = 0,
  TILE_AMD_EMU_GLOBAL = 1,
  TILE_AMD_EMU_LDS = 3,
  TILE_AMD_EMU_CONSTANT = 4
};

#define TILE_AMD_EMU_ACCESS_WRITE 0x100u
#define TILE_AMD_EMU_ACCESS_ATOMIC 0x200u
/** log2 of the declared alignment, shifted by this (as on NVIDIA). */
#define TILE_AMD_EMU_ACCESS_ALIGN_SHIFT 12u

/**
 * The runtime's side; every function acts for the calling work-item. Wave
 * collectives gather the wave's live lanes first (all must call the same
 * collective with the same immediates); errors are recorded and fail the
 * launch, and functions still return (zeros) so the kernel can finish.
 */
struct tile_amd_emu_ops {
  uint32_t abi_version; /**< TILE_AMD_EMU_ABI_VERSION */
  /** A work-item / workgroup register (tile_amd_emu_sreg). */
  uint32_t (*sreg)(uint32_t which);
  /** llvm.amdgcn.dispatch.ptr: a 64-byte hsa_kernel_dispatch_packet_t of
   *  the launch (workgroup_size_x/y/z: u16 at bytes 4/6/8; grid_size_x/y/z:
   *  u32 at 12/16/20, in work-items; the rest zero). */
  const void *(*dispatch_ptr)(void);
  /** The workgroup's LDS block (__tile_emu_lds_bytes_<kernel> long). */
  void *(*lds_base)(void);
  /** s_barrier (with the workgroup-scope fences around it). */
  void (*barrier)(void);
  /** llvm.amdgcn.update.dpp.i32(old, src, dpp_ctrl, row_mask, bank_mask,
   *  bound_ctrl): the DPP move as the CDNA3 ISA defines it (quad_perm,
   *  row_shl/shr/ror, wave_shl/shr/rol/ror, row_mirror, row_half_mirror,
   *  row_bcast15/31 as far as CDNA supports them); lanes whose row/bank is
   *  masked off keep `old`; an invalid source lane gives 0 when bound_ctrl
   *  is set, else `old`. */
  uint32_t (*dpp)(uint32_t old_value, uint32_t src, uint32_t dpp_ctrl,
                  uint32_t row_mask, uint32_t bank_mask, uint32_t bound_ctrl);
  /** llvm.amdgcn.ds.swizzle(src, offset): ds_swizzle_b32 with the 16-bit
   *  offset pattern (bit-masks mode and quad-permute mode, per 32 lanes). */
  uint32_t (*ds_swizzle)(uint32_t src, uint32_t pattern);
  /** llvm.amdgcn.ds.bpermute(address, src): lane l receives src of lane
   *  (address_l / 4) mod 64 (a backward permute: each lane pulls). */
  uint32_t (*ds_bpermute)(uint32_t address, uint32_t src);
  /** llvm.amdgcn.ds.permute(address, src): forward permute (each lane
   *  pushes its src to lane (address_l / 4) mod 64). */
  uint32_t (*ds_permute)(uint32_t address, uint32_t src);
  /** v_mfma of \p kind (tile_amd_emu_mfma_kind). */
  void (*mfma)(uint32_t kind, const uint32_t *a, const uint32_t *b,
               const uint32_t *c, uint32_t *d);
  /** llvm.amdgcn.readfirstlane: the value of the first live lane. */
  uint32_t (*readfirstlane)(uint32_t value);
  /** Checks an access; returns 1 when allowed, 0 when recorded as an
   *  error (the caller then redirects it to a scratch sink). */
  uint32_t (*access)(const void *address, uint32_t bytes, uint32_t flags);
  /** tile_amd_emu_math. */
  float (*math_f32)(uint32_t fn, float x);
  /** An operation the emulator does not implement; fails the launch. */
  void (*unsupported)(const char *what);
};

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_AMDEMUABI_H */
