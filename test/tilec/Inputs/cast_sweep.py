"""Every code of each <= 8-bit source format cast to eight destination
formats (Inputs/cast_many.tile) on a GPU target's emulator, compared exactly
with the host (whose casts the host tests hold to lib/Numerics).

  cast_sweep.py TILEC TARGET DEVICE WORKDIR

Prints one line per source and a summary; exits 1 if any source fails."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8",
           "i2", "i3", "i4", "i5", "i6", "i7", "i8",
           "f4e2m1", "f5e2m2", "f6e2m3", "f6e3m2", "f6e5m0", "f7e5m1",
           "f8e4m3", "f8e5m2", "e8m0"]

tilec, target, device, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
failed = 0
for s in SOURCES:
    bits = 8 if s == "e8m0" else int(re.match(r"[a-z](\d+)", s).group(1))
    n = (1 << bits) + 3  # every code, then a partial tile
    codes = os.path.join(work, s + ".npy")
    subprocess.run([sys.executable, os.path.join(HERE, "all_codes_npy.py"),
                    codes, str(bits), str(n)], check=True)
    p = subprocess.run([tilec, "check", os.path.join(HERE, "cast_many.tile"),
                        "-D", "S=" + s, "--target", target, "--device",
                        device, "--input", "x=" + codes, "--size",
                        "N=%d" % n, "--atol", "0", "--rtol", "0",
                        "--no-cache"], capture_output=True, text=True)
    bad = [l for l in p.stdout.splitlines() if l.startswith("FAIL")]
    if p.returncode != 0 or bad:
        failed += 1
        print("%s: FAILED\n%s%s" % (s, p.stdout, p.stderr))
    else:
        print("%s: every code to 8 formats matches the host" % s)
print("%d sources, %d failed" % (len(SOURCES), failed))
sys.exit(1 if failed else 0)
