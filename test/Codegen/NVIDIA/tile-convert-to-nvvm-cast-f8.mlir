// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// f8e4m3 -> f16 without a lookup table: two codes per 32-bit word, their
// magnitude bits shifted into the f16 fields (and + shift: lop3/prmt in
// PTX), one packed multiplication by 2^8, then NaN codes replaced by the
// canonical NaN. Bit-exactness over all 256 codes is checked on the CPU
// (unittests/Codegen/NVIDIA, GPULoweringOnCpu.NarrowSourcesAllCodes).
#w = #tile.layout<spatial(32,4) * local(1,16)>

// CHECK-NOT:     llvm.mlir.global internal constant @__tile_cvt
// CHECK-LABEL: llvm.func @dequant_e4m3
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi8>
// CHECK:         llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK:         llvm.fmul %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK:         llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// PTX-LABEL: .entry dequant_e4m3(
// PTX-NOT:   ld.global.nc.u16
// PTX:       ld.global.v4.b32
// PTX:       mul.{{(rn.)?}}f16x2
// PTX:       st.global.v4.b32
func.func @dequant_e4m3(%W: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<f16>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vw = tile.view %W(%K, %N) : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %vo = tile.view %O(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %q = tile.load %vw[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN, #w>
  %h = tile.cast %q : tensor<32x64xf8E4M3FN, #w> -> tensor<32x64xf16, #w>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<32x64xf16, #w>
  return
}

// f8e4m3 -> bf16: the same f16 pairs, then f32 -> bf16x2 (exact); u8 ->
// bf16 by one exact hardware conversion; f8e5m2 -> bf16: a shift into an
// f16, then f32 -> bf16 (exact). No table either.
// CHECK-LABEL: llvm.func @to_bf16
// CHECK:         llvm.fmul %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK:         llvm.fpext %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK:         llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK:         llvm.uitofp %{{.*}} : i8 to {{f32|bf16}}
// CHECK:         llvm.fpext %{{.*}} : f16 to f32
// CHECK:         llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK-NOT:     llvm.mlir.addressof @__tile_cvt
// CHECK:         llvm.return
// PTX-LABEL: .entry to_bf16(
// PTX:       mul.{{(rn.)?}}f16x2
// PTX:       cvt.rn.bf16{{(x2)?}}.f32
func.func @to_bf16(%W: !tile.ptr<f8E4M3FN>, %U: !tile.ptr<i8>, %E: !tile.ptr<f8E5M2>, %O: !tile.ptr<bf16>, %P: !tile.ptr<bf16>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vw = tile.view %W(%K, %N) : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %vu = tile.view %U(%K, %N) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %vo = tile.view %O(%K, %N) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vp = tile.view %P(%K, %N) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %q = tile.load %vw[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN, #w>
  %h = tile.cast %q : tensor<32x64xf8E4M3FN, #w> -> tensor<32x64xbf16, #w>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xbf16>, tensor<32x64xbf16, #w>
  %u = tile.load %vu[%c0, %c0] : !tile.view<?x?xi8> -> tensor<32x64xi8, #w>
  %g = tile.cast %u {src_unsigned} : tensor<32x64xi8, #w> -> tensor<32x64xbf16, #w>
  tile.store %vp[%c0, %c0], %g : !tile.view<?x?xbf16>, tensor<32x64xbf16, #w>
  %ve = tile.view %E(%K, %N) : !tile.ptr<f8E5M2> -> !tile.view<?x?xf8E5M2>
  %e = tile.load %ve[%c0, %c0] : !tile.view<?x?xf8E5M2> -> tensor<32x64xf8E5M2, #w>
  %f = tile.cast %e : tensor<32x64xf8E5M2, #w> -> tensor<32x64xbf16, #w>
  tile.store %vo[%c0, %c0], %f : !tile.view<?x?xbf16>, tensor<32x64xbf16, #w>
  return
}
