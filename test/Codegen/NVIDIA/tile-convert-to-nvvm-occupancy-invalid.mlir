// RUN: tile-opt -split-input-file -verify-diagnostics -tile-convert-to-nvvm %s

// Occupancies (`occupancy N`, tile.occupancy) an sm_90a SM cannot hold are
// errors at the kernel, not silently fewer programs per SM.

// Six programs of 8 + 4 warps are 72 warps; an SM holds 64.
// expected-error @+1 {{occupancy 6 of 12-warp programs (8 + 4 producer warps) needs 72 warps per SM; sm_90a holds at most 64}}
func.func @too_many_warps()
    attributes {tile.kernel, tile.warps = 8 : i32, tile.warp_size = 32 : i32,
                tile.producer_warps = 4 : i64, tile.occupancy = 6 : i32} {
  return
}

// -----

// Two programs of 120000 bytes of shared memory (and 1 KB each that the SM
// reserves) do not fit in the 228 KB of an sm_90a SM.
// expected-error @+1 {{occupancy 2 needs 2 x 121024 bytes of shared memory per SM (120000 per program + 1 KB reserved); sm_90a has 233472}}
func.func @too_much_shared()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32,
                tile.shared_bytes = 120000 : i64, tile.occupancy = 2 : i32} {
  return
}
