#!/usr/bin/env bash
# The main job: installs the dependencies (Debian 12), builds tilec, and
# shows the whole pipeline on every example program:
#  1. on the host: runs it on seeded random inputs (`tilec run`) and checks
#     the optimized result against a second, unoptimized host compilation
#     (`tilec check`); programs without known sizes are compiled only;
#  2. checks every example on the host against its float64 reference
#     (unittests/Examples, the ExamplesHost tests);
#  3. compiles every kernel for sm_90a and gfx942 at its defaults, keeps the
#     code objects ($BUILD_DIR/examples-out/TARGET/) and prints a table of
#     registers, spills and shared memory (scripts/example-resources.py);
#  4. where an NVIDIA GPU is present, runs the example bundles on it against
#     the host's outputs (scripts/gpu-examples.sh); otherwise says so.
# Prints what it did; fails if any step fails.
#
#   bash scripts/run-examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target tilec tile-opt tile-run \
  TileExamplesHostTests

TILEC="$BUILD_DIR/bin/tilec"

# Sizes and scalar arguments of the examples that take them.
declare -A ARGS=(
  [vector_add]="--size N=100003"
  [softmax]="--size M=33,N=1000"
  [rmsnorm_quant]="--size M=17,N=4096 --arg eps=1e-5"
  [gemm_f16]="--size M=129,K=256,N=200"
  [gemm_wq]="--size M=16,K=512,N=256"
  [gemm_decode]="--size M=3,K=640,N=200 --inout C"
  [gemm_decode_packed]="--size M=3,K=512,N=200 --inout C"
  [attention_fwd]="--size B=1,H=4,HKV=2,N=200 --arg scale=0.0884"
  [dequant_fp4]="--size M=33,N=512"
  [gemm_i8]="--size M=65,K=128,N=130"
  [gemm_f8]="--size M=65,K=128,N=130 --arg sa=0.5 --arg sb=0.25"
  [gemm_w8a8]="--size M=65,K=128,N=130"
  [gemm_shared]="--size M=65,K=96,N=70"
  [layernorm]="--size M=9,N=1000 --arg eps=1e-5"
  [swiglu]="--size M=40,F2=512,F=256"
  [gemm_mx]="--size M=20,K=200,N=72 --arg alpha=0.5"
  [quant_block]="--kernel quant_mx --size M=5,N=200"
)

# Every example once (examples/*.tile holds the reference kernels too).
examples=(examples/*.tile)

ok=0
failed=0
for f in "${examples[@]}"; do
  name=$(basename "$f" .tile)
  echo "== $f"
  if ! "$TILEC" "$f" --emit=mlir -o /dev/null; then
    echo "FAILED to compile $f"
    failed=$((failed + 1))
    continue
  fi
  if [ -z "${ARGS[$name]:-}" ]; then
    echo "compiled (no sizes known for a run)"
    ok=$((ok + 1))
    continue
  fi
  # shellcheck disable=SC2086
  if "$TILEC" run "$f" ${ARGS[$name]} && "$TILEC" check "$f" ${ARGS[$name]}; then
    ok=$((ok + 1))
  else
    echo "FAILED $f"
    failed=$((failed + 1))
  fi
done
echo "$ok passed, $failed failed"

echo
echo "== float64 references (ExamplesHost)"
if ! "$BUILD_DIR/unittests/Examples/TileExamplesHostTests" --gtest_brief=1; then
  echo "FAILED: an example disagrees with its float64 reference"
  failed=$((failed + 1))
fi

echo
echo "== sm_90a and gfx942 code objects, default parameters"
if ! python3 scripts/example-resources.py --tilec "$TILEC" \
  --out "$BUILD_DIR/examples-out" --target sm_90a --target gfx942 \
  "${examples[@]}"; then
  echo "FAILED: a kernel did not compile for a GPU target"
  failed=$((failed + 1))
fi

echo
echo "== on a GPU"
if command -v nvidia-smi > /dev/null &&
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null |
    head -1) && [ -n "$cap" ]; then
  arch="sm_${cap/./}"
  [ "$arch" = sm_90 ] && arch=sm_90a
  if ! bash scripts/gpu-examples.sh "$BUILD_DIR" "$BUILD_DIR/gpu-bundles" \
    "$arch"; then
    echo "FAILED: the examples on the GPU ($arch)"
    failed=$((failed + 1))
  fi
else
  echo "no NVIDIA GPU here: skipped (scripts/gpu-examples.sh runs them on one;"
  echo "--emulate runs the same bundles on the CPU emulators)"
fi
[ "$failed" -eq 0 ]
