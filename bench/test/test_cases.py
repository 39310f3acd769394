#!/usr/bin/env python3
"""bench/cases.py: the case list is consistent with the kernels' limits, the
work counts are the textbook ones, and add-tests appends the benchmark
shapes after the check shapes of a manifest."""

import json
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import cases  # noqa: E402
import codes  # noqa: E402


class CasesTest(unittest.TestCase):
    def test_ids_unique_and_shapes_fit_the_kernels(self):
        for quick in (False, True):
            all_cases = cases.cases(quick)
            ids = [c["id"] for c in all_cases]
            self.assertEqual(len(ids), len(set(ids)))
            for c in all_cases:
                d = c["defines"]
                self.assertTrue(c["bench"], c["id"])
                for s in c["bench"]:
                    if c["family"] in ("gemm_wq", "gemm_decode",
                                       "gemm_decode_packed"):
                        # Whole groups of K, whole BK steps.
                        self.assertEqual(s["K"] % d["G"], 0, c["id"])
                        self.assertEqual(s["K"] % d["BK"], 0, c["id"])
                    if c["family"] in ("softmax", "rmsnorm_quant"):
                        self.assertLessEqual(s["N"], d["COLS"], c["id"])
                    if c["family"] == "attention_fwd":
                        self.assertEqual(s["H"] % s["HKV"], 0)

    def test_tma_cases_have_rows_of_16_bytes(self):
        # A case compiled with --tma launches only with tensors whose rows
        # are multiples of 16 bytes (the runtime refuses the others): its
        # check and bench shapes must have them (16 elements: enough for
        # any element size); the quick cases have no flags.
        # (--warp-specialize implies --tma.)
        tma = [c for c in cases.cases(False)
               if {"--tma", "--warp-specialize"} & set(c["flags"])]
        self.assertTrue(tma)
        for c in tma:
            if c["family"] == "attention_fwd":
                # Rows of D f16 (a constant, 128 by default): every stride
                # of a [B, H, N, D] tensor is a multiple of D.
                self.assertEqual(int(c["defines"].get("D", 128)) % 8, 0,
                                 c["id"])
                continue
            shapes = [dict(kv.split("=") for kv in s.split(","))
                      for s in c["check"]] + c["bench"]
            for s in shapes:
                for dim in ("K", "N"):
                    self.assertEqual(int(s[dim]) % 16, 0, (c["id"], s))
        for c in cases.cases(True):
            self.assertEqual(c["flags"], [], c["id"])

    def test_every_family_has_a_check_tolerance(self):
        # gpu_bench.py checks each benchmark output with its family's
        # tolerance; a family without one stops the checks of the run.
        for quick in (False, True):
            for c in cases.cases(quick):
                self.assertIn(c["family"], cases.CHECK_TOLERANCE, c["id"])

    def test_every_family_has_a_gpu_check(self):
        # gpu_bench.py (which needs PyTorch and a GPU, so it is read here as
        # text) checks each family's outputs with FAMILIES[family].
        import os
        import re
        path = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "gpu_bench.py")
        with open(path) as f:
            text = f.read()
        table = text[text.index("FAMILIES = {"):]
        table = table[:table.index("}")]
        known = set(re.findall(r'"(\w+)": \w+', table))
        for c in cases.cases(False):
            self.assertIn(c["family"], known, c["id"])

    def test_full_list_covers_the_brief(self):
        ids = {c["id"] for c in cases.cases(False)}
        for t in ("u4", "u3", "u2", "i8", "f4e2m1", "f8e4m3"):
            self.assertIn("gemm_wq_" + t, ids)
        for i in ("attention_fwd", "softmax_1024", "rmsnorm_quant_i8",
                  "vector_add", "gemm_f16_decode_64x64x64",
                  "gemm_f8_prefill_128x128x64",
                  "gemm_w8a8_prefill_128x128x128",
                  # Issue 14: f16 and bf16 GEMM at the example's defaults.
                  "gemm_f16_prefill_default", "gemm_bf16_prefill_default"):
            self.assertIn(i, ids)
        # Issue 14: the quantized-weight GEMM at prefill, u4 at 4096^3.
        wqp = [c for c in cases.cases(False)
               if c["id"] == "gemm_wq_prefill_u4_128x128x64"][0]
        self.assertEqual(wqp["defines"]["BN"], 128)
        self.assertIn({"M": 4096, "N": 4096, "K": 4096}, wqp["bench"])
        w8 = [c for c in cases.cases(False)
              if c["id"] == "gemm_wq_prefill_u4_256x128x64_w8"][0]
        self.assertEqual((w8["defines"]["BM"], w8["defines"]["WARPS"]),
                         (256, 8))
        self.assertIn({"M": 4096, "N": 4096, "K": 4096}, w8["bench"])
        # Issue 13: every weight type of the decode GEMM at M = 1 and 16,
        # the Tilus shape included, adding into C.
        for t in ("u1", "u5", "u7", "i2", "i6", "f5e2m2", "f6e3m2"):
            self.assertIn("gemm_decode_" + t, ids)
        gd = [c for c in cases.cases(False) if c["id"] == "gemm_decode_u4"][0]
        self.assertIn({"M": 1, "N": 57344, "K": 8192}, gd["bench"])
        self.assertEqual(gd["inout"], ["C"])
        self.assertIn("gemm_decode_packed_u4", ids)
        # The M <= 8 path: BM = 8 at the M = 1 shapes only.
        bm8 = [c for c in cases.cases(False) if c["id"] == "gemm_decode_bm8_u4"][0]
        self.assertEqual(bm8["defines"]["BM"], 8)
        self.assertTrue(all(s["M"] == 1 for s in bm8["bench"]))
        for t in ("u1", "u2", "u4", "u8"):
            p8 = [c for c in cases.cases(False)
                  if c["id"] == "gemm_decode_packed_bm8_" + t][0]
            self.assertEqual(p8["defines"]["BM"], 8)
            self.assertEqual(p8["defines"]["BK"], cases._packed_block_k(t))
            self.assertTrue(all(s["M"] <= 8 for s in p8["bench"]))
        # The same with a producer warpgroup (WS: TMA copies of the packed
        # weight) and four programs per SM.
        for t in ("u2", "u3", "u4", "u8"):
            ws = [c for c in cases.cases(False)
                  if c["id"] == "gemm_decode_packed_bm8_ws_" + t][0]
            self.assertEqual(ws["defines"]["WS"], "true")
            self.assertEqual(ws["defines"]["OCC"], 4)
            self.assertEqual(ws["defines"]["BK"], cases._packed_block_k(t))
        # The same kernels with a dependent launch (tilec
        # --dependent-launch), the defines of their twins.
        byid = {c["id"]: c for c in cases.cases(False)}
        pdl = sorted(i for i in byid if "_pdl_" in i)
        self.assertEqual(pdl, ["gemm_decode_packed_bm8_pdl_u2",
                               "gemm_decode_packed_bm8_pdl_u4",
                               "gemm_decode_packed_bm8_pdl_u8",
                               "gemm_decode_packed_bm8_ws_pdl_u4"])
        for i in pdl:
            self.assertEqual(byid[i]["flags"], ["--dependent-launch"])
            twin = byid[i.replace("pdl_", "")]
            self.assertEqual(byid[i]["defines"], twin["defines"])
            self.assertEqual(byid[i]["bench"], twin["bench"])
        # Prefill over packed weights: swapped and not, SPLIT = 1, 4096^3;
        # `_occ2`: two programs per SM (OCC, `occupancy`), else one; `_ws`:
        # a producer warpgroup (WS).
        pre = {c["id"]: c for c in cases.cases(False)
               if c["id"].startswith("gemm_decode_packed_prefill_")}
        self.assertEqual(len(pre), 9)
        for name, c in pre.items():
            self.assertEqual(c["defines"]["SWAP"],
                             "true" if "_swap_" in name else "false")
            self.assertEqual(c["defines"]["SPLIT"], 1)
            self.assertEqual(c["defines"]["OCC"],
                             2 if name.endswith("_occ2") else 1)
            self.assertEqual(c["defines"]["WS"],
                             "true" if name.endswith("_ws") else "false")
            self.assertEqual(c["bench"], [{"M": 4096, "N": 4096, "K": 4096}])
        dec = [c for c in cases.cases(False)
               if c["id"] == "gemm_f16_decode_64x64x64"][0]["bench"]
        self.assertEqual(sorted({s["M"] for s in dec}), [1, 16, 128])
        self.assertIn({"M": 16, "N": 14336, "K": 4096}, dec)

    def test_work(self):
        by_id = {c["id"]: c for c in cases.cases(False)}
        f, b = by_id["gemm_f16_decode_64x64x64"]["work"](
            {"M": 1, "N": 4096, "K": 4096})
        self.assertEqual(f, 2 * 4096 * 4096)
        self.assertEqual(b, 2 * (4096 + 4096 * 4096 + 4096))
        # u4 weights: half a byte each, plus f16 scales and zero points per
        # group of 128 along K.
        f, b = by_id["gemm_wq_u4"]["work"]({"M": 1, "N": 4096, "K": 4096})
        self.assertEqual(b, 2 * 4096 + 4096 * 4096 / 2 + 2 * 2 * 32 * 4096
                         + 2 * 4096)
        f, b = by_id["vector_add"]["work"]({"N": 1000})
        self.assertEqual((f, b), (1000, 12000))
        full, _ = by_id["attention_fwd"]["work"](
            {"B": 1, "H": 32, "HKV": 8, "N": 1024})
        half, _ = by_id["attention_fwd_causal"]["work"](
            {"B": 1, "H": 32, "HKV": 8, "N": 1024})
        self.assertEqual(full, 4 * 32 * 1024 * 1024 * 128)
        self.assertEqual(half, full / 2)

    def test_every_case_describes(self):
        # Each benchmark shape of every case has its work counted (a width
        # missing from a table once failed make-bundle.sh at its last step).
        for c in cases.cases(False):
            for s in c["bench"]:
                f, b = c["work"](s)
                self.assertGreater(f, 0, c["id"])
                self.assertGreater(b, 0, c["id"])
        f, b = {c["id"]: c for c in cases.cases(False)}[
            "gemm_decode_packed_u7"]["work"]({"M": 1, "N": 64, "K": 128})
        self.assertEqual(b, 2 * 128 + 64 * 128 * 7 / 8 + 2 * 2 * 64 + 2 * 64)

    def test_split_atol_follows_the_code_range(self):
        self.assertEqual([cases.bits(t) for t in ("u1", "i7", "f6e3m2")],
                         [1, 7, 6])
        self.assertEqual([cases.split_atol(t) for t in
                          ("u1", "u4", "f4e2m1", "u5", "u7", "u8", "f8e4m3")],
                         [2, 2, 2, 4, 16, 32, 32])
        by_id = {c["id"]: c for c in cases.cases(False)}
        self.assertEqual(by_id["gemm_decode_u8"]["atol"], 32)
        self.assertEqual(by_id["gemm_decode_packed_u4"]["atol"], 2)

    def test_rotating_sets_match_the_runtime(self):
        # The figures of unittests/Runtime/TimingTest.cpp
        # (Timing.RotatingSetsCoverTheAskedBytes): both sides of a --rotate
        # run must launch over the same number of copies.
        mib = 1 << 20
        self.assertEqual(cases.rotating_sets(8 * mib, 256 * mib), 32)
        self.assertEqual(cases.rotating_sets(8 * mib + 1, 256 * mib), 32)
        self.assertEqual(cases.rotating_sets(9 * mib, 256 * mib), 29)
        self.assertEqual(cases.rotating_sets(300 * mib, 256 * mib), 2)
        self.assertEqual(cases.rotating_sets(1000, 256 * mib), 64)
        self.assertEqual(cases.rotating_sets(1000, 256 * mib, 16), 16)
        self.assertEqual(cases.rotating_sets(0, 256 * mib), 64)

    def test_add_tests_and_describe(self):
        with tempfile.TemporaryDirectory() as d:
            bundle = os.path.join(d, "vector_add")
            os.makedirs(bundle)
            manifest = {"format": "tilec-bundle", "version": 1, "kernels": [
                {"name": "vector_add", "tests": [
                    {"sizes": {"N": 1}, "expected": {"z": "a.npy"}},
                    {"sizes": {"N": 100003}, "expected": {"z": "b.npy"}}]}]}
            with open(os.path.join(bundle, "manifest.json"), "w") as f:
                json.dump(manifest, f)
            cases.cmd_add_tests(bundle, "vector_add", quick=False)
            with open(os.path.join(bundle, "manifest.json")) as f:
                tests = json.load(f)["kernels"][0]["tests"]
            self.assertEqual([t["sizes"]["N"] for t in tests],
                             [1, 100003, 1 << 20, 1 << 24, 1 << 27])
            self.assertNotIn("expected", tests[2])
            # Only the bundles present are described; indices follow the
            # check shapes.
            cases.cmd_describe(d, quick=False, only=None)
            with open(os.path.join(d, "cases.json")) as f:
                rows = json.load(f)["tests"]
            self.assertEqual([(r["case"], r["test"]) for r in rows],
                             [("vector_add", 2), ("vector_add", 3),
                              ("vector_add", 4)])

    def test_add_tests_errors(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "manifest.json"), "w") as f:
                json.dump({"kernels": []}, f)
            with self.assertRaises(SystemExit) as e:
                cases.cmd_add_tests(d, "vector_add", quick=False)
            self.assertIn("expected one kernel, found 0", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                cases.cmd_add_tests(d, "no_such_case", quick=False)
            self.assertIn("no case named 'no_such_case'", str(e.exception))


class CodesTest(unittest.TestCase):
    """The decode tables of gpu_bench.py against values written out by
    hand from the OCP formats."""

    def test_f4e2m1(self):
        v = codes.small_float_values(*codes.small_float_format("f4e2m1"))
        self.assertEqual(v[:8], [0, 0.5, 1, 1.5, 2, 3, 4, 6])
        self.assertEqual(v[8:], [-0.0, -0.5, -1, -1.5, -2, -3, -4, -6])

    def test_f8e4m3(self):
        v = codes.small_float_values(*codes.small_float_format("f8e4m3"))
        self.assertEqual(v[0x01], 2.0 ** -9)   # smallest subnormal
        self.assertEqual(v[0x08], 2.0 ** -6)   # smallest normal
        self.assertEqual(v[0x38], 1.0)
        self.assertEqual(v[0x7E], 448.0)       # largest finite
        self.assertEqual(v[0xFE], -448.0)
        self.assertTrue(math.isnan(v[0x7F]) and math.isnan(v[0xFF]))
        self.assertEqual(sum(math.isnan(x) for x in v), 2)

    def test_f6e3m2(self):
        v = codes.small_float_values(*codes.small_float_format("f6e3m2"))
        self.assertEqual(len(v), 64)
        self.assertEqual(v[0x1F], 28.0)        # 2^4 * 1.75
        self.assertEqual(v[0x01], 0.0625)      # 2^-2 * 1/4
        self.assertFalse(any(math.isnan(x) for x in v))

    def test_f5e2m2_and_e5m2(self):
        # Every fNeXmY decodes (gemm_decode_f5e2m2 on the GPU): e2m2 is
        # finite only (bias 1, largest 2^2 * 1.75 = 7), e5m2 IEEE.
        v = codes.small_float_values(*codes.small_float_format("f5e2m2"))
        self.assertEqual(len(v), 32)
        self.assertEqual(v[0x01], 0.25)        # 2^0 * 1/4 (subnormal)
        self.assertEqual(v[0x0F], 7.0)
        self.assertEqual(v[0x1F], -7.0)
        self.assertFalse(any(math.isnan(x) for x in v))
        v = codes.small_float_values(*codes.small_float_format("f8e5m2"))
        self.assertEqual(v[0x7C], float("inf"))
        self.assertTrue(math.isnan(v[0x7D]))
        self.assertEqual(v[0x7B], 57344.0)
        self.assertIsNone(codes.small_float_format("f5e2m3"))
        self.assertIsNone(codes.small_float_format("u4"))

    def test_bf16(self):
        # gemm_w8a8's C (bf16 codes): 1.0 = 0x3F80, -2.0 = 0xC000, the
        # smallest subnormal 2^-133 = 0x0001, infinity 0x7F80.
        v = codes.bf16_to_f32([0x3F80, 0xC000, 0x0001, 0x7F80, 0x4049])
        self.assertEqual(list(v[:4]), [1.0, -2.0, 2.0 ** -133, float("inf")])
        self.assertEqual(v[4], 3.140625)  # 1.5703125 x 2

    def test_operand_order(self):
        # A permutation of the chunk in which lane group q holds the k with
        # (k % 8) / 2 == q (the mma.sync B fragment), a register's two codes
        # (k even, k + 1) D positions apart; D = 4 matches the order's
        # first form (pos = q BK/4 + 8 kh + 4 p + 2 kl + h).
        for bits in range(1, 9):
            for bk in (32, 128, 256, 512):
                d = codes.pair_distance(bits, bk)
                ks = [codes.operand_order_k(p, bk, bits) for p in range(bk)]
                self.assertEqual(sorted(ks), list(range(bk)))
                for pos, k in enumerate(ks):
                    self.assertEqual((k % 8) // 2, pos // (bk // 4))
                    if k % 2 == 0:
                        self.assertEqual(ks[pos + d], k + 1)
                    if d == 4:
                        q, rest = divmod(pos, bk // 4)
                        kh, r8 = divmod(rest, 8)
                        self.assertEqual(k, kh * 32 + (r8 // 2) % 2 * 16 +
                                         r8 % 2 * 8 + q * 2 + r8 // 4)
        self.assertEqual([codes.pair_distance(b, 128) for b in range(1, 9)],
                         [16, 8, 4, 4, 4, 2, 2, 2])

    def test_integers(self):
        self.assertEqual([codes.integer_value(c, "i3") for c in range(8)],
                         [0, 1, 2, 3, -4, -3, -2, -1])
        self.assertEqual(codes.integer_value(15, "u4"), 15)
        self.assertEqual(codes.integer_value(0x80, "i8"), -128)


if __name__ == "__main__":
    unittest.main()
