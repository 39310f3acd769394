#!/bin/sh
# Bundles the mma.sync sweep for issue #14's goals on the builds without
# wgmma (docs/Performance.md "Next on the GPU"): an sm_80 cubin does not
# load on a Hopper, so what an sm_80 build runs as there is the sm_90 one
# (mma.sync, cp.async; no wgmma, no TMA). Goals on an H100: gemm_f16 at
# 4096^3 >= 0.55x cuBLAS (the default 128x128x32 tile, 4 warps: 0.51x on
# 2026-11-25) and attention_fwd (D = 128, N = 4096) >= 350 TFLOP/s (the
# default, 8 warps, BM = 128, BN = 64: 247).
#   - gemm_f16, target sm_90: 4 warps at 128x128 over BK x STAGES, and 8
#     warps at 128x128 and 128x256 over BK x STAGES, at 4096^3 and 8192^3
#     (12 bundles, names f16mma_*);
#   - attention_fwd, target sm_90, B = 1, H = 32, HKV = 8, N = 1024 / 4096 /
#     8192: 8 warps at BM = 128 over BN = 32, 64 x STAGES = 2, 3, and 4
#     warps at BM = 64 over BN = 32, 64 and 3 stages at 64 (7 bundles,
#     names attmma_*);
#   - with `occupancy` (OCC): gemm_f16 8 warps 128x128 at two programs per
#     SM (BK 32 / 64 at 3 stages, BK 32 at 4), attention 4 warps BM = 64
#     BN = 32 at three (4 bundles).
# Then, on the GPU machine (carry bench/bundles):
#   bench/time-bundles.sh --budget 150 --out $OUT bench/bundles/sweep-mma/*
# next to bench/make-bundle.sh --target sm_90 bundles of the cases
# 'gemm_f16_prefill_128x128x32|attention_fwd_w8$' run with bench/run.sh
# (cuBLAS and SDPA in the same call).
#
#   bench/sweep-mma.sh [OUT_DIR]      (default bench/bundles/sweep-mma;
#                                     $TILEC: the tilec, default build/bin/tilec)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/bundles/sweep-mma}
tilec=${TILEC:-$root/build/bin/tilec}
mkdir -p "$out"
gemm="--target sm_90 --inout C --atol 0.05 --check M=129,K=256,N=200 \
  --bench M=4096,N=4096,K=4096 --bench M=8192,N=8192,K=8192"
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
  --name f16mma_w4 -D W=4 -D BN=128 --grid BK=32,64 --grid STAGES=3,4 $gemm
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
  --name f16mma_w8 -D W=8 --grid BN=128,256 --grid BK=32,64 --grid STAGES=3,4 $gemm
att="--target sm_90 --inout O --atol 0.02 --arg scale=0.08838834764831845 \
  --check B=1,H=4,HKV=2,N=200 --bench B=1,H=32,HKV=8,N=1024 \
  --bench B=1,H=32,HKV=8,N=4096 --bench B=1,H=32,HKV=8,N=8192"
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/attention_fwd.tile" -o "$out" --tilec "$tilec" \
  --name attmma_w8 -D BM=128 -D W=8 --grid BN=32,64 --grid STAGES=2,3 $att
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/attention_fwd.tile" -o "$out" --tilec "$tilec" \
  --name attmma_w4 -D BM=64 -D W=4 --grid BN=32,64 $att
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/attention_fwd.tile" -o "$out" --tilec "$tilec" \
  --name attmma_w4_s3 -D BM=64 -D W=4 -D BN=64 -D STAGES=3 $att
# More programs per SM (`occupancy`, OCC): the 8-warp 128x128 GEMM tile at
# 128 registers, two per SM (146-160 and one without); attention at 4
# warps, BM = 64, BN = 32 at 168 registers, three per SM.
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
  --name f16mma_w8_occ2 -D W=8 -D BN=128 -D OCC=2 -D STAGES=3 --grid BK=32,64 $gemm
# (at BK = 64, 4 stages of two programs exceed the SM's shared memory)
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
  --name f16mma_w8_occ2_s4 -D W=8 -D BN=128 -D OCC=2 -D STAGES=4 -D BK=32 $gemm
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/attention_fwd.tile" -o "$out" --tilec "$tilec" \
  --name attmma_w4_occ3 -D BM=64 -D W=4 -D BN=32 -D OCC=3 $att
