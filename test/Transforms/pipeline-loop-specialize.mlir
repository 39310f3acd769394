// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a" 2>&1 | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// A loop's own `tile.warp_specialize` (the language's `for ... pipeline N
// specialize B`, B true) asks tile-pipeline for that loop what
// warp-specialize=true asks for every loop: the loop of
// pipeline-warp-specialize.mlir gets its producer warpgroup with no pass
// option, and the attribute is gone afterwards. On sm_80 (no TMA) the loop
// keeps its cp.async pipeline, with a warning that says why.

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// CHECK-NOT: warning
// CHECK-LABEL: func.func @asked
// CHECK-SAME: tile.producer_warps = 4
// CHECK: tile.mbarrier_init
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: tile.copy_async {{.*}} barrier(
// CHECK: } consumer(240 registers) {
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NOT: tile.warp_specialize}
// CHECK: return
// SM80: pipeline-loop-specialize.mlir:[[@LINE+14]]:8: warning: loop not warp-specialized: the target has no TMA (sm_90a has)
// SM80-LABEL: func.func @asked
// SM80-NOT: tile.producer_warps
// SM80-NOT: tile.warp_specialize
// SM80: tile.copy_async
// SM80-NOT: barrier(
// SM80: return
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
