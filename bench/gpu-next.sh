#!/usr/bin/env bash
# The next GPU session's measurements in one call (docs/Performance.md,
# "Next on the GPU"), prepared without a GPU. Here:
#   bench/gpu-next.sh --prepare [DIR]  bundles into DIR (default
#                                    bench/bundles): the bench cases of the
#                                    TMA comparison, gemm_w8a8 (s8 wgmma),
#                                    gemm_wq at prefill (both tiles),
#                                    the packed decode GEMM at BM = 8 with
#                                    and without a producer warpgroup,
#                                    attention (4 warps, and 8 on wgmma,
#                                    also with TMA and warp-specialized),
#                                    sweep-tma, sweep-decode, the GPU
#                                    examples (scripts/gpu-examples.sh) and
#                                    GoogleTest for the runtime's GPU unit
#                                    tests (about 11 MiB; $TILEC: the tilec)
# then on the GPU machine, with carry=["bench/bundles"] and a 600 s limit:
#   bash bench/gpu-next.sh --run     writes $OUT/gpu-next.tar.gz
# (the runtime's GPU unit tests and the GPU examples checked by tile-run,
# run.sh's results with cuBLAS / scaled_mm / _int_mm / SDPA in the same
# call, times.csv of both sweeps, the logs). Each step has a budget, so the call ends inside
# the limit; what a budget cut is said in the logs. A second, shorter call:
#   bash bench/gpu-next.sh --profile writes $OUT/gpu-next-profile.tar.gz
# (Nsight Compute on the 8-warp gemm_f16 tile: cp.async, TMA, warp-
# specialized, persistent; on attention at W = 8: cp.async, TMA, warp-
# specialized; on gemm_wq's 8-warp prefill tile; on the packed decode GEMM
# at u1 and u2, and its swapped prefill at 128x128; about 9 minutes). A
# third call, the decode GEMM timed the way a model runs it:
#   bash bench/gpu-next.sh --rotate  writes $OUT/gpu-next-rotate.tar.gz
# (run.sh --rotate 256 over the BM = 8 decode cases at u2, u4 and u8 with
# and without a producer warpgroup and a dependent launch, and vector_add:
# windows of launches back to back over copies of the tensors, cuBLAS as
# CUDA graphs over copies of its weight, and a copy of each test's bytes
# timed alike; about 7 minutes).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
B=${2:-$HERE/bundles}
# copy_gtest DEST: GoogleTest's headers, static libraries and CMake package
# (the GPU machine has none), under DEST as under their prefix here.
copy_gtest() {
  local cfg dir prefix
  cfg=$(find /usr/lib /usr/local/lib /usr/lib64 -name GTestConfig.cmake 2> /dev/null | head -n 1)
  if [ -z "$cfg" ]; then
    echo "NOTE: no GoogleTest here: no GPU unit tests there"
    return 0
  fi
  dir=$(dirname "$cfg")
  prefix=$dir
  while [ "$prefix" != / ] && [ ! -d "$prefix/include/gtest" ]; do
    prefix=$(dirname "$prefix")
  done
  # The package in LIBDIR/cmake/GTest, the libraries in LIBDIR.
  local pkg=${dir#"$prefix"/}
  local libdir
  libdir=$(dirname "$(dirname "$pkg")")
  mkdir -p "$1"
  (cd "$prefix" && cp -r --parents include/gtest include/gmock "$pkg" \
    "$libdir"/libgtest*.a "$libdir"/libgmock*.a "$1")
}
case "${1:-}" in
  --prepare)
    set -e
    "$HERE/make-bundle.sh" ${TILEC:+--tilec "$TILEC"} --only \
      'vector_add|prefill_tma|prefill_ws|gemm_f16_prefill_default|gemm_bf16_prefill_default|gemm_f16_prefill_128x128x64|gemm_f8_prefill_128x256x128|gemm_f8_prefill_default|gemm_w8a8_prefill|gemm_wq_prefill|gemm_decode_packed_prefill|gemm_decode_packed_bm8|attention_fwd' \
      --target sm_90a "$B/cases"
    "$HERE/sweep-tma.sh" "$B/sweep-tma"
    "$HERE/sweep-decode.sh" "$B/sweep-decode"
    tilec_bin=${TILEC:-$ROOT/build/bin/tilec}
    "$ROOT/scripts/gpu-examples.sh" --bundle-only \
      "$(cd "$(dirname "$tilec_bin")/.." && pwd)" "$B/examples" sm_90a
    copy_gtest "$B/gtest"
    du -sh "$B"
    ;;
  --run)
    OUT=${OUT:?run on the GPU machine, where \$OUT is set}
    R="$OUT/gpu-next"
    mkdir -p "$R"
    nvidia-smi > "$R/nvidia-smi.txt" 2>&1
    # The runtime's GPU unit tests (built runtime-only with the carried
    # GoogleTest) and the GPU examples, checked by that build's tile-run,
    # which the cases and sweeps below use too.
    rt=/tmp/gpu-next-runtime
    gcfg=$(find "$B/gtest" -name GTestConfig.cmake 2> /dev/null | head -n 1)
    . "$HERE/build-tile-run.sh"
    if TILE_RUN=$(build_tile_run "$ROOT" "$rt" "$R/runtime-build.log" \
                    ${gcfg:+"$(dirname "$gcfg")"}); then
      if [ -n "$gcfg" ]; then
        timeout 120 "$rt/unittests/Runtime/TileRuntimeGpuTests" \
          > "$R/gpu-unittests.log" 2>&1
        echo "== GPU unit tests: exit $?"
        tail -n 3 "$R/gpu-unittests.log"
      fi
      pass=0 fail=0
      for d in "$B"/examples/*/; do
        if timeout 60 "$TILE_RUN" "$d" --device cuda \
            >> "$R/gpu-examples.log" 2>&1; then
          pass=$((pass + 1))
        else
          fail=$((fail + 1))
          echo "FAIL: example $d (gpu-examples.log)"
        fi
      done
      echo "== GPU examples: $pass passed, $fail failed"
    else
      echo "FAIL: the runtime-only build (runtime-build.log)"
      TILE_RUN=
    fi
    use_tr=()
    [ -n "$TILE_RUN" ] && use_tr=(--tile-run "$TILE_RUN")
    # The cases first (28, with their PyTorch baselines), the decode sweep
    # (30 bundles, about 5 s each), then what is left for the TMA sweep,
    # which session 26 measured already.
    "$HERE/run.sh" "${use_tr[@]}" --bundles "$B/cases" --out "$R/cases" --budget 300 \
      > "$R/run.log" 2>&1
    "$HERE/time-bundles.sh" "${use_tr[@]}" --budget 160 --out "$R/sweep-decode" \
      "$B"/sweep-decode/* > "$R/sweep-decode.log" 2>&1
    "$HERE/time-bundles.sh" "${use_tr[@]}" --budget 60 --out "$R/sweep-tma" \
      "$B"/sweep-tma/* > "$R/sweep-tma.log" 2>&1
    for log in run sweep-tma sweep-decode; do
      echo "== $log"
      tail -n 20 "$R/$log.log"
    done
    tar -czf "$OUT/gpu-next.tar.gz" -C "$OUT" gpu-next
    rm -rf "$R"
    ;;
  --profile)
    # A second call (after --run): Nsight Compute's stall reasons, tensor
    # pipe and DRAM use of one launch of the 8-warp 128x256x64 gemm_f16 at
    # 4096^3 with cp.async, TMA, a producer warpgroup and persistent +
    # producer (sweep-tma bundles), then of attention at W = 8, N = 4096
    # with cp.async, TMA and a producer warpgroup (the cases' bundles):
    # where the warp-specialized kernels' time goes if they do not win;
    # then gemm_wq at prefill and the decode GEMM at 1 and 2 bits.
    # Writes $OUT/gpu-next-profile.tar.gz.
    OUT=${OUT:?run on the GPU machine, where \$OUT is set}
    R="$OUT/gpu-next-profile"
    mkdir -p "$R"
    . "$HERE/build-tile-run.sh"
    TILE_RUN=$(build_tile_run "$(dirname "$HERE")" "$R/build" "$R/build.log" 2>&1) ||
      { echo "$TILE_RUN"; exit 1; }
    metrics='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
    metrics+=',sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active'
    metrics+=',dram__throughput.avg.pct_of_peak_sustained_elapsed'
    metrics+=',smsp__issue_active.avg.pct_of_peak_sustained_active'
    START=$(date +%s)
    # profile NAME BUNDLE TEST BUDGET: one launch of test TEST of BUNDLE
    # under ncu, unless BUDGET seconds of the call are spent; its summary.
    profile() {
      [ -d "$2" ] || { echo "NOTE: no $2"; return; }
      [ $(( $(date +%s) - START )) -lt "$4" ] || { echo "NOTE: budget spent: $1"; return; }
      timeout 120 ncu --clock-control none --metrics "$metrics" --launch-count 1 \
        "$TILE_RUN" "$2" --device cuda --test "$3" --warmup 0 --repeat 1 \
        > "$R/ncu_$1.txt" 2>&1 || echo "NOTE: ncu $1: exit $?"
      grep -E "stalled_(wait|barrier|long_scoreboard|dispatch|math|sleeping|gmma)|pipe_tensor|dram__|issue_active" \
        "$R/ncu_$1.txt" | sed "s/^/$1 /" | head -20
    }
    # Test 1: the first bench shape (4096^3; test 0 is the check).
    for copy in cpasync tma ws pws; do
      profile "f16w8_$copy" "$B/sweep-tma/f16w8_${copy}_stages3" 1 240
    done
    # Test 2: attention's second bench shape (N = 4096).
    for copy in "" _tma _ws; do
      profile "attention_w8$copy" "$B/cases/attention_fwd_w8$copy" 2 330
    done
    # gemm_wq's 8-warp prefill tile at 4096^3 (test 2): about 1700 cycles
    # per k block on the H100 where its tensor time is 1024.
    profile wq_prefill_w8 "$B/cases/gemm_wq_prefill_u4_256x128x64_w8" 2 400
    # The packed decode GEMM at u1 and u2 (N = 57344, K = 8192, test 1):
    # 82-90 us whatever their instructions per byte; BM = 16 (the default)
    # and 8 (half the tensor instructions).
    profile decode_u1 "$B/sweep-decode/lowbit_tu1_split4_bn64_bm16" 1 440
    profile decode_u1_bm8 "$B/sweep-decode/lowbit_tu1_split4_bn64_bm8" 1 470
    profile decode_u2_bm8 "$B/sweep-decode/lowbit_tu2_split4_bn64_bm8" 1 500
    # The swapped prefill over packed weights (wgmma with the weight in
    # registers) at 4096^3, two CTAs per SM: whether one CTA's dequant runs
    # under the other's tensor work.
    profile packed_prefill_swap \
      "$B/cases/gemm_decode_packed_prefill_swap_u4_128x128x64" 2 530
    rm -rf "$R/build"
    tar -czf "$OUT/gpu-next-profile.tar.gz" -C "$OUT" gpu-next-profile
    rm -rf "$R"
    ;;
  --rotate)
    OUT=${OUT:?run on the GPU machine, where \$OUT is set}
    R="$OUT/gpu-next-rotate"
    mkdir -p "$R"
    "$HERE/run.sh" --bundles "$B/cases" --out "$R" --rotate 256 --budget 420 \
      --only 'gemm_decode_packed_bm8_(ws_)?(pdl_)?u[248]$|vector_add' \
      > "$R/run.log" 2>&1
    echo "== run.sh --rotate: exit $?"
    tail -n 40 "$R/run.log"
    tar -czf "$OUT/gpu-next-rotate.tar.gz" -C "$OUT" gpu-next-rotate
    rm -rf "$R"
    ;;
  *)
    echo "usage: bench/gpu-next.sh --prepare | --run | --profile | --rotate" >&2
    exit 2
    ;;
esac
