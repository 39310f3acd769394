#!/usr/bin/env bash
# The parts of bench/ that need no GPU: argument handling of run.sh and
# make-bundle.sh, the skip (77) without a GPU, and the whole pipeline on the
# CPU (host bundles of the --quick cases, run by tile-run --device host).
#
#   pipeline-test.sh TILEC TILE_RUN
set -uo pipefail
TILEC=${1:?tilec}
TILE_RUN=${2:?tile-run}
BENCH=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
# expect NAME WANT_RC WANT_TEXT CMD...: runs CMD, checks its status and that
# its output holds WANT_TEXT.
expect() {
  local name=$1 want_rc=$2 want_text=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || [[ "$out" != *"$want_text"* ]]; then
    echo "FAIL $name: exit $rc (want $want_rc), output lacks '$want_text':"
    echo "$out" | sed 's/^/  | /' | tail -30
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

# --- Arguments --------------------------------------------------------------
expect "run.sh --help" 0 "--flush-l2 MIB" "$BENCH/run.sh" --help
expect "run.sh --help (rotate)" 0 "--rotate MIB" "$BENCH/run.sh" --help
expect "run.sh bad count" 2 "--repeat wants a whole number, not 'x'" \
  "$BENCH/run.sh" --repeat x
expect "run.sh missing value" 2 "--warmup needs a value" "$BENCH/run.sh" --warmup
expect "run.sh unknown option" 2 "unknown argument '--frob'" "$BENCH/run.sh" --frob
expect "run.sh bad device" 2 "--device is cuda[:N] or host, not 'tpu'" \
  "$BENCH/run.sh" --device tpu
expect "run.sh no bundles" 2 "no $T/none/cases.json" "$BENCH/run.sh" --bundles "$T/none"
expect "make-bundle.sh unknown option" 2 "unknown option --frob" \
  "$BENCH/make-bundle.sh" --frob
expect "make-bundle.sh no tilec" 1 "no tilec at $T/nope" \
  "$BENCH/make-bundle.sh" --tilec "$T/nope" "$T/b0"

# --- Bundles (host target, small shapes) ------------------------------------
B="$T/bundles"
expect "make-bundle.sh --quick" 0 "wrote 6 bundles to $B" \
  "$BENCH/make-bundle.sh" --quick --target host --tilec "$TILEC" "$B"
expect "make-bundle.sh no case" 1 "no case selected" \
  "$BENCH/make-bundle.sh" --quick --target host --tilec "$TILEC" --only zzz "$T/b1"
ntests=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['tests']))" \
  "$B/cases.json" 2> /dev/null)
if [ "$ntests" != 6 ]; then
  echo "FAIL cases.json: $ntests benchmark tests, want 6"
  fails=$((fails + 1))
fi
# The benchmark shape was appended after the two check shapes.
expect "manifest has the bench test" 0 '"N": 65536' cat "$B/vector_add/manifest.json"
# The split-K decode GEMM reads C: its tests (check and benchmark) say so.
expect "gemm_decode tests are inout" 0 '"inout": [' cat "$B/gemm_decode_u4/manifest.json"

# --- No GPU: skipped with the reason (a failing nvidia-smi stands in) ------
mkdir -p "$T/fakebin"
printf '#!/bin/sh\nexit 9\n' > "$T/fakebin/nvidia-smi"
chmod +x "$T/fakebin/nvidia-smi"
expect "run.sh without a GPU" 77 "SKIPPED: no NVIDIA GPU" \
  env PATH="$T/fakebin:$PATH" "$BENCH/run.sh" --bundles "$B" --out "$T/r0" \
  --tile-run "$TILE_RUN"

# --- The pipeline on the CPU -----------------------------------------------
R="$T/results"
expect "run.sh --device host" 0 "report: 6 tests, 6 timed" \
  "$BENCH/run.sh" --bundles "$B" --out "$R" --device host --tile-run "$TILE_RUN" \
  --repeat 3 --warmup 1 --flush-l2 1
expect "small shapes checked against the host references" 0 \
  "PASS vector_add[N=100003 seed=1] z: max_abs=0" cat "$R/run.log"
expect "results.md row" 0 "| vector_add | N=65536 | unchecked |" cat "$R/results.md"
expect "ours.csv" 0 "vector_add,vector_add,host," cat "$R/ours.csv"
lines=$(wc -l < "$R/ours.csv")
if [ "$lines" -ne 7 ]; then
  echo "FAIL ours.csv: $lines lines, want a header and 6 rows"
  fails=$((fails + 1))
fi

# time-bundles.sh: checks, then times, each bundle with tile-run alone.
expect "time-bundles.sh no bundle" 2 "no bundle given" "$BENCH/time-bundles.sh"
expect "time-bundles.sh not a bundle" 2 "$T is not a bundle" \
  "$BENCH/time-bundles.sh" "$T"
expect "time-bundles.sh bad device" 2 "--device is cuda[:N] or host, not 'tpu'" \
  "$BENCH/time-bundles.sh" --device tpu "$B/vector_add"
expect "time-bundles.sh on the CPU" 0 "vector_add: N=65536 " \
  "$BENCH/time-bundles.sh" --device host --tile-run "$TILE_RUN" --repeat 2 \
  --warmup 0 --flush-l2 1 --out "$T/tb" "$B/vector_add" "$B/softmax_1024"
expect "time-bundles.sh checked first" 0 "PASS vector_add[N=100003 seed=1] z" \
  cat "$T/tb/time-bundles.log"
rows=$(tail -n +2 "$T/tb/times.csv" | cut -d, -f1 | tr '\n' ' ')
if [ "$rows" != "softmax_1024 vector_add " ]; then
  echo "FAIL time-bundles.sh times.csv rows: '$rows'"
  fails=$((fails + 1))
fi

# --rotate: windows of launches over copies of the tensors (the host runs
# them one by one, no hold; the method and the set count still show).
expect "run.sh --rotate" 0 "windows rotating over 1 MiB of tensor copies" \
  "$BENCH/run.sh" --bundles "$B" --out "$T/rr" --device host \
  --tile-run "$TILE_RUN" --only vector_add --repeat 2 --warmup 0 --rotate 1
expect "run.sh --rotate times windows" 0 \
  "over 2 runs (windows over 2 copies of the tensors, per launch)" \
  cat "$T/rr/run.log"
expect "run.sh --rotate records the sets" 0 ",rotate_sets" cat "$T/rr/ours.csv"
expect "time-bundles.sh --rotate" 0 "vector_add: N=65536 " \
  "$BENCH/time-bundles.sh" --device host --tile-run "$TILE_RUN" --repeat 2 \
  --warmup 0 --rotate 1 --out "$T/tbr" "$B/vector_add"
expect "tile-run refuses two methods" 1 "two timing methods" \
  "$TILE_RUN" "$B/vector_add" --device host --repeat 1 --rotate 1 --flush-l2 1

# make-sweep.py: one bundle per grid point, checked shapes with host
# references, device-generated benchmark shapes; then time-bundles.sh.
SW="$T/sweep"
expect "make-sweep.py bad grid" 2 "a grid is NAME=V1,V2,..." \
  python3 "$BENCH/make-sweep.py" "$BENCH/../examples/vector_add.tile" -o "$SW" \
  --grid BLOCK --check N=10
expect "make-sweep.py bad sizes" 2 "sizes are NAME=INT,..." \
  python3 "$BENCH/make-sweep.py" "$BENCH/../examples/vector_add.tile" -o "$SW" \
  --check N=x
expect "make-sweep.py no shape" 2 "give at least one --check or --bench shape" \
  python3 "$BENCH/make-sweep.py" "$BENCH/../examples/vector_add.tile" -o "$SW" \
  --tilec "$TILEC"
expect "make-sweep.py a point that does not compile" 1 "FAIL vec_block0" \
  python3 "$BENCH/make-sweep.py" "$BENCH/../examples/vector_add.tile" -o "$SW" \
  --name vec --grid BLOCK=256,0 --target host --tilec "$TILEC" --check N=1000 \
  --bench N=65536
expect "make-sweep.py grid" 0 "2 bundles in $SW, 0 failed" \
  python3 "$BENCH/make-sweep.py" "$BENCH/../examples/vector_add.tile" -o "$SW" \
  --name vec --grid BLOCK=256,1024 --target host --tilec "$TILEC" --check N=1000 \
  --bench N=65536
expect "make-sweep.py bench test" 0 '"N": 65536' cat "$SW/vec_block1024/manifest.json"
expect "time-bundles.sh over a sweep" 0 "vec_block256: N=65536 " \
  "$BENCH/time-bundles.sh" --device host --tile-run "$TILE_RUN" --repeat 2 \
  --warmup 0 --flush-l2 1 --out "$T/tbs" "$SW/vec_block256" "$SW/vec_block1024"
expect "sweep checked first" 0 "PASS vector_add[N=1000 seed=1]" \
  cat "$T/tbs/time-bundles.log"

# --budget: a runner that takes a second per call spends the 1-second budget
# on the first check; the other cases are skipped, nothing is timed, and the
# report is still written.
printf '#!/bin/sh\nsleep 1\nexec "%s" "$@"\n' "$TILE_RUN" > "$T/fakebin/slow-tile-run"
chmod +x "$T/fakebin/slow-tile-run"
expect "run.sh --budget skips the rest" 0 "skipped (35 % of the --budget spent" \
  "$BENCH/run.sh" --bundles "$B" --out "$T/rb" --device host \
  --tile-run "$T/fakebin/slow-tile-run" --repeat 1 --warmup 0 --flush-l2 1 --budget 1
expect "run.sh --budget still reports" 0 "| vector_add | N=65536 | unchecked | –" \
  cat "$T/rb/results.md"

# A wrong reference output fails loudly and is not timed.
python3 - "$B/vector_add" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
# Swap the references of the two check shapes: sizes then disagree.
t = m["kernels"][0]["tests"]
t[0]["expected"], t[1]["expected"] = t[1]["expected"], t[0]["expected"]
json.dump(m, open(d + "/manifest.json", "w"))
PY
expect "run.sh with a wrong reference" 1 "FAIL vector_add: tile-run check failed" \
  "$BENCH/run.sh" --bundles "$B" --out "$T/r2" --device host --tile-run "$TILE_RUN" \
  --repeat 2 --only vector_add
expect "time-bundles.sh with a wrong reference" 1 "FAIL vector_add: check failed" \
  "$BENCH/time-bundles.sh" --device host --tile-run "$TILE_RUN" --repeat 2 \
  --out "$T/tb2" "$B/vector_add"
if [ -f "$T/tb2/times.csv" ]; then
  echo "FAIL time-bundles.sh timed a bundle whose check failed"
  fails=$((fails + 1))
fi

# --- The GPU sweeps' bundles (sm_90a; compiled here, timed on a GPU) -------
# gpu-next.sh --prepare compiles them all once (each bundle is a ptxas run,
# so sweep-tma.sh and sweep-decode.sh are checked through its folders rather
# than run a second time): its cases: 55 (the four gemm_wq prefill cases,
# the nine over packed weights, the packed decode cases at BM = 8 -- with a
# producer warpgroup, with a dependent launch, the u1 SA pair -- and
# vector_add, the --rotate call's reference, among them); sweep-tma.sh's 17
# bundles, the 12 TMA ones (5 _tma, 5 _ws, 2 _pws) with tensor maps in their
# manifests; sweep-decode.sh's 30 (u1 and u2 over SPLIT x BN x BM, the other
# 8-bit types over BK).
expect "gpu-next.sh --prepare" 0 "6 bundles in $T/gn/sweep-decode, 0 failed" \
  env TILEC="$TILEC" "$BENCH/gpu-next.sh" --prepare "$T/gn"
expect "gpu-next.sh bundles" 0 "55 17 30" bash -c \
  "echo \$(ls -d '$T'/gn/cases/*/ | wc -l) \$(ls '$T/gn/sweep-tma' | wc -l) \$(ls '$T/gn/sweep-decode' | wc -l)"
expect "sweep-tma.sh bundles" 0 "17 12" bash -c \
  "echo \$(ls '$T/gn/sweep-tma' | wc -l) \$(grep -l tensor_maps '$T'/gn/sweep-tma/*_tma_*/manifest.json '$T'/gn/sweep-tma/*ws_*/manifest.json | wc -l)"
expect "gpu-next.sh --profile's decode bundles" 0 "3" bash -c \
  "ls -d '$T/gn/sweep-decode/lowbit_tu1_split4_bn64_bm16' '$T/gn/sweep-decode/lowbit_tu1_split4_bn64_bm8' '$T/gn/sweep-decode/lowbit_tu2_split4_bn64_bm8' | wc -l"
# sweep-mma.sh (not part of gpu-next.sh): 23 bundles for sm_90 (mma.sync),
# 15 of gemm_f16 and 8 of attention_fwd (4 of them at two or three programs
# per SM: `occupancy`).
expect "sweep-mma.sh" 0 "1 bundles in $T/swm, 0 failed" \
  env TILEC="$TILEC" "$BENCH/sweep-mma.sh" "$T/swm"
expect "sweep-mma.sh bundles" 0 "23 15 8 23 4" bash -c \
  "echo \$(ls '$T/swm' | wc -l) \$(ls -d '$T'/swm/f16mma_* | wc -l) \$(ls -d '$T'/swm/attmma_* | wc -l) \$(grep -l '\"target\": *\"sm_90\"' '$T'/swm/*/manifest.json | wc -l) \$(ls -d '$T'/swm/*_occ* | wc -l)"
# The GPU examples (scripts/gpu-examples.sh's 40 bundles) and GoogleTest's
# CMake package for the runtime's GPU unit tests there.
expect "gpu-next.sh examples and GoogleTest" 0 "40 1" bash -c \
  "echo \$(ls -d '$T'/gn/examples/*/ | wc -l) \$(find '$T/gn/gtest' -name GTestConfig.cmake | wc -l)"
expect "gpu-next.sh --run without OUT" 1 "where \$OUT is set" \
  env -u OUT "$BENCH/gpu-next.sh" --run "$T/gn"
expect "gpu-next.sh --rotate without OUT" 1 "where \$OUT is set" \
  env -u OUT "$BENCH/gpu-next.sh" --rotate "$T/gn"
expect "gpu-next.sh usage" 2 "usage: bench/gpu-next.sh" "$BENCH/gpu-next.sh"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all bench pipeline checks passed"
