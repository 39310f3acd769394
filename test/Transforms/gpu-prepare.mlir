// RUN: tile-opt %s -tile-gpu-prepare=target=sm_80 | FileCheck %s
// RUN: tile-opt %s -tile-gpu-prepare=target=sm_90a | FileCheck %s --check-prefix=WG

// The whole preparation of a pipelined GEMM (what the NVVM lowering
// receives; sm_80, mma.sync): every tile has a layout, the loads became a 3-stage cp.async
// ring read straight into the mma.sync fragment layouts (no conversion left
// in the loop), the ring has a swizzle and offset, and the epilogue's
// conversion reuses the dead ring's shared memory as scratch.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: tile.shared_bytes = 49152 : i64
// CHECK-SAME: tile.warp_size = 32 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<3x128x32xf16, #tile.shared_layout<swizzle(
// CHECK: %[[RB:.*]] = tile.alloc_shared {tile.offset = 24576 : i64} : !tile.shared<3x32x128xf16, #tile.shared_layout<swizzle(
// CHECK-COUNT-4: tile.copy_async
// CHECK: scf.for
// CHECK-NEXT: tile.wait 2
// CHECK-NEXT: tile.barrier
// CHECK: tile.shared_load %[[RA]]{{.*}} -> tensor<128x32xf16, #tile.layout<local(4,4) * spatial(2,1) * replicate(2) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: tile.shared_load %[[RB]]{{.*}} -> tensor<32x128xf16, #tile.layout<local(2,8) * local(2,1) * replicate(2) * column_spatial(4,16) * local(2,1)>>
// CHECK-COUNT-2: tile.copy_async
// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot
// CHECK: scf.yield
// CHECK: tile.wait 0
// CHECK: tile.cast
// CHECK: tile.convert_layout {{.*}} {tile.scratch_bytes = 32768 : i64, tile.scratch_offset = 0 : i64}
// CHECK: tile.store
// On sm_90a the same GEMM is shaped for wgmma: the warps along M (one
// m64n128 accumulator block per 64 rows), A's 64-byte rows with the 64-byte
// swizzle, B's 256-byte rows stored as two blocks of 64 columns, one wgmma
// group left in flight (copies two stages ahead, wait 2 at the top, issued
// after the dot and a second barrier), and the loop under a zero-trip
// guard.
// WG-LABEL: func.func @gemm
// WG-SAME: tile.shared_bytes = 49152 : i64
// WG: tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<3x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (3,128,32):(4096,32,1)>>
// WG: tile.alloc_shared {tile.offset = 24576 : i64} : !tile.shared<3x32x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,5) o (3,32,128):(4096,128,1)>>
// WG: scf.if
// WG: scf.for
// WG-NEXT: tile.wait 2
// WG-NEXT: tile.barrier
// WG: tile.dot {{.*}} {tile.mma_in_flight = 1 : i64} {{.*}} -> tensor<128x128xf32, #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// WG-NEXT: tile.barrier
// WG: tile.copy_async
// WG: tile.wait 0
// WG: tile.store
func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %p0 = tile.program_id y : i32
  %p1 = tile.program_id x : i32
  %c128 = arith.constant 128 : i32
  %m0 = arith.muli %p0, %c128 : i32
  %n0 = arith.muli %p1, %c128 : i32
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xf16> -> tensor<32x128xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  } {tile.pipeline = 3 : i32}
  %h = tile.cast %acc : tensor<128x128xf32> -> tensor<128x128xf16>
  tile.store %c[%m0, %n0], %h : !tile.view<?x?xf16>, tensor<128x128xf16>
  return
}
