// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX
// RUN: tile-opt --tile-allocate-shared=target=sm_90a %s \
// RUN:   | FileCheck %s --check-prefix=ALLOC

// Layout conversions that lib/Layout's planner classifies as WarpShuffle
// (every element comes from a lane of the same warp) run as shfl.sync.idx
// rounds, with no shared memory and no barrier. The threads of an 8x8 tile
// go from row-major to column-major order; each thread keeps two rows.
// f16: both registers travel in one 32-bit shuffle. i8 with four registers:
// one shuffle. f32: one shuffle per register.

// tile-allocate-shared reserves no scratch for these conversions.
// ALLOC-NOT: tile.scratch_bytes
// ALLOC-COUNT-3: tile.convert_layout %{{[0-9]+}} :
// ALLOC-NOT: tile.scratch_bytes

#rows = #tile.layout<spatial(4,8) * local(2,1)>
#cols = #tile.layout<column_spatial(4,8) * local(2,1)>
#rows4 = #tile.layout<spatial(4,8) * local(4,1)>
#cols4 = #tile.layout<column_spatial(4,8) * local(4,1)>

// CHECK-LABEL: llvm.func @half
// CHECK-NOT:     nvvm.barrier0
// CHECK-NOT:     addressof
// CHECK:         nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK-NOT:     addressof
// CHECK:         llvm.return
func.func @half(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<f16> -> !tile.view<8x8xf16>
  %vy = tile.view %y() : !tile.ptr<f16> -> !tile.view<8x8xf16>
  %t = tile.load %vx[%c0, %c0] : !tile.view<8x8xf16> -> tensor<8x8xf16, #rows>
  %u = tile.convert_layout %t : tensor<8x8xf16, #rows> -> tensor<8x8xf16, #cols>
  tile.store %vy[%c0, %c0], %u : !tile.view<8x8xf16>, tensor<8x8xf16, #cols>
  return
}

// CHECK-LABEL: llvm.func @bytes
// CHECK-NOT:     addressof
// CHECK:         nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         llvm.return
func.func @bytes(%x: !tile.ptr<i8>, %y: !tile.ptr<i8>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<i8> -> !tile.view<16x8xi8>
  %vy = tile.view %y() : !tile.ptr<i8> -> !tile.view<16x8xi8>
  %t = tile.load %vx[%c0, %c0] : !tile.view<16x8xi8> -> tensor<16x8xi8, #rows4>
  %u = tile.convert_layout %t : tensor<16x8xi8, #rows4> -> tensor<16x8xi8, #cols4>
  tile.store %vy[%c0, %c0], %u : !tile.view<16x8xi8>, tensor<16x8xi8, #cols4>
  return
}

// CHECK-LABEL: llvm.func @single
// CHECK-NOT:     addressof
// CHECK-COUNT-2: nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         llvm.return
func.func @single(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %x() : !tile.ptr<f32> -> !tile.view<8x8xf32>
  %vy = tile.view %y() : !tile.ptr<f32> -> !tile.view<8x8xf32>
  %t = tile.load %vx[%c0, %c0] : !tile.view<8x8xf32> -> tensor<8x8xf32, #rows>
  %u = tile.convert_layout %t : tensor<8x8xf32, #rows> -> tensor<8x8xf32, #cols>
  tile.store %vy[%c0, %c0], %u : !tile.view<8x8xf32>, tensor<8x8xf32, #cols>
  return
}

// PTX-LABEL: .entry half(
// PTX-NOT:   .shared
// PTX:       shfl.sync.idx.b32
// PTX-NOT:   shfl.sync
// PTX-NOT:   bar.sync
// PTX:       ret;
