// RUN: tile-opt %s -canonicalize -split-input-file | FileCheck %s
// Folders of the tile ops.

// CHECK-LABEL: func.func @fold_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @fold_identities(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %b = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %r = tile.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = tile.cast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = tile.trans %x {perm = array<i32: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %t1 = tile.trans %x : tensor<4x8xf32> -> tensor<8x4xf32>
  %t2 = tile.trans %t1 : tensor<8x4xf32> -> tensor<4x8xf32>
  %l = tile.convert_layout %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %b, %r, %c, %t, %t2, %l : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A cast that changes how an integer is read is not an identity.
// CHECK-LABEL: func.func @keep_signedness_cast
// CHECK: tile.cast %{{.*}} {src_unsigned} : tensor<4xi8> -> tensor<4xi8>
func.func @keep_signedness_cast(%x: tensor<4xi8>) -> tensor<4xi8> {
  %c = tile.cast %x {src_unsigned} : tensor<4xi8> -> tensor<4xi8>
  return %c : tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @fold_splat_constants
// CHECK-DAG: %[[A:.*]] = arith.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<2.500000e+00> : tensor<32xf32>
// CHECK: return %[[A]], %[[B]], %[[A]]
func.func @fold_splat_constants() -> (tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>) {
  %c = arith.constant 2.5 : f32
  %s = tile.splat %c : f32 -> tensor<1x8xf32>
  %b = tile.broadcast %s : tensor<1x8xf32> -> tensor<4x8xf32>
  %r = tile.reshape %b : tensor<4x8xf32> -> tensor<32xf32>
  %t = tile.trans %b : tensor<4x8xf32> -> tensor<8x4xf32>
  %u = tile.trans %t : tensor<8x4xf32> -> tensor<4x8xf32>
  return %b, %r, %u : tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @fold_chains
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi8>)
// CHECK: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xi8> -> tensor<32xi8>
// CHECK: %[[B:.*]] = tile.bitcast %[[X]] : tensor<4x8xi8> -> tensor<4x2xi32>
// CHECK: return %[[R]], %[[X]], %[[B]]
func.func @fold_chains(%x: tensor<4x8xi8>) -> (tensor<32xi8>, tensor<4x8xi8>, tensor<4x2xi32>) {
  %r1 = tile.reshape %x : tensor<4x8xi8> -> tensor<2x16xi8>
  %r2 = tile.reshape %r1 : tensor<2x16xi8> -> tensor<32xi8>
  %b1 = tile.bitcast %x : tensor<4x8xi8> -> tensor<4x16xi4>
  %b2 = tile.bitcast %b1 : tensor<4x16xi4> -> tensor<4x8xi8>
  %b3 = tile.bitcast %b1 : tensor<4x16xi4> -> tensor<4x2xi32>
  return %r2, %b2, %b3 : tensor<32xi8>, tensor<4x8xi8>, tensor<4x2xi32>
}

// -----

// A product with a zero accumulator added to x becomes the product
// accumulating into x (the order of a dot's additions is unspecified): f32
// with the product on either side, and i32 products of i8.
// CHECK-LABEL: func.func @fold_add_into_dot_accumulator
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf16>, %[[B:.*]]: tensor<16x8xf16>, %[[X:.*]]: tensor<16x8xf32>, %[[IA:.*]]: tensor<16x32xi8>, %[[IB:.*]]: tensor<32x8xi8>, %[[IX:.*]]: tensor<16x8xi32>)
// CHECK-NEXT: %[[D0:.*]] = tile.dot %[[A]], %[[B]], %[[X]]
// CHECK-NEXT: %[[D1:.*]] = tile.dot %[[A]], %[[B]], %[[X]]
// CHECK-NEXT: %[[D2:.*]] = tile.dot %[[IA]], %[[IB]], %[[IX]]
// CHECK-NEXT: return %[[D0]], %[[D1]], %[[D2]]
func.func @fold_add_into_dot_accumulator(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %x: tensor<16x8xf32>, %ia: tensor<16x32xi8>, %ib: tensor<32x8xi8>, %ix: tensor<16x8xi32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xi32>) {
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  %d0 = tile.dot %a, %b, %z : tensor<16x16xf16>, tensor<16x8xf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  %s0 = arith.addf %x, %d0 : tensor<16x8xf32>
  %d1 = tile.dot %a, %b, %z : tensor<16x16xf16>, tensor<16x8xf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  %s1 = arith.addf %d1, %x : tensor<16x8xf32>
  %iz = arith.constant dense<0> : tensor<16x8xi32>
  %d2 = tile.dot %ia, %ib, %iz : tensor<16x32xi8>, tensor<32x8xi8>, tensor<16x8xi32> -> tensor<16x8xi32>
  %s2 = arith.addi %d2, %ix : tensor<16x8xi32>
  return %s0, %s1, %s2 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xi32>
}

// -----

// Not folded: a product whose accumulator is not zero, and one used
// elsewhere too (it would be computed twice).
// CHECK-LABEL: func.func @keep_add_of_dot
// CHECK: %[[D0:.*]] = tile.dot %{{.*}}, %{{.*}}, %arg2
// CHECK: arith.addf %arg2, %[[D0]]
// CHECK: %[[D1:.*]] = tile.dot %{{.*}}, %{{.*}}, %cst
// CHECK: arith.addf %arg2, %[[D1]]
func.func @keep_add_of_dot(%a: tensor<16x16xf16>, %b: tensor<16x8xf16>, %x: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  %d0 = tile.dot %a, %b, %x : tensor<16x16xf16>, tensor<16x8xf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  %s0 = arith.addf %x, %d0 : tensor<16x8xf32>
  %d1 = tile.dot %a, %b, %z : tensor<16x16xf16>, tensor<16x8xf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  %s1 = arith.addf %x, %d1 : tensor<16x8xf32>
  return %s0, %s1, %d1 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}
