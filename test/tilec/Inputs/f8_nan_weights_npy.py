"""Writes a [ROWS, COLS] .npy of f8e4m3 codes (|u1, as tilec's --input
reads them): seeded pseudo-random finite codes of magnitude 0.125 .. 15 with
either sign, and the NaN codes 0x7F and 0xFF at a few positions (every
`STRIDE`-th code, default 997), so that the columns of a GEMM that reads
them come out NaN and the others finite.

  f8_nan_weights_npy.py OUT ROWS COLS [STRIDE]"""
import struct
import sys

out, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stride = int(sys.argv[4]) if len(sys.argv) > 4 else 997
state, codes = 0x9E3779B9, []
for i in range(rows * cols):
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    r = state >> 40
    if i % stride == stride - 1:
        codes.append(0x7F | (r & 0x80))  # NaN, either sign
    else:
        exp = 4 + (r >> 3) % 7  # 2^-3 .. 2^3
        codes.append((r & 0x80) | (exp << 3) | (r & 7))
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d), }" % (
    rows, cols)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode() + bytes(codes))
