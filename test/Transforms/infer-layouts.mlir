// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_90a | FileCheck %s

// A GEMM: on sm_90a its tiles fit wgmma (B's 128 columns in two column
// blocks), so the warps go along M: the accumulator is one m64n128 block
// per warpgroup, i.e. mma.sync m16n8k16 C atoms (local(2,1) * spatial(8,4)
// * local(1,2)) with the 4 warps along M, repeated 2x16 times; loads are
// coalesced with 8 f16 (16 bytes) per thread and converted to the A/B
// fragments (read from shared memory by wgmma once pipelined); the f16
// result is converted back to a coalesced layout for the store. (The 2x2
// warps of mma.sync: infer-layouts-targets.mlir, sm_80.)
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: tile.warp_size = 32 : i32
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>)
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<128x32xf16, #tile.layout<local(4,1) * spatial(32,4) * local(1,8)>>
// CHECK: %[[B:.*]] = tile.load {{.*}} -> tensor<32x128xf16, #tile.layout<local(4,1) * spatial(8,16) * local(1,8)>>
// CHECK: %[[CA:.*]] = tile.convert_layout %[[A]] {{.*}} -> tensor<128x32xf16, #tile.layout<local(2,4) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: %[[CB:.*]] = tile.convert_layout %[[B]] {{.*}} -> tensor<32x128xf16, #tile.layout<local(2,16) * local(2,1) * replicate(4) * column_spatial(4,8) * local(2,1)>>
// CHECK: tile.dot %[[CA]], %[[CB]], %[[ACC]]
// CHECK: %[[H:.*]] = tile.cast {{.*}} -> tensor<128x128xf16, #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: %[[S:.*]] = tile.convert_layout %[[H]] {{.*}} -> tensor<128x128xf16, #tile.layout<local(16,1) * spatial(8,16) * local(1,8)>>
// CHECK: tile.store {{.*}}, %[[S]]

func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f16>, %M: i32, %N: i32, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %a = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %B(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c = tile.view %C(%M, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x128xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xf16>, tensor<32x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = tile.cast %acc : tensor<128x128xf32> -> tensor<128x128xf16>
  tile.store %c[%c0, %c0], %h : !tile.view<?x?xf16>, tensor<128x128xf16>
  return
}

// -----

// Softmax rows: the reductions slice the load's layout (the thread digits of
// the reduced dimension become replication), expand_dims/broadcast bring it
// back, and nothing needs a conversion.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: tile.convert_layout
// CHECK: tile.load {{.*}} -> tensor<4x1024xf32, #tile.layout<local(4,2) * spatial(1,128) * local(1,4)>>
// CHECK: tile.reduce max {{.*}} -> tensor<4xf32, #tile.layout<local(4) * replicate(128)>>
// CHECK: tile.expand_dims {{.*}} -> tensor<4x1xf32, #tile.layout<local(4,1) * replicate(128)>>
// CHECK: tile.broadcast {{.*}} -> tensor<4x1024xf32, #tile.layout<local(4,2) * spatial(1,128) * local(1,4)>>
// CHECK: math.exp {{.*}} : tensor<4x1024xf32, #tile.layout<local(4,2) * spatial(1,128) * local(1,4)>>
// CHECK: tile.reduce sum {{.*}} -> tensor<4xf32, #tile.layout<local(4) * replicate(128)>>
// CHECK: arith.divf {{.*}} : tensor<4x1024xf32, #tile.layout<local(4,2) * spatial(1,128) * local(1,4)>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @softmax(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %x = tile.view %X(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %y = tile.view %Y(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] padding(0xFF800000 : f32) : !tile.view<?x?xf32> -> tensor<4x1024xf32>
  %m = tile.reduce max %t axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %me = tile.expand_dims %m axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %me : tensor<4x1xf32> -> tensor<4x1024xf32>
  %d = arith.subf %t, %mb : tensor<4x1024xf32>
  %e = math.exp %d : tensor<4x1024xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<4x1024xf32> -> tensor<4xf32>
  %se = tile.expand_dims %s axis = 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %se : tensor<4x1xf32> -> tensor<4x1024xf32>
  %r = arith.divf %e, %sb : tensor<4x1024xf32>
  tile.store %y[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<4x1024xf32>
  return
}

// -----

// Sub-byte loads are as wide as f16 ones, counted in bits: 32 x 4 bits =
// 128 bits per thread; 3-bit elements take the smallest power of two that
// reaches 128 bits, 64 x 3 = 192 bits (six whole registers). Casts keep the
// layout; the add converts its second operand to the first one's layout.
// CHECK-LABEL: func.func @subbyte
// CHECK: %[[W:.*]] = tile.load {{.*}} -> tensor<64x128xi4, #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>>
// CHECK: %[[V:.*]] = tile.load {{.*}} -> tensor<64x128xi3, #tile.layout<spatial(64,2) * local(1,64)>>
// CHECK: %[[HW:.*]] = tile.cast %[[W]] {{.*}} -> tensor<64x128xf16, #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>>
// CHECK: %[[HV:.*]] = tile.cast %[[V]] {{.*}} -> tensor<64x128xf16, #tile.layout<spatial(64,2) * local(1,64)>>
// CHECK: %[[CV:.*]] = tile.convert_layout %[[HV]] {{.*}} -> tensor<64x128xf16, #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>>
// CHECK: arith.addf %[[HW]], %[[CV]]
// CHECK: tile.convert_layout {{.*}} -> tensor<64x128xf16, #tile.layout<local(8,1) * spatial(8,16) * local(1,8)>>
func.func @subbyte(%W: !tile.ptr<i4>, %V: !tile.ptr<i3>, %O: !tile.ptr<f16>, %K: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %w = tile.view %W(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %v = tile.view %V(%K, %N) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %o = tile.view %O(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %tw = tile.load %w[%c0, %c0] : !tile.view<?x?xi4> -> tensor<64x128xi4>
  %tv = tile.load %v[%c0, %c0] : !tile.view<?x?xi3> -> tensor<64x128xi3>
  %hw = tile.cast %tw {src_unsigned} : tensor<64x128xi4> -> tensor<64x128xf16>
  %hv = tile.cast %tv {src_unsigned} : tensor<64x128xi3> -> tensor<64x128xf16>
  %sum = arith.addf %hw, %hv : tensor<64x128xf16>
  tile.store %o[%c0, %c0], %sum : !tile.view<?x?xf16>, tensor<64x128xf16>
  return
}

// -----

// Bitcast i8 -> i4 keeps every thread's bits (16 bytes -> 32 nibbles); trans
// permutes the layout and the splat takes its consumer's layout.
// CHECK-LABEL: func.func @bitcast_trans
// CHECK: %[[P:.*]] = tile.load {{.*}} -> tensor<32x64xi8, #tile.layout<local(2,1) * spatial(16,4) * local(1,16)>>
// CHECK: %[[U:.*]] = tile.bitcast %[[P]] {{.*}} -> tensor<32x128xi4, #tile.layout<local(2,1) * spatial(16,4) * local(1,32)>>
// CHECK: tile.store {{.*}}, %[[U]]
// CHECK: tile.load {{.*}} -> tensor<64x32xf16, #tile.layout<local(4,1) * spatial(16,4) * local(1,8)>>
// CHECK: %[[T:.*]] = tile.trans {{.*}} -> tensor<32x64xf16, #tile.layout<local(1,4) * column_spatial(4,16) * local(8,1)>>
// CHECK: %[[S:.*]] = tile.splat {{.*}} -> tensor<32x64xf16, #tile.layout<local(1,4) * column_spatial(4,16) * local(8,1)>>
// CHECK: %[[M:.*]] = arith.mulf %[[T]], %[[S]]
// CHECK: %[[C:.*]] = tile.convert_layout %[[M]] {{.*}} -> tensor<32x64xf16, #tile.layout<local(4,1) * spatial(8,8) * local(1,8)>>
// CHECK: tile.store {{.*}}, %[[C]]
func.func @bitcast_trans(%P: !tile.ptr<i8>, %O: !tile.ptr<i4>, %Q: !tile.ptr<f16>, %R: !tile.ptr<f16>, %N: i32) attributes {tile.kernel, tile.warps = 2 : i32} {
  %p = tile.view %P(%N, %N) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %o = tile.view %O(%N, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %q = tile.view %Q(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %r = tile.view %R(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %t = tile.load %p[%c0, %c0] : !tile.view<?x?xi8> -> tensor<32x64xi8>
  %u = tile.bitcast %t : tensor<32x64xi8> -> tensor<32x128xi4>
  tile.store %o[%c0, %c0], %u : !tile.view<?x?xi4>, tensor<32x128xi4>
  %a = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16>
  %at = tile.trans %a : tensor<64x32xf16> -> tensor<32x64xf16>
  %two = arith.constant 2.0 : f16
  %s = tile.splat %two : f16 -> tensor<32x64xf16>
  %m = arith.mulf %at, %s : tensor<32x64xf16>
  tile.store %r[%c0, %c0], %m : !tile.view<?x?xf16>, tensor<32x64xf16>
  return
}

// -----

// A tile smaller than the block: 16 threads x 4 floats hold it, the other
// 112 threads replicate it. A reduction to a scalar, a splat of it and an
// iota take the same layout.
// CHECK-LABEL: func.func @small_and_scalar
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tile.layout<replicate(8) * spatial(16) * local(4)>>
// CHECK: tile.reduce sum {{.*}} : tensor<64xf32, #tile.layout<replicate(8) * spatial(16) * local(4)>> -> f32
// CHECK: tile.splat {{.*}} -> tensor<64xf32, #tile.layout<replicate(8) * spatial(16) * local(4)>>
// CHECK: tile.iota : tensor<64xi32, #tile.layout<replicate(8) * spatial(16) * local(4)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @small_and_scalar(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %x = tile.view %X(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %y = tile.view %Y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %s = tile.reduce sum %t axis = 0 : tensor<64xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<64xf32>
  %i = tile.iota : tensor<64xi32>
  %f = arith.sitofp %i : tensor<64xi32> to tensor<64xf32>
  %r = arith.addf %b, %f : tensor<64xf32>
  tile.store %y[%c0], %r : !tile.view<?xf32>, tensor<64xf32>
  return
}

// -----

// A pinned layout (a conversion written with an encoding) is kept and
// propagates into scf.if; the constant of the other branch takes it too.
// CHECK-LABEL: func.func @if_and_pinned
// CHECK: %[[P:.*]] = tile.convert_layout {{.*}} : tensor<16x16xf32, #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>> -> tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
// CHECK: %[[R:.*]] = scf.if {{.*}} -> (tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>)
// CHECK: arith.negf %[[P]]
// CHECK: arith.constant dense<1.000000e+00> : tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
// CHECK: tile.convert_layout %[[R]] {{.*}} -> tensor<16x16xf32, #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>>
func.func @if_and_pinned(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %N: i32, %flag: i1) attributes {tile.kernel, tile.warps = 1 : i32} {
  %x = tile.view %X(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %y = tile.view %Y(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
  %p = tile.convert_layout %t : tensor<16x16xf32> -> tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
  %r = scf.if %flag -> tensor<16x16xf32> {
    %n = arith.negf %p : tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
    %nn = tile.convert_layout %n : tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>> -> tensor<16x16xf32>
    scf.yield %nn : tensor<16x16xf32>
  } else {
    %z = arith.constant dense<1.0> : tensor<16x16xf32>
    scf.yield %z : tensor<16x16xf32>
  }
  tile.store %y[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<16x16xf32>
  return
}

// -----

// int8 operands use mma.sync m16n8k32 fragments (4 bytes per register pair
// of the A atom: local(1,4)); f32 operands have no mma.sync: FMA layouts,
// where each thread holds full rows of A and full columns of B for its
// accumulator elements.
// CHECK-LABEL: func.func @dot_kinds
// CHECK: tile.dot {{.*}} : tensor<32x64xi8, #tile.layout<local(1,4) * spatial(2,1) * replicate(2) * local(2,1) * spatial(8,4) * local(1,4)>>, tensor<64x32xi8, #tile.layout<local(2,2) * local(2,1) * replicate(2) * column_spatial(4,16) * local(4,1)>>, tensor<32x32xi32, #tile.layout<local(1,2) * spatial(2,2) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: tile.dot {{.*}} : tensor<16x8xf32, #tile.layout<local(1,8) * replicate(2) * spatial(16,1) * replicate(4)>>, tensor<8x16xf32, #tile.layout<replicate(32) * spatial(1,4) * column_local(8,4)>>, tensor<16x16xf32, #tile.layout<replicate(2) * spatial(16,4) * local(1,4)>>
func.func @dot_kinds(%P: !tile.ptr<i8>, %F: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %p = tile.view %P(%N, %N) : !tile.ptr<i8> -> !tile.view<?x?xi8>
  %f = tile.view %F(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %ai = tile.load %p[%c0, %c0] : !tile.view<?x?xi8> -> tensor<32x64xi8>
  %bi = tile.load %p[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x32xi8>
  %ci = arith.constant dense<0> : tensor<32x32xi32>
  %di = tile.dot %ai, %bi, %ci : tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x32xi32> -> tensor<32x32xi32>
  %af = tile.load %f[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x8xf32>
  %bf = tile.load %f[%c0, %c0] : !tile.view<?x?xf32> -> tensor<8x16xf32>
  %cf = arith.constant dense<0.0> : tensor<16x16xf32>
  %df = tile.dot %af, %bf, %cf : tensor<16x8xf32>, tensor<8x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %x = arith.sitofp %di : tensor<32x32xi32> to tensor<32x32xf32>
  tile.store %f[%c0, %c0], %x : !tile.view<?x?xf32>, tensor<32x32xf32>
  tile.store %f[%c0, %c0], %df : !tile.view<?x?xf32>, tensor<16x16xf32>
  return
}

// -----

// Chained products (attention): S = Q K^T feeds P V through elementwise ops,
// so both dots put all 4 warps along M; the f16 P in the accumulator layout
// of the first dot is then exactly the A fragment of the second: no
// conversion between them.
// CHECK-LABEL: func.func @chained_dots
// CHECK: %[[S:.*]] = tile.dot {{.*}} -> tensor<64x32xf32, #tile.layout<local(1,4) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: %[[E:.*]] = math.exp2 %[[S]]
// CHECK: %[[P:.*]] = tile.cast %[[E]] {{.*}} -> tensor<64x32xf16, #tile.layout<local(1,4) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK-NOT: tile.convert_layout %[[P]]
// CHECK: tile.dot %[[P]], {{.*}} -> tensor<64x64xf32, #tile.layout<local(1,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
func.func @chained_dots(%Q: !tile.ptr<f16>, %O: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %q = tile.view %Q(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %o = tile.view %O(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %a = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  %kt = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16>
  %v = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16>
  %z1 = arith.constant dense<0.0> : tensor<64x32xf32>
  %s = tile.dot %a, %kt, %z1 : tensor<64x64xf16>, tensor<64x32xf16>, tensor<64x32xf32> -> tensor<64x32xf32>
  %e = math.exp2 %s : tensor<64x32xf32>
  %p = tile.cast %e : tensor<64x32xf32> -> tensor<64x32xf16>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.dot %p, %v, %z2 : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %o[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}

// -----

// The same chain with a mask applied on some runs only (attention's masks
// on the key blocks that need them): S reaches P through an scf.if result,
// and the products are still chained (all warps along M, no conversion).
// CHECK-LABEL: func.func @chained_through_if
// CHECK: %[[S:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #tile.layout<local(1,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK: %[[M:.*]] = scf.if
// CHECK: %[[E:.*]] = math.exp2 %[[M]]
// CHECK: %[[P:.*]] = tile.cast %[[E]] {{.*}} -> tensor<64x64xf16, #tile.layout<local(1,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
// CHECK-NOT: tile.convert_layout %[[P]]
// CHECK: tile.dot %[[P]], {{.*}} -> tensor<64x64xf32, #tile.layout<local(1,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>>
func.func @chained_through_if(%Q: !tile.ptr<f16>, %O: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %q = tile.view %Q(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %o = tile.view %O(%N, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x48xf16>
  %kt = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<48x64xf16>
  %v = tile.load %q[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  %z1 = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %a, %kt, %z1 : tensor<64x48xf16>, tensor<48x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  %edge = arith.cmpi slt, %N, %c64 : i32
  %m = scf.if %edge -> (tensor<64x64xf32>) {
    %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
    %masked = arith.maximumf %s, %ninf : tensor<64x64xf32>
    scf.yield %masked : tensor<64x64xf32>
  } else {
    scf.yield %s : tensor<64x64xf32>
  }
  %e = math.exp2 %m : tensor<64x64xf32>
  %p = tile.cast %e : tensor<64x64xf32> -> tensor<64x64xf16>
  %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.dot %p, %v, %z2 : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  tile.store %o[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}
