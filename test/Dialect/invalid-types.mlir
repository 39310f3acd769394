// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{!tile.float needs at least one exponent bit, got e0m3}}
func.func private @f(!tile.float<e0m3>)

// -----

// expected-error @+1 {{!tile.float<e4m4> is 9 bits wide; small floats have at most 8 bits}}
func.func private @f(!tile.float<e4m4>)

// -----

// expected-error @+1 {{!tile.float<e2m1> is the builtin type f4E2M1FN; use that instead}}
func.func private @f(!tile.float<e2m1>)

// -----

// expected-error @+1 {{expected a small-float format 'eXmY' (e.g. e2m2), got 'f5e2m2'}}
func.func private @f(!tile.float<f5e2m2>)

// -----

// expected-error @+1 {{!tile.view must have rank 1 or more}}
func.func private @f(!tile.view<f16>)

// -----

// expected-error @+1 {{!tile.view element type must be a signless integer, a float of at most 32 bits or !tile.float, got 'index'}}
func.func private @f(!tile.view<?xindex>)

// -----

// expected-error @+1 {{!tile.shared dimensions must be positive}}
func.func private @f(!tile.shared<0x4xf16>)

// -----

// expected-error @+1 {{!tile.shared element type must be a signless integer, a float of at most 32 bits or !tile.float, got 'f64'}}
func.func private @f(!tile.shared<4xf64>)
