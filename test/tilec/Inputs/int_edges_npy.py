"""Writes a 1-D .npy of 32-bit integers (i4 little-endian, or u4 with --unsigned)
at the rounding edges of narrow formats: for each scale 2^s, the values
m * 2^s - 1, m * 2^s and m * 2^s + 1 for m = 1.5 (e8m0's ties), the ties
of bf16 (9 significant bits ending in 1) and of 3- and 4-bit significands,
their negatives (signed), 0..33, and the extremes of the type."""
import struct
import sys

out, unsigned = sys.argv[1], "--unsigned" in sys.argv
lo, hi = (0, 2**32 - 1) if unsigned else (-2**31, 2**31 - 1)
vals = set(range(34)) | {lo, hi, lo + 1, hi - 1}
for s in range(0, 31):
    for m in (3, 0x101, 0x1FF, 0x155, 9, 0xB, 0x11, 0x1B):
        base = m << s
        for v in (base - 1, base, base + 1):
            vals.add(v)
            vals.add(-v)
vals = sorted(v for v in vals if lo <= v <= hi)
header = "{'descr': '<%s', 'fortran_order': False, 'shape': (%d,), }" % (
    "u4" if unsigned else "i4", len(vals))
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode())
    f.write(struct.pack("<%d%s" % (len(vals), "I" if unsigned else "i"),
                        *vals))
print(len(vals))
