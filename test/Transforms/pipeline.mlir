// RUN: tile-opt %s -split-input-file -tile-pipeline | FileCheck %s

// Three stages, two loads: two rings of 3 stages, a prologue with the
// copies of iterations 0 and 1 (stages 0 and 1), and in the loop: wait until
// at most (3-2)*2 = 2 groups are pending, barrier, read the current stage
// (the A tile straight into the layout its conversion wanted), issue the
// copies of iteration k + 2*step into the write stage, then the body.
// Every copy is predicated on its iteration being below the upper bound N
// (past the end: an empty group), one compare per iteration for all its
// copies.
// CHECK-LABEL: func.func @two_loads
// CHECK-SAME: (%[[PA:[^:]*]]: !tile.ptr<f16>, %[[PB:[^:]*]]: !tile.ptr<f16>, %[[N:[^:]*]]: i32
// CHECK: %[[VA:.*]] = tile.view %[[PA]]
// CHECK: %[[VB:.*]] = tile.view %[[PB]]
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.shared<3x32x16xf16>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<3x16x32xf16>
// Iteration 0 (k = 0): the B offsets are computed from k (k + 16).
// CHECK: %[[P0:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : i32
// CHECK: tile.copy_async %[[VA]][%[[C0]], %[[C0]]] -> %[[RA]][%[[S0:.*]], %{{.*}}, %{{.*}}] if %[[P0]] :
// CHECK: %[[K0B:.*]] = arith.addi %[[C0]], %[[C16]]
// CHECK-NOT: arith.cmpi
// CHECK: tile.copy_async %[[VB]][%[[K0B]], %[[C0]]] -> %[[RB]][%[[S0]], %{{.*}}, %{{.*}}] if %[[P0]] :
// Iteration 1 (k = 0 + 16 * 1).
// CHECK: %[[K1:.*]] = arith.addi %[[C0]], %{{.*}}
// CHECK: %[[P1:.*]] = arith.cmpi slt, %[[K1]], %[[N]] : i32
// CHECK: tile.copy_async %[[VA]][%[[C0]], %[[K1]]] -> %[[RA]][%[[S1:.*]], %{{.*}}, %{{.*}}] if %[[P1]] :
// CHECK: %[[K1B:.*]] = arith.addi %[[K1]], %[[C16]]
// CHECK: tile.copy_async %[[VB]][%[[K1B]], %[[C0]]] -> %[[RB]][%[[S1]],
// CHECK: %[[AHEAD:.*]] = arith.muli %[[C16]], %{{.*}}
// CHECK: %[[RES:.*]]:3 = scf.for %[[K:.*]] = %[[C0]] to %[[N]] step %[[C16]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[RS:.*]] = %{{.*}}, %[[WS:.*]] = %{{.*}}) -> (tensor<32x32xf32, #tile.layout<local(1,32) * spatial(32,1)>>, i32, i32)
// CHECK-NEXT: tile.wait 2
// CHECK-NEXT: tile.barrier
// CHECK: %[[TA:.*]] = tile.shared_load %[[RA]][%[[RS]], %{{.*}}, %{{.*}}] : !tile.shared<3x32x16xf16> -> tensor<32x16xf16, #tile.layout<local(1,16) * spatial(32,1)>>
// CHECK: %[[TB:.*]] = tile.shared_load %[[RB]][%[[RS]], %{{.*}}, %{{.*}}] : !tile.shared<3x16x32xf16> -> tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>>
// CHECK: %[[KN:.*]] = arith.addi %[[K]], %[[AHEAD]]
// CHECK: %[[PN:.*]] = arith.cmpi slt, %[[KN]], %[[N]] : i32
// CHECK: tile.copy_async %[[VA]][%[[C0]], %[[KN]]] -> %[[RA]][%[[WS]], %{{.*}}, %{{.*}}] if %[[PN]] :
// CHECK: %[[KNB:.*]] = arith.addi %[[KN]], %[[C16]]
// CHECK-NOT: arith.cmpi
// CHECK: tile.copy_async %[[VB]][%[[KNB]], %[[C0]]] -> %[[RB]][%[[WS]], %{{.*}}, %{{.*}}] if %[[PN]] :
// CHECK-NOT: tile.load
// CHECK-NOT: tile.convert_layout %[[TA]]
// CHECK: tile.convert_layout %[[TB]]
// CHECK: tile.dot %[[TA]]
// CHECK: %[[RS1:.*]] = arith.addi %[[RS]], %[[ONE:.*]] : i32
// CHECK: %[[RSW:.*]] = arith.cmpi eq, %[[RS1]], %[[THREE:.*]] : i32
// CHECK: %[[RSN:.*]] = arith.select %[[RSW]], %{{.*}}, %[[RS1]] : i32
// CHECK: %[[WS1:.*]] = arith.addi %[[WS]], %[[ONE]] : i32
// CHECK: %[[WSW:.*]] = arith.cmpi eq, %[[WS1]], %[[THREE]] : i32
// CHECK: %[[WSN:.*]] = arith.select %[[WSW]], %{{.*}}, %[[WS1]] : i32
// CHECK: scf.yield %{{.*}}, %[[RSN]], %[[WSN]]
// CHECK: }
// CHECK-NOT: tile.pipeline
// CHECK-NEXT: tile.wait 0
// CHECK-NEXT: return %[[RES]]#0
func.func @two_loads(%PA: !tile.ptr<f16>, %PB: !tile.ptr<f16>, %N: i32) -> tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
  %r = scf.for %k = %c0 to %N step %c16 iter_args(%acc = %zero) -> (tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
    %kb = arith.addi %k, %c16 : i32
    %tb = tile.load %b[%kb, %c0] : !tile.view<?x?xf16> -> tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>>
    %ca = tile.convert_layout %ta : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>> -> tensor<32x16xf16, #tile.layout<spatial(32,1) * local(1,16)>>
    %cb = tile.convert_layout %tb : tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>> -> tensor<16x32xf16, #tile.layout<local(16,1) * spatial(1,32)>>
    %e = arith.addf %tb, %tb : tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>>
    %d = tile.dot %ca, %cb, %acc : tensor<32x16xf16, #tile.layout<spatial(32,1) * local(1,16)>>, tensor<16x32xf16, #tile.layout<local(16,1) * spatial(1,32)>>, tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>> -> tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
    scf.yield %d : tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
}

// -----

// Not pipelined: one stage (the attribute goes), a loop that stores to
// global memory, a load whose padding is not zero and a load whose offset
// depends on a loop-carried value.
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: tile.copy_async
// CHECK-NOT: tile.alloc_shared
// CHECK-NOT: tile.pipeline = 1
// CHECK: tile.load
// CHECK: tile.pipeline = 2
// CHECK: tile.load {{.*}} padding
// CHECK: tile.pipeline = 2
// CHECK: tile.load
// CHECK: tile.pipeline = 2
// CHECK-NOT: tile.copy_async
func.func @not_pipelined(%P: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32} {
  %v = tile.view %P(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  scf.for %k = %c0 to %N step %c32 : i32 {
    %t = tile.load %v[%k] : !tile.view<?xf32> -> tensor<32xf32>
    scf.yield
  } {tile.pipeline = 1 : i32}
  scf.for %k = %c0 to %N step %c32 : i32 {
    %t = tile.load %v[%k] : !tile.view<?xf32> -> tensor<32xf32>
    tile.store %v[%k], %t : !tile.view<?xf32>, tensor<32xf32>
    scf.yield
  } {tile.pipeline = 2 : i32}
  %s = scf.for %k = %c0 to %N step %c32 iter_args(%acc = %c0) -> (i32) : i32 {
    %t = tile.load %v[%k] padding(1.0 : f32) : !tile.view<?xf32> -> tensor<32xf32>
    scf.yield %acc : i32
  } {tile.pipeline = 2 : i32}
  %s2 = scf.for %k = %c0 to %N step %c32 iter_args(%off = %c0) -> (i32) : i32 {
    %t = tile.load %v[%off] : !tile.view<?xf32> -> tensor<32xf32>
    %n = arith.addi %off, %c32 : i32
    scf.yield %n : i32
  } {tile.pipeline = 2 : i32}
  return
}

// -----

// cp.async copies rows of whole 4-byte words: a tile whose rows are 2 bytes
// (16 x 1 f16) or 3 nibbles (8 x 3 i4) stays a synchronous load (the
// lowering of tile.copy_async would have no 4-byte runs to copy); a 16 x 2
// f16 tile in the same loop is pipelined.
// CHECK-LABEL: func.func @narrow_rows
// CHECK: tile.alloc_shared : !tile.shared<2x16x2xf16>
// CHECK-NOT: tile.alloc_shared
// CHECK: scf.for
// CHECK: tile.shared_load
// CHECK: tile.copy_async
// CHECK-NOT: tile.copy_async
// CHECK: tile.load {{.*}} -> tensor<16x1xf16>
// CHECK: tile.load {{.*}} -> tensor<8x3xi4>
// CHECK-NOT: tile.copy_async
func.func @narrow_rows(%P: !tile.ptr<f16>, %Q: !tile.ptr<i4>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32} {
  %v = tile.view %P(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %w = tile.view %Q(%N, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %N step %c1 : i32 {
    %a = tile.load %v[%c0, %k] : !tile.view<?x?xf16> -> tensor<16x2xf16>
    %b = tile.load %v[%c0, %k] : !tile.view<?x?xf16> -> tensor<16x1xf16>
    %c = tile.load %w[%c0, %k] : !tile.view<?x?xi4> -> tensor<8x3xi4>
    scf.yield
  } {tile.pipeline = 2 : i32}
  return
}
