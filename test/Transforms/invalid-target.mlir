// RUN: tile-opt %s -verify-diagnostics -tile-infer-layouts=target=sm_1000

// expected-error @below {{unknown target 'sm_1000'}}
module {
}
