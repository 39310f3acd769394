#!/usr/bin/env bash
# Checks and times bundles directly with tile-run, without PyTorch: for
# configuration sweeps and before/after comparisons of our own kernels on a
# GPU machine, where bench/run.sh (PyTorch checks and baselines of every
# benchmark shape) would take too long. Each bundle's tests that carry
# reference outputs (`tilec bundle --size`) are checked; its other tests are
# timed only when the checks passed.
#
#   bench/time-bundles.sh [options] BUNDLE_DIR...
#     --device D       cuda (default), cuda:N or host
#     --tile-run EXE   use this tile-run instead of building one
#     --build DIR      where to build tile-run (default build-bench)
#     --warmup N       warm-up launches (default 5)
#     --repeat N       timed launches (default 20)
#     --flush-l2 MIB   scratch overwritten before each launch (default 256)
#     --rotate MIB     instead: windows of launches back to back over copies
#                      of each test's tensors filling MIB (tile-run --rotate)
#     --budget SECS    start no bundle after SECS seconds (0: no limit)
#     --out DIR        results (default $OUT, else bench/results-bundles):
#                      times.csv (the bundle, then tile-run's --timing-csv
#                      columns) and time-bundles.log
# Prints one line per bundle (its shapes and median ms) at the end. Exit
# status: 0 every bundle checked and timed; 1 a check or tile-run failed,
# or the budget left bundles out; 2 bad arguments.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DEVICE=cuda
TILE_RUN=""
BUILD="$ROOT/build-bench"
WARMUP=5
REPEAT=20
FLUSH=256
ROTATE=0
BUDGET=0
RESULTS="${OUT:-$HERE/results-bundles}"
BUNDLES=()

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "time-bundles.sh: $*" >&2; exit 2; }
count() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 wants a whole number, not '$2'"; }
while [ $# -gt 0 ]; do
  opt=$1
  case "$opt" in
    --device|--tile-run|--build|--warmup|--repeat|--flush-l2|--rotate|--budget|--out)
      [ $# -ge 2 ] || die "$opt needs a value"
      val=$2
      shift ;;
  esac
  case "$opt" in
    --device) DEVICE=$val ;;
    --tile-run) TILE_RUN=$val ;;
    --build) BUILD=$val ;;
    --warmup) count "$opt" "$val"; WARMUP=$val ;;
    --repeat) count "$opt" "$val"; REPEAT=$val ;;
    --flush-l2) count "$opt" "$val"; FLUSH=$val ;;
    --rotate) count "$opt" "$val"; ROTATE=$val ;;
    --budget) count "$opt" "$val"; BUDGET=$val ;;
    --out) RESULTS=$val ;;
    -h|--help) usage; exit 0 ;;
    -*) usage >&2; die "unknown argument '$opt'" ;;
    *) BUNDLES+=("$opt") ;;
  esac
  shift
done
case "$DEVICE" in
  cuda|cuda:[0-9]*|host) ;;
  *) die "--device is cuda[:N] or host, not '$DEVICE'" ;;
esac
[ "$REPEAT" -gt 0 ] || die "--repeat must be at least 1"
TIMING=(--flush-l2 "$FLUSH")
[ "$ROTATE" -eq 0 ] || TIMING=(--rotate "$ROTATE")
[ "${#BUNDLES[@]}" -gt 0 ] || die "no bundle given"
for b in "${BUNDLES[@]}"; do
  [ -f "$b/manifest.json" ] || die "$b is not a bundle (no manifest.json)"
done
command -v python3 > /dev/null || die "python3 is needed"
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
LOG="$RESULTS/time-bundles.log"
CSV="$RESULTS/times.csv"
: > "$LOG"
rm -f "$CSV"
START=$(date +%s)

if [ -z "$TILE_RUN" ]; then
  . "$HERE/build-tile-run.sh"
  TILE_RUN=$(build_tile_run "$ROOT" "$BUILD" "$LOG" 2>&1) ||
    { echo "$TILE_RUN"; exit 1; }
fi
[ -x "$TILE_RUN" ] || { echo "FAIL: no tile-run at $TILE_RUN"; exit 1; }

# tests BUNDLE: "CHECKS TIMED", each a comma list or '-' (the first kernel's
# tests with and without reference outputs).
tests() {
  python3 - "$1/manifest.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["kernels"][0]["tests"]
chk = [str(i) for i, x in enumerate(t) if x.get("expected")]
rest = [str(i) for i, x in enumerate(t) if not x.get("expected")]
print(",".join(chk) or "-", ",".join(rest) or "-")
EOF
}

status=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/time-bundles.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for b in "${BUNDLES[@]}"; do
  name=$(basename "$b")
  if [ "$BUDGET" -gt 0 ] && [ $(( $(date +%s) - START )) -ge "$BUDGET" ]; then
    echo "NOTE $name: not run (the --budget is spent)"
    status=1
    continue
  fi
  read -r checks timed < <(tests "$b")
  echo "+ $name: check $checks, time $timed" >> "$LOG"
  if [ "$checks" != - ] &&
     ! "$TILE_RUN" "$b" --device "$DEVICE" --test "$checks" >> "$LOG" 2>&1; then
    echo "FAIL $name: check failed:"
    grep -E "^FAIL" "$LOG" | tail -3 | sed 's/^/  /'
    status=1
    continue
  fi
  [ "$timed" != - ] || { echo "NOTE $name: no test to time"; continue; }
  if ! "$TILE_RUN" "$b" --device "$DEVICE" --test "$timed" --warmup "$WARMUP" \
      --repeat "$REPEAT" "${TIMING[@]}" --timing-csv "$WORK/$name.csv" \
      >> "$LOG" 2>&1; then
    echo "FAIL $name: timing failed (see $LOG)"
    status=1
  fi
done

# One CSV, and a line per bundle.
python3 - "$WORK" "$CSV" <<'EOF'
import csv, os, sys
work, out = sys.argv[1], sys.argv[2]
rows, header = [], None
for name in sorted(os.listdir(work)):
    with open(os.path.join(work, name), newline="") as f:
        r = list(csv.reader(f))
    if not r:
        continue
    header = header or ["bundle"] + r[0]
    rows += [[name[:-4]] + x for x in r[1:]]
if header:
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    i, m = header.index("sizes"), header.index("median_ms")
    last = None
    for r in rows:
        if r[0] != last:
            if last is not None:
                print()
            print(r[0] + ":", end="")
            last = r[0]
        print(" %s %.4g ms" % (r[i], float(r[m])), end="")
    print()
EOF
echo "times in $CSV, log in $LOG ($(( $(date +%s) - START )) s)"
exit $status
