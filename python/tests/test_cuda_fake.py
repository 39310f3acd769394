"""The CUDA launch path from Python, on the runtime's simulated CUDA driver
(unittests/Runtime/FakeCuda.cpp, loaded through TILE_CUDA_LIBRARY: it
records launches, allocations and synchronizations, and runs `vadd` on the
CPU). Checks what a GPU run cannot show cheaply: a launch on device memory
queues on the given stream with no allocation and no synchronization (what
CUDA graph capture needs), and host arrays are staged."""

import ctypes
import os

import numpy as np
import pytest

import tilec

FAKE = os.environ.get("TILE_CUDA_LIBRARY", "")
if "Fake" not in FAKE:
    pytest.skip("needs TILE_CUDA_LIBRARY set to the simulated driver", allow_module_level=True)

BUNDLE = os.path.join(os.environ.get("TILEC_SOURCE_DIR", ""), "unittests", "Runtime", "Inputs", "launch-bench")


class FakeLaunch(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("set_attribute", ctypes.c_int), ("fill_stream", ctypes.c_void_p),
                ("live_allocations", ctypes.c_int), ("launches", ctypes.c_int), ("allocations", ctypes.c_int),
                ("synchronizations", ctypes.c_int)]


def last():
    lib = ctypes.CDLL(FAKE)  # the same library the runtime loaded
    lib.fakeCudaLastLaunch.restype = ctypes.POINTER(FakeLaunch)
    return lib.fakeCudaLastLaunch().contents


@pytest.fixture(scope="module")
def vadd():
    return tilec.load_bundle(BUNDLE, "cuda")["vadd"]


def test_device_memory_launch_allocates_and_waits_for_nothing(vadd, rng):
    n = 1000
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    tx, ty, tz = (tilec.DeviceArray("cuda", (n,), "f32") for _ in range(3))
    tx.upload(x)
    ty.upload(y)
    tz.upload(np.full(n, np.nan, np.float32))
    vadd(tx, ty, tz)  # loads the module: before counting
    before = last()
    launches, allocations, syncs = before.launches, before.allocations, before.synchronizations
    vadd(tx, ty, tz, stream=0x5EED)
    after = last()
    assert after.launches == launches + 1
    assert after.allocations == allocations and after.synchronizations == syncs
    assert after.stream == 0x5EED and list(after.grid) == [16, 1, 1]
    z = tz.download().view(np.float32)
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)


def test_device_array_checks(rng):
    with pytest.raises(tilec.Error, match="upload of 8 bytes into a f32\\[4\\] tensor of 16"):
        tilec.DeviceArray("cuda", (4,), "f32").upload(np.zeros(2, np.float32))
    with pytest.raises(tilec.Error, match="needs a GPU device, not host"):
        tilec.DeviceArray("host", (4,))
    w = tilec.DeviceArray("cuda", (64, 32), "u4")
    assert w.nbytes == 64 * 32 // 2 and w.stride() == (32, 1)


def test_host_arrays_are_staged(vadd, rng):
    n = 300
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    z = np.full(n, np.nan, np.float32)
    before = last().allocations
    vadd(x, y, z)
    assert last().allocations == before + 3
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)


class OnDevice1(tilec.DeviceArray):
    def get_device(self):
        return 1


def test_tensor_on_another_device_is_refused(vadd):
    t = OnDevice1("cuda", (16,), "f32")
    launches = last().launches
    with pytest.raises(tilec.Error, match=r'argument 0 \(A\): the tensor is on device 1 but the kernel on cuda \(compile with device="cuda:1"\)'):
        vadd(t, t, t)
    assert last().launches == launches


def test_target_of_the_device(examples):
    # target="cuda": the device's architecture (the simulated driver says
    # 9.0: sm_90a, Hopper's instructions included) and the device itself.
    k = tilec.compile(f"{examples}/vector_add.tile", target="cuda")
    assert (k.target, k.device) == ("sm_90a", "cuda")
    x = tilec.DeviceArray("cuda", (1000,), "f32")
    launches = last().launches
    k(x, x, x)
    assert last().launches == launches + 1 and list(last().grid) == [1, 1, 1]
