// RUN: tile-opt %s -split-input-file -tile-remove-conversions | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-remove-conversions -tile-remove-conversions | FileCheck %s

#A = #tile.layout<spatial(8,4) * local(2,4)>
#B = #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>
#C = #tile.layout<spatial(16,2) * local(1,8)>

// A chain A -> B -> C becomes A -> C; a conversion back to the layout the
// value already has disappears.
// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[X:.*]]: tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
// CHECK: %[[C:.*]] = tile.convert_layout %[[X]] : tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>> -> tensor<16x16xf32, #tile.layout<spatial(16,2) * local(1,8)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[C]], %[[X]]
func.func @chains(%x: tensor<16x16xf32, #A>) -> (tensor<16x16xf32, #C>, tensor<16x16xf32, #A>) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %0 = tile.convert_layout %x : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
  %1 = tile.convert_layout %0 : tensor<16x16xf32, #B> -> tensor<16x16xf32, #C>
  %2 = tile.convert_layout %0 : tensor<16x16xf32, #B> -> tensor<16x16xf32, #A>
  return %1, %2 : tensor<16x16xf32, #C>, tensor<16x16xf32, #A>
}

// -----

#A = #tile.layout<spatial(8,4) * local(2,4)>
#B = #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>

// Cheap producers are recreated in the layout that is needed: splat, iota,
// a dense constant, and a broadcast of an expand_dims of a splat.
// CHECK-LABEL: func.func @rematerialize
// CHECK-NOT: tile.convert_layout
// CHECK-DAG: tile.splat %{{.*}} : f32 -> tensor<16x16xf32, #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>>
// CHECK-DAG: tile.iota : tensor<16xi32, #tile.layout<spatial(8) * replicate(4) * local(2)>>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]> : tensor<16xf32, #tile.layout<spatial(8) * replicate(4) * local(2)>>
// CHECK-DAG: tile.splat %{{.*}} : f32 -> tensor<16xf32, #tile.layout<local(2) * spatial(8) * replicate(4)>>
// CHECK-DAG: tile.expand_dims %{{.*}} axis = 1 : tensor<16xf32, #tile.layout<local(2) * spatial(8) * replicate(4)>> -> tensor<16x1xf32, #tile.layout<local(2,1) * spatial(8,1) * replicate(4)>>
// CHECK-DAG: tile.broadcast %{{.*}} : tensor<16x1xf32, #tile.layout<local(2,1) * spatial(8,1) * replicate(4)>> -> tensor<16x16xf32, #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @rematerialize(%s: f32) -> (tensor<16x16xf32, #B>, tensor<16xi32, #tile.layout<spatial(8) * replicate(4) * local(2)>>, tensor<16xf32, #tile.layout<spatial(8) * replicate(4) * local(2)>>, tensor<16x16xf32, #B>) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %0 = tile.splat %s : f32 -> tensor<16x16xf32, #A>
  %1 = tile.convert_layout %0 : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
  %2 = tile.iota : tensor<16xi32, #tile.layout<spatial(16) * replicate(2) * local(1)>>
  %3 = tile.convert_layout %2 : tensor<16xi32, #tile.layout<spatial(16) * replicate(2) * local(1)>> -> tensor<16xi32, #tile.layout<spatial(8) * replicate(4) * local(2)>>
  %4 = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32, #tile.layout<spatial(16) * replicate(2) * local(1)>>
  %5 = tile.convert_layout %4 : tensor<16xf32, #tile.layout<spatial(16) * replicate(2) * local(1)>> -> tensor<16xf32, #tile.layout<spatial(8) * replicate(4) * local(2)>>
  %6 = tile.splat %s : f32 -> tensor<16xf32, #tile.layout<spatial(16) * replicate(2) * local(1)>>
  %7 = tile.expand_dims %6 axis = 1 : tensor<16xf32, #tile.layout<spatial(16) * replicate(2) * local(1)>> -> tensor<16x1xf32, #tile.layout<spatial(16,1) * replicate(2)>>
  %8 = tile.broadcast %7 : tensor<16x1xf32, #tile.layout<spatial(16,1) * replicate(2)>> -> tensor<16x16xf32, #A>
  %9 = tile.convert_layout %8 : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
  return %1, %3, %5, %9 : tensor<16x16xf32, #B>, tensor<16xi32, #tile.layout<spatial(8) * replicate(4) * local(2)>>, tensor<16xf32, #tile.layout<spatial(8) * replicate(4) * local(2)>>, tensor<16x16xf32, #B>
}

// -----

#A = #tile.layout<spatial(8,4) * local(2,4)>
#B = #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>

// A conversion of a loop-invariant value leaves the (nested) loops; one of
// a loop-carried value stays. Two conversions of one value to one layout
// become one.
// CHECK-LABEL: func.func @hoist
// CHECK-SAME: (%[[X:[^:]*]]: tensor<16x16xf32, #tile.layout<spatial(8,4) * local(2,4)>>
// CHECK: %[[H:.*]] = tile.convert_layout %[[X]] : {{.*}} -> tensor<16x16xf32, #tile.layout<local(2,1) * spatial(8,4) * local(1,4)>>
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] =
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[ACC]]
// CHECK-NEXT: arith.addf %[[C]], %[[H]]
// CHECK-NEXT: arith.mulf %[[C]], %[[H]]
func.func @hoist(%x: tensor<16x16xf32, #A>, %n: i32) -> tensor<16x16xf32, #B> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = tile.convert_layout %x : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%o = %z) -> (tensor<16x16xf32, #B>) : i32 {
    %r2 = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<16x16xf32, #A>) : i32 {
      %a = tile.convert_layout %acc : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
      %b = tile.convert_layout %x : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
      %c = arith.addf %a, %b : tensor<16x16xf32, #B>
      %b2 = tile.convert_layout %x : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
      %d = arith.mulf %a, %b2 : tensor<16x16xf32, #B>
      %e = arith.addf %c, %d : tensor<16x16xf32, #B>
      %f = tile.convert_layout %e : tensor<16x16xf32, #B> -> tensor<16x16xf32, #A>
      scf.yield %f : tensor<16x16xf32, #A>
    }
    %g = tile.convert_layout %r2 : tensor<16x16xf32, #A> -> tensor<16x16xf32, #B>
    scf.yield %g : tensor<16x16xf32, #B>
  }
  return %r : tensor<16x16xf32, #B>
}

// -----

// A shared load may read any layout: a conversion after a chain of
// single-use reshape / trans / cast moves into it (the chain's layouts are
// derived backward), and none is left. A small value with another user
// (512 elements, 16 per thread in the new layout) is read a second time in
// the needed layout; the first read stays for the other user.
// CHECK-LABEL: func.func @absorb
// CHECK: %[[L:.*]] = tile.shared_load {{.*}} -> tensor<1x16x32xf16, #tile.layout<local(1,1,16) * column_spatial(1,16,2)>>
// CHECK: %[[R:.*]] = tile.reshape %[[L]] : {{.*}} -> tensor<16x32xf16, #tile.layout<local(1,16) * column_spatial(16,2)>>
// CHECK: %[[T:.*]] = tile.trans %[[R]] : {{.*}} -> tensor<32x16xf16, #tile.layout<local(16,1) * spatial(2,16)>>
// CHECK: %[[C:.*]] = tile.cast %[[T]] : {{.*}} -> tensor<32x16xf32, #tile.layout<local(16,1) * spatial(2,16)>>
// CHECK: %[[KC:.*]] = tile.shared_load {{.*}} -> tensor<1x16x32xf16, #tile.layout<spatial(1,16,2) * local(1,1,16)>>
// CHECK: %[[K:.*]] = tile.shared_load {{.*}} -> tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[C]], %[[KC]], %[[K]]
func.func @absorb(%s: !tile.shared<1x16x32xf16>) -> (tensor<32x16xf32, #tile.layout<local(16,1) * spatial(2,16)>>, tensor<1x16x32xf16, #tile.layout<spatial(1,16,2) * local(1,1,16)>>, tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>>) attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %l = tile.shared_load %s[%c0, %c0, %c0] : !tile.shared<1x16x32xf16> -> tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>>
  %r = tile.reshape %l : tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>> -> tensor<16x32xf16, #tile.layout<spatial(2,16) * local(8,2)>>
  %t = tile.trans %r : tensor<16x32xf16, #tile.layout<spatial(2,16) * local(8,2)>> -> tensor<32x16xf16, #tile.layout<spatial(16,2) * local(2,8)>>
  %f = tile.cast %t : tensor<32x16xf16, #tile.layout<spatial(16,2) * local(2,8)>> -> tensor<32x16xf32, #tile.layout<spatial(16,2) * local(2,8)>>
  %c = tile.convert_layout %f : tensor<32x16xf32, #tile.layout<spatial(16,2) * local(2,8)>> -> tensor<32x16xf32, #tile.layout<local(16,1) * spatial(2,16)>>
  %k = tile.shared_load %s[%c0, %c0, %c0] : !tile.shared<1x16x32xf16> -> tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>>
  %kc = tile.convert_layout %k : tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>> -> tensor<1x16x32xf16, #tile.layout<spatial(1,16,2) * local(1,1,16)>>
  return %c, %kc, %k : tensor<32x16xf32, #tile.layout<local(16,1) * spatial(2,16)>>, tensor<1x16x32xf16, #tile.layout<spatial(1,16,2) * local(1,1,16)>>, tensor<1x16x32xf16, #tile.layout<spatial(1,2,16) * local(1,8,2)>>
}

// -----

// Sub-byte elements: a shared load reads only layouts in which every thread
// holds whole bytes. A conversion to local(1,2) * spatial(1,64) (each
// thread's two i4 elements 64 apart) stays; one to spatial(1,64) *
// local(1,2) (two adjacent elements, one byte) moves into the load.
// CHECK-LABEL: func.func @subbyte
// CHECK: %[[A:.*]] = tile.shared_load {{.*}} -> tensor<1x128xi4, #tile.layout<replicate(16) * spatial(1,4) * local(1,32)>>
// CHECK: %[[AC:.*]] = tile.convert_layout %[[A]] {{.*}} -> tensor<1x128xi4, #tile.layout<local(1,2) * spatial(1,64)>>
// CHECK: %[[B:.*]] = tile.shared_load {{.*}} -> tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[AC]], %[[B]]
func.func @subbyte(%s: !tile.shared<1x128xi4>) -> (tensor<1x128xi4, #tile.layout<local(1,2) * spatial(1,64)>>, tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>) attributes {tile.kernel, tile.warps = 2 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.shared_load %s[%c0, %c0] : !tile.shared<1x128xi4> -> tensor<1x128xi4, #tile.layout<replicate(16) * spatial(1,4) * local(1,32)>>
  %ac = tile.convert_layout %a : tensor<1x128xi4, #tile.layout<replicate(16) * spatial(1,4) * local(1,32)>> -> tensor<1x128xi4, #tile.layout<local(1,2) * spatial(1,64)>>
  %b = tile.shared_load %s[%c0, %c0] : !tile.shared<1x128xi4> -> tensor<1x128xi4, #tile.layout<replicate(16) * spatial(1,4) * local(1,32)>>
  %bc = tile.convert_layout %b : tensor<1x128xi4, #tile.layout<replicate(16) * spatial(1,4) * local(1,32)>> -> tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>
  return %ac, %bc : tensor<1x128xi4, #tile.layout<local(1,2) * spatial(1,64)>>, tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>
}

// -----

// Binary elementwise chains: -z * s of two small shared loads (a zero point
// and a scale row) comes out in the layout of the tile it is broadcast
// over; both rows are read again in that layout, the first reads stay for
// their other users. A value of 2048 elements (64 per thread) with another user
// keeps its conversion (duplicating it would cost more than converting).
// CHECK-LABEL: func.func @binary_and_duplicate
// CHECK-DAG: %[[S2:.*]] = tile.shared_load %arg0{{.*}} -> tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>
// CHECK-DAG: %[[Z2:.*]] = tile.shared_load %arg1{{.*}} -> tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>
// CHECK-DAG: %[[ZS:.*]] = arith.mulf %[[Z2]], %[[S2]] : tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>
// CHECK-DAG: %[[NEG:.*]] = arith.subf %{{.*}}, %[[ZS]] : tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>
// CHECK-DAG: tile.shared_load %arg0{{.*}} -> tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
// CHECK-DAG: tile.shared_load %arg1{{.*}} -> tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
// CHECK-DAG: %[[BIG:.*]] = tile.shared_load %arg2{{.*}} -> tensor<32x64xf16, #tile.layout<spatial(8,4) * local(4,16)>>
// CHECK-DAG: tile.convert_layout %[[BIG]] {{.*}} -> tensor<32x64xf16, #tile.layout<local(1,64) * spatial(32,1)>>
func.func @binary_and_duplicate(%s: !tile.shared<64xf16>, %z: !tile.shared<64xf16>, %b: !tile.shared<32x64xf16>)
    -> (tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>, tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>,
        tensor<32x64xf16, #tile.layout<local(1,2) * spatial(32,1) * local(1,32)>>, tensor<32x64xf16, #tile.layout<spatial(8,4) * local(4,16)>>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %sv = tile.shared_load %s[%c0] : !tile.shared<64xf16> -> tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %zv = tile.shared_load %z[%c0] : !tile.shared<64xf16> -> tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %zs = arith.mulf %zv, %sv : tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %neg = arith.subf %zero, %zs : tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %conv = tile.convert_layout %neg : tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>> -> tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>
  %other = arith.addf %sv, %zv : tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>
  %big = tile.shared_load %b[%c0, %c0] : !tile.shared<32x64xf16> -> tensor<32x64xf16, #tile.layout<spatial(8,4) * local(4,16)>>
  %bigc = tile.convert_layout %big : tensor<32x64xf16, #tile.layout<spatial(8,4) * local(4,16)>> -> tensor<32x64xf16, #tile.layout<local(1,2) * spatial(32,1) * local(1,32)>>
  return %conv, %other, %bigc, %big : tensor<64xf16, #tile.layout<replicate(16) * spatial(2) * local(32)>>, tensor<64xf16, #tile.layout<replicate(4) * spatial(8) * local(8)>>,
      tensor<32x64xf16, #tile.layout<local(1,2) * spatial(32,1) * local(1,32)>>, tensor<32x64xf16, #tile.layout<spatial(8,4) * local(4,16)>>
}

// -----

// A 4-bit tile read from shared memory and cast to f16, wanted in a layout
// whose slots are not in memory order (here each thread's pairs 4 apart):
// the load and the cast take the same threads with slots in memory order
// (converted a 32-bit word at a time on GPUs), and a conversion that only
// renames registers follows. Run twice, nothing changes.
// CHECK-LABEL: func.func @word_order
// CHECK: %[[L:.*]] = tile.shared_load {{.*}} -> tensor<1x256xi4, #tile.layout<spatial(1,32) * local(1,8)>>
// CHECK: %[[C:.*]] = tile.cast %[[L]] {src_unsigned} : {{.*}} -> tensor<1x256xf16, #tile.layout<spatial(1,32) * local(1,8)>>
// CHECK: %[[R:.*]] = tile.convert_layout %[[C]] : {{.*}} -> tensor<1x256xf16, #tile.layout<modes(dims={{.*}}, spatial=[0], local=[2,1])>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[R]]
func.func @word_order(%s: !tile.shared<1x256xi4>) -> tensor<1x256xf16, #tile.layout<modes(dims=[[1], [32,2,4]], spatial=[1], local=[0,3,2])>> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %l = tile.shared_load %s[%c0, %c0] : !tile.shared<1x256xi4> -> tensor<1x256xi4, #tile.layout<local(1,8) * spatial(1,32)>>
  %c = tile.cast %l {src_unsigned} : tensor<1x256xi4, #tile.layout<local(1,8) * spatial(1,32)>> -> tensor<1x256xf16, #tile.layout<local(1,8) * spatial(1,32)>>
  %r = tile.convert_layout %c : tensor<1x256xf16, #tile.layout<local(1,8) * spatial(1,32)>> -> tensor<1x256xf16, #tile.layout<modes(dims=[[1], [32,2,4]], spatial=[1], local=[0,3,2])>>
  return %r : tensor<1x256xf16, #tile.layout<modes(dims=[[1], [32,2,4]], spatial=[1], local=[0,3,2])>>
}

// -----

// A small tile (512 elements) with another user is duplicated only when the
// copy stays within 32 slots per thread: here the wanted layout gives each
// thread 64 (a row replicated over 4 threads), so the conversion stays.
// CHECK-LABEL: func.func @duplicate_slot_bound
// CHECK: %[[L:.*]] = tile.shared_load {{.*}} -> tensor<8x64xf16, #tile.layout<spatial(8,4) * local(1,16)>>
// CHECK: tile.convert_layout %[[L]]
// CHECK-NOT: tile.shared_load
// CHECK: return
func.func @duplicate_slot_bound(%s: !tile.shared<8x64xf16>)
    -> (tensor<8x64xf16, #tile.layout<replicate(4) * spatial(8,1) * local(1,64)>>, tensor<8x64xf16, #tile.layout<spatial(8,4) * local(1,16)>>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %l = tile.shared_load %s[%c0, %c0] : !tile.shared<8x64xf16> -> tensor<8x64xf16, #tile.layout<spatial(8,4) * local(1,16)>>
  %c = tile.convert_layout %l : tensor<8x64xf16, #tile.layout<spatial(8,4) * local(1,16)>> -> tensor<8x64xf16, #tile.layout<replicate(4) * spatial(8,1) * local(1,64)>>
  return %c, %l : tensor<8x64xf16, #tile.layout<replicate(4) * spatial(8,1) * local(1,64)>>, tensor<8x64xf16, #tile.layout<spatial(8,4) * local(1,16)>>
}

// -----

// A broadcast (per-group scale rows spread over the rows of each group) is
// recreated in the needed layout, its operand chain read in that layout
// with the broadcast dimension replicated; no conversion is left.
// (gemm_decode_packed with two scale groups per chunk re-paired its
// weight registers with PRMT before: the conversion stayed after the
// scaling.)
// CHECK-LABEL: func.func @absorb_broadcast
// CHECK: tile.shared_load {{.*}} -> tensor<2x32xf16, #tile.layout<local(2,1) * replicate(16) * spatial(1,2) * local(1,16)>>
// CHECK: tile.expand_dims {{.*}} -> tensor<2x1x32xf16, #tile.layout<local(2,1,1) * replicate(16) * spatial(1,1,2) * local(1,1,16)>>
// CHECK: %[[B:.*]] = tile.broadcast {{.*}} -> tensor<2x16x32xf16, #tile.layout<local(2,1,1) * spatial(1,16,2) * local(1,1,16)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[B]]
func.func @absorb_broadcast(%s: !tile.shared<2x32xf16>) -> tensor<2x16x32xf16, #tile.layout<local(2,1,1) * spatial(1,16,2) * local(1,1,16)>> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %l = tile.shared_load %s[%c0, %c0] : !tile.shared<2x32xf16> -> tensor<2x32xf16, #tile.layout<local(2,1) * spatial(1,32)>>
  %e = tile.expand_dims %l axis = 1 : tensor<2x32xf16, #tile.layout<local(2,1) * spatial(1,32)>> -> tensor<2x1x32xf16, #tile.layout<local(2,1,1) * spatial(1,1,32)>>
  %b = tile.broadcast %e : tensor<2x1x32xf16, #tile.layout<local(2,1,1) * spatial(1,1,32)>> -> tensor<2x16x32xf16, #tile.layout<local(2,16,1) * spatial(1,1,32)>>
  %c = tile.convert_layout %b : tensor<2x16x32xf16, #tile.layout<local(2,16,1) * spatial(1,1,32)>> -> tensor<2x16x32xf16, #tile.layout<local(2,1,1) * spatial(1,16,2) * local(1,1,16)>>
  return %c : tensor<2x16x32xf16, #tile.layout<local(2,1,1) * spatial(1,16,2) * local(1,1,16)>>
}
