#!/usr/bin/env python3
"""Static performance figures of a tilec kernel's NVIDIA machine code.

Compiles FILE.tile for an NVIDIA target with tilec (ptxas -v: registers,
spills, shared memory), disassembles the cubin with nvdisasm and reads the
kernel's main loop: the innermost loop of the SASS that issues global loads
(LDG, LDGSTS, UTMALDG). The tile-level IR (`--emit=tile`) gives the bytes
each global tensor moves per iteration of the source loop. Printed:

  - warp instructions per loop iteration on the path without edge chunks
    (blocks that fall back to per-element global loads for partial or
    misaligned chunks are not counted: interior tiles never run them), and
    the whole loop body for comparison;
  - warp instructions per byte of a tensor (--per, default: every tensor
    loaded in the loop): instructions x warps / bytes per iteration;
  - CTAs per SM from registers, shared memory and threads (H100 limits),
    each limit, and the occupancy the kernel asks for (`occupancy P`),
    and the bytes in flight per SM: CTAs/SM x bytes per iteration x
    (pipeline stages - 1).

How these relate to time (docs/Performance.md): an SM issues at most 4
warp instructions per cycle, so a loop of I warp instructions per byte
needs I x bytes / (4 x SMs x clock) seconds at the least; memory needs about
32 KB in flight per SM for 3 TB/s on an H100 (Little's law).

  scripts/sass-report.py examples/gemm_wq.tile --target sm_90a \\
      -D BN=32 -D BK=256 --per W [--json]
Exit 2 on usage errors, 1 when a tool fails, 3 when --max-ipb or
--max-registers is exceeded (the CI regression test uses them).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

# H100 SXM limits per SM (CUDA occupancy calculator, compute capability 9.0).
REGS_PER_SM = 65536
SMEM_PER_SM = 228 * 1024
SMEM_RESERVED_PER_CTA = 1024
MAX_THREADS_PER_SM = 2048
MAX_CTAS_PER_SM = 32

BITS = {"f32": 32, "f16": 16, "bf16": 16, "i32": 32, "i64": 64}


def find_tool(name, extra_dirs):
    env = os.environ.get("TILE_" + name.upper())
    if env and os.access(env, os.X_OK):
        return env
    for d in extra_dirs:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("sass-report: %s failed:\n%s%s" %
                         (os.path.basename(cmd[0]), r.stdout, r.stderr))
        sys.exit(1)
    return r.stdout + r.stderr


def elem_bits(t):
    if t in BITS:
        return BITS[t]
    m = re.match(r"!tile\.float<e(\d+)m(\d+)>", t)  # sign, exponent, mantissa
    if m:
        return 1 + int(m.group(1)) + int(m.group(2))
    m = re.match(r"[iuf](\d+)", t)
    if m:
        return int(m.group(1))
    raise ValueError("unknown element type " + t)


def loop_bytes(tile_ir):
    """Bytes per iteration of the outermost scf.for (inside a persistent
    kernel's loop over its programs), per tensor name, and the pipeline
    depth (ring stages) of its copies."""
    names = {}  # %argN -> source name
    # (The element type may nest: !tile.ptr<!tile.float<e2m2>>.)
    for m in re.finditer(r"%(arg\d+): !tile\.ptr<(?:[^<>]|<[^<>]*>)*> "
                         r"\{[^}]*tile\.name = \"(\w+)\"", tile_ir):
        names[m.group(1)] = m.group(2)
    # (The views the loop's copies read are defined before it; in a
    # warp-specialized kernel the first loop is the producer's, whose
    # region numbers its values anew.)
    views = {}  # %vN -> name
    start = tile_ir.find("scf.for")
    # A persistent kernel's outermost loop runs over its virtual grid
    # (tile-persist-programs): the loop of interest is the next one.
    if re.search(r"attributes \{[^\n]*tile\.persistent[,}]", tile_ir):
        start = tile_ir.find("scf.for", start + 1)
    for text in (tile_ir, tile_ir[:start]):
        for m in re.finditer(r"%(\w+) = tile\.view %(arg\d+)", text):
            views[m.group(1)] = names.get(m.group(2), m.group(2))
    body = tile_ir[start:]
    per, stages = Counter(), 1
    for line in body.split("\n"):
        m = re.search(r"tile\.copy_async %(\w+)\[.*-> !tile\.shared<([\dx]+)x"
                      r"(\w+|!tile\.float<e\d+m\d+>)(,|>)", line)
        if m:
            dims = [int(x) for x in m.group(2).split("x")]
            stages = max(stages, dims[0])
            n = 1
            for d in dims[1:]:
                n *= d
            per[views.get(m.group(1), m.group(1))] += n * elem_bits(
                m.group(3)) // 8
            continue
        m = re.search(r"tile\.load %(\w+)\[.*-> tensor<([\dx]+)x"
                      r"(\w+|!tile\.float<e\d+m\d+>)", line)
        if m:
            n = 1
            for d in m.group(2).split("x"):
                n *= int(d)
            per[views.get(m.group(1), m.group(1))] += n * elem_bits(
                m.group(3)) // 8
        if re.match(r"\s*scf\.yield", line):
            break
    return per, stages


def one_entry(ptxas, tile_ir, sass, fallback):
    """The entry reported on (the first kernel, or with fallback its copy
    without TMA, named <kernel>__fallback) and the parts of ptxas -v, the
    tile IR and the SASS that are its own."""
    parts = re.split(r"(?=ptxas info\s+: Compiling entry function ')", ptxas)
    entries = {}
    for part in parts:
        m = re.match(r"ptxas info\s+: Compiling entry function '(\w+)'", part)
        if m:
            entries[m.group(1)] = part
    names = [n for n in entries if n.endswith("__fallback") == fallback]
    if not names:
        return None, None, None, None
    entry = names[0]
    funcs = re.split(r"(?m)^(?=\s*func\.func )", tile_ir)
    own_ir = next((f for f in funcs
                   if re.match(r"\s*func\.func @%s\(" % entry, f)), tile_ir)
    sections = re.split(r"(?m)^(?=\s*\.section\s)", sass)
    own_sass = next((t for t in sections
                     if re.match(r"\s*\.section\s+\.text\.%s\b" % entry, t)),
                    sass)
    return entry, entries[entry], own_ir, own_sass


def parse_sass(text):
    labels, insts = {}, []
    for line in text.split("\n"):
        m = re.match(r"^(\.L_x_\d+):", line)
        if m:
            labels[m.group(1)] = len(insts)
            continue
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?);", line)
        if m:
            insts.append(m.group(1).strip())
    return labels, insts


def opcode(inst):
    return re.sub(r"^@!?U?P\w+\s+", "", inst).split()[0].split(".")[0]


GLOBAL_LOAD = re.compile(r"\b(LDG|LDGSTS|UTMALDG)\b")
EDGE_LOAD = re.compile(r"\bLDG\.E(\.U8|\.S8|\.U16|\.S16)?\s")


def innermost_loop(labels, insts, wanted):
    """(start, end) of the innermost backward-branch loop whose body
    (a list of instructions) `wanted` accepts, or None."""
    best = None
    for j, inst in enumerate(insts):
        m = re.search(r"BRA\s+`\((\.L_x_\d+)\)", inst)
        if not m or labels.get(m.group(1), j + 1) > j:
            continue
        s = labels[m.group(1)]
        if not wanted(insts[s:j + 1]):
            continue
        if best is None or j - s < best[1] - best[0]:
            best = (s, j)
    return best


def main_loop(labels, insts):
    """(start, end) of the innermost backward-branch loop with vector or
    asynchronous global loads."""
    def copies(body):
        loads = [x for x in body if GLOBAL_LOAD.search(x)]
        # Loops whose loads are all scalar are the copies' edge runs.
        return loads and not all(EDGE_LOAD.search(x) for x in loads)
    return innermost_loop(labels, insts, copies)


def issued_per_iteration(hot_len, warps, producers, mma):
    """Warp instructions a program issues per iteration of its main loop:
    the hot path times its warps; with a producer warpgroup (whose first
    warp alone runs the copy loop, the main loop here) that loop once plus
    the MMA loop times the consumer warps."""
    if producers and mma:
        return hot_len + (mma[1] - mma[0] + 1) * warps
    return hot_len * warps


def mma_loop(labels, insts):
    """(start, end) of the innermost backward-branch loop with tensor-core
    instructions (HMMA, HGMMA, ...), or None."""
    return innermost_loop(
        labels, insts,
        lambda body: any(re.search(r"\b[HIQ]G?MMA\b", x) for x in body))


def written_registers(inst):
    """The general registers an instruction writes (its first operand, with
    the width its opcode says), or []."""
    m = re.match(r"^(?:@!?U?P\w+\s+)?(\S+)\s+(R\d+)\b", inst)
    if not m or m.group(2) == "RZ" or opcode(inst) in ("HGMMA", "STS", "ST",
                                                        "STG", "STL"):
        return []
    op, first = m.group(1), int(m.group(2)[1:])
    width = 1
    if ".128" in op or re.search(r"\.M88\.4\b", op):
        width = 4
    elif ".64" in op or "WIDE" in op or re.search(r"\.M88\.2\b", op):
        width = 2
    return list(range(first, first + width))


def register_a_hazards(body):
    """Writes to the A registers of a register-A warpgroup MMA (HGMMA
    reading A from R<n>..R<n+3>) while its group is in flight: from the
    HGMMA to the WARPGROUP.DEPBAR that retires its group (the PTX ISA makes
    that undefined). The loop body is walked twice around, so that groups
    left in flight at its end meet the next iteration; branches are
    ignored (every instruction counts). Returns (groups seen, hazards)."""
    open_regs, groups, hazards, seen = set(), [], [], 0
    for lap in (0, 1):
        for inst in body:
            op = opcode(inst)
            if op == "HGMMA":
                m = re.search(r"HGMMA\.\S+\s+R\d+,\s+R(\d+),", inst)
                if m:
                    open_regs |= set(range(int(m.group(1)),
                                           int(m.group(1)) + 4))
                if "gsb0" in inst:
                    groups.append(open_regs)
                    seen += lap if open_regs else 0
                    open_regs = set()
                continue
            m = re.search(r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s+(0x[0-9a-f]+)",
                          inst)
            if m:
                keep = int(m.group(1), 16)
                groups = groups[len(groups) - keep:] if keep else []
                continue
            live = set().union(*groups) if groups else set()
            hit = [r for r in written_registers(inst) if r in live]
            if hit and lap:
                hazards.append(inst)
    return seen, hazards


def basic_blocks(body, labels, first):
    """The loop body (instructions first.. of the SASS) as basic blocks:
    [(begin, end)] and each block's successors inside the body."""
    n = len(body)
    target_of = {}
    for name, at in labels.items():
        if first <= at < first + n:
            target_of[name] = at - first
    starts = {0} | set(target_of.values())
    for k, inst in enumerate(body):
        if "BRA" in opcode(inst) and k + 1 < n:
            starts.add(k + 1)
    starts = sorted(starts)
    ranges = [(b, starts[i + 1] if i + 1 < len(starts) else n)
              for i, b in enumerate(starts)]
    index = {b: i for i, (b, _) in enumerate(ranges)}
    succs = []
    for b, e in ranges:
        last = body[e - 1]
        out = []
        m = re.search(r"BRA\s+`\((\.L_x_\d+)\)", last)
        if m and m.group(1) in target_of:
            out.append(index[target_of[m.group(1)]])
        conditional = re.match(r"^@!?U?P", last) is not None
        if (not m or conditional) and e < n:
            out.append(index[e])
        succs.append(out)
    return ranges, succs


def dominators(succs):
    """Predecessors and dominator sets of a graph entered at block 0
    (iterative; loop bodies are small)."""
    nb = len(succs)
    preds = [[] for _ in range(nb)]
    for i, out in enumerate(succs):
        for j in out:
            preds[j].append(i)
    dom = [set(range(nb))] * nb
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for i in range(1, nb):
            ps = [dom[p] for p in preds[i]]
            d = (set.intersection(*ps) if ps else set()) | {i}
            if d != dom[i]:
                dom[i], changed = d, True
    return preds, dom


def hot_path(body, labels, first):
    """Instructions of the loop body outside the edge chunks' code.

    The body (instructions first.. of the SASS) is cut into basic blocks. A
    block is cold when it is dominated by the entry of an edge path: one
    side of a two-way branch that leads to scalar global loads (an edge
    chunk's element loads) where the other side does not (see below). A
    pass through the loop with every chunk inside the view skips them;
    everything else is the hot path.
    """
    ranges, succs = basic_blocks(body, labels, first)
    preds, dom = dominators(succs)
    nb = len(ranges)

    def loads(i, edge):
        b, e = ranges[i]
        return any(GLOBAL_LOAD.search(x) and
                   bool(EDGE_LOAD.search(x)) == edge for x in body[b:e])
    edge = {i for i in range(nb) if loads(i, True)}
    fast = {i for i in range(nb) if loads(i, False)}
    region = [{i for i in range(nb) if x in dom[i]} for x in range(nb)]
    # A two-way branch whose side s1 leads to edge loads (its region holds
    # some) makes s1 an edge path when
    # - the other side s2 is where s1 rejoins (s2 has other predecessors:
    #   "if (not inside) assemble"), and s1 copies nothing fast, or
    # - s2 is a side of its own that holds no edge loads and copies at least
    #   as much (fast loads on it if there are on s1): a per-chunk "inside
    #   the view?" test, or one test for all of a thread's chunks.
    # A guard such as "this thread has a chunk to copy" is on the hot path
    # of some threads: its s1 holds fast loads, its s2 none.
    cold = set()
    for x, out in enumerate(succs):
        if len(out) != 2 or out[0] == out[1]:
            continue
        for s1, s2 in (out, out[::-1]):
            if not region[s1] & edge or s1 in dom[nb - 1]:
                continue
            if len(preds[s2]) > 1:
                edge_side = not region[s1] & fast
            else:
                edge_side = (not region[s2] & edge and
                             (not region[s1] & fast or region[s2] & fast))
            if edge_side:
                cold |= region[s1]
    return [x for i, (b, e) in enumerate(ranges) if i not in cold
            for x in body[b:e]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("--kernel")
    ap.add_argument("-D", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--per", help="tensor whose bytes divide (default: all)")
    ap.add_argument("--tma", action="store_true",
                    help="compile with --tma (sm_90: TMA copies)")
    ap.add_argument("--warp-specialize", action="store_true",
                    help="compile with --warp-specialize (sm_90a: a "
                    "producer warpgroup issues the TMA copies; the main "
                    "loop is then the producer's, and the MMA loop is "
                    "reported too; instructions per byte count the "
                    "producer's loop once and the MMA loop per consumer "
                    "warp)")
    ap.add_argument("--fallback", action="store_true",
                    help="report on the kernel's copy compiled without TMA "
                    "(<kernel>__fallback, tile-clone-fallbacks) instead of "
                    "the kernel")
    ap.add_argument("--tilec", default=os.environ.get("TILEC", "tilec"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cold-spills-ok", action="store_true",
                    help="with --max-registers: accept spills whose local "
                    "memory accesses are all outside the main loop (ptxas "
                    "parks a few loop-invariant registers once per CTA to "
                    "stay at an occupancy step)")
    ap.add_argument("--hot", action="store_true",
                    help="also print the hot path's instructions")
    ap.add_argument("--max-ipb", type=float, metavar="X",
                    help="exit 3 when warp instructions per byte exceed X")
    ap.add_argument("--max-registers", type=int, metavar="R",
                    help="exit 3 when registers exceed R or anything spills")
    ap.add_argument("--check-register-a", action="store_true",
                    help="exit 3 when the MMA loop writes a register that a "
                    "register-A wgmma group in flight reads, or has no "
                    "such group")
    a = ap.parse_args()
    if not a.target.startswith("sm_"):
        ap.error("NVIDIA targets only (sm_80 ... sm_90a)")
    tools = ["/opt/tilec-cuda-tools/bin", "/usr/local/cuda/bin"]
    nvdisasm = find_tool("nvdisasm", tools)
    if not nvdisasm:
        sys.stderr.write("sass-report: nvdisasm not found (scripts/"
                         "install-deps.sh installs it; or set TILE_NVDISASM)\n")
        sys.exit(1)
    common = [a.file, "--target=" + a.target]
    for d in a.D:
        common += ["-D", d]
    if a.kernel:
        common += ["--kernel=" + a.kernel]
    if a.tma:
        common += ["--tma"]
    if a.warp_specialize:
        common += ["--warp-specialize"]
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        ptxas = run([a.tilec] + common + ["--emit=obj", "-v", "-o", cubin])
        tile_ir = run([a.tilec] + common + ["--emit=tile"])
        sass = run([nvdisasm, "-c", cubin])
    entry, ptxas, tile_ir, sass = one_entry(ptxas, tile_ir, sass, a.fallback)
    if entry is None:
        sys.stderr.write("sass-report: no %s in the cubin\n" %
                         ("fallback" if a.fallback else "kernel"))
        sys.exit(1)
    regs = int(re.search(r"Used (\d+) registers", ptxas).group(1))
    spills = [int(x) for x in re.search(
        r"(\d+) bytes spill stores, (\d+) bytes spill loads", ptxas).groups()]
    warps = int(re.search(r"tile\.warps = (\d+)", tile_ir).group(1))
    smem = int(re.search(r"tile\.shared_bytes = (\d+)", tile_ir).group(1))
    per_tensor, stages = loop_bytes(tile_ir)
    labels, insts = parse_sass(sass)
    loop = main_loop(labels, insts)
    if loop is None:
        sys.stderr.write("sass-report: no loop with global loads in the "
                         "SASS\n")
        sys.exit(1)
    body = insts[loop[0]:loop[1] + 1]
    hot = hot_path(body, labels, loop[0])
    if a.per and a.per not in per_tensor:
        ap.error("--per %s: the loop loads %s" % (a.per,
                                                  ", ".join(per_tensor)))
    denom = per_tensor[a.per] if a.per else sum(per_tensor.values())
    producers = re.search(r"tile\.producer_warps = (\d+)", tile_ir)
    threads = (warps + (int(producers.group(1)) if producers else 0)) * 32
    mma = mma_loop(labels, insts)
    regs_alloc = (regs + 7) // 8 * 8
    limits = {
        "registers": REGS_PER_SM // (regs_alloc * threads),
        "shared memory": (SMEM_PER_SM // (smem + SMEM_RESERVED_PER_CTA)
                          if smem else MAX_CTAS_PER_SM),
        "threads": MAX_THREADS_PER_SM // threads,
    }
    ctas = min(min(limits.values()), MAX_CTAS_PER_SM)
    # `occupancy P` (tile.occupancy, none for 1): what the kernel asked for.
    asked = re.search(r"tile\.occupancy = (\d+)", tile_ir)
    in_flight = ctas * sum(per_tensor.values()) * max(1, stages - 1)
    r = {
        "registers": regs, "spill_store_bytes": spills[0],
        "spill_load_bytes": spills[1], "warps": warps, "shared_bytes": smem,
        "ctas_per_sm": ctas, "ctas_per_sm_limits": limits,
        "occupancy_asked": int(asked.group(1)) if asked else 1,
        "bytes_per_iteration": dict(per_tensor),
        "stages": stages, "bytes_in_flight_per_sm": in_flight,
        "loop_instructions": len(body), "hot_instructions": len(hot),
        "loop_local_memory_instructions": sum(
            opcode(i) in ("LDL", "STL") for i in body),
        "per": a.per or "all",
        "warp_instructions_per_byte": round(
            issued_per_iteration(len(hot), warps, producers, mma) / denom, 4)
        if denom else None,
        "hot_opcodes": dict(Counter(opcode(i) for i in hot).most_common(12)),
        "producer_warps": int(producers.group(1)) if producers else 0,
        "mma_loop_instructions": mma[1] - mma[0] + 1 if mma else None,
        "mma_loop_local_accesses": sum(
            1 for x in insts[mma[0]:mma[1] + 1]
            if opcode(x) in ("LDL", "STL")) if mma else None,
    }
    seen, hazards = register_a_hazards(insts[mma[0]:mma[1] + 1]) if mma \
        else (0, [])
    r["register_a_groups"], r["register_a_hazards"] = seen, hazards
    if a.json:
        print(json.dumps(r, indent=1))
    else:
        print_report(r, per_tensor, stages, len(body), len(hot))
    if a.hot:
        print("hot path:")
        for i in hot:
            print("  " + i)
    bad = []
    if a.max_ipb is not None and (r["warp_instructions_per_byte"] is None or
                                  r["warp_instructions_per_byte"] > a.max_ipb):
        bad.append("%s warp instructions per byte > %s" %
                   (r["warp_instructions_per_byte"], a.max_ipb))
    loop_spills = r["loop_local_memory_instructions"]
    spilled = loop_spills if a.cold_spills_ok else any(spills)
    if a.max_registers is not None and (regs > a.max_registers or spilled):
        bad.append("%d registers (limit %d), spills %d/%d" %
                   (regs, a.max_registers, spills[0], spills[1]))
    if a.check_register_a and not r["register_a_groups"]:
        bad.append("no register-A wgmma group in the MMA loop")
    elif a.check_register_a and r["register_a_hazards"]:
        bad.append("registers of a register-A wgmma group in flight "
                   "written: " + "; ".join(r["register_a_hazards"]))
    if bad:
        sys.stderr.write("sass-report: regression: " + "; ".join(bad) + "\n")
        sys.exit(3)


def print_report(r, per_tensor, stages, loop_len, hot_len):
    regs, spills = r["registers"], (r["spill_store_bytes"],
                                    r["spill_load_bytes"])
    warps, smem = r["warps"], r["shared_bytes"]
    ctas, in_flight = r["ctas_per_sm"], r["bytes_in_flight_per_sm"]
    body, hot = range(loop_len), range(hot_len)
    print("registers %d, spills %d/%d bytes, %d warps, shared %d bytes" %
          (regs, spills[0], spills[1], warps, smem))
    print("CTAs per SM (H100 limits): %d; bytes in flight per SM: %d" %
          (ctas, in_flight))
    print("CTAs per SM by " + ", ".join(
        "%s %d" % kv for kv in r["ctas_per_sm_limits"].items()) +
        "; occupancy asked %d" % r["occupancy_asked"])
    print("bytes per iteration: " + ", ".join(
        "%s %d" % kv for kv in per_tensor.items()) + "; stages %d" % stages)
    print("main loop: %d instructions, %d without edge chunks; local "
          "memory accesses in it: %d" %
          (len(body), len(hot), r["loop_local_memory_instructions"]))
    if r["producer_warps"]:
        print("producer warps %d; MMA loop (consumers): %s instructions" %
              (r["producer_warps"], r["mma_loop_instructions"]))
    print("warp instructions per byte of %s: %s" %
          (r["per"], r["warp_instructions_per_byte"]))
    print("opcodes: " + ", ".join("%s %d" % kv
                                 for kv in r["hot_opcodes"].items()))
    if r["register_a_groups"]:
        print("register-A wgmma groups per MMA loop iteration: %d; writes "
              "to their registers in flight: %d" %
              (r["register_a_groups"], len(r["register_a_hazards"])))


if __name__ == "__main__":
    main()
