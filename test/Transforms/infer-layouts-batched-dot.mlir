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

// -----

// In a loop, products summed over their batch in the same iteration (each
// scaled first: the scale after the product of gemm_decode_packed's SA)
// keep the batch in the threads: the warps split only M (four 16-row
// blocks), every thread holds all four products (a local mode of 4 first),
// and the sum is the threads' own (its layout keeps no batch digit).
// CHECK-LABEL: func.func @summed_each_iteration
// CHECK: tile.dot {{.*}} -> tensor<4x64x8xf32, #tile.layout<local(4,1,1) * spatial(1,4,1) * local(1,2,1) * spatial(1,8,4) * local(1,1,2)>>
// CHECK: tile.reduce sum {{.*}} axis = 0 : {{.*}} -> tensor<64x8xf32, #tile.layout<spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
func.func @summed_each_iteration(%a: tensor<4x64x128xf16>, %b: tensor<4x128x8xf16>, %s: tensor<4x64x8xf32>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<4x64x8xf32>
  %init = arith.constant dense<0.0> : tensor<64x8xf32>
  %r = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %init) -> (tensor<64x8xf32>) : i32 {
    %d = tile.dot %a, %b, %zero : tensor<4x64x128xf16>, tensor<4x128x8xf16>, tensor<4x64x8xf32> -> tensor<4x64x8xf32>
    %p = arith.mulf %d, %s : tensor<4x64x8xf32>
    %t = tile.reduce sum %p axis = 0 : tensor<4x64x8xf32> -> tensor<64x8xf32>
    %n = arith.addf %acc, %t : tensor<64x8xf32>
    scf.yield %n : tensor<64x8xf32>
  }
  tile.store %c[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<64x8xf32>
  return
}

// -----

// The same product carried across the iterations (a K split summed after
// the loop, gemm_decode's KW): the warps go along the batch.
// CHECK-LABEL: func.func @summed_after_loop
// CHECK: tile.dot {{.*}} -> tensor<4x64x8xf32, #tile.layout<{{[^>]*}}spatial(4,{{[^>]*}}>>
func.func @summed_after_loop(%a: tensor<4x64x128xf16>, %b: tensor<4x128x8xf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<4x64x8xf32>
  %r = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (tensor<4x64x8xf32>) : i32 {
    %d = tile.dot %a, %b, %acc : tensor<4x64x128xf16>, tensor<4x128x8xf16>, tensor<4x64x8xf32> -> tensor<4x64x8xf32>
    scf.yield %d : tensor<4x64x8xf32>
  }
  %t = tile.reduce sum %r axis = 0 : tensor<4x64x8xf32> -> tensor<64x8xf32>
  tile.store %c[%c0, %c0], %t : !tile.view<?x?xf32>, tensor<64x8xf32>
  return
}
