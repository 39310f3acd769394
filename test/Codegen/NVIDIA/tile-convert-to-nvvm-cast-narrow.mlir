// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// gemm_wq-style dequantization of the narrow sources without a fast path of
// their own: u3 -> f16 by the 0x6400 magic exponent (one or and one packed
// f16x2 subtraction of 1024 per pair), f4e2m1 -> f16 by moving the code's
// fields into an f16 and one packed multiplication by 2^(15 - bias) = 2^14.
// Neither loads from a __tile_cvt_ lookup table any more. Bit-exactness over
// every code is checked on the CPU (unittests/Codegen/NVIDIA,
// GPULoweringOnCpu.NarrowSourcesAllCodes).
#w = #tile.layout<spatial(32,4) * local(1,16)>

// CHECK-NOT:     __tile_cvt
// CHECK-LABEL: llvm.func @dequant_u3
// CHECK:         llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK:         llvm.fsub %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK-NOT:     __tile_cvt
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @dequant_e2m1
// CHECK:         llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK:         llvm.fmul %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK-NOT:     __tile_cvt
// CHECK:         llvm.return
// No table is declared or addressed (the edge path's ld.global.b8 are the
// masked sub-byte loads of the weights).
// PTX-NOT:   __tile_cvt
// PTX-LABEL: .entry dequant_u3(
// PTX-NOT:   __tile_cvt
// PTX:       sub.{{(rn.)?}}f16x2
// PTX-NOT:   __tile_cvt
// PTX:       st.global.v4.b32
// PTX-LABEL: .entry dequant_e2m1(
// PTX-NOT:   __tile_cvt
// PTX:       mul.{{(rn.)?}}f16x2
// PTX-NOT:   __tile_cvt
// PTX:       st.global.v4.b32
// PTX-NOT:   __tile_cvt
func.func @dequant_u3(%W: !tile.ptr<i3>, %O: !tile.ptr<f16>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vw = tile.view %W(%K, %N) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %vo = tile.view %O(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %q = tile.load %vw[%c0, %c0] : !tile.view<?x?xi3> -> tensor<32x64xi3, #w>
  %h = tile.cast %q {src_unsigned} : tensor<32x64xi3, #w> -> tensor<32x64xf16, #w>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<32x64xf16, #w>
  return
}

func.func @dequant_e2m1(%W: !tile.ptr<f4E2M1FN>, %O: !tile.ptr<f16>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vw = tile.view %W(%K, %N) : !tile.ptr<f4E2M1FN> -> !tile.view<?x?xf4E2M1FN>
  %vo = tile.view %O(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %q = tile.load %vw[%c0, %c0] : !tile.view<?x?xf4E2M1FN> -> tensor<32x64xf4E2M1FN, #w>
  %h = tile.cast %q : tensor<32x64xf4E2M1FN, #w> -> tensor<32x64xf16, #w>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<32x64xf16, #w>
  return
}
