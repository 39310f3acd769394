"""Writes a 1-D .npy of codes of a BITS-bit format, N elements, in the form
tilec's --input reads (DESCR: |u1, <u2, <f2, <i2, <u4, <f4, <i4, ...).
BITS <= 16: every code 0 .. 2^BITS - 1, repeated to N. BITS = 32: the
codes at the edges of f32 and 32-bit integers (zeros, ones, subnormals,
the largest values, infinities, NaNs, powers of two and the values next to
them), then seeded pseudo-random codes.

With "no-all-ones" the all-ones code (a NaN in f16, bf16, f32) becomes
all ones minus one: cast to its own format it would come back as the
runner's poison pattern, which reads as an unwritten output.

  codes_npy.py OUT BITS N [DESCR [no-all-ones]]"""
import struct
import sys

out, bits, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
descr = sys.argv[4] if len(sys.argv) > 4 else "|u1"
if bits <= 16:
    codes = [i % (1 << bits) for i in range(n)]
else:
    edges = []
    for e in range(0, 256):  # every f32 exponent: 1.0, next up, next down
        for m in (0, 1, 0x7FFFFF, 0x400000, 0x200000 | 1):
            edges += [(e << 23) | m, (1 << 31) | (e << 23) | m]
    for k in range(32):  # integer powers of two and their neighbours
        for d in (-1, 0, 1):
            edges.append(((1 << k) + d) & 0xFFFFFFFF)
            edges.append((-(1 << k) + d) & 0xFFFFFFFF)
    state, codes = 0x2545F491, []
    for i in range(n):
        if i < len(edges):
            codes.append(edges[i])
        else:
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            codes.append(state >> 32)
if len(sys.argv) > 5 and sys.argv[5] == "no-all-ones":
    ones = (1 << bits) - 1
    codes = [c - 1 if c == ones else c for c in codes]
size = 1 if bits <= 8 else 2 if bits <= 16 else 4
data = b"".join(c.to_bytes(size, "little") for c in codes)
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, n)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode() + data)
