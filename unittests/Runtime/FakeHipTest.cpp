//===- FakeHipTest.cpp - The HIP backend against a simulated runtime ------===//
//
// FakeHip.cpp stands in for libamdhip64.so (through TILE_HIP_LIBRARY): the
// HIP backend's memory, module, launch, stream, event and error paths run
// here, the launch parameters checked by the fake executing vadd on the
// host. The hipInit failure test comes first: a loaded runtime stays loaded.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>

using namespace tile::rt;
namespace fs = std::filesystem;

namespace {

const char *Manifest = R"json({
  "format": "tilec-bundle", "version": 1,
  "kernels": [ {
    "name": "vadd", "target": "gfx942", "object": "vadd.hsaco",
    "object_kind": "hsaco", "warps": 1, "threads_per_block": 64,
    "grid": ["cdiv(N, 64)", "1", "1"],
    "params": [
      {"name": "A", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
      {"name": "B", "kind": "tensor", "dtype": "f32", "shape": ["N"]},
      {"name": "C", "kind": "tensor", "dtype": "f32", "shape": ["N"], "mut": true},
      {"name": "N", "kind": "dim"}
    ],
    "tests": [ {"sizes": {"N": 777}, "seed": 2, "expected": {"C": "C.npy"}} ]
  }, {
    "name": "other", "target": "gfx950", "object": "vadd.hsaco",
    "object_kind": "hsaco", "grid": ["1", "1", "1"], "params": []
  } ]
})json";

class FakeHipTest : public testing::Test {
protected:
  void SetUp() override {
    setenv("TILE_HIP_LIBRARY", TILE_FAKE_HIP, 1);
    setenv("TILE_HIP_ARCH", "gfx942", 1);
    unsetenv("TILE_FAKE_HIP_INIT");
  }

  const FakeLaunch &last() {
    void *Lib = dlopen(TILE_FAKE_HIP, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(Lib, nullptr);
    auto Fn = reinterpret_cast<const FakeLaunch *(*)()>(
        dlsym(Lib, "fakeHipLastLaunch"));
    dlclose(Lib);
    return *Fn();
  }

  std::string makeBundle(const std::string &Name, const std::string &Object) {
    fs::path Dir = fs::path(testing::TempDir()) / ("tile_fakehip_" + Name);
    fs::remove_all(Dir);
    fs::create_directories(Dir);
    std::ofstream(Dir / "vadd.hsaco") << Object;
    std::ofstream(Dir / "manifest.json") << Manifest;
    return Dir.string();
  }

  /// The reference output of the manifest's test.
  std::vector<uint8_t> reference(int64_t N, uint64_t Seed) {
    auto A = generateTensor("f32", N, Seed, "A");
    auto B = generateTensor("f32", N, Seed, "B");
    EXPECT_TRUE(A && B);
    std::vector<uint8_t> C(N * 4);
    for (int64_t I = 0; I < N; ++I) {
      float X, Y;
      std::memcpy(&X, A->data() + 4 * I, 4);
      std::memcpy(&Y, B->data() + 4 * I, 4);
      float Z = X + Y;
      std::memcpy(C.data() + 4 * I, &Z, 4);
    }
    return C;
  }
};

TEST_F(FakeHipTest, InitFailureIsTranslated) {
  setenv("TILE_FAKE_HIP_INIT", "100", 1);
  EXPECT_EQ(Device::open("hip").message(),
            "hipInit failed: hipErrorNoDevice (no ROCm-capable device is "
            "detected)");
}

TEST_F(FakeHipTest, DevicesAndMemory) {
  Expected<Device> D = Device::open("hip:1");
  ASSERT_TRUE(D) << D.message();
  EXPECT_EQ(D->platform(), Platform::Hip);
  EXPECT_EQ(D->name(), "Fake AMD 1");
  EXPECT_EQ(D->arch(), "gfx942");
  EXPECT_EQ(Device::open("hip:2").message(), "no HIP device hip:2 (2 present)");
  int Live = last().LiveAllocations;
  {
    Expected<Buffer> B = D->allocate(8);
    ASSERT_TRUE(B) << B.message();
    ASSERT_FALSE(B->fill(7));
    const uint8_t Data[2] = {9, 8};
    ASSERT_FALSE(B->upload(Data, 2, 6));
    Expected<std::vector<uint8_t>> All = B->read();
    ASSERT_TRUE(All);
    EXPECT_EQ(*All, (std::vector<uint8_t>{7, 7, 7, 7, 7, 7, 9, 8}));
    EXPECT_EQ(last().LiveAllocations, Live + 1);
  }
  EXPECT_EQ(last().LiveAllocations, Live);
}

TEST_F(FakeHipTest, LaunchAndErrors) {
  Expected<Device> D = Device::open("hip:0");
  ASSERT_TRUE(D) << D.message();
  std::string Dir = makeBundle("launch", "code object");
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  EXPECT_TRUE(targetRunsOn("gfx942", ObjectKind::Hsaco, *D));
  EXPECT_FALSE(targetRunsOn("gfx950", ObjectKind::Hsaco, *D));
  Expected<Kernel> K = B->loadKernel(*D, B->manifest().Kernels[0]);
  ASSERT_TRUE(K) << K.message();

  const int64_t N = 777;
  auto A = generateTensor("f32", N, 2, "A");
  auto Bv = generateTensor("f32", N, 2, "B");
  ASSERT_TRUE(A && Bv);
  Expected<Buffer> BA = D->allocate(N * 4), BB = D->allocate(N * 4),
                   BC = D->allocate(N * 4);
  ASSERT_TRUE(BA && BB && BC);
  ASSERT_FALSE(BA->upload(*A));
  ASSERT_FALSE(BB->upload(*Bv));
  ASSERT_FALSE(BC->fill(PoisonByte));
  Expected<Stream> S = D->createStream();
  ASSERT_TRUE(S);
  Error E = K->launch({ArgValue::tensor(BA->address(), BA->size(), {N}, "f32"),
                       ArgValue::tensor(BB->address(), BB->size(), {N}, "f32"),
                       ArgValue::tensor(BC->address(), BC->size(), {N}, "f32")},
                      {}, &*S);
  ASSERT_FALSE(E) << E.message();
  ASSERT_FALSE(S->synchronize());
  EXPECT_EQ(last().Grid[0], 13u);
  EXPECT_EQ(last().Block[0], 64u);
  EXPECT_EQ(last().Stream, S->nativeHandle());
  Expected<std::vector<uint8_t>> C = BC->read();
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, reference(N, 2));

  std::string BadDir = makeBundle("bad", "BAD object");
  EXPECT_EQ(D->loadModule(BadDir + "/vadd.hsaco", ObjectKind::Hsaco).message(),
            "hipModuleLoadData(" + BadDir +
                "/vadd.hsaco) failed: hipErrorInvalidImage (device kernel "
                "image is invalid)");
  Expected<Module> M = D->loadModule(Dir + "/vadd.hsaco", ObjectKind::Hsaco);
  ASSERT_TRUE(M);
  KernelSignature Sig;
  Sig.Name = "k";
  EXPECT_EQ(M->getKernel("missing", Sig).message(),
            "hipModuleGetFunction(missing) failed: hipErrorNotFound (named "
            "symbol not found)");
}

TEST_F(FakeHipTest, TileRunWithTheSimulatedRuntime) {
  std::string Dir = makeBundle("tile_run", "code object");
  Expected<NpyArray> CN = toNpy("f32", {777}, reference(777, 2));
  ASSERT_TRUE(CN);
  ASSERT_FALSE(writeNpy(Dir + "/C.npy", *CN));
  std::string Cmd =
      std::string(TILE_RUN_EXE) + " " + Dir + " --device hip:1 2>&1";
  FILE *P = popen(Cmd.c_str(), "r");
  ASSERT_NE(P, nullptr);
  std::string Out;
  char Line[512];
  while (fgets(Line, sizeof(Line), P))
    Out += Line;
  int Status = pclose(P);
  EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << Out;
  EXPECT_NE(Out.find("PASS vadd[N=777 seed=2] C: max_abs=0"), std::string::npos)
      << Out;
  EXPECT_NE(Out.find("SKIP other: hsaco code for gfx950 does not run on "
                     "gfx942"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("1 passed, 0 failed, 1 skipped"), std::string::npos)
      << Out;
}

} // namespace
