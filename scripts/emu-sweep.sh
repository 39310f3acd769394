#!/usr/bin/env bash
# Checks kernels on the CPU emulator of a GPU target (device cuda-emu for
# sm_*, hip-emu for gfx*)
# over their tune spaces and type parameters: every configuration the
# autotuner may pick, at odd sizes, against the host reference
# (`tilec check`: same seeded inputs, outputs poisoned, compared with
# tolerances per type). No GPU needed.
#
#   scripts/emu-sweep.sh BUILD_DIR [TARGET] [--quick]
#
# --quick checks a fixed sample of configurations (ctest emu.sweep.*);
# without it, every configuration (minutes on 2 cores). A configuration
# whose shared memory exceeds the target's (a located compile error, as the
# autotuner sees it) is reported as skipped. Exit 1 when any other
# configuration fails to compile or to match.
set -euo pipefail
BUILD=${1:?build dir}
TARGET=${2:-sm_90a}
QUICK=0
[ "${3:-}" = "--quick" ] && QUICK=1
HERE=$(cd "$(dirname "$0")/.." && pwd)
EX="$HERE/examples"
TILEC="$BUILD/bin/tilec"
case "$TARGET" in
gfx*) DEVICE=hip-emu ;;
*) DEVICE=cuda-emu ;;
esac

total=0
failed=0
skipped=0
check() { # file options...
  local file=$1
  shift
  total=$((total + 1))
  local log
  if log=$("$TILEC" check "$file" --target="$TARGET" --device "$DEVICE" "$@" 2>&1); then
    echo "ok   $(basename "$file") $*"
  elif grep -q "bytes of shared memory, but target" <<< "$log"; then
    skipped=$((skipped + 1))
    echo "skip $(basename "$file") $* (does not fit the target's shared memory)"
  else
    failed=$((failed + 1))
    echo "FAIL $(basename "$file") $*"
    echo "$log" | sed 's/^/     /' | head -20
  fi
}

# Picks every value list, or (--quick) the given sample.
if [ "$QUICK" -eq 1 ]; then
  for cfg in "64 64 32 2" "128 256 64 3" "64 128 64 4" "128 128 32 3"; do
    read -r bm bn bk st <<< "$cfg"
    check "$EX/gemm_f16.tile" -D BM=$bm -D BN=$bn -D BK=$bk -D STAGES=$st --size M=130,K=200,N=264
  done
  for cfg in "64 32 1 false" "128 128 2 true" "64 64 3 true" "128 64 2 true"; do
    read -r bm bn st causal <<< "$cfg"
    check "$EX/attention_fwd.tile" -D BM=$bm -D BN=$bn -D STAGES=$st -D CAUSAL=$causal --size B=1,H=2,HKV=1,N=161 --arg scale=0.0884
  done
  for cfg in "32 64 128 2 u3 false 64" "64 256 32 4 f6e3m2 true 32" "16 128 64 3 i5 true 128"; do
    read -r bm bn bk st t zp g <<< "$cfg"
    check "$EX/gemm_wq.tile" -D BM=$bm -D BN=$bn -D BK=$bk -D STAGES=$st -D T=$t -D ZP=$zp -D G=$g --size M=33,K=512,N=264
  done
  check "$EX/rmsnorm_quant.tile" -D T=i4 --size M=5,N=4096 --arg eps=1e-5
  check "$EX/softmax.tile" -D ROWS=1 -D COLS=2048 --size M=3,N=1999
else
  for bm in 64 128; do for bn in 64 128 256; do for bk in 32 64; do for st in 2 3 4; do
    check "$EX/gemm_f16.tile" -D BM=$bm -D BN=$bn -D BK=$bk -D STAGES=$st --size M=130,K=200,N=264
  done; done; done; done
  for bm in 64 128; do for bn in 32 64 128; do for st in 1 2 3; do for causal in false true; do
    check "$EX/attention_fwd.tile" -D BM=$bm -D BN=$bn -D STAGES=$st -D CAUSAL=$causal --size B=1,H=2,HKV=1,N=161 --arg scale=0.0884
  done; done; done; done
  for bm in 16 32 64; do for bn in 64 128 256; do for bk in 32 64 128; do for st in 2 3 4; do
    check "$EX/gemm_wq.tile" -D BM=$bm -D BN=$bn -D BK=$bk -D STAGES=$st --size M=33,K=512,N=264
  done; done; done; done
  for t in u1 u2 u3 u4 u5 u6 u7 u8 i2 i3 i4 i5 i6 i7 i8 f4e2m1 f6e3m2 f5e2m2 f8e4m3; do
    for zp in true false; do for g in 32 128; do
      check "$EX/gemm_wq.tile" -D T=$t -D ZP=$zp -D G=$g --size M=3,K=256,N=72
    done; done
  done
  for t in i8 i4 u8 f8e4m3; do
    check "$EX/rmsnorm_quant.tile" -D T=$t --size M=5,N=4096 --arg eps=1e-5
  done
  for rows in 1 2 4 8; do for cols in 512 1024 2048; do
    check "$EX/softmax.tile" -D ROWS=$rows -D COLS=$cols --size M=9,N=$((cols - 13))
  done; done
fi
# The other examples at their defaults (the reference kernels above are
# checked by name, so they are left out here).
for f in "$EX"/*.tile; do
  case $(basename "$f" .tile) in
  dequant_fp4) check "$f" --size M=33,N=512 ;;
  gemm_i8) check "$f" --size M=65,K=128,N=130 ;;
  gemm_w8a8) check "$f" --size M=65,K=128,N=130 ;;
  gemm_f8) check "$f" -D T=f8e5m2 --size M=65,K=128,N=130 --arg sa=0.5 --arg sb=0.25 ;;
  gemm_shared) check "$f" --size M=65,K=96,N=70 ;;
  layernorm) check "$f" --size M=9,N=1000 --arg eps=1e-5 ;;
  swiglu) check "$f" --size M=40,F2=512,F=256 ;;
  esac
done
echo "$((total - failed - skipped)) of $total configurations passed on the $TARGET emulator ($skipped skipped: too much shared memory)"
[ "$failed" -eq 0 ]
