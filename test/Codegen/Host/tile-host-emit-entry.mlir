// RUN: tile-opt %s -tile-host-emit-entry -split-input-file -verify-diagnostics | FileCheck %s

// The kernel body moves to an internal function with six trailing i32
// parameters; the entry loads every parameter through args[i].

// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[ARGS:.*]]: !llvm.ptr, %[[PID:.*]]: !llvm.ptr, %[[NP:.*]]: !llvm.ptr)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[T0:.*]] = builtin.unrealized_conversion_cast %[[D0]] : !llvm.ptr to !tile.ptr<f32>
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1]
// CHECK: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[V1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i32
// CHECK: llvm.getelementptr %[[PID]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.getelementptr %[[PID]][2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.getelementptr %[[NP]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: call @__tile_host_impl_add(%[[T0]], %[[V1]], {{.*}}) : (!tile.ptr<f32>, i32, i32, i32, i32, i32, i32, i32) -> ()
// CHECK-LABEL: func.func private @__tile_host_impl_add
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32, %[[PX:.*]]: i32, %[[PY:.*]]: i32, %[[PZ:.*]]: i32, %[[NX:.*]]: i32, %[[NY:.*]]: i32, %[[NZ:.*]]: i32)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-NOT: tile.program_id
// CHECK: arith.muli %[[PY]], %[[NX]]
// CHECK: arith.addi %{{.*}}, %[[PX]]
func.func @add(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
               %n: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.grid = ["cdiv(N, 64)", "1", "1"]} {
  %px = tile.program_id x : i32
  %py = tile.program_id y : i32
  %nx = tile.num_programs x : i32
  %l = arith.muli %py, %nx : i32
  %i = arith.addi %l, %px : i32
  return
}

// -----

// Functions without tile.kernel are left alone.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%{{.*}}: i32) -> i32
func.func @helper(%a: i32) -> i32 {
  return %a : i32
}

// -----

func.func @not_a_kernel() -> i32 {
  // expected-error @+1 {{'tile.program_id' op is only allowed in a function with the 'tile.kernel' attribute}}
  %p = tile.program_id x : i32
  return %p : i32
}

// -----

// expected-error @+1 {{parameter 0 has type 'tensor<4xf32>', which the host entry ABI cannot pass}}
func.func @bad_param(%t: tensor<4xf32>) attributes {tile.kernel} {
  return
}
