// RUN: tile-opt %s -split-input-file -tile-pipeline="target=sm_90a warp-specialize=true" -verify-diagnostics

// Asked for warp specialization, a pipelined loop that cannot have it says
// why at its location (and keeps its warps): here, nested in an scf.if.
#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>
func.func @nested(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}, %go: i1) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  scf.if %go {
    // expected-warning @+1 {{loop not warp-specialized: it is not directly in the kernel's body (nor in a persistent kernel's loop over its tiles)}}
    %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
      %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
      %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
      %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
      scf.yield %d : tensor<128x64xf32, #c>
    } {tile.pipeline = 3 : i32}
    tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  }
  return
}

// -----

// A loop whose bound is read from memory: the producer could not compute
// it without the load.
#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>
#s = #tile.layout<replicate(128) * local(1)>
func.func @loaded_bound(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %PL: !tile.ptr<i32> {tile.shape = ["1"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %lv = tile.view %PL(%c1) : !tile.ptr<i32> -> !tile.view<?xi32>
  %lt = tile.load %lv[%c0] : !tile.view<?xi32> -> tensor<1xi32, #s>
  %limit = tile.reduce sum %lt axis = 0 : tensor<1xi32, #s> -> i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  // expected-warning @+1 {{loop not warp-specialized: its bounds or copy offsets are computed with memory effects or inside other operations, which the producer cannot repeat}}
  %r = scf.for %k = %c0 to %limit step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

// A third pipelined load (here unused) that is not one of the dot's
// operands does not keep a producer warpgroup away (no warning): the
// consumers read every ring's stage before the dot and release it one
// iteration later, after the dot's lowering retired the group that read
// it (without a producer, the TMA scheme's refill after the dot's barrier
// needs the dot's two operands to be all: test/Transforms/pipeline-tma.mlir).
#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>
func.func @third_load(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %tx = tile.load %b[%c0, %k] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

// At `occupancy 9` (tile.occupancy) nine programs of 4 warps fit an SM's
// 64, but not with a producer warpgroup each (72): the loop keeps its warps
// and says why (rather than a register count setmaxnreg cannot take).
#a = #tile.layout<spatial(128,1) * local(1,64)>
#b = #tile.layout<spatial(64,2) * local(1,32)>
#c = #tile.layout<spatial(128,1) * local(1,64)>
func.func @occupancy(%PA: !tile.ptr<f16> {tile.shape = ["M", "K"]}, %PB: !tile.ptr<f16> {tile.shape = ["K", "N"]}, %PC: !tile.ptr<f32> {tile.shape = ["M", "N"]}, %M: i32 {tile.dim = "M"}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.occupancy = 9 : i32, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %a = tile.view %PA(%M, %K) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %b = tile.view %PB(%K, %N) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  %cv = tile.view %PC(%M, %N) : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #c>
  // expected-warning @+1 {{loop not warp-specialized: with the 4 producer warps, occupancy 9 of 8-warp programs needs 72 warps per SM, more than its 64}}
  %r = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #c>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<?x?xf16> -> tensor<128x64xf16, #a>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16, #b>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16, #a>, tensor<64x64xf16, #b>, tensor<128x64xf32, #c> -> tensor<128x64xf32, #c>
    scf.yield %d : tensor<128x64xf32, #c>
  } {tile.pipeline = 3 : i32}
  tile.store %cv[%c0, %c0], %r : !tile.view<?x?xf32>, tensor<128x64xf32, #c>
  return
}

// -----

// A u4 tile whose column offset may split a byte (k + 1: knownDivisor 1)
// is no TMA copy, not even the producer's: a map of bytes cannot start it
// there.
#w = #tile.layout<spatial(64,2) * local(1,64)>
func.func @packed_weight_odd_column(%PW: !tile.ptr<i4> {tile.shape = ["N", "K"]}, %PO: !tile.ptr<i4> {tile.shape = ["64", "128"]}, %K: i32 {tile.dim = "K"}, %N: i32 {tile.dim = "N"}) attributes {tile.kernel, tile.warps = 4 : i32, tile.warp_size = 32 : i32} {
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %w = tile.view %PW(%N, %K) : !tile.ptr<i4> -> !tile.view<?x?xi4>
  %o = tile.view %PO() : !tile.ptr<i4> -> !tile.view<64x128xi4>
  %c0 = arith.constant 0 : i32
  %w0 = arith.constant dense<0> : tensor<64x128xi4, #w>
  // expected-warning @+1 {{loop not warp-specialized: a pipelined load does not read a whole tensor parameter (rank 2-5, with its declared shape) of byte-sized elements (with a producer warpgroup also packed ones from a column on a byte)}}
  %r = scf.for %k = %c0 to %K step %c128 iter_args(%aw = %w0) -> (tensor<64x128xi4, #w>) : i32 {
    %k1 = arith.addi %k, %c1 : i32
    %tw = tile.load %w[%c0, %k1] : !tile.view<?x?xi4> -> tensor<64x128xi4, #w>
    %dw = arith.xori %aw, %tw : tensor<64x128xi4, #w>
    scf.yield %dw : tensor<64x128xi4, #w>
  } {tile.pipeline = 2 : i32}
  tile.store %o[%c0, %c0], %r : !tile.view<64x128xi4>, tensor<64x128xi4, #w>
  return
}
