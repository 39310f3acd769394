// RUN: tile-opt -tile-convert-to-nvvm -split-input-file -verify-diagnostics %s

// Tiles need the layouts of -tile-gpu-prepare.
func.func @no_layout(%x: !tile.ptr<f32>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %x(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-error @below {{has no #tile.layout encoding; run layout inference first}}
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<128xf32>
  return
}

// -----

// Shared buffers need their offsets.
func.func @no_offset()
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  // expected-error @below {{needs a tile.offset attribute; run tile-allocate-shared first}}
  %s = tile.alloc_shared : !tile.shared<64x32xf16>
  return
}

// -----

// The dot operands must be built from the mma.sync layouts.
#l = #tile.layout<spatial(8,4) * local(2,4)>
#c = #tile.layout<spatial(8,4) * local(2,4)>
func.func @dot_layouts(%a: !tile.ptr<f16>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %a() : !tile.ptr<f16> -> !tile.view<16x16xf16>
  %x = tile.load %v[%c0, %c0] : !tile.view<16x16xf16> -> tensor<16x16xf16, #l>
  %z = arith.constant dense<0.0> : tensor<16x16xf32, #c>
  // expected-error @below {{operand layouts are not built from the 16x8x16 matrix-instruction layouts}}
  %d = tile.dot %x, %x, %z : tensor<16x16xf16, #l>, tensor<16x16xf16, #l>, tensor<16x16xf32, #c> -> tensor<16x16xf32, #c>
  return
}

// -----

// Small floats must be cast before arithmetic.
#v = #tile.layout<spatial(32) * local(4)>
func.func @small_float_arith(%a: !tile.ptr<f8E4M3FN>)
    attributes {tile.kernel, tile.warps = 1 : i32, tile.warp_size = 32 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %a() : !tile.ptr<f8E4M3FN> -> !tile.view<128xf8E4M3FN>
  %x = tile.load %v[%c0] : !tile.view<128xf8E4M3FN> -> tensor<128xf8E4M3FN, #v>
  // expected-error @below {{arithmetic on small floats ('f8E4M3FN') is not supported; cast to f16/f32 first}}
  %y = arith.addf %x, %x : tensor<128xf8E4M3FN, #v>
  return
}

// -----

// A TMA copy without its tensor map (tile-assign-tensor-maps did not run).
func.func @tma_without_map(%A: !tile.ptr<f16>, %N: i32)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32, tile.shared_bytes = 17408 : i64} {
  %c0 = arith.constant 0 : i32
  %v = tile.view %A(%N, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %s = tile.alloc_shared {tile.offset = 0 : i64} : !tile.shared<2x64x64xf16, #tile.shared_layout<swizzle(3,3,3) o (2,64,64):(4096,64,1)>>
  %b = tile.alloc_shared {tile.offset = 16384 : i64} : !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  // expected-error @below {{internal error: a TMA copy without its tensor map (run tile-assign-tensor-maps)}}
  tile.copy_async %v[%c0, %c0] -> %s[%c0, %c0, %c0] barrier(%b[%c0]) : !tile.view<?x?xf16> -> !tile.shared<2x64x64xf16, #tile.shared_layout<swizzle(3,3,3) o (2,64,64):(4096,64,1)>>, !tile.shared<2xi64, #tile.shared_layout<(2):(1)>>
  return
}
