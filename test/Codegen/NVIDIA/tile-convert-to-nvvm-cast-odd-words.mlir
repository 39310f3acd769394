// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s \
// RUN:   | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// 3-, 5-, 6- and 7-bit codes read from shared memory convert from the
// thread's packed words, slot i paired with slot i + D (D = 4 for 3 and 5
// bits, 2 for 6 and 7: the register pairs of the pre-packed operand order),
// one lop3 and one packed sub or fma per pair, never a byte-wise unpacking.
// The lop3 gives the upper half the exponent 25 (0x6400: 1024) and the
// lower one 25 + sHi - sLo for fields sLo and sHi bits up, so that both
// halves are 2^(10 - offset) + code * 2^sHi: one splat scale 2^-sHi.

// u3, 32 codes (96 bits) per thread and row: three words in one load. The
// pair (0, 4) sits at bits 0 and 12: the window from bit -4 (the word
// shifted left by 4) puts code 0 four bits up in the low half (mask 0x70)
// and code 4 at bit 16 (0x70000); exponents 21 and 25 (0x64005400), so both
// halves are (64 or 1024) + code: one sub of (64, 1024). Pair (1, 5) shares
// that window: bits 7 and 19 (0x380380), 8 + 8 code and 128 + 8 code: one
// fma by 1/8 minus (8, 128).
!w3 = !tile.shared<8x128xi3, #tile.shared_layout<(8,128):(128,1)>>
#l3 = #tile.layout<spatial(8,4) * local(1,32)>

// CHECK-LABEL: llvm.func @u3
// CHECK-DAG:     %[[EIGHTH:.*]] = llvm.mlir.constant(dense<1.250000e-01> : vector<2xf16>)
// CHECK-DAG:     %[[BIAS1:.*]] = llvm.mlir.constant(dense<[-8.000000e+00, -1.280000e+02]> : vector<2xf16>)
// CHECK-DAG:     %[[BIAS0:.*]] = llvm.mlir.constant(dense<[6.400000e+01, 1.024000e+03]> : vector<2xf16>)
// CHECK-DAG:     %[[MAGIC:.*]] = llvm.mlir.constant(1677743104 : i32)
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<3xi32>
// CHECK:         %[[W:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK:         %[[P0:.*]] = llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,n,r" %[[W]], %{{.*}}, %[[MAGIC]] : (i32, i32, i32) -> i32
// CHECK:         llvm.fsub %{{.*}}, %[[BIAS0]] : vector<2xf16>
// CHECK:         llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,n,r" %[[W]], %{{.*}}, %[[MAGIC]] : (i32, i32, i32) -> i32
// CHECK:         llvm.intr.fma(%{{.*}}, %[[EIGHTH]], %[[BIAS1]]) : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK-NOT:     llvm.load %{{.*}} -> i8
// PTX-LABEL: .entry u3(
// PTX:       lop3.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 458864, %r{{[0-9]+}}, 0x6a;
// PTX:       lop3.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3670912, %r{{[0-9]+}}, 0x6a;
// PTX:       fma.rn.f16x2
// PTX-NOT:   ld.shared.u8
func.func @u3(%O: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 384 : i64} {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !w3
  %q = tile.shared_load %s[%c0, %c0] : !w3 -> tensor<8x128xi3, #l3>
  %h = tile.cast %q {src_unsigned} : tensor<8x128xi3, #l3> -> tensor<8x128xf16, #l3>
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %vo = tile.view %O(%c8, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<8x128xf16, #l3>
  return
}

// Signed i7, 32 codes (224 bits) per thread: the 16-code vector groups
// (112 bits) are not whole words, so the load reads the thread's 7 words
// at once. Pairs (0, 2) at bits 0 and 14: the window from bit -2 (shift
// left by 2) puts them 2 bits up and at bit 16 (mask 0x7F01FC), with the
// sign bits flipped (0x100 | 0x400000 xor the exponents 23 and 25); both
// halves are then (256 or 1024) + code + 64: one sub of (320, 1088). Every
// pair takes its own window at the same offsets.
!w7 = !tile.shared<8x128xi7, #tile.shared_layout<(8,128):(128,1)>>
#l7 = #tile.layout<spatial(8,4) * local(1,32)>

// CHECK-LABEL: llvm.func @i7
// CHECK-DAG:     %[[BIAS:.*]] = llvm.mlir.constant(dense<[3.200000e+02, 1.088000e+03]> : vector<2xf16>)
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<7xi32>
// CHECK:         llvm.inline_asm "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,n,r" %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32) -> i32
// CHECK:         llvm.fsub %{{.*}}, %[[BIAS]] : vector<2xf16>
// CHECK-NOT:     llvm.intr.fma
// CHECK-NOT:     llvm.load %{{.*}} -> i8
// PTX-LABEL: .entry i7(
// PTX:       lop3.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 8323580, %r{{[0-9]+}}, 0x6a;
// PTX:       {{(sub|add)}}.{{(rn.)?}}f16x2
func.func @i7(%O: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 896 : i64} {
  %c0 = arith.constant 0 : i32
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !w7
  %q = tile.shared_load %s[%c0, %c0] : !w7 -> tensor<8x128xi7, #l7>
  %h = tile.cast %q : tensor<8x128xi7, #l7> -> tensor<8x128xf16, #l7>
  %c8 = arith.constant 8 : i32
  %c128 = arith.constant 128 : i32
  %vo = tile.view %O(%c8, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  tile.store %vo[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<8x128xf16, #l7>
  return
}
