// RUN: tile-opt %s -verify-diagnostics -tile-allocate-shared=target=gfx942

// The transpose of a 128x256 f32 tile held as two rows per thread moves
// every element to another thread: 131072 bytes of scratch, more than the
// 64 KB of LDS of gfx942. The pass reports it at the op that needs it
// (before any lowering could hand the backend an oversized LDS array).
func.func @scratch_too_big(%x: tensor<128x256xf32, #tile.layout<spatial(64,1) * local(2,256)>>) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 64 : i32} {
  // expected-error @below {{kernel needs 131072 bytes of shared memory, but target 'gfx942' has 65536 bytes available}}
  // expected-note @below {{scratch of 131072 bytes at offset 0}}
  %t = tile.trans %x {perm = array<i32: 1, 0>} : tensor<128x256xf32, #tile.layout<spatial(64,1) * local(2,256)>> -> tensor<256x128xf32, #tile.layout<spatial(64,1) * local(4,128)>>
  return
}
