"""Calling kernels: tensors from numpy, DLPack and torch-like objects, types
numpy has no name for as their storage, the emulators, argument errors."""

import warnings

import numpy as np
import pytest

import tilec
from conftest import poisoned


@pytest.fixture(scope="module")
def add(examples):
    return tilec.compile(f"{examples}/vector_add.tile", BLOCK=128)


def to_bf16_bits(x):
    """float32 -> bfloat16 codes (uint16), round to nearest even."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def test_u4_weights_as_uint8_storage(examples, rng):
    # gemm_wq with u4 codes packed two per byte: the shape of W comes from
    # the signature ([K, N], K from A, N from C).
    M, K, N, G = 3, 256, 96, 64
    k = tilec.compile(f"{examples}/gemm_wq.tile", T="u4", G=G, BN=64, BK=64)
    codes = rng.integers(0, 16, size=(K, N))
    w = tilec.pack_codes(codes, 4)
    assert w.dtype == np.uint8 and w.size == K * N // 2
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    s = rng.uniform(0.01, 0.1, (K // G, N)).astype(np.float16)
    z = rng.integers(0, 16, (K // G, N)).astype(np.float16)
    c = poisoned((M, N), np.float16)
    k(a, w, s, z, c)
    deq = (codes - np.repeat(z.astype(np.float64), G, axis=0)) * np.repeat(s.astype(np.float64), G, axis=0)
    ref = a.astype(np.float64) @ deq
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())
    # Too little storage is refused before anything runs.
    with pytest.raises(tilec.Error, match=r"tensor W u4\[256, 96\] needs 12288 bytes but its buffer has 12287"):
        k(a, w[:-1], s, z, c)


def test_bf16_as_uint16_storage(examples, rng):
    k = tilec.compile(f"{examples}/swiglu.tile", BM=16, BF=64)
    M, F = 5, 100
    h = to_bf16_bits(rng.standard_normal((M, 2 * F)))
    out = poisoned((M, F), np.uint16)
    k(h, out)
    gate, up = from_bf16_bits(h[:, :F]), from_bf16_bits(h[:, F:])
    ref = gate / (1 + np.exp(-gate)) * up
    np.testing.assert_allclose(from_bf16_bits(out), ref, rtol=2e-2, atol=1e-2)


class DLPackOnly:
    """A producer known only by __dlpack__ (as cupy or jax arrays are)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()


class TorchLike:
    """The attribute surface of a CPU torch.Tensor over a numpy array."""

    class _DType:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return self.name

    class _Device:
        type = "cpu"
        index = None

    _names = {np.float32: "torch.float32", np.float16: "torch.float16", np.int32: "torch.int32"}

    def __init__(self, a):
        self.a = a
        self.dtype = TorchLike._DType(self._names[a.dtype.type])
        self.device = TorchLike._Device()
        self.shape = a.shape

    is_cpu, is_cuda = True, False

    def data_ptr(self):
        return self.a.ctypes.data

    def is_contiguous(self):
        return self.a.flags.c_contiguous

    def stride(self):
        return tuple(s // self.a.itemsize for s in self.a.strides)


def test_dlpack_and_torch_like_tensors(add, rng):
    x = rng.standard_normal(300).astype(np.float32)
    y = rng.standard_normal(300).astype(np.float32)
    z = poisoned(300, np.float32)
    add(DLPackOnly(x), TorchLike(y), TorchLike(z))
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)
    with pytest.raises(tilec.Error, match=r"argument 0 \(x\): expected a tensor of f32 but got f16"):
        add(TorchLike(x.astype(np.float16)), y, z)


def test_argument_errors(add):
    x = np.ones(64, np.float32)
    z = np.zeros(64, np.float32)
    with pytest.raises(tilec.Error, match="dimension N is 64 in x but 63 in y"):
        add(x, x[:63].copy(), z)
    with pytest.raises(tilec.Error, match=r"format 'd' has no tile type"):
        add(x.astype(np.float64), x, z)
    with pytest.raises(tilec.Error, match="not dense row-major"):
        add(np.ones(128, np.float32)[::2], x, z)
    ro = np.zeros(64, np.float32)
    ro.flags.writeable = False
    with pytest.raises(tilec.Error, match=r"argument 2 \(z\): the kernel writes it but it is read-only"):
        add(x, x, ro)
    with pytest.raises(tilec.Error, match="missing argument 'z'"):
        add(x, x)
    with pytest.raises(tilec.Error, match="expected at most 3 arguments but got 4"):
        add(x, x, z, z)
    with pytest.raises(tilec.Error, match="no parameter or dimension named 'w'"):
        add(x, x, z, w=1)
    with pytest.raises(tilec.Error, match="argument 'x' given twice"):
        add(x, x, z, x=x)
    with pytest.raises(tilec.Error, match=r"argument 0 \(x\): expected a tensor .* but got float"):
        add(1.0, x, z)
    with pytest.raises(tilec.Error, match="dimension N is 64 in the given sizes but 65"):
        add(np.ones(65, np.float32), np.ones(65, np.float32), np.ones(65, np.float32), N=64)
    with pytest.raises(tilec.Error, match="stream: expected None, an int"):
        add(x, x, z, stream="s")


@pytest.mark.parametrize("target,device", [("sm_90a", "cuda-emu"), ("gfx942", "hip-emu")])
def test_emulators_stage_host_arrays(examples, rng, target, device):
    # GPU code on the CPU emulators: host arrays are copied into the
    # emulator's checked buffers and the outputs back.
    k = tilec.compile(f"{examples}/softmax.tile", target=target, device=device, COLS=128)
    assert k.device == device and k.object_kind in ("nvemu-so", "amdemu-so")
    x = rng.standard_normal((9, 100)).astype(np.float16)
    y = poisoned((9, 100), np.float16)
    k(x, y)
    xf = x.astype(np.float64)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), e / e.sum(axis=1, keepdims=True), rtol=1e-2, atol=1e-3)


def check_gemm(k, rng, m, kdim, n):
    """Runs gemm_f16 kernel k on fresh random f16 operands (m x kdim, kdim x
    n) into a poisoned output and checks it against float64."""
    a = rng.standard_normal((m, kdim)).astype(np.float16)
    b = rng.standard_normal((kdim, n)).astype(np.float16)
    c = poisoned((m, n), np.float16)
    k(a, b, c)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=1e-2, atol=0.05)


def test_tma_copies_on_the_emulator(examples, rng):
    # tma=True: gemm_f16's operands are copied by TMA (the kernel takes
    # tensor maps the runtime encodes at launch), checked against float64;
    # rows that are no multiple of 16 bytes run the kernel's copy compiled
    # without TMA (tile-clone-fallbacks), checked the same way.
    k = tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu",
                      tma=True, W=4, WS=False, BN=64, BK=64)
    check_gemm(k, rng, 70, 136, 72)
    check_gemm(k, rng, 70, 100, 72)  # rows of 200 bytes: the fallback


def test_warp_specialized_gemm_on_the_emulator(examples, rng):
    # warp_specialize=True: a producer warpgroup issues the TMA copies and
    # the kernel launches 4 more warps; checked against float64.
    k = tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu",
                      warp_specialize=True, W=4, WS=False, BN=64, BK=64)
    check_gemm(k, rng, 70, 200, 72)


def test_persistent_gemm_on_the_emulator(examples, rng, monkeypatch):
    # persistent=True: 2 programs (TILE_PERSISTENT_PROGRAMS) run the 6 of
    # the grid; checked against float64.
    monkeypatch.setenv("TILE_PERSISTENT_PROGRAMS", "2")
    k = tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu",
                      persistent=True, W=4, WS=False, BN=64, BK=64)
    check_gemm(k, rng, 200, 136, 130)


def test_dependent_launch_on_the_emulator(examples, rng):
    # dependent_launch=True: the kernel prefetches its pipeline's first
    # blocks into L2 and then waits for the grids before it (the emulator
    # checks each prefetch's address; the wait is a no-op there, one grid
    # at a time); its results are unchanged, checked against float64, and
    # it says so.
    k = tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu",
                      dependent_launch=True, W=4, WS=False, BN=64, BK=64)
    assert k.dependent_launch
    assert not tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu",
                             W=4, WS=False, BN=64, BK=64).dependent_launch
    check_gemm(k, rng, 70, 136, 72)


def test_compile_warnings(examples):
    # A kernel that compiles with a warning (a 128x256 accumulator over 4
    # warps: the loop will spill) warns with tilec.CompileWarning, its
    # location first; the default tile compiles quietly.
    with pytest.warns(tilec.CompileWarning, match=r"gemm_f16.tile:13:15: warning: .* will spill"):
        k = tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu", W=4, WS=False, BN=256)
    assert "accumulator" in k.warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tilec.compile(f"{examples}/gemm_f16.tile", target="sm_90a", device="cuda-emu").warnings == ""


def test_gpu_kernel_compiles_without_a_gpu(examples, rng):
    # Compiling and inspecting need no device; the first call loads it.
    k = tilec.compile(f"{examples}/vector_add.tile", target="sm_90a")
    assert k.target == "sm_90a" and k.device == "cuda"
    assert k.object_kind in ("cubin", "ptx") and k.registers > 0
    x = rng.standard_normal(1000).astype(np.float32)
    z = poisoned(1000, np.float32)
    try:
        arch = tilec.Device.open("cuda").arch
    except tilec.Error:
        arch = None
    if arch != "sm_90":
        # No H100 here: the first call says why it cannot run.
        with pytest.raises(tilec.Error, match="CUDA|cannot run"):
            k(x, x, z)
        return
    k(x, x, z)  # host arrays staged through the GPU
    np.testing.assert_allclose(z, 2 * x.astype(np.float64), rtol=1e-6)
