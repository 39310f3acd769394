"""Runs tilec on every file of a malformed-program corpus and checks that
each one is rejected cleanly: exit code exactly 1 (not a crash or a signal),
and at least one diagnostic of the form FILE:LINE:COL: error: ... ."""
import os, re, subprocess, sys

tilec, corpus = sys.argv[1], sys.argv[2]
located = re.compile(r"^.*\.tile:\d+:\d+: error: ", re.M)
failures = []
files = sorted(f for f in os.listdir(corpus) if f.endswith(".tile"))
for name in files:
    path = os.path.join(corpus, name)
    try:
        p = subprocess.run([tilec, path], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        failures.append("%s: timed out" % name)
        continue
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != 1:
        failures.append("%s: exit code %d (expected 1)\n%s" % (name, p.returncode, err[-2000:]))
    elif not located.search(err):
        failures.append("%s: no FILE:LINE:COL error in\n%s" % (name, err[-2000:]))
    elif p.stdout:
        failures.append("%s: printed output despite errors" % name)
for f in failures:
    print("FAIL", f)
print("%d of %d malformed programs rejected cleanly" % (len(files) - len(failures), len(files)))
sys.exit(1 if failures or not files else 0)
