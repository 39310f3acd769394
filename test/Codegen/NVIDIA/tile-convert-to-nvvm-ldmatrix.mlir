// RUN: tile-opt -tile-convert-to-nvvm="target=sm_80" %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm="target=sm_80" %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// Dot operands read from shared memory (operand fusion): the tile.shared_load
// feeding a tile.dot is not lowered on its own; the dot reads one k block of
// each operand at a time, right before its mma.sync instructions (k blocks
// outer, accumulator atoms inner), with ldmatrix when the buffer's layout
// has 16-byte rows that the swizzle keeps whole.

#blkA = #tile.layout<local(2,1) * spatial(32,4) * local(1,8)>
#blkB = #tile.layout<local(2,1) * spatial(16,8) * local(1,8)>
#blkBt = #tile.layout<local(4,1) * spatial(16,4) * local(1,8)>
#mmaA = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,2)>
#mmaB = #tile.layout<replicate(4) * local(2,8) * local(2,1) * column_spatial(4,8) * local(2,1)>
#mmaBt = #tile.layout<replicate(4) * column_local(8,2) * local(1,2) * spatial(8,4) * local(1,2)>
#mmaC = #tile.layout<spatial(4,1) * local(1,8) * local(2,1) * spatial(8,4) * local(1,2)>
#i8blk = #tile.layout<local(2,1) * spatial(32,4) * local(1,16)>
#i8A = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,4)>
#i8B = #tile.layout<replicate(4) * local(2,8) * local(2,1) * column_spatial(4,8) * local(4,1)>
#i8Bt = #tile.layout<replicate(4) * column_local(8,2) * local(1,2) * spatial(8,4) * local(1,4)>
#wblk = #tile.layout<local(16,1) * spatial(4,32) * local(1,8)>
#ablk = #tile.layout<local(2,1) * spatial(4,32) * local(1,8)>
#wmma = #tile.layout<spatial(4,1) * local(1,16) * column_local(2,2) * spatial(8,4) * local(1,2)>
#atmma = #tile.layout<replicate(4) * column_local(1,16) * local(1,2) * spatial(8,4) * local(1,2)>
#amma = #tile.layout<replicate(4) * local(16,1) * local(2,1) * column_spatial(4,8) * local(2,1)>
#cmma = #tile.layout<spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
#ws = #tile.shared_layout<swizzle(3,3,3) o (64,256):(256,1)>
#as = #tile.shared_layout<swizzle(3,3,3) o (8,256):(256,1)>
#wblk8 = #tile.layout<local(8,1) * spatial(8,16) * local(1,8)>
#ablk8 = #tile.layout<spatial(8,16) * local(1,8)>
#wmma8 = #tile.layout<spatial(4,1) * local(1,8) * column_local(2,2) * spatial(8,4) * local(1,2)>
#atmma8 = #tile.layout<replicate(4) * column_local(1,8) * local(1,2) * spatial(8,4) * local(1,2)>
#amma8 = #tile.layout<replicate(4) * local(8,1) * local(2,1) * column_spatial(4,8) * local(2,1)>
#cmma8 = #tile.layout<spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
#ws8 = #tile.shared_layout<swizzle(3,3,3) o (64,128):(128,1)>
#as8 = #tile.shared_layout<swizzle(3,3,3) o (8,128):(128,1)>

// A row-major [M, K]: ldmatrix.x4 per 16x16 atom. B row-major [K, N]: each
// 16x8 atom is two 8x8 matrices stored transposed to the fragment, so
// ldmatrix.x4.trans loads two atoms. Per k block: the A load, then per pair
// of B atoms one B load and the 2 mma.sync that use it (8 per k block);
// the second k block continues the same accumulators.
// CHECK-LABEL: llvm.func @row_major
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         llvm.return
// PTX-LABEL: .entry row_major(
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @row_major(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
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

// B as the transpose of a row-major [N, K] buffer: k is contiguous, which is
// the fragment's own row order, so no .trans. The reshape to a leading unit
// dimension and back is looked through as well.
// CHECK-LABEL: llvm.func @b_k_major
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-NOT:     mma_layout<col>, num
// CHECK:         llvm.return
// PTX-LABEL: .entry b_k_major(
// PTX-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// PTX: ret;

func.func @b_k_major(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>, tensor<64x32xf16, #blkA>
  %sb = tile.alloc_shared {tile.offset = 4096 : i64} : !tile.shared<1x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (1,64,32):(2048,32,1)>>
  %vbt = tile.view %B(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.load %vbt[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
  %b3 = tile.reshape %b : tensor<64x32xf16, #blkA> -> tensor<1x64x32xf16, #tile.layout<local(1,2,1) * spatial(1,32,4) * local(1,1,8)>>
  tile.shared_store %sb[%c0, %c0, %c0], %b3 : !tile.shared<1x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (1,64,32):(2048,32,1)>>, tensor<1x64x32xf16, #tile.layout<local(1,2,1) * spatial(1,32,4) * local(1,1,8)>>
  tile.barrier
  %x = tile.shared_load %sa[%c0, %c0] : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>> -> tensor<64x32xf16, #mmaA>
  %y3 = tile.shared_load %sb[%c0, %c0, %c0] : !tile.shared<1x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (1,64,32):(2048,32,1)>> -> tensor<1x64x32xf16, #tile.layout<replicate(4) * column_local(1,8,2) * local(1,1,2) * spatial(1,8,4) * local(1,1,2)>>
  %y2 = tile.reshape %y3 : tensor<1x64x32xf16, #tile.layout<replicate(4) * column_local(1,8,2) * local(1,1,2) * spatial(1,8,4) * local(1,1,2)>> -> tensor<64x32xf16, #mmaBt>
  %y = tile.trans %y2 : tensor<64x32xf16, #mmaBt> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

// A with rows padded to 36 elements: row starts are not 16-byte aligned, so
// A is read with 32-bit vector loads per k block (still fused: the loads of
// the second k block follow the first block's mma.sync); B keeps ldmatrix.
// CHECK-LABEL: llvm.func @padded_a
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xf16>
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xf16>
// CHECK-NOT:     mma_layout<row>, num
// CHECK:         llvm.return

func.func @padded_a(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 9216 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(36,1)>>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(36,1)>>, tensor<64x32xf16, #blkA>
  %sb = tile.alloc_shared {tile.offset = 4608 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  tile.barrier
  %x = tile.shared_load %sa[%c0, %c0] : !tile.shared<64x32xf16, #tile.shared_layout<(64,32):(36,1)>> -> tensor<64x32xf16, #mmaA>
  %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

// A store into A's buffer between the shared_load and the dot: A must be
// read where the shared_load is (no fusion, the plain vector loads come
// before the store); B is still fused.
// CHECK-LABEL: llvm.func @clobbered
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> vector<2xf16>
// CHECK:         llvm.store %{{.*}} : vector<8xf16>, !llvm.ptr<3>
// CHECK-NOT:     mma_layout<row>, num
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>
// CHECK:         llvm.return

func.func @clobbered(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
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
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>, tensor<64x32xf16, #blkA>
  %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

// A two-slot ring: the read of slot %r may move past the copy into slot %w
// (the two indices start at 0 and 1 and both step by one modulo 2, so they
// never meet); with %w replaced by %r the copy may overwrite what is read,
// and the read stays in place.
// CHECK-LABEL: llvm.func @ring
// CHECK:         nvvm.cp.async.shared.global
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>
// CHECK-LABEL: llvm.func @ring_same_slot
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> vector<2xf16>
// CHECK:         nvvm.cp.async.shared.global
// CHECK-NOT:     mma_layout<row>, num
// CHECK:         llvm.return

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

func.func @ring_same_slot(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
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
    tile.copy_async %va[%c0, %k] -> %sa[%r, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>
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

// 8-bit operands (mma.sync m16n8k32): A row-major and B from a [N, K] buffer
// (k contiguous) both use the b16 ldmatrix without .trans: a 16-byte row is
// 16 int8 elements and each lane gets 4 consecutive ones.
// CHECK-LABEL: llvm.func @int8
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 32>
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 32>
// CHECK-NOT:     mma_layout<col>, num
// CHECK:         llvm.return
// PTX-LABEL: .entry int8(
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32

func.func @int8(%A: !tile.ptr<i8>, %B: !tile.ptr<i8>, %C: !tile.ptr<i32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %vb = tile.view %B(%K, %N) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %vc = tile.view %C(%M, %N) : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %sa = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>>
  %sb = tile.alloc_shared {tile.offset = 4096 : i64} : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>>
  %vbt = tile.view %B(%N, %K) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8, #i8blk>
  %b = tile.load %vbt[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8, #i8blk>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>>, tensor<64x64xi8, #i8blk>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>>, tensor<64x64xi8, #i8blk>
  tile.barrier
  %x = tile.shared_load %sa[%c0, %c0] : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>> -> tensor<64x64xi8, #i8A>
  %y0 = tile.shared_load %sb[%c0, %c0] : !tile.shared<64x64xi8, #tile.shared_layout<swizzle(2,4,3) o (64,64):(64,1)>> -> tensor<64x64xi8, #i8Bt>
  %y = tile.trans %y0 : tensor<64x64xi8, #i8Bt> -> tensor<64x64xi8, #i8B>
  %zero = arith.constant dense<0> : tensor<64x64xi32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x64xi8, #i8A>, tensor<64x64xi8, #i8B>, tensor<64x64xi32, #mmaC> -> tensor<64x64xi32, #mmaC>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xi32>, tensor<64x64xi32, #mmaC>
  return
}

// x + dot(a, b, 0) (attention's rescaled accumulator plus P V): the add is
// applied to each group of accumulator atoms as soon as their k loop ends,
// so the product never holds all its registers. Groups are two column
// blocks (one B ldmatrix.x4.trans per k block); A stays in registers.
// CHECK-LABEL: llvm.func @epilogue
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-COUNT-8: llvm.fadd
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK:         nvvm.ldmatrix
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-COUNT-8: llvm.fadd
// CHECK:         llvm.return
func.func @epilogue(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sb = tile.alloc_shared {tile.offset = 4096 : i64} : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
  tile.shared_store %sb[%c0, %c0], %b : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>>, tensor<32x64xf16, #blkB>
  tile.barrier
  %x = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16, #mmaA>
  %old = tile.load %vc[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32, #mmaC>
  %y = tile.shared_load %sb[%c0, %c0] : !tile.shared<32x64xf16, #tile.shared_layout<swizzle(3,3,3) o (32,64):(64,1)>> -> tensor<32x64xf16, #mmaB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %d = tile.dot %x, %y, %zero : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
  %s = arith.addf %old, %d : tensor<64x64xf32, #mmaC>
  tile.store %vc[%c0, %c0], %s : !tile.view<?x?xf32>, tensor<64x64xf32, #mmaC>
  return
}

// A B operand with one atom per k block (the 8 tokens of a swapped decode
// GEMM, B = A^T read k-contiguous): two k blocks' B atoms come from one
// ldmatrix.x4, loaded with the first k block's W atom; the second k block
// loads only its W atom. 16 k blocks: 16 W loads and 8 B loads, all .x4.
// CHECK-LABEL: llvm.func @one_b_atom_per_k
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK-COUNT-18: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         llvm.return
// PTX-LABEL: .entry one_b_atom_per_k(
// PTX-COUNT-24: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT: ldmatrix
// PTX: ret;

func.func @one_b_atom_per_k(%A: !tile.ptr<f16>, %W: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 36864 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %W(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%N, %M) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x256xf16, #ws>
  %w = tile.load %vw[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x256xf16, #wblk>
  tile.shared_store %sw[%c0, %c0], %w : !tile.shared<64x256xf16, #ws>, tensor<64x256xf16, #wblk>
  %sa = tile.alloc_shared {tile.offset = 32768 : i64} : !tile.shared<8x256xf16, #as>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<8x256xf16, #ablk>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<8x256xf16, #as>, tensor<8x256xf16, #ablk>
  tile.barrier
  %x = tile.shared_load %sw[%c0, %c0] : !tile.shared<64x256xf16, #ws> -> tensor<64x256xf16, #wmma>
  %yt = tile.shared_load %sa[%c0, %c0] : !tile.shared<8x256xf16, #as> -> tensor<8x256xf16, #atmma>
  %y = tile.trans %yt : tensor<8x256xf16, #atmma> -> tensor<256x8xf16, #amma>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32, #cmma>
  %d = tile.dot %x, %y, %zero : tensor<64x256xf16, #wmma>, tensor<256x8xf16, #amma>, tensor<64x8xf32, #cmma> -> tensor<64x8xf32, #cmma>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x8xf32, #cmma>
  return
}

// The same product over 8 k blocks keeps one .x2 per k block for B (at 8,
// ptxas settled on fewer registers for the decode kernels and recomputed
// their copy addresses in the loop).
// CHECK-LABEL: llvm.func @one_b_atom_per_k_short
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 2 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK:         nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<row>, num = 2 : i32
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.mma.sync
// CHECK:         llvm.return
// PTX-LABEL: .entry one_b_atom_per_k_short(
// PTX-COUNT-8: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX: ret;

func.func @one_b_atom_per_k_short(%A: !tile.ptr<f16>, %W: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 18432 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %W(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%N, %M) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x128xf16, #ws8>
  %w = tile.load %vw[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16, #wblk8>
  tile.shared_store %sw[%c0, %c0], %w : !tile.shared<64x128xf16, #ws8>, tensor<64x128xf16, #wblk8>
  %sa = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<8x128xf16, #as8>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<8x128xf16, #ablk8>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<8x128xf16, #as8>, tensor<8x128xf16, #ablk8>
  tile.barrier
  %x = tile.shared_load %sw[%c0, %c0] : !tile.shared<64x128xf16, #ws8> -> tensor<64x128xf16, #wmma8>
  %yt = tile.shared_load %sa[%c0, %c0] : !tile.shared<8x128xf16, #as8> -> tensor<8x128xf16, #atmma8>
  %y = tile.trans %yt : tensor<8x128xf16, #atmma8> -> tensor<128x8xf16, #amma8>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32, #cmma8>
  %d = tile.dot %x, %y, %zero : tensor<64x128xf16, #wmma8>, tensor<128x8xf16, #amma8>, tensor<64x8xf32, #cmma8> -> tensor<64x8xf32, #cmma8>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x8xf32, #cmma8>
  return
}

// A shared_load read by two dots (both operands here; CSE gives such
// loads one renaming chain for all its readers): each dot reads its
// fragments with its own matrix loads, 2 x (8 W .x4 + 8 B .x2), and no
// register copy of the buffer is made.
// CHECK-LABEL: llvm.func @two_dots_one_load
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK-COUNT-32: nvvm.ldmatrix
// CHECK-NOT:     nvvm.ldmatrix
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK:         llvm.return

func.func @two_dots_one_load(%A: !tile.ptr<f16>, %W: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 18432 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %W(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%N, %M) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x128xf16, #ws8>
  %w = tile.load %vw[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16, #wblk8>
  tile.shared_store %sw[%c0, %c0], %w : !tile.shared<64x128xf16, #ws8>, tensor<64x128xf16, #wblk8>
  %sa = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<8x128xf16, #as8>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<8x128xf16, #ablk8>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<8x128xf16, #as8>, tensor<8x128xf16, #ablk8>
  tile.barrier
  %x = tile.shared_load %sw[%c0, %c0] : !tile.shared<64x128xf16, #ws8> -> tensor<64x128xf16, #wmma8>
  %yt = tile.shared_load %sa[%c0, %c0] : !tile.shared<8x128xf16, #as8> -> tensor<8x128xf16, #atmma8>
  %y = tile.trans %yt : tensor<8x128xf16, #atmma8> -> tensor<128x8xf16, #amma8>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32, #cmma8>
  %d = tile.dot %x, %y, %zero : tensor<64x128xf16, #wmma8>, tensor<128x8xf16, #amma8>, tensor<64x8xf32, #cmma8> -> tensor<64x8xf32, #cmma8>
  %e = tile.dot %x, %y, %d : tensor<64x128xf16, #wmma8>, tensor<128x8xf16, #amma8>, tensor<64x8xf32, #cmma8> -> tensor<64x8xf32, #cmma8>
  tile.store %vc[%c0, %c0], %e : !tile.view<?x?xf32>, tensor<64x8xf32, #cmma8>
  return
}

// W's load also feeds a store: W is read once into registers (vector
// loads) for both; the dot's B operand is still fused (its .x2 loads).
// CHECK-LABEL: llvm.func @load_also_stored
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> vector<2xf16>
// CHECK-NOT:     num = 4
// CHECK:         nvvm.ldmatrix %{{.*}} num = 2 : i32
// CHECK-NOT:     num = 4
// CHECK:         llvm.return

func.func @load_also_stored(%A: !tile.ptr<f16>, %W: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 18432 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %W(%N, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%N, %M) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %sw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x128xf16, #ws8>
  %w = tile.load %vw[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16, #wblk8>
  tile.shared_store %sw[%c0, %c0], %w : !tile.shared<64x128xf16, #ws8>, tensor<64x128xf16, #wblk8>
  %sa = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<8x128xf16, #as8>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<8x128xf16, #ablk8>
  tile.shared_store %sa[%c0, %c0], %a : !tile.shared<8x128xf16, #as8>, tensor<8x128xf16, #ablk8>
  tile.barrier
  %x = tile.shared_load %sw[%c0, %c0] : !tile.shared<64x128xf16, #ws8> -> tensor<64x128xf16, #wmma8>
  %yt = tile.shared_load %sa[%c0, %c0] : !tile.shared<8x128xf16, #as8> -> tensor<8x128xf16, #atmma8>
  %y = tile.trans %yt : tensor<8x128xf16, #atmma8> -> tensor<128x8xf16, #amma8>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32, #cmma8>
  %d = tile.dot %x, %y, %zero : tensor<64x128xf16, #wmma8>, tensor<128x8xf16, #amma8>, tensor<64x8xf32, #cmma8> -> tensor<64x8xf32, #cmma8>
  tile.store %vc[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<64x8xf32, #cmma8>
  tile.store %vw[%c0, %c0], %x : !tile.view<?x?xf16>, tensor<64x128xf16, #wmma8>
  return
}
