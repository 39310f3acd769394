#!/usr/bin/env bash
# Checks a package of scripts/make-portable.sh the way a GPU machine without
# LLVM would use it: unpacked into a fresh folder, with no ld.lld and no
# ptxas to be found (TILE_LD_LLD=none, TILE_PTXAS=none), tilec must compile,
# link with its built-in lld, run and check kernels on the host and on the
# NVIDIA emulator, tune, bundle for tile-run, and emit PTX for the driver's
# JIT for NVIDIA targets.
#
#   scripts/portable-smoke.sh build-portable/dist/tilec-portable-*.tar.xz
set -euo pipefail
cd "$(dirname "$0")/.."
package=$(realpath "$1")
examples=$PWD/examples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$package"
tilec=$(echo "$work"/tilec-portable-*/bin/tilec)
tilerun=$(dirname "$tilec")/tile-run
export TILE_LD_LLD=none TILE_PTXAS=none TILE_CACHE_DIR=$work/cache
step() { echo "portable-smoke: $*"; }
# expect PATTERN COMMAND...: runs COMMAND, fails unless its output has PATTERN.
expect() {
  local pattern=$1
  shift
  "$@" > "$work/out" 2>&1 || { cat "$work/out"; return 1; }
  grep -q -- "$pattern" "$work/out" || {
    cat "$work/out"
    echo "portable-smoke: expected '$pattern' from: $*" >&2
    return 1
  }
}

step "host: check against float64 and the host"
expect "PASS y" "$tilec" check "$examples/softmax.tile" --size M=3,N=100
step "NVIDIA emulator: check"
expect "PASS C" "$tilec" check "$examples/gemm_wq.tile" --size M=5,N=128,K=256 \
  --target sm_90a --device cuda-emu
step "tune on the host, then bundle with the tuned variant"
expect "recorded in" "$tilec" tune "$examples/layernorm.tile" --kernel layernorm \
  -D COLS=256 --size M=3,N=256 --arg eps=1e-5 --repeat 2 --quiet \
  --tune-cache "$work/tune.json"
expect "2 kernels for host" "$tilec" bundle "$examples/layernorm.tile" \
  --kernel layernorm -D COLS=256 --tune-cache "$work/tune.json" \
  --size M=3,N=256 --arg eps=1e-5 -o "$work/bundle"
expect "2 passed, 0 failed" "$tilerun" "$work/bundle"
step "no ptxas: NVIDIA code is PTX for the driver"
"$tilec" bundle "$examples/vector_add.tile" --target sm_90a -o "$work/ptx" > /dev/null
grep -q '"object_kind": "ptx"' "$work/ptx/manifest.json"
grep -q '.target sm_90a' "$work"/ptx/*.ptx
step "AMD code objects linked by the built-in lld"
"$tilec" "$examples/softmax.tile" --target gfx942 --emit=obj -o "$work/s.hsaco"
expect ELF head -c 4 "$work/s.hsaco"
step "passed"
