//===- FakeHipTest.cpp - The HIP backend against a simulated runtime ------===//
//
// FakeHip.cpp stands in for libamdhip64.so (through TILE_HIP_LIBRARY): the
// HIP backend's memory, module, launch, stream, event and error paths run
// here, the launch parameters checked by the fake executing vadd on the
// host. The hipInit failure test comes first: a loaded runtime stays loaded.
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace tile::rt;

namespace {

const std::string Manifest = test::manifestJson(
    {test::vaddKernelJson(R"("target": "gfx942", "object": "vadd.hsaco",
                             "object_kind": "hsaco", "warps": 1)",
                          777, 2),
     R"json({"name": "other", "target": "gfx950", "object": "vadd.hsaco",
             "object_kind": "hsaco", "grid": ["1", "1", "1"],
             "params": []})json"});

class FakeHipTest : public testing::Test {
protected:
  void SetUp() override {
    setenv("TILE_HIP_LIBRARY", TILE_FAKE_HIP, 1);
    setenv("TILE_HIP_ARCH", "gfx942", 1);
    unsetenv("TILE_FAKE_HIP_INIT");
  }

  const FakeLaunch &last() {
    return test::fakeLastLaunch(TILE_FAKE_HIP, "fakeHipLastLaunch");
  }

  std::string makeBundle(const std::string &Name, const std::string &Object) {
    return test::makeTempBundle(
        "tile_fakehip_" + Name,
        {{"vadd.hsaco", Object}, {"manifest.json", Manifest}});
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
    Expected<Stream> S = D->createStream();
    ASSERT_TRUE(S) << S.message();
    ASSERT_FALSE(B->fill(3, *S));
    EXPECT_EQ(last().FillStream, S->nativeHandle());
    ASSERT_FALSE(S->synchronize());
    All = B->read();
    ASSERT_TRUE(All);
    EXPECT_EQ(*All, std::vector<uint8_t>(8, 3));
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
  Expected<test::VaddBuffers> V = test::makeVaddBuffers(*D, N, 2);
  ASSERT_TRUE(V) << V.message();
  Expected<Stream> S = D->createStream();
  ASSERT_TRUE(S);
  Error E = K->launch(V->args(), {}, &*S);
  ASSERT_FALSE(E) << E.message();
  ASSERT_FALSE(S->synchronize());
  EXPECT_EQ(last().Grid[0], 13u);
  EXPECT_EQ(last().Block[0], 64u);
  EXPECT_EQ(last().Stream, S->nativeHandle());
  Expected<std::vector<uint8_t>> C = V->C.read();
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, test::vaddReference(N, 2));
  // A runtime without hipLaunchHostFunc (this one) holds nothing, and a
  // held window then runs as it is queued.
  Expected<StreamHold> Hold = S->hold();
  ASSERT_TRUE(Hold) << Hold.message();
  EXPECT_FALSE(Hold->held());

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
  test::writeVaddReference(Dir + "/C.npy", 777, 2);
  std::string Out;
  EXPECT_EQ(test::runCommand(
                std::string(TILE_RUN_EXE) + " " + Dir + " --device hip:1", Out),
            0)
      << Out;
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
