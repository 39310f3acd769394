// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a warp-specialize=true" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a tma=true" | FileCheck %s --check-prefix=TMA

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// The TMA loop of pipeline-tma.mlir, warp-specialized: the rings, the
// "full" mbarriers (one arrival per copy) and the "empty" ones (one arrival
// per consumer warp: 4) come first; the kernel's body becomes the consumer
// region; the producer region computes the views and bounds again and runs
// every copy, each stage after waiting for it to be empty (parity 1 first:
// a fresh barrier's previous phase counts as complete, so the first S
// copies do not wait). The consumer's loop waits for the full stage, keeps
// its MMA group in flight and releases the previous iteration's stage once
// it holds one (a carried i1, false before the first iteration); the
// kernel gets tile.producer_warps = 4. With
// 8 warps in all, 256 threads: the block starts at 240 registers, which
// the consumers keep. Without the option: the TMA scheme, no roles.
// CHECK-LABEL: func.func @specialized
// CHECK-SAME: tile.producer_warps = 4
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.shared<3x128x64xf16>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<3x64x64xf16>
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK: tile.mbarrier_init %[[FULL]] count(2)
// CHECK: tile.mbarrier_init %[[EMPTY]] count(4)
// CHECK: tile.barrier
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: %[[VA:.*]] = tile.view %arg0
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %arg4 step %{{.*}} iter_args(%[[W:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}})
// CHECK: %[[NOT:.*]] = arith.xori %[[E]], %c1
// CHECK: tile.mbarrier_wait %[[EMPTY]][%[[W]]] phase(%[[NOT]])
// CHECK: tile.copy_async %[[VA]][%{{.*}}, %[[K]]] -> %[[RA]][%[[W]], %{{.*}}, %{{.*}}] barrier(%[[FULL]][%[[W]]]) :
// CHECK: tile.copy_async %{{.*}}[%[[K]], %{{.*}}] -> %[[RB]][%[[W]], %{{.*}}, %{{.*}}] barrier(%[[FULL]][%[[W]]]) :
// CHECK: scf.yield
// CHECK-NOT: tile.dot
// CHECK: } consumer(240 registers) {
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[R:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[H:.*]] = %false)
// CHECK-NEXT: tile.mbarrier_wait %[[FULL]][%[[R]]] phase(%[[P]])
// CHECK-NOT: tile.copy_async
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[R]], %c0
// CHECK: %[[DEC:.*]] = arith.subi %[[R]], %c1
// CHECK: %[[PREV:.*]] = arith.select %[[FIRST]], %c2{{.*}}, %[[DEC]]
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[PREV]]] if %[[H]]
// CHECK-NOT: tile.copy_async
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %true
// CHECK: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[FULL]]
// CHECK-NEXT: tile.mbarrier_inval %[[EMPTY]]
// CHECK: tile.store
// CHECK: }
// CHECK-NEXT: return
// TMA-LABEL: func.func @specialized
// TMA-NOT: warp_specialize
// TMA-NOT: mbarrier_arrive
// TMA: tile.mbarrier_wait
func.func @specialized(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
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
  } {tile.pipeline = 3 : i32}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// A loop nested in an scf.if does not split the kernel into roles (the
// producer region would have to reproduce the branch): plain TMA.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: tile.warp_specialize
// CHECK-NOT: tile.producer_warps
// CHECK: tile.mbarrier_wait
// CHECK-NOT: tile.mbarrier_arrive
func.func @nested(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}, %go: i1) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  scf.if %go {
    %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
      %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
      %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
      %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
      scf.yield %d : tensor<128x64xf32, #c>
    } {tile.pipeline = 3 : i32}
    tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  }
  return
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// In a persistent kernel (the loop over the virtual grid, tile.persistent,
// around the k loop) the producer runs the same loop over tiles, with its
// stage and phase carried across tiles; so do the consumers (stage, phase,
// and whether they hold a stage: the first k block of a tile releases the
// previous tile's last stage). The mbarriers are invalidated once, after
// the loop over tiles.
// CHECK-LABEL: func.func @persistent
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.shared<3xi64>
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: %[[T:.*]]:2 = scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[W0:.*]] = %{{.*}}, %[[E0:.*]] = %{{.*}})
// CHECK: arith.remui %[[V]]
// CHECK: %[[K:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[W0]], %{{.*}} = %[[E0]])
// CHECK: tile.mbarrier_wait %[[EMPTY]]
// CHECK: tile.copy_async
// CHECK: tile.copy_async
// CHECK: scf.yield %[[K]]#0, %[[K]]#1
// CHECK: } consumer(240 registers) {
// CHECK: scf.for %{{.*}} iter_args(%[[R0:.*]] = %{{.*}}, %[[P0:.*]] = %{{.*}}, %[[H0:.*]] = %false) -> (i32, i32, i1)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[R0]], %{{.*}} = %[[P0]], %{{.*}} = %[[H0]])
// CHECK: tile.mbarrier_wait %[[FULL]]
// CHECK: tile.mbarrier_arrive %[[EMPTY]]
// CHECK: tile.store
// CHECK: scf.yield
// CHECK-NEXT: } {tile.persistent}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[FULL]]
// CHECK-NEXT: tile.mbarrier_inval %[[EMPTY]]
func.func @persistent(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}, %gx: i32 {tile.virtual_grid = 0 : i64}, %gy: i32 {tile.virtual_grid = 1 : i64}, %gz: i32 {tile.virtual_grid = 2 : i64}) attributes {tile.kernel, tile.persistent, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %first = tile.program_id x : i32
  %step = tile.num_programs x : i32
  %plane = arith.muli %gx, %gy : i32
  %total = arith.muli %plane, %gz : i32
  scf.for %v = %first to %total step %step : i32 {
    %x = arith.remui %v, %gx : i32
    %c128 = arith.constant 128 : i32
    %m0 = arith.muli %x, %c128 : i32
    %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
    %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
    %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
    %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
      %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
      %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
      %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
      scf.yield %d : tensor<128x64xf32, #c>
    } {tile.pipeline = 3 : i32}
    tile.store %cv[%m0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  } {tile.persistent}
  return
}

// -----

#t = #tile.layout<spatial(1,1,64,2) * local(1,1,1,32)>

// The loop of pipeline-tma.mlir without an MMA in flight (attention's
// shape), warp-specialized: the producer is the same loop of waits on
// "empty" and copies of the 1 x 1 x 64 x 64 tiles; the consumers wait for
// the full stage and release the stage they read at the end of the
// iteration (no predicate: they hold no stage across iterations), and
// there is no block barrier in their loop.
// CHECK-LABEL: func.func @specialized_no_mma_in_flight
// CHECK-SAME: tile.producer_warps = 4
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.shared<2xi64>
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.shared<2xi64>
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[W:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}})
// CHECK: tile.mbarrier_wait %[[EMPTY]][%[[W]]]
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %[[K]], %{{.*}}] -> %{{.*}}[%[[W]], {{.*}}] barrier(%[[FULL]][%[[W]]]) :
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}, %[[K]], %{{.*}}] -> %{{.*}}[%[[W]], {{.*}}] barrier(%[[FULL]][%[[W]]]) :
// CHECK: } consumer(240 registers) {
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[R:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %{{.*}} = %false)
// CHECK-NEXT: tile.mbarrier_wait %[[FULL]][%[[R]]] phase(%[[P]])
// CHECK-NOT: tile.barrier
// CHECK-NOT: tile.copy_async
// CHECK: arith.addf
// CHECK-NOT: tile.barrier
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%[[R]]] :
// CHECK-NEXT: scf.yield
// CHECK: tile.barrier
// CHECK-NEXT: tile.mbarrier_inval %[[FULL]]
// CHECK-NEXT: tile.mbarrier_inval %[[EMPTY]]
// TMA-LABEL: func.func @specialized_no_mma_in_flight
// TMA-NOT: warp_specialize
// TMA: tile.mbarrier_wait
func.func @specialized_no_mma_in_flight(%PK: !tile.ptr<f16> {tile.shape = ["B", "H", "N", "64"]}, %PV: !tile.ptr<f16> {tile.shape = ["B", "H", "N", "64"]}, %PO: !tile.ptr<f16> {tile.shape = ["64", "64"]}, %B: i32 {tile.dim = "B"}, %H: i32 {tile.dim = "H"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %k = tile.view %PK(%B, %H, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x64xf16>
  %v = tile.view %PV(%B, %H, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x64xf16>
  %o = tile.view %PO() : !tile.ptr<f16> -> !tile.view<1x1x64x64xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<1x1x64x64xf16, #t>
  %r = scf.for %n = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<1x1x64x64xf16, #t>) : i32 {
    %tk = tile.load %k[%c0, %c0, %n, %c0] : !tile.view<?x?x?x64xf16> -> tensor<1x1x64x64xf16, #t>
    %tv = tile.load %v[%c0, %c0, %n, %c0] : !tile.view<?x?x?x64xf16> -> tensor<1x1x64x64xf16, #t>
    %s = arith.mulf %tk, %tv : tensor<1x1x64x64xf16, #t>
    %d = arith.addf %acc, %s : tensor<1x1x64x64xf16, #t>
    scf.yield %d : tensor<1x1x64x64xf16, #t>
  } {tile.pipeline = 2 : i32}
  tile.store %o[%c0, %c0, %c0, %c0], %r : !tile.view<1x1x64x64xf16>, tensor<1x1x64x64xf16, #t>
  return
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// At `occupancy 2` (tile.occupancy) the 4 + 4 warps start with half of an
// SM's registers each, 128 (240 at one program per SM): the producers drop
// to 24, the consumers take what that frees, (128 x 256 - 24 x 128) / 128
// = 232.
// CHECK-LABEL: func.func @two_per_sm
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: } consumer(232 registers) {
func.func @two_per_sm(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.occupancy = 2 : i32, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
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
  } {tile.pipeline = 3 : i32}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

#w = #tile.layout<spatial(64,2) * local(1,64)>
#s = #tile.layout<spatial(1,128) * local(1,1)>

// Packed weights (the producer's copies only): a tile of a u4 parameter
// (one box of 64 bytes a row, copied as bytes) whose column offset steps
// by whole bytes (k from 0 by 128: knownDivisor), and the scale row of a
// parameter declared ["K / 128", "N"] whose view's first extent is that
// expression: both TMA copies of the producer, two arrivals per stage.
// With --tma alone (no producer warpgroup) both stay cp.async copies.
// CHECK-LABEL: func.func @packed_weight
// CHECK-SAME: tile.producer_warps = 4
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.shared<2xi64>
// CHECK: tile.mbarrier_init %[[FULL]] count(2)
// CHECK: tile.warp_specialize producer(4 warps, 24 registers) {
// CHECK: tile.copy_async %{{.*}} barrier(%[[FULL]][%{{.*}}]) : !tile.view<?x?xi4> -> !tile.shared<2x64x128xi4>
// CHECK: tile.copy_async %{{.*}} barrier(%[[FULL]][%{{.*}}]) : !tile.view<?x?xf16> -> !tile.shared<2x1x128xf16>
// CHECK: } consumer(
// TMA-LABEL: func.func @packed_weight
// TMA-NOT: mbarrier
// TMA: tile.wait 0
func.func @packed_weight(%PW: !tile.ptr<i4> {tile.shape = ["N", "K"]}, %PS: !tile.ptr<f16> {tile.shape = ["K / 128", "N"]}, %PO: !tile.ptr<i4> {tile.shape = ["64", "128"]}, %PT: !tile.ptr<f16> {tile.shape = ["1", "128"]}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c128 = arith.constant 128 : i32
  %groups = arith.divsi %K, %c128 : i32
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %sv = tile.view %PS(%groups, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %o = tile.view %PO() : !tile.ptr<i4> -> !tile.view<64x128xi4>
  %t = tile.view %PT() : !tile.ptr<f16> -> !tile.view<1x128xf16>
  %c0 = arith.constant 0 : i32
  %w0 = arith.constant dense<0> : tensor<64x128xi4, #w>
  %s0 = arith.constant dense<0.0> : tensor<1x128xf16, #s>
  %r:2 = scf.for %k = %c0 to %K step %c128 iter_args(%aw = %w0, %as = %s0) -> (tensor<64x128xi4, #w>, tensor<1x128xf16, #s>) : i32 {
    %tw = tile.load %w[%c0, %k] : !tile.view<?x?xi4> -> tensor<64x128xi4, #w>
    %g = arith.divsi %k, %c128 : i32
    %ts = tile.load %sv[%g, %c0] : !tile.view<?x?xf16> -> tensor<1x128xf16, #s>
    %dw = arith.xori %aw, %tw : tensor<64x128xi4, #w>
    %ds = arith.addf %as, %ts : tensor<1x128xf16, #s>
    scf.yield %dw, %ds : tensor<64x128xi4, #w>, tensor<1x128xf16, #s>
  } {tile.pipeline = 2 : i32}
  tile.store %o[%c0, %c0], %r#0 : !tile.view<64x128xi4>, tensor<64x128xi4, #w>
  tile.store %t[%c0, %c0], %r#1 : !tile.view<1x128xf16>, tensor<1x128xf16, #s>
  return
}
