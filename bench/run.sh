#!/usr/bin/env bash
# Runs the benchmark bundles (bench/make-bundle.sh) on a GPU machine in one
# go: builds the runtime-only runner, checks every benchmark output against
# PyTorch, times our kernels and the baselines the same way, and writes
# results.md / results.csv (plus the raw CSVs and logs) to OUT_DIR.
#
#   bench/run.sh [options]
#     --bundles DIR    the bundles (default bench/bundles)
#     --out DIR        where the results go (default $OUT, else bench/results)
#     --device D       cuda (default) or host (the CPU: tests this script
#                      without a GPU; no baselines, no PyTorch checks)
#     --tile-run EXE   use this tile-run instead of building one
#     --build DIR      where to build tile-run (default build-bench)
#     --warmup N       warm-up launches (default 10)
#     --repeat N       timed launches (default 50)
#     --flush-l2 MIB   scratch overwritten before each launch (default 256)
#     --rotate MIB     instead: time windows of launches back to back over
#                      copies of each test's tensors filling MIB (the way a
#                      model's layers follow each other; no flush), ours and
#                      the baselines (as CUDA graphs) alike, plus a copy of
#                      the test's bytes for the memory-bound families
#     --only REGEX     only the cases whose id matches
#     --budget SECS    stop starting new work after SECS seconds, then still
#                      report: checks until 35 % of it, PyTorch checks and
#                      baselines until 70 %, timing until 100 %; what is
#                      left is reported as skipped (0: no limit, the default)
#     --no-baselines   skip PyTorch checks and baselines (our times only)
#     --no-triton      skip the Triton baseline
#     --dry-run        print the commands instead of running them
# Exit status: 0 all checked and timed; 1 a check or a tool failed; 2 bad
# arguments; 77 skipped (no GPU, or the baselines' PyTorch/Triton missing),
# with the reason on stdout.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUNDLES="$HERE/bundles"
RESULTS="${OUT:-$HERE/results}"
DEVICE=cuda
TILE_RUN=""
BUILD="$ROOT/build-bench"
WARMUP=10
REPEAT=50
FLUSH=256
ROTATE=0
ONLY=""
BASELINES=1
TRITON=1
DRY=0
BUDGET=0

usage() { sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 2; }
count() { # NAME VALUE: a whole number
  [[ "$2" =~ ^[0-9]+$ ]] || die "$1 wants a whole number, not '$2'"
}
while [ $# -gt 0 ]; do
  opt=$1
  case "$opt" in
    --bundles|--out|--device|--tile-run|--build|--warmup|--repeat|--flush-l2|--rotate|--only|--budget)
      [ $# -ge 2 ] || die "$opt needs a value"
      val=$2
      shift ;;
  esac
  case "$opt" in
    --bundles) BUNDLES=$val ;;
    --out) RESULTS=$val ;;
    --device) DEVICE=$val ;;
    --tile-run) TILE_RUN=$val ;;
    --build) BUILD=$val ;;
    --warmup) count "$opt" "$val"; WARMUP=$val ;;
    --repeat) count "$opt" "$val"; REPEAT=$val ;;
    --flush-l2) count "$opt" "$val"; FLUSH=$val ;;
    --rotate) count "$opt" "$val"; ROTATE=$val ;;
    --only) ONLY=$val ;;
    --budget) count "$opt" "$val"; BUDGET=$val ;;
    --no-baselines) BASELINES=0 ;;
    --no-triton) TRITON=0 ;;
    --dry-run) DRY=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$opt'" ;;
  esac
  shift
done
case "$DEVICE" in
  cuda|cuda:[0-9]*) ;;
  host) BASELINES=0 ;;
  *) die "--device is cuda[:N] or host, not '$DEVICE'" ;;
esac
[ "$REPEAT" -gt 0 ] || die "--repeat must be at least 1"
[ -f "$BUNDLES/cases.json" ] ||
  die "no $BUNDLES/cases.json: make the bundles with bench/make-bundle.sh (and carry them)"
command -v python3 > /dev/null || die "python3 is needed"

exec 3>&1 # the terminal, for --dry-run
run() { # prints (to the log; with --dry-run also to the terminal), then
        # runs unless --dry-run
  echo "+ $*"
  if [ "$DRY" -eq 1 ]; then
    echo "+ $*" >&3
  else
    "$@"
  fi
}

# --- What is there: fail loudly, skip (77) with the reason -----------------
if [ "${DEVICE%%:*}" = cuda ] && [ "$DRY" -eq 0 ]; then
  if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
    echo "SKIPPED: no NVIDIA GPU on this machine (nvidia-smi finds none)"
    exit 77
  fi
  if [ "$BASELINES" -eq 1 ]; then
    if ! python3 -c 'import numpy, torch; assert torch.cuda.is_available()' 2> /dev/null; then
      echo "SKIPPED: the baselines need numpy and PyTorch with CUDA (or pass --no-baselines)"
      exit 77
    fi
    if [ "$TRITON" -eq 1 ] && ! python3 -c 'import triton' 2> /dev/null; then
      echo "SKIPPED: Triton is missing (or pass --no-triton)"
      exit 77
    fi
  fi
fi

START=$(date +%s)
# over PERCENT: true when the run has used PERCENT % of its --budget.
over() {
  [ "$BUDGET" -gt 0 ] && [ $(( ($(date +%s) - START) * 100 )) -ge $((BUDGET * $1)) ]
}

mkdir -p "$RESULTS" || die "cannot create $RESULTS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tile-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOG="$RESULTS/run.log"
: > "$LOG"
status=0

# --- The runner -------------------------------------------------------------
if [ -z "$TILE_RUN" ]; then
  echo "building tile-run (runtime only) in $BUILD"
  if [ "$DRY" -eq 0 ]; then
    . "$HERE/build-tile-run.sh"
    TILE_RUN=$(build_tile_run "$ROOT" "$BUILD" "$LOG" 2>&1) ||
      { echo "$TILE_RUN"; exit 1; }
  else
    TILE_RUN="$BUILD/bin/tile-run"
  fi
fi
[ "$DRY" -eq 1 ] || [ -x "$TILE_RUN" ] || { echo "FAIL: no tile-run at $TILE_RUN"; exit 1; }

# The cases (bundle id, kernel, benchmark test indices) in cases.json.
mapfile -t CASES < <(python3 - "$BUNDLES/cases.json" "$ONLY" <<'EOF'
import json, re, sys
tests = json.load(open(sys.argv[1]))["tests"]
only = re.compile(sys.argv[2]) if sys.argv[2] else None
seen = {}
for t in tests:
    if only and not only.search(t["case"]):
        continue
    seen.setdefault(t["case"], []).append(str(t["test"]))
for case, idx in seen.items():
    print(case + " " + ",".join(idx))
EOF
)
[ "${#CASES[@]}" -gt 0 ] || die "no case selected (--only '$ONLY')"
# The timing method: an L2 flush before each launch, or rotating windows.
if [ "$ROTATE" -gt 0 ]; then
  METHOD="windows rotating over $ROTATE MiB of tensor copies"
  TIMING=(--rotate "$ROTATE")
  BENCH_TIMING=(--rotate-mib "$ROTATE")
else
  METHOD="L2 flush $FLUSH MiB"
  TIMING=(--flush-l2 "$FLUSH")
  BENCH_TIMING=(--flush-mib "$FLUSH")
fi
echo "${#CASES[@]} bundles, device $DEVICE, warm-up $WARMUP, $REPEAT timed runs, $METHOD"

# --- 1. Check: small shapes against the bundled host references, benchmark
# shapes saved for the PyTorch check ----------------------------------------
mkdir -p "$WORK/saved" "$WORK/times"
for line in "${CASES[@]}"; do
  case=${line%% *}
  if over 35; then
    echo "NOTE $case: skipped (35 % of the --budget spent before its check)"
    continue
  fi
  mkdir -p "$WORK/saved/$case"
  if ! run "$TILE_RUN" "$BUNDLES/$case" --device "$DEVICE" --save "$WORK/saved/$case" \
      >> "$LOG" 2>&1; then
    echo "FAIL $case: tile-run check failed:"
    grep -E "^(FAIL|SKIP)" "$LOG" | tail -5
    status=1
  fi
done

if [ "$BASELINES" -eq 1 ]; then
  trit=()
  [ "$TRITON" -eq 1 ] || trit=(--no-triton)
  [ -z "$ONLY" ] || trit+=(--only "$ONLY")
  [ "$BUDGET" -eq 0 ] || trit+=(--deadline $((START + BUDGET * 70 / 100)))
  run python3 "$HERE/gpu_bench.py" --cases "$BUNDLES/cases.json" \
    --saved "$WORK/saved" --out "$WORK" --warmup "$WARMUP" --repeat "$REPEAT" \
    "${BENCH_TIMING[@]}" "${trit[@]}" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 77 ]; then
    echo "SKIPPED: baselines unavailable (see above)"
    exit 77
  fi
  [ "$rc" -eq 0 ] || status=1
fi

# --- 2. Time the tests whose outputs were right -----------------------------
for line in "${CASES[@]}"; do
  case=${line%% *}
  tests=${line#* }
  if over 100; then
    echo "NOTE $case: not timed (the --budget is spent)"
    continue
  fi
  if [ -f "$WORK/checks.csv" ]; then
    tests=$(python3 - "$WORK/checks.csv" "$case" <<'EOF'
import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(",".join(r["test"] for r in rows
               if r["case"] == sys.argv[2] and r["status"] == "pass"))
EOF
)
  fi
  if [ -z "$tests" ]; then
    echo "NOTE $case: nothing to time (no test passed its check)"
    continue
  fi
  if ! run "$TILE_RUN" "$BUNDLES/$case" --device "$DEVICE" --test "$tests" \
      --warmup "$WARMUP" --repeat "$REPEAT" "${TIMING[@]}" \
      --timing-csv "$WORK/times/$case.csv" >> "$LOG" 2>&1; then
    echo "FAIL $case: tile-run timing failed (see $LOG)"
    status=1
  fi
done

# --- 3. Report -------------------------------------------------------------
for f in checks.csv baselines.csv device.json; do
  [ -f "$WORK/$f" ] && cp "$WORK/$f" "$RESULTS/"
done
# Our raw timings in one file (the device tool returns at most 8 files).
python3 - "$WORK/times" "$RESULTS/ours.csv" <<'EOF'
import os, sys
rows = []
for name in sorted(os.listdir(sys.argv[1])):
    lines = open(os.path.join(sys.argv[1], name)).read().splitlines()
    if lines and not rows:
        rows.append("case," + lines[0])
    rows += [name[:-4] + "," + l for l in lines[1:]]
open(sys.argv[2], "w").write("\n".join(rows) + "\n" if rows else "")
EOF
if [ "$DRY" -eq 0 ]; then
  [ -f "$BUNDLES/origin.json" ] && cp "$BUNDLES/origin.json" "$RESULTS/"
  python3 "$HERE/report.py" --cases "$BUNDLES/cases.json" --times "$WORK/times" \
    --baselines "$WORK/baselines.csv" --checks "$WORK/checks.csv" \
    --device "$WORK/device.json" --out "$RESULTS" \
    --title "tilec benchmarks ($DEVICE)" || status=1
  [ -f "$RESULTS/results.md" ] && cat "$RESULTS/results.md"
fi
exit $status
