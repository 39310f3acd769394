#!/usr/bin/env bash
# Builds the self-contained tilec (docs/Portable.md): LLVM, MLIR and lld
# linked statically (-DTILEC_PORTABLE=ON), stripped, packed with tile-run,
# the runtime library and headers, and the archives host kernels link in:
#
#   scripts/make-portable.sh [OUT_DIR]      (default: build-portable/dist)
#
# writes OUT_DIR/tilec-portable-VERSION-linux-x86_64.tar.xz and checks that
# tilec needs no LLVM/MLIR shared library and that the archive is at most
# 48 MiB. Needs scripts/install-deps.sh's packages (liblld-22-dev and
# libzstd-dev included). PORTABLE_BUILD_DIR overrides build-portable.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PORTABLE_BUILD_DIR:-build-portable}
OUT=${1:-$BUILD/dist}
# ccache hits across build folders: paths are rewritten relative to here.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEC_PORTABLE=ON
cmake --build "$BUILD" --target tilec tile-run tile_runtime TileNumerics

version=$(sed -n 's/^project(tilec VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name=tilec-portable-$version-linux-x86_64
stage=$OUT/$name
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib/tilec" "$stage/include"
cp "$BUILD/bin/tilec" "$stage/bin/"
cp "$BUILD/runtime/tile-run" "$stage/bin/" 2>/dev/null ||
  cp "$BUILD/bin/tile-run" "$stage/bin/"
cp "$BUILD"/runtime/libtile_runtime.so* "$stage/lib/" 2>/dev/null ||
  cp "$BUILD"/lib/libtile_runtime.so* "$stage/lib/"
strip --strip-all "$stage/bin/tilec" "$stage/bin/tile-run"
# Host kernels link these in (HostExecutable.cpp looks in ../lib/tilec).
cp "$BUILD/lib/libTileNumerics.a" "$stage/lib/tilec/" 2>/dev/null ||
  cp "$(find "$BUILD" -name libTileNumerics.a | head -1)" "$stage/lib/tilec/"
builtins=$(ls /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.builtins-x86_64.a 2>/dev/null || true)
[ -n "$builtins" ] && cp "$builtins" "$stage/lib/tilec/"
cp -r runtime/include/tile "$stage/include/"
cp include/tile/tile_jit.h "$stage/include/tile/"
cp docs/Portable.md "$stage/README.md"

# Self-contained: no LLVM, MLIR or libstdc++ from the system.
if ldd "$stage/bin/tilec" | grep -E 'libLLVM|libMLIR|libstdc\+\+|liblld'; then
  echo "make-portable: tilec still needs the shared libraries above" >&2
  exit 1
fi
tar -C "$OUT" -cJf "$OUT/$name.tar.xz" "$name"
bytes=$(stat -c %s "$OUT/$name.tar.xz")
echo "make-portable: $OUT/$name.tar.xz: $((bytes / 1024 / 1024)) MiB" \
     "(tilec $(($(stat -c %s "$stage/bin/tilec") / 1024 / 1024)) MiB unpacked)"
if [ "$bytes" -gt $((48 * 1024 * 1024)) ]; then
  echo "make-portable: larger than 48 MiB" >&2
  exit 1
fi
