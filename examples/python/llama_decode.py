#!/usr/bin/env python3
"""One Llama-style decoder layer at decode time, built from tilec kernels.

    python examples/python/llama_decode.py               # PyTorch on a GPU
    python examples/python/llama_decode.py --backend numpy --small   # CPU
    python examples/python/llama_decode.py --make-bundle out/llama --target sm_90a
    python examples/python/llama_decode.py --bundle out/llama   # GPU, runtime only

Per token: RMSNorm -> QKV projection (u4 weights, groups of 128, zero
points) -> rotary embedding of q and k -> append k, v to the KV cache ->
attention over the cache (grouped-query) -> O projection -> residual ->
RMSNorm -> gate/up projection -> SwiGLU -> down projection -> residual.
The GEMMs are examples/gemm_wq.tile, the rest examples/python/
llama_layer.tile; the glue (slicing, the cache append) is PyTorch or numpy.

The layer is checked against a plain implementation of the same math on
the dequantized weights (float64 numpy, or float32 PyTorch on the GPU),
and on a GPU timed per token against the PyTorch f16 layer with the
dequantized f16 weights (torch.matmul and SDPA) in the same run.
"""

import argparse
import math
import os
import shutil
import sys
import time

import numpy as np

import tilec

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)

LLAMA3_8B = dict(dim=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, context=1024)
SMALL = dict(dim=256, heads=4, kv_heads=2, head_dim=64, ffn=512, context=37)
GROUP = 128


class Numpy:
    """Host arrays and the host target."""

    name, target, device = "numpy", "host", "host"

    def __init__(self):
        self.xp = np

    def array(self, a):
        return np.array(a, order="C", copy=True)  # the layer writes in place

    def empty(self, shape, dtype):
        return np.empty(shape, dtype=dtype)

    def numpy(self, a):
        return np.asarray(a)

    def sync(self):
        pass


class Torch:
    """CUDA tensors, the GPU's target, PyTorch's current stream."""

    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        major, minor = torch.cuda.get_device_capability()
        self.target = f"sm_{major}{minor}" + ("a" if major == 9 else "")
        self.device = "cuda"

    def array(self, a):
        return self.torch.from_numpy(np.ascontiguousarray(a)).cuda()

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=getattr(self.torch, np.dtype(dtype).name), device="cuda")

    def numpy(self, a):
        return a.cpu().numpy()

    def sync(self):
        self.torch.cuda.synchronize()


def quantize(rng, k, n):
    """Random u4 weights [k, n]: codes, scales and zero points per group."""
    codes = rng.integers(0, 16, size=(k, n))
    scale = (rng.uniform(0.5, 1.5, (k // GROUP, n)) / (4.6 * math.sqrt(k))).astype(np.float16)
    zero = np.full((k // GROUP, n), 8, dtype=np.float16)
    dense = (codes - np.repeat(zero.astype(np.float64), GROUP, 0)) * np.repeat(scale.astype(np.float64), GROUP, 0)
    return dict(w=tilec.pack_codes(codes, 4), s=scale, z=zero, dense=dense)


def make_layer(rng, c):
    qkv_n = (c["heads"] + 2 * c["kv_heads"]) * c["head_dim"]
    return dict(
        attn_norm=(1 + 0.1 * rng.standard_normal(c["dim"])).astype(np.float16),
        ffn_norm=(1 + 0.1 * rng.standard_normal(c["dim"])).astype(np.float16),
        qkv=quantize(rng, c["dim"], qkv_n),
        o=quantize(rng, c["heads"] * c["head_dim"], c["dim"]),
        gate_up=quantize(rng, c["dim"], 2 * c["ffn"]),
        down=quantize(rng, c["ffn"], c["dim"]),
    )


def rope_tables(pos, head_dim, theta=500000.0):
    half = head_dim // 2
    freq = theta ** (-np.arange(half, dtype=np.float64) / half)
    return np.cos(pos * freq).astype(np.float32), np.sin(pos * freq).astype(np.float32)


def kernel_specs(c):
    """(name, source, kernel, compile-time parameters) of every kernel."""
    src = os.path.join(HERE, "llama_layer.tile")
    return [
        ("rmsnorm", src, "rmsnorm", dict(COLS=1 << (c["dim"] - 1).bit_length())),
        ("rope", src, "rope", dict(HALF=c["head_dim"] // 2)),
        ("attn", src, "attn_decode", dict(D=c["head_dim"])),
        ("swiglu", src, "swiglu", {}),
        ("add", src, "residual_add", {}),
        ("gemm", os.path.join(EXAMPLES, "gemm_wq.tile"), "gemm_wq", dict(T="u4", G=GROUP)),
    ]


def load_kernels(be, c, bundle=None):
    """The layer's kernels: compiled for the backend's target, or, with
    `bundle` (made by --make-bundle on a machine with the compiler), loaded
    from it: a GPU machine needs only the runtime (pip install . -C
    cmake.define.TILE_RUNTIME_ONLY=ON)."""
    kernels = {}
    for name, src, kernel, constants in kernel_specs(c):
        if bundle:
            kernels[name] = tilec.load_bundle(os.path.join(bundle, name), be.device)[kernel]
        else:
            kernels[name] = tilec.compile(src, kernel, target=be.target, device=be.device, **constants)
    return kernels


def make_bundle(c, target, out):
    """Compiles every kernel for `target` into out/NAME (bundle directories)."""
    for name, src, kernel, constants in kernel_specs(c):
        k = tilec.compile(src, kernel, target=target, **constants)
        dst = os.path.join(out, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(k.bundle_dir, dst)
        print(f"{dst}: {k}")


class TilecLayer:
    """The layer as tilec kernels; weights and the KV cache on the backend."""

    def __init__(self, be, c, layer, cache_k, cache_v, bundle=None):
        self.be, self.c = be, c
        for name, kernel in load_kernels(be, c, bundle).items():
            setattr(self, name, kernel)
        self.w = {k: (dict((n, be.array(v[n])) for n in ("w", "s", "z")) if isinstance(v, dict) else be.array(v))
                  for k, v in layer.items()}
        self.k_cache, self.v_cache = be.array(cache_k), be.array(cache_v)

    def linear(self, x, name, n):
        w = self.w[name]
        out = self.be.empty((1, n), np.float16)
        self.gemm(x, w["w"], w["s"], w["z"], out)
        return out

    def __call__(self, x, pos):
        c, be = self.c, self.be
        H, HKV, Dh = c["heads"], c["kv_heads"], c["head_dim"]
        cs, sn = (be.array(t) for t in rope_tables(pos, Dh))
        h = be.empty((1, c["dim"]), np.float16)
        self.rmsnorm(x, self.w["attn_norm"], h, 1e-5)
        qkv = self.linear(h, "qkv", (H + 2 * HKV) * Dh)
        q = qkv[0, : H * Dh].reshape(H, Dh)
        k = qkv[0, H * Dh : (H + HKV) * Dh].reshape(HKV, Dh)
        v = qkv[0, (H + HKV) * Dh :].reshape(HKV, Dh)
        self.rope(q, cs, sn)
        self.rope(k, cs, sn)
        self.k_cache[:, pos] = k
        self.v_cache[:, pos] = v
        o = be.empty((HKV, H // HKV, Dh), np.float16)
        self.attn(q.reshape(HKV, H // HKV, Dh), self.k_cache, self.v_cache, o, pos + 1, 1 / math.sqrt(Dh))
        attn_out = self.linear(o.reshape(1, H * Dh), "o", c["dim"])
        self.add(x.reshape(-1), attn_out.reshape(-1))
        self.rmsnorm(x, self.w["ffn_norm"], h, 1e-5)
        gu = self.linear(h, "gate_up", 2 * c["ffn"])
        a = be.empty((1, c["ffn"]), np.float16)
        self.swiglu(gu, a)
        self.add(x.reshape(-1), self.linear(a, "down", c["dim"]).reshape(-1))
        return x


def reference(x, pos, c, layer, cache_k, cache_v):
    """The same layer in float64 numpy on the dequantized weights."""
    H, HKV, Dh = c["heads"], c["kv_heads"], c["head_dim"]

    def rmsnorm(t, w):
        return t / np.sqrt((t * t).mean(-1, keepdims=True) + 1e-5) * w.astype(np.float64)

    def rope(t):
        cs, sn = (a.astype(np.float64) for a in rope_tables(pos, Dh))
        t1, t2 = t[..., : Dh // 2], t[..., Dh // 2 :]
        return np.concatenate([t1 * cs - t2 * sn, t2 * cs + t1 * sn], -1)

    x = x.astype(np.float64)
    qkv = rmsnorm(x, layer["attn_norm"]) @ layer["qkv"]["dense"]
    q = rope(qkv[0, : H * Dh].reshape(H, Dh))
    k = rope(qkv[0, H * Dh : (H + HKV) * Dh].reshape(HKV, Dh))
    v = qkv[0, (H + HKV) * Dh :].reshape(HKV, Dh)
    kc, vc = cache_k.astype(np.float64).copy(), cache_v.astype(np.float64).copy()
    kc[:, pos], vc[:, pos] = k, v
    kc, vc = np.repeat(kc[:, : pos + 1], H // HKV, 0), np.repeat(vc[:, : pos + 1], H // HKV, 0)
    s = np.einsum("hd,hnd->hn", q, kc) / math.sqrt(Dh)
    p = np.exp(s - s.max(-1, keepdims=True))
    o = np.einsum("hn,hnd->hd", p / p.sum(-1, keepdims=True), vc).reshape(1, H * Dh)
    x = x + o @ layer["o"]["dense"]
    gu = rmsnorm(x, layer["ffn_norm"]) @ layer["gate_up"]["dense"]
    g, u = gu[:, : c["ffn"]], gu[:, c["ffn"] :]
    return x + (g / (1 + np.exp(-g)) * u) @ layer["down"]["dense"]


def torch_f16_layer(be, c, layer, cache_k, cache_v):
    """The PyTorch f16 layer (dequantized weights, matmul and SDPA): the
    speed baseline on a GPU."""
    torch = be.torch
    F = torch.nn.functional
    H, HKV, Dh = c["heads"], c["kv_heads"], c["head_dim"]
    W = {k: torch.from_numpy(v["dense"]).half().cuda() for k, v in layer.items() if isinstance(v, dict)}
    norms = {k: torch.from_numpy(layer[k]).cuda() for k in ("attn_norm", "ffn_norm")}
    kc, vc = torch.from_numpy(cache_k).cuda(), torch.from_numpy(cache_v).cuda()

    def rmsnorm(t, w):
        tf = t.float()
        return (tf * torch.rsqrt(tf.pow(2).mean(-1, keepdim=True) + 1e-5)).half() * w

    def rope(t, cs, sn):
        t1, t2 = t[..., : Dh // 2], t[..., Dh // 2 :]
        return torch.cat([t1 * cs - t2 * sn, t2 * cs + t1 * sn], -1)

    def step(x, pos):
        cs, sn = (torch.from_numpy(a).cuda().half() for a in rope_tables(pos, Dh))
        qkv = rmsnorm(x, norms["attn_norm"]) @ W["qkv"]
        q = rope(qkv[0, : H * Dh].view(H, Dh), cs, sn)
        k = rope(qkv[0, H * Dh : (H + HKV) * Dh].view(HKV, Dh), cs, sn)
        kc[:, pos], vc[:, pos] = k, qkv[0, (H + HKV) * Dh :].view(HKV, Dh)
        o = F.scaled_dot_product_attention(q.view(1, H, 1, Dh), kc[None, :, : pos + 1], vc[None, :, : pos + 1],
                                           enable_gqa=True)
        x = x + o.reshape(1, H * Dh) @ W["o"]
        gu = rmsnorm(x, norms["ffn_norm"]) @ W["gate_up"]
        return x + (F.silu(gu[:, : c["ffn"]]) * gu[:, c["ffn"] :]) @ W["down"]

    return step


def time_per_token(step, be, tokens=20):
    for _ in range(3):
        step()
    be.sync()
    start = time.perf_counter()
    for _ in range(tokens):
        step()
    be.sync()
    return (time.perf_counter() - start) / tokens * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=["torch", "numpy"], default="torch")
    p.add_argument("--small", action="store_true", help="a small layer (CPU-friendly)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--bundle", help="load the kernels from this --make-bundle output")
    p.add_argument("--make-bundle", metavar="DIR", help="compile the kernels into DIR and stop")
    p.add_argument("--target", default="sm_90a", help="--make-bundle's target")
    a = p.parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    c = SMALL if a.small else LLAMA3_8B
    if a.make_bundle:
        make_bundle(c, a.target, a.make_bundle)
        return 0
    be = Torch() if a.backend == "torch" else Numpy()
    print(f"layer {c}, backend {be.name}, target {be.target}, seed {seed}")

    layer = make_layer(rng, c)
    pos = c["context"] - 1  # the new token's position; the cache holds the rest
    cache_shape = (c["kv_heads"], c["context"], c["head_dim"])
    cache_k = rng.standard_normal(cache_shape).astype(np.float16)
    cache_v = rng.standard_normal(cache_shape).astype(np.float16)
    x0 = rng.standard_normal((1, c["dim"])).astype(np.float16)

    model = TilecLayer(be, c, layer, cache_k, cache_v, a.bundle)
    x = be.array(x0)
    model(x, pos)
    be.sync()
    got = be.numpy(x).astype(np.float64)
    ref = reference(x0, pos, c, layer, cache_k, cache_v)
    err = np.abs(got - ref).max() / np.abs(ref).max()
    print(f"largest error relative to the largest output: {err:.2e}")
    if not np.isfinite(got).all() or err > 2e-2:
        print("FAILED: the tilec layer does not match the reference")
        return 1
    if be.name == "torch":
        xt = be.array(x0)
        ms = time_per_token(lambda: model(xt, pos), be)
        step = torch_f16_layer(be, c, layer, cache_k, cache_v)
        x16 = be.array(x0)
        ms16 = time_per_token(lambda: step(x16, pos), be)
        print(f"time per token: tilec u4 {ms:.3f} ms, PyTorch f16 {ms16:.3f} ms ({ms16 / ms:.2f}x)")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
