// Scratch the ROCDL lowering adds past the tile-allocate-shared plan (here:
// no plan at all, so the 128 KB transpose round trip of a 128x256 f32
// tile is appended) must not reach the backend's location-less "local
// memory exceeds limit": the lowering reports it at the kernel.
// RUN: not tile-opt %s --tile-convert-to-rocdl=chip=gfx942 2>&1 | FileCheck %s

// CHECK: lds-overflow.mlir:[[@LINE+1]]:{{[0-9]+}}: error: kernel 'too_much' needs 131072 bytes of LDS, but gfx942 has 65536 (the lowering added shared scratch that tile-allocate-shared did not plan)
func.func @too_much(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 64 : i32} {
  %x = tile.view %X(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %y = tile.view %Y(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<128x256xf32, #tile.layout<spatial(64,1) * local(2,256)>>
  %u = tile.trans %t {perm = array<i32: 1, 0>} : tensor<128x256xf32, #tile.layout<spatial(64,1) * local(2,256)>> -> tensor<256x128xf32, #tile.layout<spatial(64,1) * local(4,128)>>
  tile.store %y[%c0, %c0], %u : !tile.view<?x?xf32>, tensor<256x128xf32, #tile.layout<spatial(64,1) * local(4,128)>>
  return
}
