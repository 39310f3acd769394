// The f16 and bf16 GEMM of a 4-warp program on MFMA: the layouts come from
// -tile-gpu-prepare for each chip, the instructions from -tile-convert-to-rocdl.
// RUN: tile-opt %s --tile-gpu-prepare=target=gfx942 --tile-convert-to-rocdl=chip=gfx942 | FileCheck %s --check-prefixes=COMMON,GFX942
// RUN: tile-opt %s --tile-gpu-prepare=target=gfx950 --tile-convert-to-rocdl=chip=gfx950 | FileCheck %s --check-prefixes=COMMON,GFX950

// 2x2 waves of 64 lanes, each 2x2 blocks of 32x32 (gfx942: 4 k-blocks of
// 32x32x8 per 32-wide k step; gfx950: 2 of 32x32x16).
// COMMON-LABEL: llvm.func amdgpu_kernelcc @gemm_f16
// COMMON-SAME: rocdl.flat_work_group_size = "256,256"
// COMMON-SAME: rocdl.kernel
// COMMON-SAME: rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
// COMMON-SAME: {{tile[._]dynamic_shared_bytes}} = 0 : i64
// COMMON: rocdl.workitem.id.x
// COMMON: rocdl.workgroup.id.x
// COMMON: rocdl.workgroup.id.y
// GFX942-COUNT-16: rocdl.mfma.f32.32x32x8f16 {{.*}} : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// GFX942-NOT: rocdl.mfma
// GFX950-COUNT-8: rocdl.mfma.f32.32x32x16.f16 {{.*}} : (vector<8xf16>, vector<8xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// GFX950-NOT: rocdl.mfma
// COMMON: llvm.return
func.func @gemm_f16(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %pm = tile.program_id x : i32
  %pn = tile.program_id y : i32
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xf16> -> tensor<32x128xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = tile.cast %acc : tensor<128x128xf32> -> tensor<128x128xf16>
  tile.store %c[%m0, %n0], %h : !tile.view<?x?xf16>, tensor<128x128xf16>
  return
}

// bf16 operands: the _1k instructions take <4 x i16> on gfx942; gfx950 has
// <8 x bfloat> operands. A 64x64 tile with 4 waves: one 32x32 block each.
// COMMON-LABEL: llvm.func amdgpu_kernelcc @gemm_bf16
// GFX942-COUNT-4: rocdl.mfma.f32.32x32x8bf16.1k {{.*}} : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// GFX942-NOT: rocdl.mfma
// GFX950-COUNT-2: rocdl.mfma.f32.32x32x16.bf16 {{.*}} : (vector<8xbf16>, vector<8xbf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// GFX950-NOT: rocdl.mfma
// COMMON: llvm.return
func.func @gemm_bf16(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}

// M = 16 rows: only the 16x16 shapes divide (gfx942 16x16x16 per k-block of
// 16; gfx950 16x16x32).
// COMMON-LABEL: llvm.func amdgpu_kernelcc @gemm_m16
// GFX942: rocdl.mfma.f32.16x16x16f16 {{.*}} -> vector<4xf32>
// GFX942-NOT: rocdl.mfma.f32.32x32
// GFX950: rocdl.mfma.f32.16x16x32.f16 {{.*}} : (vector<8xf16>, vector<8xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// GFX950-NOT: rocdl.mfma.f32.32x32
// COMMON: llvm.return
func.func @gemm_m16(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 1 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
  %tb = tile.load %b[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  %d = tile.dot %ta, %tb, %zero : tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %c[%c0, %c0], %d : !tile.view<?x?xf32>, tensor<16x16xf32>
  return
}
