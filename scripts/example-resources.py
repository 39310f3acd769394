#!/usr/bin/env python3
"""Compiles every kernel of the given .tile files for GPU targets at their
default parameters, keeps the code objects, and prints what each one uses:
registers, spills and shared memory (NVIDIA: ptxas's report and the
program's tile.shared_bytes; AMD: the backend's VGPR/SGPR/LDS/scratch
summary), as a Markdown table.

  scripts/example-resources.py --tilec build/bin/tilec --out DIR \\
      [--target sm_90a --target gfx942] examples/*.tile

Code objects go to DIR/TARGET/KERNEL.cubin (NVIDIA) or .hsaco (AMD). Exits 1
when a kernel fails to compile, after the table (the failure is a row).
"""
import argparse
import json
import os
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def nvidia_row(text):
    regs = re.search(r"Used (\d+) registers", text)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                      text)
    if not regs or not spill:
        return None
    return "%s regs, spills %s/%s B" % (regs.group(1), spill.group(1),
                                        spill.group(2))


def amd_row(text):
    m = re.search(r"VGPRs (\d+), AGPRs (\d+), SGPRs (\d+), LDS (\d+) bytes, "
                  r"scratch (\d+) bytes", text)
    if not m:
        return None
    return "%s VGPRs, %s SGPRs, LDS %s B, scratch %s B" % (
        m.group(1), m.group(3), m.group(4), m.group(5))


def shared_bytes(tilec, path, kernel, target):
    code, text = run([tilec, path, "--target=" + target, "--kernel=" + kernel,
                      "--emit=tile"])
    m = re.search(r"tile\.shared_bytes = (\d+)", text)
    return m.group(1) if code == 0 and m else "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--target", action="append")
    a = ap.parse_args()
    targets = a.target or ["sm_90a", "gfx942"]
    rows, failed = [], 0
    for path in a.files:
        code, text = run([a.tilec, path, "--list-kernels"])
        if code != 0:
            rows.append((os.path.basename(path), ["list failed"] * len(targets)))
            failed += 1
            continue
        for k in json.loads(text):
            cells = []
            for t in targets:
                amd = t.startswith("gfx")
                folder = os.path.join(a.out, t)
                os.makedirs(folder, exist_ok=True)
                obj = os.path.join(folder,
                                   k["name"] + (".hsaco" if amd else ".cubin"))
                code, text = run([a.tilec, path, "--target=" + t,
                                  "--kernel=" + k["name"], "--emit=obj", "-v",
                                  "-o", obj])
                cell = (amd_row if amd else nvidia_row)(text) if code == 0 \
                    else None
                if cell is None:
                    failed += 1
                    last = text.strip().splitlines()[-1:] or ["no output"]
                    cell = "FAILED: " + last[0][:80]
                elif not amd:
                    cell += ", shared %s B" % shared_bytes(a.tilec, path,
                                                          k["name"], t)
                cells.append(cell)
            rows.append((k["name"], cells))
    print("| kernel | " + " | ".join(targets) + " |")
    print("| --- |" + " --- |" * len(targets))
    for name, cells in rows:
        print("| %s | %s |" % (name, " | ".join(cells)))
    print("\ncode objects: %s/{%s}/" % (a.out, ",".join(targets)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
