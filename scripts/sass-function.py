#!/usr/bin/env python3
"""Keeps one kernel's code in nvdisasm output.

Reads `nvdisasm -c` text on stdin and prints it without the code of the
other kernels: a cubin of a kernel with TMA copies also holds its copy
without them (<kernel>__fallback, docs/Passes.md, tile-clone-fallbacks),
whose LDGSTS and HMMA a check of the kernel's SASS must not see.

  nvdisasm -c k.cubin | scripts/sass-function.py gemm_f16 | FileCheck ...
Exit 1 when the kernel has no code in the input.
"""
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: sass-function.py KERNEL < nvdisasm-output\n")
        sys.exit(2)
    name = sys.argv[1]
    keep, found = True, False
    for line in sys.stdin:
        m = re.match(r"\s*\.section\s+([^,\s]+)", line)
        if m:
            section = m.group(1)
            keep = not section.startswith(".text.") or section == ".text." + name
            found = found or section == ".text." + name
        if keep:
            sys.stdout.write(line)
    if not found:
        sys.stderr.write("sass-function.py: no code of %s in the input\n" %
                         name)
        sys.exit(1)


if __name__ == "__main__":
    main()
