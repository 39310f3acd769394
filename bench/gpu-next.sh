#!/usr/bin/env bash
# The next GPU session's measurements in one call (docs/Performance.md,
# "Next on the GPU"), prepared without a GPU. Here:
#   bench/gpu-next.sh --prepare [DIR]  bundles into DIR (default
#                                    bench/bundles): the bench cases of the
#                                    TMA comparison, gemm_w8a8 (s8 wgmma),
#                                    attention (4 warps, and 8 on wgmma),
#                                    sweep-tma, sweep-decode
#                                    (about 3 MiB; $TILEC: the tilec)
# then on the GPU machine, with carry=["bench/bundles"] and a 600 s limit:
#   bash bench/gpu-next.sh --run     writes $OUT/gpu-next.tar.gz
# (run.sh's results with cuBLAS / scaled_mm / _int_mm / SDPA in the same
# call, times.csv of both sweeps, the logs). Each step has a budget, so the call ends inside
# the limit; what a budget cut is said in the logs.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
B=${2:-$HERE/bundles}
case "${1:-}" in
  --prepare)
    set -e
    "$HERE/make-bundle.sh" ${TILEC:+--tilec "$TILEC"} --only \
      'prefill_tma|prefill_ws|gemm_f16_prefill_128x128x64|gemm_f8_prefill_128x256x128|gemm_w8a8_prefill|attention_fwd' \
      --target sm_90a "$B/cases"
    "$HERE/sweep-tma.sh" "$B/sweep-tma"
    "$HERE/sweep-decode.sh" "$B/sweep-decode"
    du -sh "$B"
    ;;
  --run)
    OUT=${OUT:?run on the GPU machine, where \$OUT is set}
    R="$OUT/gpu-next"
    mkdir -p "$R"
    nvidia-smi > "$R/nvidia-smi.txt" 2>&1
    "$HERE/run.sh" --bundles "$B/cases" --out "$R/cases" --budget 280 \
      > "$R/run.log" 2>&1
    "$HERE/time-bundles.sh" --budget 135 --out "$R/sweep-tma" \
      "$B"/sweep-tma/* > "$R/sweep-tma.log" 2>&1
    "$HERE/time-bundles.sh" --budget 120 --out "$R/sweep-decode" \
      "$B"/sweep-decode/* > "$R/sweep-decode.log" 2>&1
    for log in run sweep-tma sweep-decode; do
      echo "== $log"
      tail -n 20 "$R/$log.log"
    done
    tar -czf "$OUT/gpu-next.tar.gz" -C "$OUT" gpu-next
    rm -rf "$R"
    ;;
  *)
    echo "usage: bench/gpu-next.sh --prepare | --run" >&2
    exit 2
    ;;
esac
