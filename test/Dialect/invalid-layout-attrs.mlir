// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{invalid layout 'spatial(8) * bogus(2)'}}
func.func private @f(tensor<16xf32, #tile.layout<spatial(8) * bogus(2)>>)

// -----

// expected-error @+1 {{layout 'spatial(8,4)' covers a tile of shape [8, 4], not [4, 8]}}
func.func private @f(tensor<4x8xf32, #tile.layout<spatial(8,4)>>)

// -----

// expected-error @+1 {{invalid shared layout '(64,32):(32)'}}
func.func private @f(!tile.shared<64x32xf16, #tile.shared_layout<(64,32):(32)>>)

// -----

// A column blocking of no columns.
// expected-error @+1 {{blocks nothing: c must be positive}}
func.func private @f(!tile.shared<32x128xf16, #tile.shared_layout<block(6,0,5) o (32,128):(128,1)>>)

// -----

// expected-error @+1 {{shared layout '(32,32):(32,1)' does not have the buffer's shape}}
func.func private @f(!tile.shared<64x32xf16, #tile.shared_layout<(32,32):(32,1)>>)

// -----

// expected-error @+1 {{!tile.shared encoding must be a #tile.shared_layout, got 1 : i32}}
func.func private @f(!tile.shared<64x32xf16, 1 : i32>)

// -----

// expected-error @+1 {{'tile.warp_size' must be an i32 of 1, 32 or 64, got 16 : i32}}
func.func @k() attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 16 : i32} { return }

// -----

// expected-error @+1 {{'tile.warp_size' needs 'tile.warps'}}
func.func @k() attributes {tile.kernel, tile.warp_size = 32 : i32} { return }

// -----

func.func @k(%x: tensor<64xf32, #tile.layout<spatial(64)>>)
    attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  // expected-error @+1 {{result layout 'spatial(64)' uses 64 threads, but the kernel has 128 (tile.warps x tile.warp_size)}}
  %y = tile.convert_layout %x : tensor<64xf32, #tile.layout<spatial(64)>> -> tensor<64xf32, #tile.layout<spatial(64)>>
  return
}
