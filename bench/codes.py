"""Values of the element codes that `tile-run --save` writes for formats
without a NumPy type (one code per element): pure Python, so that the
tables are tested without a GPU (bench/test/test_cases.py)."""

import math

# sign/exponent/mantissa widths of the small float formats; the flag marks
# OCP e4m3, whose all-ones code (per sign) is NaN. None of them has an
# infinity.
SMALL_FLOATS = {"f4e2m1": (2, 1, False), "f6e3m2": (3, 2, False),
                "f6e2m3": (2, 3, False), "f8e4m3": (4, 3, True)}


def small_float_values(e, m, nan_all_ones):
    """The value of every code of a 1+e+m bit float (bias 2^(e-1)-1,
    subnormals), indexed by code."""
    bias = (1 << (e - 1)) - 1
    values = []
    for code in range(1 << (1 + e + m)):
        sign = code >> (e + m)
        ex = (code >> m) & ((1 << e) - 1)
        man = code & ((1 << m) - 1)
        if nan_all_ones and ex == (1 << e) - 1 and man == (1 << m) - 1:
            v = float("nan")
        elif ex == 0:
            v = math.ldexp(man, 1 - bias - m)
        else:
            v = math.ldexp((1 << m) + man, ex - bias - m)
        values.append(-v if sign else v)
    return values


def integer_value(code, dtype):
    """The value of the code of an integer format uN / iN (two's
    complement)."""
    bits = int(dtype[1:])
    if dtype[0] == "i" and code >= 1 << (bits - 1):
        return code - (1 << bits)
    return code
