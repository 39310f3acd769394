#!/usr/bin/env python3
"""Checks our outputs against PyTorch and times the baselines (GPU side of
bench/run.sh).

  gpu_bench.py --cases CASES_JSON --saved DIR --out DIR
               [--warmup N] [--repeat N] [--flush-mib N | --rotate-mib N]
               [--no-triton]
               [--keep-saved] [--only REGEX] [--deadline UNIX_TIME]

DIR/CASE/ holds what `tile-run --save` wrote for bundle CASE: every tensor of
every test as KERNEL.tI.NAME.npy (inputs as generated, outputs as our kernel
left them; sub-byte and small-float codes unpacked, one per element). For
each benchmark test this script
  1. recomputes the output with PyTorch in float32/float64 from the very same
     inputs and compares (relative Frobenius error, NaN never passes) ->
     checks.csv (case,test,status,rel_err,note);
  2. times the baselines on those inputs the way tile-run times ours (warm-up,
     then N launches each between CUDA events, a 256 MiB scratch buffer
     overwritten before each; or, with --rotate-mib, N windows of launches
     back to back over copies of the operands, plus a copy of the test's
     bytes timed alike for the memory-bound families) -> baselines.csv;
and measures the device's copy bandwidth and f16 matmul rate (the
ceilings of the roofline column) -> device.json.
Exit status: 0, 1 when a check failed, 77 when PyTorch/CUDA (or Triton,
unless --no-triton) is missing.
"""

import argparse
import csv
import datetime
import json
import math
import os
import re
import subprocess
import sys
import time

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:  # pragma: no cover - depends on the machine
    print("SKIPPED: the baselines need numpy and PyTorch (%s)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import codes  # noqa: E402

if not torch.cuda.is_available():
    print("SKIPPED: PyTorch sees no CUDA device")
    sys.exit(77)

# float32 references must not use TF32.
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

DEV = torch.device("cuda")

# Normwise relative error allowed per family (bench/cases.py).
TOLERANCE = cases.CHECK_TOLERANCE


# --------------------------------------------------------------------------
# Timing: the method of tile-run (runtime/tools/tile-run.cpp)
# --------------------------------------------------------------------------

class Timer:
    """Times fn(*args): warm-up, then `repeat` launches each between CUDA
    events after overwriting `flush_mib` of scratch memory; or, with
    `rotate_mib`, `repeat` windows of launches back to back over copies of
    the tensors in args that fill rotate_mib (one CUDA graph per window,
    the time per launch) -- tile-run's --flush-l2 and --rotate."""

    def __init__(self, warmup, repeat, flush_mib, rotate_mib=0):
        self.warmup, self.repeat = warmup, repeat
        self.rotate_bytes = rotate_mib << 20
        self.scratch = torch.empty(flush_mib << 20, dtype=torch.uint8,
                                   device=DEV) if flush_mib else None

    def __call__(self, fn, *args):
        if self.rotate_bytes:
            return self._rotating(fn, args)
        for _ in range(self.warmup):
            fn(*args)
        torch.cuda.synchronize()

        def flush(i):
            if self.scratch is not None:
                self.scratch.fill_(i & 0xFF)
        return _summary(self._event_times(lambda: fn(*args), flush))

    def _event_times(self, run, before=None):
        """`repeat` runs of run(), each between two CUDA events (before(i)
        queued ahead of the first event); the times in ms."""
        starts = [torch.cuda.Event(enable_timing=True)
                  for _ in range(self.repeat)]
        ends = [torch.cuda.Event(enable_timing=True)
                for _ in range(self.repeat)]
        for i in range(self.repeat):
            if before:
                before(i)
            starts[i].record()
            run()
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]

    def _rotating(self, fn, args):
        nbytes = sum(a.numel() * a.element_size() for a in args
                     if torch.is_tensor(a))
        n = cases.rotating_sets(nbytes, self.rotate_bytes)
        sets = [args] + [tuple(a.clone() if torch.is_tensor(a) else a
                               for a in args) for _ in range(n - 1)]
        # Graph capture wants its work warmed up on a side stream first.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(max(self.warmup, n)):
                fn(*sets[i % n])
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph, how = torch.cuda.CUDAGraph(), "graph"
        try:
            with torch.cuda.graph(graph):
                for a in sets:
                    fn(*a)
            window = graph.replay
        except Exception:  # not capturable: queue the window from Python
            torch.cuda.synchronize()
            how = "stream"

            def window():
                for a in sets:
                    fn(*a)
        window()
        torch.cuda.synchronize()
        r = _summary([t / n for t in self._event_times(window)])
        r["note"] = "%d sets, %s" % (n, how)
        return r


def _summary(t):
    t = sorted(t)
    return {"median_ms": _quantile(t, 0.5), "p10_ms": _quantile(t, 0.1),
            "p90_ms": _quantile(t, 0.9), "runs": len(t)}


def _quantile(v, q):
    pos = q * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


# --------------------------------------------------------------------------
# Decoding saved tensors
# --------------------------------------------------------------------------

def _small_float_table(dtype):
    return torch.tensor(codes.small_float_values(*codes.small_float_format(dtype)),
                        dtype=torch.float32, device=DEV)


def decode(array, dtype):
    """A saved tensor of \\p dtype as float32 values on the GPU."""
    if dtype == "bf16":  # saved as codes, as the small floats
        array = codes.bf16_to_f32(array)
    t = torch.from_numpy(np.ascontiguousarray(array)).to(DEV)
    if dtype in ("f16", "f32", "bf16", "i8", "u8", "i32"):
        return t.float()
    if codes.small_float_format(dtype):
        return _small_float_table(dtype)[t.long()]
    bits = int(dtype[1:])
    c = t.long()
    if dtype[0] == "i":  # two's complement, as codes.integer_value
        c = torch.where(c >= (1 << (bits - 1)), c - (1 << bits), c)
    return c.float()


class Saved:
    """The saved tensors of one test."""

    def __init__(self, folder, kernel, test):
        self.folder, self.prefix = folder, "%s.t%d." % (kernel, test)

    def raw(self, name):
        return np.load(os.path.join(self.folder, self.prefix + name + ".npy"))

    def tensor(self, name):
        return torch.from_numpy(self.raw(name)).to(DEV)

    def value(self, name, dtype):
        return decode(self.raw(name), dtype)

    def remove(self):
        for f in os.listdir(self.folder):
            if f.startswith(self.prefix):
                os.remove(os.path.join(self.folder, f))


def rel_err(got, want):
    """Relative L2 error of `got` against the float reference `want`. An
    f16 output whose element is infinite where the reference rounded to f16
    is the same infinity is right (the true value is beyond f16's range:
    u8 weights at K = 14336 reach it with the generated data); an infinity
    anywhere else makes the error infinite, a NaN makes it NaN."""
    if got.dtype == torch.float16:
        same_inf = torch.isinf(got) & (got == want.half())
        if same_inf.any():
            got = got.masked_fill(same_inf, 0)
            want = want.masked_fill(same_inf, 0)
    got, want = got.double(), want.double()
    if torch.isnan(got).any():
        return float("nan")
    den = torch.linalg.vector_norm(want).item()
    return torch.linalg.vector_norm(got - want).item() / max(den, 1e-30)


# --------------------------------------------------------------------------
# Families: reference check + baselines
# --------------------------------------------------------------------------

def gemm_f16(t, s, timer, opts):
    """C = A x B in T (f16, or bf16 with -D T=bf16, saved as codes);
    baseline cuBLAS on the same values in T."""
    dtype = t["defines"].get("T", "f16")
    A, B = s.value("A", dtype), s.value("B", dtype)
    want = A @ B
    C = s.tensor("C") if dtype == "f16" else s.value("C", dtype)
    err = rel_err(C, want)
    torch_type = torch.bfloat16 if dtype == "bf16" else torch.float16
    At, Bt = A.to(torch_type), B.to(torch_type)
    base = {"cublas": timer(torch.matmul, At, Bt)}
    return err, "", base


def gemm_f8(t, s, timer, opts):
    """C = A x B x sa x sb with 8-bit float A, B: the float32 product of
    the decoded codes; baselines cuBLAS on the same values in f16 and, where
    this PyTorch has it, torch._scaled_mm on the 8-bit operands."""
    dtype = t["defines"]["T"]
    A, Bt = s.value("A", dtype), s.value("B", dtype)  # B stored N x K
    sa, sb = float(t["scalars"]["sa"]), float(t["scalars"]["sb"])
    want = (A @ Bt.t()) * (sa * sb)
    err = rel_err(s.tensor("C"), want)
    Ah, Bh = A.half(), Bt.t().contiguous().half()
    base = {"cublas-f16": timer(torch.matmul, Ah, Bh)}
    fp8 = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}.get(dtype)
    if fp8 and hasattr(torch, "_scaled_mm") and hasattr(torch, fp8):
        try:
            a8 = A.to(getattr(torch, fp8))
            b8 = Bt.to(getattr(torch, fp8)).t()  # column-major K x N
            one = torch.ones((), device=A.device)
            base["torch-scaled-mm"] = timer(lambda a, b: torch._scaled_mm(
                a, b, scale_a=one, scale_b=one, out_dtype=torch.float16),
                a8, b8)
        except (RuntimeError, TypeError) as e:  # no fp8 GEMM on this GPU
            return err, "torch._scaled_mm: %s" % str(e).split("\n")[0], base
    return err, "", base


def gemm_w8a8(t, s, timer, opts):
    """C = (A x W^T) * sa[m] * sw[n] (+ bias) with int8 A and W (W stored
    N x K): the exact integer product in float64; baselines
    torch._int_mm (cuBLASLt int8, W^T column-major, i32 out: the GEMM
    without our epilogue) and cuBLAS on the same values in f16."""
    A, W = s.tensor("A"), s.tensor("W")
    sa, sw = s.tensor("sa").double(), s.tensor("sw").double()
    want = (A.double() @ W.double().t()) * sa[:, None] * sw[None, :]
    if str(t["defines"].get("BIAS", "false")) == "true":
        want = want + s.tensor("bias").double()[None, :]
    # C is OUT (bf16 unless defined), saved as bf16 codes: read as codes,
    # it compared integers with the product (rel_err 1.03 on the H100,
    # 2026-11-27, with the kernel's own checks exact).
    err = rel_err(s.value("C", t["defines"].get("OUT", "bf16")), want)
    Ah, Wh = A.half(), W.t().contiguous().half()
    base = {"cublas-f16": timer(torch.matmul, Ah, Wh)}
    if hasattr(torch, "_int_mm"):
        try:
            wt = W.t()  # K x N, column-major
            base["torch-int-mm"] = timer(torch._int_mm, A, wt)
        except (RuntimeError, TypeError) as e:  # shape or GPU limits
            return err, "torch._int_mm: %s" % str(e).split("\n")[0], base
    return err, "", base


def _wq_product(t, s):
    """A x dequant(W) in float32 from the saved inputs of a gemm_wq or
    gemm_decode test, and what the baselines need."""
    d = t["defines"]
    wtype, g = d["T"], int(d["G"])
    A, S, Z = s.tensor("A"), s.tensor("S"), s.tensor("Z")
    W = s.value("W", wtype)
    zp = str(d.get("ZP", "true")) == "true"
    Sx = S.float().repeat_interleave(g, 0)
    Zx = Z.float().repeat_interleave(g, 0) if zp else 0
    return A.float() @ ((W - Zx) * Sx), (A, W, S, Z, wtype, g)


def gemm_wq(t, s, timer, opts):
    want, operands = _wq_product(t, s)
    err = rel_err(s.tensor("C"), want)
    note, base = _wq_baselines(s, want, operands, timer, opts)
    return err, note, base


def gemm_decode(t, s, timer, opts):
    """C += A x dequant(W): the reference starts from C as generated
    (tile-run --save writes it as C.in)."""
    product, operands = _wq_product(t, s)
    err = rel_err(s.tensor("C"), product + s.tensor("C.in").float())
    note, base = _wq_baselines(s, product, operands, timer, opts)
    return err, note, base


def gemm_decode_packed(t, s, timer, opts):
    """As gemm_decode, W read from Wp ([N, K], operand order)."""
    d = t["defines"]
    wtype, g, bk = d["T"], int(d["G"]), int(d["BK"])
    Wp = s.value("Wp", wtype)
    n, k = Wp.shape
    bits = int(re.match(r"[a-z]+(\d+)", wtype).group(1))
    kidx = torch.tensor([c + codes.operand_order_k(pos, bk, bits)
                         for c in range(0, k, bk) for pos in range(bk)],
                        device=Wp.device)
    W = torch.empty((k, n), dtype=Wp.dtype, device=Wp.device)
    W[kidx, :] = Wp.t()
    # The codes in [K, N] order for the Triton baseline (u4, i8), which
    # packs them itself.
    codes_kn = None
    if not opts.no_triton and wtype in ("u4", "i8"):
        raw = s.raw("Wp")
        codes_kn = np.empty((k, n), dtype=raw.dtype)
        codes_kn[kidx.cpu().numpy(), :] = raw.T
    A, S, Z = s.tensor("A"), s.tensor("S"), s.tensor("Z")
    zp = str(d.get("ZP", "true")) == "true"
    Sx = S.float().repeat_interleave(g, 0)
    Zx = Z.float().repeat_interleave(g, 0) if zp else 0
    product = A.float() @ ((W - Zx) * Sx)
    err = rel_err(s.tensor("C"), product + s.tensor("C.in").float())
    note, base = _wq_baselines(s, product, (A, W, S, Z, wtype, g), timer,
                               opts, codes_kn)
    return err, note, base


def _wq_baselines(s, want, operands, timer, opts, codes=None):
    """cuBLAS on an f16 weight (dequantized per call, and pre-dequantized)
    and, for u4 / i8, a fused Triton kernel, checked against `want`;
    `codes` are the weight's codes as [K, N] (default: the saved W)."""
    A, W, S, Z, wtype, g = operands
    base = {}
    # Unfused: dequantize the f16 weight, then cuBLAS.
    Wh = W.half()
    Sh = S.repeat_interleave(g, 0)
    Zh = Z.repeat_interleave(g, 0)
    base["torch-dequant+cublas"] = timer(
        lambda a, w, z, sc: torch.matmul(a, (w - z) * sc), A, Wh, Zh, Sh)
    # The f16 model's cost: cuBLAS on a pre-dequantized weight.
    Wd = ((Wh - Zh) * Sh).contiguous()
    base["cublas-f16-weight"] = timer(torch.matmul, A, Wd)
    note = ""
    if not opts.no_triton and wtype in ("u4", "i8"):
        try:
            import triton_wq
            packed = triton_wq.pack(
                s.raw("W") if codes is None else codes, wtype, DEV)
            out = triton_wq.gemm(A, packed, S, Z, wtype, g)
            terr = rel_err(out, want)
            if not terr <= TOLERANCE["gemm_wq"]:
                note = "triton baseline wrong (rel_err %.2g), not timed" % terr
            else:
                base["triton-fused"] = timer(
                    lambda a, w, sc, z: triton_wq.gemm(a, w, sc, z, wtype, g),
                    A, packed, S, Z)
        except Exception as e:  # report, do not hide
            note = "triton baseline failed: %s" % str(e).splitlines()[0]
    return note, base


def attention_fwd(t, s, timer, opts):
    sz, d = t["sizes"], t["defines"]
    causal = str(d.get("CAUSAL", "false")) == "true"
    scale = float(t["scalars"]["scale"])
    Q, K, V = s.tensor("Q"), s.tensor("K"), s.tensor("V")
    rep = sz["H"] // sz["HKV"]
    Kx, Vx = K.repeat_interleave(rep, 1), V.repeat_interleave(rep, 1)
    want = F.scaled_dot_product_attention(Q.float(), Kx.float(), Vx.float(),
                                          is_causal=causal, scale=scale)
    err = rel_err(s.tensor("O"), want)
    # GQA as such, and on K/V expanded to every head (the flash backend
    # takes that form on every PyTorch version).
    base = {"sdpa-gqa": timer(lambda q, k, v: F.scaled_dot_product_attention(
        q, k, v, is_causal=causal, scale=scale, enable_gqa=True), Q, K, V)}
    Kh, Vh = Kx.contiguous(), Vx.contiguous()
    base["sdpa-expanded-kv"] = timer(
        lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, is_causal=causal, scale=scale), Q, Kh, Vh)
    return err, "", base


def softmax(t, s, timer, opts):
    x = s.tensor("x")
    want = torch.softmax(x.double(), dim=-1)
    err = rel_err(s.tensor("y"), want)
    base = {"torch.softmax": timer(torch.softmax, x, -1)}
    return err, "", base


def rmsnorm_quant(t, s, timer, opts):
    qtype = t["defines"]["T"]
    bits = int(qtype[1:])
    qmax = float((1 << (bits - 1)) - 1)
    eps = float(t["scalars"]["eps"])
    x, w = s.tensor("x"), s.tensor("w")
    xd = x.double()
    y = xd * torch.rsqrt((xd * xd).mean(1, keepdim=True) + eps) * w.double()
    scale = torch.clamp(y.abs().amax(1) / qmax, min=1e-8)
    want_q = torch.clamp(torch.round(y / scale[:, None]), -qmax - 1, qmax)
    got_q = s.value("q", qtype)
    got_s = s.tensor("scale").double()
    serr = rel_err(got_s, scale)
    # f32 in the kernel vs float64 here: a value next to a rounding
    # boundary may land on the neighbouring code, never further.
    diff = (got_q.double() - want_q).abs()
    off = int((diff > 0).sum().item())
    note = "%d codes off by one" % off if off else ""
    if diff.max().item() > 1 or off > diff.numel() // 1000 or serr > 1e-5:
        note = "q off by up to %g (%d codes), scale rel_err %.2g" % (
            diff.max().item(), off, serr)
        return float("inf"), note, {}
    def torch_rmsnorm_quant(xs, ws):
        xf = xs.float()
        yy = F.rms_norm(xf, (xf.shape[1],), ws.float(), eps)
        sc = torch.clamp(yy.abs().amax(1, keepdim=True) / qmax, min=1e-8)
        return torch.clamp(torch.round(yy / sc), -qmax - 1, qmax).to(
            torch.int8), sc

    base = {"torch-unfused": timer(torch_rmsnorm_quant, x, w)}
    return serr, note, base


def vector_add(t, s, timer, opts):
    x, y = s.tensor("x"), s.tensor("y")
    err = rel_err(s.tensor("z"), x.double() + y.double())
    base = {"torch.add": timer(torch.add, x, y)}
    return err, "", base


FAMILIES = {"gemm_f16": gemm_f16, "gemm_f8": gemm_f8,
            "gemm_w8a8": gemm_w8a8, "gemm_wq": gemm_wq,
            "gemm_decode": gemm_decode,
            "gemm_decode_packed": gemm_decode_packed,
            "attention_fwd": attention_fwd, "softmax": softmax,
            "rmsnorm_quant": rmsnorm_quant, "vector_add": vector_add}


# --------------------------------------------------------------------------
# Device ceilings
# --------------------------------------------------------------------------

def _smi(query):
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return "nvidia-smi failed: %s" % e


def device_info(timer):
    n = 1 << 28  # 1 GiB of f32: far beyond L2
    a = torch.randn(n, device=DEV)
    b = torch.empty_like(a)
    copy = timer(lambda src, dst: dst.copy_(src), a, b)
    copy_gbs = 2 * 4 * n / (copy["median_ms"] * 1e6)
    del a, b
    m = 8192
    x = torch.randn(m, m, device=DEV, dtype=torch.float16)
    y = torch.randn(m, m, device=DEV, dtype=torch.float16)
    mm = timer(torch.matmul, x, y)
    tflops = 2.0 * m ** 3 / (mm["median_ms"] * 1e9)
    del x, y
    try:
        import triton
        tv = triton.__version__
    except ImportError:
        tv = "not installed"
    p = torch.cuda.get_device_properties(0)
    return {
        "name": torch.cuda.get_device_name(0),
        "sms": p.multi_processor_count,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"),
        "driver": _smi("driver_version"),
        "versions": "torch %s (CUDA %s), triton %s" % (
            torch.__version__, torch.version.cuda, tv),
        "clocks": _smi("clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,"
                       "power.draw"),
        "copy_gbs": round(copy_gbs, 1),
        "matmul_tflops": round(tflops, 1),
        "method": method_text(timer),
    }


def method_text(timer):
    if timer.rotate_bytes:
        return ("warm-up %d, %d timed windows of launches back to back over "
                "copies of the operands filling %d MiB (time per launch; "
                "baselines as CUDA graphs); clocks as found" % (
                    timer.warmup, timer.repeat, timer.rotate_bytes >> 20))
    return ("warm-up %d, %d timed launches, %d MiB scratch overwritten "
            "before each (L2 flush); clocks as found" % (
                timer.warmup, timer.repeat,
                0 if timer.scratch is None else timer.scratch.numel() >> 20))


# The families whose rotating runs also time a copy of their bytes.
SAME_BYTES_COPY = ("gemm_wq", "gemm_decode", "gemm_decode_packed",
                   "vector_add")


def same_bytes_copy(t, timer):
    """A device copy of half the test's minimum bytes (read + written: all
    of them), timed the way the test is: what a kernel that only moves its
    bytes would take under the same method."""
    n = max(1, int(t["bytes"]) // 2)
    src = torch.ones(n, dtype=torch.uint8, device=DEV)
    dst = torch.empty_like(src)
    return timer(lambda a, b: b.copy_(a), src, dst)


def roofline_ms(t, dev):
    if t["family"] in ("gemm_f16", "attention_fwd"):
        return max(t["flops"] / (dev["matmul_tflops"] * 1e9),
                   t["bytes"] / (dev["copy_gbs"] * 1e6))
    return t["bytes"] / (dev["copy_gbs"] * 1e6)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", required=True)
    p.add_argument("--saved", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--flush-mib", type=int, default=256)
    p.add_argument("--rotate-mib", type=int, default=0,
                   help="time windows of launches over copies of the "
                        "operands filling N MiB (tile-run --rotate) instead "
                        "of flushing the L2 cache")
    p.add_argument("--no-triton", action="store_true")
    p.add_argument("--keep-saved", action="store_true")
    p.add_argument("--only", help="only the cases whose id matches")
    p.add_argument("--deadline", type=float, default=0,
                   help="Unix time after which the remaining tests are "
                        "skipped (status 'skipped'), 0: none")
    opts = p.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if not opts.no_triton:
        try:
            import triton  # noqa: F401
        except ImportError:
            print("SKIPPED: Triton is missing (pass --no-triton to run "
                  "without its baseline)")
            return 77
    with open(opts.cases) as f:
        cases = json.load(f)
    timer = Timer(opts.warmup, opts.repeat,
                  0 if opts.rotate_mib else opts.flush_mib, opts.rotate_mib)
    dev = device_info(timer)
    with open(os.path.join(opts.out, "device.json"), "w") as f:
        json.dump(dev, f, indent=1)
    print("device: %s, copy %.0f GB/s, f16 matmul %.0f TFLOP/s" % (
        dev["name"], dev["copy_gbs"], dev["matmul_tflops"]))
    failed = 0
    with open(os.path.join(opts.out, "checks.csv"), "w", newline="") as fc, \
            open(os.path.join(opts.out, "baselines.csv"), "w",
                 newline="") as fb:
        checks, bases = csv.writer(fc), csv.writer(fb)
        checks.writerow(["case", "test", "status", "rel_err", "note"])
        bases.writerow(["case", "test", "baseline", "median_ms", "p10_ms",
                        "p90_ms", "runs", "note"])
        only = re.compile(opts.only) if opts.only else None
        for t in cases["tests"]:
            if only and not only.search(t["case"]):
                continue
            folder = os.path.join(opts.saved, t["case"])
            s = Saved(folder, t["kernel"], t["test"])
            label = "%s[%s]" % (t["case"], " ".join(
                "%s=%s" % kv for kv in sorted(t["sizes"].items())))
            why = ""
            if not os.path.isdir(folder):
                why = "not run (run.sh skipped its check)"
            elif opts.deadline and time.time() > opts.deadline:
                why = "out of the run's time budget"
            if why:
                checks.writerow([t["case"], t["test"], "skipped", "", why])
                print("SKIP %s: %s" % (label, why))
                if not opts.keep_saved and os.path.isdir(folder):
                    s.remove()
                continue
            try:
                err, note, base = FAMILIES[t["family"]](t, s, timer, opts)
            except FileNotFoundError as e:
                err, note, base = float("nan"), "no saved output: %s" % (
                    e.filename), {}
            except Exception as e:  # one broken test must not hide the rest
                err, note, base = float("nan"), "%s: %s" % (
                    type(e).__name__, str(e).splitlines()[0] if str(e)
                    else ""), {}
            tol = TOLERANCE[t["family"]]
            ok = err == err and err <= tol
            status = "pass" if ok else "fail"
            failed += not ok
            checks.writerow([t["case"], t["test"], status, "%.3g" % err,
                             note])
            if timer.rotate_bytes and t["family"] in SAME_BYTES_COPY:
                base["copy-same-bytes"] = same_bytes_copy(t, timer)
            for name, r in base.items():
                bases.writerow([t["case"], t["test"], name,
                                "%.6g" % r["median_ms"], "%.6g" % r["p10_ms"],
                                "%.6g" % r["p90_ms"], r["runs"],
                                r.get("note", "")])
            bases.writerow([t["case"], t["test"], "roofline",
                            "%.6g" % roofline_ms(t, dev), "", "", "", ""])
            fc.flush()
            fb.flush()
            print("%s %s: rel_err %.3g%s%s" % (
                "PASS" if ok else "FAIL", label, err,
                " (%s)" % note if note else "",
                "".join(", %s %.4f ms" % (n, r["median_ms"])
                        for n, r in base.items())))
            if not opts.keep_saved and os.path.isdir(folder):
                s.remove()
            torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
