//===- HostBackendTest.cpp - End-to-end tests of the host backend ---------===//
//
// Loads the hand-written kernels of HostKernels.cpp through a bundle, runs
// them on seeded random inputs with poisoned outputs and compares with
// plain loops; then checks tile-run on the same bundle.
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"
#include "tile/runtime/Timing.h"

#include "tile/Numerics/Pack.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

using namespace tile::rt;

namespace {

class HostBackendTest : public testing::Test {
protected:
  void SetUp() override {
    Dir = test::makeHostBundle(
        testing::UnitTest::GetInstance()->current_test_info()->name());
    Expected<Bundle> B = Bundle::load(Dir);
    ASSERT_TRUE(B) << B.message();
    TheBundle = *B;
    Expected<Device> D = Device::open("host");
    ASSERT_TRUE(D) << D.message();
    Dev = *D;
  }

  Kernel load(const std::string &Name) {
    for (const KernelInfo &K : TheBundle.manifest().Kernels) {
      if (K.name() != Name)
        continue;
      Expected<Kernel> Loaded = TheBundle.loadKernel(Dev, K);
      EXPECT_TRUE(Loaded) << Loaded.message();
      return Loaded ? *Loaded : Kernel();
    }
    ADD_FAILURE() << "no kernel " << Name;
    return Kernel();
  }

  Buffer upload(const std::vector<uint8_t> &Data) {
    Expected<Buffer> B = Dev.allocate(Data.size());
    EXPECT_TRUE(B) << B.message();
    EXPECT_FALSE(B->upload(Data));
    return *B;
  }

  std::vector<float> floats(const std::vector<uint8_t> &Bytes) {
    std::vector<float> F(Bytes.size() / 4);
    std::memcpy(F.data(), Bytes.data(), F.size() * 4);
    return F;
  }

  /// Runs vadd on N elements; returns C and checks it against A + B.
  void checkVadd(int64_t N) {
    Kernel K = load("vadd");
    auto A = generateTensor("f32", N, 3, "A");
    auto B = generateTensor("f32", N, 3, "B");
    ASSERT_TRUE(A && B);
    Buffer BA = upload(*A), BB = upload(*B);
    Expected<Buffer> BC = Dev.allocate(N * 4);
    ASSERT_TRUE(BC);
    ASSERT_FALSE(BC->fill(PoisonByte));
    Error E =
        K.launch({ArgValue::tensor(BA.address(), BA.size(), {N}, "f32"),
                  ArgValue::tensor(BB.address(), BB.size(), {N}, "f32"),
                  ArgValue::tensor(BC->address(), BC->size(), {N}, "f32")});
    ASSERT_FALSE(E) << E.message();
    ASSERT_FALSE(Dev.synchronize());
    Expected<std::vector<uint8_t>> C = BC->read();
    ASSERT_TRUE(C);
    std::vector<float> FA = floats(*A), FB = floats(*B), FC = floats(*C);
    int Bad = 0;
    for (int64_t I = 0; I < N; ++I)
      Bad += FC[I] != FA[I] + FB[I];
    EXPECT_EQ(Bad, 0) << "N = " << N;
  }

  std::string Dir;
  Bundle TheBundle;
  Device Dev;
};

TEST_F(HostBackendTest, DeviceBasics) {
  EXPECT_EQ(Dev.platform(), Platform::Host);
  EXPECT_EQ(Dev.arch(), "host");
  EXPECT_NE(Dev.name().find("host ("), std::string::npos);
  Expected<Device> Again = Device::open("host");
  ASSERT_TRUE(Again);
  EXPECT_EQ(Again->name(), Dev.name());
  EXPECT_EQ(Device::open("tpu").message(),
            "unknown device 'tpu' (expected host, cuda[:N], hip[:N], cuda-emu "
            "or hip-emu)");
  EXPECT_EQ(Device::open("cuda:x").message(),
            "bad device 'cuda:x' (expected host, cuda[:N], hip[:N], cuda-emu "
            "or hip-emu)");
  EXPECT_EQ(Device::open("host:1").message(),
            "there is only one host device ('host')");
}

TEST_F(HostBackendTest, VectorAddOddSizes) {
  for (int64_t N : {1, 63, 64, 65, 1000, 1 << 18})
    checkVadd(N);
}

TEST_F(HostBackendTest, SubByteKernelWithScalarAnd2DGrid) {
  Kernel K = load("u4_affine");
  for (auto [M, Kd] : {std::pair<int64_t, int64_t>{7, 33}, {1, 1}, {16, 64}}) {
    int64_t N = M * Kd;
    auto X = generateTensor("u4", N, 2, "X");
    ASSERT_TRUE(X);
    Buffer BX = upload(*X);
    Expected<Buffer> BY = Dev.allocate(N);
    ASSERT_TRUE(BY);
    ASSERT_FALSE(BY->fill(PoisonByte));
    Error E =
        K.launch({ArgValue::tensor(BX.address(), BX.size(), {M, Kd}, "u4"),
                  ArgValue::tensor(BY->address(), BY->size(), {M, Kd}, "u8"),
                  ArgValue::scalar(5)});
    ASSERT_FALSE(E) << E.message();
    Expected<std::vector<uint8_t>> Y = BY->read();
    ASSERT_TRUE(Y);
    for (int64_t I = 0; I < N; ++I) {
      uint32_t Code = tile::numerics::readPacked(X->data(), I, 4);
      ASSERT_EQ((*Y)[I], static_cast<uint8_t>(Code * 3 + 5))
          << "M=" << M << " K=" << Kd << " element " << I;
    }
  }
}

TEST_F(HostBackendTest, EveryProgramRunsOnceWithItsIds) {
  Expected<Module> M = Dev.loadModule(Dir + "/kernels.so", ObjectKind::HostSO);
  ASSERT_TRUE(M) << M.message();
  KernelSignature Sig;
  Sig.Name = "grid3d";
  for (const char *Name : {"Ids", "Counts"}) {
    ParamInfo P;
    P.Name = Name;
    P.DType = "i32";
    P.Shape = {"Z", "Y", "X"};
    P.Mut = true;
    Sig.Params.push_back(P);
  }
  for (const char *Name : {"Z", "Y", "X"}) {
    ParamInfo P;
    P.Name = Name;
    P.Kind = ParamKind::Dim;
    P.DType = "i32";
    Sig.Params.push_back(P);
  }
  Sig.Grid = {"X", "Y", "Z"};
  Expected<Kernel> K = M->getKernel("tile_test_grid3d", Sig);
  ASSERT_TRUE(K) << K.message();
  for (std::array<int64_t, 3> S :
       {std::array<int64_t, 3>{2, 3, 5}, {1, 1, 1}, {4, 1, 7}, {3, 50, 40}}) {
    int64_t N = S[0] * S[1] * S[2];
    Expected<Buffer> Ids = Dev.allocate(N * 4), Counts = Dev.allocate(N * 4);
    ASSERT_TRUE(Ids && Counts);
    ASSERT_FALSE(Ids->fill(PoisonByte));
    ASSERT_FALSE(Counts->fill(0));
    std::vector<int64_t> Shape(S.begin(), S.end());
    ASSERT_FALSE(K->launch(
        {ArgValue::tensor(Ids->address(), Ids->size(), Shape, "i32"),
         ArgValue::tensor(Counts->address(), Counts->size(), Shape, "i32")}));
    std::vector<int32_t> IdsHost(N), CountsHost(N);
    ASSERT_FALSE(Ids->download(IdsHost.data(), N * 4));
    ASSERT_FALSE(Counts->download(CountsHost.data(), N * 4));
    for (int64_t Z = 0; Z < S[0]; ++Z)
      for (int64_t Y = 0; Y < S[1]; ++Y)
        for (int64_t X = 0; X < S[2]; ++X) {
          int64_t I = (Z * S[1] + Y) * S[2] + X;
          ASSERT_EQ(IdsHost[I], X + 100 * Y + 10000 * Z);
          ASSERT_EQ(CountsHost[I], 1);
        }
  }
}

TEST_F(HostBackendTest, LoadFromMemory) {
  Expected<std::vector<uint8_t>> Bytes =
      [&]() -> Expected<std::vector<uint8_t>> {
    std::ifstream In(Dir + "/kernels.so", std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(In)),
                                std::istreambuf_iterator<char>());
  }();
  ASSERT_TRUE(Bytes);
  ASSERT_GT(Bytes->size(), 0u);
  Expected<Module> M = Dev.loadModuleData(*Bytes, ObjectKind::HostSO);
  ASSERT_TRUE(M) << M.message();
  const KernelInfo &Info = TheBundle.manifest().Kernels[0];
  Expected<Kernel> K = M->getKernel(Info.Entry, Info.Signature, Info.Launch);
  ASSERT_TRUE(K) << K.message();
  const int64_t N = 777;
  auto A = generateTensor("f32", N, 1, "A");
  ASSERT_TRUE(A);
  Buffer BA = upload(*A);
  Expected<Buffer> BC = Dev.allocate(N * 4);
  ASSERT_TRUE(BC);
  ArgValue TA = ArgValue::tensor(BA.address(), BA.size(), {N}, "f32");
  ASSERT_FALSE(
      K->launch({TA, TA, ArgValue::tensor(BC->address(), BC->size(), {N})}));
  std::vector<float> FA = floats(*A), FC = floats(*BC->read());
  for (int64_t I = 0; I < N; ++I)
    ASSERT_EQ(FC[I], FA[I] + FA[I]);
  EXPECT_EQ(Dev.loadModuleData(*Bytes, ObjectKind::Hsaco).message(),
            "cannot load a hsaco code object on a host device");
  std::vector<uint8_t> Garbage = {1, 2, 3};
  Expected<Module> Bad = Dev.loadModuleData(Garbage, ObjectKind::HostSO);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.message().rfind("cannot load host code object ", 0), 0u)
      << Bad.message();
}

TEST_F(HostBackendTest, ConcurrentLaunchesFromSeveralThreads) {
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([this, T] { checkVadd(5000 + 77 * T); });
  for (std::thread &T : Threads)
    T.join();
}

TEST_F(HostBackendTest, EmptyGridDoesNothing) {
  Kernel K = load("vadd");
  Expected<Buffer> B = Dev.allocate(0);
  ASSERT_TRUE(B);
  EXPECT_NE(B->address(), 0u);
  ArgValue Empty = ArgValue::tensor(B->address(), 0, {0}, "f32");
  EXPECT_FALSE(K.launch({Empty, Empty, Empty}));
}

TEST_F(HostBackendTest, LaunchErrorsAreClear) {
  Kernel K = load("vadd");
  Expected<Buffer> A = Dev.allocate(64 * 4), C = Dev.allocate(65 * 4);
  ASSERT_TRUE(A && C);
  Error E = K.launch({ArgValue::tensor(A->address(), A->size(), {64}, "f32"),
                      ArgValue::tensor(A->address(), A->size(), {64}, "f32"),
                      ArgValue::tensor(C->address(), C->size(), {65}, "f32")});
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(), "vadd: dimension N is 64 in A but 65 in C");
  E = K.launch({ArgValue::tensor(A->address(), A->size(), {64}, "f16"),
                ArgValue::tensor(A->address(), A->size(), {64}, "f32"),
                ArgValue::tensor(A->address(), A->size(), {64}, "f32")});
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "vadd: argument 0 (A): expected a tensor of f32 but got f16");
}

TEST_F(HostBackendTest, NoTensorMapsOnTheHost) {
  Expected<Module> M = Dev.loadModule(Dir + "/kernels.so", ObjectKind::HostSO);
  ASSERT_TRUE(M) << M.message();
  Kernel K = load("vadd");
  KernelSignature Sig = K.signature();
  Sig.TensorMaps = {{0, {64}, 0}};
  Expected<Kernel> WithMap = M->getKernel("tile_test_vadd", Sig);
  ASSERT_TRUE(WithMap) << WithMap.message();
  Expected<Buffer> A = Dev.allocate(64 * 4);
  ASSERT_TRUE(A);
  ArgValue T = ArgValue::tensor(A->address(), A->size(), {64}, "f32");
  EXPECT_EQ(WithMap->launch({T, T, T}).message(),
            "vadd: host has no TMA tensor maps (the kernel was compiled for "
            "sm_90 with TMA copies)");
}

TEST_F(HostBackendTest, ModuleErrors) {
  Expected<Module> Missing =
      Dev.loadModule(Dir + "/nope.so", ObjectKind::HostSO);
  ASSERT_FALSE(Missing);
  EXPECT_EQ(Missing.message().rfind(
                "cannot load host code object " + Dir + "/nope.so: ", 0),
            0u)
      << Missing.message();
  Expected<Module> Cubin =
      Dev.loadModule(Dir + "/kernels.so", ObjectKind::Cubin);
  ASSERT_FALSE(Cubin);
  EXPECT_EQ(Cubin.message(), "cannot load a cubin code object on a host "
                             "device: " +
                                 Dir + "/kernels.so");
  Expected<Module> M = Dev.loadModule(Dir + "/kernels.so", ObjectKind::HostSO);
  ASSERT_TRUE(M) << M.message();
  KernelSignature Sig;
  Sig.Name = "x";
  Expected<Kernel> K = M->getKernel("no_such_entry", Sig);
  ASSERT_FALSE(K);
  EXPECT_EQ(K.message(),
            "entry 'no_such_entry' not found in " + Dir + "/kernels.so");
}

TEST_F(HostBackendTest, BuffersAndEvents) {
  Expected<Buffer> B = Dev.allocate(10);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->address() % 256, 0u);
  ASSERT_FALSE(B->fill(0xAB));
  const uint8_t Data[3] = {1, 2, 3};
  ASSERT_FALSE(B->upload(Data, 3, 7));
  Expected<std::vector<uint8_t>> All = B->read();
  ASSERT_TRUE(All);
  EXPECT_EQ(*All, (std::vector<uint8_t>{0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB,
                                        0xAB, 1, 2, 3}));
  uint8_t Out[2];
  ASSERT_FALSE(B->download(Out, 2, 8));
  EXPECT_EQ(Out[0], 2);
  EXPECT_EQ(Out[1], 3);
  Stream Default = Dev.defaultStream();
  ASSERT_FALSE(B->fill(0x5C, Default));
  ASSERT_FALSE(Default.synchronize());
  All = B->read();
  ASSERT_TRUE(All);
  EXPECT_EQ(*All, std::vector<uint8_t>(10, 0x5C));
  ASSERT_FALSE(B->upload(Data, 3, 7));
  Error E = B->upload(Data, 3, 8);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.message(),
            "upload of 3 bytes at offset 8 exceeds the buffer's 10 bytes");
  Expected<Stream> S = Dev.createStream();
  ASSERT_TRUE(S);
  Expected<Event> Start = S->record();
  ASSERT_TRUE(Start);
  checkVadd(1 << 16);
  Expected<Event> End = S->record();
  ASSERT_TRUE(End);
  Expected<float> Ms = Event::elapsedMs(*Start, *End);
  ASSERT_TRUE(Ms);
  EXPECT_GT(*Ms, 0.0f);
  EXPECT_FALSE(S->synchronize());
}

/// Writes the reference outputs of the manifest's tests (plain loops).
void writeReferences(const std::string &Dir, bool Corrupt) {
  test::writeVaddReference(Dir + "/vadd.C.npy", 1000, 3, Corrupt ? 500 : -1);

  const int64_t M = 7, K = 33;
  auto X = generateTensor("u4", M * K, 1, "X");
  ASSERT_TRUE(X);
  std::vector<uint8_t> Y(M * K);
  for (int64_t I = 0; I < M * K; ++I)
    Y[I] = static_cast<uint8_t>(
        tile::numerics::readPacked(X->data(), I, 4) * 3 + 5);
  Expected<NpyArray> YN = toNpy("u8", {M, K}, Y);
  ASSERT_TRUE(YN);
  ASSERT_FALSE(writeNpy(Dir + "/u4_affine.Y.npy", *YN));
}

/// Runs tile-run with \p Args; returns its exit status and output.
int runTool(const std::string &Args, std::string &Output) {
  return test::runCommand(std::string(TILE_RUN_EXE) + " " + Args, Output);
}

TEST_F(HostBackendTest, TileRunPassesAndFails) {
  writeReferences(Dir, /*Corrupt=*/false);
  std::string Out;
  EXPECT_EQ(runTool(Dir + " --repeat 3", Out), 0) << Out;
  EXPECT_NE(Out.find("PASS vadd[N=1000 seed=3] C: max_abs=0"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("PASS u4_affine[K=33,M=7 seed=1] Y: exact"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("TIME vadd[N=1000 seed=3]: median"), std::string::npos)
      << Out;
  EXPECT_NE(Out.find("2 passed, 0 failed, 0 skipped"), std::string::npos)
      << Out;

  EXPECT_EQ(runTool(Dir + " --kernel u4_affine", Out), 0) << Out;
  EXPECT_NE(Out.find("1 passed, 0 failed"), std::string::npos) << Out;

  writeReferences(Dir, /*Corrupt=*/true);
  EXPECT_EQ(runTool(Dir, Out), 1) << Out;
  EXPECT_NE(Out.find("FAIL vadd[N=1000 seed=3] C: max_abs=1 "),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("mismatches=1/1000 (first at 500:"), std::string::npos)
      << Out;
  EXPECT_NE(Out.find("1 passed, 1 failed, 0 skipped"), std::string::npos)
      << Out;
}

TEST_F(HostBackendTest, TileRunErrors) {
  std::string Out;
  EXPECT_EQ(runTool(Dir + " --kernel nope", Out), 1);
  EXPECT_NE(Out.find("no kernel named 'nope' in the bundle"), std::string::npos)
      << Out;
  EXPECT_EQ(runTool(Dir + "/missing", Out), 1);
  EXPECT_NE(Out.find("cannot open " + Dir + "/missing/manifest.json"),
            std::string::npos)
      << Out;
  EXPECT_EQ(runTool(Dir + " --repeat x", Out), 1);
  EXPECT_NE(Out.find("--repeat wants a count, not 'x'"), std::string::npos);
  // No reference files written: reading them fails loudly.
  EXPECT_EQ(runTool(Dir, Out), 1);
  EXPECT_NE(Out.find("FAIL vadd[N=1000 seed=3] C: cannot open"),
            std::string::npos)
      << Out;
}

/// The lines of \p Path.
std::vector<std::string> readLines(const std::string &Path) {
  std::ifstream In(Path);
  std::vector<std::string> Lines;
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  return Lines;
}

TEST_F(HostBackendTest, TileRunTimingCsvAndSelection) {
  writeReferences(Dir, /*Corrupt=*/false);
  std::string Csv = Dir + "/times.csv";
  std::filesystem::remove(Csv);
  std::string Out;
  ASSERT_EQ(runTool(Dir +
                        " --kernel vadd --test 0 --repeat 5 --warmup 1 "
                        "--flush-l2 1 --timing-csv " +
                        Csv,
                    Out),
            0)
      << Out;
  EXPECT_NE(Out.find("over 5 runs (L2 flushed)"), std::string::npos) << Out;
  // A second run appends to the same file without a second header.
  ASSERT_EQ(runTool(Dir + " --repeat 3 --timing-csv " + Csv, Out), 0) << Out;
  std::vector<std::string> Lines = readLines(Csv);
  ASSERT_EQ(Lines.size(), 4u) << Out;
  EXPECT_EQ(Lines[0], timingCsvHeader());
  EXPECT_EQ(Lines[1].rfind("vadd,host,", 0), 0u) << Lines[1];
  EXPECT_NE(Lines[1].find(",0,N=1000,3,1,1,5,"), std::string::npos) << Lines[1];
  EXPECT_NE(Lines[2].find(",0,N=1000,3,1,0,3,"), std::string::npos) << Lines[2];
  EXPECT_EQ(Lines[3].rfind("u4_affine,host,", 0), 0u) << Lines[3];
  EXPECT_NE(Lines[3].find(",0,K=33;M=7,1,1,0,3,"), std::string::npos)
      << Lines[3];

  // A wrong output is reported and not timed.
  writeReferences(Dir, /*Corrupt=*/true);
  EXPECT_EQ(runTool(Dir + " --kernel vadd --repeat 3 --timing-csv " + Csv, Out),
            1);
  EXPECT_NE(Out.find("NOTE vadd[N=1000 seed=3]: not timed (wrong output)"),
            std::string::npos)
      << Out;
  EXPECT_EQ(readLines(Csv).size(), 4u);

  EXPECT_EQ(runTool(Dir + " --test 1", Out), 1);
  EXPECT_NE(Out.find("no test 1 in the selected kernels"), std::string::npos)
      << Out;
  EXPECT_EQ(runTool(Dir + " --test 0,x", Out), 1);
  EXPECT_NE(Out.find("--test wants a count, not 'x'"), std::string::npos)
      << Out;
  EXPECT_EQ(runTool(Dir + " --warmup -1", Out), 1);
  EXPECT_NE(Out.find("--warmup wants a count, not '-1'"), std::string::npos)
      << Out;
  EXPECT_EQ(runTool(Dir + " --timing-csv", Out), 1);
  EXPECT_NE(Out.find("--timing-csv needs a value"), std::string::npos) << Out;
}

TEST_F(HostBackendTest, TileRunSavesInputsAndOutputs) {
  writeReferences(Dir, /*Corrupt=*/false);
  std::string Save = Dir + "/saved";
  std::filesystem::create_directories(Save);
  std::string Out;
  ASSERT_EQ(runTool(Dir + " --save " + Save, Out), 0) << Out;
  // Inputs as generated, outputs as the kernel wrote them (== reference).
  Expected<NpyArray> A = readNpy(Save + "/vadd.t0.A.npy");
  ASSERT_TRUE(A) << A.message();
  auto WantA = generateTensor("f32", 1000, 3, "A");
  ASSERT_TRUE(WantA);
  EXPECT_EQ(A->Data, *WantA);
  Expected<NpyArray> C = readNpy(Save + "/vadd.t0.C.npy");
  ASSERT_TRUE(C) << C.message();
  EXPECT_EQ(C->Shape, std::vector<int64_t>{1000});
  EXPECT_EQ(C->Data, test::vaddReference(1000, 3));
  // u4 codes are saved unpacked, one per byte.
  Expected<NpyArray> X = readNpy(Save + "/u4_affine.t0.X.npy");
  ASSERT_TRUE(X) << X.message();
  EXPECT_EQ(X->Descr, "|u1");
  EXPECT_EQ(X->Shape, (std::vector<int64_t>{7, 33}));
  auto WantX = generateTensor("u4", 7 * 33, 1, "X");
  ASSERT_TRUE(WantX);
  for (int64_t I = 0; I < 7 * 33; ++I)
    ASSERT_EQ(X->Data[I], tile::numerics::readPacked(WantX->data(), I, 4)) << I;
  EXPECT_EQ(runTool(Dir + " --save " + Dir + "/no/such/dir", Out), 1);
  EXPECT_NE(Out.find("FAIL vadd[N=1000 seed=3]: saving tensors:"),
            std::string::npos)
      << Out;
}

} // namespace
