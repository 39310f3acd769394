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
