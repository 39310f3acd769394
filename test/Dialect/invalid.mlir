// RUN: tile-opt %s -split-input-file -verify-diagnostics
// One case per verifier error of the tile ops.

func.func @f(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{pointer element type 'f32' differs from the view element type 'f16'}}
  %v = tile.view %p(%n) : !tile.ptr<f32> -> !tile.view<?xf16>
  return
}

// -----

func.func @f(%p: !tile.ptr<f16>, %n: i32) {
  // expected-error @+1 {{expects one dimension operand per '?' of the result type (2), got 1}}
  %v = tile.view %p(%n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  return
}

// -----

func.func @f(%p: !tile.ptr<f16>, %n: i32) {
  // expected-error @+1 {{expects no strides or one per dimension (2), got 1}}
  %v = tile.view %p(%n, %n) strides(%n) : !tile.ptr<f16> -> !tile.view<?x?xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{expects one offset per view dimension (2), got 1}}
  %t = tile.load %v[%i] : !tile.view<?x?xf16> -> tensor<4x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{result rank 1 differs from the view rank 2 (load size-1 dimensions and reshape to drop them)}}
  %t = tile.load %v[%i, %i] : !tile.view<?x?xf16> -> tensor<4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{result element type 'f32' differs from the view element type 'f16'}}
  %t = tile.load %v[%i, %i] : !tile.view<?x?xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{result must have a static, positive shape, got 'tensor<?x4xf16>'}}
  %t = tile.load %v[%i, %i] : !tile.view<?x?xf16> -> tensor<?x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{padding value 0.000000e+00 : f32 must have the element type 'f16'}}
  %t = tile.load %v[%i, %i] padding(0.0 : f32) : !tile.view<?x?xf16> -> tensor<4x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32, %t: tensor<4x4x4xf16>) {
  // expected-error @+1 {{stored tile rank 3 differs from the view rank 2}}
  tile.store %v[%i, %i], %t : !tile.view<?x?xf16>, tensor<4x4x4xf16>
  return
}

// -----

// Atomic additions exist for the types GPUs add atomically.
func.func @f(%v: !tile.view<?xi8>, %i: i32, %t: tensor<64xi8>) {
  // expected-error @+1 {{adds f32, f16, bf16 or i32 elements, not 'i8'}}
  tile.atomic_add %v[%i], %t : !tile.view<?xi8>, tensor<64xi8>
  return
}

// -----

// The added tile has the view's element type (convert before adding).
func.func @f(%v: !tile.view<?xf32>, %i: i32, %t: tensor<64xf16>) {
  // expected-error @+1 {{added tile element type 'f16' differs from the view element type 'f32'}}
  tile.atomic_add %v[%i], %t : !tile.view<?xf32>, tensor<64xf16>
  return
}

// -----

func.func @f(%s: !tile.shared<2x4x4xf16>, %i: i32) {
  // expected-error @+1 {{expects one index per buffer dimension (3), got 2}}
  %t = tile.shared_load %s[%i, %i] : !tile.shared<2x4x4xf16> -> tensor<4x4xf16>
  return
}

// -----

func.func @f(%s: !tile.shared<4x4xf16>, %i: i32) {
  // expected-error @+1 {{result rank 3 exceeds the buffer rank 2}}
  %t = tile.shared_load %s[%i, %i] : !tile.shared<4x4xf16> -> tensor<1x4x4xf16>
  return
}

// -----

func.func @f(%s: !tile.shared<4x4xf16>, %i: i32) {
  // expected-error @+1 {{result element type 'f32' differs from the buffer element type 'f16'}}
  %t = tile.shared_load %s[%i, %i] : !tile.shared<4x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%s: !tile.shared<2x4x4xf16>, %i: i32, %t: tensor<8x4xf16>) {
  // expected-error @+1 {{stored tile shape 8x4 does not fit in the trailing buffer dimensions 4x4}}
  tile.shared_store %s[%i, %i, %i], %t : !tile.shared<2x4x4xf16>, tensor<8x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %s: !tile.shared<2x4x4xf16>, %i: i32) {
  // expected-error @+1 {{expects one source offset per view dimension (2), got 1}}
  tile.copy_async %v[%i] -> %s[%i, %i, %i] : !tile.view<?x?xf16> -> !tile.shared<2x4x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{expects one offset per view dimension (2), got 1}}
  tile.prefetch %v[%i] [64, 64] : !tile.view<?x?xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{expects one extent per view dimension (2), got 1}}
  tile.prefetch %v[%i, %i] [64] : !tile.view<?x?xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %i: i32) {
  // expected-error @+1 {{expects positive extents}}
  tile.prefetch %v[%i, %i] [64, 0] : !tile.view<?x?xf16>
  return
}

// -----

func.func @f(%i: i32) {
  // expected-error @+1 {{must be directly in the body of a tile.kernel}}
  tile.wait_preceding_grids
  return
}

// -----

func.func @f(%v: !tile.view<?x?x?xf16>, %s: !tile.shared<4x4xf16>, %i: i32) {
  // expected-error @+1 {{destination rank 2 is lower than the source rank 3}}
  tile.copy_async %v[%i, %i, %i] -> %s[%i, %i] : !tile.view<?x?x?xf16> -> !tile.shared<4x4xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf32>, %s: !tile.shared<4x4xf16>, %i: i32) {
  // expected-error @+1 {{copied tile element type 'f32' differs from the buffer element type 'f16'}}
  tile.copy_async %v[%i, %i] -> %s[%i, %i] : !tile.view<?x?xf32> -> !tile.shared<4x4xf16>
  return
}

// -----

func.func @f(%a: tensor<2x4x4xf16>, %b: tensor<4x4xf16>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{expects 2-D operands (or 3-D ones: a batch), got 2x4x4, 4x4 and 4x4}}
  %r = tile.dot %a, %b, %c : tensor<2x4x4xf16>, tensor<4x4xf16>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// A batched dot's operands and accumulator share the batch dimension.
func.func @f(%a: tensor<2x4x4xf16>, %b: tensor<3x4x4xf16>, %c: tensor<2x4x4xf32>) {
  // expected-error @+1 {{batch dimensions differ: 2x4x4, 3x4x4 and 2x4x4}}
  %r = tile.dot %a, %b, %c : tensor<2x4x4xf16>, tensor<3x4x4xf16>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

// Four dimensions are not a batch of matrices.
func.func @f(%a: tensor<2x2x4x4xf16>, %c: tensor<2x2x4x4xf32>) {
  // expected-error @+1 {{expects 2-D operands (or 3-D ones: a batch), got 2x2x4x4, 2x2x4x4 and 2x2x4x4}}
  %r = tile.dot %a, %a, %c : tensor<2x2x4x4xf16>, tensor<2x2x4x4xf16>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  return
}

// -----

// The inner dimensions of a batched dot are its last ones.
func.func @f(%a: tensor<2x4x8xf16>, %b: tensor<2x4x4xf16>, %c: tensor<2x4x4xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 2x4x8 and b is 2x4x4}}
  %r = tile.dot %a, %b, %c : tensor<2x4x8xf16>, tensor<2x4x4xf16>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 64x32 and b is 16x64}}
  %r = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{accumulator is 64x32 but a x b is 64x64}}
  %r = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x32xf32> -> tensor<64x32xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{result type 'tensor<64x64xf16>' differs from the accumulator type 'tensor<64x64xf32>'}}
  %r = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf16>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{operand element types differ: 'f16' and 'bf16'}}
  %r = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{i8 operands need an i32 accumulator, got 'f32'}}
  %r = tile.dot %a, %b, %c : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xi4>, %b: tensor<32x64xi4>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{operand element type 'i4' is not supported by tile.dot (f16, bf16, f32, 8-bit floats or i8; cast low-bit types first)}}
  %r = tile.dot %a, %b, %c : tensor<64x32xi4>, tensor<32x64xi4>, tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xbf16>) {
  // expected-error @+1 {{accumulator element type must be f32 (or f16 for f16 operands), got 'bf16'}}
  %r = tile.dot %a, %b, %c : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a 2-D tile}}
  %r = tile.reduce sum %x axis = 2 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf8E4M3FN>) {
  // expected-error @+1 {{cannot reduce elements of type 'f8E4M3FN' (cast small floats to f16/f32 first)}}
  %r = tile.reduce max %x axis = 1 : tensor<4x8xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'is_unsigned' only applies to integer tiles}}
  %r = tile.reduce max %x axis = 1 {is_unsigned} : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<8xf32>) {
  // expected-error @+1 {{reducing a 1-D tile gives a scalar of type 'f32', not 'tensor<1xf32>'}}
  %r = tile.reduce sum %x axis = 0 : tensor<8xf32> -> tensor<1xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be a 8 tile of 'f32', got 'tensor<4xf32>'}}
  %r = tile.reduce sum %x axis = 0 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{cannot broadcast a 1-D tile to rank 2 (insert dimensions with tile.expand_dims)}}
  %r = tile.broadcast %x : tensor<64xf32> -> tensor<4x64xf32>
  return
}

// -----

func.func @f(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 cannot broadcast to 4 (only size-1 dimensions expand)}}
  %r = tile.broadcast %x : tensor<2x64xf32> -> tensor<4x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x64xf32>) {
  // expected-error @+1 {{element type changes from 'f32' to 'f16'}}
  %r = tile.broadcast %x : tensor<1x64xf32> -> tensor<4x64xf16>
  return
}

// -----

func.func @f(%x: f16) {
  // expected-error @+1 {{scalar type 'f16' differs from the tile element type 'f32'}}
  %r = tile.splat %x : f16 -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: index) {
  // expected-error @+1 {{result has element type 'index', which is not a tile element type}}
  %r = tile.splat %x : index -> tensor<4xindex>
  return
}

// -----

func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a 1-D tile (0..1)}}
  %r = tile.expand_dims %x axis = 2 : tensor<64xf32> -> tensor<64x1xf32>
  return
}

// -----

func.func @f(%x: tensor<64xf32>) {
  // expected-error @+1 {{result shape must be 64x1, got 1x64}}
  %r = tile.expand_dims %x axis = 1 : tensor<64xf32> -> tensor<1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{permutation has 3 entries for a 2-D tile}}
  %r = tile.trans %x {perm = array<i32: 0, 1, 2>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{perm is not a permutation of 0..1}}
  %r = tile.trans %x {perm = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape must be 8x4, got 4x8}}
  %r = tile.trans %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{cannot reshape 4x8 (32 elements) to 16 (16 elements)}}
  %r = tile.reshape %x : tensor<4x8xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{result must be a 1-D tile of i32, got 'tensor<4xi64>'}}
  %r = tile.iota : tensor<4xi64>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must both be tiles or both be scalars, got 'tensor<4xf32>' and 'f16'}}
  %r = tile.cast %x : tensor<4xf32> -> f16
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{shape changes from 4 to 8}}
  %r = tile.cast %x : tensor<4xf32> -> tensor<8xf16>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'src_unsigned' needs an integer source, got 'f32'}}
  %r = tile.cast %x {src_unsigned} : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

func.func @f(%x: tensor<4xi8>) {
  // expected-error @+1 {{'dst_unsigned' needs an integer result, got 'f16'}}
  %r = tile.cast %x {dst_unsigned} : tensor<4xi8> -> tensor<4xf16>
  return
}

// -----

func.func @f(%x: i16) {
  // expected-error @+1 {{bit count does not match: 'i16' has 16 bits, 'f32' has 32}}
  %r = tile.bitcast %x : i16 -> f32
  return
}

// -----

func.func @f(%x: tensor<4x8xi8>) {
  // expected-error @+1 {{only the last dimension may change, got 4x8 to 8x16}}
  %r = tile.bitcast %x : tensor<4x8xi8> -> tensor<8x16xi4>
  return
}

// -----

func.func @f(%x: tensor<4x8xi8>) {
  // expected-error @+1 {{bit count does not match: a row of 8 x 8 bits is 64 bits, a row of 20 x 3 bits is 60 bits}}
  %r = tile.bitcast %x : tensor<4x8xi8> -> tensor<4x20xi3>
  return
}

// -----

func.func @f(%x: tensor<4xi32>) {
  // expected-error @+1 {{source and result must both be tiles or both be scalars}}
  %r = tile.bitcast %x : tensor<4xi32> -> i32
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{may change only the layout, not 'tensor<4x8xf32>' to 'tensor<8x4xf32>'}}
  %r = tile.convert_layout %x : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%a: tensor<16x64xbf16>, %sa: tensor<16x2xf8E8M0FNU>, %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{operand element type 'bf16' is not a small-float code type}}
  %r = tile.dot_scaled %a, %sa, %b, %sb, %c : tensor<16x64xbf16>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%a: tensor<16x64xf4E2M1FN>, %sa: tensor<16x2xf16>, %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{scale element type 'f16' is neither e8m0 nor f8E4M3FN}}
  %r = tile.dot_scaled %a, %sa, %b, %sb, %c : tensor<16x64xf4E2M1FN>, tensor<16x2xf16>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%a: tensor<16x64xf4E2M1FN>, %sa: tensor<16x3xf8E8M0FNU>, %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{a_scale is 16x3, expected 16x(a divisor of 64)}}
  %r = tile.dot_scaled %a, %sa, %b, %sb, %c : tensor<16x64xf4E2M1FN>, tensor<16x3xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%a: tensor<16x64xf4E2M1FN>, %sa: tensor<16x2xf8E8M0FNU>, %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x16xf8E8M0FNU>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{b_scale is 2x16, expected (a divisor of 64)x32}}
  %r = tile.dot_scaled %a, %sa, %b, %sb, %c : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x16xf8E8M0FNU>, tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @f(%a: tensor<16x64xf4E2M1FN>, %sa: tensor<16x2xf8E8M0FNU>, %b: tensor<64x32xf4E2M1FN>, %sb: tensor<2x32xf8E8M0FNU>, %c: tensor<16x32xf16>) {
  // expected-error @+1 {{accumulator must be f32 16x32, got 'tensor<16x32xf16>'}}
  %r = tile.dot_scaled %a, %sa, %b, %sb, %c : tensor<16x64xf4E2M1FN>, tensor<16x2xf8E8M0FNU>, tensor<64x32xf4E2M1FN>, tensor<2x32xf8E8M0FNU>, tensor<16x32xf16> -> tensor<16x32xf16>
  return
}

// -----

func.func @f(%v: !tile.view<?x?xf16>, %s: !tile.shared<2x4x8xf16>, %b: !tile.shared<2xi32>, %i: i32) {
  // expected-error @+1 {{expects mbarriers in a rank-1 buffer of i64, got '!tile.shared<2xi32>'}}
  tile.copy_async %v[%i, %i] -> %s[%i, %i, %i] barrier(%b[%i]) : !tile.view<?x?xf16> -> !tile.shared<2x4x8xf16>, !tile.shared<2xi32>
  return
}

// -----

func.func @f(%b: !tile.shared<2x2xi64>) {
  // expected-error @+1 {{expects mbarriers in a rank-1 buffer of i64}}
  tile.mbarrier_init %b count(1) : !tile.shared<2x2xi64>
  return
}

// -----

func.func @f(%b: !tile.shared<2xi64>) {
  // expected-error @+1 {{'count' failed to satisfy constraint}}
  tile.mbarrier_init %b count(0) : !tile.shared<2xi64>
  return
}

// -----

func.func @f(%b: !tile.shared<2xf32>, %i: i32) {
  // expected-error @+1 {{expects mbarriers in a rank-1 buffer of i64}}
  tile.mbarrier_wait %b[%i] phase(%i) : !tile.shared<2xf32>
  return
}

// -----

func.func @f(%b: !tile.shared<2xi32>) {
  // expected-error @+1 {{expects mbarriers in a rank-1 buffer of i64}}
  tile.mbarrier_inval %b : !tile.shared<2xi32>
  return
}

// -----

func.func @f(%b: !tile.shared<2xi32>, %i: i32) {
  // expected-error @+1 {{expects mbarriers in a rank-1 buffer of i64}}
  tile.mbarrier_arrive %b[%i] : !tile.shared<2xi32>
  return
}

// -----

// tile.warp_specialize splits a kernel's whole body: not in a plain function.
func.func @f() {
  // expected-error @+1 {{must be directly in the body of a tile.kernel}}
  tile.warp_specialize producer(4 warps, 40 registers) {
  } consumer(232 registers) {
  }
  return
}

// -----

// ... nor before other ops of the kernel.
func.func @f() attributes {tile.kernel, tile.warps = 8 : i32, tile.producer_warps = 4 : i64} {
  // expected-error @+1 {{must be the last op of its kernel before the return}}
  tile.warp_specialize producer(4 warps, 40 registers) {
  } consumer(232 registers) {
  }
  tile.barrier
  return
}

// -----

// The kernel's launch must know the producer warps.
func.func @f() attributes {tile.kernel, tile.warps = 8 : i32} {
  // expected-error @+1 {{expects its kernel's 'tile.producer_warps' to be 4}}
  tile.warp_specialize producer(4 warps, 40 registers) {
  } consumer(232 registers) {
  }
  return
}

// -----

// setmaxnreg acts on warpgroups: the consumer warps too come in fours.
func.func @f() attributes {tile.kernel, tile.warps = 6 : i32, tile.producer_warps = 4 : i64} {
  // expected-error @+1 {{needs whole warpgroups: producer warps (4) and the kernel's tile.warps (6) multiples of 4}}
  tile.warp_specialize producer(4 warps, 40 registers) {
  } consumer(232 registers) {
  }
  return
}

// -----

func.func @f() attributes {tile.kernel, tile.warps = 8 : i32, tile.producer_warps = 4 : i64} {
  // expected-error @+1 {{register counts must be multiples of 8 in [24, 256], got 20 and 232}}
  tile.warp_specialize producer(4 warps, 20 registers) {
  } consumer(232 registers) {
  }
  return
}

// -----

// 128 x 40 + 256 x 240 registers do not fit in a block's 65536.
func.func @f() attributes {tile.kernel, tile.warps = 8 : i32, tile.producer_warps = 4 : i64} {
  // expected-error @+1 {{asks for 66560 registers, more than the 65536 of a block}}
  tile.warp_specialize producer(4 warps, 40 registers) {
  } consumer(240 registers) {
  }
  return
}
