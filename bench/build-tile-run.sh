# Sourced by bench/run.sh, bench/time-bundles.sh and bench/gpu-next.sh (not
# run on its own).
#
#   build_tile_run ROOT BUILD LOG [GTEST_DIR]
# Configures BUILD from ROOT with the runtime alone (no LLVM or MLIR: what a
# GPU machine has), builds tile-run, appends the output to LOG and prints
# the executable's path; on failure prints FAIL with the log's tail and
# returns 1. With GTEST_DIR (GoogleTest's CMake package, GTestConfig.cmake's
# folder) it also builds the runtime's GPU unit tests,
# BUILD/unittests/Runtime/TileRuntimeGpuTests.
build_tile_run() {
  local root=$1 build=$2 log=$3 gtest=${4:-} gen=() tests=(-DTILE_BUILD_TESTS=OFF)
  local targets=(tile-run)
  command -v ninja > /dev/null && gen=(-G Ninja)
  if [ -n "$gtest" ]; then
    tests=(-DTILE_BUILD_TESTS=ON -DGTest_DIR="$gtest")
    targets+=(TileRuntimeGpuTests)
  fi
  if ! { cmake -S "$root" -B "$build" "${gen[@]}" -DTILE_RUNTIME_ONLY=ON \
           "${tests[@]}" -DCMAKE_BUILD_TYPE=Release &&
         cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"; } >> "$log" 2>&1; then
    echo "FAIL: building tile-run failed (see $log)" >&2
    tail -20 "$log" >&2
    return 1
  fi
  if [ -x "$build/bin/tile-run" ]; then
    echo "$build/bin/tile-run"
  else
    echo "$build/runtime/tile-run"
  fi
}
