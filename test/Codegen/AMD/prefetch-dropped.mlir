// RUN: tile-opt -tile-convert-to-rocdl %s | FileCheck %s

// AMD has neither L2 prefetches in this lowering (TargetLowering::
// hasL2Prefetch) nor dependent launches: a tile.prefetch and a
// tile.wait_preceding_grids (hand-written here; tile-prefetch-prologue
// makes none for AMD) lower to nothing: the kernel's body is its return.
// CHECK-LABEL: llvm.func amdgpu_kernelcc @start
// CHECK-SAME:    {
// CHECK-NEXT:    llvm.return
module attributes {tile.dependent_launch} {
func.func @start(%PW: !tile.ptr<i4>, %N: i32, %K: i32, %n0: i32, %k0: i32) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32} {
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  tile.prefetch %w[%n0, %k0] [64, 256] : !tile.view<?x?xi4>
  tile.wait_preceding_grids
  return
}
}
