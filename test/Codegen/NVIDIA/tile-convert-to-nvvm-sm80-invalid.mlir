// RUN: tile-opt -tile-convert-to-nvvm=target=sm_80 -split-input-file -verify-diagnostics %s

// mbarriers and TMA copies need sm_90 (tile-pipeline makes them only there).
func.func @mbarrier_on_sm80()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 16 : i64} {
  %b = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  // expected-error @below {{needs a target with TMA and mbarriers (sm_90)}}
  tile.mbarrier_init %b count(1) : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}

