//===- NvEmuTest.cpp - Tests of the NVIDIA emulator platform --------------===//
//
// Runs the hand-written kernels of NvEmuKernels.cpp on device "cuda-emu"
// and checks them against references written here from the PTX ISA's
// definitions (shuffle modes as CUDA documents them, ldmatrix and mma
// fragment layouts as tables per register), on seeded random data. The
// error tests check that each kind of misbehaviour fails the launch with a
// clear message instead of crashing or hanging.
//
//===----------------------------------------------------------------------===//

#include "EmuTestSupport.h"
#include "TestBundle.h"

#include "tile/Emulation/NvEmuAbi.h"
#include "tile/runtime/Bundle.h"
#include "tile/runtime/Runtime.h"

#include "tile/Numerics/Format.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace tile::rt;
namespace num = tile::numerics;

namespace {

class NvEmuTest : public test::EmuTestBase {
protected:
  void SetUp() override {
    open("cuda-emu", TILE_NVEMU_TEST_KERNELS, ObjectKind::NvEmuSO);
  }
};

using test::contains;
using test::randomWords;

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

TEST_F(NvEmuTest, DeviceAndNames) {
  EXPECT_EQ(Dev.platform(), Platform::NvEmu);
  EXPECT_EQ(Dev.name(), "NVIDIA emulator (CPU)");
  EXPECT_EQ(Dev.arch(), "sm_90a");
  test::expectNames(Platform::NvEmu, "cuda-emu", ObjectKind::NvEmuSO,
                    "nvemu-so");

  Expected<Device> Again = Device::open("cuda-emu:0");
  ASSERT_TRUE(Again) << Again.message();
  EXPECT_EQ(Again->platform(), Platform::NvEmu);
  EXPECT_EQ(Device::open("cuda-emu:1").message(),
            "there is only one emulated NVIDIA device ('cuda-emu')");

  // Any NVIDIA target runs on the emulator; nothing else does.
  EXPECT_TRUE(
      targetRunsOn("sm_80", ObjectKind::NvEmuSO, Platform::NvEmu, "sm_90a"));
  EXPECT_TRUE(
      targetRunsOn("sm_100a", ObjectKind::NvEmuSO, Platform::NvEmu, "sm_90a"));
  EXPECT_FALSE(
      targetRunsOn("host", ObjectKind::NvEmuSO, Platform::NvEmu, "sm_90a"));
  EXPECT_FALSE(
      targetRunsOn("sm_90", ObjectKind::Cubin, Platform::NvEmu, "sm_90a"));
}

TEST_F(NvEmuTest, LoadErrors) {
  EXPECT_EQ(
      Dev.loadModule(TILE_NVEMU_TEST_KERNELS, ObjectKind::HostSO).message(),
      std::string("cannot load a host-so code object on a cuda-emu "
                  "device: ") +
          TILE_NVEMU_TEST_KERNELS);
  // A host code object has no __tile_emu_bind.
  EXPECT_EQ(Dev.loadModule(TILE_TEST_KERNELS, ObjectKind::NvEmuSO).message(),
            std::string(TILE_TEST_KERNELS) +
                " is not an nvemu-so code object: it does not export "
                "__tile_emu_bind");
  EXPECT_EQ(
      Dev.loadModule("/nonexistent/k.so", ObjectKind::NvEmuSO)
          .message()
          .rfind("cannot load nvemu-so code object /nonexistent/k.so: ", 0),
      0u);
  KernelSignature Sig;
  Sig.Name = "nope";
  EXPECT_EQ(Mod.getKernel("nope", Sig).message(),
            std::string("entry 'nope' (symbol __tile_emu_entry_nope) not "
                        "found in ") +
                TILE_NVEMU_TEST_KERNELS);
  EXPECT_EQ(Mod.getKernel("sregs", Sig, {128, 300000}).message(),
            "kernel 'sregs' needs 300000 bytes of dynamic shared memory; the "
            "emulated sm_90 has at most 232448");

  // From memory, as the JIT hands code objects over.
  std::ifstream In(TILE_NVEMU_TEST_KERNELS, std::ios::binary);
  std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(In)),
                             std::istreambuf_iterator<char>());
  Expected<Module> M = Dev.loadModuleData(Bytes, ObjectKind::NvEmuSO);
  ASSERT_TRUE(M) << M.message();
  Sig.Name = "sregs";
  Sig.Params.push_back({"out", ParamKind::Scalar, "i32", {}, false});
  EXPECT_TRUE(M->getKernel("sregs", Sig));
}

TEST_F(NvEmuTest, LaunchLimits) {
  Buffer Out = output<uint32_t>(16);
  EXPECT_EQ(run("sregs", 0, 0, {1, 1, 1}, {Out.address()}).message(),
            "sregs: cannot launch 0 threads per block (the emulated sm_90 "
            "allows 1-1024)");
  EXPECT_EQ(run("sregs", 1025, 0, {1, 1, 1}, {Out.address()}).message(),
            "sregs: cannot launch 1025 threads per block (the emulated sm_90 "
            "allows 1-1024)");
}

//===----------------------------------------------------------------------===//
// Special registers, barriers, memory
//===----------------------------------------------------------------------===//

TEST_F(NvEmuTest, SpecialRegisters) {
  const uint32_t Threads = 80; // The last warp is partial.
  const std::array<uint32_t, 3> Grid = {3, 2, 2};
  size_t Total = size_t(Threads) * 12;
  Buffer Out = output<uint32_t>(Total * TILE_EMU_NUM_SREGS);
  ASSERT_FALSE(run("sregs", Threads, 0, Grid, {Out.address()}));
  std::vector<uint32_t> V = read<uint32_t>(Out);
  for (uint32_t Z = 0; Z < 2; ++Z)
    for (uint32_t Y = 0; Y < 2; ++Y)
      for (uint32_t X = 0; X < 3; ++X)
        for (uint32_t T = 0; T < Threads; ++T) {
          size_t Id = ((Z * 2 + Y) * 3 + X) * Threads + T;
          const uint32_t *R = &V[Id * TILE_EMU_NUM_SREGS];
          uint32_t Want[TILE_EMU_NUM_SREGS] = {
              T, 0, 0, Threads, 1, 1, X, Y, Z, 3, 2, 2, T % 32, T / 32};
          for (int K = 0; K < TILE_EMU_NUM_SREGS; ++K)
            ASSERT_EQ(R[K], Want[K])
                << "sreg " << K << " of thread " << T << " of block " << X
                << "," << Y << "," << Z;
        }
}

/// ex2.approx.f32 keeps subnormal results and inputs; the .ftz form (tilec's
/// exp2) reads subnormal inputs as zero and flushes subnormal results.
TEST_F(NvEmuTest, Ex2FlushesSubnormalsOnlyInItsFtzForm) {
  const float Tiny = std::ldexp(1.0f, -130); // subnormal
  std::vector<float> In = {3.0f,    -1.5f,   -126.0f, -130.0f,
                           -149.0f, -160.0f, Tiny,    -Tiny};
  Buffer InB = upload(In), Out = output<float>(In.size() * 2);
  ASSERT_FALSE(run("ex2", uint32_t(In.size()), 0, {1, 1, 1},
                   {InB.address(), Out.address()}));
  std::vector<float> Got = read<float>(Out);
  for (size_t I = 0; I < In.size(); ++I) {
    float Exact = std::exp2(In[I]);
    bool Subnormal = std::fpclassify(Exact) == FP_SUBNORMAL;
    EXPECT_EQ(Got[2 * I], Exact) << "ex2 of " << In[I];
    float Ftz = std::fpclassify(In[I]) == FP_SUBNORMAL ? 1.0f
                : Subnormal                            ? 0.0f
                                                       : Exact;
    EXPECT_EQ(Got[2 * I + 1], Ftz) << "ex2.ftz of " << In[I];
  }
  // The cases above reach every branch: a subnormal result and input.
  EXPECT_EQ(Got[2 * 3], std::ldexp(1.0f, -130));
  EXPECT_EQ(Got[2 * 3 + 1], 0.0f);
  EXPECT_EQ(Got[2 * 6 + 1], 1.0f);
}

TEST_F(NvEmuTest, BarriersOrderSharedAccesses) {
  const uint32_t Threads = 128, Blocks = 3, Rounds = 5;
  std::vector<uint32_t> In = randomWords(Threads * Blocks, 11);
  Buffer InB = upload(In);
  Buffer Out = output<uint32_t>(In.size());
  ASSERT_FALSE(run("rotate", Threads, Threads * 4, {Blocks, 1, 1},
                   {InB.address(), Out.address(), Rounds}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t B = 0; B < Blocks; ++B) {
    std::vector<uint32_t> V = test::rotateReference(
        {In.begin() + B * Threads, In.begin() + (B + 1) * Threads}, Rounds);
    for (uint32_t T = 0; T < Threads; ++T)
      ASSERT_EQ(Got[B * Threads + T], V[T]) << "block " << B << " thread " << T;
  }
}

TEST_F(NvEmuTest, ExitedThreadsDoNotBlockBarriers) {
  const uint32_t Threads = 128;
  Buffer Out = output<uint32_t>(Threads);
  ASSERT_FALSE(
      run("early_exit", Threads, Threads * 4, {1, 1, 1}, {Out.address()}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t T = 0; T < Threads; ++T)
    EXPECT_EQ(Got[T], T < 64 ? (T + 1) % 64 + 100 : poison<uint32_t>())
        << "thread " << T;
}

TEST_F(NvEmuTest, LocalAccessesOnTheFiberStack) {
  Buffer Out = output<uint32_t>(64);
  ASSERT_FALSE(run("stack", 64, 0, {1, 1, 1}, {Out.address()}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t T = 0; T < 64; ++T)
    EXPECT_EQ(Got[T], T * (63 * 64 / 2));
}

TEST_F(NvEmuTest, CpAsyncWritesWhenItsGroupIsWaitedFor) {
  const uint32_t N = 64;
  std::vector<uint32_t> SrcWords = randomWords(3 * N * 4, 5);
  std::vector<uint8_t> Src(SrcWords.size() * 4);
  std::memcpy(Src.data(), SrcWords.data(), Src.size());
  std::vector<uint32_t> SrcBytes(N);
  for (uint32_t T = 0; T < N; ++T)
    SrcBytes[T] = T % 17; // 0 (pure zero fill) .. 16 (full copy).
  Buffer SrcB = upload(Src);
  Buffer SizesB = upload(SrcBytes);
  Buffer Out = output<uint8_t>(4 * N * 48);
  // Reading the destinations before the waits is what a kernel must not do:
  // the emulator says so, and the dumps show what was there.
  Error E = run("cp_async", N, 3 * N * 16, {1, 1, 1},
                {SrcB.address(), SizesB.address(), Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       ":\n  cp.async hazard: thread 0 reads byte 0 (access "
                       "of 1 bytes at offset 0) while a cp.async onto it is "
                       "in flight (not yet retired by cp.async.wait_group) "
                       "(block (0,0,0))\n"))
      << E.message();
  std::vector<uint8_t> Got = read<uint8_t>(Out);
  const uint8_t Poison = 0xCD;
  for (uint32_t T = 0; T < N; ++T) {
    auto Expect = [&](uint32_t Stage, uint32_t Region, uint32_t I) -> int {
      bool Landed = Region == 0   ? Stage >= 1
                    : Region == 1 ? Stage >= 2
                                  : Stage >= 3 && I < 8;
      if (!Landed)
        return Poison;
      uint32_t Limit = Region == 0 ? SrcBytes[T] : 16;
      return I < Limit ? Src[(Region * N + T) * 16 + I] : 0;
    };
    for (uint32_t Stage = 0; Stage < 4; ++Stage)
      for (uint32_t R = 0; R < 3; ++R)
        for (uint32_t I = 0; I < 16; ++I)
          ASSERT_EQ(Got[(Stage * N + T) * 48 + R * 16 + I], Expect(Stage, R, I))
              << "stage " << Stage << " thread " << T << " region " << R
              << " byte " << I;
  }
  // The source of the uncommitted copy was overwritten after the issue.
  std::vector<uint8_t> After = read<uint8_t>(SrcB);
  EXPECT_EQ(After[(2 * N + 5) * 16], 0x5A);
}

TEST_F(NvEmuTest, CpAsyncIssueAndRetirementAreWritesForTheRaceDetector) {
  const uint32_t N = 64;
  std::vector<uint32_t> Words = randomWords(N * 4, 6);
  Buffer Src = upload(Words);
  Buffer Out = output<uint32_t>(N * 4);
  // wait_group, then a barrier: the neighbour's data is there.
  ASSERT_FALSE(run("cp_async_exchange", N, N * 16, {1, 1, 1},
                   {Src.address(), Out.address(), 1}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t T = 0; T < N; ++T)
    for (uint32_t I = 0; I < 4; ++I)
      ASSERT_EQ(Got[T * 4 + I], Words[(T + 1) % N * 4 + I]) << "thread " << T;
  // Without a barrier, thread 0 reads thread 1's slot before thread 1 even
  // issued its copy (uninitialized), and the issue is a write racing with
  // that read.
  Error E = run("cp_async_exchange", N, N * 16, {1, 1, 1},
                {Src.address(), Out.address(), 0});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       ":\n  uninitialized shared-memory read: thread 0 reads "
                       "byte 16 (access of 16 bytes at offset 16), which no "
                       "thread of the block has written (block (0,0,0))\n"))
      << E.message();
  EXPECT_TRUE(contains(E.message(),
                       "\n  shared-memory race: thread 1 writes byte 16 "
                       "(access of 16 bytes at offset 16), which thread 0 "
                       "read since the last barrier (block (0,0,0))\n"))
      << E.message();
  // With the barrier before wait_group, thread 0 reads thread 1's slot
  // while thread 1's copy is in flight, and its retirement races with that
  // read.
  E = run("cp_async_exchange", N, N * 16, {1, 1, 1},
          {Src.address(), Out.address(), 2});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  cp.async hazard: thread 0 reads byte 16 (access "
                       "of 16 bytes at offset 16) while a cp.async onto it is "
                       "in flight (not yet retired by cp.async.wait_group) "
                       "(block (0,0,0))\n"))
      << E.message();
  EXPECT_TRUE(contains(E.message(),
                       "\n  shared-memory race: thread 1 writes byte 16 "
                       "(access of 16 bytes at offset 16), which thread 0 "
                       "read since the last barrier (block (0,0,0))\n"))
      << E.message();
}

//===----------------------------------------------------------------------===//
// TMA copies and mbarriers
//===----------------------------------------------------------------------===//

/// The signature of the "tma" kernel: A's tensor map has a 64x64 box with
/// the 128-byte swizzle.
KernelSignature tmaSignature() {
  KernelSignature Sig;
  Sig.Name = "tma";
  Sig.Params = {{"A", ParamKind::Tensor, "f16", {"M", "N"}, false},
                {"Out", ParamKind::Tensor, "u8", {"OUT"}, true},
                {"c0", ParamKind::Scalar, "i32", {}, false},
                {"c1", ParamKind::Scalar, "i32", {}, false},
                {"mode", ParamKind::Scalar, "i32", {}, false},
                {"M", ParamKind::Dim, "i32", {}, false},
                {"N", ParamKind::Dim, "i32", {}, false},
                {"OUT", ParamKind::Dim, "i32", {}, false}};
  Sig.TensorMaps = {{0, {64, 64}, 128}};
  return Sig;
}

/// What the 64x64 f16 box of \p A (\p M x \p N) at column \p C0, row
/// \p C1 leaves in the 8192 bytes of shared memory at offset 1024 (1024-
/// byte aligned): stored densely, row-major, then the 16-byte chunk index
/// (address bits 4-6) XORed with address bits 7-9; zeros outside A.
std::vector<uint8_t> tmaReference(const std::vector<uint16_t> &A, int64_t M,
                                  int64_t N, int64_t C0, int64_t C1) {
  std::vector<uint8_t> Stage(8192, 0xAA);
  for (int64_t R = 0; R < 64; ++R)
    for (int64_t C = 0; C < 64; ++C) {
      int64_t Row = C1 + R, Col = C0 + C;
      uint16_t V = Row >= 0 && Row < M && Col >= 0 && Col < N
                       ? A[size_t(Row * N + Col)]
                       : 0;
      uint64_t Address = 1024 + uint64_t(R * 64 + C) * 2;
      uint64_t Swizzled = Address ^ (((Address >> 7) & 7) << 4);
      std::memcpy(&Stage[Swizzled - 1024], &V, 2);
    }
  return Stage;
}

class NvEmuTmaTest : public NvEmuTest {
protected:
  void SetUp() override {
    NvEmuTest::SetUp();
    A.resize(M * N);
    std::vector<uint32_t> Words = randomWords(M * N, 21);
    for (size_t I = 0; I < A.size(); ++I)
      A[I] = static_cast<uint16_t>(Words[I] | 1); // Never zero.
    ABuf = upload(A);
    OutBuf = output<uint8_t>(3 * 8192);
    Expected<Kernel> Loaded = Mod.getKernel("tma", tmaSignature(), {32, 9216});
    ASSERT_TRUE(Loaded) << Loaded.message();
    K = *Loaded;
  }

  Error launch(int64_t C0, int64_t C1, uint32_t Mode) {
    return K.launch(
        {ArgValue::tensor(ABuf.address(), ABuf.size(), {M, N}, "f16"),
         ArgValue::tensor(OutBuf.address(), OutBuf.size(), {3 * 8192}, "u8"),
         ArgValue::scalar(double(C0)), ArgValue::scalar(double(C1)),
         ArgValue::scalar(Mode)});
  }

  /// Part \p Part of the kernel's dumps.
  std::vector<uint8_t> dump(unsigned Part) {
    std::vector<uint8_t> All = read<uint8_t>(OutBuf);
    return std::vector<uint8_t>(All.begin() + Part * 8192,
                                All.begin() + (Part + 1) * 8192);
  }

  const int64_t M = 100, N = 72; // Rows of 144 bytes.
  std::vector<uint16_t> A;
  Buffer ABuf, OutBuf;
  Kernel K;
};

TEST_F(NvEmuTmaTest, SwizzledBoxWithEdgesLandsAtTheWait) {
  // Columns 40-103 of 72, rows -3-60 of 100: both edges are zero-filled.
  ASSERT_FALSE(launch(40, -3, 0));
  EXPECT_EQ(dump(1), tmaReference(A, M, N, 40, -3));
  // Columns -8-55, rows 70-133.
  ASSERT_FALSE(launch(-8, 70, 0));
  EXPECT_EQ(dump(1), tmaReference(A, M, N, -8, 70));
}

TEST_F(NvEmuTmaTest, TheStageIsInFlightUntilTheWait) {
  Error E = launch(40, -3, 1);
  EXPECT_TRUE(failsWith(E, {"512 errors in emulated kernel 'tma'",
                            ":\n  TMA hazard: thread ",
                            " (access of 16 bytes at offset ",
                            ") while a TMA copy onto it is in flight (its "
                            "mbarrier phase has not completed) (block "
                            "(0,0,0))\n"}));
  EXPECT_EQ(dump(0), std::vector<uint8_t>(8192, 0xCD)); // The poison.
  EXPECT_EQ(dump(1), tmaReference(A, M, N, 40, -3));
}

TEST_F(NvEmuTmaTest, TwoPhasesOnOneBarrier) {
  ASSERT_FALSE(launch(0, 0, 4));
  EXPECT_EQ(dump(1), tmaReference(A, M, N, 0, 0));
  EXPECT_EQ(dump(2), tmaReference(A, M, N, 0, 64));
}

TEST_F(NvEmuTmaTest, MissingTransactionBytesDeadlock) {
  Error E = launch(0, 0, 2);
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  deadlock in block (0,0,0): every thread that has "
                       "not exited waits; warp 0: lanes 0-31 at mbarrier "
                       "(shared offset 0x0) waiting for phase parity 0: 0 of "
                       "1 arrivals pending, 2048 transaction bytes "
                       "outstanding"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "1 error in emulated kernel"))
      << E.message();
  // The abandoned block left nothing behind.
  EXPECT_FALSE(launch(0, 0, 4));
}

TEST_F(NvEmuTmaTest, RefillWithoutABlockBarrierRacesWithTheReaders) {
  Error E = launch(0, 0, 4 | 8);
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       ":\n  shared-memory race: thread 0 writes byte 1280 "
                       "(access of 8192 bytes at offset 1024), which thread "
                       "1 read since the last barrier (block (0,0,0))"))
      << E.message();
}

TEST_F(NvEmuTmaTest, TensorMapsAreChecked) {
  // 200-byte rows.
  Expected<Kernel> Odd = Mod.getKernel("tma", tmaSignature(), {32, 9216});
  ASSERT_TRUE(Odd) << Odd.message();
  Error E = Odd->launch(
      {ArgValue::tensor(ABuf.address(), ABuf.size(), {64, 100}, "f16"),
       ArgValue::tensor(OutBuf.address(), OutBuf.size(), {3 * 8192}, "u8"),
       ArgValue::scalar(0), ArgValue::scalar(0), ArgValue::scalar(0)});
  EXPECT_EQ(E.message(),
            "tma: tensor A (64x100 f16): a TMA copy needs rows whose byte "
            "stride is a multiple of 16, this one is 200 bytes; compile "
            "without --tma for such shapes");
  E = Odd->launch(
      {ArgValue::tensor(ABuf.address() + 8, 64 * 72 * 2, {64, 72}, "f16"),
       ArgValue::tensor(OutBuf.address(), OutBuf.size(), {3 * 8192}, "u8"),
       ArgValue::scalar(0), ArgValue::scalar(0), ArgValue::scalar(0)});
  EXPECT_EQ(E.message(), "tma: tensor A (64x72 f16): a TMA copy needs a "
                         "16-byte aligned address, this one is 16n + 8");
}

TEST_F(NvEmuTest, MbarrierMisuseIsReported) {
  auto Run = [&](uint64_t Mode) {
    return run("mbarrier_misuse", 1, 64, {1, 1, 1}, {Mode});
  };
  EXPECT_TRUE(failsWith(Run(0), {"mbarrier.arrive.expect_tx on the mbarrier "
                                 "at shared offset 0x8, which is not "
                                 "initialized",
                                 "(block (0,0,0), thread 0)"}));
  EXPECT_TRUE(failsWith(Run(1), {"mbarrier.init of the mbarrier at shared "
                                 "offset 0x0, which is initialized already "
                                 "(mbarrier.inval it first)"}));
  EXPECT_TRUE(failsWith(Run(2), {"mbarrier.init: mbarrier address 0x",
                                 "(shared offset 0x4) is not 8-byte "
                                 "aligned"}));
  EXPECT_TRUE(failsWith(Run(3), {"(shared offset 0x40) is outside the "
                                 "64-byte dynamic shared memory"}));
  EXPECT_FALSE(Run(4));
  EXPECT_TRUE(failsWith(Run(5), {"mbarrier.arrive.expect_tx on the mbarrier "
                                 "at shared offset 0x0 beyond the 1 arrivals "
                                 "its phase expects (the phase waits for 16 "
                                 "transaction bytes)"}));
}

//===----------------------------------------------------------------------===//
// Shuffles
//===----------------------------------------------------------------------===//

/// CUDA's definitions of __shfl*_sync(mask, var, b, width) for one lane:
/// the source lane, or -1 when the lane keeps its own value (predicate
/// false).
int cudaShflSource(uint32_t Mode, unsigned Lane, unsigned B, unsigned Width) {
  unsigned Segment = Lane / Width * Width;
  switch (Mode) {
  case TILE_EMU_SHFL_IDX:
    return static_cast<int>(Segment + B % Width);
  case TILE_EMU_SHFL_UP:
    return Lane % Width >= B ? static_cast<int>(Lane - B) : -1;
  case TILE_EMU_SHFL_DOWN:
    return Lane % Width + B < Width ? static_cast<int>(Lane + B) : -1;
  default: { // BFLY: later groups are out of reach.
    unsigned J = Lane ^ B;
    return J / Width > Lane / Width ? -1 : static_cast<int>(J);
  }
  }
}

// A producer warpgroup hands stages to consumer warps through two
// mbarriers (plain arrivals), the consumers synchronize with a named
// barrier of their own 128 threads, and each role sets its registers: the
// sums are exact, and each misuse is reported.
TEST_F(NvEmuTest, WarpRolesHandOffThroughMbarriers) {
  const uint32_t Rounds = 5;
  auto Run = [&](uint64_t Mode, Buffer &Out) {
    return run("roles", 256, 1040, {1, 1, 1}, {Out.address(), Rounds, Mode});
  };
  Buffer Out = output<uint32_t>(128);
  ASSERT_FALSE(Run(0, Out));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t T = 0; T < 128; ++T) {
    uint32_t Want = 0;
    for (uint32_t R = 0; R < Rounds; ++R)
      Want += R * 1000 + T % 64;
    ASSERT_EQ(Got[T], Want) << "thread " << T;
  }
  Buffer Scratch = output<uint32_t>(128);
  // Without the empty wait the producer completes phases of the full
  // barrier nobody waited for: the consumers then wait for a parity that
  // never comes.
  EXPECT_TRUE(failsWith(Run(1, Scratch),
                        {"deadlock in block (0,0,0)",
                         "at mbarrier (shared offset 0x400) waiting for "
                         "phase parity 1"}));
  EXPECT_TRUE(failsWith(Run(2, Scratch),
                        {"barrier 1 reached with 64 threads while threads "
                         "wait in it for 128"}));
  EXPECT_TRUE(failsWith(Run(3, Scratch),
                        {"setmaxnreg.dec 20: PTX needs a multiple of 8 in "
                         "[24, 256]"}));
}

TEST_F(NvEmuTest, ShuffleModesMatchCudaDefinitions) {
  const uint32_t Threads = 64;
  std::mt19937 Gen(7);
  std::vector<uint32_t> In = randomWords(Threads, 3);
  Buffer InB = upload(In);
  const char *Names[] = {"up", "down", "bfly", "idx"};
  for (uint32_t Mode = 0; Mode < 4; ++Mode)
    for (unsigned Width : {32u, 16u, 8u, 4u, 2u, 1u})
      for (int Trial = 0; Trial < 3; ++Trial) {
        // CUDA passes c = ((32 - width) << 8) | clamp, with clamp 0 for up
        // and 31 otherwise; b is per lane for idx, uniform otherwise (and
        // may exceed 31 for idx: only b[4:0] counts).
        uint32_t C = ((32 - Width) << 8) | (Mode == TILE_EMU_SHFL_UP ? 0 : 31);
        std::vector<uint32_t> B(32);
        uint32_t Uniform = Gen() % (Mode == TILE_EMU_SHFL_BFLY ? 32 : Width);
        for (uint32_t &X : B)
          X = Mode == TILE_EMU_SHFL_IDX ? Gen() % 256 : Uniform;
        Buffer BB = upload(B);
        Buffer Out = output<uint32_t>(Threads),
               Pred = output<uint32_t>(Threads);
        Error E = run("shfl", Threads, 0, {1, 1, 1},
                      {InB.address(), BB.address(), Out.address(),
                       Pred.address(), Mode, C, 0xffffffffu});
        ASSERT_FALSE(E) << E.message();
        std::vector<uint32_t> Got = read<uint32_t>(Out);
        std::vector<uint32_t> GotPred = read<uint32_t>(Pred);
        for (uint32_t T = 0; T < Threads; ++T) {
          unsigned Lane = T % 32;
          unsigned Bv = Mode == TILE_EMU_SHFL_IDX ? B[Lane] % 32 : B[Lane];
          int Src = cudaShflSource(Mode, Lane, Bv, Width);
          uint32_t Want = In[Src < 0 ? T : T - Lane + Src];
          ASSERT_EQ(Got[T], Want) << Names[Mode] << " width " << Width << " b "
                                  << B[Lane] << " thread " << T;
          ASSERT_EQ(GotPred[T], Src < 0 ? 0u : 1u)
              << Names[Mode] << " width " << Width << " b " << B[Lane]
              << " thread " << T;
        }
      }
}

TEST_F(NvEmuTest, ShuffleUnderAPartialMemberMask) {
  const uint32_t Threads = 96;
  std::vector<uint32_t> In = randomWords(Threads, 4);
  Buffer InB = upload(In);
  Buffer Out = output<uint32_t>(Threads);
  ASSERT_FALSE(run("half_reduce", Threads, 0, {1, 1, 1},
                   {InB.address(), Out.address()}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t W = 0; W < 3; ++W) {
    uint32_t Sum = 0;
    for (uint32_t L = 0; L < 16; ++L)
      Sum += In[W * 32 + L];
    for (uint32_t L = 0; L < 32; ++L)
      EXPECT_EQ(Got[W * 32 + L], L < 16 ? Sum : poison<uint32_t>());
  }
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

TEST_F(NvEmuTest, LdmatrixMatchesTheIsaLayout) {
  // 64 rows of 8 b16 elements in shared memory; lanes address random
  // distinct rows.
  const uint32_t Bytes = 64 * 16;
  std::vector<uint32_t> Data = randomWords(Bytes / 4, 21);
  Buffer DataB = upload(Data);
  auto Element = [&](uint32_t Offset, unsigned C) {
    uint16_t H;
    std::memcpy(
        &H, reinterpret_cast<const uint8_t *>(Data.data()) + Offset + 2 * C, 2);
    return H;
  };
  std::mt19937 Gen(9);
  for (uint32_t Count : {1u, 2u, 4u})
    for (uint32_t Trans : {0u, 1u}) {
      std::vector<uint32_t> Rows(64);
      for (uint32_t I = 0; I < 64; ++I)
        Rows[I] = I;
      std::shuffle(Rows.begin(), Rows.end(), Gen);
      std::vector<uint32_t> Offsets(32);
      for (uint32_t L = 0; L < 32; ++L)
        // Lanes past 8 * Count give no address: make theirs unusable.
        Offsets[L] = L < 8 * Count ? Rows[L] * 16 : 0x7fff0000u + L;
      Buffer OffB = upload(Offsets);
      Buffer Out = output<uint32_t>(32 * 4);
      ASSERT_FALSE(run("ldmatrix", 32, Bytes, {1, 1, 1},
                       {DataB.address(), Bytes, OffB.address(), Out.address(),
                        Count, Trans}));
      std::vector<uint32_t> Got = read<uint32_t>(Out);
      for (uint32_t L = 0; L < 32; ++L)
        for (uint32_t I = 0; I < 4; ++I) {
          uint32_t Want = 0;
          if (I < Count) {
            // Matrix I's row r is at the address of lane 8 I + r. Lane L
            // holds row L / 4, columns 2 (L % 4) and 2 (L % 4) + 1 of the
            // matrix (of its transpose with .trans).
            unsigned Row = L / 4, Col = 2 * (L % 4);
            auto At = [&](unsigned R, unsigned C) {
              return Trans ? Element(Offsets[8 * I + C], R)
                           : Element(Offsets[8 * I + R], C);
            };
            Want = uint32_t(At(Row, Col)) | uint32_t(At(Row, Col + 1)) << 16;
          }
          ASSERT_EQ(Got[L * 4 + I], Want)
              << "x" << Count << (Trans ? ".trans" : "") << " lane " << L
              << " register " << I;
        }
    }
}

TEST_F(NvEmuTest, LdmatrixRowAddressesAreChecked) {
  const uint32_t Bytes = 1024;
  Buffer Data = upload(randomWords(Bytes / 4, 1));
  std::vector<uint32_t> Offsets(32);
  for (uint32_t L = 0; L < 32; ++L)
    Offsets[L] = 16 * L;
  Offsets[3] = Bytes;      // Past the end.
  Offsets[6] = 16 * 9 + 8; // Misaligned.
  Buffer OffB = upload(Offsets);
  Buffer Out = output<uint32_t>(32 * 4);
  Error E = run("ldmatrix", 32, Bytes, {1, 1, 1},
                {Data.address(), Bytes, OffB.address(), Out.address(), 1, 0});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  out-of-bounds shared read of 16 bytes at offset "
                       "1024 from the 1024-byte dynamic shared memory (block "
                       "(0,0,0), thread 3)\n"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), " is not 16-byte aligned (block (0,0,0), "
                                    "thread 6)"))
      << E.message();
  // The rows that could not be read are zeros: lane 12 holds row 3.
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  EXPECT_EQ(Got[12 * 4], 0u);
}

//===----------------------------------------------------------------------===//
// mma
//===----------------------------------------------------------------------===//

/// Where fragment element i of lane l sits, from the PTX ISA tables:
/// groupID = l >> 2, threadID_in_group = l % 4.
struct Pos {
  unsigned Row, Col;
};
Pos fragA(uint32_t Kind, unsigned L, unsigned I) {
  unsigned G = L >> 2, T = L % 4;
  switch (Kind) {
  case TILE_EMU_MMA_M16N8K8_F32_F16:
    // row: groupID for a0, a1; groupID + 8 for a2, a3.
    // col: threadID_in_group * 2 + (i & 0x1).
    return {I < 2 ? G : G + 8, T * 2 + (I & 1)};
  case TILE_EMU_MMA_M16N8K32_S32_S8:
  case TILE_EMU_MMA_M16N8K32_S32_S8_SAT:
  case TILE_EMU_MMA_M16N8K32_F32_E4M3:
  case TILE_EMU_MMA_M16N8K32_F32_E5M2:
    // row: groupID for 0 <= i < 4 || 8 <= i < 12, else groupID + 8.
    // col: threadID_in_group * 4 + (i & 0x3) for i < 8, + 16 for i >= 8.
    return {(I < 4 || (I >= 8 && I < 12)) ? G : G + 8,
            T * 4 + (I & 3) + (I < 8 ? 0 : 16)};
  default:
    // row: groupID for 0 <= i < 2 || 4 <= i < 6, else groupID + 8.
    // col: threadID_in_group * 2 + (i & 0x1) for i < 4, + 8 for i >= 4.
    return {(I < 2 || (I >= 4 && I < 6)) ? G : G + 8,
            T * 2 + (I & 1) + (I < 4 ? 0 : 8)};
  }
}
Pos fragB(uint32_t Kind, unsigned L, unsigned I) {
  unsigned G = L >> 2, T = L % 4;
  switch (Kind) {
  case TILE_EMU_MMA_M16N8K8_F32_F16:
    return {T * 2 + I, G};
  case TILE_EMU_MMA_M16N8K32_S32_S8:
  case TILE_EMU_MMA_M16N8K32_S32_S8_SAT:
  case TILE_EMU_MMA_M16N8K32_F32_E4M3:
  case TILE_EMU_MMA_M16N8K32_F32_E5M2:
    return {T * 4 + (I & 3) + (I < 4 ? 0 : 16), G};
  default:
    return {T * 2 + (I & 1) + (I < 2 ? 0 : 8), G};
  }
}
Pos fragC(unsigned L, unsigned I) {
  // row: groupID for c0, c1; groupID + 8 for c2, c3.
  // col: threadID_in_group * 2 + (i & 0x1).
  return {I < 2 ? (L >> 2) : (L >> 2) + 8, (L % 4) * 2 + (I & 1)};
}

TEST_F(NvEmuTest, MmaOfEveryKindMatchesAMatrixProduct) {
  struct KindCase {
    uint32_t Kind;
    unsigned K, ANum, BNum; // Elements per lane.
    enum { F16, BF16, S8, E4M3, E5M2 } In;
    bool F16Acc;
  };
  const KindCase Cases[] = {
      {TILE_EMU_MMA_M16N8K16_F32_F16, 16, 8, 4, KindCase::F16, false},
      {TILE_EMU_MMA_M16N8K16_F32_BF16, 16, 8, 4, KindCase::BF16, false},
      {TILE_EMU_MMA_M16N8K16_F16_F16, 16, 8, 4, KindCase::F16, true},
      {TILE_EMU_MMA_M16N8K32_S32_S8, 32, 16, 8, KindCase::S8, false},
      {TILE_EMU_MMA_M16N8K32_S32_S8_SAT, 32, 16, 8, KindCase::S8, false},
      {TILE_EMU_MMA_M16N8K8_F32_F16, 8, 4, 2, KindCase::F16, false},
      {TILE_EMU_MMA_M16N8K32_F32_E4M3, 32, 16, 8, KindCase::E4M3, false},
      {TILE_EMU_MMA_M16N8K32_F32_E5M2, 32, 16, 8, KindCase::E5M2, false},
  };
  std::mt19937 Gen(42);
  std::uniform_real_distribution<float> Real(-2.0f, 2.0f);
  for (const KindCase &KC : Cases) {
    SCOPED_TRACE("mma kind " + std::to_string(KC.Kind));
    bool Int = KC.In == KindCase::S8;
    bool Fp8 = KC.In == KindCase::E4M3 || KC.In == KindCase::E5M2;
    unsigned Bits = Int || Fp8 ? 8 : 16;
    num::Format Fp8Format = *num::Format::smallFloat(
        KC.In == KindCase::E5M2 ? 5 : 4, KC.In == KindCase::E5M2 ? 2 : 3);
    // Element codes and values of A (16 x K), B (K x 8), C (16 x 8).
    std::vector<uint32_t> ACode(16 * KC.K), BCode(KC.K * 8), CCode(16 * 8);
    std::vector<double> AVal(ACode.size()), BVal(BCode.size()),
        CVal(CCode.size());
    auto Draw = [&](uint32_t &Code, double &Val) {
      if (Int) {
        int8_t V = static_cast<int8_t>(Gen() % 256);
        Code = static_cast<uint8_t>(V);
        Val = V;
      } else if (Fp8) {
        // Any finite code (subnormals and the largest values included).
        do
          Code = Gen() % 256;
        while (!std::isfinite(num::decode(Fp8Format, Code)));
        Val = num::decode(Fp8Format, Code);
      } else if (KC.In == KindCase::BF16) {
        Code = num::f32ToBF16(Real(Gen));
        Val = num::bf16ToF32(static_cast<uint16_t>(Code));
      } else {
        Code = num::f32ToF16(Real(Gen));
        Val = num::f16ToF32(static_cast<uint16_t>(Code));
      }
    };
    for (size_t I = 0; I < ACode.size(); ++I)
      Draw(ACode[I], AVal[I]);
    for (size_t I = 0; I < BCode.size(); ++I)
      Draw(BCode[I], BVal[I]);
    for (size_t I = 0; I < CCode.size(); ++I) {
      if (Int) {
        // Near the int32 limits for some, so that sums overflow.
        int32_t V = static_cast<int32_t>(Gen() % 2000000) - 1000000;
        if (I % 5 == 0)
          V = (I % 10 == 0 ? INT32_MAX : INT32_MIN) - (I % 10 == 0 ? 10 : -10);
        CCode[I] = static_cast<uint32_t>(V);
        CVal[I] = V;
      } else if (KC.F16Acc) {
        CCode[I] = num::f32ToF16(Real(Gen));
        CVal[I] = num::f16ToF32(static_cast<uint16_t>(CCode[I]));
      } else {
        float V = Real(Gen);
        std::memcpy(&CCode[I], &V, 4);
        CVal[I] = V;
      }
    }
    // Fragments, packed low element first.
    std::vector<uint32_t> AF(32 * 4, 0), BF(32 * 2, 0), CF(32 * 4, 0);
    unsigned PerReg = 32 / Bits;
    for (unsigned L = 0; L < 32; ++L) {
      for (unsigned I = 0; I < KC.ANum; ++I) {
        Pos P = fragA(KC.Kind, L, I);
        AF[L * 4 + I / PerReg] |= ACode[P.Row * KC.K + P.Col]
                                  << (Bits * (I % PerReg));
      }
      for (unsigned I = 0; I < KC.BNum; ++I) {
        Pos P = fragB(KC.Kind, L, I);
        BF[L * 2 + I / PerReg] |= BCode[P.Row * 8 + P.Col]
                                  << (Bits * (I % PerReg));
      }
      for (unsigned I = 0; I < 4; ++I) {
        Pos P = fragC(L, I);
        if (KC.F16Acc)
          CF[L * 4 + I / 2] |= CCode[P.Row * 8 + P.Col] << (16 * (I % 2));
        else
          CF[L * 4 + I] = CCode[P.Row * 8 + P.Col];
      }
    }
    Buffer AB = upload(AF), BB = upload(BF), CB = upload(CF);
    Buffer DB = output<uint32_t>(32 * 4);
    ASSERT_FALSE(
        run("mma", 32, 0, {1, 1, 1},
            {AB.address(), BB.address(), CB.address(), DB.address(), KC.Kind}));
    std::vector<uint32_t> DF = read<uint32_t>(DB);
    unsigned Overflows = 0;
    for (unsigned L = 0; L < 32; ++L)
      for (unsigned I = 0; I < 4; ++I) {
        Pos P = fragC(L, I);
        double Ref = CVal[P.Row * 8 + P.Col];
        int64_t IRef = static_cast<int64_t>(Ref);
        for (unsigned K = 0; K < KC.K; ++K) {
          Ref += AVal[P.Row * KC.K + K] * BVal[K * 8 + P.Col];
          IRef += static_cast<int64_t>(AVal[P.Row * KC.K + K]) *
                  static_cast<int64_t>(BVal[K * 8 + P.Col]);
        }
        std::string Where = "lane " + std::to_string(L) + " element " +
                            std::to_string(I) + " (row " +
                            std::to_string(P.Row) + ", col " +
                            std::to_string(P.Col) + ")";
        if (Int) {
          int64_t Want = IRef;
          Overflows += Want > INT32_MAX || Want < INT32_MIN;
          if (KC.Kind == TILE_EMU_MMA_M16N8K32_S32_S8_SAT)
            Want = std::min<int64_t>(INT32_MAX,
                                     std::max<int64_t>(INT32_MIN, Want));
          else
            Want = static_cast<int32_t>(static_cast<uint32_t>(Want));
          ASSERT_EQ(static_cast<int32_t>(DF[L * 4 + I]), Want) << Where;
        } else if (KC.F16Acc) {
          float Got = num::f16ToF32(
              static_cast<uint16_t>(DF[L * 4 + I / 2] >> (16 * (I % 2))));
          // One rounding to f16: within half an f16 ulp.
          ASSERT_LE(std::fabs(Got - Ref),
                    std::ldexp(std::fabs(Ref), -11) + std::ldexp(1.0, -25))
              << Where;
        } else {
          float Got;
          std::memcpy(&Got, &DF[L * 4 + I], 4);
          ASSERT_LE(std::fabs(Got - Ref),
                    std::ldexp(std::fabs(Ref), -24) + std::ldexp(1.0, -140))
              << Where;
        }
      }
    if (Int) // The data must exercise wrapping / saturation.
      EXPECT_GT(Overflows, 0u);
    if (KC.F16Acc) { // The unused registers stay zero.
      for (unsigned L = 0; L < 32; ++L)
        EXPECT_EQ(DF[L * 4 + 2] | DF[L * 4 + 3], 0u);
    }
  }
}

TEST_F(NvEmuTest, TensorCoreGemmMatchesAPlainProduct) {
  // cp.async staging, ldmatrix (plain and .trans) and mma.sync together, as
  // a compiled GEMM uses them, against a plain triple loop.
  const uint32_t M = 64, N = 96, K = 48;
  std::mt19937 Gen(123);
  std::uniform_real_distribution<float> Real(-1.0f, 1.0f);
  std::vector<uint16_t> A(M * K), B(K * N);
  for (uint16_t &X : A)
    X = num::f32ToF16(Real(Gen));
  for (uint16_t &X : B)
    X = num::f32ToF16(Real(Gen));
  Buffer AB = upload(A), BB = upload(B);
  Buffer CB = output<float>(M * N);
  Error E = run("gemm", 128, 2048, {N / 32, M / 32, 1},
                {AB.address(), BB.address(), CB.address(), M, N, K});
  ASSERT_FALSE(E) << E.message();
  std::vector<float> Got = read<float>(CB);
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      double Ref = 0, Mag = 0;
      for (uint32_t P = 0; P < K; ++P) {
        double T =
            double(num::f16ToF32(A[I * K + P])) * num::f16ToF32(B[P * N + J]);
        Ref += T;
        Mag += std::fabs(T);
      }
      // Three f32 roundings (one per 16-deep step) at most.
      ASSERT_LE(std::fabs(Got[I * N + J] - Ref), 4 * Mag * std::ldexp(1.0, -24))
          << "C[" << I << "][" << J << "]";
    }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// wgmma.mma_async
//===----------------------------------------------------------------------===//

/// One wgmma.mma_async m64nNk16 f16 operand layout, written here from the
/// PTX ISA's canonical layouts: where element (mn, k) lies in the shared
/// image, and the descriptor that says so.
struct WgmmaOperandCase {
  enum Form { KMajorInterleave, KMajorSwizzled, MnMajorSwizzled } What;
  uint32_t Base, Row, Lbo, Sbo; // Row: swizzle width in bytes.
  uint32_t offset(uint32_t Mn, uint32_t K) const {
    uint32_t A;
    switch (What) {
    case KMajorInterleave: // 8 x 16-byte core matrices.
      return Base + (Mn / 8) * Sbo + (K / 8) * Lbo + (Mn % 8) * 16 +
             (K % 8) * 2;
    case KMajorSwizzled:
      A = Base + (Mn / 8) * Sbo + (Mn % 8) * Row + K * 2;
      break;
    case MnMajorSwizzled:
      A = Base + (Mn / (Row / 2)) * Lbo + (K / 8) * Sbo + (K % 8) * Row +
          (Mn % (Row / 2)) * 2;
      break;
    }
    // 16-byte chunk bits XOR the row-in-pattern bits (7 ..).
    uint32_t Bits = Row == 128 ? 7 : Row == 64 ? 3 : 1;
    return A ^ (((A >> 7) & Bits) << 4);
  }
  uint64_t descriptor() const {
    uint64_t Mode = What == KMajorInterleave ? 0
                    : Row == 128             ? 1
                    : Row == 64              ? 2
                                             : 3;
    return uint64_t(Base >> 4) | uint64_t(Lbo >> 4) << 16 |
           uint64_t(Sbo >> 4) << 32 | Mode << 62;
  }
};

struct WgmmaRun {
  std::vector<uint32_t> D;
  std::vector<double> Expect;
};

TEST_F(NvEmuTest, WgmmaMatchesTheIsaLayouts) {
  struct Case {
    unsigned N;
    WgmmaOperandCase A, B;
    bool TransB;
  };
  // A: K-major 128B-swizzled (second k16 slice of 64-element rows: start
  // 32 bytes in) or interleaved; B: MN-major 64B-swizzled or K-major
  // 32B-swizzled. 8 warps: two warpgroups, each its own product.
  const Case Cases[] = {
      {32,
       {WgmmaOperandCase::KMajorSwizzled, 32, 128, 16, 1024},
       {WgmmaOperandCase::MnMajorSwizzled, 8192, 64, 1024, 512},
       true},
      {16,
       {WgmmaOperandCase::KMajorInterleave, 0, 16, 128, 256},
       {WgmmaOperandCase::KMajorSwizzled, 8192, 32, 16, 256},
       false},
  };
  std::mt19937 Gen(7);
  std::uniform_real_distribution<float> Real(-2.0f, 2.0f);
  for (const Case &C : Cases) {
    SCOPED_TRACE("N " + std::to_string(C.N));
    const uint32_t Bytes = 16384, Threads = 256, Half = C.N / 2;
    std::vector<uint8_t> Image(Bytes, 0);
    double A[64][16], B[16][256];
    auto Put = [&](uint32_t Offset, double &Val) {
      uint16_t Code = num::f32ToF16(Real(Gen));
      Val = num::f16ToF32(Code);
      std::memcpy(&Image[Offset], &Code, 2);
    };
    for (uint32_t M = 0; M < 64; ++M)
      for (uint32_t K = 0; K < 16; ++K)
        Put(C.A.offset(M, K), A[M][K]);
    for (uint32_t K = 0; K < 16; ++K)
      for (uint32_t Col = 0; Col < C.N; ++Col)
        Put(C.B.offset(Col, K), B[K][Col]);
    std::vector<uint32_t> CIn(Threads * Half);
    std::vector<double> Expect(CIn.size());
    for (uint32_t T = 0; T < Threads; ++T)
      for (uint32_t I = 0; I < Half; ++I) {
        float Acc = Real(Gen);
        std::memcpy(&CIn[T * Half + I], &Acc, 4);
        // PTX: d[i] of thread t is row 16 (t/32 % 4) + (t%32)/4 +
        // 8 ((i%4)/2), column 8 (i/4) + 2 (t%4) + i%2.
        uint32_t Row = 16 * (T / 32 % 4) + (T % 32) / 4 + 8 * ((I % 4) / 2);
        uint32_t Col = 8 * (I / 4) + 2 * (T % 4) + I % 2;
        double Sum = Acc;
        for (uint32_t K = 0; K < 16; ++K)
          Sum += A[Row][K] * B[K][Col];
        Expect[T * Half + I] = Sum;
      }
    Buffer ImageB = upload(Image), CB = upload(CIn);
    Buffer DB = output<uint32_t>(CIn.size());
    uint32_t Flags =
        TILE_EMU_WGMMA_SCALE_D | (C.TransB ? TILE_EMU_WGMMA_TRANS_B : 0);
    Error E = run("wgmma", Threads, Bytes, {1, 1, 1},
                  {ImageB.address(), Bytes, C.A.descriptor(), C.B.descriptor(),
                   Flags, C.N, CB.address(), DB.address(), 0});
    ASSERT_FALSE(E) << E.message();
    std::vector<uint32_t> D = read<uint32_t>(DB);
    for (size_t I = 0; I < D.size(); ++I) {
      float Got;
      std::memcpy(&Got, &D[I], 4);
      ASSERT_NEAR(Got, Expect[I], 1e-5 * (1 + std::fabs(Expect[I])))
          << "thread " << I / Half << " register " << I % Half;
    }
    // A from registers: element e of a thread's fragment (PTX ISA,
    // "Register Fragments" of wgmma .m64nNk16, A) is row groupID + 8 (e/2
    // % 2) of its warp's 16, column 2 threadID_in_group + e % 2 + 8 (e/4);
    // two per 32-bit register, the first in the low half.
    std::vector<uint32_t> Words(Threads * 4, 0);
    for (uint32_t T = 0; T < Threads; ++T)
      for (uint32_t Elem = 0; Elem < 8; ++Elem) {
        uint32_t Lane = T % 32;
        uint32_t Row = 16 * (T / 32 % 4) + Lane / 4 + 8 * (Elem / 2 % 2);
        uint32_t Col = 2 * (Lane % 4) + Elem % 2 + 8 * (Elem / 4);
        uint32_t Code = num::f32ToF16(float(A[Row][Col]));
        Words[T * 4 + Elem / 2] |= Code << (16 * (Elem % 2));
      }
    Buffer WordsB = upload(Words);
    std::vector<uint32_t> Poison(CIn.size(), 0xFFFFFFFFu);
    Buffer DR = upload(Poison);
    E = run("wgmma", Threads, Bytes, {1, 1, 1},
            {ImageB.address(), Bytes, WordsB.address(), C.B.descriptor(), Flags,
             C.N, CB.address(), DR.address(), 64});
    ASSERT_FALSE(E) << E.message();
    D = read<uint32_t>(DR);
    for (size_t I = 0; I < D.size(); ++I) {
      float Got;
      std::memcpy(&Got, &D[I], 4);
      ASSERT_NEAR(Got, Expect[I], 1e-5 * (1 + std::fabs(Expect[I])))
          << "register A: thread " << I / Half << " register " << I % Half;
    }
    // Without scale-d the accumulators are not read.
    E = run("wgmma", Threads, Bytes, {1, 1, 1},
            {ImageB.address(), Bytes, C.A.descriptor(), C.B.descriptor(),
             Flags & ~TILE_EMU_WGMMA_SCALE_D, C.N, CB.address(), DB.address(),
             0});
    ASSERT_FALSE(E) << E.message();
    D = read<uint32_t>(DB);
    for (size_t I = 0; I < D.size(); ++I) {
      float Got, Acc;
      std::memcpy(&Got, &D[I], 4);
      std::memcpy(&Acc, &CIn[I], 4);
      ASSERT_NEAR(Got, Expect[I] - Acc, 1e-5 * (1 + std::fabs(Expect[I])));
    }
  }
}

/// m64nNk32 with 8-bit operands: both K-major, 32 one-byte elements of K
/// per row (PTX ISA: K-major canonical layouts in bytes); floats decoded
/// exactly (e4m3: no infinities, S.1111.111 is NaN; e5m2), s8 into s32
/// accumulators, exact.
TEST_F(NvEmuTest, WgmmaEightBitOperandsMatchTheIsaLayouts) {
  // A: 128B swizzle, rows of 128 bytes, starting 32 bytes in (the second
  // k32 slice); B: 64B swizzle, 64-byte rows. K-major:
  // (mn / 8) SBO + (mn % 8) row + k, then the chunk XOR.
  auto Offset = [](uint32_t Base, uint32_t Row, uint32_t Sbo, uint32_t Mn,
                   uint32_t K) {
    uint32_t A = Base + (Mn / 8) * Sbo + (Mn % 8) * Row + K;
    uint32_t Bits = Row == 128 ? 7 : Row == 64 ? 3 : 1;
    return A ^ (((A >> 7) & Bits) << 4);
  };
  auto Descriptor = [](uint32_t Base, uint32_t Row, uint32_t Sbo) {
    uint64_t Mode = Row == 128 ? 1 : Row == 64 ? 2 : 3;
    return uint64_t(Base >> 4) | uint64_t(16 >> 4) << 16 |
           uint64_t(Sbo >> 4) << 32 | Mode << 62;
  };
  const uint32_t Bytes = 16384, Threads = 128, N = 64, Half = N / 2;
  for (const char *Type : {"e4m3", "e5m2", "s8"}) {
    SCOPED_TRACE(Type);
    bool E5M2 = std::string(Type) == "e5m2", S8 = std::string(Type) == "s8";
    uint32_t Mode = S8 ? 32u : E5M2 ? 16u : 8u;
    num::Format Fmt = *num::Format::smallFloat(E5M2 ? 5 : 4, E5M2 ? 2 : 3);
    std::mt19937 Gen(11);
    std::uniform_int_distribution<int> Code(0, 255);
    std::vector<uint8_t> Image(Bytes, 0);
    double A[64][32], B[32][64];
    auto Put = [&](uint32_t At, double &Val) {
      uint8_t C;
      do {
        C = uint8_t(Code(Gen));
        Val = S8 ? double(int8_t(C)) : num::decode(Fmt, C);
      } while (!std::isfinite(Val));
      Image[At] = C;
    };
    for (uint32_t M = 0; M < 64; ++M)
      for (uint32_t K = 0; K < 32; ++K)
        Put(Offset(32, 128, 1024, M, K), A[M][K]);
    for (uint32_t Col = 0; Col < N; ++Col)
      for (uint32_t K = 0; K < 32; ++K)
        Put(Offset(8192, 64, 512, Col, K), B[K][Col]);
    std::vector<uint32_t> CIn(Threads * Half);
    std::vector<double> Expect(CIn.size());
    for (uint32_t T = 0; T < Threads; ++T)
      for (uint32_t I = 0; I < Half; ++I) {
        float Acc = float(T % 7) - 3.0f;
        if (S8)
          CIn[T * Half + I] = uint32_t(int32_t(T % 7) - 3);
        else
          std::memcpy(&CIn[T * Half + I], &Acc, 4);
        uint32_t Row = 16 * (T / 32) + (T % 32) / 4 + 8 * ((I % 4) / 2);
        uint32_t Col = 8 * (I / 4) + 2 * (T % 4) + I % 2;
        double Sum = Acc;
        for (uint32_t K = 0; K < 32; ++K)
          Sum += A[Row][K] * B[K][Col];
        Expect[T * Half + I] = Sum;
      }
    Buffer ImageB = upload(Image), CB = upload(CIn);
    Buffer DB = output<uint32_t>(CIn.size());
    uint64_t DA = Descriptor(32, 128, 1024), DBd = Descriptor(8192, 64, 512);
    Error E = run("wgmma", Threads, Bytes, {1, 1, 1},
                  {ImageB.address(), Bytes, DA, DBd, TILE_EMU_WGMMA_SCALE_D, N,
                   CB.address(), DB.address(), Mode});
    ASSERT_FALSE(E) << E.message();
    std::vector<uint32_t> D = read<uint32_t>(DB);
    for (size_t I = 0; I < D.size(); ++I) {
      if (S8) {
        ASSERT_EQ(int32_t(D[I]), int32_t(Expect[I]))
            << "thread " << I / Half << " register " << I % Half;
        continue;
      }
      float Got;
      std::memcpy(&Got, &D[I], 4);
      ASSERT_NEAR(Got, Expect[I], 1e-6 * (1 + std::fabs(Expect[I])))
          << "thread " << I / Half << " register " << I % Half;
    }
    // 8-bit operands have no MN-major form.
    E = run("wgmma", Threads, Bytes, {1, 1, 1},
            {ImageB.address(), Bytes, DA, DBd,
             TILE_EMU_WGMMA_SCALE_D | TILE_EMU_WGMMA_TRANS_B, N, CB.address(),
             DB.address(), Mode});
    ASSERT_TRUE(bool(E));
    EXPECT_NE(E.message().find("8-bit operands are K-major only"),
              std::string::npos)
        << E.message();
  }
}

TEST_F(NvEmuTest, WgmmaNeedsItsFenceAndKeepsItsOperandsUntilTheWait) {
  // The interleaved A of the test above starts at byte 0.
  WgmmaOperandCase A{WgmmaOperandCase::KMajorInterleave, 0, 16, 128, 256};
  WgmmaOperandCase B{WgmmaOperandCase::KMajorSwizzled, 8192, 32, 16, 256};
  const uint32_t Bytes = 16384, Threads = 128, N = 16;
  std::vector<uint8_t> Image(Bytes, 0x3C); // f16 1.0 (0x3C3C ~ 1.06).
  Buffer ImageB = upload(Image);
  Buffer CB = upload(std::vector<uint32_t>(Threads * N / 2, 0));
  Buffer DB = output<uint32_t>(Threads * N / 2);
  auto Run = [&](uint32_t Mode) {
    return run("wgmma", Threads, Bytes, {1, 1, 1},
               {ImageB.address(), Bytes, A.descriptor(), B.descriptor(),
                TILE_EMU_WGMMA_SCALE_D, N, CB.address(), DB.address(), Mode});
  };
  ASSERT_FALSE(Run(0));
  Error E = Run(1);
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                       "without a wgmma.fence since the thread's last "
                       "wgmma.wait_group (block (0,0,0), thread 0)"))
      << E.message();
  for (uint32_t Mode : {2u, 4u}) {
    E = Run(Mode);
    ASSERT_TRUE(E) << "mode " << Mode;
    EXPECT_TRUE(contains(E.message(),
                         "wgmma hazard: thread 0 writes byte 0 (access of 1 "
                         "bytes at offset 0) while a wgmma.mma_async reading "
                         "it is in flight (not yet retired by "
                         "wgmma.wait_group) (block (0,0,0))"))
        << E.message();
  }
}

TEST_F(NvEmuTest, OutOfBoundsGlobalRead) {
  // 100 elements; 128 threads copy one each.
  std::vector<uint32_t> In = randomWords(100, 8);
  Buffer InB = upload(In);
  Buffer Out = output<uint32_t>(128);
  Error E = run("copy", 128, 0, {1, 1, 1}, {InB.address(), Out.address()});
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message().rfind("copy: 28 errors in emulated kernel 'copy' "
                              "(grid (1,1,1), 128 threads per block):\n",
                              0),
            0u)
      << E.message();
  char Base[32];
  std::snprintf(Base, sizeof(Base), "0x%llx",
                static_cast<unsigned long long>(InB.address()));
  EXPECT_TRUE(contains(
      E.message(), "\n  out-of-bounds global read of 4 bytes at offset "
                   "400 from the 400-byte allocation at " +
                       std::string(Base) + " (block (0,0,0), thread 100)\n"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "\n  ... and 18 more")) << E.message();
  // The in-bounds copies happened; the rest read zeros.
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t I = 0; I < 128; ++I)
    EXPECT_EQ(Got[I], I < 100 ? In[I] : 0u);
}

TEST_F(NvEmuTest, MisalignedGlobalRead) {
  // 16-byte reads at every 4-byte offset: three threads in four misaligned
  // (the GPU faults there); their reads are skipped, the others happen.
  std::vector<uint32_t> In = randomWords(64 + 4, 9);
  Buffer InB = upload(In);
  Buffer Out = output<uint32_t>(64);
  uint64_t Skew = InB.address() % 16 / 4; // words past a 16-byte boundary
  Error E = run("misaligned", 64, 0, {1, 1, 1}, {InB.address(), Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(
      contains(E.message(), "48 errors in emulated kernel 'misaligned'"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "\n  misaligned global read of 16 bytes "
                                    "at 0x"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "(the access needs 16-byte alignment) "
                                    "(block (0,0,0), thread "))
      << E.message();
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t I = 0; I < 64; ++I)
    EXPECT_EQ(Got[I], (I + Skew) % 4 == 0 ? In[I] : 0u) << "thread " << I;
}

TEST_F(NvEmuTest, SharedMemoryRace) {
  Buffer Out = output<uint32_t>(64);
  Error E = run("racy", 64, 256, {1, 1, 1}, {Out.address()});
  ASSERT_TRUE(E);
  // Thread 0 runs first and reads thread 1's slot, which thread 1 then
  // writes without a barrier in between.
  EXPECT_TRUE(contains(E.message(),
                       "\n  shared-memory race: thread 1 writes byte 4 "
                       "(access of 4 bytes at offset 4), which thread 0 read "
                       "since the last barrier (block (0,0,0))"))
      << E.message();
  // Out of shared memory entirely: 64 threads, room for 32 values.
  std::vector<uint32_t> In = randomWords(64, 2);
  Buffer InB = upload(In);
  E = run("rotate", 64, 128, {1, 1, 1}, {InB.address(), Out.address(), 1});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       ":\n  out-of-bounds shared write of 4 bytes at offset "
                       "128 from the 128-byte dynamic shared memory (block "
                       "(0,0,0), thread 32)\n"))
      << E.message();
}

TEST_F(NvEmuTest, DivergentCollective) {
  Buffer Out = output<uint32_t>(64);
  Error E = run("divergent", 64, 0, {1, 1, 1}, {Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  divergent warp collective (block (0,0,0), warp "
                       "1): lanes 0-15 at shfl.sync.bfly (member_mask "
                       "0xffffffff), lanes 16-31 at shfl.sync.idx "
                       "(member_mask 0xffffffff)"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "2 errors in emulated kernel"));
}

TEST_F(NvEmuTest, DeadlocksAreReportedAndTheLaunchEnds) {
  Buffer Out = output<uint32_t>(128);
  Error E = run("half_barrier", 64, 0, {2, 1, 1}, {Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(
      E.message(),
      "\n  deadlock in block (1,0,0): every thread that has not exited "
      "waits; warp 0: lanes 0-15 at barrier 0, lanes 16-31 at "
      "shfl.sync.bfly (member_mask 0xffffffff); warp 1: lanes 0-15 at "
      "barrier 0, lanes 16-31 at shfl.sync.bfly (member_mask 0xffffffff)"))
      << E.message();
  EXPECT_TRUE(contains(E.message(), "2 errors in emulated kernel"));

  E = run("split_barrier", 128, 0, {1, 1, 1}, {Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(), "warp 0: lanes 0-31 at barrier 1; warp "
                                    "1: lanes 0-31 at barrier 1; warp 2: "
                                    "lanes 0-31 at barrier 2; warp 3: lanes "
                                    "0-31 at barrier 2"))
      << E.message();

  // Copies in flight in an abandoned block are forgotten: the next launch
  // on the same shared memory is clean.
  std::vector<uint32_t> Words = randomWords(64 * 4, 12);
  Buffer Src = upload(Words);
  E = run("stuck_copy", 64, 64 * 16, {1, 1, 1}, {Src.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(), "1 error in emulated kernel"))
      << E.message();
  Buffer Exchanged = output<uint32_t>(64 * 4);
  E = run("cp_async_exchange", 64, 64 * 16, {1, 1, 1},
          {Src.address(), Exchanged.address(), 1});
  EXPECT_FALSE(E) << E.message();

  // The emulator is still usable.
  std::vector<uint32_t> In = randomWords(64, 1);
  Buffer InB = upload(In);
  ASSERT_FALSE(
      run("rotate", 64, 256, {1, 1, 1}, {InB.address(), Out.address(), 0}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  EXPECT_TRUE(std::equal(In.begin(), In.end(), Got.begin()));
}

TEST_F(NvEmuTest, MmaNeedsTheWholeWarp) {
  Buffer Frag = upload(randomWords(32 * 4, 3));
  Buffer D = output<uint32_t>(32 * 4);
  Error E = run("mma", 16, 0, {1, 1, 1},
                {Frag.address(), Frag.address(), Frag.address(), D.address(),
                 TILE_EMU_MMA_M16N8K16_F32_F16});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                       "needs all 32 lanes of the warp, but only 16 have not "
                       "exited (block (0,0,0), warp 0)"))
      << E.message();
  E = run("mma", 32, 0, {1, 1, 1},
          {Frag.address(), Frag.address(), Frag.address(), D.address(), 17});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(), "unknown mma kind 17 (block (0,0,0), "
                                    "warp 0)"))
      << E.message();
}

TEST_F(NvEmuTest, ShuffleFromAnExitedLane) {
  Buffer Out = output<uint32_t>(32);
  Error E = run("exited_source", 32, 0, {1, 1, 1}, {Out.address()});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(),
                       "\n  shfl.sync.bfly: lane 0 reads lane 16, which has "
                       "exited (block (0,0,0), warp 0)"))
      << E.message();
}

TEST_F(NvEmuTest, UnsupportedOperation) {
  Error E = run("trap", 32, 0, {2, 1, 1}, {});
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "trap: 2 errors in emulated kernel 'trap' (grid (2,1,1), 32 "
            "threads per block):\n"
            "  unsupported operation: llvm.trap (block (0,0,0), thread 3)\n"
            "  unsupported operation: llvm.trap (block (1,0,0), thread 3)");
}

TEST_F(NvEmuTest, FaultsEndTheLaunchWithAnError) {
  Buffer Out = output<uint32_t>(64);
  Error E = run("wild", 32, 0, {3, 1, 1}, {});
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "wild: 1 error in emulated kernel 'wild' (grid (3,1,1), 32 "
            "threads per block):\n  segmentation fault accessing address "
            "0x40 (block (1,0,0), thread 5); the rest of the launch is "
            "skipped");
  // Deep recursion runs into the guard page below the fiber's stack.
  E = run("overflow", 32, 0, {1, 1, 1}, {Out.address(), 1u << 20});
  ASSERT_TRUE(E);
  EXPECT_TRUE(contains(E.message(), "\n  stack overflow: the ")) << E.message();
  EXPECT_TRUE(contains(E.message(), "(block (0,0,0), thread 1)"))
      << E.message();
  // Moderate recursion fits, and the emulator still works.
  ASSERT_FALSE(run("overflow", 32, 0, {1, 1, 1}, {Out.address(), 20}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  uint32_t Want = 0;
  for (uint32_t N = 1; N <= 20; ++N)
    Want += N;
  EXPECT_EQ(Got[1], Want);
  EXPECT_EQ(Got[0], 0u);
}

TEST_F(NvEmuTest, TileRunOnTheEmulator) {
  std::string Kernel = test::vaddKernelJson(
      R"("target": "sm_90a", "object": "kernels.so", "object_kind": )"
      R"("nvemu-so")",
      1000, 8);
  std::string Dir = test::makeTempBundle(
      "tile_nvemu_run", {{"manifest.json", test::manifestJson({Kernel})}});
  std::filesystem::copy_file(TILE_NVEMU_TEST_KERNELS, Dir + "/kernels.so");
  test::writeVaddReference(Dir + "/C.npy", 1000, 8);
  std::string Out;
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda-emu --repeat 2",
                             Out),
            0)
      << Out;
  EXPECT_TRUE(contains(Out, "device NVIDIA emulator (CPU) [sm_90a]")) << Out;
  EXPECT_TRUE(contains(Out, "PASS vadd[N=1000 seed=8] C: max_abs=0")) << Out;
  EXPECT_TRUE(contains(Out, "1 passed, 0 failed")) << Out;
  // A wrong reference fails.
  test::writeVaddReference(Dir + "/C.npy", 1000, 8, /*CorruptAt=*/17);
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda-emu",
                             Out),
            1)
      << Out;
  EXPECT_TRUE(contains(Out, "FAIL vadd[N=1000 seed=8]")) << Out;
  // A bad stack size setting is an error, not ignored.
  EXPECT_NE(test::runCommand("TILE_NVEMU_STACK_KB=12x " +
                                 std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda-emu",
                             Out),
            0);
  EXPECT_TRUE(contains(Out, "TILE_NVEMU_STACK_KB must be an integer in [64, "
                            "65536], not '12x'"))
      << Out;
}

//===----------------------------------------------------------------------===//
// Speed
//===----------------------------------------------------------------------===//

TEST_F(NvEmuTest, CollectiveThroughput) {
  // 256 threads x 800 iterations x 5 shuffles: about 10^6 collective calls.
  const uint32_t Threads = 256, Iters = 800;
  Buffer Out = output<uint32_t>(Threads);
  auto Start = std::chrono::steady_clock::now();
  ASSERT_FALSE(
      run("reduce_loop", Threads, 0, {1, 1, 1}, {Out.address(), Iters}));
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  RecordProperty("lane_collectives_per_second",
                 std::to_string(Threads * Iters * 5 / Seconds));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t T = 0; T < Threads; ++T) {
    uint32_t Warp = T / 32, Want = 0;
    for (uint32_t I = 0; I < Iters; ++I)
      Want += 32 * (Warp * 32 + I) + 31 * 32 / 2;
    ASSERT_EQ(Got[T], Want) << "thread " << T;
  }
  // A generous bound: a collective must stay in the microseconds.
  EXPECT_LT(Seconds, 20.0);
}

} // namespace
