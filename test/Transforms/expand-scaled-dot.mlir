// RUN: tile-opt %s -split-input-file -tile-expand-scaled-dot -verify-diagnostics | FileCheck %s

// Each operand is cast to bf16 and multiplied by its scales, cast to bf16
// and widened to one per element along K: a's [16, 2] scales through
// [16, 2, 1] and [16, 2, 32] to [16, 64], b's [2, 32] through [2, 1, 32]
// and [2, 32, 32] to [64, 32]; one tile.dot takes the accumulator.
// CHECK-LABEL: func.func @mx
// CHECK-SAME: (%[[A:.*]]: tensor<16x64xf8E4M3FN>, %[[SA:.*]]: tensor<16x2xf8E8M0FNU>, %[[B:.*]]: tensor<64x32xf4E2M1FN>, %[[SB:.*]]: tensor<2x32xf8E8M0FNU>, %[[ACC:.*]]: tensor<16x32xf32>)
// CHECK: %[[AX:.*]] = tile.cast %[[A]] : tensor<16x64xf8E4M3FN> -> tensor<16x64xbf16>
// CHECK: %[[AS:.*]] = tile.cast %[[SA]] : tensor<16x2xf8E8M0FNU> -> tensor<16x2xbf16>
// CHECK: %[[AE:.*]] = tile.expand_dims %[[AS]] axis = 2 : tensor<16x2xbf16> -> tensor<16x2x1xbf16>
// CHECK: %[[AB:.*]] = tile.broadcast %[[AE]] : tensor<16x2x1xbf16> -> tensor<16x2x32xbf16>
// CHECK: %[[AR:.*]] = tile.reshape %[[AB]] : tensor<16x2x32xbf16> -> tensor<16x64xbf16>
// CHECK: %[[AM:.*]] = arith.mulf %[[AX]], %[[AR]] : tensor<16x64xbf16>
// CHECK: %[[BX:.*]] = tile.cast %[[B]] : tensor<64x32xf4E2M1FN> -> tensor<64x32xbf16>
// CHECK: %[[BS:.*]] = tile.cast %[[SB]] : tensor<2x32xf8E8M0FNU> -> tensor<2x32xbf16>
// CHECK: %[[BE:.*]] = tile.expand_dims %[[BS]] axis = 1 : tensor<2x32xbf16> -> tensor<2x1x32xbf16>
// CHECK: %[[BB:.*]] = tile.broadcast %[[BE]] : tensor<2x1x32xbf16> -> tensor<2x32x32xbf16>
// CHECK: %[[BR:.*]] = tile.reshape %[[BB]] : tensor<2x32x32xbf16> -> tensor<64x32xbf16>
// CHECK: %[[BM:.*]] = arith.mulf %[[BX]], %[[BR]] : tensor<64x32xbf16>
// CHECK: %[[R:.*]] = tile.dot %[[AM]], %[[BM]], %[[ACC]] : tensor<16x64xbf16>, tensor<64x32xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
// CHECK: return %[[R]]
// CHECK-NOT: tile.dot_scaled
func.func @mx(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x2xf8E8M0FNU>,
              %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>,
              %acc: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %c = tile.dot_scaled %a, %sa, %b, %sb, %acc : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return %c : tensor<16x32xf32>
}

// -----

// A scale per element (blocks of one) needs no widening: the cast scales
// multiply the cast codes directly.
// CHECK-LABEL: func.func @per_element
// CHECK: %[[AX:.*]] = tile.cast %{{.*}} : tensor<16x16xf4E2M1FN> -> tensor<16x16xbf16>
// CHECK-NEXT: %[[AS:.*]] = tile.cast %{{.*}} : tensor<16x16xf8E4M3FN> -> tensor<16x16xbf16>
// CHECK-NEXT: arith.mulf %[[AX]], %[[AS]] : tensor<16x16xbf16>
// CHECK-NOT: tile.expand_dims
// CHECK: tile.expand_dims %{{.*}} axis = 1 : tensor<1x16xbf16> -> tensor<1x1x16xbf16>
// CHECK: tile.dot
func.func @per_element(%a: tensor<16x16xf4E2M1FN>, %sa: tensor<16x16xf8E4M3FN>,
                       %b: tensor<16x16xf4E2M1FN>, %sb: tensor<1x16xf8E4M3FN>,
                       %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %c = tile.dot_scaled %a, %sa, %b, %sb, %acc : tensor<16x16xf4E2M1FN>, tensor<16x16xf8E4M3FN>, tensor<16x16xf4E2M1FN>, tensor<1x16xf8E4M3FN>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

#L = #tile.layout<spatial(8,4) * local(2,4)>

// Operands pinned to a layout are refused with a message, not rewritten
// into ill-typed IR.
func.func @pinned(%a: tensor<16x16xf4E2M1FN, #L>, %sa: tensor<16x1xf8E8M0FNU>,
                  %b: tensor<16x16xf4E2M1FN>, %sb: tensor<1x16xf8E8M0FNU>,
                  %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{operands and scales of a block-scaled dot cannot carry a layout; pin the result instead}}
  %c = tile.dot_scaled %a, %sa, %b, %sb, %acc : tensor<16x16xf4E2M1FN, #L>, tensor<16x1xf8E8M0FNU>, tensor<16x16xf4E2M1FN>, tensor<1x16xf8E8M0FNU>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}
