// RUN: tile-opt %s -split-input-file --tile-convert-to-rocdl=chip=gfx942 | FileCheck %s

// A layout conversion that lib/Layout's planner classifies as WarpShuffle
// (every element comes from a lane of the same wavefront) runs as
// ds_bpermute rounds, with no LDS and no barrier: the 64 threads of a 16x8
// f16 tile go from row-major to column-major order, two rows each, both
// registers packed into one 32-bit permute.

#rows = #tile.layout<spatial(8,8) * local(2,1)>
#cols = #tile.layout<column_spatial(8,8) * local(2,1)>

// CHECK-LABEL: llvm.func {{.*}}@half
// CHECK-NOT:     rocdl.s.barrier
// CHECK-NOT:     addressof
// CHECK:         rocdl.ds_bpermute %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NOT:     rocdl.ds_bpermute
// CHECK-NOT:     rocdl.s.barrier
// CHECK-NOT:     addressof
// CHECK:         llvm.return
func.func @half(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 64 : i32} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<f16> -> !tile.view<16x8xf16>
  %vy = tile.view %y() : !tile.ptr<f16> -> !tile.view<16x8xf16>
  %t = tile.load %vx[%c0, %c0] : !tile.view<16x8xf16> -> tensor<16x8xf16, #rows>
  %u = tile.convert_layout %t : tensor<16x8xf16, #rows> -> tensor<16x8xf16, #cols>
  tile.store %vy[%c0, %c0], %u : !tile.view<16x8xf16>, tensor<16x8xf16, #cols>
  return
}

// -----

// A source held twice in each wavefront (lanes 0-31 and 32-63 hold the same
// rows: gemm_w8a8's row scales, broadcast for the accumulator). The threads
// that already hold an element read it, like the others, from the lane the
// receivers' lane map names (a replica of their own): one lane map per
// round, so the conversion stays in ds_bpermute rounds; before, their own
// lanes broke the map and the lowering took LDS scratch that
// tile-allocate-shared had not planned (gfx942 ran out of LDS).

#rep = #tile.layout<replicate(16) * spatial(32,1) * local(4,1)>
#acc = #tile.layout<spatial(4,1) * replicate(2) * local(4,1) * spatial(2,1) * replicate(32) * local(4,1)>

// CHECK-LABEL: llvm.func {{.*}}@replicated_rows
// CHECK-NOT:     rocdl.s.barrier
// CHECK-NOT:     addressof
// CHECK:         rocdl.ds_bpermute
// CHECK-NOT:     rocdl.s.barrier
// CHECK-NOT:     addressof
// CHECK:         llvm.return
func.func @replicated_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.warps = 8 : i32, tile.warp_size = 64 : i32} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<f32> -> !tile.view<128x1xf32>
  %vy = tile.view %y() : !tile.ptr<f32> -> !tile.view<128x1xf32>
  %t = tile.load %vx[%c0, %c0] : !tile.view<128x1xf32> -> tensor<128x1xf32, #rep>
  %u = tile.convert_layout %t : tensor<128x1xf32, #rep> -> tensor<128x1xf32, #acc>
  tile.store %vy[%c0, %c0], %u : !tile.view<128x1xf32>, tensor<128x1xf32, #acc>
  return
}
