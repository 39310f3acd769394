//===- TestBundle.h - Bundles and helpers shared by runtime tests -*- C++
//-*-===//
//
// A hand-written host bundle, temporary bundle folders, the reference of the
// vadd test kernel (host, simulated CUDA/HIP and GPU tests all run one) and
// running tools such as tile-run.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H
#define TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H

#include "FakeDriver.h"

#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"
#include "tile/runtime/Runtime.h"
#include "tile/runtime/Signature.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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

/// The manifest entry of a vadd kernel (C = A + B over N f32 elements, 64
/// threads per block; what the simulated drivers and Inputs/vadd.ptx run)
/// with the extra JSON members \p Fields ("\"target\": \"sm_90a\", ...")
/// and one test of \p N elements and seed \p Seed checked against C.npy.
inline std::string vaddKernelJson(const std::string &Fields, int64_t N,
                                  uint64_t Seed) {
  return R"json({
    "name": "vadd", "threads_per_block": 64, "grid": ["cdiv(N, 64)", "1", "1"],
    "params": [
      {"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
      {"name": "B", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
      {"name": "C", "kind": "tensor", "dtype": "f32", "shape": ["N"], "mut": true},
      {"name": "N", "kind": "dim"}
    ],
    "tests": [ {"sizes": {"N": )json" +
         std::to_string(N) + R"json(}, "seed": )json" + std::to_string(Seed) +
         R"json(, "expected": {"C": "C.npy"}} ],
    )json" +
         Fields + "}";
}

/// A manifest of the kernel entries \p Kernels (JSON objects).
inline std::string manifestJson(const std::vector<std::string> &Kernels) {
  std::string S = R"json({"format": "tilec-bundle", "version": 1,
  "compiler": "hand-written", "kernels": [)json";
  for (size_t I = 0; I < Kernels.size(); ++I)
    S += (I ? ",\n" : "\n") + Kernels[I];
  return S + "]}";
}

/// Makes a fresh folder TempDir()/NAME holding \p Files (name, contents);
/// returns its path.
inline std::string
makeTempBundle(const std::string &Name,
               const std::vector<std::pair<std::string, std::string>> &Files) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::path(testing::TempDir()) / Name;
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  for (const auto &[File, Contents] : Files)
    std::ofstream(Dir / File) << Contents;
  return Dir.string();
}

/// The f32 bytes of A + B for vadd's generated inputs of \p N elements and
/// seed \p Seed (a plain loop); element \p CorruptAt is off by one.
inline std::vector<uint8_t> vaddReference(int64_t N, uint64_t Seed,
                                          int64_t CorruptAt = -1) {
  auto A = generateTensor("f32", N, Seed, "A");
  auto B = generateTensor("f32", N, Seed, "B");
  EXPECT_TRUE(A && B);
  std::vector<uint8_t> C(N * 4);
  if (!A || !B)
    return C;
  for (int64_t I = 0; I < N; ++I) {
    float X, Y;
    std::memcpy(&X, A->data() + 4 * I, 4);
    std::memcpy(&Y, B->data() + 4 * I, 4);
    float Z = X + Y + (I == CorruptAt ? 1.0f : 0.0f);
    std::memcpy(C.data() + 4 * I, &Z, 4);
  }
  return C;
}

/// Writes vaddReference(N, Seed) to \p Path as a .npy file.
inline void writeVaddReference(const std::string &Path, int64_t N,
                               uint64_t Seed, int64_t CorruptAt = -1) {
  Expected<NpyArray> C = toNpy("f32", {N}, vaddReference(N, Seed, CorruptAt));
  ASSERT_TRUE(C) << C.message();
  ASSERT_FALSE(writeNpy(Path, *C));
}

/// The buffers of a vadd launch over \p N elements: A and B generated with
/// the test's seed, C poisoned.
struct VaddBuffers {
  int64_t N = 0;
  Buffer A, B, C;
  /// The three tensor arguments.
  std::vector<ArgValue> args() const {
    return {ArgValue::tensor(A.address(), A.size(), {N}, "f32"),
            ArgValue::tensor(B.address(), B.size(), {N}, "f32"),
            ArgValue::tensor(C.address(), C.size(), {N}, "f32")};
  }
};

/// Allocates and fills the buffers of a vadd launch on \p D.
inline Expected<VaddBuffers> makeVaddBuffers(Device &D, int64_t N,
                                             uint64_t Seed) {
  VaddBuffers V;
  V.N = N;
  for (const char *Name : {"A", "B", "C"}) {
    Expected<Buffer> Buf = D.allocate(N * 4);
    if (!Buf)
      return Buf.takeError();
    Buffer &Slot = *Name == 'A' ? V.A : *Name == 'B' ? V.B : V.C;
    Slot = *Buf;
    if (*Name == 'C') {
      if (Error E = Slot.fill(PoisonByte))
        return E;
      continue;
    }
    Expected<std::vector<uint8_t>> Data = generateTensor("f32", N, Seed, Name);
    if (!Data)
      return Data.takeError();
    if (Error E = Slot.upload(*Data))
      return E;
  }
  return V;
}

/// The record of the last launch of the simulated driver \p Library (the
/// runtime loaded it already), read through its accessor \p Symbol.
inline const FakeLaunch &fakeLastLaunch(const char *Library,
                                        const char *Symbol) {
  static const FakeLaunch None;
  void *Lib = dlopen(Library, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(Lib, nullptr) << Library << " is not loaded";
  if (!Lib)
    return None;
  auto Fn = reinterpret_cast<const FakeLaunch *(*)()>(dlsym(Lib, Symbol));
  dlclose(Lib);
  EXPECT_NE(Fn, nullptr) << Symbol;
  return Fn ? *Fn() : None;
}

/// Runs the shell command \p Cmd (stderr joined to stdout); returns its
/// exit status (-1 when it did not exit normally) and its output.
inline int runCommand(const std::string &Cmd, std::string &Output) {
  Output.clear();
  FILE *P = popen((Cmd + " 2>&1").c_str(), "r");
  if (!P)
    return -1;
  char Buf[512];
  while (fgets(Buf, sizeof(Buf), P))
    Output += Buf;
  int Status = pclose(P);
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

/// Whether \p OpenError, the message of a failed Device::open("cuda"), says
/// that this machine has no CUDA device to test: no driver library, a stub
/// driver, cuInit's CUDA_ERROR_NO_DEVICE, or no device counted. Only then
/// do the GPU tests skip; any other failure (a driver that lacks entry
/// points, cuInit's other errors, a device that does not open) is a broken
/// backend on a machine with a GPU and fails them. The messages are the
/// runtime's (pinned by DriverTest and FakeCudaTest).
inline bool cudaDeviceAbsent(const std::string &OpenError) {
  for (const char *Prefix :
       {"no CUDA driver found", "cuInit failed: CUDA_ERROR_NO_DEVICE",
        "cuInit failed: CUDA_ERROR_STUB_LIBRARY"})
    if (OpenError.rfind(Prefix, 0) == 0)
      return true;
  return OpenError.rfind("no CUDA device cuda:", 0) == 0 &&
         OpenError.find(" (0 present)") != std::string::npos;
}

} // namespace test
} // namespace rt
} // namespace tile

#endif // TILE_UNITTESTS_RUNTIME_TESTBUNDLE_H
