// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s

// How tile.copy_async splits a tile into 16-byte chunks over 128 threads.
// A 64x64 f16 tile: 8 chunks per row, so a thread's 4 chunks are 16 rows
// apart at the same column. One branch serves all of them: when the first
// and the last row, the column and the view's alignment pass, the fast path
// is 4 cp.async with no compare between them; when only rows past the
// view's end are missing, the same with those chunks zero-filled;
// otherwise every chunk checks its own bounds and an edge chunk is
// assembled in a loop marked not to be unrolled (so that none of it is
// speculated into the fast path).

!a = !tile.shared<64x64xf16, #tile.shared_layout<(64,64):(64,1)>>
!q = !tile.shared<2x16x64xf16, #tile.shared_layout<(2,16,64):(1024,64,1)>>

// CHECK-LABEL: llvm.func @stepped
// CHECK:         llvm.cond_br %{{.*}}, ^[[FAST:bb[0-9]+]], ^[[SLOW:bb[0-9]+]]
// CHECK:       ^[[FAST]]:
// CHECK-NOT:     llvm.icmp
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK-NOT:     llvm.icmp
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK-NOT:     llvm.icmp
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK-NOT:     llvm.icmp
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK-NEXT:    llvm.br
// Rows past the view's end only (M < 16 padding rows): each chunk is a
// cp.async or a zero-fill (src-size 0, from the view's base).
// CHECK:       ^[[SLOW]]:
// CHECK:         llvm.icmp "sge"
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %arg0, 16, cache = {{ *}}cg, %[[ZERO:[0-9]+]] :
// CHECK-COUNT-4: llvm.br {{.*}} {loop_annotation = #loop_annotation}
// CHECK:         nvvm.cp.async.commit.group
func.func @stepped(%p: !tile.ptr<f16>, %M: i32, %K: i32, %m0: i32, %k0: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !a
  tile.copy_async %v[%m0, %k0] -> %s[%c0, %c0] : !tile.view<?x?xf16> -> !a
  tile.wait 0
  return
}

// A 2x16x64 tile (leading extent 2) does not step by rows: each of a
// thread's 2 chunks has its own bounds check and edge loop.
// CHECK-LABEL: llvm.func @per_chunk
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.cond_br
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK:         llvm.br {{.*}} {loop_annotation = #loop_annotation}
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.cond_br
// CHECK:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = {{ *}}cg
// CHECK:         llvm.br {{.*}} {loop_annotation = #loop_annotation}
// CHECK-NOT:     nvvm.cp.async.shared.global
// CHECK:         nvvm.cp.async.commit.group
func.func @per_chunk(%p: !tile.ptr<f16>, %B: i32, %M: i32, %K: i32, %m0: i32, %k0: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 4096 : i64} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%B, %M, %K) : !tile.ptr<f16> -> !tile.view<?x?x?xf16>
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !q
  tile.copy_async %v[%c0, %m0, %k0] -> %s[%c0, %c0, %c0] : !tile.view<?x?x?xf16> -> !q
  tile.wait 0
  return
}

// A predicated copy (tile-pipeline's copies past a loop's end): all of its
// chunks sit behind one branch on the predicate, and the group is committed
// on both paths, so that tile.wait counts stay exact.
// CHECK-LABEL: llvm.func @predicated
// CHECK-SAME:    %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[P:[^:]*]]: i1
// CHECK:         llvm.cond_br %[[P]], ^[[COPY:bb[0-9]+]], ^[[DONE:bb[0-9]+]]
// CHECK:       ^[[COPY]]:
// CHECK:         nvvm.cp.async.shared.global
// CHECK:       ^[[DONE]]:
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK-NOT:     nvvm.cp.async.shared.global
func.func @predicated(%p: !tile.ptr<f16>, %M: i32, %K: i32, %m0: i32, %k0: i32, %inside: i1)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !a
  tile.copy_async %v[%m0, %k0] -> %s[%c0, %c0] if %inside : !tile.view<?x?xf16> -> !a
  tile.wait 0
  return
}
