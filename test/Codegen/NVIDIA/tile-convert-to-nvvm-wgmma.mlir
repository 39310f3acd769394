// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX
// RUN: tile-opt -tile-convert-to-nvvm="target=sm_80" %s | FileCheck %s --check-prefix=SM80

// Warpgroup MMA on sm_90a (LowerDot.cpp, docs/Layouts.md 5.1): a dot whose
// two operands are read from shared memory at the dot (operand fusion) in
// the canonical wgmma layouts (A: 64B rows with swizzle(2,3,3); B: 128B rows
// with swizzle(3,3,3)), with an accumulator of m64n64 warpgroup atoms, is
// one batch of wgmma.mma_async per k16 slice. The barrier after the stores
// is preceded by a proxy fence; on sm_80 the same dot is mma.sync.

#blkA = #tile.layout<local(2,1) * spatial(32,4) * local(1,8)>
#blkB = #tile.layout<local(2,1) * spatial(16,8) * local(1,8)>
#mmaA = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,2)>
#mmaB = #tile.layout<replicate(4) * local(2,8) * local(2,1) * column_spatial(4,8) * local(2,1)>
#mmaC = #tile.layout<spatial(4,1) * local(1,8) * local(2,1) * spatial(8,4) * local(1,2)>

// Per k16 slice one m64n64k16 (A K-major, B MN-major: trans-b = 1), fenced,
// committed and waited for with the accumulators returned by the wait.
// CHECK-LABEL: llvm.func @wgmma
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT:     nvvm.ldmatrix
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         llvm.return
// PTX-LABEL: .entry wgmma(
// PTX: fence.proxy.async.shared::cta;
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 0;
// SM80-LABEL: llvm.func @wgmma
// SM80-NOT:     wgmma
// SM80-NOT:     nvvm.fence.proxy
// SM80:         nvvm.mma.sync

// A buffer not aligned to its swizzle pattern (A at 256: its 64-byte rows
// repeat every 512 bytes): the hardware would swizzle other bits, so the
// dot stays on ldmatrix + mma.sync, and no proxy fence is needed.
// CHECK-LABEL: llvm.func @misaligned
// CHECK-NOT:     nvvm.fence.proxy
// CHECK-NOT:     wgmma
// CHECK:         nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         llvm.return

// A two-slot ring read at a run-time slot: the A descriptor's start is the
// slot's address (slot x 4096 bytes, a multiple of the 512-byte pattern).
// CHECK-LABEL: llvm.func @ring
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK:         wgmma.wait_group.sync.aligned 0;

// The same loop with the dot marked tile.mma_in_flight = 1 (tile-pipeline
// left the stages for it): each iteration leaves its group in flight
// (wait_group 1, the accumulators going on to the next group), and the loop
// result is read only after a wait_group 0 right after the loop.
// CHECK-LABEL: llvm.func @ring_in_flight
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT:     wgmma.wait_group.sync.aligned 0;
// CHECK:         llvm.br
// CHECK:         llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT:     wgmma.mma_async
// CHECK:         llvm.store
// PTX-LABEL: .entry ring_in_flight(
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: st.global

// A from the threads' registers (computed in the loop: A-fragment layout,
// no shared operand) in a dot marked tile.mma_in_flight = 1: two groups of
// one k16 slice each. The second half's A (its multiplications) is computed
// after the first group's wait_group 1, which retires the previous
// iteration's second group, so no register a running group reads is
// written (PTX ISA: undefined). The first group is retired by a wait_group
// 1 that opens the next iteration (its accumulators, the loop's arguments,
// feed only this dot), before the first half's A is written again; all
// after the loop.
// CHECK-LABEL: llvm.func @register_a_in_flight
// CHECK:         llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK-COUNT-4: llvm.fmul {{.*}} : vector<2xf16>
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-NEXT:    wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}}, ${{[0-9]+}}, p, 1, 1, 1;
// CHECK-NOT:     wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK-COUNT-4: llvm.fmul {{.*}} : vector<2xf16>
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:     wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT:     wgmma.wait_group
// CHECK:         llvm.br
// CHECK:         llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// PTX-LABEL: .entry register_a_in_flight(
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: mul.f16x2
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NOT: wgmma.wait_group.sync.aligned 1;
// PTX: wgmma.wait_group.sync.aligned 0;

// The same A also read before the dot (a sum stored): its second half
// cannot be computed after a first group, so the product is one group,
// waited for at once (nothing of it stays in flight to overwrite).
// CHECK-LABEL: llvm.func @register_a_used_before
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:     wgmma.mma_async
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-NOT:     wgmma.wait_group.sync.aligned 1;
// CHECK:         llvm.return

func.func @wgmma(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>, tensor<64x32xf16, #blkA>
  %sb = tile.alloc_shared {tile.offset = 4096 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  tile.barrier
  %x = tile.shared_load %sa[%c0, %c0] : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>> -> tensor<64x32xf16, #mmaA>
  %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

func.func @misaligned(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8448 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 256 : i64} : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>, tensor<64x32xf16, #blkA>
  %sb = tile.alloc_shared {tile.offset = 5120 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  tile.barrier
  %x = tile.shared_load %sa[%c0, %c0] : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>> -> tensor<64x32xf16, #mmaA>
  %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

func.func @ring(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
  %sb = tile.alloc_shared {tile.offset = 8192 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %res:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %r = %c0, %w = %c1) -> (tensor<64x64xf32, #mmaC>, i32, i32) : i32 {
    tile.wait 0
    tile.barrier
    %x = tile.shared_load %sa[%r, %c0, %c0] : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>> -> tensor<64x32xf16, #mmaA>
    tile.copy_async %va[%c0, %k] -> %sa[%w, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
    %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
    %r1 = arith.addi %r, %c1 : i32
    %rw = arith.cmpi eq, %r1, %c2 : i32
    %rn = arith.select %rw, %c0, %r1 : i32
    %w1 = arith.addi %w, %c1 : i32
    %ww = arith.cmpi eq, %w1, %c2 : i32
    %wn = arith.select %ww, %c0, %w1 : i32
    scf.yield %d, %rn, %wn : tensor<64x64xf32, #mmaC>, i32, i32
  }
  tile.store %vc[%c0, %c0], %res#0 : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

func.func @ring_in_flight(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
  %sb = tile.alloc_shared {tile.offset = 8192 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %res:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %r = %c0, %w = %c1) -> (tensor<64x64xf32, #mmaC>, i32, i32) : i32 {
    tile.wait 0
    tile.barrier
    %x = tile.shared_load %sa[%r, %c0, %c0] : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>> -> tensor<64x32xf16, #mmaA>
    tile.copy_async %va[%c0, %k] -> %sa[%w, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
    %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
    %d = tile.dot %x, %y, %acc {tile.mma_in_flight = 1 : i64} : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
    %r1 = arith.addi %r, %c1 : i32
    %rw = arith.cmpi eq, %r1, %c2 : i32
    %rn = arith.select %rw, %c0, %r1 : i32
    %w1 = arith.addi %w, %c1 : i32
    %ww = arith.cmpi eq, %w1, %c2 : i32
    %wn = arith.select %ww, %c0, %w1 : i32
    scf.yield %d, %rn, %wn : tensor<64x64xf32, #mmaC>, i32, i32
  }
  tile.store %vc[%c0, %c0], %res#0 : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

func.func @register_a_in_flight(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
  %sb = tile.alloc_shared {tile.offset = 8192 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %half = arith.constant dense<0.5> : tensor<64x32xf16, #mmaA>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %res:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %r = %c0, %w = %c1) -> (tensor<64x64xf32, #mmaC>, i32, i32) : i32 {
    tile.wait 0
    tile.barrier
    %x0 = tile.shared_load %sa[%r, %c0, %c0] : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>> -> tensor<64x32xf16, #mmaA>
    %x = arith.mulf %x0, %half : tensor<64x32xf16, #mmaA>
    tile.copy_async %va[%c0, %k] -> %sa[%w, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
    %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
    %d = tile.dot %x, %y, %acc {tile.mma_in_flight = 1 : i64} : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
    %r1 = arith.addi %r, %c1 : i32
    %rw = arith.cmpi eq, %r1, %c2 : i32
    %rn = arith.select %rw, %c0, %r1 : i32
    %w1 = arith.addi %w, %c1 : i32
    %ww = arith.cmpi eq, %w1, %c2 : i32
    %wn = arith.select %ww, %c0, %w1 : i32
    scf.yield %d, %rn, %wn : tensor<64x64xf32, #mmaC>, i32, i32
  }
  tile.store %vc[%c0, %c0], %res#0 : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

func.func @register_a_used_before(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
  %sb = tile.alloc_shared {tile.offset = 8192 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %half = arith.constant dense<0.5> : tensor<64x32xf16, #mmaA>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %res:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %r = %c0, %w = %c1) -> (tensor<64x64xf32, #mmaC>, i32, i32) : i32 {
    tile.wait 0
    tile.barrier
    %x0 = tile.shared_load %sa[%r, %c0, %c0] : !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>> -> tensor<64x32xf16, #mmaA>
    %x = arith.mulf %x0, %half : tensor<64x32xf16, #mmaA>
    %u = arith.addf %x, %x : tensor<64x32xf16, #mmaA>
    tile.store %va[%c0, %c0], %u : !tile.view<?x?xf16>, tensor<64x32xf16, #mmaA>
    tile.copy_async %va[%c0, %k] -> %sa[%w, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
    %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
    %d = tile.dot %x, %y, %acc {tile.mma_in_flight = 1 : i64} : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
    %r1 = arith.addi %r, %c1 : i32
    %rw = arith.cmpi eq, %r1, %c2 : i32
    %rn = arith.select %rw, %c0, %r1 : i32
    %w1 = arith.addi %w, %c1 : i32
    %ww = arith.cmpi eq, %w1, %c2 : i32
    %wn = arith.select %ww, %c0, %w1 : i32
    scf.yield %d, %rn, %wn : tensor<64x64xf32, #mmaC>, i32, i32
  }
  tile.store %vc[%c0, %c0], %res#0 : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}
