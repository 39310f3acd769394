//===- TestBundle.h - A hand-written host bundle for the tests --*- C++ -*-===//

#ifndef TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H
#define TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace tile {
namespace rt {
namespace test {

/// The manifest of the kernels in HostKernels.cpp.
inline const char *hostManifest() {
  return R"json({
  "format": "tilec-bundle",
  "version": 1,
  "compiler": "hand-written",
  "kernels": [
    {
      "name": "vadd", "entry": "tile_test_vadd", "target": "host",
      "object": "kernels.so", "object_kind": "host-so",
      "constants": {"BLOCK": 64}, "warps": 2,
      "grid": ["cdiv(N, 64)", "1", "1"],
      "params": [
        {"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
        {"name": "B", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
        {"name": "C", "kind": "tensor", "dtype": "f32", "shape": ["N"],
         "mut": true},
        {"name": "N", "kind": "dim"}
      ],
      "tests": [
        {"sizes": {"N": 1000}, "seed": 3, "expected": {"C": "vadd.C.npy"}}
      ]
    },
    {
      "name": "u4_affine", "entry": "tile_test_u4_affine", "target": "host",
      "object": "kernels.so", "object_kind": "host-so",
      "grid": ["cdiv(K, 16)", "M", 1],
      "params": [
        {"name": "X", "kind": "tensor", "dtype": "u4", "shape": ["M", "K"]},
        {"name": "Y", "kind": "tensor", "dtype": "u8", "shape": ["M", "K"],
         "mut": true},
        {"name": "c", "kind": "scalar", "dtype": "i32"},
        {"name": "M", "kind": "dim"},
        {"name": "K", "kind": "dim"}
      ],
      "tests": [
        {"sizes": {"M": 7, "K": 33}, "scalars": {"c": 5}, "seed": 1,
         "expected": {"Y": "u4_affine.Y.npy"}}
      ]
    }
  ]
})json";
}

/// Makes a fresh bundle directory holding the test kernels and
/// hostManifest(); returns its path.
inline std::string makeHostBundle(const std::string &Name) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::path(testing::TempDir()) / ("tile_bundle_" + Name);
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  fs::copy_file(TILE_TEST_KERNELS, Dir / "kernels.so");
  std::ofstream(Dir / "manifest.json") << hostManifest();
  return Dir.string();
}

} // namespace test
} // namespace rt
} // namespace tile

#endif // TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H
