// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// gemm_f16: a 64x64 f32 accumulator over 4 warps (one 16-row slab each),
// K in steps of 32. A and B are loaded coalesced (8 f16 = 16 bytes per
// access) and moved to the mma.sync m16n8k16 operand layouts through shared
// memory.

#blkA = #tile.layout<local(2,1) * spatial(32,4) * local(1,8)>
#blkB = #tile.layout<local(2,1) * spatial(16,8) * local(1,8)>
#mmaA = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,2)>
#mmaB = #tile.layout<replicate(4) * local(2,8) * local(2,1) * column_spatial(4,8) * local(2,1)>
#mmaC = #tile.layout<spatial(4,1) * local(1,8) * local(2,1) * spatial(8,4) * local(1,2)>

// CHECK-LABEL: llvm.func @gemm_f16
// CHECK-SAME:    nvvm.reqntid = array<i32: 128>
// The scratch of the two conversions: the larger one, padded to 16 bytes.
// CHECK-SAME:    tile_dynamic_shared_bytes = 4096 : i64
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:         llvm.store %{{.*}} : vector<{{[0-9]+}}xf16>, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> vector<{{[0-9]+}}xf16>
// 1 m-block x 8 n-blocks x 2 k-blocks per warp and iteration.
// CHECK-COUNT-16: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<1>

// PTX-LABEL: .entry gemm_f16(
// PTX:       ld.global.v4.b32
// PTX:       bar.sync 0
// PTX:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @gemm_f16(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f16>,
                    %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id y : i32
  %pn = tile.program_id x : i32
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mmaC>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #mmaC>) : i32 {
    %a = tile.load %va[%m0, %k] : !tile.view<?x?xf16> -> tensor<64x32xf16, #blkA>
    %b = tile.load %vb[%k, %n0] : !tile.view<?x?xf16> -> tensor<32x64xf16, #blkB>
    %am = tile.convert_layout %a : tensor<64x32xf16, #blkA> -> tensor<64x32xf16, #mmaA>
    %bm = tile.convert_layout %b : tensor<32x64xf16, #blkB> -> tensor<32x64xf16, #mmaB>
    %d = tile.dot %am, %bm, %acc0 : tensor<64x32xf16, #mmaA>, tensor<32x64xf16, #mmaB>, tensor<64x64xf32, #mmaC> -> tensor<64x64xf32, #mmaC>
    scf.yield %d : tensor<64x64xf32, #mmaC>
  }
  %h = tile.cast %acc : tensor<64x64xf32, #mmaC> -> tensor<64x64xf16, #mmaC>
  tile.store %vc[%m0, %n0], %h : !tile.view<?x?xf16>, tensor<64x64xf16, #mmaC>
  return
}

// Operands loaded directly in the MMA layouts (one warp, one atom each):
// bf16 -> f32 on m16n8k16 and i8 -> i32 on m16n8k32 (wrapping).

#a16 = #tile.layout<column_local(2,2) * spatial(8,4) * local(1,2)>
#b16 = #tile.layout<local(2,1) * column_spatial(4,8) * local(2,1)>
#c16 = #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>

// CHECK-LABEL: llvm.func @dot_bf16
// CHECK:         nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// PTX-LABEL: .entry dot_bf16(
// PTX:       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @dot_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A() : !tile.ptr<bf16> -> !tile.view<16x16xbf16>
  %vb = tile.view %B() : !tile.ptr<bf16> -> !tile.view<16x8xbf16>
  %vc = tile.view %C() : !tile.ptr<f32> -> !tile.view<16x8xf32>
  %a = tile.load %va[%c0, %c0] : !tile.view<16x16xbf16> -> tensor<16x16xbf16, #a16>
  %b = tile.load %vb[%c0, %c0] : !tile.view<16x8xbf16> -> tensor<16x8xbf16, #b16>
  %z = arith.constant dense<0.0> : tensor<16x8xf32, #c16>
  %d = tile.dot %a, %b, %z : tensor<16x16xbf16, #a16>, tensor<16x8xbf16, #b16>, tensor<16x8xf32, #c16> -> tensor<16x8xf32, #c16>
  tile.store %vc[%c0, %c0], %d : !tile.view<16x8xf32>, tensor<16x8xf32, #c16>
  return
}

#a8 = #tile.layout<column_local(2,2) * spatial(8,4) * local(1,4)>
#b8 = #tile.layout<local(2,1) * column_spatial(4,8) * local(4,1)>
#c8 = #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>

// CHECK-LABEL: llvm.func @dot_i8
// CHECK:         nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// PTX-LABEL: .entry dot_i8(
// PTX:       mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func @dot_i8(%A: !tile.ptr<i8>, %B: !tile.ptr<i8>, %C: !tile.ptr<i32>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A() : !tile.ptr<i8> -> !tile.view<16x32xi8>
  %vb = tile.view %B() : !tile.ptr<i8> -> !tile.view<32x8xi8>
  %vc = tile.view %C() : !tile.ptr<i32> -> !tile.view<16x8xi32>
  %a = tile.load %va[%c0, %c0] : !tile.view<16x32xi8> -> tensor<16x32xi8, #a8>
  %b = tile.load %vb[%c0, %c0] : !tile.view<32x8xi8> -> tensor<32x8xi8, #b8>
  %z = arith.constant dense<0> : tensor<16x8xi32, #c8>
  %d = tile.dot %a, %b, %z : tensor<16x32xi8, #a8>, tensor<32x8xi8, #b8>, tensor<16x8xi32, #c8> -> tensor<16x8xi32, #c8>
  tile.store %vc[%c0, %c0], %d : !tile.view<16x8xi32>, tensor<16x8xi32, #c8>
  return
}
