// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a tma=true" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline=target=sm_90a | FileCheck %s --check-prefix=NOTMA
// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_80 tma=true" | FileCheck %s --check-prefix=NOTMA

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// The wgmma-shaped loop of pipeline-async-mma.mlir, with TMA: both operands
// are views of kernel parameters with their declared shapes, so the copies
// are TMA copies. One mbarrier per stage expecting two arrivals (one per
// copy), initialized before the prologue; the top of each iteration waits
// for the read stage's phase (a third counter, the parity, flips when the
// read stage wraps) instead of tile.wait + tile.barrier; the refill still
// follows the dot and its barrier; after the loop a barrier and the
// invalidation instead of tile.wait 0. Without the option, or on sm_80, the
// cp.async scheme.
// CHECK-LABEL: func.func @tma_operands
// CHECK: %[[BARS:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK-NEXT: tile.mbarrier_init %[[BARS]] count(2) : !tile.shared<3xi64>
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy_async %{{.*}} -> %{{.*}}[%[[S0:.*]], %{{.*}}, %{{.*}}] barrier(%[[BARS]][%[[S0]]]) if
// CHECK: tile.copy_async %{{.*}} barrier(%[[BARS]][%[[S0]]]) if
// CHECK: tile.copy_async %{{.*}} -> %{{.*}}[%[[S1:.*]], %{{.*}}, %{{.*}}] barrier(%[[BARS]][%[[S1]]]) if
// CHECK: tile.copy_async %{{.*}} barrier(%[[BARS]][%[[S1]]]) if
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[R:.*]] = %c0_i32{{[_0-9]*}}, %[[W:.*]] = %c2_i32{{[_0-9]*}}, %[[P:.*]] = %c0_i32{{[_0-9]*}})
// CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[R]]] phase(%[[P]])
// CHECK-NOT: tile.wait
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy_async %{{.*}} -> %{{.*}}[%[[W]], %{{.*}}, %{{.*}}] barrier(%[[BARS]][%[[W]]]) if
// CHECK: tile.copy_async %{{.*}} barrier(%[[BARS]][%[[W]]]) if
// CHECK: %[[NEXT:.*]] = arith.addi %[[R]], %c1_i32
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c3_i32
// CHECK: arith.select %[[WRAP]], %c0_i32{{[_0-9]*}}, %[[NEXT]]
// CHECK: %[[FLIP:.*]] = arith.xori %[[P]], %c1_i32
// CHECK: arith.select %[[WRAP]], %[[FLIP]], %[[P]]
// CHECK: scf.yield
// CHECK-NOT: tile.wait
// CHECK: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[BARS]]
// NOTMA-LABEL: func.func @tma_operands
// NOTMA-NOT: mbarrier
// NOTMA-NOT: barrier(
// NOTMA: tile.wait 0
func.func @tma_operands(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) -> tensor<128x64xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<128x64xf32, #c>
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// Views the runtime's tensor map would not describe keep cp.async: A viewed
// with other dimensions than its declared shape (the map is built from the
// declared one, and its bounds must be the view's), B with explicit strides.
// CHECK-LABEL: func.func @not_the_parameters
// CHECK-NOT: mbarrier
// CHECK: tile.wait 0
func.func @not_the_parameters(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) -> tensor<128x64xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c1 = arith.constant 1 : i32
  %a = tile.view %PA(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) strides(%N, %c1) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<128x64xf32, #c>
}
