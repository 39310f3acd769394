"""Random-program smoke test of the whole front end, MLIR generation
included: generates N kernels (deterministic seed) that mix typed values,
operators and builtins, many of them ill-typed on purpose, and checks that
tilec either compiles each one to verified IR (exit 0) or rejects it with a
located error (exit 1) - never a crash, a signal or an internal error.

Usage: random_programs.py TILEC N SEED all|float TMPDIR"""
import random, subprocess, sys, os, re
tilec, n, seed, mode, tmp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
os.makedirs(tmp, exist_ok=True)
rng = random.Random(seed)
HDR = """kernel r<BM: int = 16, T: type = u8, Z: bool = true>(A: f16[M, K], B: T[M, K], C: mut f32[M, K], D: mut f16[M, K], eps: f32, n: i32)
    grid(cdiv(M, BM), 2) warps 4
{
    let m0 = program_id(0) * BM;
    let ta = load(A[m0 : m0 + BM, 0 : 16]);
    let tb = load(B[m0 : m0 + BM, 0 : 16]);
    let tc = cast(f32, ta);
    let ti = arange(m0, m0 + 16);
    let tr = sum(tc, 1);
    var acc = zeros(f32, [16, 16]);
"""
names_all = ["m0", "ta", "tb", "tc", "ti", "tr", "acc", "eps", "n", "BM", "M", "K", "Z", "1", "2.5", "-inf", "true", "0"]
names_float = ["tc", "acc", "tr", "tr[:, None]", "tr[None, :]", "eps", "2.5", "-inf", "1", "cast(f32, ti)", "cast(f32, tb)", "cast(f32, m0)"]
binops_float = ["+", "-", "*", "/", "<", ">="]
unops = ["exp", "exp2", "log", "sqrt", "rsqrt", "abs", "floor", "ceil", "tanh", "sigmoid", "silu", "gelu"]
binops_all = ["+", "-", "*", "/", "%", "<", ">=", "==", "!=", "&", "|", "^", "<<", ">>", "&&", "||"]
names = names_all if mode == "all" else names_float
binops = binops_all if mode == "all" else binops_float
def expr(d):
    if d <= 0 or rng.random() < 0.25:
        return rng.choice(names)
    r = rng.random()
    if r < 0.35:
        return "(%s %s %s)" % (expr(d-1), rng.choice(binops), expr(d-1))
    if r < 0.5:
        return "%s(%s)" % (rng.choice(unops), expr(d-1))
    if r < 0.55:
        return "cast(%s, %s)" % (rng.choice(["f32", "f16", "bf16", "i32", "u8", "i4", "f8e4m3", "T"]), expr(d-1))
    if r < 0.6:
        return "%s(%s, %s)" % (rng.choice(["maximum", "minimum", "max", "min", "sum", "cdiv"]), expr(d-1), rng.choice(["0", "1", expr(d-1)]))
    if r < 0.65:
        return "where(%s, %s, %s)" % (expr(d-1), expr(d-1), expr(d-1))
    if r < 0.7:
        return "%s[%s]" % (expr(d-1), rng.choice([":, None", "None, :", ":, :", ":", "None"]))
    if r < 0.75:
        return "trans(%s)" % expr(d-1)
    if r < 0.8:
        return "dot(%s, %s)" % (expr(d-1), expr(d-1))
    if r < 0.85:
        return "bitcast(%s, %s)" % (rng.choice(["i8", "u4", "f16", "i32"]), expr(d-1))
    if r < 0.9:
        return "reshape(%s, [%s])" % (expr(d-1), rng.choice(["256", "16, 16", "16", "1, 16"]))
    return "(-%s)" % expr(d-1)
def stmt(i, d=0):
    r = rng.random()
    if r < 0.35:
        return "let v%d = %s;" % (i, expr(3))
    if r < 0.5:
        return "acc = %s;" % expr(3)
    if r < 0.6:
        return "store(C[m0 : m0 + BM, 0 : 16], %s);" % expr(3)
    if r < 0.65:
        return "store(D[m0 : m0 + BM, 0 : 16], %s);" % expr(3)
    if r < 0.75 and d < 2:
        return "if %s { %s } else { %s }" % (expr(2), stmt(i*10+1, d+1), stmt(i*10+2, d+1))
    if r < 0.85 and d < 2:
        return "for k%d in 0 .. %s step %s { %s }" % (i, rng.choice(["K", "n", "4"]), rng.choice(["1", "16", "BM"]), stmt(i*10+3, d+1))
    return "let w%d = %s;" % (i, expr(2))
bad = 0; ok = 0; rej = 0
for t in range(n):
    prog = HDR + "".join("    %s\n" % stmt(i) for i in range(rng.randint(1, 5))) + "}\n"
    path = os.path.join(tmp, "p.tile")
    open(path, "w").write(prog)
    p = subprocess.run([tilec, path], capture_output=True, text=True)
    if p.returncode == 0:
        ok += 1
    elif p.returncode == 1 and re.search(r"p\.tile:\d+:\d+: error:", p.stderr) and "internal error" not in p.stderr:
        rej += 1
    else:
        bad += 1
        print("BAD rc=%d\n%s\n%s" % (p.returncode, prog, p.stderr[-1500:]))
        if bad > 5: break
print("compiled %d, rejected cleanly %d, bad %d" % (ok, rej, bad))
sys.exit(1 if bad or ok == 0 else 0)
