"""tilec.tune and compile(sizes=...): the tune cache from Python."""

import numpy as np

import tilec


def test_tune_then_compile_the_tuned_configuration(inputs, tmp_path):
    cache = tmp_path / "tune.json"
    src = f"{inputs}/tune_fill.tile"
    r = tilec.tune(src, "fill", sizes={"N": 1000}, tune_cache=cache, warmup=1, repeat=3, progress=False)
    assert not r.cached and cache.exists()
    # The space (B in 32, 64, 0; V in 1, 2) and the defaults (B = 64, V = 0),
    # timed in the same run, may win.
    assert (r.best["B"], r.best["V"]) in [(32, 1), (32, 2), (64, 1), (64, 2), (64, 0)]
    statuses = sorted(row["status"] for row in r.rows)
    # B = 0 does not compile (two rows, V = 1 and 2); the rest are timed.
    assert statuses.count("failed") == 2 and statuses.count("timed") >= 4
    assert r.time_ms > 0 and r.default_ms is not None
    again = tilec.tune(src, "fill", sizes={"N": 1000}, tune_cache=cache, progress=False)
    assert again.cached and again.best == r.best and again.rows == []
    # Same bucket (exact up to 16, powers of two above: 1000 -> 1024).
    k = tilec.compile(src, kernel="fill", sizes={"N": 900}, tune_cache=cache)
    assert k.constants["B"] == str(r.best["B"]) and k.constants["V"] == str(r.best["V"])
    y = np.zeros(900, np.int32)
    k(y)
    assert (y == r.best["V"]).all()
    # A miss: the defaults (B = 64, V = 0).
    d = tilec.compile(src, kernel="fill", sizes={"N": 5}, tune_cache=cache)
    assert d.constants["B"] == "64" and d.constants["V"] == "0"


def test_tune_errors(inputs, tmp_path):
    import pytest

    with pytest.raises(tilec.CompileError, match="nodefault.*C"):
        tilec.tune(f"{inputs}/tune_fill.tile", "nodefault", sizes={"N": 64},
                   tune_cache=tmp_path / "t.json", progress=False)


def test_tune_space_overrides(inputs, tmp_path):
    import pytest

    src = f"{inputs}/tune_fill.tile"
    cache = tmp_path / "space.json"
    # B's values replaced (V fixed): the two of the space and the defaults.
    r = tilec.tune(src, "fill", sizes={"N": 1000}, tune_cache=cache, repeat=1,
                   progress=False, space={"B": [16, 128]}, V=1)
    configs = sorted(row["config"]["B"] for row in r.rows)
    assert configs == [16, 64, 128]
    assert all(row["status"] == "timed" for row in r.rows)
    # A kernel without a tune block is tuned over the given values.
    p = tilec.tune(src, "plain", sizes={"N": 1000}, tune_cache=cache, repeat=1,
                   progress=False, space={"B": [32, 128]})
    assert sorted(row["config"]["B"] for row in p.rows) == [32, 64, 128]
    with pytest.raises(TypeError, match=r"space\['B'\]: expected a list"):
        tilec.tune(src, "fill", sizes={"N": 64}, tune_cache=cache,
                   progress=False, space={"B": 16})
    with pytest.raises(tilec.CompileError, match="no compile-time parameter 'Q'"):
        tilec.tune(src, "fill", sizes={"N": 64}, tune_cache=cache,
                   progress=False, space={"Q": [1]})

