//===- GpuTest.cpp - CUDA backend tests on a real GPU (label gpu) ---------===//
//
// Runs a hand-written PTX kernel through the bundle loader on the first
// CUDA device, with poisoned outputs, and checks it against a plain loop.
// Skips (visibly) only where no CUDA driver or device exists
// (test::cudaDeviceAbsent); where one exists, a device that does not open
// fails every test, as does any load or launch failure.
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"

#include "gtest/gtest.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

using namespace tile::rt;

namespace {

std::string manifest(unsigned SharedBytes) {
  return test::manifestJson({test::vaddKernelJson(
      R"("entry": "tile_test_vadd", "target": "sm_52", "object": "vadd.ptx",
         "object_kind": "ptx", "shared_bytes": )" +
          std::to_string(SharedBytes),
      100003, 5)});
}

/// The hand-written vadd kernel (Inputs/vadd.ptx).
std::string vaddPtx() {
  std::ifstream In(TILE_TEST_PTX);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

class GpuTest : public testing::Test {
protected:
  void SetUp() override {
    Expected<Device> D = Device::open("cuda");
    if (!D && test::cudaDeviceAbsent(D.message()))
      GTEST_SKIP() << "no CUDA device: " << D.message();
    ASSERT_TRUE(D) << "a CUDA driver is present but cuda:0 does not open: "
                   << D.message();
    Dev = *D;
  }

  std::string makeBundle(const std::string &Name, unsigned SharedBytes,
                         std::string Ptx = "") {
    if (Ptx.empty())
      Ptx = vaddPtx();
    return test::makeTempBundle(
        "tile_gpu_" + Name,
        {{"vadd.ptx", Ptx}, {"manifest.json", manifest(SharedBytes)}});
  }

  Expected<Kernel> loadVadd(const std::string &Dir) {
    Expected<Bundle> B = Bundle::load(Dir);
    if (!B)
      return B.takeError();
    return B->loadKernel(Dev, B->manifest().Kernels[0]);
  }

  /// Runs vadd over N elements and compares with A + B on the host.
  void checkVadd(Kernel &K, int64_t N) {
    Expected<test::VaddBuffers> V = test::makeVaddBuffers(Dev, N, 5);
    ASSERT_TRUE(V) << V.message();
    Error E = K.launch(V->args());
    ASSERT_FALSE(E) << E.message();
    ASSERT_FALSE(Dev.synchronize());
    Expected<std::vector<uint8_t>> C = V->C.read();
    ASSERT_TRUE(C) << C.message();
    EXPECT_TRUE(*C == test::vaddReference(N, 5)) << "N = " << N;
  }

  Device Dev;
};

TEST_F(GpuTest, VectorAddFromPtx) {
  EXPECT_EQ(Dev.arch().rfind("sm_", 0), 0u) << Dev.arch();
  Expected<Kernel> K = loadVadd(makeBundle("vadd", 0));
  ASSERT_TRUE(K) << K.message();
  for (int64_t N : {1, 63, 64, 65, 100003, 1 << 22})
    checkVadd(*K, N);
}

TEST_F(GpuTest, DynamicSharedMemoryAbove48K) {
  Expected<Kernel> K = loadVadd(makeBundle("smem", 96 * 1024));
  ASSERT_TRUE(K) << K.message();
  checkVadd(*K, 4097);
  Expected<Kernel> TooMuch = loadVadd(makeBundle("smem_big", 4 << 20));
  ASSERT_FALSE(TooMuch);
  EXPECT_NE(TooMuch.message().find("tile_test_vadd needs 4194304 bytes of "
                                   "shared memory but the device allows "),
            std::string::npos)
      << TooMuch.message();
}

TEST_F(GpuTest, BadPtxIsReportedWithTheJitLog) {
  Expected<Kernel> K = loadVadd(
      makeBundle("bad", 0, ".version 7.0\n.target sm_52\nnonsense;\n"));
  ASSERT_FALSE(K);
  EXPECT_NE(K.message().find("cuModuleLoadData("), std::string::npos)
      << K.message();
  EXPECT_NE(K.message().find("failed: CUDA_ERROR_INVALID_PTX"),
            std::string::npos)
      << K.message();
}

TEST_F(GpuTest, EventsTimeALaunch) {
  Expected<Kernel> K = loadVadd(makeBundle("events", 0));
  ASSERT_TRUE(K) << K.message();
  const int64_t N = 1 << 24;
  Expected<Buffer> Buf = Dev.allocate(N * 4);
  ASSERT_TRUE(Buf);
  ASSERT_FALSE(Buf->fill(0));
  ArgValue T = ArgValue::tensor(Buf->address(), Buf->size(), {N}, "f32");
  Expected<Stream> S = Dev.createStream();
  ASSERT_TRUE(S) << S.message();
  Expected<Event> Start = S->record();
  ASSERT_TRUE(Start) << Start.message();
  ASSERT_FALSE(K->launch({T, T, T}, {}, &*S));
  Expected<Event> End = S->record();
  ASSERT_TRUE(End);
  Expected<float> Ms = Event::elapsedMs(*Start, *End);
  ASSERT_TRUE(Ms) << Ms.message();
  EXPECT_GT(*Ms, 0.0f);
  EXPECT_LT(*Ms, 1000.0f);
  EXPECT_FALSE(S->synchronize());
}

TEST_F(GpuTest, AHeldStreamWaitsForTheRelease) {
  // The device starts a held window only at the release: an event recorded
  // before the hold and one after the window are further apart than the
  // host's wait between queueing and releasing; the window's launches are
  // all done, and right, afterwards. (No synchronous copy while held: on
  // the legacy default stream it would wait for the held work.)
  Expected<Kernel> K = loadVadd(makeBundle("hold", 0));
  ASSERT_TRUE(K) << K.message();
  std::vector<test::VaddBuffers> Bufs;
  for (uint64_t Seed : {11, 12, 13}) {
    Expected<test::VaddBuffers> V = test::makeVaddBuffers(Dev, 1 << 20, Seed);
    ASSERT_TRUE(V) << V.message();
    Bufs.push_back(std::move(*V));
  }
  Expected<Stream> S = Dev.createStream();
  ASSERT_TRUE(S) << S.message();
  Expected<Event> Before = S->record();
  ASSERT_TRUE(Before) << Before.message();
  Expected<StreamHold> Hold = S->hold();
  ASSERT_TRUE(Hold) << Hold.message();
  EXPECT_TRUE(Hold->held()); // Every CUDA 10+ driver has host functions.
  for (test::VaddBuffers &V : Bufs)
    ASSERT_FALSE(K->launch(V.args(), {}, &*S));
  Expected<Event> After = S->record();
  ASSERT_TRUE(After) << After.message();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Hold->release();
  Expected<float> Ms = Event::elapsedMs(*Before, *After);
  ASSERT_TRUE(Ms) << Ms.message();
  EXPECT_GE(*Ms, 45.0f);
  ASSERT_FALSE(S->synchronize());
  for (size_t I = 0; I < Bufs.size(); ++I) {
    Expected<std::vector<uint8_t>> C = Bufs[I].C.read();
    ASSERT_TRUE(C) << C.message();
    EXPECT_TRUE(*C == test::vaddReference(1 << 20, 11 + I)) << "set " << I;
  }
}

TEST_F(GpuTest, TileRunRotatesOnTheGpu) {
  std::string Dir = makeBundle("tile_run_rotate", 0);
  test::writeVaddReference(Dir + "/C.npy", 100003, 5);
  std::string Out;
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda --repeat 5 --rotate 64",
                             Out),
            0)
      << Out;
  // 1.2 MB per set: 64 MiB asks for 56 sets.
  EXPECT_NE(Out.find("over 5 runs (windows over 56 copies of the tensors, "
                     "per launch)"),
            std::string::npos)
      << Out;
}

/// vadd.ptx as a dependent launch (tilec --dependent-launch's order):
/// each thread prefetches its A element into L2, then waits for the grid
/// before it, lets the next one in, and only then loads.
std::string dependentVaddPtx() {
  std::string Ptx = vaddPtx();
  auto Replace = [&](const std::string &From, const std::string &To) {
    size_t At = Ptx.find(From);
    EXPECT_NE(At, std::string::npos) << From;
    if (At != std::string::npos)
      Ptx.replace(At, From.size(), To);
  };
  Replace(".version 7.0", ".version 8.0");
  Replace(".target sm_52", ".target sm_90");
  Replace("    ld.global.f32       %f1, [%rd8];",
          "    prefetch.global.L2  [%rd8];\n"
          "    griddepcontrol.wait;\n"
          "    griddepcontrol.launch_dependents;\n"
          "    ld.global.f32       %f1, [%rd8];");
  return Ptx;
}

// Dependent launches on a real driver (cuLaunchKernelEx with programmatic
// stream serialization): eight vadds in a chain, each reading the sum the
// one before wrote (X_k = X_k-1 + B), each prefetching that input before
// its wait as tilec's kernels do. Each may start before the one before
// ends; none may read its input early: the last sum is A + 8 B, added in
// the same order on the host.
TEST_F(GpuTest, DependentLaunchesReadWhatTheGridBeforeWrote) {
  if (std::stoi(Dev.arch().substr(3)) < 90)
    GTEST_SKIP() << "dependent launch needs sm_90 or later, not " << Dev.arch();
  const int64_t N = 1 << 22, Steps = 8;
  std::string Dir = test::makeTempBundle(
      "tile_gpu_pdl",
      {{"vadd.ptx", dependentVaddPtx()},
       {"manifest.json", test::manifestJson({test::vaddKernelJson(
                             R"("entry": "tile_test_vadd", "target": "sm_90",
               "object": "vadd.ptx", "object_kind": "ptx",
               "shared_bytes": 0, "dependent_launch": true)",
                             N, 5)})}});
  Expected<Kernel> K = loadVadd(Dir);
  ASSERT_TRUE(K) << K.message();
  ASSERT_TRUE(K->config().DependentLaunch);
  Expected<test::VaddBuffers> V = test::makeVaddBuffers(Dev, N, 5);
  ASSERT_TRUE(V) << V.message();
  std::vector<Buffer> X;
  for (int64_t I = 0; I < Steps; ++I) {
    Expected<Buffer> Buf = Dev.allocate(N * 4);
    ASSERT_TRUE(Buf) << Buf.message();
    ASSERT_FALSE(Buf->fill(PoisonByte));
    X.push_back(*Buf);
  }
  Expected<Stream> S = Dev.createStream();
  ASSERT_TRUE(S) << S.message();
  auto Tensor = [&](const Buffer &B) {
    return ArgValue::tensor(B.address(), B.size(), {N}, "f32");
  };
  for (int64_t I = 0; I < Steps; ++I) {
    Error E = K->launch(
        {Tensor(I ? X[I - 1] : V->A), Tensor(V->B), Tensor(X[I])}, {}, &*S);
    ASSERT_FALSE(E) << E.message();
  }
  ASSERT_FALSE(S->synchronize());
  Expected<std::vector<uint8_t>> Got = X.back().read();
  Expected<std::vector<uint8_t>> A = generateTensor("f32", N, 5, "A");
  Expected<std::vector<uint8_t>> B = generateTensor("f32", N, 5, "B");
  ASSERT_TRUE(Got && A && B);
  int64_t Wrong = 0;
  for (int64_t I = 0; I < N; ++I) {
    float Sum, Y, Z;
    std::memcpy(&Sum, A->data() + 4 * I, 4);
    std::memcpy(&Y, B->data() + 4 * I, 4);
    for (int64_t Step = 0; Step < Steps; ++Step)
      Sum = Sum + Y;
    std::memcpy(&Z, Got->data() + 4 * I, 4);
    Wrong += std::memcmp(&Z, &Sum, 4) != 0;
  }
  EXPECT_EQ(Wrong, 0) << "of " << N;
}

TEST_F(GpuTest, TileRunOnTheGpu) {
  std::string Dir = makeBundle("tile_run", 0);
  test::writeVaddReference(Dir + "/C.npy", 100003, 5);
  std::string Out;
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda --repeat 5",
                             Out),
            0)
      << Out;
  EXPECT_NE(Out.find("PASS vadd[N=100003 seed=5] C: max_abs=0"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("1 passed, 0 failed, 0 skipped"), std::string::npos)
      << Out;
}

} // namespace
