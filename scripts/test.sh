#!/usr/bin/env bash
# Runs every test of tilec: installs the dependencies (Debian 12), configures,
# builds and runs ctest (lit, unit, host, fuzz; gpu tests report themselves
# skipped when no GPU is present), then builds the self-contained tilec and
# checks it (scripts/make-portable.sh, scripts/portable-smoke.sh), and
# installs the Python package with pip and tests the installed copy
# (scripts/python-install-check.sh). This is the README's test command and what
# .ci/run calls; with CI=true a missing lit, FileCheck, GoogleTest or ptxas
# stops the configure instead of leaving tests out.
#
#   bash scripts/test.sh            # build dir: build/
#   BUILD_DIR=out bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

BUILD_DIR=${BUILD_DIR:-build}
# ccache hits across clones in different folders.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$JOBS"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"

# The Python package as users install it (docs/Python.md): `pip install .`
# into a fresh virtual environment (objects from ccache), then its tests
# against the installed copy, from outside the source tree.
bash scripts/python-install-check.sh "$BUILD_DIR"

# The self-contained tilec (docs/Portable.md): built from the same objects
# (ccache), packed, and exercised as on a machine without LLVM.
PORTABLE_BUILD_DIR=${PORTABLE_BUILD_DIR:-$BUILD_DIR-portable} \
  bash scripts/make-portable.sh "$BUILD_DIR/portable-dist"
bash scripts/portable-smoke.sh "$BUILD_DIR"/portable-dist/tilec-portable-*.tar.xz
