"""tilec.runtime: compiled kernels from Python, without the compiler.

Loads bundles (`tilec bundle` output, or the bundle directories the JIT
writes) and launches their kernels; needs no LLVM, so it works on serving
machines that only ship bundles:

    import tilec.runtime as rt
    bundle = rt.load_bundle("out/bundle", device="cuda")
    bundle["gemm_wq"](a, w, s, z, c)        # torch tensors: current stream

A kernel takes its tensor and scalar parameters in order (or by name), and
runtime dimensions by name when no argument gives them (`N=4096`). Tensors:
numpy arrays and anything with the buffer protocol (host memory), torch
tensors, objects with __dlpack__. Kernels read and write the caller's
memory; host arrays given to a GPU or emulator kernel are copied in and,
for mut parameters, back out. Types numpy has no name for are passed as
their storage: uint8 arrays of packed sub-byte codes (u4, i3, f4e2m1, ...;
the shape comes from the signature), uint8 arrays of 8-bit float codes,
uint16 arrays of bf16. Every failure raises tilec.Error.
"""

import os

from ._runtime import Buffer, Device, Error, Launcher, bundle_kernels
from ._runtime import pack_weights as _pack_weights
from ._runtime import unpack_weights as _unpack_weights

__all__ = [
    "Buffer",
    "Bundle",
    "Device",
    "DeviceArray",
    "Error",
    "Kernel",
    "load_bundle",
    "pack_codes",
    "pack_weights",
    "unpack_codes",
    "unpack_weights",
]


class Kernel(Launcher):
    """One compiled kernel on one device; call it to launch.

    kernel(*tensors_and_scalars, stream=None, **by_name) launches it:
    with torch CUDA tensors on the caller's current stream (or `stream`, an
    int handle or a torch.cuda.Stream), returning once it is queued; on the
    host and the emulators it has run when the call returns.
    """

    @property
    def signature(self):
        """The kernel's parameters as source text, e.g.
        'vector_add(x: f32[N], y: f32[N], z: mut f32[N])'."""
        parts = []
        for p in self.params:
            if p["kind"] == "dim":
                continue
            text = p["name"] + ": " + ("mut " if p["mut"] else "") + p["dtype"]
            if p["kind"] == "tensor":
                text += "[" + ", ".join(p["shape"]) + "]"
            parts.append(text)
        return self.name + "(" + ", ".join(parts) + ")"

    def __repr__(self):
        constants = ", ".join(f"{k}={v}" for k, v in sorted(self.constants.items()))
        return (
            f"<tilec.Kernel {self.signature} target={self.target} "
            f"device={self.device}" + (f" [{constants}]" if constants else "") + ">"
        )


class DeviceArray:
    """A dense tensor in memory the runtime allocates on a GPU (`device`:
    "cuda", "cuda:1", "hip", or a Device), for callers without a framework.
    Kernels read and write it in place, as they do a CUDA torch tensor, and
    queue on the default stream (or `stream=`). `dtype` is a tile type name
    ("f32", "f16", "bf16", "u4", ...; sub-byte types as their dense bit
    stream). upload() and download() copy from and to host memory."""

    def __init__(self, device, shape, dtype="f32"):
        if isinstance(device, str):
            device = Device.open(device)
        if device.platform not in ("cuda", "hip"):
            raise Error(f"DeviceArray needs a GPU device, not {device.platform} "
                        "(pass numpy arrays to host and emulator kernels)")
        digits = "".join(c if c.isdigit() else " " for c in dtype).split()
        if not digits:
            raise Error(f"DeviceArray: unknown dtype {dtype!r}")
        self.device_handle = device
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        count = 1
        for s in self.shape:
            count *= s
        self.nbytes = (count * int(digits[0]) + 7) // 8
        self.buffer = device.allocate(max(self.nbytes, 4))
        self._address = self.buffer.address
        self._ordinal = device.ordinal

    is_cpu = False
    is_cuda = True  # how PyTorch names any GPU memory, ROCm's included

    def data_ptr(self):
        return self._address

    def is_contiguous(self):
        return True

    def stride(self):
        strides, step = [], 1
        for s in reversed(self.shape):
            strides.append(step)
            step *= s
        return tuple(reversed(strides))

    def get_device(self):
        return self._ordinal

    def upload(self, data):
        """Copies `data` (a numpy array or bytes of the tensor's size) in."""
        if len(memoryview(data).cast("B")) != self.nbytes:
            raise Error(f"upload of {len(memoryview(data).cast('B'))} bytes into a "
                        f"{self.dtype}{list(self.shape)} tensor of {self.nbytes}")
        self.buffer.upload(data)

    def download(self):
        """The tensor's bytes (a numpy uint8 array when numpy is installed)."""
        return _as_array(self.buffer.download()[: self.nbytes])

    def __repr__(self):
        return f"<tilec.DeviceArray {self.dtype}{list(self.shape)} on {self.device_handle.name}>"


class Bundle:
    """The kernels of a bundle directory, loaded on `device` when first called."""

    def __init__(self, path, device="host"):
        self.path = os.fspath(path)
        self.device = device
        self.names = bundle_kernels(self.path)
        self._kernels = {}

    def __getitem__(self, name):
        kernel = self._kernels.get(name)
        if kernel is None:
            kernel = Kernel(self.path, name, self.device)
            self._kernels[name] = kernel
        return kernel

    def __contains__(self, name):
        return name in self.names

    def __iter__(self):
        return iter(self.names)

    def __repr__(self):
        return f"<tilec.Bundle {self.path} on {self.device}: {', '.join(self.names)}>"


def load_bundle(path, device="host"):
    """The bundle directory `path` for `device` ('host', 'cuda', 'cuda:1',
    'hip', 'cuda-emu', 'hip-emu')."""
    return Bundle(path, device)


def _numpy():
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is optional
        return None
    return numpy


def pack_codes(codes, bits):
    """Packs integer codes (any shape, each in [0, 2**bits)) into the dense
    LSB-first bit stream tensors of `bits`-bit types are stored as; returns
    a flat numpy uint8 array of ceil(codes.size * bits / 8) bytes."""
    np = _numpy()
    if np is None:
        raise Error("pack_codes needs numpy")
    if not 1 <= bits <= 8:
        raise Error(f"pack_codes: bits must be 1..8, got {bits}")
    c = np.asarray(codes).reshape(-1).astype(np.uint64)
    if c.size and int(c.max()) >> bits:
        raise Error(f"pack_codes: a code does not fit in {bits} bits")
    positions = np.arange(c.size, dtype=np.uint64) * np.uint64(bits)
    out = np.zeros((c.size * bits + 7) // 8 + 1, dtype=np.uint64)
    # A code spans at most two bytes: add its low and high parts.
    byte = positions >> np.uint64(3)
    shift = positions & np.uint64(7)
    wide = c << shift
    np.add.at(out, byte, wide & np.uint64(0xFF))
    np.add.at(out, byte + np.uint64(1), wide >> np.uint64(8))
    return out[: (c.size * bits + 7) // 8].astype(np.uint8)


def unpack_codes(stream, bits, count):
    """The inverse of pack_codes: `count` codes as a flat numpy uint8 array."""
    np = _numpy()
    if np is None:
        raise Error("unpack_codes needs numpy")
    s = np.frombuffer(bytes(stream), dtype=np.uint8).astype(np.uint32)
    s = np.concatenate([s, np.zeros(2, dtype=np.uint32)])
    positions = np.arange(count, dtype=np.uint64) * np.uint64(bits)
    byte = (positions >> np.uint64(3)).astype(np.int64)
    shift = (positions & np.uint64(7)).astype(np.uint32)
    wide = s[byte] | (s[byte + 1] << np.uint32(8))
    return ((wide >> shift) & np.uint32((1 << bits) - 1)).astype(np.uint8)


def _as_array(data):
    np = _numpy()
    return np.frombuffer(data, dtype=np.uint8).copy() if np is not None else data


def pack_weights(w, bits, k, n, block_k=0, order="mma"):
    """The [k, n] weight `w` (the bit stream of its `bits`-bit codes, e.g.
    from pack_codes) in the order examples/gemm_decode_packed.tile reads it
    (docs/Numerics.md, "Operand-ordered weights"); `block_k` 0: the
    example's default chunk for the width; `order` "mma" (NVIDIA) or
    "mfma" (AMD's MFMA operands: the kernel reads it with MFMA=True).
    Returns a numpy uint8 array."""
    return _as_array(_pack_weights(w, bits, k, n, block_k, order))


def unpack_weights(packed, bits, k, n, block_k=0, order="mma"):
    """The inverse of pack_weights: the row-major [k, n] code stream."""
    return _as_array(_unpack_weights(packed, bits, k, n, block_k, order))
