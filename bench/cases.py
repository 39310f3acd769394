#!/usr/bin/env python3
"""The benchmark cases of bench/: what to bundle, at which shapes, and the
work each test does (FLOPs, minimum bytes) for the report.

Pure Python (no numpy): make-bundle.sh runs it on the compiler machine.

  cases.py list [--quick] [--only REGEX]   one line per bundle: ID<TAB>JSON
  cases.py add-tests BUNDLE_DIR ID [--quick]  append the benchmark-shape
                                           tests (no reference outputs) to
                                           BUNDLE_DIR/manifest.json
  cases.py describe OUT_DIR [--quick] [--only REGEX]
                                           write OUT_DIR/cases.json: every
                                           benchmark test of the bundles in
                                           OUT_DIR with its shape, FLOPs and
                                           bytes

A bundle holds one kernel at one fixed configuration (the compile-time
parameters below, stated, since no GPU is at hand to autotune on when the
bundle is made; a few shapes get two configurations so that the GPU run
picks the faster, as a small on-device sweep). Its first tests are small
"check" shapes with host references computed by `tilec bundle`; the tests
appended here are the benchmark shapes, whose outputs run.sh checks against
PyTorch on the GPU before timing.
"""

import json
import math
import os
import re
import sys

# LLM-serving shapes: hidden 4096, MLP 14336 (Llama-3-8B-like).
DECODE_NK = [(4096, 4096), (14336, 4096), (4096, 14336)]

def bits(t):
    """Bits per element of weight type t (u4, i7, f6e3m2, ...)."""
    return int(re.match(r"[a-z]+(\d+)", t).group(1))


WQ_TYPES = ["u4", "u3", "u2", "i4", "i8", "f4e2m1", "f8e4m3"]
def _packed_block_k(t):
    """gemm_decode_packed's default BK for weight type t (u4, i2, f4e2m1,
    ...): 512 for 1 bit, 256 for 2-4, 128 for 5-8."""
    b = bits(t)
    return 512 if b == 1 else 256 if b <= 4 else 128


# Normwise relative error gpu_bench.py allows per family when it checks a
# benchmark output against PyTorch: f16 outputs of long f32 accumulations
# (METHOD.md: f16/bf16 operands land between 1e-3 and 1e-2); rmsnorm_quant:
# that of the f32 scales (its codes are checked apart). Every family of
# cases() needs one (a missing one stopped a GPU run's checks, 2026-11-27).
CHECK_TOLERANCE = {"gemm_f16": 1e-2, "gemm_f8": 1e-2, "gemm_w8a8": 1e-2,
                   "gemm_wq": 1e-2,
                   "gemm_decode": 1e-2, "gemm_decode_packed": 1e-2,
                   "attention_fwd": 1e-2, "softmax": 2e-3,
                   "rmsnorm_quant": 1e-5, "vector_add": 1e-6}


def split_atol(t):
    """The absolute tolerance of a split-K decode GEMM's check shapes with
    f16 output and weight type t: each split's partial sum is rounded to f16
    and added atomically in an order the host reference does not follow, so
    the error is a few ulps of the partial sums, whose magnitude grows with
    the code range (2 for 4-bit codes; on an H100, 2026-11-26, 7- and 8-bit
    codes were off by up to 4 and 12 at K = 256-640)."""
    return 2 * max(1, 2 ** (bits(t) - 4))


def rotating_sets(set_bytes, rotate_bytes, max_sets=64):
    """How many copies of a test's tensors (set_bytes in all) the rotating
    timing method launches over to cover rotate_bytes: at least 2 (a launch
    must not find the previous one's tensors in the cache), at most
    max_sets; tile::rt::rotatingSets (runtime/include/tile/runtime/Timing.h)
    for tile-run, this for gpu_bench.py's baselines."""
    n = -(-rotate_bytes // set_bytes) if set_bytes else max_sets
    return min(max(n, 2), max(max_sets, 2))


# Issue 13's list: every width 1-8 and the small floats.
DECODE_TYPES = ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "i2", "i3",
                "i4", "i5", "i6", "i7", "i8", "f4e2m1", "f5e2m2", "f6e3m2",
                "f8e4m3"]
# The packed kernel takes every one of them (word-wise pairs for every
# integer width and f4e2m1 since 2026-11-26; the other floats convert a
# code at a time).
PACKED_TYPES = DECODE_TYPES


def _gemm_f16_work(s):
    m, n, k = s["M"], s["N"], s["K"]
    return 2.0 * m * n * k, 2.0 * (m * k + k * n + m * n)


def _gemm_f8_work(s):
    m, n, k = s["M"], s["N"], s["K"]
    return 2.0 * m * n * k, 1.0 * (m * k + k * n) + 2.0 * m * n


def _gemm_w8a8_work(s):
    m, n, k = s["M"], s["N"], s["K"]
    return 2.0 * m * n * k, 1.0 * (m * k + k * n) + 4.0 * (m + n) + 2.0 * m * n


def _gemm_wq_work(t, g):
    def work(s):
        m, n, k = s["M"], s["N"], s["K"]
        w = k * n * bits(t) / 8.0
        sz = 2 * 2.0 * (k // g) * n  # S and Z, f16
        return 2.0 * m * n * k, 2.0 * m * k + w + sz + 2.0 * m * n
    return work


def _attention_work(causal):
    def work(s):
        b, h, hkv, n, d = s["B"], s["H"], s["HKV"], s["N"], 128
        flops = 4.0 * b * h * n * n * d
        if causal:
            flops /= 2
        return flops, 2.0 * (2 * b * h * n * d + 2 * b * hkv * n * d)
    return work


def _softmax_work(s):
    return 5.0 * s["M"] * s["N"], 2.0 * 2 * s["M"] * s["N"]


def _rmsnorm_work(bits):
    def work(s):
        m, n = s["M"], s["N"]
        return 6.0 * m * n, 2.0 * m * n + 2.0 * n + m * n * bits / 8.0 + 4.0 * m
    return work


def _vadd_work(s):
    return float(s["N"]), 12.0 * s["N"]


def cases(quick=False):
    """Every bundle: id, source example, defines, check sizes, scalars,
    benchmark sizes, family and work function."""
    out = []

    def add(cid, src, family, defines, check, bench, work, scalars=None,
            baseline="torch", inout=None, atol=None, flags=None):
        out.append({"id": cid, "source": src, "family": family,
                    "defines": defines, "check": check, "bench": bench,
                    "scalars": scalars or {}, "work": work,
                    "baseline": baseline, "inout": inout or [],
                    "atol": atol, "flags": flags or []})

    # GEMM f16, prefill: two configurations of the tune space.
    pre = [{"M": 4096, "N": 4096, "K": 4096}]
    if quick:
        pre = [{"M": 256, "N": 256, "K": 256}]
    chk = ["M=1,K=64,N=130", "M=129,K=256,N=200"]
    # The named tiles below keep 4 warps and cp.async copies (W = 4, WS =
    # false) unless a flag says otherwise.
    w4 = {"W": 4, "WS": "false"}  # and so PERSIST = false
    add("gemm_f16_prefill_128x128x32", "gemm_f16.tile", "gemm_f16",
        {"BM": 128, "BN": 128, "BK": 32, "STAGES": 3, **w4}, chk, pre,
        _gemm_f16_work)
    if not quick:
        # The example's defaults: on sm_90a 8 warps, 128x256x64, a producer
        # warpgroup with TMA, persistent (0.95x cuBLAS at 4096^3 as
        # f16w8_pws_stages3 of bench/sweep-tma.sh, 2026-11-27); the check
        # shapes' rows of 130 and 200 f16 run its copy without TMA.
        add("gemm_f16_prefill_default", "gemm_f16.tile", "gemm_f16", {},
            chk, pre, _gemm_f16_work)
        # The same in bf16 (T = bf16; wgmma's bf16 form), against cuBLAS
        # bf16 (issue #14 asks 0.9x for both); not yet timed.
        add("gemm_bf16_prefill_default", "gemm_f16.tile", "gemm_f16",
            {"T": "bf16"}, chk, pre, _gemm_f16_work)
        # The fastest 4-warp tile on an H100 (2026-11-27, wgmma: 0.227 ms
        # against 0.265 for the default); 128x256 tiles need 8 warps
        # (bench/sweep-wgmma.sh), the example has 4.
        add("gemm_f16_prefill_128x128x64", "gemm_f16.tile", "gemm_f16",
            {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3, **w4}, chk, pre,
            _gemm_f16_work)
        # The sm_90a wgmma path (rows of 128 bytes: BN = BK = 64); on other
        # targets the same tile on mma.sync.
        add("gemm_f16_prefill_wgmma_128x64x64", "gemm_f16.tile", "gemm_f16",
            {"BM": 128, "BN": 64, "BK": 64, "STAGES": 3, **w4}, chk, pre,
            _gemm_f16_work)
        # The fastest 4-warp tile with TMA copies (tilec --tma: one thread
        # copies each stage, mbarriers track it); not yet timed. Its check
        # shapes have rows of a multiple of 16 bytes, as TMA needs.
        add("gemm_f16_prefill_tma_128x128x64", "gemm_f16.tile", "gemm_f16",
            {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3, **w4},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_f16_work,
            flags=["--tma"])
        # The same with a producer warpgroup (tilec --warp-specialize: 4
        # more warps issue the TMA copies; the MMA warps keep 240
        # registers and no longer spill); not yet timed.
        add("gemm_f16_prefill_ws_128x128x64", "gemm_f16.tile", "gemm_f16",
            {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3, **w4},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_f16_work,
            flags=["--warp-specialize"])
    # GEMM with 8-bit float operands (examples/gemm_f8.tile, B stored
    # N x K: wgmma m64nNk32 e4m3 on sm_90a, mma.sync e4m3 on sm_89),
    # per-tensor scales, against cuBLAS f16 and torch._scaled_mm in the
    # same run.
    # The named tiles pin WS = false (and so PERSIST = false): cp.async
    # unless a flag says otherwise.
    if not quick:
        f8 = {"T": "f8e4m3", "WS": "false"}
        add("gemm_f8_prefill_128x128x64", "gemm_f8.tile", "gemm_f8",
            {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3, **f8},
            chk, pre, _gemm_f8_work, scalars={"sa": 0.5, "sb": 0.25})
        # The fastest cp.async gemm_f8 tile on an H100 (2026-11-27: 0.114
        # ms, 0.90x torch._scaled_mm, against 0.217 ms at 128x128x64).
        add("gemm_f8_prefill_128x256x128", "gemm_f8.tile", "gemm_f8",
            {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4, **f8},
            chk, pre, _gemm_f8_work, scalars={"sa": 0.5, "sb": 0.25})
        add("gemm_f8_prefill_tma_128x256x128", "gemm_f8.tile", "gemm_f8",
            {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4, **f8},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_f8_work,
            scalars={"sa": 0.5, "sb": 0.25}, flags=["--tma"])
        add("gemm_f8_prefill_ws_128x256x128", "gemm_f8.tile", "gemm_f8",
            {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4, **f8},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_f8_work,
            scalars={"sa": 0.5, "sb": 0.25}, flags=["--warp-specialize"])
        # The example's defaults: on sm_90a 128x256x128, 3 stages, a
        # producer warpgroup with TMA, persistent (0.98x torch._scaled_mm
        # at 4096^3 as f8_pws_stages3 of bench/sweep-tma.sh, 2026-11-27);
        # the second check shape (rows of K = 200 bytes, which TMA cannot
        # copy) runs its copy without TMA, the first the kernel.
        add("gemm_f8_prefill_default", "gemm_f8.tile", "gemm_f8", {},
            ["M=1,K=64,N=130", "M=129,K=200,N=200"], pre, _gemm_f8_work,
            scalars={"sa": 0.5, "sb": 0.25})
    # W8A8 int8 linear layer (examples/gemm_w8a8.tile, the weight stored
    # N x K: wgmma m64nNk32 s8 on sm_90a, mma.sync s8 elsewhere), per-token
    # and per-channel scales, bf16 out, against torch._int_mm (cuBLASLt
    # int8) and cuBLAS f16 in the same run; not yet timed.
    if not quick:
        add("gemm_w8a8_prefill_128x128x128", "gemm_w8a8.tile", "gemm_w8a8",
            {"BM": 128, "BN": 128, "BK": 128, "STAGES": 3}, chk, pre,
            _gemm_w8a8_work)
        add("gemm_w8a8_prefill_128x256x128", "gemm_w8a8.tile", "gemm_w8a8",
            {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4}, chk, pre,
            _gemm_w8a8_work)
        add("gemm_w8a8_prefill_tma_128x256x128", "gemm_w8a8.tile",
            "gemm_w8a8", {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_w8a8_work,
            flags=["--tma"])
        add("gemm_w8a8_prefill_ws_128x256x128", "gemm_w8a8.tile",
            "gemm_w8a8", {"BM": 128, "BN": 256, "BK": 128, "STAGES": 4},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_w8a8_work,
            flags=["--warp-specialize"])
        # The form gemm_f16 and gemm_f8 are fastest in (a producer
        # warpgroup, persistent, 3 stages: a persistent producer's
        # epilogue needs shared memory beside the ring); not yet timed.
        add("gemm_w8a8_prefill_pws_128x256x128", "gemm_w8a8.tile",
            "gemm_w8a8", {"BM": 128, "BN": 256, "BK": 128, "STAGES": 3},
            ["M=1,K=64,N=144", "M=129,K=256,N=208"], pre, _gemm_w8a8_work,
            flags=["--warp-specialize", "--persistent"])
    # GEMM f16, decode: M = 1, 16, 128 tokens.
    dec = [{"M": m, "N": n, "K": k} for m in (1, 16, 128)
           for (n, k) in DECODE_NK]
    if quick:
        dec = [{"M": 1, "N": 384, "K": 256}]
    add("gemm_f16_decode_64x64x64", "gemm_f16.tile", "gemm_f16",
        {"BM": 64, "BN": 64, "BK": 64, "STAGES": 4, **w4}, chk, dec,
        _gemm_f16_work)
    # Weight-only quantized GEMM at decode shapes, group size 128.
    wq = [{"M": m, "N": n, "K": k} for m in (1, 16) for (n, k) in DECODE_NK]
    if quick:
        wq = [{"M": 1, "N": 384, "K": 512}]
    for t in (["u4"] if quick else WQ_TYPES):
        add("gemm_wq_" + t, "gemm_wq.tile", "gemm_wq",
            {"T": t, "G": 128, "ZP": "true", "BM": 16, "BN": 128, "BK": 64,
             "STAGES": 3},
            ["M=1,K=256,N=130", "M=17,K=512,N=256"], wq,
            _gemm_wq_work(t, 128),
            baseline="torch+triton" if t in ("u4", "i8") else "torch")
    # Weight-only quantized GEMM at prefill (issue #14: u4 at M = 4096,
    # N = K = 4096 against cuBLAS on the f16 weight): on sm_90a the
    # dequantized 128-column B tile is staged in shared memory (two
    # buffers, one wgmma group in flight) for wgmma m64n128k16; with 8
    # warps at BM = 256 each dequantized chunk serves 256 rows.
    if not quick:
        add("gemm_wq_prefill_u4_128x128x64", "gemm_wq.tile", "gemm_wq",
            {"T": "u4", "G": 128, "ZP": "true", "BM": 128, "BN": 128,
             "BK": 64, "STAGES": 3},
            ["M=1,K=256,N=130", "M=129,K=512,N=256"], pre,
            _gemm_wq_work("u4", 128))
        add("gemm_wq_prefill_u4_256x128x64_w8", "gemm_wq.tile", "gemm_wq",
            {"T": "u4", "G": 128, "ZP": "true", "BM": 256, "BN": 128,
             "BK": 64, "STAGES": 3, "WARPS": 8},
            ["M=1,K=256,N=130", "M=257,K=512,N=256"], pre,
            _gemm_wq_work("u4", 128))
        # The same with --tma: A by TMA, the weight, scales and zero points
        # by cp.async (mixed copies; rows of a multiple of 16 bytes).
        add("gemm_wq_prefill_tma_u4_256x128x64_w8", "gemm_wq.tile", "gemm_wq",
            {"T": "u4", "G": 128, "ZP": "true", "BM": 256, "BN": 128,
             "BK": 64, "STAGES": 3, "WARPS": 8},
            ["M=1,K=256,N=144", "M=257,K=512,N=256"], pre,
            _gemm_wq_work("u4", 128), flags=["--tma"])
        # With a producer warpgroup: the weight (4-bit, by TMA as bytes),
        # A, scales and zero points all by TMA (session 34); the consumers
        # dequantize into the shared B buffers and multiply: 158 loop
        # instructions per warp against 290 with the mixed copies above.
        add("gemm_wq_prefill_ws_u4_256x128x64_w8", "gemm_wq.tile", "gemm_wq",
            {"T": "u4", "G": 128, "ZP": "true", "BM": 256, "BN": 128,
             "BK": 64, "STAGES": 3, "WARPS": 8},
            ["M=1,K=256,N=144", "M=257,K=512,N=256"], pre,
            _gemm_wq_work("u4", 128), flags=["--warp-specialize"])
    # The same prefill over pre-packed weights (examples/gemm_decode_packed.
    # tile, SPLIT = 1, C += A x dequant(Wp)): swapped (SWAP, C^T = W^T A^T)
    # the product runs on wgmma with the dequantized weight as its register
    # operand (RS), no shared-memory round trip for it; unswapped it runs on
    # mma.sync (the weight is no wgmma B operand from registers; 52 bytes of
    # spills at 128x64). Swapped: 4 warps at 128x64x64 (three CTAs per SM;
    # A read 64 times from L2) and 128x128x64 (two CTAs per SM, two m64
    # blocks per warpgroup), 8 warps at 256x128x64 (two warpgroups of 64
    # weight rows, the tokens as wgmma's N = 256; one CTA per SM). Static
    # (2026-11-28): 0.44 / 0.29 / 0.43 warp instructions per weight byte
    # swapped, 0.99 unswapped; since session 32 the swapped product stays
    # in flight as two groups per k block (0.46 / 0.28 / 0.43;
    # docs/Performance.md). 128x128x64 on 8 warps (one warpgroup per 64
    # weight rows): 152 registers, one CTA per SM; with `occupancy 2`
    # (OCC) 128 registers and two (24 bytes of spills). `_ws`: with a
    # producer warpgroup (WS: the weight by TMA as bytes, A, scales and
    # zero points by TMA; 4 more warps), whose consumers issue 179 (4
    # warps), 114 (8 warps at 128x128) and 117 (256x128) instructions per
    # k block and warp against 289, 206 and 220 (2026-11-28, session 34).
    if not quick:
        tall = ["M=1,K=256,N=130", "M=129,K=512,N=256"]
        for name, swap, bm, bn, warps, occ, ws, shapes in (
                ("prefill_u4_128x64x64", "false", 128, 64, 4, 1, "false",
                 ["M=1,K=256,N=130", "M=129,K=512,N=72"]),
                ("prefill_swap_u4_128x64x64", "true", 128, 64, 4, 1, "false",
                 ["M=1,K=256,N=130", "M=129,K=512,N=72"]),
                ("prefill_swap_u4_128x128x64", "true", 128, 128, 4, 1,
                 "false", tall),
                ("prefill_swap_u4_128x128x64_w8", "true", 128, 128, 8, 1,
                 "false", tall),
                ("prefill_swap_u4_128x128x64_w8_occ2", "true", 128, 128, 8, 2,
                 "false", tall),
                ("prefill_swap_u4_256x128x64_w8", "true", 256, 128, 8, 1,
                 "false", ["M=1,K=256,N=130", "M=257,K=512,N=256"]),
                ("prefill_swap_u4_128x128x64_ws", "true", 128, 128, 4, 1,
                 "true", tall),
                ("prefill_swap_u4_128x128x64_w8_ws", "true", 128, 128, 8, 1,
                 "true", tall),
                ("prefill_swap_u4_256x128x64_w8_ws", "true", 256, 128, 8, 1,
                 "true", ["M=1,K=256,N=130", "M=257,K=512,N=256"])):
            add("gemm_decode_packed_" + name, "gemm_decode_packed.tile",
                "gemm_decode_packed",
                {"T": "u4", "G": 128, "ZP": "true", "OUT": "f16", "BM": bm,
                 "BN": bn, "BK": 64, "SPLIT": 1, "STAGES": 3, "SWAP": swap,
                 "WARPS": warps, "OCC": occ, "WS": ws},
                shapes, pre, _gemm_wq_work("u4", 128), inout=["C"],
                atol=split_atol("u4"))
    # Split-K decode GEMM (examples/gemm_decode.tile) at its defaults: C is
    # read and written (C += A x dequant(W)); with f16 out the check shapes
    # compare partial sums added in another order than the host's (--atol,
    # see scripts/gpu-examples.sh).
    dq = [{"M": m, "N": n, "K": k} for m in (1, 16)
          for (n, k) in DECODE_NK + [(57344, 8192)]]
    if quick:
        dq = [{"M": 1, "N": 384, "K": 512}]
    for t in (["u4"] if quick else DECODE_TYPES):
        add("gemm_decode_" + t, "gemm_decode.tile", "gemm_decode",
            {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BN": 64,
             "BK": 128, "SPLIT": 4, "STAGES": 3},
            ["M=1,K=640,N=200", "M=17,K=512,N=72"], dq,
            _gemm_wq_work(t, 128),
            baseline="torch+triton" if t in ("u4", "i8") else "torch",
            inout=["C"], atol=split_atol(t))
    # Its M <= 8 path (BM = 8: operands swapped, C^T = W^T A^T) at the M = 1
    # shapes, for a few widths: the GPU run shows which path is faster.
    if not quick:
        dq1 = [s for s in dq if s["M"] == 1]
        for t in ["u4", "u3", "u2", "i8", "f4e2m1"]:
            add("gemm_decode_bm8_" + t, "gemm_decode.tile", "gemm_decode",
                {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BM": 8,
                 "BN": 64, "BK": 128, "SPLIT": 4, "STAGES": 3},
                ["M=1,K=640,N=200", "M=11,K=512,N=72"], dq1,
                _gemm_wq_work(t, 128), inout=["C"], atol=split_atol(t))
    # The same over pre-packed weights (examples/gemm_decode_packed.tile):
    # Wp is [N, K] in the operand order; 1-8-bit integer and f4/f8 codes.
    # BK is the example's default for the width (512 / bits for 1, 2, 4 and
    # 8 bits, else 128; `tilec pack` packs with the same).
    if not quick:
        for t in PACKED_TYPES:
            add("gemm_decode_packed_" + t, "gemm_decode_packed.tile",
                "gemm_decode_packed",
                {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BN": 64,
                 "BK": _packed_block_k(t), "SPLIT": 4, "STAGES": 3},
                ["M=1,K=512,N=200", "M=17,K=256,N=72"], dq,
                _gemm_wq_work(t, 128), inout=["C"], atol=split_atol(t))
    # u4 at the former default chunk, BK = 128 (pack with --block-k 128):
    # the default 256 took 109.6 us against 144.4 us at M=1, N=57344,
    # K=8192 on the H100 (2026-11-26 sweep, docs/Performance.md) and was
    # faster at every decode shape; this case keeps the comparison in each
    # run. The bundle's check shapes pack with its own BK (Wp is
    # generated).
    if not quick:
        defines = {"T": "u4", "G": 128, "ZP": "true", "OUT": "f16", "BN": 64,
                   "BK": 128, "SPLIT": 4, "STAGES": 3}
        add("gemm_decode_packed_u4_bk128", "gemm_decode_packed.tile",
            "gemm_decode_packed", defines,
            ["M=1,K=512,N=200", "M=17,K=256,N=72"], dq,
            _gemm_wq_work("u4", 128), inout=["C"], atol=split_atol("u4"))
    # The M <= 8 path (BM = 8: C^T = W^T A^T, half the tensor instructions
    # and A traffic of BM = 16) at the M = 1 shapes, u4 and u8: 0.208 against
    # 0.220 (u4) and 0.200 against 0.208 (u8) warp instructions per weight
    # byte (docs/Performance.md, session 16); u1 and u2, whose dequantization
    # bounds them: 64.7-71.8 against 87-94 us (u1) at N = 57344, K = 8192 on
    # an H100 (2026-11-28 sweep).
    if not quick:
        for t in ("u1", "u2", "u4", "u8"):
            defines = {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BM": 8,
                       "BN": 64, "BK": _packed_block_k(t), "SPLIT": 4,
                       "STAGES": 3}
            add("gemm_decode_packed_bm8_" + t, "gemm_decode_packed.tile",
                "gemm_decode_packed", defines,
                ["M=1,K=512,N=200", "M=11,K=256,N=72"],
                [d for d in dq if d["M"] <= 8],
                _gemm_wq_work(t, 128), inout=["C"], atol=split_atol(t))
    # u1's scale after the product (SA, its default at BM = 8 since session
    # 38: 0.564 warp instructions per weight byte at 168 registers, 3
    # programs per SM) against the scaling per code pair (SA = false: 0.656
    # at 80 registers, 5 per SM) and against SA capped at 128 registers for
    # 4 per SM (OCC = 4: 0.630, 28 bytes of spills, 3 local accesses in
    # the loop).
    if not quick:
        for name, extra in (("nosa", {"SA": "false"}), ("sa_occ4", {"OCC": 4})):
            defines = {"T": "u1", "G": 128, "ZP": "true", "OUT": "f16",
                       "BM": 8, "BN": 64, "BK": _packed_block_k("u1"),
                       "SPLIT": 4, "STAGES": 3, **extra}
            add("gemm_decode_packed_bm8_u1_" + name, "gemm_decode_packed.tile",
                "gemm_decode_packed", defines,
                ["M=1,K=512,N=200", "M=11,K=256,N=72"],
                [d for d in dq if d["M"] <= 8],
                _gemm_wq_work("u1", 128), inout=["C"], atol=split_atol("u1"))
    # The same with a producer warpgroup (WS: the packed weight, A, scales
    # and zero points by TMA) and four programs per SM (OCC = 4, 64
    # registers at launch): 0.295 / 0.153 / 0.086 warp instructions per
    # weight byte for u2 / u4 / u8 against 0.362 / 0.192 / 0.134 at the
    # defaults (session 34, static); u3 at its default chunk (96-byte rows).
    if not quick:
        for t in ("u2", "u3", "u4", "u8"):
            defines = {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BM": 8,
                       "BN": 64, "BK": _packed_block_k(t), "SPLIT": 4,
                       "STAGES": 3, "OCC": 4, "WS": "true"}
            add("gemm_decode_packed_bm8_ws_" + t, "gemm_decode_packed.tile",
                "gemm_decode_packed", defines,
                ["M=1,K=512,N=200", "M=11,K=256,N=72"],
                [d for d in dq if d["M"] <= 8],
                _gemm_wq_work(t, 128), inout=["C"], atol=split_atol(t))
    # Dependent launch (tilec --dependent-launch): each kernel may be
    # scheduled while the one before it in its stream ends, prefetches its
    # pipeline's first blocks into L2 (session 36) and then waits for it;
    # shows only where launches follow each other (bench/run.sh --rotate:
    # predicted u4 at N = K = 4096 3.4-4.4 us per launch, docs/
    # Performance.md). The flush method's memset before each launch leaves
    # nothing to overlap.
    if not quick:
        for t, ws in (("u2", False), ("u4", False), ("u8", False),
                      ("u4", True)):
            defines = {"T": t, "G": 128, "ZP": "true", "OUT": "f16", "BM": 8,
                       "BN": 64, "BK": _packed_block_k(t), "SPLIT": 4,
                       "STAGES": 3}
            if ws:
                defines.update({"OCC": 4, "WS": "true"})
            add("gemm_decode_packed_bm8_" + ("ws_" if ws else "") + "pdl_" +
                t, "gemm_decode_packed.tile", "gemm_decode_packed", defines,
                ["M=1,K=512,N=200", "M=11,K=256,N=72"],
                [d for d in dq if d["M"] <= 8],
                _gemm_wq_work(t, 128), inout=["C"], atol=split_atol(t),
                flags=["--dependent-launch"])
    if quick:
        # Enough to exercise every step of the pipeline on a host bundle.
        add("vector_add", "vector_add.tile", "vector_add", {"BLOCK": 1024},
            ["N=1", "N=100003"], [{"N": 1 << 16}], _vadd_work)
        add("softmax_1024", "softmax.tile", "softmax",
            {"ROWS": 4, "COLS": 1024}, ["M=33,N=777"],
            [{"M": 64, "N": 1024}], _softmax_work)
        return out
    # Attention, prefill (grouped-query: 32 query heads, 8 KV heads, d=128).
    scale = {"scale": 1 / math.sqrt(128)}
    att = [{"B": 1, "H": 32, "HKV": 8, "N": n} for n in (1024, 4096)]
    # 4 warps, two 64-row blocks of Q per warpgroup: mma.sync on every
    # NVIDIA target (the default on AMD; on NVIDIA the default is 8 warps
    # since 2026-11-27, measured 0.46-0.50x SDPA here against 0.64x and
    # more for the 8-warp forms below).
    add("attention_fwd", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "W": 4},
        ["B=1,H=4,HKV=2,N=200"], att, _attention_work(False), scale)
    add("attention_fwd_causal", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "CAUSAL": "true", "W": 4},
        ["B=2,H=2,HKV=2,N=129"], att, _attention_work(True), scale)
    # FlashAttention-3's shape on sm_90a (one 64-row block of Q per
    # warpgroup: both products on wgmma, Q K^T with Q staged in shared
    # memory, P V with P in registers; mma.sync on other targets), the
    # NVIDIA default (BN = 128 on sm_90a since 2026-11-28: 0.72-0.77x SDPA
    # on an H100 against 0.63-0.66x at BN = 64); timed on 2026-11-27 and 28
    # (docs/Performance.md). N = 8192 too (issue 14's list). WS = false:
    # without the producer warpgroup the sm_90a default asks for since
    # 2026-11-28.
    att8 = att + [{"B": 1, "H": 32, "HKV": 8, "N": 8192}]
    add("attention_fwd_w8", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "W": 8, "WS": "false"},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale)
    add("attention_fwd_w8_bn128", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 128, "STAGES": 2, "W": 8, "WS": "false"},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale)
    add("attention_fwd_causal_w8", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "CAUSAL": "true", "W": 8,
         "WS": "false"},
        ["B=2,H=2,HKV=2,N=129"], att8, _attention_work(True), scale)
    add("attention_fwd_causal_w8_bn128", "attention_fwd.tile",
        "attention_fwd",
        {"BM": 128, "BN": 128, "STAGES": 2, "CAUSAL": "true", "W": 8,
         "WS": "false"},
        ["B=2,H=2,HKV=2,N=129"], att8, _attention_work(True), scale)
    add("attention_fwd_causal_w8_bn128_ws", "attention_fwd.tile",
        "attention_fwd",
        {"BM": 128, "BN": 128, "STAGES": 2, "CAUSAL": "true", "W": 8},
        ["B=2,H=2,HKV=2,N=129"], att8, _attention_work(True), scale,
        flags=["--warp-specialize"])
    # The defaults themselves (on sm_90a a producer warpgroup since
    # 2026-11-28: `specialize WS`, the kernel of the _bn128_ws cases).
    add("attention_fwd_default", "attention_fwd.tile", "attention_fwd", {},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale)
    add("attention_fwd_causal_default", "attention_fwd.tile",
        "attention_fwd", {"CAUSAL": "true"},
        ["B=2,H=2,HKV=2,N=129"], att8, _attention_work(True), scale)
    # The same with TMA copies of K and V (tilec --tma: rank-4 tensor maps,
    # one thread copies each stage) and with a producer warpgroup
    # (--warp-specialize: the two consumer warpgroups keep 240 registers
    # and no block barrier in their loop); not yet timed.
    add("attention_fwd_w8_tma", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "W": 8, "WS": "false"},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale,
        flags=["--tma"])
    add("attention_fwd_w8_ws", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "W": 8},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale,
        flags=["--warp-specialize"])
    add("attention_fwd_w8_bn128_ws", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 128, "STAGES": 2, "W": 8},
        ["B=1,H=4,HKV=2,N=200"], att8, _attention_work(False), scale,
        flags=["--warp-specialize"])
    add("attention_fwd_causal_w8_ws", "attention_fwd.tile", "attention_fwd",
        {"BM": 128, "BN": 64, "STAGES": 2, "CAUSAL": "true", "W": 8},
        ["B=2,H=2,HKV=2,N=129"], att8, _attention_work(True), scale,
        flags=["--warp-specialize"])
    # Memory-bound kernels.
    add("softmax_1024", "softmax.tile", "softmax", {"ROWS": 4, "COLS": 1024},
        ["M=33,N=777"], [{"M": 4096, "N": 1024}, {"M": 32768, "N": 1024}],
        _softmax_work)
    add("softmax_4096", "softmax.tile", "softmax", {"ROWS": 1, "COLS": 4096},
        ["M=5,N=4000"], [{"M": 4096, "N": 4096}, {"M": 16384, "N": 4096}],
        _softmax_work)
    add("rmsnorm_quant_i8", "rmsnorm_quant.tile", "rmsnorm_quant",
        {"T": "i8", "ROWS": 2, "COLS": 4096}, ["M=17,N=3000"],
        [{"M": m, "N": 4096} for m in (1, 128, 4096, 16384)],
        _rmsnorm_work(8), {"eps": 1e-5})
    add("vector_add", "vector_add.tile", "vector_add", {"BLOCK": 1024},
        ["N=1", "N=100003"], [{"N": 1 << 20}, {"N": 1 << 24}, {"N": 1 << 27}],
        _vadd_work)
    return out


def select(all_cases, only):
    if not only:
        return all_cases
    rx = re.compile(only)
    return [c for c in all_cases if rx.search(c["id"])]


def _sizes_text(s):
    return ",".join("%s=%d" % (k, v) for k, v in s.items())


def cmd_list(quick, only):
    for c in select(cases(quick), only):
        line = {"source": c["source"],
                "defines": ["%s=%s" % (k, v) for k, v in c["defines"].items()],
                "check": c["check"],
                "args": ["%s=%r" % (k, v) for k, v in c["scalars"].items()],
                "inout": c["inout"], "atol": c["atol"],
                "flags": c["flags"]}
        print(c["id"] + "\t" + json.dumps(line))


def _find(cid, quick):
    for c in cases(quick):
        if c["id"] == cid:
            return c
    sys.exit("cases.py: no case named '%s'" % cid)


def cmd_add_tests(bundle, cid, quick):
    c = _find(cid, quick)
    path = os.path.join(bundle, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    kernels = manifest.get("kernels", [])
    if len(kernels) != 1:
        sys.exit("cases.py: %s: expected one kernel, found %d"
                 % (path, len(kernels)))
    tests = kernels[0].setdefault("tests", [])
    for s in c["bench"]:
        t = {"sizes": dict(s), "seed": 11}
        if c["inout"]:
            t["inout"] = list(c["inout"])
        if c["scalars"]:
            t["scalars"] = dict(c["scalars"])
        tests.append(t)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def describe(selected):
    """The benchmark tests of \\p selected as report rows (no work
    functions)."""
    rows = []
    for c in selected:
        first = len(c["check"])
        for i, s in enumerate(c["bench"]):
            flops, nbytes = c["work"](s)
            rows.append({"case": c["id"], "family": c["family"],
                         "kernel": c["source"][:-len(".tile")],
                         "test": first + i, "sizes": s,
                         "defines": c["defines"], "scalars": c["scalars"],
                         "flops": flops, "bytes": nbytes,
                         "baseline": c["baseline"]})
    return rows


def cmd_describe(out_dir, quick, only):
    # Only the bundles that were made (a case that failed to compile is
    # reported by make-bundle.sh and left out here).
    made = [c for c in select(cases(quick), only)
            if os.path.exists(os.path.join(out_dir, c["id"], "manifest.json"))]
    rows = describe(made)
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump({"quick": quick, "tests": rows}, f, indent=1)
        f.write("\n")


def main(argv):
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            sys.exit("cases.py: --only needs a regular expression")
        only = argv[i + 1]
        del argv[i:i + 2]
    if argv[:1] == ["list"] and len(argv) == 1:
        cmd_list(quick, only)
    elif argv[:1] == ["add-tests"] and len(argv) == 3:
        cmd_add_tests(argv[1], argv[2], quick)
    elif argv[:1] == ["describe"] and len(argv) == 2:
        cmd_describe(argv[1], quick, only)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
