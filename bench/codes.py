"""Values of the element codes that `tile-run --save` writes for formats
without a NumPy type (one code per element): pure Python, so that the
tables are tested without a GPU (bench/test/test_cases.py)."""

import math
import re

# The special values of a 1+e+m bit float (include/tile/Numerics/Format.h):
# OCP e4m3 has NaN at the all-ones codes and no infinity, OCP e5m2 follows
# IEEE-754 (exponent all ones: infinity or NaN), every other fNeXmY is
# finite only.
FINITE, NAN_ALL_ONES, IEEE = "finite", "nan-all-ones", "ieee"


def bf16_to_f32(array):
    """The float32 values of a NumPy array of bf16 codes (`tile-run --save`
    writes bf16 as `<u2` codes): the code is the top half of the float32."""
    import numpy as np  # only here: the tables above are pure Python
    return (np.asarray(array).astype(np.uint32) << 16).view(np.float32)


def small_float_format(dtype):
    """(e, m, specials) of a small float type name fNeXmY (f4e2m1, f5e2m2,
    f8e4m3, ...), or None for other names."""
    m = re.fullmatch(r"f(\d)e(\d)m(\d)", dtype)
    if not m:
        return None
    n, e, man = (int(g) for g in m.groups())
    if n != 1 + e + man or e < 1 or n > 8:
        return None
    specials = {(4, 3): NAN_ALL_ONES, (5, 2): IEEE}.get((e, man), FINITE)
    return e, man, specials


def small_float_values(e, m, specials):
    """The value of every code of a 1+e+m bit float (bias 2^(e-1)-1,
    subnormals; specials as small_float_format), indexed by code."""
    bias = (1 << (e - 1)) - 1
    top = (1 << e) - 1
    values = []
    for code in range(1 << (1 + e + m)):
        sign = code >> (e + m)
        ex = (code >> m) & top
        man = code & ((1 << m) - 1)
        if specials == NAN_ALL_ONES and ex == top and man == (1 << m) - 1:
            v = float("nan")
        elif specials == IEEE and ex == top:
            v = float("inf") if man == 0 else float("nan")
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


def pair_distance(bits, bk):
    """Positions between the two codes of an operand register: 16 bits
    apart for 1, 2, 4 and 8 bits (at most bk / 8), else 4 for 3 and 5 bits
    and 2 for 6 and 7 (include/tile/Numerics/OperandPack.h)."""
    if bits in (1, 2, 4, 8):
        return min(16 // bits, bk // 8)
    return 4 if bits <= 5 else 2


def operand_order_k(pos, bk, bits):
    """k (within its chunk) at chunk position pos of the operand order
    (include/tile/Numerics/OperandPack.h): pos = q (bk / 4) + (x / D) 2D +
    p D + x % D holds k = 8 x + 2 q + p."""
    d = pair_distance(bits, bk)
    q, rest = divmod(pos, bk // 4)
    p = (rest // d) % 2
    x = rest // (2 * d) * d + rest % d
    return 8 * x + 2 * q + p
