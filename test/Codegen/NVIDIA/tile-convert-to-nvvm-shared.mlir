// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// Two stages of a 64x32 f16 A tile: cp.async into a swizzled ring buffer
// (16-byte chunks, zero-filled at the edges), wait_group, barrier, then
// shared loads straight into the mma.sync A layout.

#mmaA = #tile.layout<spatial(4,1) * local(1,2) * column_local(2,2) * spatial(8,4) * local(1,2)>
#blk = #tile.layout<local(2,1) * spatial(32,4) * local(1,8)>
!ring = !tile.shared<2x64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (2,64,32):(2048,32,1)>>

// CHECK-LABEL: llvm.func @stages
// CHECK-SAME:    tile_dynamic_shared_bytes = 8192 : i64
// CHECK:         %[[SMEM:.*]] = llvm.mlir.addressof @__tile_dynamic_smem : !llvm.ptr<3>
// 64x32 f16 = 256 chunks of 16 bytes: 2 per thread.
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:         nvvm.cp.async.commit.group
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:         nvvm.cp.async.commit.group
// CHECK:         nvvm.cp.async.wait.group 1
// CHECK-NEXT:    nvvm.barrier0
// The swizzle: offset ^ ((offset & 0xC0) >> 3).
// CHECK:         llvm.and %{{.*}}, %{{.*}} : i32
// CHECK:         llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK:         llvm.xor %{{.*}}, %{{.*}} : i32
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xf16>
// CHECK:         nvvm.cp.async.wait.group 0
// CHECK:         llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>

// PTX-LABEL: .entry stages(
// PTX:       .reqntid 128
// PTX:       cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, 16;
// PTX:       cp.async.commit_group;
// PTX:       cp.async.wait_group 1;
// PTX:       bar.sync 0;
// PTX:       ld.shared.{{(v2.b16|b32)}}
// PTX:       cp.async.wait_group 0;
// PTX:       st.shared.{{(v2.b16|b32)}}
// PTX:       ld.shared.v4.b32
func.func @stages(%A: !tile.ptr<f16>, %O: !tile.ptr<f16>, %M: i32, %K: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id x : i32
  %m0 = arith.muli %pid, %c64 : i32
  %va = tile.view %A(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %vo = tile.view %O(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !ring
  tile.copy_async %va[%m0, %c0] -> %s[%c0, %c0, %c0] : !tile.view<?x?xf16> -> !ring
  tile.copy_async %va[%m0, %c32] -> %s[%c1, %c0, %c0] : !tile.view<?x?xf16> -> !ring
  tile.wait 1
  tile.barrier
  %a0 = tile.shared_load %s[%c0, %c0, %c0] : !ring -> tensor<64x32xf16, #mmaA>
  tile.wait 0
  tile.barrier
  %a1 = tile.shared_load %s[%c1, %c0, %c0] : !ring -> tensor<64x32xf16, #mmaA>
  %sum = arith.addf %a0, %a1 : tensor<64x32xf16, #mmaA>
  // Back through shared memory in a coalesced layout.
  tile.barrier
  tile.shared_store %s[%c0, %c0, %c0], %sum : !ring, tensor<64x32xf16, #mmaA>
  tile.barrier
  %o = tile.shared_load %s[%c0, %c0, %c0] : !ring -> tensor<64x32xf16, #blk>
  tile.store %vo[%m0, %c0], %o : !tile.view<?x?xf16>, tensor<64x32xf16, #blk>
  return
}
