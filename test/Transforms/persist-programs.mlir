// RUN: tile-opt %s -split-input-file -tile-persist-programs="target=sm_90a persistent=true" | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-persist-programs="target=sm_90a persistent=true group=1" | FileCheck %s --check-prefix=ROW
// RUN: tile-opt %s -split-input-file -tile-persist-programs="target=sm_90a" | FileCheck %s --check-prefixes=OFF,ASKED
// RUN: tile-opt %s -split-input-file -tile-persist-programs="target=host persistent=true" | FileCheck %s --check-prefixes=OFF,HOST

// A persistent kernel takes its virtual grid's extents after its own
// arguments and loops from its x index to gx * gy * gz in steps of the
// programs launched; inside, each program_id is the virtual program's
// coordinate and each num_programs the virtual extent. The coordinates
// follow the grouped order (z slowest; groups of 8 rows, each taken column
// by column: y0 = (w / 8 gx) 8, rows = min(gy - y0, 8), y = y0 + (w mod
// 8 gx) mod rows, x = (w mod 8 gx) / rows), or with group=1 the row-major
// one. Without the option, or on the host, nothing changes.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: %[[GX:[a-z0-9]+]]: i32 {tile.virtual_grid = 0 : i64}, %[[GY:[a-z0-9]+]]: i32 {tile.virtual_grid = 1 : i64}, %[[GZ:[a-z0-9]+]]: i32 {tile.virtual_grid = 2 : i64})
// CHECK-SAME: tile.persistent
// CHECK: %[[FIRST:.*]] = tile.program_id x
// CHECK-NEXT: %[[STEP:.*]] = tile.num_programs x
// CHECK-NEXT: %[[PLANE:.*]] = arith.muli %[[GX]], %[[GY]]
// CHECK-NEXT: %[[TOTAL:.*]] = arith.muli %[[PLANE]], %[[GZ]]
// CHECK-NEXT: scf.for %[[V:.*]] = %[[FIRST]] to %[[TOTAL]] step %[[STEP]]
// CHECK-NEXT: %[[Z:.*]] = arith.divui %[[V]], %[[PLANE]]
// CHECK-NEXT: %[[W:.*]] = arith.remui %[[V]], %[[PLANE]]
// CHECK: %[[N:.*]] = arith.muli %[[GX]], %c8_i32
// CHECK: %[[G:.*]] = arith.divui %[[W]], %[[N]]
// CHECK-NEXT: %[[Y0:.*]] = arith.muli %[[G]], %c8_i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[GY]], %[[Y0]]
// CHECK-NEXT: %[[ROWS:.*]] = arith.minui %[[LEFT]], %c8_i32
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[W]], %[[N]]
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[Y0]], %[[R]]
// CHECK-NEXT: %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK-NEXT: tile.view
// CHECK-NEXT: tile.splat %[[Z]]
// CHECK-NEXT: tile.splat %[[GZ]]
// CHECK-NEXT: tile.store %{{.*}}[%[[X]], %[[Y]]]
// CHECK-NEXT: tile.store %{{.*}}[%[[GX]], %[[GY]]]
// CHECK-NEXT: } {tile.persistent}
// CHECK-NEXT: return
// ROW-LABEL: func.func @tiles
// ROW: scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// ROW-NEXT: %[[Z:.*]] = arith.divui %[[V]], %[[PLANE:.*]] : i32
// ROW-NEXT: %[[W:.*]] = arith.remui %[[V]], %[[PLANE]]
// ROW-NEXT: %[[X:.*]] = arith.remui %[[W]], %[[GX:.*]] : i32
// ROW-NEXT: %[[Y:.*]] = arith.divui %[[W]], %[[GX]]
// ROW-NEXT: tile.view
// ROW-NEXT: tile.splat %[[Z]]
// ROW: tile.store %{{.*}}[%[[X]], %[[Y]]]
// OFF-LABEL: func.func @tiles
// OFF-NOT: tile.persistent
// OFF-NOT: scf.for
func.func @tiles(%P: !tile.ptr<i32> {tile.shape = ["A", "B"]}, %A: i32 {tile.dim = "A"}, %B: i32 {tile.dim = "B"}) attributes {tile.kernel, tile.warps = 4 : i32} {
  %v = tile.view %P(%A, %B) : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %x = tile.program_id x : i32
  %y = tile.program_id y : i32
  %z = tile.program_id z : i32
  %nx = tile.num_programs x : i32
  %ny = tile.num_programs y : i32
  %nz = tile.num_programs z : i32
  %tz = tile.splat %z : i32 -> tensor<1x1xi32>
  %tn = tile.splat %nz : i32 -> tensor<1x1xi32>
  tile.store %v[%x, %y], %tz : !tile.view<?x?xi32>, tensor<1x1xi32>
  tile.store %v[%nx, %ny], %tn : !tile.view<?x?xi32>, tensor<1x1xi32>
  return
}

// -----

// A kernel's own tile.persist (the language's `persistent true`) asks for
// that kernel what the option asks for every kernel: without the option
// @asked becomes persistent and @plain does not; the attribute is gone
// afterwards. The host drops it and changes nothing.
// ASKED-LABEL: func.func @asked(
// ASKED-SAME: {tile.virtual_grid = 2 : i64})
// ASKED-NOT: tile.persist,
// ASKED-SAME: tile.persistent
// ASKED: } {tile.persistent}
// HOST-LABEL: func.func @asked(
// HOST-NOT: tile.persist
// HOST-NOT: scf.for
// OFF-LABEL: func.func @plain(
// OFF-NOT: tile.persist
// OFF-NOT: scf.for
func.func @asked(%P: !tile.ptr<i32> {tile.shape = ["A"]}, %A: i32 {tile.dim = "A"}) attributes {tile.kernel, tile.persist, tile.warps = 4 : i32} {
  %v = tile.view %P(%A) : !tile.ptr<i32> -> !tile.view<?xi32>
  %x = tile.program_id x : i32
  %t = tile.splat %x : i32 -> tensor<1xi32>
  tile.store %v[%x], %t : !tile.view<?xi32>, tensor<1xi32>
  return
}
func.func @plain(%P: !tile.ptr<i32> {tile.shape = ["A"]}, %A: i32 {tile.dim = "A"}) attributes {tile.kernel, tile.warps = 4 : i32} {
  %v = tile.view %P(%A) : !tile.ptr<i32> -> !tile.view<?xi32>
  %x = tile.program_id x : i32
  %t = tile.splat %x : i32 -> tensor<1xi32>
  tile.store %v[%x], %t : !tile.view<?xi32>, tensor<1xi32>
  return
}
