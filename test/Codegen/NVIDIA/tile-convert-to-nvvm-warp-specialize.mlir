// RUN: tile-opt -tile-convert-to-nvvm %s | FileCheck %s
// RUN: tile-opt -tile-convert-to-nvvm %s | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 \
// RUN:   | FileCheck %s --check-prefix=PTX

// A warp-specialized program of 8 + 4 warps: the threads from 256 on are
// the producers (setmaxnreg.dec to 40; only their first warp, threads
// 256-287, runs the producer region), the others the consumers
// (setmaxnreg.inc to 232: the block of 384 threads starts at 168, its
// .maxnreg). A producer's wait polls the mbarrier; a consumer's arrival
// comes from the first lane of each warp; the consumers' barrier is named
// barrier 1 of their 256 threads, so the producers, which never reach it,
// do not hold it up; the block barrier before the split is barrier 0 of
// all 384.
!bars = !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>

// CHECK-LABEL: llvm.func @roles
// CHECK-SAME:    nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384>
// CHECK-DAG:     %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG:     %[[C256:.*]] = llvm.mlir.constant(256 : i32)
// CHECK-DAG:     %[[C288:.*]] = llvm.mlir.constant(288 : i32)
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    %[[P:.*]] = llvm.icmp "uge" %[[TID]], %[[C256]]
// CHECK-NEXT:    llvm.cond_br %[[P]], ^[[PROD:bb[0-9]+]], ^[[CONS:bb[0-9]+]]
// CHECK:       ^[[PROD]]:
// CHECK-NEXT:    nvvm.setmaxregister {{ *}}decrease 40
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.icmp "ult" %[[TID]], %[[C288]]
// CHECK-NEXT:    llvm.cond_br %[[FIRST]]
// CHECK:         mbarrier.try_wait.parity
// CHECK:       ^[[CONS]]:
// CHECK-NEXT:    nvvm.setmaxregister {{ *}}increase 232
// CHECK:         llvm.and %[[TID]]
// CHECK:         "mbarrier.arrive.shared::cta.b64 _, [$0];"
// CHECK:         nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]

// PTX-LABEL: .entry roles(
// PTX:       .reqntid 384
// PTX:       .maxnreg 168
// PTX:       bar.sync 0;
// PTX:       setmaxnreg.dec.sync.aligned.u32 40;
// PTX:       mbarrier.try_wait.parity.shared::cta.b64
// PTX:       setmaxnreg.inc.sync.aligned.u32 232;
// PTX:       mbarrier.arrive.shared::cta.b64
// PTX:       bar.sync 1, 256;
func.func @roles(%i: i32)
    attributes {tile.kernel, tile.warps = 8 : i32, tile.warp_size = 32 : i32,
                tile.producer_warps = 4 : i64, tile.shared_bytes = 16 : i64} {
  %b = tile.alloc_shared {tile.offset = 0 : i64} : !bars
  tile.barrier
  tile.warp_specialize producer(4 warps, 40 registers) {
    tile.mbarrier_wait %b[%i] phase(%i) : !bars
  } consumer(232 registers) {
    tile.mbarrier_arrive %b[%i] : !bars
    tile.barrier
  }
  return
}
