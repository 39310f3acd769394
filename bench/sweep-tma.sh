#!/bin/sh
# Bundles the sm_90a TMA-versus-cp.async sweep of docs/Performance.md ("TMA
# copies", session 19): the same GEMM tiles compiled with and without
# `tilec --tma`, so that one timing call compares them - gemm_f16 with the
# 4 warps (W = 4: 128x128x64, 3 and 4 stages), with two warpgroups (W =
# 8: 128x256x64, 3 and 4 stages; WS = false: the flag alone decides the
# copies), and gemm_f8 at its fastest tile (128x256x128, 4
# stages), at 4096^3 and 8192^3, and the same with a producer warpgroup
# (`tilec --warp-specialize`, session 22), and the 8-warp ones also
# persistent (`--persistent --warp-specialize`, 3 stages) (17 bundles;
# names end in _tma, _cpasync, _ws or _pws).
# The check shape has rows of a multiple of 16 bytes, as TMA needs. Then, on
# the GPU machine (carry bench/bundles):
#   bench/time-bundles.sh --budget 150 --out $OUT bench/bundles/sweep-tma/*
# next to bench/run.sh --only 'prefill_tma|gemm_f16_prefill_128x128x64'
# (cuBLAS and scaled_mm in the same call).
#
#   bench/sweep-tma.sh [OUT_DIR]      (default bench/bundles/sweep-tma;
#                                     $TILEC: the tilec, default build/bin/tilec)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/bundles/sweep-tma}
tilec=${TILEC:-$root/build/bin/tilec}
mkdir -p "$out"
sizes="--check M=129,K=256,N=208 --bench M=4096,N=4096,K=4096 \
  --bench M=8192,N=8192,K=8192"
for copy in tma cpasync ws pws; do
  flag=""
  [ "$copy" = tma ] && flag="--tma"
  [ "$copy" = ws ] && flag="--warp-specialize"
  [ "$copy" = pws ] && flag="--warp-specialize --persistent"
  # A persistent producer fills the rings during the epilogue, which then
  # cannot reuse them: 4 stages of these tiles exceed shared memory.
  stages=3,4 f8stages=4
  [ "$copy" = pws ] && stages=3 f8stages=3
  # shellcheck disable=SC2086
  [ "$copy" = pws ] || python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
    --name "f16w4_$copy" -D W=4 -D WS=false -D BN=128 -D BK=64 --grid STAGES=3,4 \
    --inout C --atol 0.05 $sizes $flag
  # shellcheck disable=SC2086
  python3 "$here/make-sweep.py" "$root/examples/gemm_f16.tile" -o "$out" --tilec "$tilec" \
    --name "f16w8_$copy" -D W=8 -D WS=false -D BN=256 -D BK=64 --grid "STAGES=$stages" \
    --inout C --atol 0.05 $sizes $flag
  # shellcheck disable=SC2086
  python3 "$here/make-sweep.py" "$root/examples/gemm_f8.tile" -o "$out" --tilec "$tilec" \
    --name "f8_$copy" -D WS=false -D BN=256 -D BK=128 --grid "STAGES=$f8stages" \
    --arg sa=0.5 --arg sb=0.25 $sizes $flag
done
