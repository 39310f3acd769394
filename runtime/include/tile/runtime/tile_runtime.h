/*===- tile_runtime.h - C API of the tile runtime -----------------*- C -*-===*\
|*                                                                            *|
|* Part of tilec. A C interface over the runtime for FFI (Python ctypes,     *|
|* Rust, ...). Every function that can fail returns 0 on success (or a      *|
|* non-null handle) and -1 (or null) on failure; tile_last_error() then     *|
|* describes the failure of the calling thread's last failed call.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILE_RUNTIME_TILE_RUNTIME_H
#define TILE_RUNTIME_TILE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tile_device tile_device;
typedef struct tile_buffer tile_buffer;
typedef struct tile_bundle tile_bundle;

/** The message of the calling thread's last failure ("" if none). */
const char *tile_last_error(void);

/** Opens "host", "cuda[:N]", "hip[:N]", "cuda-emu" or "hip-emu". */
tile_device *tile_device_open(const char *spec);
/** Releases a device handle (the device itself stays open). */
void tile_device_close(tile_device *device);
/** The device's architecture ("host", "sm_90", ...); owned by the handle. */
const char *tile_device_arch(tile_device *device);
/** Waits for all work queued on the device. */
int tile_device_synchronize(tile_device *device);

/** Allocates bytes of device memory. */
tile_buffer *tile_buffer_create(tile_device *device, uint64_t bytes);
void tile_buffer_free(tile_buffer *buffer);
uint64_t tile_buffer_size(const tile_buffer *buffer);
/** Copies bytes from host memory into the buffer at offset. */
int tile_buffer_upload(tile_buffer *buffer, const void *src, uint64_t bytes,
                       uint64_t offset);
/** Copies bytes at offset of the buffer into host memory. */
int tile_buffer_download(const tile_buffer *buffer, void *dst, uint64_t bytes,
                         uint64_t offset);

/** Loads the bundle directory dir and every kernel of it that runs on the
 *  device (kernels for other targets are ignored). */
tile_bundle *tile_bundle_load(tile_device *device, const char *dir);
void tile_bundle_free(tile_bundle *bundle);
/** Number of loaded kernels and their names (owned by the bundle). */
size_t tile_bundle_num_kernels(const tile_bundle *bundle);
const char *tile_bundle_kernel_name(const tile_bundle *bundle, size_t index);

/** One argument of a launch: a tensor (buffer + shape + dtype name, e.g.
 *  "u4"; dtype may be null to skip the check) or a scalar. */
typedef struct tile_arg {
  int is_tensor;
  const tile_buffer *buffer;
  const int64_t *shape;
  int rank;
  const char *dtype;
  double scalar;
} tile_arg;

/** Launches kernel `name` of the bundle with one argument per tensor /
 *  scalar parameter (runtime dimensions are inferred from the shapes) and
 *  waits for it to finish. */
int tile_launch(tile_bundle *bundle, const char *name, const tile_arg *args,
                size_t num_args);

/** Pre-packed weights (docs/Numerics.md, "Operand-ordered weights"): the
 *  row-major [k, n] weight `w` of `bits`-bit codes (1..8, a dense stream of
 *  (k * n * bits + 7) / 8 bytes) written to `out` (as many bytes) as the
 *  [n, k] tensor whose chunks of `bk` (a multiple of 32 dividing k; 0: the
 *  example's default for the width: 512 for 1 bit, 256 for 2-4, 128 for
 *  5-8) hold each mma.sync B-operand register's codes together, as
 *  examples/gemm_decode_packed.tile reads them. tile_unpack_weights is the
 *  inverse. Host memory; no device needed. */
/** One argument of tile_launch_async: a tensor in memory the caller owns
 *  (a device address, e.g. torch's data_ptr(); `bytes` of storage; element
 *  `strides` or NULL for dense; `dtype` a tile type name or NULL to skip
 *  the check) or a scalar. Kernels take dense row-major, 4-byte aligned
 *  tensors: anything else is an error and nothing is launched. */
typedef struct tile_value {
  int is_tensor;
  uint64_t data;
  uint64_t bytes;
  const int64_t *shape;
  const int64_t *strides;
  int rank;
  const char *dtype;
  double scalar;
} tile_value;

/** Launches kernel `name` on `stream` (a CUstream / hipStream_t the caller
 *  owns, e.g. torch.cuda.current_stream().cuda_stream; NULL: the default
 *  stream) and returns once it is queued: no allocation, no
 *  synchronization (safe under CUDA graph capture). The variant of the
 *  arguments' shape bucket is chosen as tile_launch does. On the host and
 *  the emulators the kernel has run when it returns. */
int tile_launch_async(tile_bundle *bundle, const char *name,
                      const tile_value *values, size_t num_values,
                      void *stream);

/** Fills `out` from a DLPack tensor (`dl_tensor` points to a DLTensor, e.g.
 *  the dl_tensor of the DLManagedTensor of a __dlpack__() capsule, which
 *  the caller keeps alive): checks that kernels on `device` can read it
 *  (device type and ordinal), maps its dtype, keeps its shape and strides.
 *  With `as_dtype` (and `as_shape`/`as_rank`, NULL/0: its own shape) its
 *  storage is reinterpreted, e.g. a uint8 tensor of packed codes as u4.
 *  `out->shape` points into the DLTensor or `as_shape`. */
int tile_value_from_dlpack(const void *dl_tensor, tile_device *device,
                           const char *as_dtype, const int64_t *as_shape,
                           int as_rank, tile_value *out);

int tile_pack_weights(const void *w, void *out, unsigned bits, uint64_t k,
                      uint64_t n, uint64_t bk);
int tile_unpack_weights(const void *packed, void *out, unsigned bits,
                        uint64_t k, uint64_t n, uint64_t bk);
/** The same in the order of `order`'s register operands: "mma" (NVIDIA's
 *  mma.sync and wgmma, what tile_pack_weights writes) or "mfma" (AMD's
 *  MFMA: four consecutive k per lane group, which
 *  examples/gemm_decode_packed.tile reads with MFMA = true); NULL means
 *  "mma". */
int tile_pack_weights_for(const void *w, void *out, unsigned bits, uint64_t k,
                          uint64_t n, uint64_t bk, const char *order);
int tile_unpack_weights_for(const void *packed, void *out, unsigned bits,
                            uint64_t k, uint64_t n, uint64_t bk,
                            const char *order);

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_TILE_RUNTIME_H */
