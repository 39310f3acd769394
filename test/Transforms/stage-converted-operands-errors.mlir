// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-stage-converted-operands=target=sm_90a

// A dot marked in flight by hand outside a loop body cannot alternate two
// buffers: an error at the dot.
#a = #tile.layout<local(2,8) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
#w = #tile.layout<local(2,1) * spatial(32,4) * local(1,32)>
#wd = #tile.layout<local(4,16) * local(2,1) * replicate(4) * column_spatial(4,8) * local(2,1)>
#c = #tile.layout<local(2,16) * spatial(4,1) * local(2,1) * spatial(8,4) * local(1,2)>
func.func @in_flight_in_if(%PW: !tile.ptr<i4>, %K: i32, %N: i32, %p: i1, %ta: tensor<128x64xf16, #a>, %acc: tensor<128x128xf32, #c>) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %vw = tile.view %PW(%K, %N) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  scf.for %k = %c0 to %K step %c64 : i32 {
    scf.if %p {
      %tw = tile.load %vw[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x128xi4, #w>
      %wf = tile.cast %tw {src_unsigned} : tensor<64x128xi4, #w> -> tensor<64x128xf16, #w>
      %wd = tile.convert_layout %wf : tensor<64x128xf16, #w> -> tensor<64x128xf16, #wd>
      // expected-error@+1 {{must be directly in a loop's body}}
      %d = tile.dot %ta, %wd, %acc {tile.mma_in_flight = 1 : i64} : tensor<128x64xf16, #a>, tensor<64x128xf16, #wd>, tensor<128x128xf32, #c> -> tensor<128x128xf32, #c>
    }
  }
  return
}
