// RUN: tile-opt %s -split-input-file -tile-assign-tensor-maps -verify-diagnostics | FileCheck %s

// Copies of one parameter with one box share a map; another parameter gets
// the next. The boxes come from the destinations' layouts: a 64 x 256 f16
// ring in the wide wgmma layout (128-byte swizzle, four column blocks) is
// boxes of 64 x 64; a 128 x 32 f16 ring with the 64-byte swizzle one box
// of 128 x 32. Copies without a barrier (cp.async) get no map.
// CHECK-LABEL: func.func @maps
// CHECK-SAME: tile.tensor_maps = [{box = array<i64: 128, 32>, param = 0 : i64, swizzle = 64 : i64}, {box = array<i64: 64, 64>, param = 1 : i64, swizzle = 128 : i64}]
// CHECK: tile.copy_async {{.*}} {tile.tma_map = 0 : i64}
// CHECK: tile.copy_async {{.*}} {tile.tma_map = 1 : i64}
// CHECK: tile.copy_async {{.*}} {tile.tma_map = 0 : i64}
// CHECK: tile.copy_async
// CHECK-NOT: tile.tma_map
func.func @maps(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %M: i32, %i: i32, %p: i1) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  %rb = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<2x64x256xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,2,6) o (2,64,256):(16384,256,1)>>
  %bars = tile.alloc_shared {tile.offset = 81920 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] barrier(%bars[%i]) if %p : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %b[%i, %i] -> %rb[%i, %i, %i] barrier(%bars[%i]) if %p : !tile.view<?x?xf16> -> !tile.shared<2x64x256xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,2,6) o (2,64,256):(16384,256,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %a[%i, %M] -> %ra[%i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %a[%i, %M] -> %ra[%i, %i, %i] : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  return
}

// -----

// A destination layout no TMA box writes (rows padded by 8 elements) is an
// internal error at the copy.
func.func @padded(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x16x64xf16, #tile.shared_layout<(2,16,64):(1152,72,1)>>
  %bars = tile.alloc_shared {tile.offset = 4608 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  // expected-error @+1 {{internal error: TMA cannot write the destination's layout: no sequence of TMA boxes writes the layout}}
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?xf16> -> !tile.shared<2x16x64xf16, #tile.shared_layout<(2,16,64):(1152,72,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}

// -----

// A swizzled destination off its 1024-byte pattern is an internal error.
func.func @misaligned(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 128 : i64} : !tile.shared<2x64x64xf16, #tile.shared_layout<swizzle(3,3,3) o (2,64,64):(4096,64,1)>>
  %bars = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  // expected-error @+1 {{internal error: the destination at byte 128 is not aligned to its TMA swizzle (1024 bytes)}}
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<swizzle(3,3,3) o (2,64,64):(4096,64,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}

// -----

// A copy of a 1 x 1 x 64 x 128 tile of a rank-4 tensor (attention's K)
// into a ring of such tiles: the map's box has one extent per dimension of
// the tensor, 1 for the two it takes one index of.
// CHECK-LABEL: func.func @rank4
// CHECK-SAME: tile.tensor_maps = [{box = array<i64: 1, 1, 64, 64>, param = 0 : i64, swizzle = 128 : i64}]
// CHECK: tile.copy_async {{.*}} {tile.tma_map = 0 : i64}
func.func @rank4(%PK: !tile.ptr<f16>, %B: i32, %N: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %k = tile.view %PK(%B, %B, %N) : !tile.ptr<f16> -> !tile.view<?x?x?x128xf16>
  %rk = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x1x1x64x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,6) o (2,1,1,64,128):(8192,8192,8192,128,1)>>
  %bars = tile.alloc_shared {tile.offset = 32768 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %k[%i, %i, %i, %i] -> %rk[%i, %i, %i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?x?x128xf16> -> !tile.shared<2x1x1x64x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,6) o (2,1,1,64,128):(8192,8192,8192,128,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}

// -----

// The copies without TMA that tile-clone-fallbacks made stay only for the
// kernels that take tensor maps, which name them in tile.fallback: @tma's
// copy stays, @plain's (its loop kept cp.async) is erased.
// CHECK-LABEL: func.func @tma(
// CHECK-SAME: tile.fallback = @tma__fallback
// CHECK-SAME: tile.tensor_maps =
// CHECK-LABEL: func.func @tma__fallback(
// CHECK-SAME: tile.fallback_of = @tma
// CHECK-NOT: tile.tensor_maps
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: tile.fallback
// CHECK-NOT: func.func
func.func @tma(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  %bars = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}
func.func @tma__fallback(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.fallback_of = @tma} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  return
}
func.func @plain(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %M) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %ra = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  tile.copy_async %a[%i, %i] -> %ra[%i, %i, %i] : !tile.view<?x?xf16> -> !tile.shared<2x128x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,128,32):(4096,32,1)>>
  return
}
func.func @plain__fallback(%PA: !tile.ptr<f16>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.fallback_of = @plain} {
  return
}

// -----

// A ring of packed u4 tiles (dense rows of 128 x 4 bits) is mapped as
// bytes: its box is 64 rows of 64 bytes, unswizzled.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: tile.tensor_maps = [{box = array<i64: 64, 64>, param = 0 : i64, swizzle = 0 : i64}]
// CHECK: tile.copy_async {{.*}} {tile.tma_map = 0 : i64}
func.func @packed(%PW: !tile.ptr<i4>, %M: i32, %i: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %w = tile.view %PW(%M, %M) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %rw = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x128xi4, #tile.shared_layout<(2,64,128):(8192,128,1)>>
  %bars = tile.alloc_shared {tile.offset = 8192 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  tile.copy_async %w[%i, %i] -> %rw[%i, %i, %i] barrier(%bars[%i]) : !tile.view<?x?xi4> -> !tile.shared<2x64x128xi4, #tile.shared_layout<(2,64,128):(8192,128,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}
