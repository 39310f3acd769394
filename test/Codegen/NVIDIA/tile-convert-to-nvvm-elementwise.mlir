// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// vector_add: 1024 f32 per program over 4 warps, 4 contiguous elements per
// thread and repeat: the interior path moves 16 bytes per access.

#blk = #tile.layout<local(2) * spatial(128) * local(4)>

// CHECK-LABEL: llvm.func @vector_add
// CHECK-SAME:    %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32
// CHECK-SAME:    nvvm.kernel
// CHECK-SAME:    nvvm.reqntid = array<i32: 128>
// CHECK-SAME:    tile_dynamic_shared_bytes = 0 : i64
// CHECK-DAG:     nvvm.read.ptx.sreg.tid.x
// CHECK-DAG:     nvvm.read.ptx.sreg.ctaid.x
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:         llvm.fadd
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>

// PTX: .entry vector_add(
// PTX: .reqntid 128
// PTX: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// PTX: ld.global.v4.{{[bf]}}32
// PTX: st.global.v4.{{[bf]}}32
func.func @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 0 : i64} {
  %pid = tile.program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %i0 = arith.muli %pid, %c1024 : i32
  %vx = tile.view %x(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vy = tile.view %y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vz = tile.view %z(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %a = tile.load %vx[%i0] : !tile.view<?xf32> -> tensor<1024xf32, #blk>
  %b = tile.load %vy[%i0] : !tile.view<?xf32> -> tensor<1024xf32, #blk>
  %s = arith.addf %a, %b : tensor<1024xf32, #blk>
  tile.store %vz[%i0], %s : !tile.view<?xf32>, tensor<1024xf32, #blk>
  return
}

// A scalar condition selects between whole tiles; iota and splat give each
// thread its coordinates and copies.
#v = #tile.layout<spatial(32) * local(4)>

// CHECK-LABEL: llvm.func @select_iota
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.mul %[[TID]], %{{.*}} : i32
// CHECK-COUNT-4: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK:         llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
func.func @select_iota(%out: !tile.ptr<i32>, %flag: i1, %s: i32)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %vo = tile.view %out() : !tile.ptr<i32> -> !tile.view<128xi32>
  %i = tile.iota : tensor<128xi32, #v>
  %b = tile.splat %s : i32 -> tensor<128xi32, #v>
  %r = arith.select %flag, %i, %b : tensor<128xi32, #v>
  tile.store %vo[%c0], %r : !tile.view<128xi32>, tensor<128xi32, #v>
  return
}
