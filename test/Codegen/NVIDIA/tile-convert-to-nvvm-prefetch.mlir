// RUN: tile-opt -split-input-file -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -split-input-file -tile-convert-to-nvvm=target=sm_80 %s | FileCheck %s --check-prefix=SM80

// A dependent launch's start as tile-prefetch-prologue leaves it: the
// prefetch of a 64 x 256 u4 slice (64 rows of 128 bytes: one line each,
// for threads 0..63 of 128) under the copy's predicate, each line under
// its own bounds check (row and column inside the view, thread < 64), then
// the wait and the launch of the next grid where the op stood, and no
// second wait at the kernel's entry. sm_80 has no dependent launch: the
// prefetch stays (a hint), the wait is dropped.
// CHECK-LABEL: llvm.func @start
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.cond_br
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.cond_br
// CHECK:         nvvm.prefetch level = L2, %{{.*}} : !llvm.ptr<1>
// CHECK-NOT:     nvvm.prefetch
// CHECK:         nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NOT:     nvvm.griddepcontrol
// SM80-LABEL: llvm.func @start
// SM80:         nvvm.prefetch level = L2
// SM80-NOT:     nvvm.griddepcontrol
module attributes {tile.dependent_launch} {
func.func @start(%PW: !tile.ptr<i4>, %N: i32, %K: i32, %n0: i32, %k0: i32, %live: i1) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  tile.prefetch %w[%n0, %k0] [64, 256] if %live : !tile.view<?x?xi4>
  tile.wait_preceding_grids
  return
}
}

// -----

// A slice of more lines than threads: 8 rows of 2048 f16 (32 lines each,
// 256 lines) take two rounds of the 128 threads, with no thread test (each
// round is full). Without tile.dependent_launch on the module the wait is
// dropped.
// CHECK-LABEL: llvm.func @rounds
// CHECK-COUNT-2: nvvm.prefetch level = L2
// CHECK-NOT:     nvvm.prefetch
// CHECK-NOT:     nvvm.griddepcontrol
func.func @rounds(%PA: !tile.ptr<f16>, %M: i32, %K: i32, %m0: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  tile.prefetch %a[%m0, %c0] [8, 2048] : !tile.view<?x?xf16>
  tile.wait_preceding_grids
  return
}
