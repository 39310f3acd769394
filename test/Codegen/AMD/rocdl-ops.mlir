// The vendor hooks of the AMD lowering on a row-reduction kernel: ids, grid
// sizes from the dispatch packet, workgroup barriers with fences, cross-lane
// exchange (DPP, ds_swizzle, ds_bpermute), v_exp / v_log / v_rsq intrinsics,
// the kernel ABI and the static LDS array.
// RUN: tile-opt %s --tile-gpu-prepare=target=gfx942 --tile-convert-to-rocdl=chip=gfx942 | FileCheck %s
// RUN: tile-opt %s --tile-gpu-prepare=target=gfx950 --tile-convert-to-rocdl=chip=gfx950 | FileCheck %s

// One LDS array per kernel, sized by the lowering; no dynamic LDS is left.
// CHECK: llvm.mlir.global internal @rows.lds() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<[[LDS:[0-9]+]] x i8>
// CHECK-NOT: __tile_lds
// CHECK-LABEL: llvm.func amdgpu_kernelcc @rows(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32
// CHECK-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-SAME: rocdl.kernel
// CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 128, 1, 1>
// CHECK-DAG: rocdl.workitem.id.x : i32
// CHECK-DAG: rocdl.workgroup.id.x : i32
// num_programs(x): ceil(grid_size_x / workgroup_size_x) from the packet.
// CHECK-DAG: %[[PKT:.*]] = llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// CHECK-DAG: llvm.getelementptr %[[PKT]][4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK-DAG: llvm.getelementptr %[[PKT]][12] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// Butterfly reduction over 64 lanes: xor 1, 2 on DPP quad_perm ([1,0,3,2] =
// 0xB1, [2,3,0,1] = 0x4E), xor 4..16 on ds_swizzle (and 0x1F, xor m << 10),
// xor 32 on ds_bpermute with a byte address.
// CHECK-DAG: rocdl.update.dpp %{{.*}}, %{{.*}} with 177, 15, 15, true : i32
// CHECK-DAG: rocdl.update.dpp %{{.*}}, %{{.*}} with 78, 15, 15, true : i32
// CHECK-DAG: %[[X4:.*]] = llvm.mlir.constant(4127 : i32) : i32
// CHECK-DAG: rocdl.ds_swizzle %{{.*}}, %[[X4]] : (i32, i32) -> i32
// CHECK-DAG: %[[X16:.*]] = llvm.mlir.constant(16415 : i32) : i32
// CHECK-DAG: rocdl.ds_swizzle %{{.*}}, %[[X16]] : (i32, i32) -> i32
// CHECK-DAG: rocdl.ds_bpermute %{{.*}}, %{{.*}} : (i32, i32) -> i32
// The barrier between the warps' partial results: HIP's __syncthreads().
// CHECK-DAG: llvm.fence syncscope("workgroup") release
// CHECK-DAG: rocdl.s.barrier
// CHECK-DAG: llvm.fence syncscope("workgroup") acquire
// CHECK-DAG: llvm.intr.exp2(%{{.*}}) : (f32) -> f32
// CHECK-DAG: llvm.intr.log2(%{{.*}}) : (f32) -> f32
// CHECK-DAG: llvm.call_intrinsic "llvm.amdgcn.rsq"(%{{.*}}) : (f32) -> f32
// No device library, no dynamic LDS.
// CHECK-NOT: ockl
// CHECK-NOT: ocml
// CHECK: llvm.return
func.func @rows(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %M: i32, %N: i32) attributes {tile.kernel, tile.warps = 2 : i32} {
  %x = tile.view %X(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %y = tile.view %Y(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %pid = tile.program_id x : i32
  %np = tile.num_programs x : i32
  %c0 = arith.constant 0 : i32
  %r0 = arith.muli %pid, %np : i32
  %t = tile.load %x[%r0, %c0] padding(0xFF800000 : f32) : !tile.view<?x?xf32> -> tensor<2x512xf32>
  %m = tile.reduce max %t axis = 1 : tensor<2x512xf32> -> tensor<2xf32>
  %me = tile.expand_dims %m axis = 1 : tensor<2xf32> -> tensor<2x1xf32>
  %mb = tile.broadcast %me : tensor<2x1xf32> -> tensor<2x512xf32>
  %d = arith.subf %t, %mb : tensor<2x512xf32>
  %e = math.exp2 %d : tensor<2x512xf32>
  %s = tile.reduce sum %e axis = 1 : tensor<2x512xf32> -> tensor<2xf32>
  %l = math.log2 %s : tensor<2xf32>
  %r = math.rsqrt %l : tensor<2xf32>
  %re = tile.expand_dims %r axis = 1 : tensor<2xf32> -> tensor<2x1xf32>
  %rb = tile.broadcast %re : tensor<2x1xf32> -> tensor<2x512xf32>
  %o = arith.mulf %e, %rb : tensor<2x512xf32>
  tile.store %y[%r0, %c0], %o : !tile.view<?x?xf32>, tensor<2x512xf32>
  return
}
