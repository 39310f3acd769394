// RUN: tile-opt -split-input-file -verify-diagnostics --tile-convert-to-rocdl=chip=gfx942 %s

// An occupancy (`occupancy N`, tile.occupancy) a gfx942 CU cannot hold is
// an error at the kernel.

// Two workgroups of 40000 bytes of LDS do not fit in a gfx942 CU's 64 KB.
// expected-error @+1 {{occupancy 2 needs 2 x 40000 bytes of shared memory per CU (40000 per program); gfx942 has 65536}}
func.func @too_much_lds()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32,
                tile.shared_bytes = 40000 : i64, tile.occupancy = 2 : i32} {
  return
}

// -----

// Nine 4-wave workgroups are 36 wavefronts; a CU holds 32 (8 per SIMD).
// expected-error @+1 {{occupancy 9 of 4-warp programs needs 36 wavefronts per CU; gfx942 holds at most 32}}
func.func @too_many_waves()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32,
                tile.occupancy = 9 : i32} {
  return
}
