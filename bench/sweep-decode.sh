#!/bin/sh
# Bundles the decode sweep of docs/Performance.md ("Next on the GPU"): the
# packed decode GEMM (examples/gemm_decode_packed.tile) at M = 1,
# N = 57344, K = 8192. The 2026-11-27 sweep (H100) answered its earlier
# grids (u8 wants BK = 128, now the 8-bit default; u1's chunk and u2 /
# f5e2m2's wider column blocks change nothing; K split across warps gains
# 5 %). Now: why u1 and u2 take 82-90 us whatever their instructions per
# byte: u1 and u2 over SPLIT = 1, 2, 4 x BN = 64, 128 x BM = 8, 16 (24
# bundles, named lowbit_*: at SPLIT = 4 a program has only 4 (u1) or 8 (u2)
# k blocks, so its prologue, pipeline fill and epilogue may be what the time
# is; BM = 8 halves the tensor instructions, u2 82 against 92 us), and
# the other 8-bit types at the new default chunk against the former, i8,
# f8e4m3, f8e5m2 over BK = 64, 128 (6 bundles, named k8_*: only u8 was
# timed). 8-bit codes need a wider check tolerance (--atol 32, as
# split_atol gives the bench). Then, on the GPU machine (carry
# bench/bundles):
#   bench/time-bundles.sh --budget 120 --out $OUT bench/bundles/sweep-decode/*
# and Nsight Compute's stall reasons (bench/gpu-next.sh --profile).
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
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name lowbit \
  --grid T=u1,u2 --grid SPLIT=1,2,4 --grid BN=64,128 --grid BM=8,16 --atol 2 $common
# shellcheck disable=SC2086
python3 "$here/make-sweep.py" "$src" -o "$out" --tilec "$tilec" --name k8 \
  --grid T=i8,f8e4m3,f8e5m2 --grid BK=64,128 --atol 32 $common
