#!/usr/bin/env bash
# The main job: installs the dependencies (Debian 12), builds tilec and
# compiles every example program (../shared/examples and examples/) as far as
# the compiler goes today, printing what it did for each.
#
#   bash scripts/run-examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target tilec tile-opt

TILEC="$BUILD_DIR/bin/tilec"
examples=()
for dir in ../shared/examples examples; do
  [ -d "$dir" ] && examples+=("$dir"/*.tile)
done

ok=0
failed=0
for f in "${examples[@]}"; do
  if "$TILEC" "$f" --emit=mlir -o /dev/null; then
    echo "compiled  $f  (--emit=mlir)"
    ok=$((ok + 1))
  else
    echo "FAILED    $f"
    failed=$((failed + 1))
  fi
done
echo "$ok passed, $failed failed"
[ "$failed" -eq 0 ]
