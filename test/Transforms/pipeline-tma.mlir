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

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// Mixed: the wgmma operand A is a TMA copy, B (explicit strides: no tensor
// map describes it) stays a cp.async copy. One mbarrier per stage expecting
// one arrival (A's copy); the top of each iteration waits for B's cp.async
// groups of the read stage ((3 - 2) x 1 pending), a barrier, and the read
// stage's mbarrier phase; the refill follows the dot and its barrier (the
// MMA stays in flight); after the loop the cp.async drain, a barrier and
// the invalidation. gemm_wq at prefill tiles takes this form with --tma
// (A by TMA; the 4-bit weight, scales and zero points by cp.async).
// CHECK-LABEL: func.func @mixed
// CHECK: %[[BARS:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK-NEXT: tile.mbarrier_init %[[BARS]] count(1) : !tile.shared<3xi64>
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy_async %{{.*}} -> %{{.*}}[%[[S0:.*]], %{{.*}}, %{{.*}}] barrier(%[[BARS]][%[[S0]]]) if
// CHECK-NEXT: arith.constant
// CHECK-NEXT: tile.copy_async %{{.*}} if %{{[^ ]*}} : !tile.view
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[R:.*]] = %c0_i32{{[_0-9]*}}, %[[W:.*]] = %c2_i32{{[_0-9]*}}, %[[P:.*]] = %c0_i32{{[_0-9]*}})
// CHECK-NEXT: tile.wait 1
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[R]]] phase(%[[P]])
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy_async {{.*}} barrier(%[[BARS]][%[[W]]])
// CHECK: tile.copy_async %{{.*}} if %{{[^ ]*}} : !tile.view
// CHECK: tile.wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[BARS]]
// NOTMA-LABEL: func.func @mixed
// NOTMA-NOT: mbarrier
// NOTMA: tile.wait 0
func.func @mixed(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) -> tensor<128x64xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c1 = arith.constant 1 : i32
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
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

// -----

#a = #tile.layout<spatial(16,8) * local(1,8)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(16,8) * local(1,8)>

// Not mixed without a wgmma in flight (16 rows: mma.sync): A could be a
// TMA copy, B could not, and a load read with ldmatrix keeps cp.async
// (its ring's swizzle makes cheaper matrix-load addresses than TMA's
// column blocks: the decode GEMM's A).
// CHECK-LABEL: func.func @not_mixed_without_wgmma
// CHECK-NOT: mbarrier
// CHECK: tile.wait 0
func.func @not_mixed_without_wgmma(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) -> tensor<16x64xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c1 = arith.constant 1 : i32
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) strides(%N, %c1) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<16x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<16x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<16x64xf16, #a>, tensor<64x64xf16, #b>, tensor<16x64xf32, #c> -> tensor<16x64xf32, #c>
    scf.yield %d : tensor<16x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<16x64xf32, #c>
}

// -----

#t = #tile.layout<spatial(1,1,64,2) * local(1,1,1,32)>

// A loop with no MMA in flight (attention's shape: its products retire
// within the iteration) whose loads are 1 x 1 x 64 x 64 tiles of rank-4
// parameters with their declared shapes: TMA copies too, into rings of the
// tiles (2 x 1 x 1 x 64 x 64). With nothing in flight to wait for, each
// iteration starts with a barrier (every warp is done with the previous
// iteration's stage), refills that stage (the write counter) and then
// waits for the read stage's mbarrier; no tile.wait anywhere, the
// invalidation after the loop.
// CHECK-LABEL: func.func @tma_no_mma_in_flight
// CHECK: %[[RK:.*]] = tile.alloc_shared : !tile.shared<2x1x1x64x64xf16>
// CHECK: %[[RV:.*]] = tile.alloc_shared : !tile.shared<2x1x1x64x64xf16>
// CHECK: %[[BARS:.*]] = tile.alloc_shared : !tile.shared<2xi64>
// CHECK-NEXT: tile.mbarrier_init %[[BARS]] count(2)
// CHECK: tile.copy_async %{{.*}}[%arg4, %arg5, %c0{{.*}}, %c0{{.*}}] -> %[[RK]][%[[S0:[^,]*]], {{.*}}] barrier(%[[BARS]][%[[S0]]]) if
// CHECK: tile.copy_async %{{.*}} -> %[[RV]][%[[S0]], {{.*}}] barrier(%[[BARS]][%[[S0]]]) if
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[R:.*]] = %c0_i32{{[_0-9]*}}, %[[W:.*]] = %c1_i32{{[_0-9]*}}, %[[P:.*]] = %c0_i32{{[_0-9]*}})
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy_async %{{.*}} -> %[[RK]][%[[W]], {{.*}}] barrier(%[[BARS]][%[[W]]]) if
// CHECK: tile.copy_async %{{.*}} -> %[[RV]][%[[W]], {{.*}}] barrier(%[[BARS]][%[[W]]]) if
// CHECK-NEXT: tile.mbarrier_wait %[[BARS]][%[[R]]] phase(%[[P]])
// CHECK: tile.shared_load %[[RK]][%[[R]],
// CHECK-NEXT: tile.shared_load %[[RV]][%[[R]],
// CHECK-NOT: tile.copy_async
// CHECK-NOT: tile.wait
// CHECK: scf.yield
// CHECK-NOT: tile.wait
// CHECK: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[BARS]]
// NOTMA-LABEL: func.func @tma_no_mma_in_flight
// NOTMA-NOT: mbarrier
// NOTMA: tile.wait 0
func.func @tma_no_mma_in_flight(%PK: !tile.ptr<f16> {tile.shape = ["B", "H", "N", "64"]}, %PV: !tile.ptr<f16> {tile.shape = ["B", "H", "N", "64"]}, %B: i32 {tile.dim = "B"}, %H: i32 {tile.dim = "H"}, %b: i32, %h: i32, %N: i32 {tile.dim = "N"}) -> tensor<1x1x64x64xf16, #t> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %k = tile.view %PK(%B, %H, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x64xf16>
  %v = tile.view %PV(%B, %H, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x64xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<1x1x64x64xf16, #t>
  %r = scf.for %n = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<1x1x64x64xf16, #t>) : i32 {
    %tk = tile.load %k[%b, %h, %n, %c0] : !tile.view<?x?x?x64xf16> -> tensor<1x1x64x64xf16, #t>
    %tv = tile.load %v[%b, %h, %n, %c0] : !tile.view<?x?x?x64xf16> -> tensor<1x1x64x64xf16, #t>
    %s = arith.mulf %tk, %tv : tensor<1x1x64x64xf16, #t>
    %d = arith.addf %acc, %s : tensor<1x1x64x64xf16, #t>
    scf.yield %d : tensor<1x1x64x64xf16, #t>
  } {tile.pipeline = 2 : i32}
  return %r : tensor<1x1x64x64xf16, #t>
}

// -----

#t = #tile.layout<spatial(1,2,32,2) * local(1,1,1,32)>

// A tile with more than one non-unit dimension before its last two (here
// 1 x 2 x 32 x 64) is not one TMA box per column block: cp.async.
// CHECK-LABEL: func.func @tma_tile_of_two_heads
// CHECK-NOT: mbarrier
// CHECK: tile.wait 0
func.func @tma_tile_of_two_heads(%PK: !tile.ptr<f16> {tile.shape = ["B", "H", "N", "64"]}, %B: i32 {tile.dim = "B"}, %H: i32 {tile.dim = "H"}, %b: i32, %N: i32 {tile.dim = "N"}) -> tensor<1x2x32x64xf16, #t> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %k = tile.view %PK(%B, %H, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x64xf16>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<1x2x32x64xf16, #t>
  %r = scf.for %n = %c0 to %N step %c32 iter_args(%acc = %zero) -> (tensor<1x2x32x64xf16, #t>) : i32 {
    %tk = tile.load %k[%b, %c0, %n, %c0] : !tile.view<?x?x?x64xf16> -> tensor<1x2x32x64xf16, #t>
    %d = arith.addf %acc, %tk : tensor<1x2x32x64xf16, #t>
    scf.yield %d : tensor<1x2x32x64xf16, #t>
  } {tile.pipeline = 2 : i32}
  return %r : tensor<1x2x32x64xf16, #t>
}
