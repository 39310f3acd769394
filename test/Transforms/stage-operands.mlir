// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_90a -tile-remove-conversions -tile-stage-operands=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=gfx942 -tile-remove-conversions -tile-stage-operands=target=gfx942 | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_90a -tile-remove-conversions -tile-stage-operands="target=sm_90a budget-percent=200" | FileCheck %s --check-prefix=WIDE
// RUN: tile-opt %s -split-input-file -tile-stage-operands=target=host | FileCheck %s --check-prefix=HOST
// RUN: tile-opt %s -split-input-file -tile-infer-layouts=target=sm_80 -tile-remove-conversions -tile-stage-operands="target=sm_80 budget-percent=200" | FileCheck %s --check-prefix=SM80

// Attention-like loop at 4 warps on sm_90a: Q (128x128 f16, 64 registers per
// thread) is used by the first dot of every iteration, next to a 128-register
// accumulator and a 128-register product: 64 + 128 + 128 = 320 registers
// estimated, over 75% of 255. Q is written once to shared memory before the
// loop, in the layout it was loaded with (its conversion to the mma.sync A
// layout disappears), and read back right before the dot. On gfx942 (512
// registers per lane, budget 384) and with a doubled budget nothing changes.
// CHECK-LABEL: func.func @attn
// CHECK:       %[[Q:.*]] = tile.load %{{.*}} -> tensor<128x128xf16, #tile.layout<[[QL:[^>]*]]>>
// CHECK:       %[[BUF:.*]] = tile.alloc_shared : !tile.shared<128x128xf16>
// CHECK-NEXT:  tile.shared_store %[[BUF]][%[[Z:.*]], %[[Z]]], %[[Q]] : !tile.shared<128x128xf16>, tensor<128x128xf16, #tile.layout<[[QL]]>>
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  scf.for
// CHECK:         %[[QS:.*]] = tile.shared_load %[[BUF]][%[[Z]], %[[Z]]] : !tile.shared<128x128xf16> -> tensor<128x128xf16, #tile.layout<[[AL:[^>]*]]>>
// CHECK-NEXT:    tile.dot %[[QS]], %{{.*}} : tensor<128x128xf16, #tile.layout<[[AL]]>>
// CHECK:         tile.dot
// CHECK:       scf.yield
// CHECK-NOT:   tile.shared_load
// AMD-LABEL: func.func @attn
// AMD-NOT:   tile.alloc_shared
// AMD:       return
// WIDE-LABEL: func.func @attn
// WIDE-NOT:   tile.alloc_shared
// WIDE:       return
// HOST-LABEL: func.func @attn
// HOST-NOT:   tile.alloc_shared
// HOST:       return
func.func @attn(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %O: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %vq = tile.view %Q(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vk = tile.view %K(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vv = tile.view %V(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vo = tile.view %O(%N, %c128) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %q = tile.load %vq[%c0, %c0] : !tile.view<?x?xf16> -> tensor<128x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %n = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %k = tile.load %vk[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16>
    %kt = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    %s = tile.dot %q, %kt, %zs : tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
    %p = tile.cast %s : tensor<128x64xf32> -> tensor<128x64xf16>
    %v = tile.load %vv[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16>
    %pv = tile.dot %p, %v, %zero : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    %a = arith.addf %acc, %pv : tensor<128x128xf32>
    scf.yield %a : tensor<128x128xf32>
  }
  tile.store %vo[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<128x128xf32>
  return
}

// -----

// A loop-invariant B operand of 16 registers in a loop far below the budget:
// left in registers.
// CHECK-LABEL: func.func @small
// CHECK-NOT:   tile.alloc_shared
// CHECK:       return
func.func @small(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.view %A(%c64, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%c64, %c64) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%c64, %c64) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %b = tile.load %vb[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = tile.load %va[%c0, %k] : !tile.view<?x?xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %vc[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}

// -----

// The same loop at 8 warps: each warpgroup holds one 64-row block of Q, the
// shape in which both products run on wgmma (a chained product), and Q is
// the first product's A. It is staged whatever the register estimate (also
// with a doubled budget): wgmma reads it from the buffer by descriptor, with
// no loads in the loop, and Q holds no registers (in registers, ptxas of
// CUDA 13.0 clobbered it inside the loop: wrong results on an H100). On
// sm_80 (mma.sync) the doubled budget keeps Q in registers.
// CHECK-LABEL: func.func @attn_wgmma
// CHECK:       %[[BUF:.*]] = tile.alloc_shared : !tile.shared<128x128xf16>
// CHECK-NEXT:  tile.shared_store %[[BUF]]
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  scf.for
// CHECK:         %[[QS:.*]] = tile.shared_load %[[BUF]]
// CHECK-NEXT:    tile.dot %[[QS]], %{{.*}}
// WIDE-LABEL: func.func @attn_wgmma
// WIDE:       tile.alloc_shared : !tile.shared<128x128xf16>
// WIDE:       scf.for
// WIDE:         tile.shared_load
// WIDE-NEXT:    tile.dot
// SM80-LABEL: func.func @attn_wgmma
// SM80-NOT:   tile.alloc_shared
// SM80:       return
// AMD-LABEL: func.func @attn_wgmma
// AMD-NOT:   tile.alloc_shared
// AMD:       return
func.func @attn_wgmma(%Q: !tile.ptr<f16>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %O: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %vq = tile.view %Q(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vk = tile.view %K(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vv = tile.view %V(%N, %c128) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vo = tile.view %O(%N, %c128) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %q = tile.load %vq[%c0, %c0] : !tile.view<?x?xf16> -> tensor<128x128xf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %n = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %k = tile.load %vk[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16>
    %kt = tile.trans %k : tensor<64x128xf16> -> tensor<128x64xf16>
    %s = tile.dot %q, %kt, %zs : tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
    %p = tile.cast %s : tensor<128x64xf32> -> tensor<128x64xf16>
    %v = tile.load %vv[%n, %c0] : !tile.view<?x?xf16> -> tensor<64x128xf16>
    %pv = tile.dot %p, %v, %acc : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %pv : tensor<128x128xf32>
  }
  tile.store %vo[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<128x128xf32>
  return
}

// -----

// A loop-invariant A operand of a product wgmma takes (64x64 at 4 warps),
// far below the register budget: staged on sm_90a all the same; B, loaded
// in the loop, is left to tile-pipeline.
// CHECK-LABEL: func.func @invariant_a
// CHECK:       %[[BUF:.*]] = tile.alloc_shared : !tile.shared<64x64xf16>
// CHECK:       scf.for
// CHECK:         %[[AS:.*]] = tile.shared_load %[[BUF]]
// CHECK-NEXT:    tile.dot %[[AS]], %{{.*}}
// CHECK-NOT:   tile.alloc_shared
// SM80-LABEL: func.func @invariant_a
// SM80-NOT:   tile.alloc_shared
// SM80:       return
func.func @invariant_a(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %K: i32) attributes {tile.kernel, tile.warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.view %A(%c64, %c64) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vb = tile.view %B(%K, %c64) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vc = tile.view %C(%c64, %c64) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %va[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %b = tile.load %vb[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %vc[%c0, %c0], %acc : !tile.view<?x?xf32>, tensor<64x64xf32>
  return
}
