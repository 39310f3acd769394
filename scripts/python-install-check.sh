#!/usr/bin/env bash
# Checks `pip install .` (docs/Python.md): installs the tilec Python package
# from this clone into a fresh virtual environment BUILD_DIR/pyvenv (with
# the system site packages, for nanobind, scikit-build-core, pytest and
# numpy: scripts/install-deps.sh), then, from outside the source tree,
# checks that `import tilec` is the installed copy and runs the package's
# compile and launch tests against it, with the build tree (build-python/)
# moved aside: the installed package carries what it needs (the archives
# host kernels link, in tilec/lib). scripts/test.sh runs it.
#
#   bash scripts/python-install-check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=$(realpath -m "${1:-build}")
VENV="$BUILD_DIR/pyvenv"

rm -rf "$VENV"
python3 -m venv --system-site-packages "$VENV"
echo "python-install-check: pip install . (build tree build-python/)"
start=$(date +%s)
"$VENV/bin/python" -m pip install -q --no-build-isolation "$ROOT"
echo "python-install-check: installed in $(($(date +%s) - start)) s"

# The installed package must not need the build tree: hide it meanwhile.
test -f "$VENV"/lib/python3*/site-packages/tilec/lib/libTileNumerics.a
mv "$ROOT/build-python" "$ROOT/build-python.hidden"
trap 'mv "$ROOT/build-python.hidden" "$ROOT/build-python"' EXIT

cd /
where=$("$VENV/bin/python" -c "import tilec, tilec._jit, tilec._runtime; print(tilec.__file__)")
case "$where" in
  "$VENV"/*) echo "python-install-check: import tilec -> $where" ;;
  *) echo "python-install-check: import tilec found $where, not the installed copy" >&2; exit 1 ;;
esac
TILE_CACHE_DIR="$BUILD_DIR/pyvenv-cache" TILEC_EXAMPLES="$ROOT/examples" \
  TILEC_TEST_INPUTS="$ROOT/test/tilec/Inputs" PYTHONDONTWRITEBYTECODE=1 \
  "$VENV/bin/python" -m pytest -q -rs -p no:cacheprovider \
  "$ROOT/python/tests/test_compile.py" "$ROOT/python/tests/test_launch.py"
echo "python-install-check: OK"
