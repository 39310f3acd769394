// Bad targets and options are clear errors, never crashes.
// RUN: not tile-opt %s --tile-convert-to-rocdl=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --tile-convert-to-rocdl=chip=gfx1234 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --tile-rocdl-serialize="chip=gfx942 format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tile-opt %s --tile-rocdl-serialize="chip=gfx942 format=hsaco" 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not tile-opt %s --tile-rocdl-serialize="chip=gfx942 format=asm output=%t.s" 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// RUN: not tile-opt %s --tile-convert-to-rocdl=chip=gfx942 2>&1 | FileCheck %s --check-prefix=NOLAYOUT

// CHIP: error: tile-convert-to-rocdl: 'sm_90a' is not an AMD target (gfx942, gfx950)
// UNKNOWN: error: tile-convert-to-rocdl: 'gfx1234' is not an AMD target (gfx942, gfx950)
// FORMAT: error: tile-rocdl-serialize: format must be asm or hsaco, not 'elf'
// OUTPUT: error: tile-rocdl-serialize: format=hsaco needs an output file (output=PATH)
// A module still in the tile dialect cannot be translated.
// TRANSLATE: error: tile-rocdl-serialize: cannot translate the module to LLVM IR
// Tiles without layouts: run -tile-gpu-prepare first.
// NOLAYOUT: error: {{.*}}has no #tile.layout encoding; run layout inference first
func.func @k(%X: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32} {
  %x = tile.view %X(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  tile.store %x[%c0], %t : !tile.view<?xf32>, tensor<64xf32>
  return
}
