// RUN: tile-opt %s -split-input-file -tile-allocate-shared=target=sm_90a | FileCheck %s

// Two buffers alive at the same time get disjoint 128-byte-aligned ranges;
// a third one, allocated after both died, reuses offset 0. Sizes: 2x32x16
// f16 = 2048 bytes, 32x16 i4 = 256 bytes, 64x64 f32 = 16384 bytes. One
// barrier after the last use of the buffers it reuses keeps the third one's
// accesses from racing with other warps' reads of the first two.
// CHECK-LABEL: func.func @liveness
// CHECK-SAME: tile.shared_bytes = 16384 : i64
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x32x16xf16,
// CHECK: tile.alloc_shared {tile.offset = 2048 : i64} : !tile.shared<32x16xi4,
// CHECK: tile.shared_load %{{.*}} : !tile.shared<2x32x16xf16
// CHECK-NEXT: tile.shared_load %{{.*}} : !tile.shared<32x16xi4
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x64xf32,
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @liveness(%P: !tile.ptr<f16>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %v = tile.view %P(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %a = tile.alloc_shared : !tile.shared<2x32x16xf16>
  %b = tile.alloc_shared : !tile.shared<32x16xi4>
  tile.copy_async %v[%c0, %c0] -> %a[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x32x16xf16>
  tile.wait 0
  %t = tile.shared_load %a[%c0, %c0, %c0] : !tile.shared<2x32x16xf16> -> tensor<32x16xf16, #tile.layout<spatial(32,1) * local(1,16)>>
  %u = tile.shared_load %b[%c0, %c0] : !tile.shared<32x16xi4> -> tensor<32x16xi4, #tile.layout<spatial(32,1) * local(1,16)>>
  %c = tile.alloc_shared : !tile.shared<64x64xf32>
  %w = tile.shared_load %c[%c0, %c0] : !tile.shared<64x64xf32> -> tensor<64x64xf32, #tile.layout<spatial(32,1) * local(2,64)>>
  return
}

// -----

// A buffer stored row by row (8 f16 per thread, 16 bytes) and read by
// columns gets a swizzle; the lowering must address it through the layout.
// Without one, a warp reading one f16 per thread from rows 1024 bytes
// apart (4 columns) would fall into 2 of the 32 banks.
// CHECK-LABEL: func.func @swizzle
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x64xf16, #tile.shared_layout<swizzle({{[1-9]}},{{[0-9]+}},{{[0-9]+}}) o (64,64):(64,1)>>
// CHECK: tile.barrier
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @swizzle(%x: tensor<64x64xf16, #tile.layout<local(4,1) * spatial(16,8) * local(1,8)>>) -> tensor<64x64xf16, #tile.layout<local(1,4) * column_spatial(8,16) * local(8,1)>> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared : !tile.shared<64x64xf16>
  tile.shared_store %s[%c0, %c0], %x : !tile.shared<64x64xf16>, tensor<64x64xf16, #tile.layout<local(4,1) * spatial(16,8) * local(1,8)>>
  tile.barrier
  %y = tile.shared_load %s[%c0, %c0] : !tile.shared<64x64xf16> -> tensor<64x64xf16, #tile.layout<local(1,4) * column_spatial(8,16) * local(8,1)>>
  return %y : tensor<64x64xf16, #tile.layout<local(1,4) * column_spatial(8,16) * local(8,1)>>
}

// -----

// Scratch: a conversion across warps goes through shared memory; a
// register-only one (each thread keeps its elements) needs none; a
// reduction whose axis spans the warps needs warps x results x 4 bytes, one
// within a warp none. The ring (4096 bytes) is alive during the loop only,
// so the scratch after it reuses offset 0, after a barrier that follows the
// wait for the ring's last async copies (other threads' copies may land
// until each of them has waited).
// CHECK-LABEL: func.func @scratch
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x32x32xf16
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_bytes = 2048 : i64, tile.scratch_offset = 4096 : i64} : tensor<32x32xf16
// CHECK: tile.wait 0
// CHECK-NEXT: tile.barrier
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_bytes = 2048 : i64, tile.scratch_offset = 0 : i64} : tensor<32x32xf16
// CHECK-NOT: tile.scratch
// CHECK: tile.convert_layout %{{.*}} : tensor<32x32xf16, #tile.layout<spatial(16,4) * local(2,8)>> -> tensor<32x32xf16, #tile.layout<spatial(16,4) * column_local(2,8)>>
// CHECK: tile.reduce sum %{{.*}} axis = 0 {tile.scratch_bytes = 256 : i64, tile.scratch_offset = 0 : i64}
// CHECK: tile.reduce sum %{{.*}} axis = 1 :
func.func @scratch(%P: !tile.ptr<f16>, %N: i32) attributes {tile.kernel, tile.warps = 2 : i32, tile.warp_size = 32 : i32} {
  %v = tile.view %P(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.alloc_shared : !tile.shared<2x32x32xf16>
  scf.for %i = %c0 to %N step %c1 : i32 {
    tile.copy_async %v[%c0, %i] -> %ring[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !tile.shared<2x32x32xf16>
    %t = tile.shared_load %ring[%c0, %c0, %c0] : !tile.shared<2x32x32xf16> -> tensor<32x32xf16, #tile.layout<spatial(32,2) * local(1,16)>>
    %u = tile.convert_layout %t : tensor<32x32xf16, #tile.layout<spatial(32,2) * local(1,16)>> -> tensor<32x32xf16, #tile.layout<column_spatial(32,2) * local(1,16)>>
    scf.yield
  }
  tile.wait 0
  %x = tile.load %v[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16, #tile.layout<spatial(32,2) * local(1,16)>>
  %y = tile.convert_layout %x : tensor<32x32xf16, #tile.layout<spatial(32,2) * local(1,16)>> -> tensor<32x32xf16, #tile.layout<column_spatial(32,2) * local(1,16)>>
  %x2 = tile.load %v[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16, #tile.layout<spatial(16,4) * local(2,8)>>
  %z = tile.convert_layout %x2 : tensor<32x32xf16, #tile.layout<spatial(16,4) * local(2,8)>> -> tensor<32x32xf16, #tile.layout<spatial(16,4) * column_local(2,8)>>
  %f = tile.cast %x : tensor<32x32xf16, #tile.layout<spatial(32,2) * local(1,16)>> -> tensor<32x32xf32, #tile.layout<spatial(32,2) * local(1,16)>>
  %r0 = tile.reduce sum %f axis = 0 : tensor<32x32xf32, #tile.layout<spatial(32,2) * local(1,16)>> -> tensor<32xf32, #tile.layout<replicate(32) * spatial(2) * local(16)>>
  %r1 = tile.reduce sum %f axis = 1 : tensor<32x32xf32, #tile.layout<spatial(32,2) * local(1,16)>> -> tensor<32xf32, #tile.layout<spatial(32) * replicate(2)>>
  return
}

// -----

// Two buffers alive one after the other inside a loop body share bytes:
// each iteration's second buffer reuses the first's bytes, and the next
// iteration's first buffer reuses the second's, so each gets a barrier
// after its last use.
// CHECK-LABEL: func.func @loop_reuse
// CHECK: scf.for
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<32x32xf16
// CHECK: tile.shared_load %{{.*}} : !tile.shared<32x32xf16
// CHECK-NEXT: tile.barrier
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<32x32xf32
// CHECK: tile.shared_load %{{.*}} : !tile.shared<32x32xf32
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: }
func.func @loop_reuse(%x: tensor<32x32xf16, #tile.layout<spatial(32,1) * local(1,32)>>, %y: tensor<32x32xf32, #tile.layout<spatial(32,1) * local(1,32)>>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %N step %c1 : i32 {
    %a = tile.alloc_shared : !tile.shared<32x32xf16>
    tile.shared_store %a[%c0, %c0], %x : !tile.shared<32x32xf16>, tensor<32x32xf16, #tile.layout<spatial(32,1) * local(1,32)>>
    tile.barrier
    %u = tile.shared_load %a[%c0, %c0] : !tile.shared<32x32xf16> -> tensor<32x32xf16, #tile.layout<spatial(32,1) * local(1,32)>>
    %b = tile.alloc_shared : !tile.shared<32x32xf32>
    tile.shared_store %b[%c0, %c0], %y : !tile.shared<32x32xf32>, tensor<32x32xf32, #tile.layout<spatial(32,1) * local(1,32)>>
    tile.barrier
    %v = tile.shared_load %b[%c0, %c0] : !tile.shared<32x32xf32> -> tensor<32x32xf32, #tile.layout<spatial(32,1) * local(1,32)>>
    scf.yield
  }
  return
}

// -----

// A staged operand written in runs down its columns (the transposed
// dequantized weight of gemm_decode's BM = 8 path: 32 rows per thread) and
// read in the mma.sync A layout: laid out column-major, the stores are
// 16-byte vectors (modeled 128 + 256 wavefronts against 512 + 128
// row-major).
// CHECK-LABEL: func.func @column_major_staging
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x128xf16, #tile.shared_layout<swizzle({{[0-9]+}},{{[0-9]+}},{{[0-9]+}}) o (64,128):(1,64)>>
func.func @column_major_staging(%x: tensor<64x128xf16, #tile.layout<local(1,2) * column_spatial(2,64) * local(32,1)>>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared : !tile.shared<64x128xf16>
  tile.shared_store %s[%c0, %c0], %x : !tile.shared<64x128xf16>, tensor<64x128xf16, #tile.layout<local(1,2) * column_spatial(2,64) * local(32,1)>>
  tile.barrier
  %a = tile.shared_load %s[%c0, %c0] : !tile.shared<64x128xf16> -> tensor<64x128xf16, #tile.layout<local(1,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
  return
}

// -----

// The same tile written in runs along its rows stays row-major.
// CHECK-LABEL: func.func @row_major_staging
// CHECK: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<64x128xf16, #tile.shared_layout<{{.*}}(64,128):(128,1)>>
func.func @row_major_staging(%x: tensor<64x128xf16, #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared : !tile.shared<64x128xf16>
  tile.shared_store %s[%c0, %c0], %x : !tile.shared<64x128xf16>, tensor<64x128xf16, #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>>
  tile.barrier
  %a = tile.shared_load %s[%c0, %c0] : !tile.shared<64x128xf16> -> tensor<64x128xf16, #tile.layout<local(1,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
  return
}
