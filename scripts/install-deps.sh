#!/usr/bin/env bash
# Installs what building and testing tilec needs on Debian 12 (bookworm), as
# root: LLVM/MLIR 22, clang-22 (fuzzer), lld-22, lit/FileCheck, GoogleTest,
# CMake, Ninja, ccache. Does nothing when everything is already installed.
# The CUDA toolkit (ptxas) is optional: when /usr/local/cuda is there, PTX is
# also assembled in the tests.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3 git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 libclang-rt-22-dev
  libgtest-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
