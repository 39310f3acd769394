"""A Triton dequantize-in-the-loop GEMM: the reference point for gemm_wq.

C[M, N] = A[M, K] @ ((W[K, N] - Z[K / G, N]) * S[K / G, N]), A, S, Z, C in
f16, W as u4 (two codes per byte along N, low nibble first: the dense bit
stream of tilec's bundles) or i8. Written for bench/gpu_bench.py; needs
Triton and a CUDA device.
"""

import numpy as np
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 16, "BN": 64, "BK": 64}, num_warps=4,
                      num_stages=4),
        triton.Config({"BM": 16, "BN": 128, "BK": 128}, num_warps=4,
                      num_stages=3),
        triton.Config({"BM": 32, "BN": 128, "BK": 64}, num_warps=4,
                      num_stages=3),
    ],
    key=["M", "N", "K", "BITS"],
)
@triton.jit
def _wq_kernel(A, W, S, Z, C, M, N, K, G: tl.constexpr, BITS: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=rm[:, None] < M,
                    other=0.0)
        if BITS == 4:
            byte = tl.load(W + kk[:, None] * (N // 2) + (rn // 2)[None, :])
            w = ((byte >> ((rn % 2) * 4)[None, :].to(tl.uint8)) & 0xF).to(
                tl.float16)
        else:
            w = tl.load(W + kk[:, None] * N + rn[None, :]).to(tl.float16)
        g = kk // G
        s = tl.load(S + g[:, None] * N + rn[None, :])
        z = tl.load(Z + g[:, None] * N + rn[None, :])
        acc = tl.dot(a, (w - z) * s, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=rm[:, None] < M)


def pack(codes, wtype, device):
    """Saved codes (one per element, [K, N]) in the kernel's layout."""
    codes = np.ascontiguousarray(codes)
    if wtype == "u4":
        c = codes.astype(np.uint8)
        packed = (c[:, 0::2] | (c[:, 1::2] << 4)).astype(np.uint8)
        return torch.from_numpy(packed).to(device)
    if wtype == "i8":
        return torch.from_numpy(codes.astype(np.int8)).to(device)
    raise ValueError("no Triton baseline for " + wtype)


def gemm(a, w, s, z, wtype, group):
    """Runs the kernel; N must be a multiple of 128 and K of the group."""
    m, k = a.shape
    n = s.shape[1]
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    bits = 4 if wtype == "u4" else 8

    def grid(meta):
        return (triton.cdiv(n, meta["BN"]), triton.cdiv(m, meta["BM"]))

    _wq_kernel[grid](a, w, s, z, c, m, n, k, G=group, BITS=bits)
    return c
