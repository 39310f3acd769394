// RUN: tile-opt %s -canonicalize -tile-infer-layouts=target=sm_90a | FileCheck %s

// attention_fwd with the P V product removed (`acc = acc * alpha[:, None]`),
// as the front end emits it. The loop-carried accumulator's result is
// stored after the loop (coalesced) while inside the loop it is scaled by a
// broadcast row vector: the loop result and its iteration argument must get
// one layout (they used to be decided separately, leaving an invalid
// scf.for). The whole loop carries the layout decided first.
// CHECK-LABEL: func.func @attention_fwd
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #tile.layout<{{[^>]*}}>>, tensor<128x128xf32, #tile.layout<[[ACC:[^>]*]]>>, tensor<128xf32
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xf32, #tile.layout<{{[^>]*}}>>, tensor<128x128xf32, #tile.layout<[[ACC]]>>, tensor<128xf32
module {
  func.func @attention_fwd(%arg0: !tile.ptr<f16> {tile.dtype = "f16", tile.name = "Q", tile.shape = ["B", "H", "N", "128"]}, %arg1: !tile.ptr<f16> {tile.dtype = "f16", tile.name = "K", tile.shape = ["B", "HKV", "N", "128"]}, %arg2: !tile.ptr<f16> {tile.dtype = "f16", tile.name = "V", tile.shape = ["B", "HKV", "N", "128"]}, %arg3: !tile.ptr<f16> {tile.dtype = "f16", tile.mut, tile.name = "O", tile.shape = ["B", "H", "N", "128"]}, %arg4: f32 {tile.dtype = "f32", tile.name = "scale"}, %arg5: i32 {tile.dim = "B"}, %arg6: i32 {tile.dim = "H"}, %arg7: i32 {tile.dim = "N"}, %arg8: i32 {tile.dim = "HKV"}) attributes {tile.constants = {BM = 128 : i64, BN = 64 : i64, CAUSAL = false, D = 128 : i64, STAGES = 2 : i64}, tile.grid = ["cdiv(N, 128)", "B * H", "1"], tile.kernel, tile.warps = 4 : i32} {
    %0 = tile.view %arg0(%arg5, %arg6, %arg7) : !tile.ptr<f16> -> !tile.view<?x?x?x128xf16>
    %1 = tile.view %arg1(%arg5, %arg8, %arg7) : !tile.ptr<f16> -> !tile.view<?x?x?x128xf16>
    %2 = tile.view %arg2(%arg5, %arg8, %arg7) : !tile.ptr<f16> -> !tile.view<?x?x?x128xf16>
    %3 = tile.view %arg3(%arg5, %arg6, %arg7) : !tile.ptr<f16> -> !tile.view<?x?x?x128xf16>
    %4 = tile.program_id  y : i32
    %5 = arith.divsi %4, %arg6 : i32
    %6 = arith.remsi %4, %arg6 : i32
    %7 = arith.divsi %arg6, %arg8 : i32
    %8 = arith.divsi %6, %7 : i32
    %9 = tile.program_id  x : i32
    %c128_i32 = arith.constant 128 : i32
    %10 = arith.muli %9, %c128_i32 : i32
    %c0_i32 = arith.constant 0 : i32
    %11 = tile.load %0[%5, %6, %10, %c0_i32] : !tile.view<?x?x?x128xf16> -> tensor<1x1x128x128xf16>
    %12 = tile.reshape %11 : tensor<1x1x128x128xf16> -> tensor<128x128xf16>
    %cst = arith.constant 1.44269502 : f32
    %13 = arith.mulf %arg4, %cst : f32
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %c0_i32_3 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %14:3 = scf.for %arg9 = %c0_i32_3 to %arg7 step %c64_i32 iter_args(%arg10 = %cst_1, %arg11 = %cst_2, %arg12 = %cst_0) -> (tensor<128xf32>, tensor<128x128xf32>, tensor<128xf32>)  : i32 {
      %c0_i32_5 = arith.constant 0 : i32
      %20 = tile.load %1[%5, %8, %arg9, %c0_i32_5] : !tile.view<?x?x?x128xf16> -> tensor<1x1x64x128xf16>
      %21 = tile.reshape %20 : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
      %22 = tile.trans %21 : tensor<64x128xf16> -> tensor<128x64xf16>
      %cst_6 = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
      %23 = tile.dot %12, %22, %cst_6 : tensor<128x128xf16>, tensor<128x64xf16>, tensor<128x64xf32> -> tensor<128x64xf32>
      %24 = tile.splat %13 : f32 -> tensor<128x64xf32>
      %25 = arith.mulf %23, %24 : tensor<128x64xf32>
      %26 = tile.iota : tensor<64xi32>
      %27 = tile.splat %arg9 : i32 -> tensor<64xi32>
      %28 = arith.addi %26, %27 : tensor<64xi32>
      %29 = tile.expand_dims %28 axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %30 = tile.splat %arg7 : i32 -> tensor<1x64xi32>
      %31 = arith.cmpi slt, %29, %30 : tensor<1x64xi32>
      %32 = tile.broadcast %31 : tensor<1x64xi1> -> tensor<128x64xi1>
      %cst_7 = arith.constant dense<0xFF800000> : tensor<128x64xf32>
      %33 = arith.select %32, %25, %cst_7 : tensor<128x64xi1>, tensor<128x64xf32>
      %34 = tile.reduce  max %33 axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
      %35 = arith.maximumf %arg12, %34 : tensor<128xf32>
      %36 = tile.expand_dims %35 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
      %37 = tile.broadcast %36 : tensor<128x1xf32> -> tensor<128x64xf32>
      %38 = arith.subf %33, %37 : tensor<128x64xf32>
      %39 = math.exp2 %38 : tensor<128x64xf32>
      %40 = arith.subf %arg12, %35 : tensor<128xf32>
      %41 = math.exp2 %40 : tensor<128xf32>
      %42 = arith.mulf %arg10, %41 : tensor<128xf32>
      %43 = tile.reduce  sum %39 axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
      %44 = arith.addf %42, %43 : tensor<128xf32>
      %45 = tile.expand_dims %41 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
      %46 = tile.broadcast %45 : tensor<128x1xf32> -> tensor<128x128xf32>
      %47 = arith.mulf %arg11, %46 : tensor<128x128xf32>
      scf.yield %44, %47, %35 : tensor<128xf32>, tensor<128x128xf32>, tensor<128xf32>
    } {tile.pipeline = 2 : i32}
    %15 = tile.expand_dims %14#0 axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %16 = tile.broadcast %15 : tensor<128x1xf32> -> tensor<128x128xf32>
    %17 = arith.divf %14#1, %16 : tensor<128x128xf32>
    %18 = tile.cast %17 : tensor<128x128xf32> -> tensor<128x128xf16>
    %c0_i32_4 = arith.constant 0 : i32
    %19 = tile.reshape %18 : tensor<128x128xf16> -> tensor<1x1x128x128xf16>
    tile.store %3[%5, %6, %10, %c0_i32_4], %19 : !tile.view<?x?x?x128xf16>, tensor<1x1x128x128xf16>
    return
  }
}
