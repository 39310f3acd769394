"""Every code of each source format of at most 16 bits (for f32 and 32-bit
integers: their edge codes and 20000 pseudo-random ones, codes_npy.py) cast
to every format of lib/Numerics up to 32 bits (31 destinations, the four
kernels of Inputs/cast_every.tile) on a GPU target's emulator, compared
exactly with the host (whose casts the host tests hold to lib/Numerics).

  cast_sweep.py TILEC TARGET DEVICE WORKDIR [SOURCE...]

Without SOURCEs, all 31. Prints one line per source and a summary; exits 1
if any source fails."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8",
           "i2", "i3", "i4", "i5", "i6", "i7", "i8",
           "f4e2m1", "f5e2m2", "f6e2m3", "f6e3m2", "f6e5m0", "f7e5m1",
           "f8e4m3", "f8e5m2", "e8m0",
           "f16", "bf16", "i16", "u16", "f32", "i32", "u32"]
# Wide sources: (bits, .npy descr, whether all ones is a NaN to leave out).
WIDE = {"f16": (16, "<f2", True), "bf16": (16, "<u2", True),
        "i16": (16, "<i2", False), "u16": (16, "<u2", False),
        "f32": (32, "<f4", True), "i32": (32, "<i4", False),
        "u32": (32, "<u4", False)}
KERNELS = ["cast_unsigned", "cast_signed", "cast_small_floats", "cast_wide"]

tilec, target, device, work = sys.argv[1:5]
sources = sys.argv[5:] or SOURCES
os.makedirs(work, exist_ok=True)
failed = 0
for s in sources:
    bits, descr, nan_ones = WIDE.get(s, (0, "|u1", False))
    if not bits:
        bits = 8 if s == "e8m0" else int(re.match(r"[a-z](\d+)", s).group(1))
    # Every code (then a partial tile), or 20000 codes of a 32-bit format.
    n = (1 << bits) + 3 if bits <= 16 else 20000
    codes = os.path.join(work, s + ".npy")
    subprocess.run([sys.executable, os.path.join(HERE, "codes_npy.py"),
                    codes, str(bits), str(n), descr] +
                   (["no-all-ones"] if nan_ones else []), check=True)
    report, outputs = "", 0
    for k in KERNELS:
        p = subprocess.run([tilec, "check", os.path.join(HERE, "cast_every.tile"),
                            "--kernel", k, "-D", "S=" + s, "--target", target,
                            "--device", device, "--input", "x=" + codes,
                            "--size", "N=%d" % n, "--atol", "0", "--rtol",
                            "0", "--no-cache"], capture_output=True, text=True)
        lines = p.stdout.splitlines()
        if p.returncode != 0 or any(l.startswith("FAIL") for l in lines):
            report += "%s:\n%s%s" % (k, p.stdout, p.stderr)
        outputs += sum(l.startswith("PASS") for l in lines)
    if report:
        failed += 1
        print("%s: FAILED\n%s" % (s, report))
    else:
        print("%s: %s to %d formats match the host" %
              (s, "every code" if bits <= 16 else "20000 codes", outputs))
print("%d sources, %d failed" % (len(sources), failed))
sys.exit(1 if failed else 0)
