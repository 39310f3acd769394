"""Checks scripts/sass-report.py's register-A hazard scan (register_a_hazards)
on hand-written SASS of a loop with register-A HGMMA groups: the form tilec
emits for a register-A product left in flight (two groups, each half's
registers written only after the wait that retires it), the form the PTX
ISA forbids (one group in flight whose registers the next iteration
writes), a wait for every group, and a write that overlaps a group's
registers only through its width (LDS.64). Prints the groups per iteration
and the hazards found for each case."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("sass_report", sys.argv[1])
sr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sr)


def group(a, last=True):
    return ["HGMMA.64x128x16.F32 R24, R%d, gdesc[UR16], R24%s" %
            (a, ", gsb0" if last else "")]


def dequant(regs):
    return ["HFMA2 R%d, R200.H0_H0, R201, R202.H0_H0" % r for r in regs]


WAIT1 = ["WARPGROUP.DEPBAR.LE gsb0, 0x1"]
WAIT0 = ["WARPGROUP.DEPBAR.LE gsb0, 0x0"]
ARRIVE = ["WARPGROUP.ARRIVE"]
cases = {
    # Halves: R168.. then R152.., each written after the wait retiring it.
    "halves": dequant(range(168, 172)) + ARRIVE + group(168) + WAIT1 +
    dequant(range(152, 156)) + ARRIVE + group(152) + WAIT1,
    # One group left in flight: the next iteration rewrites R152-R155.
    "one-group": dequant(range(152, 156)) + ARRIVE + group(152) + WAIT1,
    # The same waited for at once.
    "waited": dequant(range(152, 156)) + ARRIVE + group(152) + WAIT0,
    # Both operands from shared memory: no register-A group.
    "descriptors": ARRIVE + ["HGMMA.64x128x16.F32 R24, gdesc[UR4], R24, gsb0"]
    + WAIT1,
    # Halves, but a 64-bit load into R166-R167 while the second half's group
    # (R164-R167) runs; R163 alone is outside it.
    "wide-write": dequant(range(168, 172)) + ARRIVE + group(168) + WAIT1 +
    dequant(range(164, 168)) + ARRIVE + group(164) +
    ["LDS.64 R166, [R3]", "MOV R163, R2"] + WAIT1,
}
for name, body in cases.items():
    seen, hazards = sr.register_a_hazards(body)
    print("%s: groups %d, hazards %d%s" % (
        name, seen, len(hazards),
        "".join(" [" + sr.opcode(h) + "]" for h in hazards[:2])))
