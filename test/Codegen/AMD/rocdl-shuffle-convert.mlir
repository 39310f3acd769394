// RUN: tile-opt %s --tile-convert-to-rocdl=chip=gfx942 | FileCheck %s

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
