// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_90a -tile-remove-conversions -tile-stage-converted-operands=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=gfx942 -tile-remove-conversions -tile-stage-converted-operands=target=gfx942 | FileCheck %s --check-prefix=AMD

// A weight-only quantized product in a loop: the dequantized u4 weight and
// the coalesced A tile both reach their mma.sync layouts through shared
// memory. On sm_90a both are written to new buffers right before the dot
// (one barrier before the stores, one after) and read back there in the
// operand layouts, so the lowering fuses the reads into the dot (ldmatrix);
// no convert_layout is left in the loop. On gfx942 (no matrix load to fuse
// with) the conversions stay.
// CHECK-LABEL: func.func @wq
// CHECK-DAG:   %[[BA:.*]] = tile.alloc_shared : !tile.shared<16x64xf16>
// CHECK-DAG:   %[[BW:.*]] = tile.alloc_shared : !tile.shared<64x64xf16>
// CHECK:       scf.for
// CHECK:         %[[A:.*]] = tile.load %{{.*}} -> tensor<16x64xf16, #tile.layout<[[AL:[^>]*]]>>
// CHECK:         %[[W:.*]] = tile.cast %{{.*}} -> tensor<64x64xf16, #tile.layout<[[WL:[^>]*]]>>
// CHECK-NOT:     tile.convert_layout
// CHECK:         tile.barrier
// CHECK-NEXT:    tile.shared_store %[[BA]][%[[Z:.*]], %[[Z]]], %[[A]] : !tile.shared<16x64xf16>, tensor<16x64xf16, #tile.layout<[[AL]]>>
// CHECK-NEXT:    tile.shared_store %[[BW]][%[[Z]], %[[Z]]], %[[W]] : !tile.shared<64x64xf16>, tensor<64x64xf16, #tile.layout<[[WL]]>>
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    %[[RA:.*]] = tile.shared_load %[[BA]][%[[Z]], %[[Z]]]
// CHECK-NEXT:    %[[RW:.*]] = tile.shared_load %[[BW]][%[[Z]], %[[Z]]]
// CHECK-NEXT:    tile.dot %[[RA]], %[[RW]]
// CHECK:       scf.yield
// AMD-LABEL: func.func @wq
// AMD-NOT:   tile.alloc_shared
// AMD:       tile.convert_layout
// AMD:       tile.dot
func.func @wq(%A: !tile.ptr<f16>, %W: !tile.ptr<i4>, %C: !tile.ptr<f32>, %M: i32, %K: i32, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vw = tile.view %W(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %vc = tile.view %C(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %a = tile.load %va[%c0, %k] : !tile.view<?x?xf16> -> tensor<16x64xf16>
    %wq = tile.load %vw[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x64xi4>
    %w = tile.cast %wq {src_unsigned} : tensor<64x64xi4> -> tensor<64x64xf16>
    %d = tile.dot %a, %w, %acc : tensor<16x64xf16>, tensor<64x64xf16>, tensor<16x64xf32> -> tensor<16x64xf32>
    scf.yield %d : tensor<16x64xf32>
  }
  tile.store %vc[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<16x64xf32>
  return
}

// -----

// Attention's P: the accumulator of the first product, cast to f16, is the
// A operand of the second. That conversion is a register renaming (the
// mma.sync accumulator and A fragments line up), cheaper than any buffer:
// P is not staged. K^T and V, loaded coalesced and converted through shared
// memory, are; V's store needs no barrier of its own (the one after K^T's
// store already follows the previous iteration's reads).
// CHECK-LABEL: func.func @pv
// CHECK:       scf.for
// CHECK:         tile.barrier
// CHECK-NEXT:    tile.shared_store
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    %[[KT:.*]] = tile.shared_load
// CHECK-NEXT:    %[[S:.*]] = tile.dot %{{.*}}, %[[KT]]
// CHECK-NEXT:    %[[P:.*]] = tile.cast %[[S]]
// CHECK-NEXT:    tile.load
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    tile.shared_store
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    %[[V:.*]] = tile.shared_load
// CHECK-NEXT:    tile.dot %[[P]], %[[V]]
func.func @pv(%K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %O: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %vk = tile.view %K(%N, %c64) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vv = tile.view %V(%N, %c64) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vo = tile.view %O(%N, %c64) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %q = arith.constant dense<1.0> : tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %n = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %vk[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
    %kt = tile.trans %k : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %q, %kt, %zero : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    %p = tile.cast %s : tensor<64x64xf32> -> tensor<64x64xf16>
    %v = tile.load %vv[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
    %pv = tile.dot %p, %v, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %pv : tensor<64x64xf32>
  }
  tile.store %vo[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}
