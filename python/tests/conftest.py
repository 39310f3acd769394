"""Shared fixtures of the tilec Python tests (run by ctest: python/tests/CMakeLists.txt).

ctest puts the package built in build/python first on PYTHONPATH and points
TILEC_EXAMPLES at examples/ and TILEC_TEST_INPUTS at test/tilec/Inputs.
"""

import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="session")
def examples():
    return os.environ.get("TILEC_EXAMPLES", os.path.join(ROOT, "examples"))


@pytest.fixture(scope="session")
def inputs():
    return os.environ.get("TILEC_TEST_INPUTS", os.path.join(ROOT, "test", "tilec", "Inputs"))


@pytest.fixture
def rng():
    # Fresh inputs each run (the seed is printed on failure by pytest's
    # report of the fixture value through the assertion messages).
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def poisoned(shape, dtype):
    """An output array filled with all-ones bytes (NaN for floats): a kernel
    that does not write an element leaves it visible."""
    a = np.empty(shape, dtype=dtype)
    a.view(np.uint8)[...] = 0xFF
    return a
