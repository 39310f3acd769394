// RUN: tile-opt %s -tile-infer-layouts=target=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s -tile-infer-layouts=target=host | FileCheck %s --check-prefix=HOST
// RUN: tile-opt %s -tile-infer-layouts=target=sm_80 | FileCheck %s --check-prefix=SM80

// On gfx942 (wave64) the same kernel uses 2x2 warps of MFMA 32x32x8.
// AMD-LABEL: func.func @gemm
// AMD-SAME: tile.warp_size = 64 : i32
// AMD: scf.for {{.*}} -> (tensor<128x128xf32, #tile.layout<local(2,2) * spatial(2,2) * local(4,1) * spatial(2,32) * local(4,1)>>)
// AMD: tile.load {{.*}} -> tensor<128x32xf16, #tile.layout<local(2,1) * spatial(64,4) * local(1,8)>>

// The host needs no layouts: the module is unchanged.
// HOST-LABEL: func.func @gemm
// HOST-NOT: tile.layout
// HOST-NOT: tile.warp_size
// HOST: return
// sm_80 has the same mma.sync as sm_90a.
// SM80-LABEL: func.func @gemm
// SM80: tile.dot {{.*}} -> tensor<128x128xf32, #tile.layout<local(4,8) * spatial(2,2) * local(2,1) * spatial(8,4) * local(1,2)>>

func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x128xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = tile.cast %acc : tensor<128x128xf32> -> tensor<128x128xf16>
  tile.store %c[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<128x128xf16>
  return
}
