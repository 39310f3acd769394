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


class DeviceTensor:
    """f32 device memory behind the attribute surface of a CUDA torch tensor."""

    class _DType:
        def __str__(self):
            return "torch.float32"

    is_cpu, is_cuda = False, True

    def __init__(self, buffer, n, index=0):
        self.buffer, self.shape, self.index = buffer, (n,), index
        self.dtype = DeviceTensor._DType()

    def data_ptr(self):
        return self.buffer.address

    def is_contiguous(self):
        return True

    def stride(self):
        return (1,)

    def get_device(self):
        return self.index


@pytest.fixture(scope="module")
def vadd():
    return tilec.load_bundle(BUNDLE, "cuda")["vadd"]


def test_device_memory_launch_allocates_and_waits_for_nothing(vadd, rng):
    dev = tilec.Device.open("cuda")
    n = 1000
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    bufs = [dev.allocate(4 * n) for _ in range(3)]
    bufs[0].upload(x)
    bufs[1].upload(y)
    bufs[2].upload(np.full(n, np.nan, np.float32))
    tx, ty, tz = (DeviceTensor(b, n) for b in bufs)
    vadd(tx, ty, tz)  # loads the module: before counting
    before = last()
    launches, allocations, syncs = before.launches, before.allocations, before.synchronizations
    vadd(tx, ty, tz, stream=0x5EED)
    after = last()
    assert after.launches == launches + 1
    assert after.allocations == allocations and after.synchronizations == syncs
    assert after.stream == 0x5EED and list(after.grid) == [16, 1, 1]
    z = np.frombuffer(bufs[2].download(), np.float32)
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)


def test_host_arrays_are_staged(vadd, rng):
    n = 300
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    z = np.full(n, np.nan, np.float32)
    before = last().allocations
    vadd(x, y, z)
    assert last().allocations == before + 3
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)


def test_tensor_on_another_device_is_refused(vadd):
    dev = tilec.Device.open("cuda")
    t = DeviceTensor(dev.allocate(64), 16, index=1)
    launches = last().launches
    with pytest.raises(tilec.Error, match=r'argument 0 \(A\): the tensor is on device 1 but the kernel on cuda \(compile with device="cuda:1"\)'):
        vadd(t, t, t)
    assert last().launches == launches
