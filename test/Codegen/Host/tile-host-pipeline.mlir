// RUN: tile-opt %s -tile-host-pipeline | FileCheck %s --implicit-check-not=tile. --implicit-check-not=memref. --implicit-check-not=tensor. --implicit-check-not=linalg. --implicit-check-not=scf. --implicit-check-not=arith. --implicit-check-not=unrealized_conversion_cast --implicit-check-not=func.func
// RUN: tile-opt %s -tile-host-pipeline-O0 | FileCheck %s --check-prefix=O0
// The whole pipeline: tile dialect in, LLVM dialect only out; every kernel
// has the entry ABI and every buffer is freed.

// O0: llvm.func @vadd(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// O0: llvm.func @gemm(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// O0: llvm.func @f8_roundtrip(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @vadd(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.call @__tile_host_impl_vadd
// CHECK-LABEL: llvm.func internal @__tile_host_impl_vadd
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.fadd
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @gemm(
// CHECK-LABEL: llvm.func internal @__tile_host_impl_gemm
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.fmul
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @f8_roundtrip(
// CHECK-LABEL: llvm.func internal @__tile_host_impl_f8_roundtrip
// CHECK: llvm.intr.roundeven
// CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr

func.func @vadd(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                %y: !tile.ptr<f32> {tile.name = "y", tile.dtype = "f32", tile.shape = ["N"]},
                %z: !tile.ptr<f32> {tile.name = "z", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.warps = 4 : i32, tile.grid = ["cdiv(N, 64)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %off = arith.muli %pid, %c64 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vy = tile.view %y(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vz = tile.view %z(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %a = tile.load %vx[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %b = tile.load %vy[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %s = arith.addf %a, %b : tensor<64xf32>
  tile.store %vz[%off], %s : !tile.view<?xf32>, tensor<64xf32>
  return
}

func.func @gemm(%a: !tile.ptr<f16> {tile.name = "A", tile.dtype = "f16", tile.shape = ["M", "K"]},
                %b: !tile.ptr<f16> {tile.name = "B", tile.dtype = "f16", tile.shape = ["K", "N"]},
                %c: !tile.ptr<f32> {tile.name = "C", tile.dtype = "f32", tile.shape = ["M", "N"], tile.mut},
                %m: i32 {tile.dim = "M"}, %k: i32 {tile.dim = "K"}, %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 16)", "cdiv(M, 16)", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %py, %c16 : i32
  %n0 = arith.muli %px, %c16 : i32
  %va = tile.view %a(%m, %k) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %b(%k, %n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %c(%m, %n) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %k step %c8 iter_args(%acc_in = %zero) -> (tensor<16x16xf32>) : i32 {
    %ta = tile.load %va[%m0, %kk] : !tile.view<?x?xf16> -> tensor<16x8xf16>
    %tb = tile.load %vb[%kk, %n0] : !tile.view<?x?xf16> -> tensor<8x16xf16>
    %d = tile.dot %ta, %tb, %acc_in : tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  } {tile.pipeline = 2 : i32}
  tile.store %vc[%m0, %n0], %acc : !tile.view<?x?xf32>, tensor<16x16xf32>
  return
}


func.func @f8_roundtrip(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                        %q: !tile.ptr<f8E4M3FN> {tile.name = "q", tile.dtype = "f8e4m3", tile.shape = ["N"], tile.mut},
                        %o: !tile.ptr<f16> {tile.name = "o", tile.dtype = "f16", tile.shape = ["N"], tile.mut},
                        %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 64)", "1", "1"]} {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %off = arith.muli %pid, %c64 : i32
  %vx = tile.view %x(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vq = tile.view %q(%n) : !tile.ptr<f8E4M3FN> -> !tile.view<?xf8E4M3FN>
  %vo = tile.view %o(%n) : !tile.ptr<f16> -> !tile.view<?xf16>
  %t = tile.load %vx[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %e = tile.cast %t : tensor<64xf32> -> tensor<64xf8E4M3FN>
  tile.store %vq[%off], %e : !tile.view<?xf8E4M3FN>, tensor<64xf8E4M3FN>
  %h = tile.cast %e : tensor<64xf8E4M3FN> -> tensor<64xf16>
  tile.store %vo[%off], %h : !tile.view<?xf16>, tensor<64xf16>
  return
}

