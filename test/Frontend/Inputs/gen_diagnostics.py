# Generates test/Frontend/diagnostics/*.tile: one lit test per error kind.
# '@@' marks where the caret must point; its line:col is computed here,
# independently of the compiler.
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
HDR = "kernel k<BM: int = 64>(A: f16[M, K], C: mut f16[M, K], s: f32, W: u4[M, K], F: f8e4m3[M, K])\n    grid(cdiv(M, BM)) warps 4\n{\n    let m0 = program_id(0) * BM;\n"
def body(b): return HDR + "".join("    " + l + "\n" for l in b.split("\n")) + "}\n"
cases = [
 # name, source, message regex, extra RUN args
 ("lex-bad-char", body("let x = 3 @@$ 4;"), "unexpected character '\\$' in program text", ""),
 ("lex-unterminated-comment", body("let x = 1;\n@@/* never closed"), "unterminated block comment; expected '\\*/'", ""),
 ("lex-int-too-large", body("let x = @@99999999999999999999;"), "integer literal '99999999999999999999' is too large", ""),
 ("lex-bad-number", body("let x = @@12abc;"), "invalid numeric literal '12abc'", ""),
 ("parse-missing-semi", body("let x = m0 + 1\n@@let y = 2;"), "expected ';' after the statement, found 'let'", ""),
 ("parse-missing-brace", "kernel k(A: f32[N]) grid(N) warps 4 {\n    let x = 1;\n// end@@", "expected '}' to close the block, found end of file", ""),
 ("parse-bad-param-kind", "kernel k<BM: @@float = 3>(A: f32[N]) grid(N) warps 4 {\n}\n", "expected 'int', 'type' or 'bool'", ""),
 ("parse-chained-compare", body("let x = m0 < 1 @@< 2;"), "comparisons cannot be chained", ""),
 ("parse-slice-no-end", body("let x = load(A[m0 : @@]);"), "a slice needs an end", ""),
 ("parse-none-outside-index", body("let x = @@None;"), "'None' is only allowed inside an index", ""),
 ("parse-missing-grid", "kernel k(A: f32[N]) @@warps 4 {\n}\n", "expected 'grid' after the parameter list, found 'warps'", ""),
 ("parse-deep-nesting", body("let x = " + "(" * 300 + "1" + ")" * 300 + ";").replace("let x = (", "let x = (", 1), "program nested too deeply", ""),
 ("sema-undeclared", body("let x = @@y + 1;"), "use of undeclared name 'y'", ""),
 ("sema-unknown-function", body("let x = @@foo(1);"), "unknown function 'foo'", ""),
 ("sema-misspelt-builtin", body("let x = @@maximun(s, 1.0);"), "unknown function 'maximun'; did you mean 'maximum'\\?", ""),
 ("sema-slice-extent-runtime", body("let k = program_id(1);\nlet x = load(A[m0 : m0 + BM, @@0 : k]);"), "slice extent is not a compile-time constant", ""),
 ("sema-slice-extent-negative", body("let x = load(A[m0 : m0 + BM, @@32 : 0]);"), "slice extent must be positive, got -32", ""),
 ("sema-dot-inner", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet d = @@dot(a, a);"), "dot\\(\\): inner dimensions differ: a is tile f16\\[64, 32\\] and b is tile f16\\[64, 32\\] \\(32 vs 64\\)", ""),
 ("sema-dot-batch", body("let a = reshape(load(A[m0 : m0 + BM, 0 : 32]), [2, 32, 32]);\nlet b = reshape(a, [4, 32, 16]);\nlet d = @@dot(a, b);"), "dot\\(\\): batch dimensions differ: a is tile f16\\[2, 32, 32\\] and b is tile f16\\[4, 32, 16\\] \\(2 vs 4\\)", ""),
 ("sema-dot-rank", body("let a = reshape(load(A[m0 : m0 + BM, 0 : 32]), [2, 32, 32]);\nlet d = @@dot(a, load(A[0 : 32, 0 : 16]));"), "dot\\(\\): operands of different ranks: a is tile f16\\[2, 32, 32\\] and b is tile f16\\[32, 16\\]", ""),
 ("sema-dot-4d", body("let a = reshape(load(A[m0 : m0 + BM, 0 : 32]), [2, 2, 16, 32]);\nlet d = dot(@@a, a);"), "dot\\(\\) expects 2-D tiles \\(or 3-D ones, a batch of products\\), got tile f16\\[2, 2, 16, 32\\]", ""),
 ("sema-dot-types", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = cast(f32, load(A[0 : 32, 0 : 16]));\nlet d = @@dot(a, b);"), "dot\\(\\): operands have different element types f16 and f32", ""),
 ("sema-bitcast-bits", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = @@bitcast(u3, a);"), "bitcast\\(\\): bit count does not match: the last dimension holds 32 x 16 = 512 bits, not a multiple of u3's 3 bits", ""),
 ("sema-broadcast", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = load(A[m0 : m0 + BM, 0 : 16]);\nlet c = a @@+ b;"), "cannot broadcast shapes \\[64, 32\\] and \\[64, 16\\]", ""),
 ("sema-mix-int-float", body("let x = m0 @@+ s;"), "cannot mix i32 and f32 implicitly", ""),
 ("sema-storage-only", body("let f = load(F[m0 : m0 + BM, 0 : 32]);\nlet g = @@f * 2.0;"), "no arithmetic on f8e4m3 {{.*}}storage-only", ""),
 ("sema-store-not-mut", body("store(@@A[m0 : m0 + BM, 0 : 32], zeros(f16, [BM, 32]));"), "cannot store to 'A': it is not declared 'mut'", ""),
 ("sema-store-shape", body("store(C[m0 : m0 + BM, 0 : 32], @@zeros(f16, [BM, 16]));"), "cannot broadcast shapes \\[64, 16\\] and \\[64, 32\\]", ""),
 ("sema-store-type", body("store(C[m0 : m0 + BM, 0 : 32], @@zeros(f32, [BM, 32]));"), "store\\(\\): expected f16, got f32; convert with cast\\(f16, x\\)", ""),
 ("sema-assign-let", body("let x = 1;\n@@x = 2;"), "cannot assign to 'x': only 'var' bindings can change", ""),
 ("sema-assign-type", body("var acc = zeros(f32, [BM]);\nacc = @@zeros(f16, [BM]);"), "assignment to 'acc': expected f32, got f16", ""),
 ("sema-assign-shape", body("var acc = zeros(f32, [BM]);\nacc = @@zeros(f32, [32]);"), "cannot broadcast shapes \\[32\\] and \\[64\\]", ""),
 ("sema-redefinition", body("let x = 1;\nlet @@x = 2;"), "redefinition of 'x'", ""),
 ("sema-overflow", body("let x = 4611686018427387904 @@* 4;"), "integer overflow in compile-time expression", ""),
 ("sema-div-zero", body("let x = BM @@/ (BM - 64);"), "division by zero in compile-time expression", ""),
 ("sema-shift-range", body("let x = 1 @@<< 70;"), "shift amount 70 is out of range", ""),
 ("sema-unknown-type", "kernel k(A: @@f17[N]) grid(N) warps 4 {\n}\n", "unknown element type 'f17'", ""),
 ("sema-define-bad-value", "kernel k<@@BM: int = 64>(A: f32[N]) grid(N) warps 4 {\n}\n", "invalid value 'abc' for -D BM: 'BM' is an int parameter; expected an integer", "-D BM=abc"),
 ("sema-missing-default", "kernel k<@@BM: int>(A: f32[N]) grid(N) warps 4 {\n}\n", "compile-time parameter 'BM' has no default value; pass -D BM=VALUE", ""),
 ("sema-if-tile-cond", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nif a @@> 0.0 {\n}"), "an if condition must be a bool scalar, got tile bool\\[64, 32\\]; use where", ""),
 ("sema-unused-value", body("@@m0 + 1;"), "unused value of type scalar i32", ""),
 ("sema-reduce-axis", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet r = sum(a, @@2);"), "reduction axis 2 is out of range for a tile of rank 2", ""),
 ("sema-max-two-tiles", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet r = max(a, @@a);"), "'max\\(x, axis\\)' reduces a tile; for the elementwise max of two tiles use maximum\\(a, b\\)", ""),
 ("sema-full-dim-runtime", body("let a = load(A[m0 : m0 + BM, @@:]);"), "':' takes the whole dimension 1 of 'A', whose size is not a compile-time constant", ""),
 ("sema-dim-not-bound", "kernel k(A: f32[@@K / 2]) grid(1) warps 4 {\n}\n", "runtime dimension 'K' is never a whole dimension of a tensor", ""),
 ("sema-grid-scalar", "kernel k(A: f32[N], n: i32) grid(@@n) warps 4 {\n}\n", "the grid may only use runtime dimensions and compile-time parameters; 'n' is neither", ""),
 ("sema-warps-range", "kernel k(A: f32[N]) grid(N) warps @@64 {\n}\n", "the warp count must be between 1 and 32, got 64", ""),
 ("sema-tune-unknown", "kernel k<BM: int = 4>(A: f32[N]) grid(N) warps 4 tune { @@BN in [1, 2] } {\n}\n", "'BN' in the tune block is not a compile-time parameter of kernel 'k'", ""),
 ("sema-program-id-axis", body("let p = program_id(@@3);"), "axis must be 0, 1 or 2, got 3", ""),
 ("sema-cast-bool", body("let a = cast(@@bool, m0);"), "cast to bool is not supported", ""),
 ("sema-load-not-slice", body("let a = load(@@m0);"), "load\\(\\) expects a slice of a global tensor or a shared buffer", ""),
 ("sema-float-to-int", body("let x = m0 + @@1.5;"), "float constant 1.5 cannot become integer type i32", ""),
 ("sema-const-range", body("let w = load(W[m0 : m0 + BM, 0 : 32]);\nlet v = w + @@100;"), "constant 100 does not fit in u4", ""),
 ("sema-arg-count", body("let z = @@zeros(f32);"), "wrong number of arguments to 'zeros': got 1, expected 2: zeros\\(T, \\[dims\\]\\)", ""),
 ("sema-reshape-count", body("let z = @@reshape(zeros(f32, [4, 8]), [5, 6]);"), "reshape\\(\\): element count differs", ""),
 ("sema-load-other-runtime", body("let a = load(A[m0 : m0 + BM, 0 : 32], other = @@s);"), "'other' must be a compile-time constant scalar", ""),
 ("sema-too-many-indices", body("let a = load(A[m0 : m0 + BM, 0 : 32, @@0 : 4]);"), "too many indices: the tensor has rank 2", ""),
 ("sema-duplicate-param", "kernel k(A: f32[N], @@A: f32[N]) grid(N) warps 4 {\n}\n", "duplicate parameter name 'A'", ""),
 ("sema-loop-step", body("for i in 0 .. 10 step @@0 {\n}"), "the loop step must be positive, got 0", ""),
 ("sema-pipeline-depth", body("for i in 0 .. 10 pipeline @@40 {\n}"), "the pipeline depth must be between 1 and 16, got 40", ""),
 ("sema-specialize-runtime", body("for i in 0 .. 10 pipeline 2 specialize m0 @@> 1 {\n}"), "'specialize' takes a compile-time bool constant \\(true, false, a bool parameter\\), got a runtime scalar bool", ""),
 ("sema-specialize-int", body("for i in 0 .. 10 pipeline 2 specialize @@1 {\n}"), "'specialize' takes a compile-time bool constant \\(true, false, a bool parameter\\), got a scalar integer constant", ""),
 ("sema-persistent-int", "kernel k(A: f32[N]) grid(N) warps 4 persistent @@1 {\n}\n", "'persistent' takes a compile-time bool constant \\(true, false, a bool parameter\\), got a scalar integer constant", ""),
 ("sema-persistent-runtime", "kernel k(A: f32[N]) grid(N) warps 4 persistent (N @@> 1) {\n}\n", "'persistent' takes a compile-time bool constant \\(true, false, a bool parameter\\), got a runtime scalar bool", ""),
 ("parse-persistent-misspelt", "kernel k(A: f32[N]) grid(N) warps 4 @@persistant true {\n}\n", "expected 'persistent', 'occupancy', 'tune' or '\\{' after the warp count, found 'persistant'", ""),
 ("parse-occupancy-twice", "kernel k(A: f32[N]) grid(N) warps 4 occupancy 2 persistent true @@occupancy 3 {\n}\n", "'occupancy' is given twice", ""),
 ("sema-occupancy-zero", "kernel k(A: f32[N]) grid(N) warps 4 occupancy @@0 {\n}\n", "the occupancy must be between 1 and 64 programs per SM, got 0", ""),
 ("sema-occupancy-runtime", "kernel k(A: f32[N]) grid(N) warps 4 occupancy @@N {\n}\n", "the occupancy must be a compile-time integer constant", ""),
 ("sema-occupancy-warps", "kernel k(A: f32[N]) grid(N) warps 32 occupancy @@3 {\n}\n", "occupancy 3 of 32-warp programs needs 96 warps per SM; the target holds at most 64", "--target=sm_90a"),
 ("sema-occupancy-waves", "kernel k(A: f32[N]) grid(N) warps 16 occupancy @@3 {\n}\n", "occupancy 3 of 16-warp programs needs 48 wavefronts per CU; the target holds at most 32", "--target=gfx942"),
 ("parse-specialize-misspelt", body("for i in 0 .. 10 pipeline 2 @@specialise true {\n}"), "expected '\\{' to start the loop body \\(or 'specialize'\\)", ""),
 ("sema-scalar-param-type", "kernel k(A: f32[N], n: @@i8) grid(N) warps 4 {\n}\n", "scalar parameters must be i32, f32, f16 or bf16, got i8", ""),
 ("sema-not-bool", body("let b = @@!m0;"), "operator '!' expects a bool operand, got i32", ""),
 ("sema-logical-int", body("let b = m0 @@&& true;"), "operator '&&' expects bool operands, got i32 and bool", ""),
 ("sema-unary-math-int", body("let e = exp(@@m0);"), "'exp' expects a float \\(f16, bf16, f32\\) operand, got i32; use cast\\(f32, x\\)", ""),
 ("sema-tile-too-large", body("let z = zeros(f32, @@[65536, 65536]);"), "tile \\[65536, 65536\\] is too large", ""),
 ("sema-arange-extent", body("let k = program_id(1);\nlet r = @@arange(m0, k);"), "slice extent is not a compile-time constant", ""),
 ("sema-builtin-as-value", body("let f = @@exp;"), "'exp' is a builtin function; expected a call 'exp\\(...\\)'", ""),
 ("sema-store-void-value", body("let x = @@barrier();"), "'barrier' does not produce a value", ""),
 ("sema-default-kind", "kernel k<BM: int = @@true>(A: f32[N]) grid(N) warps 4 {\n}\n", "default value of 'BM' must be a compile-time int constant", ""),
 ("sema-bitcast-scalar", body("let b = @@bitcast(f16, s);"), "bitcast\\(\\): bit count does not match: f32 has 32 bits, f16 has 16", ""),
 ("sema-load-other-storage", body("let a = load(F[m0 : m0 + BM, 0 : 32], other = @@0.0);"), "'other' is not supported for the storage-only type f8e4m3", ""),
 ("sema-copy-async-index", body("let b = shared(f16, [2, 32]);\ncopy_async(b[0, :], @@A[m0, 0 : 32]);"), "copy_async()'s source must slice every dimension", ""),
 ("sema-dot-operand-type", body("let w = load(W[0 : 32, 0 : 32]);\nlet d = @@dot(w, w);"), "dot() operands must be f16, bf16, f32, i8, f8e4m3 or f8e5m2, got u4", ""),
 ("sema-dot-fp8-format", body("let w = cast(f8e3m4, load(A[0 : 32, 0 : 32]));\nlet d = @@dot(w, w);"), "dot() operands must be f16, bf16, f32, i8, f8e4m3 or f8e5m2, got f8e3m4", ""),
 ("sema-dim-reserved-name", "kernel k(A: f32[N, @@f16]) grid(N) warps 4 {\n}\n", "'f16' cannot name a runtime dimension (a type name)", ""),
 # layout(x, L): each error kind (the thread count per target is checked by
 # tile-layout-target-threads.tile, written by hand).
 ("sema-layout-arg-count", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = @@layout(a);"), "wrong number of arguments to 'layout': got 1, expected layout\\(x, L\\)", ""),
 ("sema-layout-kwarg", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) * spatial(16, 8) * local(2, 4), @@order = 1);"), "'layout' has no keyword argument 'order'", ""),
 ("sema-layout-not-tile", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(@@s, local(1, 1));"), "layout\\(\\) expects a tile, got scalar f32", ""),
 ("sema-layout-combine", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) @@+ spatial(16, 8) * local(2, 4));"), "layouts combine with '\\*' only", ""),
 ("sema-layout-factor", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) * @@warp(16, 8) * local(2, 4));"), "expected a layout: local\\(...\\), spatial\\(...\\), column_local\\(...\\), column_spatial\\(...\\) or replicate\\(k\\) combined with '\\*'", ""),
 ("sema-layout-factor-rank", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) * @@spatial(128) * local(2, 4));"), "layout factor 'spatial' has 1 extent but the tile has rank 2", ""),
 ("sema-layout-extent-runtime", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) * spatial(16, 8) * local(@@m0, 4));"), "a layout extent must be a compile-time integer constant, got a runtime scalar i32", ""),
 ("sema-layout-extent-positive", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, local(2, 1) * spatial(16, 8) * local(@@0, 4));"), "layout extents must be positive", ""),
 ("sema-layout-replicate-count", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = layout(a, @@replicate(2, 2) * local(2, 1) * spatial(8, 8) * local(4, 4));"), "replicate\\(k\\) takes one thread count, got 2 arguments", ""),
 ("sema-layout-shape", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = @@layout(a, local(2, 1) * spatial(16, 8) * local(1, 4));"), "the layout covers a tile of shape \\[32, 32\\], but the tile has shape \\[64, 32\\]; the extents of its factors must multiply to the tile's shape in every dimension", ""),
 ("sema-layout-threads", body("let a = load(A[m0 : m0 + BM, 0 : 32]);\nlet b = @@layout(a, local(2, 1) * spatial(8, 4) * local(4, 8));"), "the layout uses 32 threads, but 'warps 4' means 128 threads \\(warp size 32, NVIDIA\\) or 256 \\(warp size 64, AMD\\); the spatial extents times the replication must be one of these", ""),
 ("sema-define-negative-dim", body("let z = zeros(f32, @@[BM, 16]);"), "tile dimensions must be positive, got \\[-5, 16\\]", "-D BM=-5"),
 # What a grid and a tensor dimension may contain.
 ("sema-grid-operator", "kernel k(A: f32[N]) grid(N @@& 3) warps 4 {\n}\n", "operator '&' is not allowed in a grid expression \\(expected \\+ - \\* / % cdiv min max\\)", ""),
 ("sema-grid-shift", "kernel k(A: f32[N]) grid(cdiv(N, 2) + (N @@>> 1)) warps 4 {\n}\n", "shifts are not allowed in a grid expression", ""),
 ("sema-grid-call", "kernel k(A: f32[N]) grid(cdiv(N, 2), @@abs(N)) warps 4 {\n}\n", "only cdiv, min and max may be called in a grid expression", ""),
 ("sema-dim-param-ref", "kernel k(n: i32, A: f32[N], B: f32[N + @@n]) grid(N) warps 4 {\n}\n", "a tensor dimension may not refer to the parameter 'n'", ""),
 ("sema-dim-call", "kernel k(A: f32[N], B: f32[cdiv(N, 2) * @@abs(N)]) grid(N) warps 4 {\n}\n", "only cdiv, min and max may be called in a tensor dimension", ""),
 ("sema-max-bool", body("let x = @@max(true, false);"), "'max' expects numbers, got bool", ""),
 ("sema-maximum-bool", body("let c = m0 < 2;\nlet y = @@maximum(c, c);"), "'maximum' expects numbers, got bool", ""),
 ("sema-kernel-redefinition", "kernel k(A: f32[N]) grid(N) warps 4 {\n}\nkernel @@k(A: f32[N]) grid(N) warps 4 {\n}\n", "redefinition of kernel 'k'", ""),
]
for name, src, msg, args in cases:
    msg = msg.replace("\\", "")
    pre = "// RUN: not tilec %s " + (args + " " if args else "") + "2>&1 | FileCheck %s\n"
    # Reserve 2 header lines (RUN + CHECK); caret line check added as well.
    if "@@" not in src:
        with open(os.path.join(out, name + ".tile"), "w") as f:
            f.write(pre)
            f.write("// CHECK: {{^.*}}%s.tile:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}%s\n" % (name, msg))
            f.write(src)
        continue
    idx = src.index("@@")
    clean = src.replace("@@", "", 1)
    before = clean[:idx]
    line = before.count("\n") + 1 + 4  # 3 header lines
    col = idx - (before.rfind("\n") + 1) + 1
    with open(os.path.join(out, name + ".tile"), "w") as f:
        f.write(pre)
        f.write("// CHECK: {{^.*}}%s.tile:%d:%d: error: {{.*}}%s{{.*$}}\n" % (name, line, col, msg))
        f.write("// CHECK-NEXT: {{^.+$}}\n// CHECK-NEXT: {{^ *\\^$}}\n")
        f.write(clean)
print(len(cases))
