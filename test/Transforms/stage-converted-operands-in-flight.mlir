// RUN: tile-opt %s -split-input-file -tile-pipeline=target=sm_90a -tile-stage-converted-operands=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline=target=sm_80 -tile-stage-converted-operands=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a tma=true" -tile-stage-converted-operands=target=sm_90a | FileCheck %s --check-prefix=TMA

#a = #tile.layout<local(8,1) * spatial(16,8) * local(1,8)>
#ad = #tile.layout<local(2,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
#w = #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>
#wd = #tile.layout<local(4,16) * local(2,1) * replicate(4) * column_spatial(4,8) * local(2,1)>
#c = #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>

// gemm_wq at a prefill tile (128 x 128 x 64, 4 warps): A is a pipelined
// load, B the dequantized weight, which the threads compute and which
// reaches the wgmma operand through shared memory. tile-pipeline leaves the
// dot's MMA group in flight (copies after the dot and a barrier, as for two
// loaded operands), and tile-stage-converted-operands gives B two buffers:
// iteration i stores into buffer i mod 2 (an iteration argument flipped by
// each iteration) while the group of iteration i-1 still reads the other;
// the barrier after the dot (every warp retired the group of i-1) orders
// iteration i+1's stores after the reads of the buffer they overwrite, so
// no barrier precedes the stores but the one at the top of the iteration.
// CHECK-LABEL: func.func @wq_prefill
// CHECK:       %[[BUF:.*]] = tile.alloc_shared : !tile.shared<2x64x128xf16>
// CHECK:       scf.for {{.*}} iter_args({{.*}}, %[[SLOT:[^ ]*]] = %c0_i32{{[_0-9]*}})
// CHECK-NEXT:    tile.wait
// CHECK-NEXT:    tile.barrier
// CHECK-NOT:     tile.barrier
// CHECK:         %[[W:.*]] = tile.cast
// CHECK-NOT:     tile.barrier
// CHECK:         tile.shared_store %[[BUF]][%[[SLOT]], %[[Z:.*]], %[[Z]]], %[[W]]
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    %[[B:.*]] = tile.shared_load %[[BUF]][%[[SLOT]], %[[Z]], %[[Z]]]
// CHECK-NEXT:    tile.dot %{{.*}}, %[[B]], %{{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT:    tile.barrier
// CHECK-COUNT-2: tile.copy_async
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.xori %[[SLOT]], %[[ONE]]
// CHECK-NEXT:    scf.yield {{.*}}, %[[NEXT]]
// On sm_80 (mma.sync, nothing in flight) one buffer; the barrier at the top
// of the iteration follows the previous iteration's reads of it (its dot
// is done), and one barrier follows the stores.
// SM80-LABEL: func.func @wq_prefill
// SM80:       %[[BUF:.*]] = tile.alloc_shared : !tile.shared<64x128xf16>
// SM80:       scf.for
// SM80-NEXT:    tile.wait
// SM80-NEXT:    tile.barrier
// SM80-NOT:     tile.barrier
// SM80:         tile.shared_store %[[BUF]]
// SM80-NEXT:    tile.barrier
// SM80-NEXT:    tile.shared_load %[[BUF]]
// SM80-NEXT:    tile.dot
// SM80-NOT:     tile.mma_in_flight
// SM80:         scf.yield
// With TMA asked for: neither load is TMA-copyable (the weight's 4-bit
// codes are not whole bytes, A's view has no declared shape here; with one
// gemm_wq's A is a TMA copy beside the others' cp.async copies:
// pipeline-tma.mlir), the loop keeps cp.async copies, and the dot stays in
// flight all the same.
// TMA-LABEL: func.func @wq_prefill
// TMA:       tile.alloc_shared : !tile.shared<2x64x128xf16>
// TMA-NOT:   tile.mbarrier_init
// TMA:       tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
func.func @wq_prefill(%PA: !tile.ptr<f16>, %PW: !tile.ptr<i4>, %M: i32, %K: i32, %N: i32) -> tensor<128x128xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %va = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %PW(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tw = tile.load %vw[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x128xi4, #w>
    %wf = tile.cast %tw {src_unsigned} : tensor<64x128xi4, #w> -> tensor<64x128xf16, #w>
    %ad = tile.convert_layout %ta : tensor<128x64xf16, #a> -> tensor<128x64xf16, #ad>
    %wd = tile.convert_layout %wf : tensor<64x128xf16, #w> -> tensor<64x128xf16, #wd>
    %d = tile.dot %ad, %wd, %acc : tensor<128x64xf16, #ad>, tensor<64x128xf16, #wd>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    scf.yield %d : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<128x128xf32, #c>
}

// -----

#a = #tile.layout<local(8,1) * spatial(16,8) * local(1,8)>
#ad = #tile.layout<local(2,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
#w = #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>
#wd = #tile.layout<local(4,16) * local(2,1) * replicate(4) * column_spatial(4,8) * local(2,1)>
#c = #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>

// Not in flight: the accumulator is also read in the loop (the staged B
// keeps one buffer and its barriers).
// CHECK-LABEL: func.func @acc_read_in_loop
// CHECK:       tile.alloc_shared : !tile.shared<64x128xf16>
// CHECK-NOT:   tile.mma_in_flight
// CHECK:       return
func.func @acc_read_in_loop(%PA: !tile.ptr<f16>, %PW: !tile.ptr<i4>, %M: i32, %K: i32, %N: i32) -> tensor<128x128xf32, #c> attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %va = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %PW(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #c>) : i32 {
    %ta = tile.load %va[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tw = tile.load %vw[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x128xi4, #w>
    %wf = tile.cast %tw {src_unsigned} : tensor<64x128xi4, #w> -> tensor<64x128xf16, #w>
    %ad = tile.convert_layout %ta : tensor<128x64xf16, #a> -> tensor<128x64xf16, #ad>
    %wd = tile.convert_layout %wf : tensor<64x128xf16, #w> -> tensor<64x128xf16, #wd>
    %d = tile.dot %ad, %wd, %acc : tensor<128x64xf16, #ad>, tensor<64x128xf16, #wd>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    %e = arith.addf %d, %acc : tensor<128x128xf32, #c>
    scf.yield %e : tensor<128x128xf32, #c>
  } {tile.pipeline = 3 : i32}
  return %r : tensor<128x128xf32, #c>
}
