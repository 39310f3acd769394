#!/bin/sh
# Bundles the sm_90a GEMM sweep of docs/Performance.md ("Fourth GPU
# session", "Next on the GPU"): gemm_f16 over BK x STAGES at BN = 128 with
# the example's 4 warps (BN = 256 needs 256 accumulators per thread there:
# 5 ms, a configuration tilec warns about), and over BN x BK x STAGES with
# two warpgroups (a copy of the example whose warp count is a parameter,
# W = 8), at 4096^3 and 8192^3 (12 bundles). Then, on the GPU machine
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
  --name f16w4 -D BN=128 --grid BK=32,64 --grid STAGES=3,4 $common
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/STAGES: int = 3>/STAGES: int = 3, W: int = 8>/; s/warps 4/warps W/' \
  "$root/examples/gemm_f16.tile" > "$tmp/gemm_f16.tile"
grep -q 'warps W' "$tmp/gemm_f16.tile"
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$tmp/gemm_f16.tile" -o "$out" \
  --name f16w8 --grid BN=128,256 --grid BK=32,64 --grid STAGES=3,4 $common
