// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s

// The addresses of a thread's vector groups in a global access
// (lib/Codegen/GPU/LowerMemory.cpp, prepareGlobal): one linear index per
// thread (one 64-bit multiply-add), every other group one add of a uniform
// step from the group before it, and one alignment test per dim with more
// than one group instead of one per group. gemm_f16's sm_80 epilogue spilled
// 84 bytes with a multiply and a test per group (16 of each).

// Rows 16 apart: a step of 16 rows of halves is a multiple of 16 bytes for
// any row stride, so only the first group's address is tested.
#rows16 = #tile.layout<local(4,1) * spatial(16,8) * local(1,8)>

// CHECK-LABEL: .entry store_rows_16_apart(
// CHECK:         mad.lo.s64
// CHECK-NOT:     mul.lo.s64
// CHECK-NOT:     mad.lo.s64
// CHECK:         mul.wide.u32 [[STEP:%rd[0-9]+]], %r{{[0-9]+}}, 32;
// CHECK-NEXT:    add.s64 [[P1:%rd[0-9]+]], [[P0:%rd[0-9]+]], [[STEP]];
// CHECK-NEXT:    add.s64 [[P2:%rd[0-9]+]], [[P1]], [[STEP]];
// CHECK-NEXT:    add.s64 [[P3:%rd[0-9]+]], [[P2]], [[STEP]];
// CHECK-NEXT:    and.b64 {{%rd[0-9]+}}, [[P0]], 15;
// CHECK-NOT:     and.b64
// CHECK:         st.global.v4.b32 [[[P0]]]
// CHECK-NEXT:    st.global.v4.b32 [[[P1]]]
// CHECK-NEXT:    st.global.v4.b32 [[[P2]]]
// CHECK-NEXT:    st.global.v4.b32 [[[P3]]]
// The edge path's elements are chained too: one row's eight halves at
// immediate offsets from its first.
// CHECK:         st.global.b16 [[[P0]]], 0x3C00;
// CHECK:         st.global.b16 [[[P0]]+2], 0x3C00;
func.func @store_rows_16_apart(%c: !tile.ptr<f16>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %c0 = arith.constant 0 : i32
  %m0 = arith.muli %pid, %c64 : i32
  %vc = tile.view %c(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %one = arith.constant 1.0 : f16
  %t = tile.splat %one : f16 -> tensor<64x64xf16, #rows16>
  tile.store %vc[%m0, %c0], %t : !tile.view<?x?xf16>, tensor<64x64xf16, #rows16>
  return
}

// Adjacent rows: the groups are all aligned only when a row is a multiple of
// 16 bytes, a run-time test of N x 16 bits next to the first group's.
#rows1 = #tile.layout<spatial(16,8) * local(4,8)>

// CHECK-LABEL: .entry store_adjacent_rows(
// CHECK:         mad.lo.s64
// CHECK-NOT:     mad.lo.s64
// CHECK:         and.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 15;
// CHECK-NEXT:    mul.wide.u32 [[ROW:%rd[0-9]+]], %r{{[0-9]+}}, 16;
// CHECK-NEXT:    and.b64 {{%rd[0-9]+}}, [[ROW]], 112;
// CHECK-COUNT-4: st.global.v4.b32
func.func @store_adjacent_rows(%c: !tile.ptr<f16>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %c0 = arith.constant 0 : i32
  %m0 = arith.muli %pid, %c64 : i32
  %vc = tile.view %c(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %one = arith.constant 1.0 : f16
  %t = tile.splat %one : f16 -> tensor<64x64xf16, #rows1>
  tile.store %vc[%m0, %c0], %t : !tile.view<?x?xf16>, tensor<64x64xf16, #rows1>
  return
}

// Sub-byte codes in 16-byte groups (32 x u4), rows 8 apart: the step test is
// on bits (8 rows x N x 4 bits, a multiple of 128 when N is a multiple of 4),
// and the first group's bit offset must be a whole byte.
#codes = #tile.layout<local(4,1) * spatial(8,4) * local(1,32)>

// CHECK-LABEL: .entry load_codes(
// CHECK:         mad.lo.s64
// CHECK-NOT:     mad.lo.s64
// CHECK:         mul.wide.u32 [[BITS:%rd[0-9]+]], %r{{[0-9]+}}, 32;
// CHECK:         and.b64 {{%rd[0-9]+}}, [[BITS]], 96;
// CHECK-COUNT-4: ld.global.v4.b32
func.func @load_codes(%x: !tile.ptr<i4>, %y: !tile.ptr<i4>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %pid = tile.program_id x : i32
  %c32 = arith.constant 32 : i32
  %c0 = arith.constant 0 : i32
  %m0 = arith.muli %pid, %c32 : i32
  %vx = tile.view %x(%M, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %vy = tile.view %y(%M, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %t = tile.load %vx[%m0, %c0] : !tile.view<?x?xi4> -> tensor<32x128xi4, #codes>
  tile.store %vy[%m0, %c0], %t : !tile.view<?x?xi4>, tensor<32x128xi4, #codes>
  return
}
