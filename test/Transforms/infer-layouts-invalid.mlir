// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-infer-layouts=target=sm_90a

// A pinned layout must use the kernel's threads (2 warps x 32).
func.func @wrong_threads(%X: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 2 : i32} {
  %x = tile.view %X(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  // expected-error @below {{layout 'spatial(32) * local(2)' uses 32 threads, but the kernel has 64 (tile.warps = 2 x warp size 32)}}
  %p = tile.convert_layout %t : tensor<64xf32> -> tensor<64xf32, #tile.layout<spatial(32) * local(2)>>
  tile.store %x[%c0], %p : !tile.view<?xf32>, tensor<64xf32, #tile.layout<spatial(32) * local(2)>>
  return
}

// -----

// expected-error @below {{kernel has no 'tile.warps' attribute}}
func.func @no_warps(%X: !tile.ptr<f32>, %N: i32) attributes {tile.kernel} {
  return
}

// -----

func.func @while_loop(%X: !tile.ptr<f32>, %N: i32) attributes {tile.kernel, tile.warps = 1 : i32} {
  %x = tile.view %X(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  // expected-error @below {{layout inference does not support 'scf.while' carrying tiles}}
  %r = scf.while (%a = %t) : (tensor<32xf32>) -> tensor<32xf32> {
    %false = arith.constant false
    scf.condition(%false) %a : tensor<32xf32>
  } do {
  ^bb0(%b: tensor<32xf32>):
    scf.yield %b : tensor<32xf32>
  }
  tile.store %x[%c0], %r : !tile.view<?xf32>, tensor<32xf32>
  return
}
