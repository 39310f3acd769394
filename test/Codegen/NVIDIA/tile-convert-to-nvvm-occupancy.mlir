// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

!bars = !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>

// `occupancy 2` (tile.occupancy) on an 8-warp kernel: the entry point asks
// ptxas for 2 programs per SM (.minnctapersm 2 next to .reqntid 256), which
// caps its registers at 65536 / (2 x 256) = 128.
// CHECK-LABEL: llvm.func @two_per_sm
// CHECK-SAME:    nvvm.minctasm = 2 : i32
// CHECK-SAME:    nvvm.reqntid = array<i32: 256>
// CHECK-NOT:     nvvm.maxnreg
// PTX-LABEL: .entry two_per_sm(
// PTX:       .reqntid 256
// PTX:       .minnctapersm 2
func.func @two_per_sm()
    attributes {tile.kernel, tile.warps = 8 : i32, tile.warp_size = 32 : i32,
                tile.occupancy = 2 : i32} {
  return
}

// Without it (or with occupancy 1) the entry point says nothing of
// registers.
// CHECK-LABEL: llvm.func @one_per_sm
// CHECK-NOT:     nvvm.minctasm
// CHECK-SAME:    nvvm.reqntid = array<i32: 128>
// PTX-LABEL: .entry one_per_sm(
// PTX-NOT:   .minnctapersm
// PTX:       ret;
func.func @one_per_sm()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.occupancy = 1 : i32} {
  return
}

// A warp-specialized kernel (8 consumer + 4 producer warps) starts with its
// share of the SM's registers, which setmaxnreg then redistributes:
// .maxnreg 80 at 2 programs per SM (65536 / (2 x 384) = 85, in steps of 8;
// 168 at one), and no .minnctapersm beside it.
// CHECK-LABEL: llvm.func @specialized_two_per_sm
// CHECK-NOT:     nvvm.minctasm
// CHECK-SAME:    nvvm.maxnreg = 80 : i32, nvvm.reqntid = array<i32: 384>
// PTX-LABEL: .entry specialized_two_per_sm(
// PTX:       .reqntid 384
// PTX:       .maxnreg 80
// PTX-NOT:   .minnctapersm
func.func @specialized_two_per_sm(%i: i32)
    attributes {tile.kernel, tile.warps = 8 : i32, tile.warp_size = 32 : i32,
                tile.producer_warps = 4 : i64, tile.shared_bytes = 16 : i64,
                tile.occupancy = 2 : i32} {
  %b = tile.alloc_shared {tile.offset = 0 : i64} : !bars
  tile.warp_specialize producer(4 warps, 24 registers) {
    tile.mbarrier_wait %b[%i] phase(%i) : !bars
  } consumer(104 registers) {
    tile.mbarrier_arrive %b[%i] : !bars
  }
  return
}

