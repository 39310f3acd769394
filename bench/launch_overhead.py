#!/usr/bin/env python3
"""Host cost of a kernel launch from Python (issue #16).

    python bench/launch_overhead.py [--device cuda] [--launches 10000]
    python bench/launch_overhead.py --bundle DIR --kernel NAME --device cuda

Launches one small kernel N times back to back from Python and prints the
host time per launch: tilec's Python call (argument reading, binding, the
variant choice, the launch on the current stream). Without --bundle it
compiles examples/vector_add.tile for the device. With PyTorch on a GPU
the same run also times torch.add (asynchronous, the framework's own
launch) and, when Triton is installed, a Triton vector add: the baselines
of docs/Performance.md. Through the simulated CUDA driver
(TILE_CUDA_LIBRARY, as ctest runs it) the figure is tilec's own cost.
Tensors are torch CUDA tensors when torch has a GPU, else
tilec.DeviceArray (memory the runtime allocates).
"""

import argparse
import os
import time

import tilec

HERE = os.path.dirname(os.path.abspath(__file__))


def per_launch_us(fn, launches, sync):
    for _ in range(min(100, launches)):
        fn()
    sync()
    start = time.perf_counter()
    for _ in range(launches):
        fn()
    elapsed = time.perf_counter() - start
    sync()
    return elapsed / launches * 1e6


def target_of(device):
    arch = tilec.Device.open(device).arch
    return arch + "a" if arch == "sm_90" else (arch or "host")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--launches", type=int, default=10000)
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--bundle")
    p.add_argument("--kernel", default="vector_add")
    a = p.parse_args()

    if a.bundle:
        kernel = tilec.load_bundle(a.bundle, a.device)[a.kernel]
    else:
        src = os.path.join(HERE, "..", "examples", "vector_add.tile")
        kernel = tilec.compile(src, target=target_of(a.device), device=a.device)
    device = tilec.Device.open(a.device)
    torch = None
    if device.platform == "cuda":
        try:
            import torch
            if not torch.cuda.is_available():
                torch = None
        except ImportError:
            torch = None
    n = a.size
    if torch is not None:
        x, y, z = (torch.randn(n, device="cuda") for _ in range(3))
        sync = torch.cuda.synchronize
    else:
        kind = "cuda" if device.platform in ("cuda", "hip") else "cpu"
        if kind == "cpu":
            import numpy as np
            x, y, z = (np.ones(n, np.float32) for _ in range(3))
        else:
            x, y, z = (tilec.DeviceArray(device, (n,), "f32") for _ in range(3))
        sync = device.synchronize

    print(f"device: {device.name}; {a.launches} launches of {kernel.name}, N = {n}")
    us = per_launch_us(lambda: kernel(x, y, z), a.launches, sync)
    print(f"tilec (Python): {us:8.2f} us per launch")
    if torch is not None:
        us = per_launch_us(lambda: torch.add(x, y, out=z), a.launches, sync)
        print(f"torch.add:      {us:8.2f} us per launch")
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
                i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                m = i < n
                tl.store(z_ptr + i, tl.load(x_ptr + i, mask=m) + tl.load(y_ptr + i, mask=m), mask=m)

            grid = (triton.cdiv(n, 1024),)
            us = per_launch_us(lambda: add_kernel[grid](x, y, z, n, BLOCK=1024), a.launches, sync)
            print(f"triton:         {us:8.2f} us per launch")
        except ImportError:
            print("triton:         not installed")


if __name__ == "__main__":
    main()
