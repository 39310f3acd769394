"""tilec.runtime: bundles without the compiler, devices, buffers, weights."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tilec
import tilec.runtime as rt
from conftest import poisoned


def test_bundle_of_a_compiled_kernel(examples, rng):
    add = tilec.compile(f"{examples}/vector_add.tile", BLOCK=64)
    bundle = rt.load_bundle(add.bundle_dir)
    assert "vector_add" in bundle and list(bundle) == ["vector_add"]
    x = rng.standard_normal(77).astype(np.float32)
    z = poisoned(77, np.float32)
    bundle["vector_add"](x, x, z)
    np.testing.assert_allclose(z, 2 * x.astype(np.float64), rtol=1e-6)
    with pytest.raises(tilec.Error, match="no kernel named 'nope'.*it has: vector_add"):
        bundle["nope"]
    with pytest.raises(tilec.Error, match="manifest.json"):
        rt.load_bundle("/nonexistent")


def test_runtime_without_the_compiler(examples, tmp_path):
    # A machine without LLVM: tilec._jit cannot be imported. tilec.runtime
    # still loads bundles; tilec.compile says why it cannot compile.
    add = tilec.compile(f"{examples}/vector_add.tile")
    script = f"""
import sys
sys.modules["tilec._jit"] = None  # importing it fails, as without LLVM
import numpy as np
import tilec, tilec.runtime as rt
k = rt.load_bundle({add.bundle_dir!r})["vector_add"]
x = np.arange(10, dtype=np.float32); z = np.zeros(10, np.float32)
k(x, x, z)
assert (z == 2 * x).all()
try:
    tilec.compile("kernel k() grid(1) warps 1 {{}}")
except tilec.Error as e:
    assert "has no compiler" in str(e), e
    print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_devices_and_buffers():
    host = tilec.Device.open("host")
    assert host.platform == "host" and host.compute_units >= 1
    b = host.allocate(16)
    assert b.nbytes == 16 and b.address % 256 == 0
    b.upload(np.arange(4, dtype=np.float32))
    assert np.frombuffer(b.download(), np.float32).tolist() == [0, 1, 2, 3]
    with pytest.raises(tilec.Error, match="upload of 32 bytes into a buffer of 16"):
        b.upload(np.zeros(8, np.float32))
    emu = tilec.Device.open("cuda-emu")
    assert emu.compute_units == 132 and emu.arch.startswith("sm_")
    with pytest.raises(tilec.Error):
        tilec.Device.open("tpu")


def plain_pack(codes, bits):
    """An LSB-first bit stream written one bit at a time."""
    out = bytearray((len(codes) * bits + 7) // 8)
    for i, c in enumerate(codes):
        for b in range(bits):
            if (int(c) >> b) & 1:
                pos = i * bits + b
                out[pos // 8] |= 1 << (pos % 8)
    return bytes(out)


@pytest.mark.parametrize("bits", [1, 2, 3, 4, 5, 6, 7, 8])
def test_code_streams_and_operand_order(rng, bits):
    K, N = 512, 24
    codes = rng.integers(0, 1 << bits, size=(K, N))
    stream = tilec.pack_codes(codes, bits)
    assert stream.tobytes() == plain_pack(codes.reshape(-1), bits)
    assert (tilec.unpack_codes(stream, bits, K * N) == codes.reshape(-1)).all()
    packed = tilec.pack_weights(stream, bits, K, N)
    assert packed.size == stream.size
    if bits in (1, 2, 4, 8):
        assert packed.tobytes() != stream.tobytes()  # reordered
    assert tilec.unpack_weights(packed, bits, K, N).tobytes() == stream.tobytes()
    # AMD's MFMA order: another arrangement of the same codes, lane group g
    # holding k = 16 x + 4 g + i (checked code by code here).
    mfma = tilec.pack_weights(stream, bits, K, N, order="mfma")
    assert mfma.tobytes() != packed.tobytes()
    back = tilec.unpack_weights(mfma, bits, K, N, order="mfma")
    assert back.tobytes() == stream.tobytes()
    bk = {1: 512, 2: 256, 3: 256, 4: 256}.get(bits, 128)
    flat = tilec.unpack_codes(mfma, bits, K * N)
    n = 5
    for k in (0, 1, 2, 3, 4, 16, 17, 100, K - 1):
        x, g, i = (k % bk) // 16, (k % 16) // 4, k % 4
        d = {1: 16, 2: 8, 4: 4, 8: 2}.get(bits, 4 if bits <= 5 else 2)
        d = min(d, bk // 8) if bits in (1, 2, 4, 8) else d
        reg, p = 2 * x + i // 2, i % 2
        pos = k // bk * bk + g * (bk // 4) + reg // d * 2 * d + p * d + reg % d
        assert flat[n * K + pos] == codes[k, n], (bits, k)
    with pytest.raises(tilec.Error, match="'mfma'"):
        tilec.pack_weights(stream, bits, K, N, order="amd")
    with pytest.raises(tilec.Error, match="needs"):
        tilec.pack_weights(stream[:-1], bits, K, N)
    with pytest.raises(tilec.Error, match="does not fit"):
        tilec.pack_codes([1 << bits], bits)
