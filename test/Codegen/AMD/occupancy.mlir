// RUN: tile-opt --tile-convert-to-rocdl=chip=gfx942 %s | FileCheck %s
// RUN: tile-opt --tile-convert-to-rocdl=chip=gfx942 %s \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// `occupancy 3` (tile.occupancy) on a 4-wave workgroup: three workgroups
// per CU spread 12 wavefronts over its 4 SIMDs, so each SIMD must hold 3
// (rocdl.waves_per_eu, LLVM's "amdgpu-waves-per-eu", which bounds the
// VGPRs of each wavefront at 512 / 3).
// CHECK-LABEL: llvm.func amdgpu_kernelcc @three_per_cu
// CHECK-SAME:    rocdl.waves_per_eu = 3 : i32
// IR-LABEL: define amdgpu_kernel void @three_per_cu(
// IR: attributes #{{[0-9]+}} = {{{.*}}"amdgpu-waves-per-eu"="3"
func.func @three_per_cu()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32,
                tile.occupancy = 3 : i32} {
  return
}

// Occupancy 1 asks for nothing.
// CHECK-LABEL: llvm.func amdgpu_kernelcc @one_per_cu
// CHECK-NOT:     rocdl.waves_per_eu
// CHECK-SAME:    tile_dynamic_shared_bytes = 0 : i64} {
func.func @one_per_cu()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 64 : i32,
                tile.occupancy = 1 : i32} {
  return
}
