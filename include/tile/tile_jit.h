/*===- tile_jit.h - C API of the tilec JIT library ---------------*- C -*-===*\
|*                                                                            *|
|* Part of tilec. Compiles .tile source at run time for FFI users (Python     *|
|* ctypes, Rust, ...). A compilation produces a bundle directory (the disk    *|
|* cache entry), which the runtime's C API (tile/runtime/tile_runtime.h)      *|
|* loads and launches:                                                        *|
|*                                                                            *|
|*   tile_jit *jit = tile_jit_create(NULL);                                   *|
|*   const char *defines[] = {"BLOCK=256"};                                   *|
|*   char dir[4096];                                                          *|
|*   if (tile_jit_compile(jit, src, "add.tile", "vector_add", "host",         *|
|*                        defines, 1, dir, sizeof dir) != 0)                  *|
|*     puts(tile_jit_last_error());                                           *|
|*   tile_bundle *b = tile_bundle_load(device, dir);                          *|
|*                                                                            *|
|* Functions return 0 on success and -1 on failure; the message of the last  *|
|* failure on the calling thread is tile_jit_last_error(). Thread-safe.      *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_TILE_JIT_H
#define TILE_TILE_JIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tile_jit tile_jit;

/** Creates a compiler whose disk cache lives in `cache_dir` (NULL: the
 *  default, $TILE_CACHE_DIR or ~/.cache/tilec). Returns NULL on failure. */
tile_jit *tile_jit_create(const char *cache_dir);

/** Destroys a compiler (NULL is allowed). */
void tile_jit_destroy(tile_jit *jit);

/** Options of the compiles, or'ed into tile_jit_set_flags' `flags`. */
enum tile_jit_flags {
  /** NVIDIA sm_90/sm_90a: copy the tiles of pipelined loops (GEMM operands,
   *  attention's K and V) with TMA and mbarriers instead of cp.async (tilec
   * --tma); tensors whose rows are not a multiple of 16 bytes run the
   * kernel's copy compiled without TMA (docs/Passes.md,
   * tile-clone-fallbacks). */
  TILE_JIT_TMA = 1u,
  /** NVIDIA sm_90a: also give those copies to a producer warpgroup
   *  (tilec --warp-specialize; implies TILE_JIT_TMA): the kernels launch
   *  4 more warps than their `warps`. */
  TILE_JIT_WARP_SPECIALIZE = 2u,
  /** GPU targets: persistent kernels (tilec --persistent): launched with
   *  the programs the device runs at once, each looping over the grid's. */
  TILE_JIT_PERSISTENT = 4u,
  /** NVIDIA sm_90+: kernels wait for the grids before them in their stream
   *  at their start and are launched with programmatic stream
   *  serialization (tilec --dependent-launch): each may be scheduled while
   *  the kernel before it ends. */
  TILE_JIT_DEPENDENT_LAUNCH = 8u
};

/** Sets the TILE_JIT_* flags of the compiles `jit` starts from now on
 *  (tile_jit_compile and tile_jit_compile_tuned; 0 by default). Unknown
 *  bits are an error (-1) and change nothing. */
int tile_jit_set_flags(tile_jit *jit, unsigned flags);

/** Compiles kernel `kernel` of the .tile program `source` (`source_name`
 *  appears in diagnostics) for `target` ("host", "sm_90a", ...) with
 *  `num_defines` overrides "NAME=VALUE", and writes the path of a bundle
 *  directory holding it into `bundle_dir` (capacity `capacity` bytes). */
int tile_jit_compile(tile_jit *jit, const char *source, const char *source_name,
                     const char *kernel, const char *target,
                     const char *const *defines, size_t num_defines,
                     char *bundle_dir, size_t capacity);

/** tile_jit_compile for launches with the runtime dimensions `sizes`
 *  ("M=1,N=4096,K=4096") on `device` ("cuda", "host", "cuda-emu", ...): the
 *  kernel is compiled with the configuration the tune cache `tune_cache`
 *  (NULL: $TILE_TUNE_CACHE, else tune.json in the cache folder) holds for
 *  the sizes' shape bucket (docs/Tuning.md); on a miss with the kernel's
 *  defaults, or, when `tune_on_miss` is non-zero, after tuning it on the
 *  device (seconds to minutes) and recording the result. `*from_cache`
 *  (when not NULL) is set to 1 on a cache hit, else 0. */
int tile_jit_compile_tuned(tile_jit *jit, const char *source,
                           const char *source_name, const char *kernel,
                           const char *target, const char *const *defines,
                           size_t num_defines, const char *sizes,
                           const char *device, const char *tune_cache,
                           int tune_on_miss, int *from_cache, char *bundle_dir,
                           size_t capacity);

/** The message of the last failure on this thread ("" if none). */
const char *tile_jit_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TILE_TILE_JIT_H */
