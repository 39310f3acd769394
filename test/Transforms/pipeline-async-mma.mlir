// RUN: tile-opt %s -split-input-file -tile-pipeline=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline=target=sm_80 | FileCheck %s --check-prefix=SM80

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>

// A loop whose only dot multiplies two pipelined loads in a shape wgmma
// takes (128 x 64 x 64 f16 -> f32, 4 warps), three stages: the copies run
// two iterations ahead as usual (prologue: iterations 0 and 1; write stage
// starts at 2; wait until the groups of one later stage may be pending,
// (2 - 1) * 2 = 2), but an iteration refills its stage only after the dot,
// whose lowering retires the previous iteration's MMA group (which read
// that stage), and a barrier (every warp retired it). The dot is marked,
// and the loop runs under `scf.if (lb < ub)` (its initial values
// otherwise), so that the lowering's wait for the last group after the
// loop is reached only from the loop. On sm_80 (no wgmma) the copies come
// before the dot.
// CHECK-LABEL: func.func @wgmma_shaped
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: tile.alloc_shared : !tile.shared<3x128x64xf16>
// CHECK: tile.alloc_shared : !tile.shared<3x64x64xf16>
// CHECK-COUNT-4: tile.copy_async
// CHECK-NOT: tile.copy_async
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[AHEAD:.*]] = arith.muli %[[C64]], %[[TWO]]
// CHECK: %[[ENTER:.*]] = arith.cmpi slt, %[[C0]], %[[N:.*]] : i32
// CHECK: %[[RES:.*]]:3 = scf.if %[[ENTER]]
// CHECK: scf.for %[[K:.*]] = %[[C0]] to %[[N]] step %[[C64]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c0_i32{{[_0-9]*}}, %{{.*}} = %c2_i32{{[_0-9]*}})
// CHECK-NEXT: tile.wait 2
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.copy_async
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: arith.addi %[[K]], %[[AHEAD]]
// CHECK-COUNT-2: tile.copy_async
// CHECK: scf.yield
// CHECK: } else {
// CHECK-NEXT: scf.yield %cst, %c0_i32{{[_0-9]*}}, %c2_i32{{[_0-9]*}}
// CHECK: tile.wait 0
// CHECK-NEXT: return %[[RES]]#0
// SM80-LABEL: func.func @wgmma_shaped
// SM80-COUNT-4: tile.copy_async
// SM80: scf.for
// SM80-NEXT: tile.wait 2
// SM80-NEXT: tile.barrier
// SM80-COUNT-2: tile.shared_load
// SM80-COUNT-2: tile.copy_async
// SM80: tile.dot
// SM80-NOT: tile.mma_in_flight
func.func @wgmma_shaped(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %N: i32) -> tensor<128x64xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %r = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
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
#b2 = #tile.layout<spatial(64,2) * local(1,96)>
#c2 = #tile.layout<spatial(128,1) * local(1,192)>

// Two stages (the copies one iteration ahead; each refills the stage the
// previous iteration's MMA group read, after the dot and a barrier): marked.
// Not marked: an accumulator read in the loop besides the dot, and a B
// tile of 192 columns (384-byte rows: no power of two of 128-byte column
// blocks, so no wgmma).
// CHECK-LABEL: func.func @two_stages_and_not_async
// CHECK: scf.for
// CHECK-NEXT: tile.wait 0
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-COUNT-2: tile.copy_async
// CHECK-NOT: tile.mma_in_flight
// CHECK: return
func.func @two_stages_and_not_async(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %N: i32) -> (tensor<128x64xf32, #c>, tensor<128x64xf32, #c>, tensor<128x192xf32, #c2>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %zero2 = arith.constant dense<0.0> : tensor<128x192xf32, #c2>
  %r1 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 2 : i32}
  %r2 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    %e = arith.addf %d, %acc : tensor<128x64xf32, #c>
    scf.yield %e : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  %r3 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero2) -> (tensor<128x192xf32, #c2>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x192xf16, #b2>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x192xf16, #b2>, tensor<128x192xf32, #c2> -> tensor<128x192xf32, #c2>
    scf.yield %d : tensor<128x192xf32, #c2>
  } {tile.pipeline = 3 : i32}
  return %r1, %r2, %r3 : tensor<128x64xf32, #c>, tensor<128x64xf32, #c>, tensor<128x192xf32, #c2>
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,64)>
#bt = #tile.layout<spatial(128,1) * local(1,64)>
#btt = #tile.layout<local(64,1) * column_spatial(1,128)>
#c = #tile.layout<spatial(128,1) * local(1,128)>

// Marked: a B tile of 128 columns (stored as two column blocks), and a B
// loaded N x K and read through a transpose (wgmma reads it K-major).
// CHECK-LABEL: func.func @wide_and_transposed
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64} {{.*}} tensor<64x128xf16
// CHECK: tile.trans
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK: return
func.func @wide_and_transposed(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %N: i32) -> (tensor<128x128xf32, #c>, tensor<128x128xf32, #c>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #c>
  %r1 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x128xf16, #b>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    scf.yield %d : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  %r2 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tn = tile.load %b[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #bt>
    %tb = tile.trans %tn : tensor<128x64xf16, #bt> -> tensor<64x128xf16, #btt>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x128xf16, #btt>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    scf.yield %d : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r1, %r2 : tensor<128x128xf32, #c>, tensor<128x128xf32, #c>
}

// -----

#a = #tile.layout<spatial(128,1) * local(1,64)>
#a16 = #tile.layout<spatial(128,1) * local(1,16)>
#b = #tile.layout<spatial(64,2) * local(1,64)>
#b16 = #tile.layout<spatial(16,8) * local(1,16)>
#c = #tile.layout<spatial(128,1) * local(1,128)>

// A computed in the loop (a dequantized weight: wgmma reads it from the
// threads' registers) and B loaded: marked when A spans two k16 slices or
// more, which the lowering issues as two groups, the second half's A
// computed after the first group's wait (so no running group's registers
// are written); with one k16 slice there is no second half, and the dot is
// not marked (its lowering waits for its group at once).
// CHECK-LABEL: func.func @register_a
// CHECK: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64} {{.*}} tensor<128x64xf16
// CHECK-NOT: tile.mma_in_flight
// CHECK: return
func.func @register_a(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %N: i32) -> (tensor<128x128xf32, #c>, tensor<128x128xf32, #c>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #c>
  %s = arith.constant dense<0.5> : tensor<128x64xf16, #a>
  %s16 = arith.constant dense<0.5> : tensor<128x16xf16, #a16>
  %r1 = scf.for %k = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %tw = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %ta = arith.mulf %tw, %s : tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x128xf16, #b>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    scf.yield %d : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  %r2 = scf.for %k = %c0 to %N step %c16 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %tw = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x16xf16, #a16>
    %ta = arith.mulf %tw, %s16 : tensor<128x16xf16, #a16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<16x128xf16, #b16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x16xf16, #a16>, tensor<16x128xf16, #b16>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    scf.yield %d : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r1, %r2 : tensor<128x128xf32, #c>, tensor<128x128xf32, #c>
}
