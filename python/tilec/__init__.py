"""tilec: compile .tile kernels and call them from Python.

    import numpy as np
    import tilec

    add = tilec.compile("examples/vector_add.tile", BLOCK=256)
    x, y = np.random.rand(1000).astype(np.float32), np.ones(1000, np.float32)
    z = np.empty_like(x)
    add(x, y, z)                       # the host target: runs on the CPU

    gemm = tilec.compile(open("gemm_wq.tile").read(), kernel="gemm_wq",
                         target="sm_90a", T="u4", G=128)
    gemm(a, w, s, zp, c)               # torch CUDA tensors: current stream

Compile-time parameters are keyword arguments (`T="u4"`, `BLOCK=256`,
`ZP=False`). Kernels are cached in memory and on disk ($TILE_CACHE_DIR,
else ~/.cache/tilec). Compile errors raise tilec.CompileError with the
location (`.file`, `.line`, `.column`); runtime failures raise tilec.Error.
`tilec.runtime` needs no compiler (bundles on machines without LLVM).
See docs/Python.md.
"""

import os
import re
import warnings

from . import runtime
from .runtime import (
    Bundle,
    Device,
    DeviceArray,
    Error,
    Kernel,
    load_bundle,
    pack_codes,
    pack_weights,
    unpack_codes,
    unpack_weights,
)

__version__ = "0.1.0"

__all__ = [
    "Bundle",
    "CompileError",
    "CompileWarning",
    "Device",
    "DeviceArray",
    "Error",
    "Kernel",
    "TuneResult",
    "compile",
    "load_bundle",
    "pack_codes",
    "pack_weights",
    "runtime",
    "tune",
    "unpack_codes",
    "unpack_weights",
]


class CompileWarning(UserWarning):
    """A warning of the compiler about a kernel that compiled (for example
    an accumulator too large for the registers: the loop will spill); the
    message is the compiler's, file:line:col first."""


def _warn(kernel):
    if kernel.warnings:
        warnings.warn(kernel.warnings.rstrip(), CompileWarning, stacklevel=3)
    return kernel


class CompileError(Error):
    """A .tile program that does not compile. `file`, `line` and `column`
    locate the first error (None when the failure has no location, e.g. a
    missing tool); `diagnostic` is the compiler's full message."""

    _LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")

    def __init__(self, diagnostic):
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.file = self.line = self.column = None
        self.message = diagnostic.splitlines()[0] if diagnostic else ""
        for text in diagnostic.splitlines():
            m = self._LOCATION.match(text.strip())
            if m:
                self.file = m["file"]
                self.line = int(m["line"])
                self.column = int(m["col"])
                self.message = m["msg"]
                break


def _compiler():
    try:
        import importlib

        jit = importlib.import_module(__name__ + "._jit")
    except ImportError as e:
        raise Error(
            "this tilec package has no compiler (built with TILE_RUNTIME_ONLY, "
            f"or LLVM 22 is missing: {e}); tilec.runtime still loads bundles"
        ) from None
    return jit


def version():
    """'tilec <version> (LLVM <version>)'."""
    return _compiler().version()


def _source(source):
    """(text, name) of a path or of source text."""
    if isinstance(source, os.PathLike) or (
        isinstance(source, str)
        and "\n" not in source
        and (source.endswith(".tile") or os.path.isfile(source))
    ):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except OSError as e:
            raise Error(f"cannot read {path}: {e.strerror}") from None
    if not isinstance(source, str):
        raise TypeError("source must be .tile text or a path to a .tile file")
    return source, "<string>"


def _constant(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError(
        f"compile-time parameter {name}={value!r}: expected an int, a bool or a "
        "type name such as 'u4'"
    )


def _resolve_target(target, device):
    """(target, device) with target 'cuda', 'cuda:N', 'hip' or 'hip:N'
    replaced by that device's architecture (sm_90 as sm_90a, its Hopper
    instructions included)."""
    kind = target.split(":")[0]
    if kind not in ("cuda", "hip"):
        return target, device
    arch = Device.open(target).arch
    if not arch:
        raise Error(f"{target} does not report its architecture: pass target= explicitly")
    return (arch + "a" if arch == "sm_90" else arch), (device or target)


def _device_for(target, device, emulate):
    if device is not None:
        return device
    if target.startswith("sm_"):
        return "cuda-emu" if emulate else "cuda"
    if target.startswith("gfx"):
        return "hip-emu" if emulate else "hip"
    return "host"


def _emulated(device, emulate):
    if emulate is not None:
        return bool(emulate)
    return device is not None and device.endswith("-emu")


def _call(fn, *args):
    jit = _compiler()
    try:
        return fn(jit)(*args)
    except jit.CompileFailure as e:
        raise CompileError(str(e)) from None


def compile(
    source,
    kernel=None,
    *,
    target="host",
    device=None,
    emulate=None,
    optimize=True,
    sizes=None,
    tune=False,
    tune_cache=None,
    cache_dir=None,
    tma=False,
    warp_specialize=False,
    persistent=False,
    dependent_launch=False,
    **constants,
):
    """Compiles `kernel` of `source` (.tile text, or the path of a file)
    for `target` ('host', 'sm_80' ... 'sm_90a', 'gfx942', 'gfx950'; or
    'cuda', 'cuda:N', 'hip', 'hip:N': that device's architecture, and the
    device to run on) and returns it as a callable tilec.Kernel.

    `kernel` may be left out when the source defines one kernel. `device`
    is where it runs ('host', 'cuda', 'cuda:1', 'hip', 'cuda-emu',
    'hip-emu'; default from the target); the emulators need `emulate=True`
    or an '-emu' device. With `sizes` ({'M': 1, 'N': 4096, 'K': 4096}) the
    configuration the tune cache holds for their shape bucket is used
    (docs/Tuning.md); on a miss the defaults, or with `tune=True` the kernel
    is tuned on the device first and the result recorded. `tma=True` (sm_90
    targets) copies the tiles of pipelined loops (GEMM operands, attention's
    K and V) with TMA; the
    tensors' rows must then be multiples of 16 bytes (docs/Passes.md).
    `warp_specialize=True` (sm_90a; implies `tma`) gives those copies to a
    producer warpgroup (4 more warps per program). `persistent=True` (GPU
    targets) launches as many programs as the device runs at once, each
    looping over the grid's. `dependent_launch=True` (NVIDIA sm_90+) makes
    the kernel wait for the kernels before it in its stream at its start
    and launches it with programmatic stream serialization, so that it may
    be scheduled while the kernel before it (a model's previous layer) ends
    (`Kernel.dependent_launch` says whether it is). Other
    keyword arguments set compile-time parameters. Raises CompileError.
    """
    text, name = _source(source)
    target, device = _resolve_target(target, device)
    emulate = _emulated(device, emulate)
    device = _device_for(target, device, emulate)
    defines = {k: _constant(k, v) for k, v in constants.items()}
    cache = "" if cache_dir is None else os.fspath(cache_dir)
    if sizes is not None:
        if kernel is None:
            raise TypeError("compile(sizes=...) needs kernel=")
        bundle_dir, _, _ = _call(
            lambda j: j.compile_tuned,
            text, name, kernel, target, defines, emulate, bool(tma),
            bool(warp_specialize), bool(persistent), bool(dependent_launch),
            {k: int(v) for k, v in sizes.items()}, device,
            "" if tune_cache is None else os.fspath(tune_cache), bool(tune), cache,
        )
        return _warn(Kernel(bundle_dir, kernel, device))
    bundle_dir, names = _call(
        lambda j: j.compile,
        text, name, kernel or "", target, defines, bool(optimize), emulate,
        bool(tma), bool(warp_specialize), bool(persistent),
        bool(dependent_launch), cache,
    )
    if kernel is None:
        if len(names) != 1:
            raise CompileError(
                f"{name} defines {len(names)} kernels ({', '.join(names)}): pass kernel="
            )
        kernel = names[0]
    return _warn(Kernel(bundle_dir, kernel, device))


class TuneResult:
    """What tune() found: `best` (the configuration), `time_ms` and
    `default_ms` (the defaults in the same run; None when not timed),
    `rows` (one dict per configuration: config, status timed/pruned/failed,
    time_ms, reason, resources; empty when `cached`), `bucket`, `cache`."""

    def __init__(self, d):
        self.best = d["best"]
        self.time_ms = d["time_ms"]
        self.default_ms = d["default_ms"]
        self.rows = d["rows"]
        self.cached = d["cached"]
        self.bucket = d["bucket"]
        self.cache = d["cache"]

    @property
    def speedup(self):
        """Defaults' time over the best time (None when unknown)."""
        return self.default_ms / self.time_ms if self.default_ms and self.time_ms else None

    def __repr__(self):
        cfg = ", ".join(f"{k}={v}" for k, v in sorted(self.best.items()))
        return f"<tilec.TuneResult best {cfg}: {self.time_ms:.4f} ms" + (
            f", {self.speedup:.2f}x the defaults>" if self.speedup else ">"
        )


def tune(
    source,
    kernel,
    *,
    sizes,
    target="host",
    device=None,
    scalars=None,
    warmup=5,
    repeat=20,
    flush_l2=None,
    jobs=0,
    progress=True,
    tune_cache=None,
    store=True,
    force=False,
    cache_dir=None,
    space=None,
    **constants,
):
    """Tunes `kernel` for the runtime dimensions `sizes` on `device`, as
    `tilec tune` does: compiles the kernel's tune space on all cores
    (`jobs`), prunes with reasons, times the rest (median of `repeat` after
    `warmup`; `flush_l2` MiB overwritten before each timed launch, default
    256 on a GPU) and records the winner in the tune cache (`store`).
    A cached result is returned without tuning unless `force`. Keyword
    arguments fix compile-time parameters (out of the space); `space`
    ({name: [values]}, `tilec tune --space`) gives a parameter the values to
    try instead of its tune block's, or adds one the block does not list.
    Progress goes to stderr unless `progress=False`. Returns a TuneResult."""
    text, name = _source(source)
    target, device = _resolve_target(target, device)
    emulate = _emulated(device, None)
    device = _device_for(target, device, emulate)
    defines = {k: _constant(k, v) for k, v in constants.items()}
    d = _call(
        lambda j: j.tune,
        text, name, kernel, target, device,
        {k: int(v) for k, v in sizes.items()}, defines,
        {k: float(v) for k, v in (scalars or {}).items()},
        int(warmup), int(repeat), -1 if flush_l2 is None else int(flush_l2),
        int(jobs), bool(progress),
        "" if tune_cache is None else os.fspath(tune_cache),
        bool(store), bool(force), "" if cache_dir is None else os.fspath(cache_dir),
        _space(space),
    )
    return TuneResult(d)


def _space(space):
    """tune()'s `space` as {name: [value text]}: each value list a list or
    tuple of ints, bools or type names."""
    out = {}
    for name, values in (space or {}).items():
        if not isinstance(values, (list, tuple)):
            raise TypeError(
                f"space[{name!r}]: expected a list of values to try, got {values!r}"
            )
        out[name] = [_constant(name, v) for v in values]
    return out
