// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tile.kernel' is only valid on func.func}}
module attributes {tile.kernel} {}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @k() attributes {tile.kernel = 1 : i32} { return }

// -----

// expected-error @+1 {{'tile.warps' is only valid on a func.func that has the 'tile.kernel' attribute}}
func.func @k() attributes {tile.warps = 4 : i32} { return }

// -----

// expected-error @+1 {{'tile.warps' must be an i32 between 1 and 32, got 0 : i32}}
func.func @k() attributes {tile.kernel, tile.warps = 0 : i32} { return }

// -----

// expected-error @+1 {{'tile.grid' must be an array of 1 to 3 expression strings, got [1, 2]}}
func.func @k() attributes {tile.kernel, tile.grid = [1, 2]} { return }

// -----

// expected-error @+1 {{'tile.constants' must be a dictionary}}
func.func @k() attributes {tile.kernel, tile.constants = [1]} { return }

// -----

// expected-error @+1 {{'tile.pipeline' is only valid on scf.for}}
func.func @k() attributes {tile.pipeline = 2 : i32} { return }

// -----

func.func @k(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.pipeline' must be a stage count between 1 and 16, got 0 : i32}}
  scf.for %i = %c0 to %n step %n : i32 {
  } {tile.pipeline = 0 : i32}
  return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.bogus'}}
func.func @k() attributes {tile.bogus} { return }

// -----

// expected-error @+1 {{argument attribute 'tile.name' is only valid on a tile.kernel function}}
func.func @k(%a: i32 {tile.name = "a"}) { return }

// -----

// expected-error @+1 {{argument #0: 'tile.name' must be a non-empty string}}
func.func @k(%a: i32 {tile.name = ""}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.dim' marks a runtime dimension, which must be an i32 argument}}
func.func @k(%a: i64 {tile.dim = "M"}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.shape' is only valid on a !tile.ptr argument}}
func.func @k(%a: i32 {tile.shape = ["M"]}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.shape' must be a non-empty array of dimension expressions}}
func.func @k(%a: !tile.ptr<f16> {tile.shape = []}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.mut' is only valid on a !tile.ptr argument}}
func.func @k(%a: f32 {tile.mut}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.mut' must be a unit attribute}}
func.func @k(%a: !tile.ptr<f16> {tile.mut = true}) attributes {tile.kernel} { return }

// -----

// expected-error @+1 {{argument #0: 'tile.bogus' is not a known tile argument attribute}}
func.func @k(%a: !tile.ptr<f16> {tile.bogus}) attributes {tile.kernel} { return }

// -----

// tile.mma_in_flight (written by tile-pipeline) belongs on tile.dot and
// counts 0 or 1 groups.
func.func @mma_in_flight_not_on_dot(%x: i32) -> i32 {
  // expected-error @+1 {{'tile.mma_in_flight' is only valid on tile.dot}}
  %y = arith.addi %x, %x {tile.mma_in_flight = 1 : i64} : i32
  return %y : i32
}

// -----

#l = #tile.layout<spatial(16,2) * local(1,8)>
func.func @mma_in_flight_count(%a: tensor<16x16xf16, #l>, %c: tensor<16x16xf32, #l>) -> tensor<16x16xf32, #l> {
  // expected-error @+1 {{'tile.mma_in_flight' must be an i64 of 0 or 1, got 2 : i64}}
  %d = tile.dot %a, %a, %c {tile.mma_in_flight = 2 : i64} : tensor<16x16xf16, #l>, tensor<16x16xf16, #l>, tensor<16x16xf32, #l> -> tensor<16x16xf32, #l>
  return %d : tensor<16x16xf32, #l>
}

// -----

// expected-error @+1 {{'tile.tma' must be a unit attribute of the module}}
func.func @f() attributes {tile.tma} {
  return
}

// -----

// expected-error @+1 {{'tile.tensor_maps' must be an array of {param, box, swizzle} dictionaries}}
func.func @f() attributes {tile.tensor_maps = [{param = 0 : i64}]} {
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %s: !tile.shared<2x4x8xf16>, %i: i32) {
  // expected-error @+1 {{'tile.tma_map' is only valid on a tile.copy_async with a barrier}}
  tile.copy_async %v[%i, %i] -> %s[%i, %i, %i] {tile.tma_map = 0 : i64} : !tile.view<?x?xf16> -> !tile.shared<2x4x8xf16>
  return
}

// -----

// expected-error @+1 {{'tile.warp_specialize' must be a unit attribute of the module or of a loop with 'tile.pipeline'}}
func.func @f() attributes {tile.warp_specialize} {
  return
}

// -----

// On a loop, tile.warp_specialize goes with tile.pipeline (the language's
// `pipeline N specialize B`).
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' must be a unit attribute of the module or of a loop with 'tile.pipeline'}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.warp_specialize}
  return
}

// -----

// expected-error @+1 {{'tile.producer_warps' must be a positive multiple of 4 on a function, got 2 : i64}}
func.func @f() attributes {tile.producer_warps = 2 : i64} {
  return
}

// -----

// A fallback (tile-clone-fallbacks) is named by a symbol, on functions only.
// expected-error @+1 {{'tile.fallback_of' must be a kernel's symbol on a function, got "k"}}
func.func @f() attributes {tile.fallback_of = "k"} {
  return
}

// -----

// expected-error @+1 {{'tile.fallback' must be a kernel's symbol on a function, got @k}}
module attributes {tile.fallback = @k} {
}

// -----

// tile.persist (the language's `persistent true`) is a unit attribute of a
// kernel.
// expected-error @+1 {{'tile.persist' must be a unit attribute of a kernel}}
module attributes {tile.persist} {
}

// -----

// tile.occupancy (the language's `occupancy N`) is a positive integer on a
// kernel: programs per SM.
// expected-error @+1 {{'tile.occupancy' must be a positive integer on a kernel, got 0 : i32}}
func.func @k() attributes {tile.kernel, tile.occupancy = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.occupancy' must be a positive integer on a kernel, got 2 : i32}}
module attributes {tile.occupancy = 2 : i32} {
}

// -----

// tile.dependent_launch (tilec --dependent-launch) is a unit attribute of
// the module: every kernel of it waits for the grids before it.
// expected-error @+1 {{'tile.dependent_launch' must be a unit attribute of the module}}
func.func @k() attributes {tile.kernel, tile.dependent_launch} {
  return
}
