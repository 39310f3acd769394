// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s -mlir-print-op-generic | tile-opt | FileCheck %s
// Every tile op and type round-trips through the custom and generic forms.

// A block-scaled dot: MXFP8 x MXFP4 codes with e8m0 scales per 32, and an
// NVFP4 left operand (f8E4M3FN scales per 16) against a !tile.float one.
// CHECK-LABEL: func.func @scaled_dot
// CHECK: tile.dot_scaled %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
// CHECK: tile.dot_scaled %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xf4E2M1FN>, tensor<16x4xf8E4M3FN>, tensor<64x32x!tile.float<e2m2>>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
func.func @scaled_dot(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x2xf8E8M0FNU>,
                      %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>,
                      %acc: tensor<16x32xf32>, %n: tensor<16x64xf4E2M1FN>,
                      %sn: tensor<16x4xf8E4M3FN>,
                      %f: tensor<64x32x!tile.float<e2m2>>) {
  %c = tile.dot_scaled %a, %sa, %b, %sb, %acc : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  %d = tile.dot_scaled %n, %sn, %f, %sb, %acc : tensor<16x64xf4E2M1FN>, tensor<16x4xf8E4M3FN>, tensor<64x32x!tile.float<e2m2>>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// CHECK-LABEL: func.func @kernel_attrs
// CHECK-SAME: %{{.*}}: !tile.ptr<f16> {tile.dtype = "f16", tile.name = "A", tile.shape = ["M", "K"]}
// CHECK-SAME: %{{.*}}: !tile.ptr<i4> {tile.dtype = "u4", tile.mut, tile.name = "W", tile.shape = ["K / 128", "N"]}
// CHECK-SAME: %{{.*}}: f32 {tile.dtype = "f32", tile.name = "eps"}
// CHECK-SAME: %{{.*}}: i32 {tile.dim = "M"}
// CHECK-SAME: attributes {tile.constants = {BM = 128 : i64, T = "u4"}, tile.grid = ["cdiv(M, 128)", "1", "1"], tile.kernel, tile.warps = 4 : i32}
func.func @kernel_attrs(
    %A: !tile.ptr<f16> {tile.name = "A", tile.dtype = "f16", tile.shape = ["M", "K"]},
    %W: !tile.ptr<i4> {tile.name = "W", tile.dtype = "u4", tile.shape = ["K / 128", "N"], tile.mut},
    %eps: f32 {tile.name = "eps", tile.dtype = "f32"},
    %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.warps = 4 : i32,
                tile.grid = ["cdiv(M, 128)", "1", "1"],
                tile.constants = {BM = 128 : i64, T = "u4"}} {
  return
}

// CHECK-LABEL: func.func @program_ids
// CHECK: tile.program_id x : i32
// CHECK: tile.program_id y : i32
// CHECK: tile.num_programs z : i32
func.func @program_ids() -> (i32, i32, i32) {
  %0 = tile.program_id x : i32
  %1 = tile.program_id y : i32
  %2 = tile.num_programs z : i32
  return %0, %1, %2 : i32, i32, i32
}

// CHECK-LABEL: func.func @global_access
// CHECK: %[[V:.*]] = tile.view %{{.*}}(%{{.*}}, %{{.*}}) : !tile.ptr<f16> -> !tile.view<?x?xf16>
// CHECK: tile.view %{{.*}}(%{{.*}}) strides(%{{.*}}, %{{.*}}) : !tile.ptr<f16> -> !tile.view<?x64xf16>
// CHECK: %[[T:.*]] = tile.load %[[V]][%{{.*}}, %{{.*}}] : !tile.view<?x?xf16> -> tensor<128x32xf16>
// CHECK: tile.load %[[V]][%{{.*}}, %{{.*}}] padding(0xFC00 : f16) : !tile.view<?x?xf16> -> tensor<4x64xf16>
// CHECK: tile.store %[[V]][%{{.*}}, %{{.*}}], %[[T]] : !tile.view<?x?xf16>, tensor<128x32xf16>
func.func @global_access(%p: !tile.ptr<f16>, %m: i32, %k: i32) {
  %v = tile.view %p(%m, %k) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %w = tile.view %p(%m) strides(%k, %k) : !tile.ptr<f16> -> !tile.view<?x64xf16>
  %t = tile.load %v[%m, %k] : !tile.view<?x?xf16> -> tensor<128x32xf16>
  %u = tile.load %v[%m, %k] padding(0xFC00 : f16) : !tile.view<?x?xf16> -> tensor<4x64xf16>
  tile.store %v[%m, %k], %t : !tile.view<?x?xf16>, tensor<128x32xf16>
  return
}

// CHECK-LABEL: func.func @atomic_add
// CHECK: tile.atomic_add %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.view<?x?xf32>, tensor<16x64xf32>
// CHECK: tile.atomic_add %{{.*}}[%{{.*}}], %{{.*}} : !tile.view<?xi32>, tensor<64xi32>
func.func @atomic_add(%v: !tile.view<?x?xf32>, %w: !tile.view<?xi32>, %m: i32,
                      %t: tensor<16x64xf32>, %u: tensor<64xi32>) {
  tile.atomic_add %v[%m, %m], %t : !tile.view<?x?xf32>, tensor<16x64xf32>
  tile.atomic_add %w[%m], %u : !tile.view<?xi32>, tensor<64xi32>
  return
}

// CHECK-LABEL: func.func @sub_byte_views
// CHECK: tile.view %{{.*}}(%{{.*}}, %{{.*}}) : !tile.ptr<i3> -> !tile.view<?x?xi3>
// CHECK: tile.load %{{.*}} : !tile.view<?x?xi3> -> tensor<64x128xi3>
// CHECK: tile.view %{{.*}}(%{{.*}}) : !tile.ptr<f4E2M1FN> -> !tile.view<?xf4E2M1FN>
// CHECK: tile.view %{{.*}}(%{{.*}}) : !tile.ptr<!tile.float<e2m2>> -> !tile.view<?x!tile.float<e2m2>>
func.func @sub_byte_views(%p: !tile.ptr<i3>, %q: !tile.ptr<f4E2M1FN>,
                          %r: !tile.ptr<!tile.float<e2m2>>, %n: i32) {
  %v = tile.view %p(%n, %n) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %t = tile.load %v[%n, %n] : !tile.view<?x?xi3> -> tensor<64x128xi3>
  %w = tile.view %q(%n) : !tile.ptr<f4E2M1FN> -> !tile.view<?xf4E2M1FN>
  %x = tile.view %r(%n) : !tile.ptr<!tile.float<e2m2>> -> !tile.view<?x!tile.float<e2m2>>
  return
}

// A prefetch of a 64 x 128 slice, under a predicate or not, and the wait
// of a dependent launch.
// CHECK-LABEL: func.func @prefetch
// CHECK-NEXT: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] [64, 128] : !tile.view<?x?xi4>
// CHECK-NEXT: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] [64, 128] if %{{.*}} : !tile.view<?x?xi4>
// CHECK-NEXT: tile.wait_preceding_grids
func.func @prefetch(%v: !tile.view<?x?xi4>, %i: i32, %p: i1) attributes {tile.kernel} {
  tile.prefetch %v[%i, %i] [64, 128] : !tile.view<?x?xi4>
  tile.prefetch %v[%i, %i] [64, 128] if %p : !tile.view<?x?xi4>
  tile.wait_preceding_grids
  return
}

// CHECK-LABEL: func.func @shared_memory
// CHECK: %[[S:.*]] = tile.alloc_shared : !tile.shared<3x64x32xf16>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}] -> %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] : !tile.view<?x?xf16> -> !tile.shared<3x64x32xf16>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}] -> %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] if %{{.*}} : !tile.view<?x?xf16> -> !tile.shared<3x64x32xf16>
// CHECK: tile.wait 1
// CHECK: tile.barrier
// CHECK: %[[L:.*]] = tile.shared_load %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] : !tile.shared<3x64x32xf16> -> tensor<64x32xf16>
// CHECK: tile.shared_store %[[S]][%{{.*}}, %{{.*}}, %{{.*}}], %[[L]] : !tile.shared<3x64x32xf16>, tensor<64x32xf16>
// CHECK: tile.shared_load %[[S]][%{{.*}}, %{{.*}}, %{{.*}}] : !tile.shared<3x64x32xf16> -> tensor<16x32xf16>
func.func @shared_memory(%v: !tile.view<?x?xf16>, %i: i32) {
  %s = tile.alloc_shared : !tile.shared<3x64x32xf16>
  tile.copy_async %v[%i, %i] -> %s[%i, %i, %i] : !tile.view<?x?xf16> -> !tile.shared<3x64x32xf16>
  %inside = arith.cmpi slt, %i, %i : i32
  tile.copy_async %v[%i, %i] -> %s[%i, %i, %i] if %inside : !tile.view<?x?xf16> -> !tile.shared<3x64x32xf16>
  tile.wait 1
  tile.barrier
  %t = tile.shared_load %s[%i, %i, %i] : !tile.shared<3x64x32xf16> -> tensor<64x32xf16>
  tile.shared_store %s[%i, %i, %i], %t : !tile.shared<3x64x32xf16>, tensor<64x32xf16>
  %u = tile.shared_load %s[%i, %i, %i] : !tile.shared<3x64x32xf16> -> tensor<16x32xf16>
  return
}

// A batched dot: four independent 16x16x32 products along the first
// dimension.
// CHECK-LABEL: func.func @batched_dot
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16x32xf16>, tensor<4x32x16xf16>, tensor<4x16x16xf32> -> tensor<4x16x16xf32>
func.func @batched_dot(%a: tensor<4x16x32xf16>, %b: tensor<4x32x16xf16>,
                       %acc: tensor<4x16x16xf32>) {
  %c = tile.dot %a, %b, %acc : tensor<4x16x32xf16>, tensor<4x32x16xf16>, tensor<4x16x16xf32> -> tensor<4x16x16xf32>
  return
}

// CHECK-LABEL: func.func @compute
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x32xf16>, tensor<32x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32> -> tensor<16x16xi32>
// CHECK: tile.reduce sum %{{.*}} axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
// CHECK: tile.reduce max %{{.*}} axis = 0 : tensor<128xf32> -> f32
// CHECK: tile.reduce min %{{.*}} axis = 0 {is_unsigned} : tensor<16x16xi32> -> tensor<16xi32>
func.func @compute(%a: tensor<128x32xf16>, %b: tensor<32x64xf16>,
                   %acc: tensor<128x64xf32>, %x: tensor<16x32xi8>,
                   %y: tensor<32x16xi8>, %z: tensor<16x16xi32>) {
  %c = tile.dot %a, %b, %acc : tensor<128x32xf16>, tensor<32x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
  %i = tile.dot %x, %y, %z : tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32> -> tensor<16x16xi32>
  %r = tile.reduce sum %c axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
  %s = tile.reduce max %r axis = 0 : tensor<128xf32> -> f32
  %u = tile.reduce min %i axis = 0 {is_unsigned} : tensor<16x16xi32> -> tensor<16xi32>
  return
}

// CHECK-LABEL: func.func @shapes
// CHECK: tile.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK: tile.splat %{{.*}} : f32 -> tensor<32x64xf32>
// CHECK: tile.expand_dims %{{.*}} axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: tile.trans %{{.*}} : tensor<32x64xf32> -> tensor<64x32xf32>
// CHECK: tile.trans %{{.*}} {perm = array<i32: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: tile.reshape %{{.*}} : tensor<1x64xf32> -> tensor<64xf32>
// CHECK: tile.iota : tensor<128xi32>
func.func @shapes(%x: tensor<1x64xf32>, %s: f32, %v: tensor<64xf32>,
                  %t: tensor<2x3x4xf32>) {
  %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  %p = tile.splat %s : f32 -> tensor<32x64xf32>
  %e = tile.expand_dims %v axis = 0 : tensor<64xf32> -> tensor<1x64xf32>
  %q = tile.trans %b : tensor<32x64xf32> -> tensor<64x32xf32>
  %r = tile.trans %t {perm = array<i32: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %f = tile.reshape %x : tensor<1x64xf32> -> tensor<64xf32>
  %i = tile.iota : tensor<128xi32>
  return
}

// CHECK-LABEL: func.func @conversions
// CHECK: tile.cast %{{.*}} {src_unsigned} : tensor<64x128xi4> -> tensor<64x128xf16>
// CHECK: tile.cast %{{.*}} {dst_unsigned} : tensor<64x128xf32> -> tensor<64x128xi3>
// CHECK: tile.cast %{{.*}} : tensor<64x128xf32> -> tensor<64x128x!tile.float<e2m2>>
// CHECK: tile.cast %{{.*}} : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>
// CHECK: tile.cast %{{.*}} : i32 -> f32
// CHECK: tile.bitcast %{{.*}} : tensor<64x16xi8> -> tensor<64x32xi4>
// CHECK: tile.bitcast %{{.*}} : tensor<4x8xi8> -> tensor<4x2xi32>
// CHECK: tile.convert_layout %{{.*}} : tensor<64x128xf16> -> tensor<64x128xf16>
func.func @conversions(%w: tensor<64x128xi4>, %f: tensor<64x128xf32>,
                       %n: i32, %b: tensor<64x16xi8>, %c: tensor<4x8xi8>) {
  %h = tile.cast %w {src_unsigned} : tensor<64x128xi4> -> tensor<64x128xf16>
  %q = tile.cast %f {dst_unsigned} : tensor<64x128xf32> -> tensor<64x128xi3>
  %s = tile.cast %f : tensor<64x128xf32> -> tensor<64x128x!tile.float<e2m2>>
  %e = tile.cast %f : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>
  %g = tile.cast %n : i32 -> f32
  %u = tile.bitcast %b : tensor<64x16xi8> -> tensor<64x32xi4>
  %v = tile.bitcast %c : tensor<4x8xi8> -> tensor<4x2xi32>
  %l = "tile.convert_layout"(%h) : (tensor<64x128xf16>) -> tensor<64x128xf16>
  return
}

// CHECK-LABEL: func.func @pipelined_loop
// CHECK: scf.for
// CHECK: } {tile.pipeline = 3 : i32}
func.func @pipelined_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.pipeline = 3 : i32}
  return
}

// A pipelined loop that asks for a producer warpgroup (`pipeline 3
// specialize true`).
// CHECK-LABEL: func.func @specialized_loop
// CHECK: } {tile.pipeline = 3 : i32, tile.warp_specialize}
func.func @specialized_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.pipeline = 3 : i32, tile.warp_specialize}
  return
}

// -----

// TMA copies and their mbarriers (tile-pipeline's TMA scheme, sm_90).
// CHECK-LABEL: func.func @tensor_copies
// CHECK: %[[B:.*]] = tile.alloc_shared : !tile.shared<2xi64>
// CHECK: tile.mbarrier_init %[[B]] count(2) : !tile.shared<2xi64>
// CHECK: tile.copy_async %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] barrier(%[[B]][%{{.*}}]) if %{{.*}} {tile.tma_map = 0 : i64} : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16>, !tile.shared<2xi64>
// CHECK: tile.mbarrier_wait %[[B]][%{{.*}}] phase(%{{.*}}) : !tile.shared<2xi64>
// CHECK: tile.mbarrier_inval %[[B]] : !tile.shared<2xi64>
func.func @tensor_copies(%v: !tile.view<?x?xf16>, %i: i32, %p: i1) {
  %s = tile.alloc_shared : !tile.shared<2x64x32xf16>
  %b = tile.alloc_shared : !tile.shared<2xi64>
  tile.mbarrier_init %b count(2) : !tile.shared<2xi64>
  tile.copy_async %v[%i, %i] -> %s[%i, %i, %i] barrier(%b[%i]) if %p {tile.tma_map = 0 : i64} : !tile.view<?x?xf16> -> !tile.shared<2x64x32xf16>, !tile.shared<2xi64>
  tile.mbarrier_wait %b[%i] phase(%i) : !tile.shared<2xi64>
  tile.mbarrier_inval %b : !tile.shared<2xi64>
  return
}

// -----

// Warp specialization (tile-pipeline's warp-specialized scheme, sm_90a): a
// producer region and a consumer region, each ending implicitly, and the
// consumers' release of a stage.
// CHECK-LABEL: func.func @roles
// CHECK-SAME: tile.producer_warps = 4
// CHECK: tile.warp_specialize producer(4 warps, 40 registers) {
// CHECK-NEXT: tile.mbarrier_wait %{{.*}}[%{{.*}}] phase(%{{.*}}) : !tile.shared<2xi64>
// CHECK-NEXT: } consumer(232 registers) {
// CHECK-NEXT: tile.mbarrier_arrive %{{.*}}[%{{.*}}] if %{{.*}} : !tile.shared<2xi64>
// CHECK-NEXT: tile.mbarrier_arrive %{{.*}}[%{{.*}}] : !tile.shared<2xi64>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @roles(%i: i32, %p: i1) attributes {tile.kernel, tile.warps = 8 : i32, tile.producer_warps = 4 : i64} {
  %b = tile.alloc_shared : !tile.shared<2xi64>
  tile.warp_specialize producer(4 warps, 40 registers) {
    tile.mbarrier_wait %b[%i] phase(%i) : !tile.shared<2xi64>
  } consumer(232 registers) {
    tile.mbarrier_arrive %b[%i] if %p : !tile.shared<2xi64>
    tile.mbarrier_arrive %b[%i] : !tile.shared<2xi64>
  }
  return
}

