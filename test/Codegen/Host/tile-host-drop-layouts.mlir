// RUN: tile-opt %s -tile-host-drop-layouts | FileCheck %s --implicit-check-not=tile.layout --implicit-check-not=tile.convert_layout
// RUN: tile-opt %s -tile-host-pipeline | FileCheck %s --check-prefix=PIPE
// Register layouts disappear on the host: encodings on results, block
// arguments, function signatures and dense constants, and every
// tile.convert_layout (now an identity).

#A = #tile.layout<local(2,1) * spatial(16,8) * local(2,4)>
#B = #tile.layout<spatial(16,8) * column_local(4,4)>

// CHECK-LABEL: func.func @pinned(
// CHECK-SAME: %[[X:.*]]: !tile.ptr<f32>
func.func @pinned(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["M", "N"]},
                  %y: !tile.ptr<f32> {tile.name = "y", tile.dtype = "f32", tile.mut, tile.shape = ["M", "N"]},
                  %n: i32, %M: i32 {tile.dim = "M"}, %N: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.warps = 4 : i32, tile.grid = ["1", "1", "1"]} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %vx = tile.view %x(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vy = tile.view %y(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  // CHECK: %[[T:.*]] = tile.load %{{.*}} -> tensor<64x32xf32>
  %t = tile.load %vx[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
  %p = tile.convert_layout %t : tensor<64x32xf32> -> tensor<64x32xf32, #A>
  // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x32xf32>
  %one = arith.constant dense<1.0> : tensor<64x32xf32, #A>
  // CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[T]]) -> (tensor<64x32xf32>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %p) -> (tensor<64x32xf32, #A>) : i32 {
    // CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[ONE]] : tensor<64x32xf32>
    %s = arith.addf %acc, %one : tensor<64x32xf32, #A>
    %q = tile.convert_layout %s : tensor<64x32xf32, #A> -> tensor<64x32xf32, #B>
    %back = tile.convert_layout %q : tensor<64x32xf32, #B> -> tensor<64x32xf32, #A>
    // CHECK: scf.yield %[[SUM]] : tensor<64x32xf32>
    scf.yield %back : tensor<64x32xf32, #A>
  }
  // CHECK: %[[E:.*]] = call @helper(%[[LOOP]]) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %e = func.call @helper(%r) : (tensor<64x32xf32, #A>) -> tensor<64x32xf32, #A>
  // CHECK: tile.store %{{.*}}, %[[E]] : !tile.view<?x?xf32>, tensor<64x32xf32>
  tile.store %vy[%c0, %c0], %e : !tile.view<?x?xf32>, tensor<64x32xf32, #A>
  return
}

// CHECK-LABEL: func.func private @helper(
// CHECK-SAME: %[[V:.*]]: tensor<64x32xf32>) -> tensor<64x32xf32>
func.func private @helper(%v: tensor<64x32xf32, #A>) -> tensor<64x32xf32, #A> {
  // CHECK: %[[M:.*]] = math.exp %[[V]] : tensor<64x32xf32>
  %m = math.exp %v : tensor<64x32xf32, #A>
  // CHECK: return %[[M]] : tensor<64x32xf32>
  return %m : tensor<64x32xf32, #A>
}

// The whole host pipeline accepts the pinned kernel.
// PIPE: llvm.func @pinned(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// PIPE: llvm.func internal @__tile_host_impl_pinned
// PIPE: llvm.fadd
