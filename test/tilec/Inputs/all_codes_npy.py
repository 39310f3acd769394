"""Writes a 1-D '|u1' .npy of every code of a BITS-bit format (0 .. 2^BITS - 1,
repeated to N elements): the form tilec's --input reads for formats of at
most 8 bits."""
import struct
import sys

out, bits, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = bytes(i % (1 << bits) for i in range(n))
header = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode() + data)
