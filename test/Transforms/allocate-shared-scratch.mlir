// RUN: tile-opt %s -split-input-file -tile-allocate-shared=target=gfx942 | FileCheck %s

// The scratch the GPU lowering will use is planned here (docs/Passes.md,
// tile-allocate-shared), on a wave64 target (64 threads, 1 warp):
//  - tile.trans of a row-per-thread 64x64 f32 tile: every thread needs a
//    column, so the tile goes through shared memory: 64 * 64 * 4 bytes;
//  - a transpose that only renames registers (1 thread holds all) needs none;
//  - a conversion that moves elements between lanes of one wavefront is
//    lowered with shuffles and needs none;
//  - a reshape that keeps every element in its thread needs none.
// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: tile.shared_bytes = 16384
// CHECK: tile.trans %{{.*}} {perm = array<i32: 1, 0>, tile.scratch_bytes = 16384 : i64, tile.scratch_offset = 0 : i64}
// CHECK: tile.trans %{{.*}} {perm = array<i32: 1, 0>} :
// CHECK-NOT: scratch
// CHECK: tile.convert_layout %{{[a-z0-9_]+}} :
// CHECK: tile.reshape
// CHECK-NOT: scratch
// CHECK: return
func.func @shape_ops(%x: tensor<64x64xf32, #tile.layout<spatial(64,1) * local(1,64)>>, %y: tensor<4x4xf32, #tile.layout<replicate(64) * local(4,4)>>, %z: tensor<64x8xf16, #tile.layout<spatial(64,1) * local(1,8)>>, %w: tensor<64x8xf16, #tile.layout<spatial(64,1) * local(1,8)>>) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 64 : i32} {
  %t = tile.trans %x {perm = array<i32: 1, 0>} : tensor<64x64xf32, #tile.layout<spatial(64,1) * local(1,64)>> -> tensor<64x64xf32, #tile.layout<spatial(64,1) * local(1,64)>>
  %u = tile.trans %y {perm = array<i32: 1, 0>} : tensor<4x4xf32, #tile.layout<replicate(64) * local(4,4)>> -> tensor<4x4xf32, #tile.layout<replicate(64) * local(4,4)>>
  %v = tile.convert_layout %z : tensor<64x8xf16, #tile.layout<spatial(64,1) * local(1,8)>> -> tensor<64x8xf16, #tile.layout<spatial(32,2) * local(2,4)>>
  %r = tile.reshape %w : tensor<64x8xf16, #tile.layout<spatial(64,1) * local(1,8)>> -> tensor<64x2x4xf16, #tile.layout<spatial(64,1,1) * local(1,2,4)>>
  return
}
