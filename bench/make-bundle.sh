#!/usr/bin/env bash
# Compiles the benchmark kernels into bundles for a GPU run (bench/run.sh).
#
#   bench/make-bundle.sh [--quick] [--only REGEX] [--target T] [--build DIR]
#                        [OUT_DIR]
#
# OUT_DIR (default bench/bundles, ignored by git; carry it to the GPU
# machine) gets one bundle folder per case of bench/cases.py plus
# cases.json. Each bundle holds one kernel at a stated configuration, small
# check shapes with host reference outputs, and the benchmark shapes (no
# references: run.sh checks those against PyTorch on the GPU).
#   --target T   sm_90a (default), sm_80, ..., or host (a bundle tile-run
#                runs on the CPU, for testing this pipeline)
#   --build DIR  the build with bin/tilec (default: build)
#   --tilec EXE  this tilec instead
#   --quick      small shapes and few cases (tests of the pipeline)
#   --only RX    only the cases whose id matches the regular expression
# Fails (exit 1) when a kernel does not compile or the bundles exceed
# 60 MiB (the device tool carries at most 64 MiB of working tree).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
TARGET=sm_90a
BUILD="$ROOT/build"
OUT=""
TILEC=""
QUICK=()
ONLY=()
usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=(--quick) ;;
    --only) [ $# -ge 2 ] || { echo "make-bundle.sh: --only needs a value" >&2; exit 2; }
            ONLY=(--only "$2"); shift ;;
    --target) [ $# -ge 2 ] || { echo "make-bundle.sh: --target needs a value" >&2; exit 2; }
              TARGET=$2; shift ;;
    --build) [ $# -ge 2 ] || { echo "make-bundle.sh: --build needs a value" >&2; exit 2; }
             BUILD=$2; shift ;;
    --tilec) [ $# -ge 2 ] || { echo "make-bundle.sh: --tilec needs a value" >&2; exit 2; }
             TILEC=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "make-bundle.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$OUT" ] || { echo "make-bundle.sh: more than one OUT_DIR" >&2; exit 2; }
       OUT=$1 ;;
  esac
  shift
done
OUT=${OUT:-$HERE/bundles}
TILEC=${TILEC:-$BUILD/bin/tilec}
EX="$ROOT/examples"
[ -x "$TILEC" ] || { echo "make-bundle.sh: no tilec at $TILEC (build it, or pass --build)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "make-bundle.sh: python3 is needed" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"
status=0
count=0
while IFS=$'\t' read -r id spec; do
  # spec: {"source", "defines", "check", "args", "inout", "atol", "flags"} (cases.py
  # list).
  mapfile -t opts < <(python3 - "$spec" <<'EOF'
import json, sys
s = json.loads(sys.argv[1])
for d in s["defines"]:
    print("-D" + d)
for c in s["check"]:
    print("--size=" + c)
for a in s["args"]:
    print("--arg=" + a)
for n in s.get("inout", []):
    print("--inout=" + n)
if s.get("atol") is not None:
    print("--atol=%g" % s["atol"])
for f in s.get("flags", []):
    print(f)
print(s["source"])
EOF
)
  src=${opts[-1]}
  unset 'opts[-1]'
  if "$TILEC" bundle "$EX/$src" --target="$TARGET" -o "$OUT/$id" "${opts[@]}" \
      > "$OUT/$id.log" 2>&1 &&
     python3 "$HERE/cases.py" add-tests "$OUT/$id" "$id" "${QUICK[@]}"; then
    rm -f "$OUT/$id.log"
    echo "bundled $id"
    count=$((count + 1))
  else
    echo "FAIL: cannot bundle $id for $TARGET:"
    sed 's/^/  /' "$OUT/$id.log"
    status=1
  fi
done < <(python3 "$HERE/cases.py" list "${QUICK[@]}" "${ONLY[@]}")
[ "$count" -gt 0 ] || { echo "make-bundle.sh: no case selected" >&2; exit 1; }
python3 "$HERE/cases.py" describe "$OUT" "${QUICK[@]}" "${ONLY[@]}"
printf '{"target": "%s", "made": "%s", "commit": "%s"}\n' "$TARGET" \
  "$(date -u +%Y-%m-%dT%H:%MZ)" \
  "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  > "$OUT/origin.json"
bytes=$(du -sb "$OUT" | cut -f1)
echo "wrote $count bundles to $OUT ($((bytes / 1024)) KiB)"
if [ "$bytes" -gt $((60 * 1024 * 1024)) ]; then
  echo "FAIL: the bundles take $bytes bytes, over the 60 MiB that can travel"
  status=1
fi
exit $status
