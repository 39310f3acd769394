// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-allocate-shared=target=sm_90a

// 3 x 128 x 128 f32 = 196608 bytes fits the 232448 bytes of sm_90a, but not
// together with a second buffer alive at the same time. The error is at the
// allocation that does not fit, with a note per allocation.
func.func @too_big(%N: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-note @below {{buffer of 196608 bytes at offset 0}}
  %a = tile.alloc_shared : !tile.shared<3x128x128xf32>
  // expected-error @below {{kernel needs 262144 bytes of shared memory, but target 'sm_90a' has 232448 bytes available}}
  // expected-note @below {{buffer of 65536 bytes at offset 196608}}
  %b = tile.alloc_shared : !tile.shared<128x128xf32>
  %t = tile.shared_load %a[%c0, %c0, %c0] : !tile.shared<3x128x128xf32> -> tensor<128x128xf32, #tile.layout<local(1,128) * spatial(128,1)>>
  %u = tile.shared_load %b[%c0, %c0] : !tile.shared<128x128xf32> -> tensor<128x128xf32, #tile.layout<local(1,128) * spatial(128,1)>>
  return
}
