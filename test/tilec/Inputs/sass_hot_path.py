"""Checks scripts/sass-report.py's split of a main loop into the hot path and
the copies' edge paths on hand-written SASS of the shapes tilec emits. Each
case names the instructions that must stay on the hot path; the test fails
if an edge path is counted or a hot block is dropped."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("sass_report", sys.argv[1])
sr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sr)


def sass(lines):
    out, at = [], 0
    for line in lines:
        if line.endswith(":"):
            out.append(line)
        else:
            out.append(f"        /*{at:04x}*/                   {line} ;")
            at += 16
    return "\n".join(out)


def hot(lines):
    labels, insts = sr.parse_sass(sass(lines))
    first, last = sr.main_loop(labels, insts)
    return [sr.opcode(i) for i in sr.hot_path(insts[first:last + 1], labels,
                                              first)]


FAST = "LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]"
EDGE = "LDG.E.U16 R5, desc[UR4][R6.64]"
cases = {
    # if (inside) cp.async else assemble: the else side is cold.
    "diamond": ([".L_x_0:", "ISETP.GE.AND P0, PT, R1, R2, PT",
                 "@P0 BRA `(.L_x_1)", FAST, "BRA `(.L_x_2)", ".L_x_1:", EDGE,
                 "STS.128 [R3], R8", ".L_x_2:", "HMMA.16816.F32 R10, R12, R14, R10",
                 "@P1 BRA `(.L_x_0)"],
                ["ISETP", "BRA", "LDGSTS", "BRA", "HMMA", "BRA"]),
    # ptxas predicated the cp.async and branches around the edge code.
    "triangle": ([".L_x_0:", "ISETP.GE.AND P0, PT, R1, R2, PT", "@P0 " + FAST,
                  "@P0 BRA `(.L_x_2)", EDGE, "STS.128 [R3], R8", ".L_x_2:",
                  "HMMA.16816.F32 R10, R12, R14, R10", "@P1 BRA `(.L_x_0)"],
                 ["ISETP", "LDGSTS", "BRA", "HMMA", "BRA"]),
    # "this thread has a chunk" guards both paths: it stays hot.
    "guard": ([".L_x_0:", "ISETP.GE.AND P2, PT, R0, 0x8, PT",
               "@P2 BRA `(.L_x_3)", "ISETP.GE.AND P0, PT, R1, R2, PT",
               "@P0 BRA `(.L_x_1)", FAST, "BRA `(.L_x_3)", ".L_x_1:", EDGE,
               "STS.128 [R3], R8", ".L_x_3:",
               "HMMA.16816.F32 R10, R12, R14, R10", "@P1 BRA `(.L_x_0)"],
              ["ISETP", "BRA", "ISETP", "BRA", "LDGSTS", "BRA", "HMMA",
               "BRA"]),
    # One test for all of a thread's chunks; the other side checks each
    # chunk again (fast loads on both sides): that side is cold.
    "combined": ([".L_x_0:", "ISETP.GE.AND P0, PT, R1, R2, PT",
                  "@P0 BRA `(.L_x_1)", FAST, FAST, "BRA `(.L_x_4)", ".L_x_1:",
                  "ISETP.GE.AND P3, PT, R1, R9, PT", "@P3 BRA `(.L_x_2)", FAST,
                  "BRA `(.L_x_3)", ".L_x_2:", EDGE, "STS.128 [R3], R8",
                  ".L_x_3:", "IADD3 R1, R1, 0x10, RZ", ".L_x_4:",
                  "HMMA.16816.F32 R10, R12, R14, R10", "@P1 BRA `(.L_x_0)"],
                 ["ISETP", "BRA", "LDGSTS", "LDGSTS", "BRA", "HMMA", "BRA"]),
}
failed = False
for name, (lines, want) in cases.items():
    got = hot(lines)
    print(f"{name}: {' '.join(got)}")
    if got != want:
        print(f"  expected: {' '.join(want)}")
        failed = True
sys.exit(1 if failed else 0)
