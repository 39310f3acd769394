#!/bin/sh
# Bundles the sm_90a GEMM sweep of docs/Performance.md ("Fourth GPU
# session", "Next on the GPU"): gemm_f16 over BK x STAGES at BN = 128 with
# 4 warps (W = 4; BN = 256 needs 256 accumulators per thread there:
# 5 ms, a configuration tilec warns about), and over BN x BK x STAGES with
# two warpgroups (W = 8), all with cp.async copies (WS = false), at 4096^3 and 8192^3 (12 bundles). Then, on the GPU machine
# (carry bench/bundles):
#   bench/time-bundles.sh --budget 150 --out $OUT bench/bundles/sweep-wgmma/*
# next to bench/run.sh --only 'gemm_f16_prefill' (cuBLAS in the same call).
#
#   bench/sweep-wgmma.sh [OUT_DIR]      (default bench/bundles/sweep-wgmma)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/bundles/sweep-wgmma}
mkdir -p "$out"
common="--inout C --atol 0.05 --check M=129,K=256,N=200 \
  --bench M=4096,N=4096,K=4096 --bench M=8192,N=8192,K=8192"
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" \
  --name f16w4 -D W=4 -D WS=false -D BN=128 --grid BK=32,64 --grid STAGES=3,4 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" \
  --name f16w8 -D W=8 -D WS=false --grid BN=128,256 --grid BK=32,64 --grid STAGES=3,4 $common
