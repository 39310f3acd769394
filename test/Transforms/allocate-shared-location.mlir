// RUN: not tile-opt %s -tile-allocate-shared=target=gfx942 2>&1 | FileCheck %s

// On gfx942 (64 KiB of LDS) the first buffer alone is too big: the error is
// at its location, the front end's file:line:col.
// CHECK: gemm.tile:12:5: error: kernel needs 262144 bytes of shared memory, but target 'gfx942' has 65536 bytes available
// CHECK: gemm.tile:12:5: note: buffer of 196608 bytes at offset 0
// CHECK: gemm.tile:14:9: note: buffer of 65536 bytes at offset 196608
func.func @too_big(%N: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.alloc_shared : !tile.shared<3x128x128xf32> loc("gemm.tile":12:5)
  %b = tile.alloc_shared : !tile.shared<128x128xf32> loc("gemm.tile":14:9)
  %t = tile.shared_load %a[%c0, %c0, %c0] : !tile.shared<3x128x128xf32> -> tensor<128x128xf32, #tile.layout<local(1,64) * spatial(128,2)>>
  %u = tile.shared_load %b[%c0, %c0] : !tile.shared<128x128xf32> -> tensor<128x128xf32, #tile.layout<local(1,64) * spatial(128,2)>>
  return
}
