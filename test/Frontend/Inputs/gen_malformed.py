"""Regenerates test/Frontend/malformed-corpus: small malformed programs that
tilec must reject with a located error and exit code 1 (never a crash).

Usage: python3 gen_malformed.py OUT_DIR"""
import os, random, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
GOOD = """kernel gemm<BM: int = 64, BN: int = 64, BK: int = 32, STAGES: int = 3>(
    A: f16[M, K], B: f16[K, N], C: mut f16[M, N])
    grid(cdiv(N, BN), cdiv(M, BM)) warps 4
    tune { BM in [64, 128]; BK in [32, 64] }
{
    let m0 = program_id(1) * BM;
    let n0 = program_id(0) * BN;
    var acc = zeros(f32, [BM, BN]);
    for k in 0 .. K step BK pipeline STAGES {
        acc = dot(load(A[m0 : m0 + BM, k : k + BK]), load(B[k : k + BK, n0 : n0 + BN]), acc);
    }
    if BM > 32 {
        acc = acc * 2.0;
    }
    store(C[m0 : m0 + BM, n0 : n0 + BN], cast(f16, acc));
}
"""
cases = {}
# Truncations of a valid kernel at many points.
for i, cut in enumerate(range(7, len(GOOD) - 3, 37)):
    cases["trunc-%03d" % i] = GOOD[:cut]
# Single-character deletions of structural characters.
rng = random.Random(1234)
structural = [i for i, c in enumerate(GOOD) if c in "()[]{};:,<>=."]
for i in range(25):
    p = rng.choice(structural)
    cases["delete-%02d" % i] = GOOD[:p] + GOOD[p + 1:]
# Token substitutions.
subs = [("let m0", "let 0m"), ("warps 4", "warps"), ("grid(", "grid"),
        ("f16[M, K]", "f16[M,, K]"), ("BM: int", "BM int"), ("..", "..."),
        ("dot(", "dot(("), ("step BK", "step"), ("mut f16", "mut"),
        ("tune {", "tune"), ("BK in [32, 64]", "BK in 32, 64"),
        ("kernel gemm", "kernel"), ("acc = dot", "acc == dot"),
        ("cast(f16, acc)", "cast(f16 acc)"), ("if BM > 32", "if"),
        ("0 .. K", "0 K"), ("[BM, BN]", "[BM, BN"), ("A: f16", "A f16")]
for i, (a, b) in enumerate(subs):
    assert a in GOOD, a
    cases["subst-%02d" % i] = GOOD.replace(a, b, 1)
# Binary garbage and odd bytes.
for i in range(8):
    cases["garbage-%d" % i] = bytes(rng.randrange(256) for _ in range(64 + 97 * i))
cases["nul-bytes"] = GOOD[:120].encode() + b"\0\0\0" + GOOD[120:].encode()
cases["utf8"] = GOOD.replace("let n0", "let n\u00e9", 1)
cases["empty"] = ""
cases["only-comment"] = "// nothing here\n/* still nothing */\n"
cases["unterminated-comment"] = GOOD + "/* ..."
cases["deep-parens"] = GOOD.replace("let m0 = ", "let m0 = " + "(" * 2000, 1)
cases["deep-blocks"] = GOOD.replace("var acc", "{" * 2000 + "var acc", 1)
cases["deep-unary"] = GOOD.replace("let m0 = ", "let m0 = " + "-" * 5000, 1)
cases["long-sum"] = GOOD.replace("let m0 = ", "let m0 = " + " + ".join(["1"] * 20000) + " + ", 1)
cases["long-call-chain"] = GOOD.replace("let m0 = ", "let m0 = " + "abs(" * 3000 + "1" + ")" * 3000 + " + ", 1)
cases["huge-int"] = GOOD.replace("BM: int = 64", "BM: int = 123456789012345678901234567890", 1)
cases["huge-float"] = GOOD.replace("2.0", "1e999", 1)
cases["overflow-fold"] = GOOD.replace("BM: int = 64", "BM: int = 9223372036854775807 + 1", 1)
cases["div-zero-fold"] = GOOD.replace("BM: int = 64", "BM: int = 64 / (2 - 2)", 1)
cases["shift-fold"] = GOOD.replace("BM: int = 64", "BM: int = 1 << 64", 1)
cases["neg-shape"] = GOOD.replace("[BM, BN]", "[BM, -BN]", 1)
cases["zero-step"] = GOOD.replace("step BK", "step 0", 1)
cases["huge-tile"] = GOOD.replace("[BM, BN]", "[1 << 40, BN]", 1)
cases["kernel-twice"] = GOOD + GOOD
cases["stray-brace"] = GOOD + "}\n"
cases["stray-token"] = "let x = 1;\n" + GOOD
cases["bad-type"] = GOOD.replace("f16[M, K]", "f99[M, K]", 1)
cases["bad-small-float"] = GOOD.replace("f16[M, K]", "f8e5m3[M, K]", 1)
cases["none-expr"] = GOOD.replace("2.0", "None", 1)
cases["chained-cmp"] = GOOD.replace("BM > 32", "1 < BM < 32", 1)
cases["kwarg-positional"] = GOOD.replace("cast(f16, acc)", "cast(x = f16, acc)", 1)
# Broken register layout pins (layout(x, L)).
PIN = "    store(C[m0 : m0 + BM, n0 : n0 + BN], cast(f16, acc));"
bad_layouts = {
    "layout-not-layout": "layout(acc, acc)",
    "layout-nested": "layout(acc, layout(acc, spatial(16, 8)))",
    "layout-huge-extent": "layout(acc, local(BM, BN) * replicate(1 << 62) * replicate(1 << 62))",
    "layout-huge-product": "layout(acc, local(9223372036854775807, 1) * local(9223372036854775807, 64))",
    "layout-negative": "layout(acc, spatial(-1, 2))",
    "layout-float-extent": "layout(acc, local(2.5, 1))",
    "layout-empty-factor": "layout(acc, local())",
    "layout-empty-replicate": "layout(acc, replicate())",
    "layout-scalar": "layout(m0, local(1, 1))",
    "layout-type": "layout(f16, local(1, 1))",
}
for name, call in bad_layouts.items():
    assert PIN in GOOD
    cases[name] = GOOD.replace(
        PIN, "    let pinned = " + call + ";\n" + PIN, 1)
for name, text in cases.items():
    data = text if isinstance(text, bytes) else text.encode()
    with open(os.path.join(out, name + ".tile"), "wb") as f:
        f.write(data)
print(len(cases), "files")
