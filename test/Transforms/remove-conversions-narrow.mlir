// RUN: tile-opt %s -split-input-file -tile-remove-conversions=narrow=true | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-remove-conversions | FileCheck %s --check-prefix=WIDE
// tile-remove-conversions with `narrow` (AMD, after tile-pipeline): a
// conversion across warps that the shared load cannot absorb (sub-byte
// codes, each thread's two codes 64 apart) moves from the f16 values to the
// 4-bit codes they come from, so the round trip through scratch moves bytes
// instead of halves; without `narrow` it stays on the f16 values.

// CHECK-LABEL: func.func @narrow
// CHECK: %[[A:.*]] = tile.shared_load {{.*}} -> tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>
// CHECK: %[[AC:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<1x128xi4, #tile.layout<local(1,2) * spatial(1,64)>>
// CHECK: %[[H:.*]] = tile.cast %[[AC]] {{.*}} -> tensor<1x128xf16, #tile.layout<local(1,2) * spatial(1,64)>>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[H]]
// WIDE-LABEL: func.func @narrow
// WIDE: tile.cast {{.*}} -> tensor<1x128xf16, #tile.layout<spatial(1,64) * local(1,2)>>
// WIDE: tile.convert_layout {{.*}} -> tensor<1x128xf16, #tile.layout<local(1,2) * spatial(1,64)>>
func.func @narrow(%s: !tile.shared<1x128xi4>) -> tensor<1x128xf16, #tile.layout<local(1,2) * spatial(1,64)>> attributes {tile.kernel, tile.warps = 2 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.shared_load %s[%c0, %c0] : !tile.shared<1x128xi4> -> tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>>
  %h = tile.cast %a {src_unsigned} : tensor<1x128xi4, #tile.layout<spatial(1,64) * local(1,2)>> -> tensor<1x128xf16, #tile.layout<spatial(1,64) * local(1,2)>>
  %c = tile.convert_layout %h : tensor<1x128xf16, #tile.layout<spatial(1,64) * local(1,2)>> -> tensor<1x128xf16, #tile.layout<local(1,2) * spatial(1,64)>>
  return %c : tensor<1x128xf16, #tile.layout<local(1,2) * spatial(1,64)>>
}

// -----

// Within one warp (32 threads) the same conversion is shuffles, not a round
// trip: it stays on the f16 values.
// CHECK-LABEL: func.func @in_warp
// CHECK: tile.cast {{.*}} -> tensor<1x64xf16, #tile.layout<spatial(1,32) * local(1,2)>>
// CHECK: tile.convert_layout {{.*}} -> tensor<1x64xf16, #tile.layout<local(1,2) * spatial(1,32)>>
func.func @in_warp(%s: !tile.shared<1x64xi4>) -> tensor<1x64xf16, #tile.layout<local(1,2) * spatial(1,32)>> attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %a = tile.shared_load %s[%c0, %c0] : !tile.shared<1x64xi4> -> tensor<1x64xi4, #tile.layout<spatial(1,32) * local(1,2)>>
  %h = tile.cast %a {src_unsigned} : tensor<1x64xi4, #tile.layout<spatial(1,32) * local(1,2)>> -> tensor<1x64xf16, #tile.layout<spatial(1,32) * local(1,2)>>
  %c = tile.convert_layout %h : tensor<1x64xf16, #tile.layout<spatial(1,32) * local(1,2)>> -> tensor<1x64xf16, #tile.layout<local(1,2) * spatial(1,32)>>
  return %c : tensor<1x64xf16, #tile.layout<local(1,2) * spatial(1,32)>>
}
