#!/usr/bin/env bash
# GPU check of the six reference examples of examples/ (vector_add, softmax,
# rmsnorm_quant, gemm_f16, attention_fwd, gemm_wq), gemm_f8, gemm_decode and
# gemm_decode_packed, and the block-scaled examples (gemm_mx, quant_block):
# compiles bundles for an NVIDIA target (code objects +
# reference outputs computed by the host target, at odd sizes), then runs
# them on the GPU with tile-run, which
# generates the same seeded inputs, poisons the outputs and compares.
#
#   scripts/gpu-examples.sh BUILD_DIR OUT_DIR [TARGET]        build + run
#   scripts/gpu-examples.sh --bundle-only BUILD_DIR OUT_DIR [TARGET]
#   scripts/gpu-examples.sh --emulate BUILD_DIR OUT_DIR [TARGET]
#
# --bundle-only makes the bundles on a machine with the compiler; carry
# OUT_DIR to a GPU machine and run `tile-run DIR --device cuda` on each
# folder there (tile-run builds from runtime/ alone). Without a GPU (no
# /dev/nvidiaN and none listed by nvidia-smi) the run exits 77 (ctest:
# skipped) after saying so; where a GPU exists, any failure to compile, load
# or run fails.
#
# --emulate compiles the same bundles for the CPU emulator of the target
# (tilec --emulate: the NVPTX / AMDGPU LLVM IR with every thread a fiber,
# warp/wave collectives, cp.async groups, bounds and shared-memory race
# checks) and runs them with `tile-run --device cuda-emu|hip-emu`: no GPU
# needed. TARGET may then also be gfx942 or gfx950.
set -euo pipefail
bundle_only=0
emulate=0
case "${1:-}" in
--bundle-only) bundle_only=1; shift ;;
--emulate) emulate=1; shift ;;
esac
BUILD=${1:?build dir}
OUT=${2:?output dir}
TARGET=${3:-sm_90a}
HERE=$(cd "$(dirname "$0")/.." && pwd)
EX="$HERE/examples"
TILEC="$BUILD/bin/tilec"
TILE_RUN="$BUILD/bin/tile-run"

has_gpu() {
  compgen -G "/dev/nvidia[0-9]*" > /dev/null && return 0
  command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q "^GPU"
}
if [ "$bundle_only" -eq 0 ] && [ "$emulate" -eq 0 ]; then
  if ! has_gpu; then
    echo "SKIPPED: no NVIDIA GPU on this machine (run on a GPU machine, or"
    echo "make bundles with --bundle-only and run them there with tile-run)"
    exit 77
  fi
fi

mkdir -p "$OUT"
status=0
device=cuda
extra=()
if [ "$emulate" -eq 1 ]; then
  case "$TARGET" in
  gfx*) device=hip-emu ;;
  *) device=cuda-emu ;;
  esac
  extra=(--emulate)
fi
bundle() { # name file options...
  local name=$1 file=$2
  shift 2
  if "$TILEC" bundle "$EX/$file" --target="$TARGET" "${extra[@]}" -o "$OUT/$name" "$@" > /dev/null; then
    echo "bundled $name"
  else
    echo "FAIL: cannot compile $name for $TARGET"
    status=1
  fi
}
bundle vector_add vector_add.tile --size N=1 --size N=100003
bundle softmax softmax.tile --size M=1,N=1000 --size M=33,N=777
bundle rmsnorm_quant rmsnorm_quant.tile --size M=1,N=4096 --size M=17,N=3000 --arg eps=1e-5
bundle gemm_f16 gemm_f16.tile --size M=1,K=64,N=130 --size M=129,K=256,N=200
bundle gemm_f8 gemm_f8.tile --arg sa=0.5 --arg sb=0.25 --size M=1,K=64,N=130 --size M=129,K=256,N=200 --size M=129,K=200,N=72
bundle attention_fwd attention_fwd.tile --size B=1,H=4,HKV=2,N=200 --arg scale=0.0884
bundle attention_fwd_causal attention_fwd.tile -D CAUSAL=true --size B=2,H=2,HKV=2,N=129 --arg scale=0.0884
for t in u1 u2 u3 u4 u5 u6 u7 u8 i2 i3 i4 i5 i6 i7 i8 f4e2m1 f6e3m2 f5e2m2 f8e4m3; do
  bundle "gemm_wq_$t" gemm_wq.tile -D T=$t --size M=1,K=256,N=130 --size M=17,K=512,N=256
done
# A chunk of BK = 128 rows spanning four scale groups of 32.
bundle gemm_wq_u3_g32_bk128 gemm_wq.tile -D T=u3 -D G=32 -D BK=128 --size M=17,K=512,N=130
# Split-K decode GEMM: C holds random values beforehand (--inout), every
# split adds into it with atomic_add in an order that differs from the host
# reference's. With f16/bf16 out, each partial sum is rounded to OUT and so
# is every addition: the error follows the partial sums (hundreds here: a
# few ulps of 512 in f16, of 128 in bf16), not the element, hence --atol.
bundle gemm_decode_u4 gemm_decode.tile --inout C --atol 2 --size M=1,K=640,N=200 --size M=17,K=512,N=72
bundle gemm_decode_i4_g32_bf16 gemm_decode.tile -D T=i4 -D G=32 -D ZP=false -D OUT=bf16 --inout C --atol 4 --size M=3,K=256,N=130
# With f32 out the sums are exact enough; what differs is the dequantized
# weight: the GPU fuses w * s + zs into one f16 fma (docs/Language.md 4.1),
# the host reference rounds the product first, one f16 rounding of each
# |w * s + zs| <= ~20 apart, summed over K = 768 (H100: max_abs 0.127 of
# outputs in the hundreds, 2026-11-28), hence --atol 0.5.
bundle gemm_decode_u3_f32 gemm_decode.tile -D T=u3 -D G=64 -D OUT=f32 -D SPLIT=3 --inout C --atol 0.5 --size M=5,K=768,N=96
bundle gemm_decode_packed_u4 gemm_decode_packed.tile --inout C --atol 2 --size M=1,K=512,N=200 --size M=17,K=256,N=72
bundle gemm_decode_packed_i4_bk64 gemm_decode_packed.tile -D T=i4 -D BK=64 -D ZP=false -D OUT=f32 --inout C --size M=5,K=384,N=96
# u2 at its default chunk (BK = 256): two scale groups per chunk.
bundle gemm_decode_packed_u2 gemm_decode_packed.tile -D T=u2 --inout C --atol 2 --size M=3,K=768,N=72
bundle gemm_decode_f4e2m1_bk256 gemm_decode.tile -D T=f4e2m1 -D G=32 -D BK=256 -D BN=32 --inout C --atol 2 --size M=16,K=512,N=100
# Block-scaled formats: MXFP8 x MXFP4 and NVFP4 through dot_scaled (K ends
# in a partial block), MX / NVFP4 quantization and dequantization.
bundle gemm_mx gemm_mx.tile --arg alpha=0.5 --size M=1,K=200,N=72 --size M=70,K=256,N=130
bundle gemm_mx_nvfp4 gemm_mx.tile -D TA=f4e2m1 -D S=f8e4m3 -D BS=16 -D OUT=f32 --arg alpha=0.02 --size M=17,K=320,N=64
bundle quant_mxfp4 quant_block.tile --kernel quant_mx --size M=5,N=200 --size M=17,N=512
bundle quant_mxfp8 quant_block.tile --kernel quant_mx -D T=f8e4m3 -D EMAX=8 -D X=f32 --size M=3,N=96
bundle quant_nvfp4 quant_block.tile --kernel quant_nvfp4 --arg s_enc=4.5 --size M=5,N=200
bundle dequant_nvfp4 quant_block.tile --kernel dequant_block -D S=f8e4m3 -D BS=16 --arg alpha=0.25 --size M=7,N=136

[ "$bundle_only" -eq 1 ] && exit $status
for dir in "$OUT"/*/; do
  "$TILE_RUN" "$dir" --device "$device" || status=1
done
exit $status
