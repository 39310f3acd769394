// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// The f8e4m3 -> f32 table: code 0x01 is 2^-9 (0x3B000000), 0x7F is NaN.
// CHECK: llvm.mlir.global internal constant @[[CVT:__tile_cvt_[0-9a-f]+_[0-9a-f]+]](dense<"0x000000000000003B{{.*}}0000C07F{{.*}}"> : tensor<256xi32>) {addr_space = 0 : i32} : !llvm.array<256 x i32>

// Packed u4 weights: 16 codes (8 bytes) per thread, loaded as words and
// converted two at a time with the 0x6400 magic exponent: the field mask
// (0x000F000F) and the exponent in one lop3.b32 ((a & b) ^ c = 0x6a).
#w = #tile.layout<spatial(32,4) * local(1,16)>

// CHECK-LABEL: llvm.func @dequant_u4
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK:         llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,n,r" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32) -> i32
// CHECK:         llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK:         llvm.fsub %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK-NOT:     llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK:         llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// PTX-LABEL: .entry dequant_u4(
// PTX:       ld.global.v2.b32
// PTX:       lop3.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 983055, %r{{[0-9]+}}, 0x6a;
// PTX:       sub.{{(rn.)?}}f16x2
// PTX:       st.global.v4.b32
func.func @dequant_u4(%W: !tile.ptr<i4>, %O: !tile.ptr<f16>, %K: i32, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vw = tile.view %W(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %vo = tile.view %O(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %q = tile.load %vw[%c0, %c0] : !tile.view<?x?xi4> -> tensor<32x64xi4, #w>
  %h = tile.cast %q {src_unsigned} : tensor<32x64xi4, #w> -> tensor<32x64xf16, #w>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<32x64xf16, #w>
  return
}

// Signed i4 -> bf16 (0x4300 magic, xor 8), f8e4m3 -> f32 (table computed
// by lib/Numerics), f32 -> f8e4m3 (rounding arithmetic), f32 -> i8
// (round to nearest even, saturating), i8 -> u4 (clamp) and an i8 -> i4
// bitcast.
#v = #tile.layout<spatial(128) * local(8)>
#v2 = #tile.layout<spatial(128) * local(16)>

// CHECK-LABEL: llvm.func @casts
// CHECK:         %[[TABLE:.*]] = llvm.mlir.addressof @[[CVT]] : !llvm.ptr
// CHECK:         llvm.fsub %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK:         llvm.getelementptr %[[TABLE]][0, %{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, !llvm.array<256 x i32>
// CHECK:         llvm.intr.roundeven
// CHECK:         llvm.call_intrinsic "llvm.fptosi.sat.i8.f32"
// PTX-LABEL: .entry casts(
// PTX:       cvt.rni.f32.f32
func.func @casts(%X: !tile.ptr<i4>, %E: !tile.ptr<f8E4M3FN>, %F: !tile.ptr<f32>,
                 %O1: !tile.ptr<bf16>, %O2: !tile.ptr<f32>, %O3: !tile.ptr<f8E4M3FN>,
                 %O4: !tile.ptr<i8>, %O5: !tile.ptr<i4>, %O6: !tile.ptr<i4>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %vx = tile.view %X(%N) : !tile.ptr<i4> -> !tile.view<?xi4>
  %ve = tile.view %E(%N) : !tile.ptr<f8E4M3FN> -> !tile.view<?xf8E4M3FN>
  %vf = tile.view %F(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %o1 = tile.view %O1(%N) : !tile.ptr<bf16> -> !tile.view<?xbf16>
  %o2 = tile.view %O2(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %o3 = tile.view %O3(%N) : !tile.ptr<f8E4M3FN> -> !tile.view<?xf8E4M3FN>
  %o4 = tile.view %O4(%N) : !tile.ptr<i8> -> !tile.view<?xi8>
  %o5 = tile.view %O5(%N) : !tile.ptr<i4> -> !tile.view<?xi4>
  %o6 = tile.view %O6(%N) : !tile.ptr<i4> -> !tile.view<?xi4>
  %x = tile.load %vx[%c0] : !tile.view<?xi4> -> tensor<1024xi4, #v>
  %xb = tile.cast %x : tensor<1024xi4, #v> -> tensor<1024xbf16, #v>
  tile.store %o1[%c0], %xb : !tile.view<?xbf16>, tensor<1024xbf16, #v>
  %e = tile.load %ve[%c0] : !tile.view<?xf8E4M3FN> -> tensor<1024xf8E4M3FN, #v>
  %ef = tile.cast %e : tensor<1024xf8E4M3FN, #v> -> tensor<1024xf32, #v>
  tile.store %o2[%c0], %ef : !tile.view<?xf32>, tensor<1024xf32, #v>
  %f = tile.load %vf[%c0] : !tile.view<?xf32> -> tensor<1024xf32, #v>
  %f8 = tile.cast %f : tensor<1024xf32, #v> -> tensor<1024xf8E4M3FN, #v>
  tile.store %o3[%c0], %f8 : !tile.view<?xf8E4M3FN>, tensor<1024xf8E4M3FN, #v>
  %i8 = tile.cast %f : tensor<1024xf32, #v> -> tensor<1024xi8, #v>
  tile.store %o4[%c0], %i8 : !tile.view<?xi8>, tensor<1024xi8, #v>
  %u4 = tile.cast %i8 {dst_unsigned} : tensor<1024xi8, #v> -> tensor<1024xi4, #v>
  tile.store %o5[%c0], %u4 : !tile.view<?xi4>, tensor<1024xi4, #v>
  %nib = tile.bitcast %i8 : tensor<1024xi8, #v> -> tensor<2048xi4, #v2>
  tile.store %o6[%c0], %nib : !tile.view<?xi4>, tensor<2048xi4, #v2>
  return
}

// f32 -> f16 makes a NaN the canonical quiet NaN with its sign (an
// unordered compare and a select per value), except where the value is only
// multiplied (here through a layout conversion, as the operand of a dot):
// a product with a NaN operand is NaN whatever its payload, so the plain
// conversion is enough (attention's P = cast(f16, exp2(...)) in its loop).
#f32a = #tile.layout<column_local(2,2) * spatial(8,4) * local(1,2)>
#f16b = #tile.layout<local(2,1) * column_spatial(4,8) * local(2,1)>
#f32c = #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>
#f32r = #tile.layout<spatial(8,4) * local(2,4)>

// CHECK-LABEL: llvm.func @cast_only_multiplied
// CHECK-NOT:     llvm.fcmp "uno"
// CHECK:         nvvm.mma.sync
// CHECK-NOT:     llvm.fcmp "uno"
// CHECK-LABEL: llvm.func @cast_stored
// CHECK:         llvm.fptrunc
// CHECK:         llvm.fcmp "uno"
// CHECK:         llvm.select
func.func @cast_only_multiplied(%A: !tile.ptr<f32>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A() : !tile.ptr<f32> -> !tile.view<16x16xf32>
  %vb = tile.view %B() : !tile.ptr<f16> -> !tile.view<16x8xf16>
  %vc = tile.view %C() : !tile.ptr<f32> -> !tile.view<16x8xf32>
  %a = tile.load %va[%c0, %c0] : !tile.view<16x16xf32> -> tensor<16x16xf32, #f32a>
  %ah = tile.cast %a : tensor<16x16xf32, #f32a> -> tensor<16x16xf16, #f32a>
  %am = tile.convert_layout %ah : tensor<16x16xf16, #f32a> -> tensor<16x16xf16, #f32a>
  %b = tile.load %vb[%c0, %c0] : !tile.view<16x8xf16> -> tensor<16x8xf16, #f16b>
  %z = arith.constant dense<0.0> : tensor<16x8xf32, #f32c>
  %d = tile.dot %am, %b, %z : tensor<16x16xf16, #f32a>, tensor<16x8xf16, #f16b>, tensor<16x8xf32, #f32c> -> tensor<16x8xf32, #f32c>
  tile.store %vc[%c0, %c0], %d : !tile.view<16x8xf32>, tensor<16x8xf32, #f32c>
  return
}

func.func @cast_stored(%A: !tile.ptr<f32>, %O: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %va = tile.view %A() : !tile.ptr<f32> -> !tile.view<16x16xf32>
  %vo = tile.view %O() : !tile.ptr<f16> -> !tile.view<16x16xf16>
  %a = tile.load %va[%c0, %c0] : !tile.view<16x16xf32> -> tensor<16x16xf32, #f32r>
  %ah = tile.cast %a : tensor<16x16xf32, #f32r> -> tensor<16x16xf16, #f32r>
  tile.store %vo[%c0, %c0], %ah : !tile.view<16x16xf16>, tensor<16x16xf16, #f32r>
  return
}
