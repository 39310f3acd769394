#!/bin/sh
# Bundles the decode sweep of docs/Performance.md ("Next on the GPU"): the
# packed decode GEMM (examples/gemm_decode_packed.tile) at M = 1,
# N = 57344, K = 8192 for u8 over BK = 64, 128 x STAGES = 3, 4, 5 x
# BN = 32, 64 (12 bundles: are the 8-bit kernels' late copies the 64-byte
# row segments of BK = 64?) and for u1 over BK = 256, 512 x STAGES = 3, 4
# (4 bundles); and the row-major kernel's M <= 8 path (examples/
# gemm_decode.tile, BM = 8, u4) at M = 1, N = K = 4096 over BN = 16, 32 x
# KW = 1, 2, 4 (K split across the warps of a program) x SPLIT = 1, 4
# (12 bundles, named ksplit_*); and the conversion-bound widths at the
# large shape, u2 over BN = 64, 128, 256 x BM = 8, 16 and f5e2m2 over
# BN = 64, 128 (8 bundles, named conv_*: wider column blocks spread the
# per-k-block copies and A fragments over more weight bytes; statically
# u2 0.385 -> 0.291 warp instructions per weight byte at BN = 256, BM = 8,
# f5e2m2 0.336 -> 0.273 at BN = 128). 8-bit codes need a wider check tolerance
# (--atol 32, as split_atol gives the bench). Then, on the GPU machine (carry
# bench/bundles):
#   bench/time-bundles.sh --budget 120 --out $OUT bench/bundles/sweep-decode/*
# and Nsight Compute's stall reasons of the best and the default
# (ncu --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio).
#
#   bench/sweep-decode.sh [OUT_DIR]   (default bench/bundles/sweep-decode;
#                                     $TILEC: the tilec, default build/bin/tilec)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/bundles/sweep-decode}
mkdir -p "$out"
src="$root/examples/gemm_decode_packed.tile"
tilec=${TILEC:-$root/build/bin/tilec}
common="--inout C --check M=1,N=192,K=1024 --bench M=1,N=57344,K=8192"
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name u8 -D T=u8 \
  --grid BK=64,128 --grid STAGES=3,4,5 --grid BN=32,64 --atol 32 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name u1 -D T=u1 \
  --grid BK=256,512 --grid STAGES=3,4 --atol 2 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name conv_u2 -D T=u2 \
  --grid BN=64,128,256 --grid BM=8,16 --atol 2 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name conv_f5e2m2 -D T=f5e2m2 \
  --grid BN=64,128 --atol 2 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$root/examples/gemm_decode.tile" -o "$out" \
  --tilec "$tilec" --name ksplit -D T=u4 -D BM=8 \
  --grid BN=16,32 --grid KW=1,2,4 --grid SPLIT=1,4 --atol 2 \
  --inout C --check M=1,N=192,K=1024 --bench M=1,N=4096,K=4096
