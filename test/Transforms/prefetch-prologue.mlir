// RUN: tile-opt %s -split-input-file -tile-prefetch-prologue="target=sm_90a" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-prefetch-prologue="target=sm_80" | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file -tile-prefetch-prologue="target=gfx942" | FileCheck %s --check-prefix=OFF

// A dependent launch's prologue: each top-level copy gets a prefetch of its
// slice (the copied tile's trailing extents, its predicate), and those
// prefetches, with the pure ops they compute from (the views, the program
// index, the offsets and the predicate, in their order), move to the
// kernel's start, followed by the wait; the copies stay after it.
// Targets without dependent launches (sm_80, gfx942) are left alone.
// CHECK-LABEL: func.func @prologue
// CHECK: %[[A:.*]] = tile.view %arg0
// CHECK-NEXT: %[[W:.*]] = tile.view %arg1
// CHECK-NEXT: %[[PID:.*]] = tile.program_id x
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[PID]], %c64_i32
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %c0_i32, %arg3
// CHECK-NEXT: %[[K1:.*]] = arith.addi %c0_i32, %c256_i32
// CHECK-NEXT: %[[LIVE1:.*]] = arith.cmpi slt, %[[K1]], %arg3
// CHECK-NEXT: tile.prefetch %[[A]][%c0_i32, %c0_i32] [8, 256] if %[[LIVE]] : !tile.view<?x?xf16>
// CHECK-NEXT: tile.prefetch %[[W]][%[[N0]], %c0_i32] [64, 256] if %[[LIVE]] : !tile.view<?x?xi4>
// CHECK-NEXT: tile.prefetch %[[W]][%[[N0]], %[[K1]]] [64, 256] if %[[LIVE1]] : !tile.view<?x?xi4>
// CHECK-NEXT: tile.wait_preceding_grids
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: tile.alloc_shared
// CHECK-NEXT: tile.alloc_shared
// CHECK-NEXT: tile.copy_async %[[A]][%c0_i32, %c0_i32]
// CHECK-NEXT: tile.copy_async %[[W]][%[[N0]], %c0_i32]
// CHECK-NEXT: tile.copy_async %[[W]][%[[N0]], %[[K1]]]
// CHECK-NOT: tile.prefetch
// CHECK: return
// OFF-LABEL: func.func @prologue
// OFF-NOT: tile.prefetch
// OFF-NOT: tile.wait_preceding_grids
// OFF: return
module attributes {tile.dependent_launch} {
func.func @prologue(%PA: !tile.ptr<f16>, %PW: !tile.ptr<i4>, %M: i32, %K: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<3x8x256xf16, #tile.shared_layout<(3,8,256):(2048,256,1)>>
  %rw = tile.alloc_shared {tile.offset = 12288 : i64} : !tile.shared<3x64x256xi4, #tile.shared_layout<(3,64,256):(16384,256,1)>>
  %pid = tile.program_id x : i32
  %n0 = arith.muli %pid, %c64 : i32
  %live = arith.cmpi slt, %c0, %K : i32
  tile.copy_async %a[%c0, %c0] -> %ra[%c0, %c0, %c0] if %live : !tile.view<?x?xf16> -> !tile.shared<3x8x256xf16, #tile.shared_layout<(3,8,256):(2048,256,1)>>
  tile.copy_async %w[%n0, %c0] -> %rw[%c0, %c0, %c0] if %live : !tile.view<?x?xi4> -> !tile.shared<3x64x256xi4, #tile.shared_layout<(3,64,256):(16384,256,1)>>
  %k1 = arith.addi %c0, %c256 : i32
  %live1 = arith.cmpi slt, %k1, %K : i32
  tile.copy_async %w[%n0, %k1] -> %rw[%c1, %c0, %c0] if %live1 : !tile.view<?x?xi4> -> !tile.shared<3x64x256xi4, #tile.shared_layout<(3,64,256):(16384,256,1)>>
  tile.wait 0
  return
}
}

// -----

// A copy whose offset another block computes (an scf.if), one whose
// offset comes from an op with memory effects (a call: it could read what
// the grid before writes, so it stays after the wait) and one in a loop
// (a copy of the steady state, or a producer warpgroup's) get no
// prefetch; with none left, nothing changes and the GPU lowering waits at
// the kernel's start.
// CHECK-LABEL: func.func @nothing_to_prefetch
// CHECK-NOT: tile.prefetch
// CHECK-NOT: tile.wait_preceding_grids
// CHECK: return
module attributes {tile.dependent_launch} {
func.func @nothing_to_prefetch(%PA: !tile.ptr<f16>, %M: i32, %p: i1) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  %k = scf.if %p -> i32 {
    scf.yield %c64 : i32
  } else {
    scf.yield %c0 : i32
  }
  tile.copy_async %a[%c0, %k] -> %ra[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  %block = func.call @block_of(%M) : (i32) -> i32
  tile.copy_async %a[%block, %c0] -> %ra[%c1, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  scf.for %i = %c0 to %M step %c64 : i32 {
    tile.copy_async %a[%c0, %i] -> %ra[%c1, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  }
  tile.wait 0
  return
}
func.func private @block_of(i32) -> i32
}

// -----

// Without tile.dependent_launch on the module, nothing changes.
// CHECK-LABEL: func.func @not_dependent
// CHECK-NOT: tile.prefetch
// CHECK-NOT: tile.wait_preceding_grids
// CHECK: tile.copy_async
func.func @not_dependent(%PA: !tile.ptr<f16>, %M: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  tile.copy_async %a[%c0, %c0] -> %ra[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  tile.wait 0
  return
}

// -----

// A kernel whose wait is already placed is left as it is (the pass runs
// once per kernel).
// CHECK-LABEL: func.func @placed
// CHECK-NEXT: tile.wait_preceding_grids
// CHECK-NOT: tile.prefetch
// CHECK-NOT: tile.wait_preceding_grids
// CHECK: return
module attributes {tile.dependent_launch} {
func.func @placed(%PA: !tile.ptr<f16>, %M: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  tile.wait_preceding_grids
  %c0 = arith.constant 0 : i32
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  tile.copy_async %a[%c0, %c0] -> %ra[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<(2,64,64):(4096,64,1)>>
  tile.wait 0
  return
}
}

// -----

// A producer warpgroup's loop (warp specialization): its copies of the
// ring's first pass (depth 2: iterations 0 and 1, at lb and lb + step,
// each under lb + i x step < ub) are prefetched from clones of the
// producer's index arithmetic; a copy whose offset depends on the loop's
// iteration argument (not on its induction variable) gets none. The wait
// follows, before the kernel's shared buffers and the split.
// CHECK-LABEL: func.func @producer
// CHECK: %[[W:.*]] = tile.view %arg0
// CHECK-NEXT: %[[PID:.*]] = tile.program_id x
// CHECK: %[[N0:.*]] = arith.muli %[[PID]], %c64_i32
// CHECK-NEXT: %[[LIVE0:.*]] = arith.cmpi slt, %c0_i32, %arg2
// CHECK-NEXT: tile.prefetch %[[W]][%[[N0]], %c0_i32] [64, 256] if %[[LIVE0]] : !tile.view<?x?xi4>
// CHECK: %[[K1:.*]] = arith.addi %c0_i32, %{{.*}}
// CHECK-NEXT: %[[LIVE1:.*]] = arith.cmpi slt, %[[K1]], %arg2
// CHECK-NEXT: tile.prefetch %[[W]][%[[N0]], %[[K1]]] [64, 256] if %[[LIVE1]] : !tile.view<?x?xi4>
// CHECK-NEXT: tile.wait_preceding_grids
// CHECK-NOT: tile.prefetch
// CHECK: tile.warp_specialize producer
// CHECK: scf.for
// CHECK: tile.copy_async
// CHECK: tile.copy_async
module attributes {tile.dependent_launch} {
func.func @producer(%PW: !tile.ptr<i4>, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.producer_warps = 4 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %rw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x256xi4, #tile.shared_layout<(2,64,256):(8192,256,1)>>
  %bars = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.mbarrier_init %bars count(1) : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.barrier
  tile.warp_specialize producer(4 warps, 24 registers) {
    %c64 = arith.constant 64 : i32
    %c256 = arith.constant 256 : i32
    %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
    %pid = tile.program_id x : i32
    %n0 = arith.muli %pid, %c64 : i32
    %r = scf.for %k = %c0 to %K step %c256 iter_args(%slot = %c0) -> (i32) : i32 {
      tile.copy_async %w[%n0, %k] -> %rw[%slot, %c0, %c0] barrier(%bars[%slot]) : !tile.view<?x?xi4> -> !tile.shared<2x64x256xi4, #tile.shared_layout<(2,64,256):(8192,256,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
      tile.copy_async %w[%slot, %k] -> %rw[%slot, %c0, %c0] barrier(%bars[%slot]) : !tile.view<?x?xi4> -> !tile.shared<2x64x256xi4, #tile.shared_layout<(2,64,256):(8192,256,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
      %next = arith.xori %slot, %c1 : i32
      scf.yield %next : i32
    }
  } consumer(240 registers) {
    tile.mbarrier_wait %bars[%c0] phase(%c0) : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  }
  return
}
}

// -----

// A persistent kernel: the prologue sits in the program loop. The first
// program's (the loop's first iteration, at program_id x, live while it
// is below the virtual grid's size) is prefetched from clones of the
// loop's index arithmetic; the loop is unchanged.
// CHECK-LABEL: func.func @persistent
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[W:.*]] = tile.view %arg0
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[PID]], %arg3
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[PID]], %c64_i32
// CHECK-NEXT: tile.prefetch %[[W]][%[[N0]], %c0_i32] [64, 256] if %[[LIVE]] : !tile.view<?x?xi4>
// CHECK-NEXT: tile.wait_preceding_grids
// CHECK-NOT: tile.prefetch
// CHECK: scf.for %{{.*}} = %[[PID]] to %arg3
// CHECK: tile.copy_async %[[W]]
// CHECK: } {tile.persistent}
module attributes {tile.dependent_launch} {
func.func @persistent(%PW: !tile.ptr<i4>, %N: i32, %K: i32, %total: i32) attributes {tile.kernel, tile.persistent, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id x : i32
  %step = tile.num_programs x : i32
  %rw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x256xi4, #tile.shared_layout<(2,64,256):(8192,256,1)>>
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  scf.for %v = %pid to %total step %step : i32 {
    %n0 = arith.muli %v, %c64 : i32
    tile.copy_async %w[%n0, %c0] -> %rw[%c0, %c0, %c0] : !tile.view<?x?xi4> -> !tile.shared<2x64x256xi4, #tile.shared_layout<(2,64,256):(8192,256,1)>>
    tile.wait 0
  } {tile.persistent}
  return
}
}
