#!/usr/bin/env python3
"""Bundles one kernel at every point of a grid of compile-time parameters,
for an on-device sweep with bench/time-bundles.sh (no PyTorch needed there).

  bench/make-sweep.py SOURCE.tile -o OUT_DIR [-D NAME=VALUE]...
                      [--grid NAME=V1,V2,...]... [--check SIZES]...
                      [--bench SIZES]... [--inout NAME]... [--atol X]
                      [--arg NAME=VALUE]... [--target T] [--tilec EXE]
                      [--name STEM] [--tma] [--warp-specialize]
                      [--persistent]

Each grid point (the cross product of every --grid) becomes the bundle
OUT_DIR/<STEM>_<name><value>... (STEM: the source's name unless --name
gives one), compiled with the fixed -D values and the
point's. Its --check shapes carry host reference outputs (keep them small:
the host computes them here); its --bench shapes are generated on the
device and only timed. A point that does not compile is reported and left
out; the exit status is 1 if any was, 2 for bad arguments. Example (u4
packed decode GEMM, stages x tile width at N = K = 4096):

  bench/make-sweep.py examples/gemm_decode_packed.tile -o bench/bundles/sw \\
      -D T=u4 --grid STAGES=3,5 --grid BN=32,64 --inout C --atol 2 \\
      --check M=1,K=512,N=200 --bench M=1,N=4096,K=4096
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES_RX = re.compile(r"^[A-Za-z_]\w*=\d+(,[A-Za-z_]\w*=\d+)*$")


def parse_sizes(text):
    if not SIZES_RX.match(text):
        raise argparse.ArgumentTypeError(
            "sizes are NAME=INT,... (for example M=1,N=4096,K=4096), not '%s'"
            % text)
    return {k: int(v) for k, v in (p.split("=") for p in text.split(","))}


def parse_grid(text):
    name, sep, values = text.partition("=")
    if not sep or not re.match(r"^[A-Za-z_]\w*$", name) or not values:
        raise argparse.ArgumentTypeError(
            "a grid is NAME=V1,V2,... (for example STAGES=3,5), not '%s'"
            % text)
    return name, values.split(",")


def point_name(stem, point):
    tail = "_".join("%s%s" % (k.lower(), v) for k, v in point)
    name = stem + ("_" + tail if tail else "")
    return re.sub(r"[^A-Za-z0-9_.-]", "-", name)


def add_bench_tests(bundle, bench, inout, args):
    path = os.path.join(bundle, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    kernels = manifest.get("kernels", [])
    if len(kernels) != 1:
        raise RuntimeError("%s: expected one kernel, found %d"
                           % (path, len(kernels)))
    tests = kernels[0].setdefault("tests", [])
    for s in bench:
        t = {"sizes": dict(s), "seed": 11}
        if inout:
            t["inout"] = list(inout)
        if args:
            t["scalars"] = {k: float(v) for k, v in
                            (a.split("=", 1) for a in args)}
        tests.append(t)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def main(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source")
    p.add_argument("-o", "--out", required=True)
    p.add_argument("-D", dest="defines", action="append", default=[])
    p.add_argument("--grid", type=parse_grid, action="append", default=[])
    p.add_argument("--check", type=parse_sizes, action="append", default=[])
    p.add_argument("--bench", type=parse_sizes, action="append", default=[])
    p.add_argument("--inout", action="append", default=[])
    p.add_argument("--arg", action="append", default=[])
    p.add_argument("--atol", type=float)
    p.add_argument("--tma", action="store_true",
                   help="compile with tilec --tma (sm_90: TMA copies)")
    p.add_argument("--warp-specialize", action="store_true",
                   help="compile with tilec --warp-specialize (sm_90a: a "
                   "producer warpgroup issues the TMA copies)")
    p.add_argument("--persistent", action="store_true",
                   help="compile with tilec --persistent (programs loop "
                   "over the grid's)")
    p.add_argument("--name")
    p.add_argument("--target", default="sm_90a")
    p.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin",
                                                   "tilec"))
    o = p.parse_args(argv)
    if not os.path.isfile(o.source):
        p.error("no source file '%s'" % o.source)
    if not os.access(o.tilec, os.X_OK):
        p.error("no tilec at %s (build it, or pass --tilec)" % o.tilec)
    if not o.check and not o.bench:
        p.error("give at least one --check or --bench shape")
    for d in o.defines:
        if "=" not in d:
            p.error("-D wants NAME=VALUE, not '%s'" % d)
    os.makedirs(o.out, exist_ok=True)
    stem = o.name or os.path.splitext(os.path.basename(o.source))[0]
    names = [n for n, _ in o.grid]
    failed = made = 0
    for values in itertools.product(*[v for _, v in o.grid]):
        point = list(zip(names, values))
        bundle = os.path.join(o.out, point_name(stem, point))
        cmd = [o.tilec, "bundle", o.source, "--target=" + o.target,
               "-o", bundle]
        cmd += ["-D" + d for d in o.defines]
        cmd += ["-D%s=%s" % kv for kv in point]
        cmd += ["--size=" + ",".join("%s=%d" % kv for kv in s.items())
                for s in o.check]
        cmd += ["--inout=" + n for n in o.inout]
        cmd += ["--arg=" + a for a in o.arg]
        if o.atol is not None:
            cmd.append("--atol=%g" % o.atol)
        if o.tma:
            cmd.append("--tma")
        if o.warp_specialize:
            cmd.append("--warp-specialize")
        if o.persistent:
            cmd.append("--persistent")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL %s:\n%s" % (os.path.basename(bundle),
                                    (r.stdout + r.stderr).strip()))
            failed += 1
            continue
        add_bench_tests(bundle, o.bench, o.inout, o.arg)
        print("bundled %s" % os.path.basename(bundle))
        made += 1
    print("%d bundles in %s, %d failed" % (made, o.out, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
