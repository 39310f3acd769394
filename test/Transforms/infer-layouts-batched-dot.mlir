// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=gfx942 | FileCheck %s --check-prefix=AMD

// A batched dot (a K split into four slices) on 4 warps: one warp per
// product (the warp digit of spatial(4,8,4) along the batch), each a 16x32
// mma.sync accumulator: the m16n8 atom's two row halves and four column
// blocks in column_local(1,2,4); the sum over the batch after it reduces
// across the warps, leaving the sum replicated on all four.
// CHECK-LABEL: func.func @split_k
// CHECK: tile.dot {{.*}} -> tensor<4x16x32xf32, #tile.layout<column_local(1,2,4) * spatial(4,8,4) * local(1,1,2)>>
// CHECK: tile.reduce sum {{.*}} axis = 0 {{.*}} -> tensor<16x32xf32, #tile.layout<column_local(2,4) * replicate(4) * spatial(8,4) * local(1,2)>>
// On gfx942 each wave64 takes one product of MFMA 16x16x16 atoms (16 x 4
// lanes, four accumulator rows each), two column blocks in local slots.
// AMD-LABEL: func.func @split_k
// AMD: tile.dot {{.*}} -> tensor<4x16x32xf32, #tile.layout<local(1,1,2) * spatial(4,4,16) * local(1,4,1)>>
func.func @split_k(%a: tensor<4x16x16xf16>, %b: tensor<4x16x32xf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<4x16x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<4x16x16xf16>, tensor<4x16x32xf16>, tensor<4x16x32xf32> -> tensor<4x16x32xf32>
  %s = tile.reduce sum %d axis = 0 : tensor<4x16x32xf32> -> tensor<16x32xf32>
  tile.store %c[%c0, %c0], %s : !tile.view<?x?xf32>, tensor<16x32xf32>
  return
}

// -----

// Two products on 4 warps: two warps per product, which split its columns
// (two row atoms against four column atoms: N has more).
// CHECK-LABEL: func.func @two_products
// CHECK: tile.dot {{.*}} -> tensor<2x32x32xf32, #tile.layout<local(1,2,2) * local(1,2,1) * spatial(2,1,2) * spatial(1,8,4) * local(1,1,2)>>
func.func @two_products(%a: tensor<2x32x16xf16>, %b: tensor<2x16x32xf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<2x32x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<2x32x16xf16>, tensor<2x16x32xf16>, tensor<2x32x32xf32> -> tensor<2x32x32xf32>
  %s = tile.reduce sum %d axis = 0 : tensor<2x32x32xf32> -> tensor<32x32xf32>
  tile.store %c[%c0, %c0], %s : !tile.view<?x?xf32>, tensor<32x32xf32>
  return
}

// -----

// Three products (no power of two divides both 3 and 4 warps but 1): every
// warp takes part in each product, the three in local slots.
// CHECK-LABEL: func.func @three_products
// CHECK: tile.dot {{.*}} -> tensor<3x32x32xf32, #tile.layout<local(3,1,2) * spatial(1,2,2) * local(1,2,1) * spatial(1,8,4) * local(1,1,2)>>
func.func @three_products(%a: tensor<3x32x16xf16>, %b: tensor<3x16x32xf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<3x32x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<3x32x16xf16>, tensor<3x16x32xf16>, tensor<3x32x32xf32> -> tensor<3x32x32xf32>
  %s = tile.reduce sum %d axis = 0 : tensor<3x32x32xf32> -> tensor<32x32xf32>
  tile.store %c[%c0, %c0], %s : !tile.view<?x?xf32>, tensor<32x32xf32>
  return
}
