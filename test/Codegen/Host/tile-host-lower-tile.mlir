// RUN: tile-opt %s -split-input-file -tile-host-lower-tile -canonicalize -verify-diagnostics | FileCheck %s

// Loads fill a fresh buffer through bounds-checked element loads (padding
// outside), stores write only elements inside the view.
// CHECK-LABEL: func.func @load_store
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr, %[[M:.*]]: i32, %[[N:.*]]: i32)
// CHECK-DAG: %[[PAD:.*]] = arith.constant 0xFC00 : f16
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4x8xf16>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f16) {
// CHECK: %[[A:.*]] = llvm.getelementptr %[[P]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK: llvm.load %[[A]] : !llvm.ptr -> f16
// CHECK: } else {
// CHECK: scf.yield %[[PAD]] : f16
// CHECK: memref.store %[[V]], %[[BUF]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<4x8xf16> to tensor<4x8xf16>
// CHECK: scf.if
// CHECK: %[[E:.*]] = tensor.extract %[[T]]
// CHECK: %[[B:.*]] = llvm.getelementptr %[[Q]]
// CHECK: llvm.store %[[E]], %[[B]] : f16, !llvm.ptr
// CHECK-NOT: tile.
func.func @load_store(%p: !tile.ptr<f16>, %q: !tile.ptr<f16>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%m, %n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %w = tile.view %q(%m, %n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %t = tile.load %v[%m, %c0] padding(0xFC00 : f16) : !tile.view<?x?xf16> -> tensor<4x8xf16>
  tile.store %w[%c0, %n], %t : !tile.view<?x?xf16>, tensor<4x8xf16>
  return
}

// -----

// Atomic additions: each element inside the view goes through the internal
// function of its type, one relaxed atomicrmw (programs run in parallel).
// CHECK-LABEL: llvm.func internal @__tile_host_atomic_add_i32(%arg0: !llvm.ptr, %arg1: i32)
// CHECK-NEXT: llvm.atomicrmw add %arg0, %arg1 monotonic : !llvm.ptr, i32
// CHECK-LABEL: llvm.func internal @__tile_host_atomic_add_bf16(%arg0: !llvm.ptr, %arg1: bf16)
// CHECK-NEXT: llvm.atomicrmw fadd %arg0, %arg1 monotonic : !llvm.ptr, bf16
// CHECK-LABEL: func.func @atomic_add
// CHECK: scf.if %{{.*}} {
// CHECK: %[[E:.*]] = tensor.extract
// CHECK: %[[A:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
// CHECK: llvm.call @__tile_host_atomic_add_bf16(%[[A]], %[[E]]) : (!llvm.ptr, bf16) -> ()
// CHECK: llvm.call @__tile_host_atomic_add_i32(
func.func @atomic_add(%p: !tile.ptr<bf16>, %q: !tile.ptr<i32>, %m: i32, %n: i32,
                      %t: tensor<4x8xbf16>, %u: tensor<8xi32>) {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%m, %n) : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %w = tile.view %q(%n) : !tile.ptr<i32> -> !tile.view<?xi32>
  tile.atomic_add %v[%c0, %n], %t : !tile.view<?x?xbf16>, tensor<4x8xbf16>
  tile.atomic_add %w[%m], %u : !tile.view<?xi32>, tensor<8xi32>
  return
}

// -----

// Sub-byte elements: bytes of the LSB-first stream, shifted and truncated;
// stores update bits atomically through __tile_host_update_byte. Narrowing
// integer casts clamp to the destination's range.
// CHECK: llvm.func internal @__tile_host_update_byte(%{{.*}}: !llvm.ptr, %{{.*}}: i8, %{{.*}}: i8)
// CHECK: llvm.atomicrmw _and
// CHECK: llvm.atomicrmw _or
// CHECK-LABEL: func.func @sub_byte
// CHECK-DAG: %[[LO:.*]] = arith.constant -4 : i64
// CHECK-DAG: %[[HI:.*]] = arith.constant 3 : i64
// CHECK: memref.alloc() : memref<16xi4>
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : i64 to i4
// CHECK: linalg.generic
// CHECK: %[[W:.*]] = arith.extui %{{.*}} : i4 to i64
// CHECK: %[[A:.*]] = arith.maxsi %[[W]], %[[LO]] : i64
// CHECK: %[[B:.*]] = arith.minsi %[[A]], %[[HI]] : i64
// CHECK: arith.trunci %[[B]] : i64 to i3
// CHECK: llvm.call @__tile_host_update_byte
func.func @sub_byte(%p: !tile.ptr<i4>, %q: !tile.ptr<i3>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%n) : !tile.ptr<i4> -> !tile.view<?xi4>
  %w = tile.view %q(%n) : !tile.ptr<i3> -> !tile.view<?xi3>
  %t = tile.load %v[%c0] : !tile.view<?xi4> -> tensor<16xi4>
  %u = tile.cast %t {src_unsigned} : tensor<16xi4> -> tensor<16xi3>
  tile.store %w[%c0], %u : !tile.view<?xi3>, tensor<16xi3>
  return
}

// -----

// Small floats are stored as integers of their width. Casts are plain arith
// where that is provably lib/Numerics' result (the f8E4M3FN decode builds
// the f32 from the code's fields, the encode rounds with math.roundeven);
// e8m0 saturates with minui; wide integers to bf16 call lib/Numerics
// (i32 = 0x00002001, bf16 = 0x07081005).
// CHECK: func.func private @tile_num_convert(i32, i32, i32) -> i32
// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%{{.*}}: tensor<8xi8>, %{{.*}}: tensor<8xf16>, %{{.*}}: tensor<8xi4>, %{{.*}}: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi8>, tensor<8xi32>, tensor<8x2xi4>, tensor<8xi8>, tensor<8xbf16>)
// CHECK-DAG: %[[I32:.*]] = arith.constant 8193 : i32
// CHECK-DAG: %[[BF16:.*]] = arith.constant 117968901 : i32
// CHECK: linalg.generic
// CHECK: arith.uitofp
// CHECK: arith.mulf
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic
// CHECK: math.roundeven
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: linalg.generic
// CHECK: arith.extui %{{.*}} : i4 to i32
// CHECK: linalg.generic
// CHECK: linalg.index 1
// CHECK: tensor.extract
// CHECK: arith.trunci %{{.*}} : i64 to i4
// CHECK: linalg.generic
// CHECK: arith.minui
// CHECK: linalg.generic
// CHECK: func.call @tile_num_convert(%{{.*}}, %[[I32]], %[[BF16]])
func.func @casts(%a: tensor<8xf8E4M3FN>, %h: tensor<8xf16>, %u: tensor<8xi4>, %i: tensor<8xi32>)
    -> (tensor<8xf32>, tensor<8xf8E4M3FN>, tensor<8xi32>, tensor<8x2xi4>, tensor<8xf8E8M0FNU>, tensor<8xbf16>) {
  %f = tile.cast %a : tensor<8xf8E4M3FN> -> tensor<8xf32>
  %g = tile.cast %h : tensor<8xf16> -> tensor<8xf32>
  %e = tile.cast %g : tensor<8xf32> -> tensor<8xf8E4M3FN>
  %w = tile.cast %u {src_unsigned} : tensor<8xi4> -> tensor<8xi32>
  %r = tile.reshape %u : tensor<8xi4> -> tensor<8x1xi4>
  %b = tile.bitcast %a : tensor<8xf8E4M3FN> -> tensor<8xi8>
  %s = tile.reshape %b : tensor<8xi8> -> tensor<8x1xi8>
  %n = tile.bitcast %s : tensor<8x1xi8> -> tensor<8x2xi4>
  %s8 = tile.cast %g : tensor<8xf32> -> tensor<8xf8E8M0FNU>
  %wb = tile.cast %i : tensor<8xi32> -> tensor<8xbf16>
  return %f, %e, %w, %n, %s8, %wb : tensor<8xf32>, tensor<8xf8E4M3FN>, tensor<8xi32>, tensor<8x2xi4>, tensor<8xf8E8M0FNU>, tensor<8xbf16>
}

// -----

// Computation: dot promotes f16 operands exactly to f32 and uses
// linalg.matmul; reductions are linalg.reduce (max with NaN-propagating
// maximumf from -inf); broadcast reads size-1 dims at index 0.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @compute
// CHECK-DAG: arith.constant 0xFF800000 : f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x4xf32>) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK: linalg.reduce { arith.maximumf } ins(%{{.*}} : tensor<16x4xf32>) outs(%{{.*}} : tensor<16xf32>) dimensions = [1]
// CHECK: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #{{.*}}]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<16x4xf32>) outs(%{{.*}} : tensor<4x16xf32>) permutation = [1, 0]
// CHECK: linalg.index 0
// CHECK: arith.index_cast %{{.*}} : index to i32
// CHECK: linalg.fill
// CHECK: arith.maxui
// CHECK: tensor.extract %{{.*}}[] : tensor<i32>
func.func @compute(%a: tensor<16x8xf16>, %b: tensor<8x4xf16>, %acc: tensor<16x4xf32>, %s: i32)
    -> (tensor<16x4xf32>, tensor<4x16xf32>, tensor<64xi32>, i32) {
  %d = tile.dot %a, %b, %acc : tensor<16x8xf16>, tensor<8x4xf16>, tensor<16x4xf32> -> tensor<16x4xf32>
  %m = tile.reduce max %d axis = 1 : tensor<16x4xf32> -> tensor<16xf32>
  %e = tile.expand_dims %m axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %bb = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x4xf32>
  %t = tile.trans %d : tensor<16x4xf32> -> tensor<4x16xf32>
  %i = tile.iota : tensor<64xi32>
  %sp = tile.splat %s : i32 -> tensor<64xi32>
  %x = arith.addi %i, %sp : tensor<64xi32>
  %u = tile.reduce max %x axis = 0 {is_unsigned} : tensor<64xi32> -> i32
  return %bb, %t, %x, %u : tensor<16x4xf32>, tensor<4x16xf32>, tensor<64xi32>, i32
}

// -----

// Shared memory is a per-program buffer; wait and barrier vanish.
// CHECK-LABEL: func.func @shared
// CHECK: %[[S:.*]] = memref.alloc() : memref<2x16x8xf32>
// CHECK-NOT: tile.wait
// CHECK-NOT: tile.barrier
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: memref.load %[[S]]
func.func @shared(%p: !tile.ptr<f32>, %m: i32) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.view %p(%m) : !tile.ptr<f32> -> !tile.view<?x8xf32>
  %s = tile.alloc_shared : !tile.shared<2x16x8xf32>
  tile.copy_async %v[%c0, %c0] -> %s[%c1, %c0, %c0] : !tile.view<?x8xf32> -> !tile.shared<2x16x8xf32>
  tile.wait 0
  tile.barrier
  %t = tile.shared_load %s[%c1, %c0, %c0] : !tile.shared<2x16x8xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

// A predicated copy copies only under its predicate.
// CHECK-LABEL: func.func @shared_predicated
// CHECK-SAME: %[[IN:[^:]*]]: i1
// CHECK: %[[S:.*]] = memref.alloc() : memref<2x16x8xf32>
// CHECK: scf.if %[[IN]] {
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: }
// CHECK: memref.load %[[S]]
func.func @shared_predicated(%p: !tile.ptr<f32>, %m: i32, %inside: i1) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.view %p(%m) : !tile.ptr<f32> -> !tile.view<?x8xf32>
  %s = tile.alloc_shared : !tile.shared<2x16x8xf32>
  tile.copy_async %v[%c0, %c0] -> %s[%c1, %c0, %c0] if %inside : !tile.view<?x8xf32> -> !tile.shared<2x16x8xf32>
  tile.wait 0
  %t = tile.shared_load %s[%c1, %c0, %c0] : !tile.shared<2x16x8xf32> -> tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// -----

func.func @program_id_outside_kernel() -> i32 {
  // expected-error @+1 {{must be replaced by tile-host-emit-entry before tile-host-lower-tile}}
  %p = tile.program_id x : i32
  return %p : i32
}

// -----

func.func @small_float_arith(%a: tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{on small-float (storage) types is not supported; cast to f16 or f32 first}}
  %b = arith.addf %a, %a : tensor<8xf8E4M3FN>
  return %b : tensor<8xf8E4M3FN>
}

// -----

// Small-float constants keep their bits as integers.
// CHECK-LABEL: func.func @small_float_constant
// CHECK: arith.constant dense<[0, 56, 126, -72]> : tensor<4xi8>
func.func @small_float_constant() -> tensor<4xf8E4M3FN> {
  %c = arith.constant dense<[0.0, 1.0, 448.0, -1.0]> : tensor<4xf8E4M3FN>
  return %c : tensor<4xf8E4M3FN>
}

// -----

// A view that reaches its use through a block argument cannot be resolved.
func.func @view_through_loop(%p: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.view %p(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%w = %v) -> (!tile.view<?xf32>) : i32 {
    // expected-error @+1 {{'tile.load' op needs its view to come from a tile.view in the same function}}
    %t = tile.load %w[%i] : !tile.view<?xf32> -> tensor<4xf32>
    scf.yield %w : !tile.view<?xf32>
  }
  return
}

// -----

func.func @dot_without_format(%a: tensor<4x4xf8E4M3FNUZ>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{cannot multiply 'f8E4M3FNUZ' into 'f32' on the host: no numeric format}}
  %d = tile.dot %a, %a, %c : tensor<4x4xf8E4M3FNUZ>, tensor<4x4xf8E4M3FNUZ>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// -----

// The host runs one grid at a time and has no L2 to fill: a prefetch and
// a dependent launch's wait are erased.
// CHECK-LABEL: func.func @prefetch_and_wait
// CHECK-NOT: tile.prefetch
// CHECK-NOT: tile.wait_preceding_grids
// CHECK: return
func.func @prefetch_and_wait(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %p(%n) : !tile.ptr<f32> -> !tile.view<?xf32>
  tile.prefetch %v[%c0] [64] : !tile.view<?xf32>
  tile.wait_preceding_grids
  return
}
