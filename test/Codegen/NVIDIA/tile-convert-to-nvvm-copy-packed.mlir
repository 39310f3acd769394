// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// Packed 3-bit and 5-bit tiles have no chunk of whole elements: rows move
// in runs of whole elements that fill whole chunks. A 32x128 u3 tile is 32
// rows of one run of 128 codes (48 bytes = three 16-byte cp.async); a 16x64
// u5 tile is 16 rows of one run of 64 codes (40 bytes = five 8-byte
// cp.async; 40 is not a multiple of 16). A run's chunks share its
// addresses (immediate offsets in the PTX). 128 threads: the runs of the
// first 32 and 16 threads. An edge or misaligned run is zeroed with plain
// stores, then its elements inside the view are or-ed in one at a time (a
// loop LLVM does not unroll), into one shared word or two.

!w3 = !tile.shared<2x32x128xi3, #tile.shared_layout<(2,32,128):(4096,128,1)>>
!w5 = !tile.shared<16x64xi5, #tile.shared_layout<(16,64):(64,1)>>

// CHECK-LABEL: llvm.func @packed
// CHECK-COUNT-3: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK:         llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK:         llvm.or
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:         llvm.br ^{{.*}} {loop_annotation = #{{.*}}}
// CHECK:         nvvm.cp.async.commit.group
// CHECK-COUNT-5: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-5: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
// CHECK:         nvvm.cp.async.commit.group

// PTX-LABEL: .entry packed(
// PTX-COUNT-3: cp.async.cg.shared.global [{{[^]]+}}], [{{[^]]+}}], 16, 16;
// PTX:       cp.async.commit_group;
// PTX-COUNT-5: cp.async.ca.shared.global [{{[^]]+}}], [{{[^]]+}}], 8, 8;
// PTX:       cp.async.commit_group;
// PTX:       .pragma "nounroll";
func.func @packed(%w: !tile.ptr<i3>, %u: !tile.ptr<i5>, %K: i32, %N: i32, %k0: i32, %n0: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 7168 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %vw = tile.view %w(%K, %N) : !tile.ptr<i3> -> !tile.view<?x?xi3>
  %vu = tile.view %u(%K, %N) : !tile.ptr<i5> -> !tile.view<?x?xi5>
  %s3 = tile.alloc_shared {tile.offset = 0 : i64} : !w3
  %s5 = tile.alloc_shared {tile.offset = 6144 : i64} : !w5
  tile.copy_async %vw[%k0, %n0] -> %s3[%c1, %c0, %c0] : !tile.view<?x?xi3> -> !w3
  tile.copy_async %vu[%k0, %n0] -> %s5[%c0, %c0] : !tile.view<?x?xi5> -> !w5
  tile.wait 0
  return
}
