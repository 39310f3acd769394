#!/usr/bin/env python3
"""gpu_bench.py's Timer without a GPU: a stand-in `torch` whose launches
advance a clock by 1 ms each (and are recorded, not run, while a CUDA graph
is captured), so that the two timing methods can be checked for what they
launch and how they divide the time: the flush method one launch per
sample after a scratch fill, the rotating one a window of one launch per
copy of the operands, replayed as a graph (or queued from Python when
capture fails), divided by the copies."""

import contextlib
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))


class FakeTensor:
    def __init__(self, nbytes, name="t"):
        self.nbytes, self.name = nbytes, name
        self.fills = []

    def numel(self):
        return self.nbytes

    def element_size(self):
        return 1

    def clone(self):
        return FakeTensor(self.nbytes, self.name + "'")

    def fill_(self, v):
        self.fills.append(v)


class Clock:
    now = 0.0
    capturing = None  # the graph being captured, if any


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = Clock.now

    def elapsed_time(self, end):
        return end.t - self.t


class FakeGraph:
    def __init__(self):
        self.calls = []

    def replay(self):
        for fn, args in self.calls:
            fn(*args)


def make_torch():
    torch = types.ModuleType("torch")
    torch.uint8 = "uint8"
    torch.device = lambda name: name
    torch.is_tensor = lambda x: isinstance(x, FakeTensor)
    torch.empty = lambda n, dtype=None, device=None: FakeTensor(n, "scratch")
    torch.backends = types.SimpleNamespace(
        cuda=types.SimpleNamespace(matmul=types.SimpleNamespace()),
        cudnn=types.SimpleNamespace())
    cuda = types.ModuleType("torch.cuda")
    cuda.is_available = lambda: True
    cuda.Event = FakeEvent
    cuda.synchronize = lambda: None
    cuda.CUDAGraph = FakeGraph
    cuda.Stream = lambda: types.SimpleNamespace(wait_stream=lambda s: None)
    cuda.current_stream = lambda: types.SimpleNamespace(
        wait_stream=lambda s: None)
    cuda.stream = lambda s: contextlib.nullcontext()

    @contextlib.contextmanager
    def graph(g):
        Clock.capturing = g
        try:
            yield
        finally:
            Clock.capturing = None
    cuda.graph = graph
    torch.cuda = cuda
    nn = types.ModuleType("torch.nn")
    functional = types.ModuleType("torch.nn.functional")
    nn.functional = functional
    torch.nn = nn
    sys.modules.update({"torch": torch, "torch.cuda": cuda, "torch.nn": nn,
                        "torch.nn.functional": functional})


class Launches:
    """A kernel that takes 1 ms and records the operands of each launch
    that ran (not the ones a graph capture recorded)."""

    def __init__(self, fail_capture=False):
        self.ran, self.fail_capture = [], fail_capture

    def __call__(self, *args):
        if Clock.capturing is not None:
            if self.fail_capture:
                raise RuntimeError("operation not permitted when capturing")
            Clock.capturing.calls.append((self, args))
            return
        Clock.now += 1.0
        self.ran.append(args)


class TimerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        make_torch()  # gpu_bench.py also imports numpy (install-deps.sh)
        import gpu_bench
        cls.gpu_bench = gpu_bench

    def test_flush_method(self):
        timer = self.gpu_bench.Timer(2, 5, 1)
        k = Launches()
        a = FakeTensor(100)
        r = timer(k, a)
        self.assertEqual(len(k.ran), 2 + 5)
        self.assertEqual(r["median_ms"], 1.0)
        self.assertEqual(r["runs"], 5)
        self.assertEqual(timer.scratch.fills, [0, 1, 2, 3, 4])
        self.assertNotIn("note", r)

    def test_rotating_windows_replay_a_graph_over_copies(self):
        # 8 MiB of operands over 32 MiB: 4 sets; the 4 launches of a window
        # take 4 ms, 1 ms per launch.
        timer = self.gpu_bench.Timer(2, 3, 0, rotate_mib=32)
        k = Launches()
        a, b = FakeTensor(4 << 20, "a"), FakeTensor(4 << 20, "b")
        r = timer(k, a, b, 7)
        self.assertEqual(r["median_ms"], 1.0)
        self.assertEqual(r["runs"], 3)
        self.assertEqual(r["note"], "4 sets, graph")
        # Warm-up: each set once (4 > 2); then a window before timing and
        # three timed ones, each launching every set once, in order.
        self.assertEqual(len(k.ran), 4 + 4 * 4)
        sets = k.ran[:4]
        self.assertIs(sets[0][0], a)
        self.assertEqual(len({id(s[0]) for s in sets}), 4)  # four copies
        self.assertTrue(all(s[2] == 7 for s in sets))  # scalars kept
        for w in range(1, 5):
            self.assertEqual([id(s[0]) for s in k.ran[4 * w:4 * w + 4]],
                             [id(s[0]) for s in sets])

    def test_rotating_without_a_graph(self):
        timer = self.gpu_bench.Timer(0, 2, 0, rotate_mib=1)
        k = Launches(fail_capture=True)
        r = timer(k, FakeTensor(300 << 10))
        self.assertEqual(r["note"], "4 sets, stream")
        self.assertEqual(r["median_ms"], 1.0)
        self.assertEqual(len(k.ran), 4 + 4 * 3)

    def test_method_text(self):
        self.assertIn("windows of launches back to back",
                      self.gpu_bench.method_text(
                          self.gpu_bench.Timer(1, 2, 0, rotate_mib=256)))
        self.assertIn("256 MiB scratch overwritten",
                      self.gpu_bench.method_text(
                          self.gpu_bench.Timer(1, 2, 256)))


if __name__ == "__main__":
    unittest.main()
