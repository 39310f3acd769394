// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// Layout attributes parse, print in canonical form and round-trip.

// CHECK-LABEL: func.func @distributed
// CHECK-SAME: tensor<16x8xf16, #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK-SAME: tensor<128xf32, #tile.layout<spatial(32) * local(4)>>
// CHECK-SAME: tensor<4x4xf32, #tile.layout<column_spatial(4,4)>>
func.func @distributed(
    %a: tensor<16x8xf16, #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>>,
    %b: tensor<128xf32, #tile.layout<spatial(32) * local(4)>>,
    %c: tensor<4x4xf32, #tile.layout<column_spatial(4,4)>>) {
  return
}

// Products of primitives are canonicalized: spatial(2) * spatial(4) is
// spatial(8).
// CHECK-LABEL: func.func @canonical
// CHECK-SAME: tensor<8xf32, #tile.layout<spatial(8)>>
func.func @canonical(%a: tensor<8xf32, #tile.layout<spatial(2) * spatial(4)>>) {
  return
}

// Replication: 4 threads hold each element of a 32-element tile.
// CHECK-LABEL: func.func @replicated
// CHECK-SAME: #tile.layout<
// CHECK-SAME: replicate(4)
func.func @replicated(%a: tensor<32xf32, #tile.layout<replicate(4) * spatial(32)>>) {
  return
}

// CHECK-LABEL: func.func @shared
// CHECK-SAME: !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(32,1)>>
// CHECK-SAME: !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>
// CHECK-SAME: !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(40,1)>>
// A column blocking (wide wgmma operands) prints after the XOR swizzle.
// CHECK-SAME: !tile.shared<3x32x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,5) o (3,32,128):(4096,128,1)>>
func.func @shared(%a: !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(32,1)>>,
                  %b: !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>,
                  %c: !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(40,1)>>,
                  %d: !tile.shared<3x32x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,5) o (3,32,128):(4096,128,1)>>) {
  return
}

// Layouts whose thread count matches warps x warp_size.
// CHECK-LABEL: func.func @kernel_threads
// CHECK: tile.warp_size = 32 : i32
func.func @kernel_threads(%x: tensor<128xf32, #tile.layout<spatial(128)>>)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %y = tile.convert_layout %x : tensor<128xf32, #tile.layout<spatial(128)>> -> tensor<128xf32, #tile.layout<spatial(128)>>
  return
}

// Rank 5 (the packed decode GEMM's reshaped weight): the shape check reads
// the layout's shape from a copy kept alive (above rank 4 it lives on the
// heap; it was read after being freed).
// CHECK-LABEL: func.func @rank5
// CHECK-SAME: tensor<64x4x8x2x4xf16, #tile.layout<local(2,1,1,1,1) * spatial(32,4,2,1,1) * local(1,1,4,2,4)>>
func.func @rank5(%a: tensor<64x4x8x2x4xf16, #tile.layout<local(2,1,1,1,1) * spatial(32,4,2,1,1) * local(1,1,4,2,4)>>) {
  return
}
