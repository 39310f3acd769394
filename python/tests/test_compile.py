"""tilec.compile: sources, kernels, compile-time parameters, compile errors."""

import numpy as np
import pytest

import tilec
from conftest import poisoned

SOFTMAX = """
kernel softmax_f32<ROWS: int = 4, COLS: int = 256>(x: f32[M, N], y: mut f32[M, N])
    grid(cdiv(M, ROWS)) warps 4
{
    let r0 = program_id(0) * ROWS;
    let t = load(x[r0 : r0 + ROWS, 0 : COLS], other = -inf);
    let e = exp(t - max(t, 1)[:, None]);
    store(y[r0 : r0 + ROWS, 0 : COLS], e / sum(e, 1)[:, None]);
}
"""


def test_vector_add_from_a_path(examples, rng):
    # An odd size: the last program's tile is partly out of bounds.
    add = tilec.compile(f"{examples}/vector_add.tile", BLOCK=256)
    assert add.name == "vector_add" and add.target == "host"
    assert add.constants == {"BLOCK": "256"}
    x = rng.standard_normal(1001).astype(np.float32)
    y = rng.standard_normal(1001).astype(np.float32)
    z = poisoned(1001, np.float32)
    add(x, y, z)
    np.testing.assert_allclose(z, x.astype(np.float64) + y, rtol=1e-6)


def test_softmax_from_source_text_with_keywords(rng):
    k = tilec.compile(SOFTMAX, COLS=128)
    assert k.signature == "softmax_f32(x: f32[M, N], y: mut f32[M, N])"
    x = rng.standard_normal((37, 100)).astype(np.float32)
    y = poisoned((37, 100), np.float32)
    k(y=y, x=x)  # by name, in any order
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


TWO = """
kernel one(y: mut i32[N]) grid(cdiv(N, 64)) warps 4
{
    store(y[program_id(0) * 64 : program_id(0) * 64 + 64], zeros(i32, [64]) + 1);
}
kernel two(y: mut i32[N]) grid(cdiv(N, 64)) warps 4
{
    store(y[program_id(0) * 64 : program_id(0) * 64 + 64], zeros(i32, [64]) + 2);
}
"""


def test_several_kernels_need_a_name(inputs):
    with pytest.raises(tilec.CompileError, match=r"defines 2 kernels \(one, two\): pass kernel="):
        tilec.compile(TWO)
    y = poisoned(100, np.int32)
    tilec.compile(TWO, "two")(y)
    assert (y == 2).all()
    # Only the named kernel is compiled: nodefault needs -D B and C.
    k = tilec.compile(f"{inputs}/tune_fill.tile", kernel="plain")
    y = poisoned(100, np.int32)
    k(y)
    assert (y == 0).all()


def test_compile_error_has_the_location():
    line = "    store(y[0 : 4], load(x[0 : 4]) + nope);"
    src = "kernel bad(x: f32[N], y: mut f32[N]) grid(1) warps 4\n{\n" + line + "\n}\n"
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(src)
    e = info.value
    assert (e.file, e.line, e.column) == ("<string>", 3, line.index("nope") + 1)
    assert "nope" in e.message
    assert isinstance(e, tilec.Error)
    assert "^" in e.diagnostic  # the line and a caret


def test_any_file_name(examples, tmp_path, rng):
    src = tmp_path / "add.kernel"
    src.write_text(open(f"{examples}/vector_add.tile").read())
    for given in (str(src), src):  # a str path, an os.PathLike
        k = tilec.compile(given, BLOCK=64)
        x = rng.standard_normal(70).astype(np.float32)
        z = poisoned(70, np.float32)
        k(x, x, z)
        np.testing.assert_allclose(z, 2 * x.astype(np.float64), rtol=1e-6)


def test_bad_parameters_and_files():
    with pytest.raises(tilec.Error, match="cannot read /nonexistent/x.tile"):
        tilec.compile("/nonexistent/x.tile")
    with pytest.raises(tilec.CompileError, match="sm_12"):
        tilec.compile(SOFTMAX, target="sm_12")
    with pytest.raises(TypeError, match="COLS=1.5"):
        tilec.compile(SOFTMAX, COLS=1.5)
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(SOFTMAX, COLS="wide")
    assert info.value.line is not None or "COLS" in str(info.value)


def test_bool_and_type_parameters(examples, rng):
    # gemm_wq with T = i4 and no zero point: a type and a bool parameter.
    k = tilec.compile(f"{examples}/gemm_wq.tile", T="i4", ZP=False, G=64)
    assert k.constants["T"] == "i4" and k.constants["ZP"] == "false"


def test_version_and_repr(examples):
    assert tilec.version().startswith("tilec ")
    add = tilec.compile(f"{examples}/vector_add.tile")
    assert "vector_add(x: f32[N], y: f32[N], z: mut f32[N])" in repr(add)
    assert add.grid == ("cdiv(N, BLOCK)", "1", "1") or add.grid[0].startswith("cdiv(N")
