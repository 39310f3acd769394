// RUN: tile-opt %s -split-input-file -tile-pipeline=target=gfx942 | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline=target=host | FileCheck %s --check-prefix=HOST

// gfx942 has no asynchronous copies: the loads are prefetched into
// registers. Three stages: B = 2 LDS buffers per load. Prologue: the tiles
// of iteration 0 go straight to buffer 0, those of iteration 1 (k = 16)
// into registers. In the loop: one barrier, the registers to the write
// buffer, the read buffer into the body's layouts, the loads of iteration
// k + 2*16 into the registers yielded to the next iteration.
// CHECK-LABEL: func.func @two_loads
// CHECK-SAME: (%[[PA:[^:]*]]: !tile.ptr<f16>, %[[PB:[^:]*]]: !tile.ptr<f16>, %[[N:[^:]*]]: i32
// CHECK: %[[VA:.*]] = tile.view %[[PA]]
// CHECK: %[[VB:.*]] = tile.view %[[PB]]
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.shared<2x32x16xf16>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<2x16x32xf16>
// CHECK-NOT: tile.copy_async
// CHECK: %[[A0:.*]] = tile.load %[[VA]][%[[C0]], %[[C0]]]
// CHECK: tile.shared_store %[[RA]][%[[S0:.*]], %{{.*}}, %{{.*}}], %[[A0]]
// CHECK: %[[K0B:.*]] = arith.addi %[[C0]], %[[C16]]
// CHECK: %[[B0:.*]] = tile.load %[[VB]][%[[K0B]], %[[C0]]]
// CHECK: tile.shared_store %[[RB]][%[[S0]], %{{.*}}, %{{.*}}], %[[B0]]
// CHECK: %[[K1:.*]] = arith.addi %[[C0]], %{{.*}}
// CHECK: %[[A1:.*]] = tile.load %[[VA]][%[[C0]], %[[K1]]]
// CHECK: %[[K1B:.*]] = arith.addi %[[K1]], %[[C16]]
// CHECK: %[[B1:.*]] = tile.load %[[VB]][%[[K1B]], %[[C0]]]
// CHECK: %[[RES:.*]]:5 = scf.for %[[K:.*]] = %[[C0]] to %[[N]] step %[[C16]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[GA:.*]] = %[[A1]], %[[GB:.*]] = %[[B1]], %[[RS:.*]] = %{{.*}}, %[[WS:.*]] = %{{.*}})
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: tile.shared_store %[[RA]][%[[WS]], %{{.*}}, %{{.*}}], %[[GA]]
// CHECK: tile.shared_store %[[RB]][%[[WS]], %{{.*}}, %{{.*}}], %[[GB]]
// CHECK-NOT: tile.barrier
// CHECK: %[[TA:.*]] = tile.shared_load %[[RA]][%[[RS]], %{{.*}}, %{{.*}}] : !tile.shared<2x32x16xf16> -> tensor<32x16xf16, #tile.layout<local(1,16) * spatial(32,1)>>
// CHECK: %[[TB:.*]] = tile.shared_load %[[RB]][%[[RS]], %{{.*}}, %{{.*}}] : !tile.shared<2x16x32xf16> -> tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>>
// CHECK: %[[AHEAD:.*]] = arith.muli %[[C16]], %{{.*}}
// CHECK: %[[KN:.*]] = arith.addi %[[K]], %[[AHEAD]]
// CHECK: %[[NA:.*]] = tile.load %[[VA]][%[[C0]], %[[KN]]]
// CHECK: %[[KNB:.*]] = arith.addi %[[KN]], %[[C16]]
// CHECK: %[[NB:.*]] = tile.load %[[VB]][%[[KNB]], %[[C0]]]
// CHECK: tile.convert_layout %[[TB]]
// CHECK: tile.dot %[[TA]]
// CHECK: scf.yield %{{.*}}, %[[NA]], %[[NB]], %{{.*}}, %{{.*}}
// CHECK-NOT: tile.pipeline
// CHECK-NOT: tile.wait
// CHECK: return %[[RES]]#0
// HOST-LABEL: func.func @two_loads
// HOST-NOT: tile.alloc_shared
// HOST-NOT: tile.pipeline
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
    %ca = tile.convert_layout %ta : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>> -> tensor<32x16xf16, #tile.layout<local(1,16) * spatial(32,1)>>
    %cb = tile.convert_layout %tb : tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>> -> tensor<16x32xf16, #tile.layout<local(16,1) * spatial(1,32)>>
    %e = arith.addf %tb, %tb : tensor<16x32xf16, #tile.layout<spatial(16,2) * local(1,16)>>
    %d = tile.dot %ca, %cb, %acc : tensor<32x16xf16, #tile.layout<spatial(32,1) * local(1,16)>>, tensor<16x32xf16, #tile.layout<local(16,1) * spatial(1,32)>>, tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>> -> tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
    scf.yield %d : tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<32x32xf32, #tile.layout<local(1,8) * spatial(32,1) * local(1,4)>>
}

// -----

// Two stages: one LDS buffer, so the stage index is the constant 0 and a
// second barrier separates the store from the read of the same buffer. The
// prologue only loads iteration 0 into registers; the loop prefetches
// iteration k + 16.
// CHECK-LABEL: func.func @one_buffer
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[R:.*]] = tile.alloc_shared : !tile.shared<1x32x16xf16>
// CHECK-NOT: tile.shared_store
// CHECK: %[[G0:.*]] = tile.load %{{.*}}[%[[C0]], %[[C0]]]
// CHECK: %[[RES:.*]]:2 = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %[[C16]] iter_args(%{{.*}} = %{{.*}}, %[[G:.*]] = %[[G0]])
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: tile.shared_store %[[R]][%[[Z]], %{{.*}}, %{{.*}}], %[[G]]
// CHECK-NEXT: tile.barrier
// CHECK: %[[T:.*]] = tile.shared_load %[[R]][%[[Z]], %{{.*}}, %{{.*}}]
// CHECK: %[[KN:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: %[[N1:.*]] = tile.load %{{.*}}[%[[C0]], %[[KN]]]
// CHECK: arith.addf %[[T]], %[[T]]
// CHECK: scf.yield %{{.*}}, %[[N1]] :
func.func @one_buffer(%PA: !tile.ptr<f16>, %N: i32) -> tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
  %r = scf.for %k = %c0 to %N step %c16 iter_args(%acc = %zero) -> (tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
    %s = arith.addf %ta, %ta : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
    %n = arith.addf %acc, %s : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
    scf.yield %n : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
  } {tile.pipeline = 2 : i32}
  return %r : tensor<32x16xf16, #tile.layout<local(2,1) * spatial(16,2) * local(1,8)>>
}
