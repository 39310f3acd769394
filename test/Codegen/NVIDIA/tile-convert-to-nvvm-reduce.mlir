// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// softmax over rows of 1024 f16 with 4 rows per program.

// The extern dynamic shared array, declared once per module (aligned to
// 1024 bytes on sm_90a, for the swizzle patterns of wgmma operands).
// CHECK: llvm.mlir.global external @__tile_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

// One warp per row: the row reductions are in-thread then 5 butterflies.
#row = #tile.layout<local(1,4) * spatial(4,32) * local(1,8)>
#rowR = #tile.layout<spatial(4) * replicate(32)>
#rowR2 = #tile.layout<spatial(4,1) * replicate(32)>

// CHECK-LABEL: llvm.func @softmax_warp_rows
// CHECK-SAME:    tile_dynamic_shared_bytes = 0 : i64
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK:         llvm.intr.maximum
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>

// PTX-LABEL: .entry softmax_warp_rows(
// PTX:       ld.global.v4.b32
// PTX:       shfl.sync.bfly.b32
// PTX:       ex2.approx.ftz.f32
// PTX:       st.global.v4.b32
func.func @softmax_warp_rows(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %pid = tile.program_id x : i32
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %r0 = arith.muli %pid, %c4 : i32
  %vx = tile.view %x(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vy = tile.view %y(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %t16 = tile.load %vx[%r0, %c0] padding(0xFC00 : f16) : !tile.view<?x?xf16> -> tensor<4x1024xf16, #row>
  %t = tile.cast %t16 : tensor<4x1024xf16, #row> -> tensor<4x1024xf32, #row>
  %m = tile.reduce max %t axis = 1 : tensor<4x1024xf32, #row> -> tensor<4xf32, #rowR>
  %me = tile.expand_dims %m axis = 1 : tensor<4xf32, #rowR> -> tensor<4x1xf32, #rowR2>
  %mb = tile.broadcast %me : tensor<4x1xf32, #rowR2> -> tensor<4x1024xf32, #row>
  %d = arith.subf %t, %mb : tensor<4x1024xf32, #row>
  %e = math.exp %d : tensor<4x1024xf32, #row>
  %s = tile.reduce sum %e axis = 1 : tensor<4x1024xf32, #row> -> tensor<4xf32, #rowR>
  %se = tile.expand_dims %s axis = 1 : tensor<4xf32, #rowR> -> tensor<4x1xf32, #rowR2>
  %sb = tile.broadcast %se : tensor<4x1xf32, #rowR2> -> tensor<4x1024xf32, #row>
  %q = arith.divf %e, %sb : tensor<4x1024xf32, #row>
  %q16 = tile.cast %q : tensor<4x1024xf32, #row> -> tensor<4x1024xf16, #row>
  tile.store %vy[%r0, %c0], %q16 : !tile.view<?x?xf16>, tensor<4x1024xf16, #row>
  return
}

// The 4 warps split the columns: after 5 butterflies the partial sums of
// the warps meet in shared memory (scratch after the kernel's 0 bytes:
// 4 warps x 4 rows x 4 bytes).
#col = #tile.layout<local(4,1) * spatial(1,128) * local(1,8)>
#colR = #tile.layout<local(4) * replicate(128)>

// CHECK-LABEL: llvm.func @row_sums_across_warps
// CHECK-SAME:    tile_dynamic_shared_bytes = 64 : i64
// CHECK:         llvm.mlir.addressof @__tile_dynamic_smem : !llvm.ptr<3>
// CHECK-COUNT-20: nvvm.shfl.sync bfly
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:         nvvm.barrier0

// PTX-LABEL: .entry row_sums_across_warps(
// PTX:       shfl.sync.bfly.b32
// PTX:       st.shared.b32
// PTX:       bar.sync 0
// PTX:       ld.shared.b32
func.func @row_sums_across_warps(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %M: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %pid = tile.program_id x : i32
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %r0 = arith.muli %pid, %c4 : i32
  %vx = tile.view %x(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vy = tile.view %y(%M) : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %vx[%r0, %c0] : !tile.view<?x?xf32> -> tensor<4x1024xf32, #col>
  %s = tile.reduce sum %t axis = 1 : tensor<4x1024xf32, #col> -> tensor<4xf32, #colR>
  tile.store %vy[%r0], %s : !tile.view<?xf32>, tensor<4xf32, #colR>
  return
}
