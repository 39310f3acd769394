#!/usr/bin/env python3
"""Merges the timings of a benchmark run into results.md and results.csv.

  report.py --cases CASES_JSON --times DIR [--baselines CSV] [--checks CSV]
            [--device JSON] --out DIR

Pure Python (no numpy), so that it is tested on machines without a GPU.

Inputs
  cases.json     bench/cases.py describe: one entry per benchmark test
                 (case id, family, test index, sizes, defines, flops, bytes)
  DIR/CASE.csv   tile-run --timing-csv of bundle CASE (tile/runtime/Timing.h)
  baselines CSV  case,test,baseline,median_ms,p10_ms,p90_ms,runs,note
                 (gpu_bench.py; baseline "roofline" is bytes or flops over
                 the measured ceiling, "copy-same-bytes" a copy moving the
                 test's bytes timed the same way (--rotate runs): neither
                 is a kernel)
  checks CSV     case,test,status,rel_err,note  (status pass/fail/unchecked)
  device JSON    what gpu_bench.py measured about the device
Outputs: results.csv (one row per test) and results.md (tables per family).
Speedup is baseline time / our time: above 1, our kernel is faster.
"""

import argparse
import csv
import json
import os
import sys

MEMORY_BOUND = {"softmax", "rmsnorm_quant", "vector_add", "gemm_wq",
                "gemm_decode", "gemm_decode_packed"}


def _read_csv(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _fmt(v, digits=3):
    if v is None:
        return "–"
    if abs(v) >= 100:
        return "%.0f" % v
    return ("%." + str(digits) + "g") % v


def shape_text(sizes):
    return " ".join("%s=%s" % (k, sizes[k]) for k in sorted(sizes))


def config_text(defines):
    return " ".join("%s=%s" % (k, v) for k, v in defines.items())


def load_times(times_dir):
    """(case, test) -> our timing row (tile-run CSV)."""
    out = {}
    if not times_dir or not os.path.isdir(times_dir):
        return out
    for name in sorted(os.listdir(times_dir)):
        if not name.endswith(".csv"):
            continue
        case = name[:-len(".csv")]
        for row in _read_csv(os.path.join(times_dir, name)):
            out[(case, int(row["test"]))] = row
    return out


def build_rows(cases, times, baselines, checks):
    """One merged dict per benchmark test."""
    base = {}
    for b in baselines:
        base.setdefault((b["case"], int(b["test"])), []).append(b)
    chk = {(c["case"], int(c["test"])): c for c in checks}
    rows = []
    for t in cases["tests"]:
        key = (t["case"], int(t["test"]))
        ours = times.get(key)
        check = chk.get(key)
        r = {"case": t["case"], "family": t["family"], "test": t["test"],
             "shape": shape_text(t["sizes"]),
             "config": config_text(t["defines"]),
             "check": check["status"] if check else "unchecked",
             "rel_err": float(check["rel_err"]) if check and
             check.get("rel_err") not in (None, "") else None,
             "check_note": check.get("note", "") if check else "",
             "flops": float(t["flops"]), "bytes": float(t["bytes"]),
             "ms": None, "p10": None, "p90": None, "runs": None,
             "rotate_sets": 0}
        if ours:
            r["ms"] = float(ours["median_ms"])
            r["p10"] = float(ours["p10_ms"])
            r["p90"] = float(ours["p90_ms"])
            r["runs"] = int(ours["runs"])
            r["device"] = ours["device"]
            r["rotate_sets"] = int(ours.get("rotate_sets") or 0)
        ms = r["ms"]
        r["tflops"] = r["flops"] / (ms * 1e9) if ms else None
        r["gbs"] = r["bytes"] / (ms * 1e6) if ms else None
        kernels = [b for b in base.get(key, [])
                   if b["baseline"] not in ("roofline", "copy-same-bytes")]
        roof = [b for b in base.get(key, []) if b["baseline"] == "roofline"]
        copy = [b for b in base.get(key, [])
                if b["baseline"] == "copy-same-bytes"]
        r["copy_ms"] = float(copy[0]["median_ms"]) if copy else None
        r["of_copy"] = r["copy_ms"] / ms if r["copy_ms"] and ms else None
        r["baselines"] = [(b["baseline"], float(b["median_ms"]))
                          for b in kernels if b["median_ms"] not in ("", None)]
        r["roofline_ms"] = float(roof[0]["median_ms"]) if roof else None
        best = min(r["baselines"], key=lambda x: x[1]) if r["baselines"] \
            else None
        r["best_baseline"] = best[0] if best else None
        r["best_ms"] = best[1] if best else None
        r["speedup"] = best[1] / ms if best and ms else None
        r["of_roofline"] = r["roofline_ms"] / ms if r["roofline_ms"] and ms \
            else None
        rows.append(r)
    return rows


CSV_FIELDS = ["case", "family", "test", "shape", "config", "check", "rel_err",
              "median_ms", "p10_ms", "p90_ms", "runs", "tflops", "gbs",
              "roofline_ms", "of_roofline", "best_baseline", "baseline_ms",
              "speedup", "all_baselines", "rotate_sets", "copy_ms", "of_copy"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for r in rows:
            w.writerow([r["case"], r["family"], r["test"], r["shape"],
                        r["config"], r["check"],
                        "" if r["rel_err"] is None else "%.3g" % r["rel_err"],
                        _num(r["ms"]), _num(r["p10"]), _num(r["p90"]),
                        r["runs"] or "", _num(r["tflops"]), _num(r["gbs"]),
                        _num(r["roofline_ms"]), _num(r["of_roofline"]),
                        r["best_baseline"] or "", _num(r["best_ms"]),
                        _num(r["speedup"]),
                        ";".join("%s=%.6g" % b for b in r["baselines"]),
                        r["rotate_sets"] or "", _num(r["copy_ms"]),
                        _num(r["of_copy"])])


def _num(v):
    return "" if v is None else "%.6g" % v


def write_markdown(rows, device, path, title):
    lines = ["# " + title, ""]
    d = device or {}
    lines.append("- Device: %s" % d.get("name", rows[0].get("device", "?")
                                           if rows else "?"))
    for key, label in [("date", "Date"), ("driver", "Driver"),
                       ("versions", "Software"), ("clocks", "Clocks"),
                       ("copy_gbs", "Measured copy bandwidth (GB/s)"),
                       ("matmul_tflops", "Measured f16 matmul (TFLOP/s)"),
                       ("method", "Method")]:
        if key in d:
            lines.append("- %s: %s" % (label, d[key]))
    lines.append("- Times are medians (p10–p90 in brackets) of CUDA-event "
                 "timed launches; speedup = best baseline time / our time "
                 "(above 1: ours is faster); roofline = time at the measured "
                 "copy bandwidth (memory-bound) or matmul rate.")
    if any(r["rotate_sets"] for r in rows):
        lines.append("- Rotating method (`--rotate`): each time is a window "
                     "of launches back to back over copies of the tensors "
                     "(more bytes than the L2 cache holds), divided by the "
                     "launches; \"copy\" is a copy of the test's bytes "
                     "timed the same way.")
    bad = [r for r in rows if r["check"] == "fail"]
    if bad:
        lines.append("- **%d test(s) produced wrong output and were not "
                     "timed**: %s" % (len(bad), ", ".join(
                         "%s[%s]" % (r["case"], r["shape"]) for r in bad)))
    lines.append("")
    lines += summary_lines(rows)
    families = []
    for r in rows:
        if r["family"] not in families:
            families.append(r["family"])
    for fam in families:
        lines.append("## " + fam)
        lines.append("")
        rate = "GB/s" if fam in MEMORY_BOUND else "TFLOP/s"
        lines.append("| case | shape | check | ours ms [p10–p90] | %s | "
                     "of roofline | best baseline | baseline ms | speedup |"
                     % rate)
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            if r["family"] != fam:
                continue
            ms = "–" if r["ms"] is None else "%s [%s–%s]" % (
                _fmt(r["ms"], 4), _fmt(r["p10"], 4), _fmt(r["p90"], 4))
            rv = r["gbs"] if fam in MEMORY_BOUND else r["tflops"]
            check = r["check"]
            if r["rel_err"] is not None:
                check += " (%.1e)" % r["rel_err"]
            roof = "–" if r["of_roofline"] is None else \
                "%.0f%%" % (100 * r["of_roofline"])
            if r["of_copy"] is not None:
                roof += " (copy: %.0f%%)" % (100 * r["of_copy"])
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["case"], r["shape"], check, ms, _fmt(rv), roof,
                r["best_baseline"] or "–", _fmt(r["best_ms"], 4),
                "–" if r["speedup"] is None else "%.2fx" % r["speedup"]))
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def summary_lines(rows):
    """One line per (family, shape): the fastest of our configurations for
    it (the on-device pick) against the best baseline."""
    best = {}
    for r in rows:
        if r["ms"] is None:
            continue
        key = (r["family"], r["shape"])
        if key not in best or r["ms"] < best[key]["ms"]:
            best[key] = r
    if not best:
        return []
    lines = ["## Summary: fastest configuration per shape", "",
             "| family | shape | configurations timed | fastest | ms | "
             "best baseline | baseline ms | speedup |",
             "|---|---|---|---|---|---|---|---|"]
    for (fam, shape), r in best.items():
        n = sum(1 for x in rows if x["family"] == fam and x["shape"] == shape
                and x["ms"] is not None)
        lines.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
            fam, shape, n, r["case"], _fmt(r["ms"], 4),
            r["best_baseline"] or "–", _fmt(r["best_ms"], 4),
            "–" if r["speedup"] is None else "%.2fx" % r["speedup"]))
    return lines + [""]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", required=True)
    p.add_argument("--times", required=True)
    p.add_argument("--baselines")
    p.add_argument("--checks")
    p.add_argument("--device")
    p.add_argument("--out", required=True)
    p.add_argument("--title", default="tilec benchmarks")
    a = p.parse_args(argv)
    try:
        with open(a.cases) as f:
            cases = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("report.py: cannot read %s: %s" % (a.cases, e))
    device = None
    if a.device and os.path.exists(a.device):
        with open(a.device) as f:
            device = json.load(f)
    rows = build_rows(cases, load_times(a.times), _read_csv(a.baselines),
                      _read_csv(a.checks))
    os.makedirs(a.out, exist_ok=True)
    write_csv(rows, os.path.join(a.out, "results.csv"))
    write_markdown(rows, device, os.path.join(a.out, "results.md"), a.title)
    timed = sum(1 for r in rows if r["ms"] is not None)
    print("report: %d tests, %d timed -> %s" % (len(rows), timed,
                                                os.path.join(a.out,
                                                             "results.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
