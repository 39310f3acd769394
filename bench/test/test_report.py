#!/usr/bin/env python3
"""bench/report.py on hand-made inputs: a fake tile-run timing CSV,
baselines, checks and device description, with the expected numbers worked
out here."""

import csv
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import report  # noqa: E402

HEADER = ("kernel,target,device,arch,test,sizes,seed,checked,flush_l2,runs,"
          "median_ms,min_ms,max_ms,mean_ms,stdev_ms,p10_ms,p90_ms")

CASES = {"quick": False, "tests": [
    {"case": "gemm_f16_a", "family": "gemm_f16", "kernel": "gemm_f16",
     "test": 2, "sizes": {"M": 4096, "N": 4096, "K": 4096},
     "defines": {"BM": 128, "BN": 128}, "scalars": {},
     "flops": 2.0 * 4096 ** 3, "bytes": 3 * 2.0 * 4096 ** 2,
     "baseline": "torch"},
    {"case": "gemm_f16_b", "family": "gemm_f16", "kernel": "gemm_f16",
     "test": 2, "sizes": {"M": 4096, "N": 4096, "K": 4096},
     "defines": {"BM": 128, "BN": 256}, "scalars": {},
     "flops": 2.0 * 4096 ** 3, "bytes": 3 * 2.0 * 4096 ** 2,
     "baseline": "torch"},
    {"case": "vector_add", "family": "vector_add", "kernel": "vector_add",
     "test": 2, "sizes": {"N": 1 << 24}, "defines": {"BLOCK": 1024},
     "scalars": {}, "flops": float(1 << 24), "bytes": 12.0 * (1 << 24),
     "baseline": "torch"},
    {"case": "vector_add", "family": "vector_add", "kernel": "vector_add",
     "test": 3, "sizes": {"N": 1 << 27}, "defines": {"BLOCK": 1024},
     "scalars": {}, "flops": float(1 << 27), "bytes": 12.0 * (1 << 27),
     "baseline": "torch"},
]}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        os.makedirs(os.path.join(d, "times"))
        with open(os.path.join(d, "cases.json"), "w") as f:
            json.dump(CASES, f)
        with open(os.path.join(d, "times", "gemm_f16_a.csv"), "w") as f:
            f.write(HEADER + "\n")
            f.write('gemm_f16,sm_90a,"NVIDIA H100, 80GB",sm_90,2,'
                    "K=4096;M=4096;N=4096,11,0,1,50,0.25,0.24,0.3,0.26,"
                    "0.01,0.245,0.28\n")
        with open(os.path.join(d, "times", "gemm_f16_b.csv"), "w") as f:
            f.write(HEADER + "\n")
            f.write("gemm_f16,sm_90a,H100,sm_90,2,K=4096;M=4096;N=4096,11,0,"
                    "1,50,0.3,0.29,0.35,0.3,0.01,0.295,0.31\n")
        with open(os.path.join(d, "times", "vector_add.csv"), "w") as f:
            f.write(HEADER + "\n")
            f.write("vector_add,sm_90a,H100,sm_90,2,N=16777216,11,0,1,50,"
                    "0.08,0.07,0.09,0.08,0.001,0.075,0.085\n")
        with open(os.path.join(d, "baselines.csv"), "w") as f:
            f.write("case,test,baseline,median_ms,p10_ms,p90_ms,runs,note\n"
                    "gemm_f16_a,2,cublas,0.2,0.19,0.21,50,\n"
                    "gemm_f16_a,2,roofline,0.17,,,,\n"
                    "gemm_f16_b,2,cublas,0.2,0.19,0.21,50,\n"
                    "vector_add,2,torch.add,0.1,0.09,0.11,50,\n"
                    "vector_add,2,slower,0.4,0.3,0.5,50,\n"
                    "vector_add,2,roofline,0.064,,,,\n")
        with open(os.path.join(d, "checks.csv"), "w") as f:
            f.write("case,test,status,rel_err,note\n"
                    "gemm_f16_a,2,pass,0.0004,\n"
                    "vector_add,2,pass,0,\n"
                    "vector_add,3,fail,0.5,wrong\n")
        with open(os.path.join(d, "device.json"), "w") as f:
            json.dump({"name": "NVIDIA H100 80GB HBM3", "copy_gbs": 3000.0,
                       "date": "2026-11-21 08:00 UTC"}, f)

    def tearDown(self):
        self.dir.cleanup()

    def run_report(self):
        d = self.dir.name
        out = os.path.join(d, "out")
        rc = report.main(["--cases", os.path.join(d, "cases.json"),
                          "--times", os.path.join(d, "times"),
                          "--baselines", os.path.join(d, "baselines.csv"),
                          "--checks", os.path.join(d, "checks.csv"),
                          "--device", os.path.join(d, "device.json"),
                          "--out", out])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        return rows, md

    def test_numbers(self):
        rows, _ = self.run_report()
        self.assertEqual(len(rows), 4)
        g, g2, v, bad = rows
        self.assertAlmostEqual(float(g2["speedup"]), 0.2 / 0.3, places=5)
        self.assertEqual(g["shape"], "K=4096 M=4096 N=4096")
        self.assertEqual(g["check"], "pass")
        # 2 * 4096^3 flops in 0.25 ms = 549.755813888 TFLOP/s.
        self.assertAlmostEqual(float(g["tflops"]), 549.756, places=2)
        self.assertEqual(g["best_baseline"], "cublas")
        self.assertAlmostEqual(float(g["speedup"]), 0.8)  # 0.2 / 0.25
        self.assertAlmostEqual(float(g["of_roofline"]), 0.68)  # 0.17 / 0.25
        # 12 * 2^24 bytes in 0.08 ms = 2516.58 GB/s; best baseline 0.1 ms.
        self.assertAlmostEqual(float(v["gbs"]), 2516.58, places=1)
        self.assertEqual(v["best_baseline"], "torch.add")
        self.assertAlmostEqual(float(v["speedup"]), 1.25)
        self.assertAlmostEqual(float(v["of_roofline"]), 0.8)
        self.assertEqual(v["all_baselines"], "torch.add=0.1;slower=0.4")
        # The failed test has no timing and says so.
        self.assertEqual(bad["check"], "fail")
        self.assertEqual(bad["median_ms"], "")
        self.assertEqual(bad["speedup"], "")

    def test_markdown(self):
        _, md = self.run_report()
        self.assertIn("- Device: NVIDIA H100 80GB HBM3", md)
        self.assertIn("- Date: 2026-11-21 08:00 UTC", md)
        self.assertIn("**1 test(s) produced wrong output and were not "
                      "timed**: vector_add[N=134217728]", md)
        self.assertIn("## gemm_f16", md)
        # The faster of the two GEMM configurations is the pick.
        self.assertIn("| gemm_f16 | K=4096 M=4096 N=4096 | 2 | gemm_f16_a | "
                      "0.25 | cublas | 0.2 | 0.80x |", md)
        self.assertIn("| vector_add | N=16777216 | 1 | vector_add | 0.08 | "
                      "torch.add | 0.1 | 1.25x |", md)
        self.assertIn("| gemm_f16_a | K=4096 M=4096 N=4096 | pass (4.0e-04) | "
                      "0.25 [0.245–0.28] | 550 | 68% | cublas | 0.2 | 0.80x |",
                      md)
        self.assertIn("| vector_add | N=16777216 | pass (0.0e+00) | "
                      "0.08 [0.075–0.085] | 2517 | 80% | torch.add | 0.1 | "
                      "1.25x |", md)
        self.assertIn("| vector_add | N=134217728 | fail (5.0e-01) | – | – | "
                      "– | – | – | – |", md)
        self.assertNotIn("Rotating method", md)

    def test_rotating(self):
        # A --rotate run: tile-run's newer CSV (rotate_sets) and the copy of
        # the same bytes timed alike, which is a measure, not a baseline.
        d = self.dir.name
        with open(os.path.join(d, "times", "vector_add.csv"), "w") as f:
            f.write(HEADER + ",rotate_sets\n")
            f.write("vector_add,sm_90a,H100,sm_90,2,N=16777216,11,0,0,50,"
                    "0.08,0.07,0.09,0.08,0.001,0.075,0.085,64\n")
        with open(os.path.join(d, "baselines.csv"), "a") as f:
            f.write("vector_add,2,copy-same-bytes,0.07,0.069,0.071,50,\n")
        rows, md = self.run_report()
        g, _, v, _ = rows
        self.assertEqual(v["rotate_sets"], "64")
        self.assertAlmostEqual(float(v["of_copy"]), 0.875)  # 0.07 / 0.08
        self.assertEqual(v["best_baseline"], "torch.add")
        self.assertEqual(v["all_baselines"], "torch.add=0.1;slower=0.4")
        self.assertEqual(g["rotate_sets"], "")  # The old CSV: no column.
        self.assertEqual(g["of_copy"], "")
        self.assertIn("| 2517 | 80% (copy: 88%) | torch.add | 0.1 | 1.25x |",
                      md)
        self.assertIn("- Rotating method (`--rotate`)", md)

    def test_missing_inputs(self):
        # No baselines/checks/device (a host run): every test still listed.
        d = self.dir.name
        out = os.path.join(d, "out2")
        rc = report.main(["--cases", os.path.join(d, "cases.json"),
                          "--times", os.path.join(d, "times"),
                          "--out", out])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["check"] for r in rows], ["unchecked"] * 4)
        self.assertEqual(rows[0]["best_baseline"], "")
        with self.assertRaises(SystemExit):
            report.main(["--cases", os.path.join(d, "nope.json"),
                         "--times", d, "--out", out])


if __name__ == "__main__":
    unittest.main()
