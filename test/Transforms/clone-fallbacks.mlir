// RUN: tile-opt %s -split-input-file -tile-clone-fallbacks="target=sm_90a" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-clone-fallbacks="target=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s -split-input-file -tile-clone-fallbacks="target=sm_90a" -tile-pipeline="target=sm_90a" | FileCheck %s --check-prefix=PIPE

// A kernel whose loop asks for a producer warpgroup may get TMA copies, which
// only some tensors allow: it gets a copy right after it, named
// <kernel>__fallback, that points back at it and whose loop no longer asks.
// tile-pipeline then gives the kernel its producer warpgroup and TMA copies
// and the copy plain cp.async rings. sm_80 has no TMA: nothing is cloned.

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// CHECK-LABEL: func.func @asked(
// CHECK-NOT: tile.fallback_of
// CHECK: } {tile.pipeline = 3 : i32, tile.warp_specialize}
// CHECK-LABEL: func.func @asked__fallback(
// CHECK-SAME: tile.fallback_of = @asked
// CHECK-NOT: tile.warp_specialize
// CHECK: } {tile.pipeline = 3 : i32}
// SM80-LABEL: func.func @asked(
// SM80-NOT: @asked__fallback
// PIPE-LABEL: func.func @asked(
// PIPE: tile.warp_specialize producer
// PIPE: tile.copy_async {{.*}} barrier(
// PIPE-LABEL: func.func @asked__fallback(
// PIPE-NOT: tile.warp_specialize
// PIPE-NOT: barrier(
// PIPE: tile.copy_async
// PIPE-NOT: barrier(
// PIPE: return
func.func @asked(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32, tile.warp_specialize}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

// With `tile.tma` on the module every kernel may get TMA copies: each gets a
// copy, and one whose name <kernel>__fallback is taken by another kernel gets
// a numbered name. A function that is not a kernel, or a fallback already,
// is left alone.

// CHECK-LABEL: func.func @k(
// CHECK-LABEL: func.func @k__fallback_0(
// CHECK-SAME: tile.fallback_of = @k
// CHECK-LABEL: func.func @k__fallback(
// CHECK-NOT: tile.fallback_of
// CHECK-LABEL: func.func @k__fallback__fallback(
// CHECK-SAME: tile.fallback_of = @k__fallback
// CHECK-LABEL: func.func @helper(
// CHECK-LABEL: func.func @done(
// CHECK-NOT: func.func
// SM80-LABEL: func.func @k(
// SM80-LABEL: func.func @k__fallback(
// SM80-LABEL: func.func @helper(
// SM80-LABEL: func.func @done(
// SM80-NOT: __fallback
module attributes {tile.tma} {
  func.func @k() attributes {tile.kernel, tile.warps = 4 : i32} {
    return
  }
  func.func @k__fallback() attributes {tile.kernel, tile.warps = 4 : i32} {
    return
  }
  func.func @helper() {
    return
  }
  func.func @done() attributes {tile.kernel, tile.warps = 4 : i32, tile.fallback_of = @k} {
    return
  }
}

// -----

// Without tile.tma, tile.warp_specialize or a loop asking for a producer, no
// kernel gets TMA copies: nothing is cloned.

// CHECK-LABEL: func.func @plain(
// CHECK-NOT: func.func
module {
  func.func @plain() attributes {tile.kernel, tile.warps = 4 : i32} {
    return
  }
}
