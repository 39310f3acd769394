"""Compiles every kernel of the given .tile files at every point of its tune
space (the cartesian product of `tune { ... }`, as listed by
`tilec --list-kernels`) and checks that each specialization compiles to
verified IR and records its constants. Prints one line per failure and a
summary."""
import itertools, json, subprocess, sys

tilec, files = sys.argv[1], sys.argv[2:]
total = 0
failures = []
for path in files:
    listing = subprocess.run([tilec, path, "--list-kernels"], capture_output=True, text=True)
    if listing.returncode != 0:
        failures.append("%s: --list-kernels failed: %s" % (path, listing.stderr))
        continue
    for k in json.loads(listing.stdout):
        dims = [(t["name"], t["values"]) for t in k["tune"]]
        for combo in itertools.product(*[v for _, v in dims]):
            args = [tilec, path, "--kernel=" + k["name"]]
            for (name, _), value in zip(dims, combo):
                args += ["-D", "%s=%s" % (name, value)]
            total += 1
            p = subprocess.run(args, capture_output=True, text=True)
            point = " ".join(args[3:])
            if p.returncode != 0:
                failures.append("%s %s: %s" % (path, point, p.stderr[-1500:]))
                continue
            for (name, _), value in zip(dims, combo):
                v = value if value.lstrip("-").isdigit() else '"%s"' % value
                if v in ("\"true\"", "\"false\""):
                    v = value
                want = "%s = %s" % (name, v)
                if want not in p.stdout:
                    failures.append("%s %s: constants lack '%s'" % (path, point, want))
for f in failures:
    print("FAIL", f)
print("%d of %d specializations compiled" % (total - len(failures), total))
sys.exit(1 if failures or total == 0 else 0)
