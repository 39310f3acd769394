//===- FakeCudaTest.cpp - The CUDA backend against a simulated driver -----===//
//
// FakeCuda.cpp stands in for libcuda.so.1 (through TILE_CUDA_LIBRARY), so
// every CUDA code path of the runtime except the GPU itself runs here: the
// launch parameters are checked by the fake executing vadd on the host.
// The driver stays loaded once cuInit succeeded, so the cuInit failure test
// comes first (ctest runs each test in its own process anyway).
//
//===----------------------------------------------------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"
#include "tile/runtime/DLPack.h"
#include "tile/runtime/Timing.h"
#include "tile/runtime/tile_runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <thread>

using namespace tile::rt;

namespace {

const std::string Manifest = test::manifestJson(
    {test::vaddKernelJson(R"("target": "sm_90a", "object": "vadd.ptx",
                             "object_kind": "ptx", "shared_bytes": 65536)",
                          1000, 8),
     R"json({"name": "old", "target": "sm_80", "object": "vadd.ptx",
             "object_kind": "cubin", "grid": ["1", "1", "1"],
             "params": []})json"});

class FakeCudaTest : public testing::Test {
protected:
  void SetUp() override {
    setenv("TILE_CUDA_LIBRARY", TILE_FAKE_CUDA, 1);
    unsetenv("TILE_FAKE_CUDA_INIT");
    unsetenv("TILE_FAKE_CUDA_DEVICES");
  }

  /// The fake's record of the last launch (the runtime loaded the library
  /// already; dlopen returns the same instance).
  const FakeLaunch &last() {
    return test::fakeLastLaunch(TILE_FAKE_CUDA, "fakeCudaLastLaunch");
  }

  Device open() {
    Expected<Device> D = Device::open("cuda:0");
    EXPECT_TRUE(D) << D.message();
    return D ? *D : Device();
  }

  std::string makeBundle(const std::string &Name, const std::string &Ptx) {
    return test::makeTempBundle(
        "tile_fakecuda_" + Name,
        {{"vadd.ptx", Ptx}, {"manifest.json", Manifest}});
  }
};

TEST_F(FakeCudaTest, InitFailureIsTranslated) {
  setenv("TILE_FAKE_CUDA_INIT", "100", 1);
  std::string NoDevice = Device::open("cuda").message();
  EXPECT_EQ(NoDevice,
            "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
            "detected)");
  // The GPU tests skip on this one, and fail on other cuInit errors.
  EXPECT_TRUE(test::cudaDeviceAbsent(NoDevice));
  setenv("TILE_FAKE_CUDA_INIT", "12345", 1);
  std::string Other = Device::open("cuda").message();
  EXPECT_EQ(Other, "cuInit failed: CUDA error 12345");
  EXPECT_FALSE(test::cudaDeviceAbsent(Other));
}

TEST_F(FakeCudaTest, MissingDevice) {
  setenv("TILE_FAKE_CUDA_DEVICES", "1", 1);
  EXPECT_EQ(Device::open("cuda:3").message(),
            "no CUDA device cuda:3 (1 present)");
  EXPECT_FALSE(test::cudaDeviceAbsent(Device::open("cuda:3").message()));
  // No device at all: the GPU tests skip.
  setenv("TILE_FAKE_CUDA_DEVICES", "0", 1);
  std::string None = Device::open("cuda").message();
  EXPECT_EQ(None, "no CUDA device cuda:0 (0 present)");
  EXPECT_TRUE(test::cudaDeviceAbsent(None));
}

TEST_F(FakeCudaTest, DeviceAndMemory) {
  Device D = open();
  EXPECT_EQ(D.platform(), Platform::Cuda);
  EXPECT_EQ(D.name(), "Fake GPU");
  EXPECT_EQ(D.arch(), "sm_90");
  EXPECT_EQ(D.computeUnits(), 132u);
  EXPECT_EQ(D.sharedBytesPerBlock(), 227u * 1024);
  int Live = last().LiveAllocations;
  {
    Expected<Buffer> B = D.allocate(16);
    ASSERT_TRUE(B) << B.message();
    EXPECT_EQ(last().LiveAllocations, Live + 1);
    ASSERT_FALSE(B->fill(0x5A));
    const uint8_t Data[4] = {1, 2, 3, 4};
    ASSERT_FALSE(B->upload(Data, 4, 12));
    Expected<std::vector<uint8_t>> All = B->read();
    ASSERT_TRUE(All);
    EXPECT_EQ((*All)[0], 0x5A);
    EXPECT_EQ((*All)[11], 0x5A);
    EXPECT_EQ((*All)[15], 4);
  }
  {
    // A fill queued on a stream (the L2 flush of tile-run's timing loop).
    Expected<Buffer> B = D.allocate(32);
    ASSERT_TRUE(B) << B.message();
    Expected<Stream> S = D.createStream();
    ASSERT_TRUE(S) << S.message();
    ASSERT_FALSE(B->fill(0x33, *S));
    EXPECT_EQ(last().FillStream, S->nativeHandle());
    ASSERT_FALSE(S->synchronize());
    Expected<std::vector<uint8_t>> All = B->read();
    ASSERT_TRUE(All);
    EXPECT_EQ(*All, std::vector<uint8_t>(32, 0x33));
  }
  EXPECT_EQ(last().LiveAllocations, Live); // Freed with the last handle.
  Expected<Buffer> Empty = D.allocate(0);  // cuMemAlloc(0) is avoided.
  EXPECT_TRUE(Empty) << Empty.message();
}

TEST_F(FakeCudaTest, LaunchPassesGridBlockSharedAndParameters) {
  Device D = open();
  std::string Dir = makeBundle("launch", "// PTX text\n");
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  const KernelInfo &Info = B->manifest().Kernels[0];
  EXPECT_TRUE(targetRunsOn(Info.Target, Info.Kind, D));
  EXPECT_FALSE(targetRunsOn("sm_80", ObjectKind::Cubin, D));
  Expected<Kernel> K = B->loadKernel(D, Info); // Entry defaults to "vadd".
  ASSERT_TRUE(K) << K.message();
  EXPECT_EQ(last().SetAttributeValue, 65536); // Above 48 KB: opted in.

  const int64_t N = 1000;
  Expected<test::VaddBuffers> V = test::makeVaddBuffers(D, N, 8);
  ASSERT_TRUE(V) << V.message();
  Expected<Stream> S = D.createStream();
  ASSERT_TRUE(S) << S.message();
  Expected<Event> Start = S->record();
  ASSERT_TRUE(Start) << Start.message();
  Error E = K->launch(V->args(), {}, &*S);
  ASSERT_FALSE(E) << E.message();
  Expected<Event> End = S->record();
  ASSERT_TRUE(End);
  Expected<float> Ms = Event::elapsedMs(*Start, *End);
  ASSERT_TRUE(Ms) << Ms.message();
  EXPECT_GE(*Ms, 0.0f);
  const FakeLaunch &L = last();
  EXPECT_EQ(L.Grid[0], 16u);
  EXPECT_EQ(L.Grid[1], 1u);
  EXPECT_EQ(L.Grid[2], 1u);
  EXPECT_EQ(L.Block[0], 64u);
  EXPECT_EQ(L.Block[1], 1u);
  EXPECT_EQ(L.Shared, 65536u);
  EXPECT_EQ(L.Stream, S->nativeHandle());
  EXPECT_NE(L.Stream, nullptr);
  Expected<std::vector<uint8_t>> C = V->C.read();
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, test::vaddReference(N, 8));
}

TEST_F(FakeCudaTest, AsyncLaunchOnTheCallersStreamFromCallerMemory) {
  // As PyTorch would: its own stream and its own memory (DLPack), through
  // the C API; the launch is queued on that stream with no allocation and
  // no synchronization (what CUDA graph capture requires).
  Device D = open();
  std::string Dir = makeBundle("async", "// PTX text\n");
  tile_device *Dev = tile_device_open("cuda:0");
  ASSERT_NE(Dev, nullptr) << tile_last_error();
  tile_bundle *B = tile_bundle_load(Dev, Dir.c_str());
  ASSERT_NE(B, nullptr) << tile_last_error();
  const int64_t N = 1000;
  Expected<test::VaddBuffers> V = test::makeVaddBuffers(D, N, 8);
  ASSERT_TRUE(V) << V.message();
  Expected<Stream> Caller = D.createStream(); // The caller's CUstream.
  ASSERT_TRUE(Caller);
  int64_t Shape[1] = {N};
  auto dl = [&](const Buffer &Buf) {
    TileDLTensor T{};
    T.data = reinterpret_cast<void *>(Buf.address());
    T.device = {kTileDLCUDA, 0};
    T.ndim = 1;
    T.dtype = {2, 32, 1}; // float32
    T.shape = Shape;
    return T;
  };
  TileDLTensor TA = dl(V->A), TB = dl(V->B), TC = dl(V->C);
  tile_value Values[3];
  ASSERT_EQ(tile_value_from_dlpack(&TA, Dev, nullptr, nullptr, 0, &Values[0]),
            0)
      << tile_last_error();
  ASSERT_EQ(tile_value_from_dlpack(&TB, Dev, nullptr, nullptr, 0, &Values[1]),
            0);
  ASSERT_EQ(tile_value_from_dlpack(&TC, Dev, nullptr, nullptr, 0, &Values[2]),
            0);
  EXPECT_STREQ(Values[0].dtype, "f32");
  EXPECT_EQ(Values[0].bytes, uint64_t(N) * 4);
  FakeLaunch Before = last();
  ASSERT_EQ(tile_launch_async(B, "vadd", Values, 3, Caller->nativeHandle()), 0)
      << tile_last_error();
  const FakeLaunch &After = last();
  EXPECT_EQ(After.Launches, Before.Launches + 1);
  EXPECT_EQ(After.Stream, Caller->nativeHandle());
  EXPECT_EQ(After.Allocations, Before.Allocations);
  EXPECT_EQ(After.Synchronizations, Before.Synchronizations);
  Expected<std::vector<uint8_t>> C = V->C.read(); // The fake ran it.
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, test::vaddReference(N, 8));

  // Bad caller memory: a clear error and nothing launched.
  int Launches = last().Launches;
  tile_value Shifted[3] = {Values[0], Values[1], Values[2]};
  Shifted[2].data += 2;
  EXPECT_NE(tile_launch_async(B, "vadd", Shifted, 3, nullptr), 0);
  EXPECT_NE(std::string(tile_last_error()).find("is not 4-byte aligned"),
            std::string::npos)
      << tile_last_error();
  int64_t Stride2[1] = {2};
  tile_value Strided[3] = {Values[0], Values[1], Values[2]};
  Strided[0].strides = Stride2; // Every other element: not dense.
  EXPECT_NE(tile_launch_async(B, "vadd", Strided, 3, nullptr), 0);
  EXPECT_NE(std::string(tile_last_error()).find("are not dense row-major"),
            std::string::npos)
      << tile_last_error();
  tile_value Wrong[3] = {Values[0], Values[1], Values[2]};
  Wrong[1].dtype = "f16";
  EXPECT_NE(tile_launch_async(B, "vadd", Wrong, 3, nullptr), 0);
  EXPECT_NE(std::string(tile_last_error())
                .find("expected a tensor of f32 but "
                      "got f16"),
            std::string::npos)
      << tile_last_error();
  Wrong[1] = Values[1];
  Wrong[0].data = 0;
  EXPECT_NE(tile_launch_async(B, "vadd", Wrong, 3, nullptr), 0);
  EXPECT_NE(std::string(tile_last_error()).find("null address"),
            std::string::npos);
  EXPECT_EQ(last().Launches, Launches);
  // A host (CPU) tensor cannot be read by a CUDA kernel.
  TileDLTensor OnHost = TA;
  OnHost.device = {kTileDLCPU, 0};
  tile_value Out;
  EXPECT_NE(tile_value_from_dlpack(&OnHost, Dev, nullptr, nullptr, 0, &Out), 0);
  EXPECT_NE(std::string(tile_last_error())
                .find("cannot be read by kernels on "
                      "Fake GPU (cuda:0)"),
            std::string::npos)
      << tile_last_error();
  tile_bundle_free(B);
  tile_device_close(Dev);
}

TEST_F(FakeCudaTest, WorksFromAnyThread) {
  // The driver's current context is per thread; the runtime makes its
  // context current in every call.
  Device D = open();
  std::string Dir = makeBundle("threads", "// PTX\n");
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B);
  Expected<Kernel> K = B->loadKernel(D, B->manifest().Kernels[0]);
  ASSERT_TRUE(K) << K.message();
  Error Result = Error::success();
  std::thread T([&] {
    Expected<Buffer> Buf = D.allocate(64 * 4);
    if (!Buf) {
      Result = Buf.takeError();
      return;
    }
    std::vector<uint8_t> Ones(64 * 4, 0);
    for (int I = 0; I < 64; ++I) {
      float One = 1.0f;
      std::memcpy(Ones.data() + 4 * I, &One, 4);
    }
    if ((Result = Buf->upload(Ones)))
      return;
    ArgValue A = ArgValue::tensor(Buf->address(), Buf->size(), {64}, "f32");
    if ((Result = K->launch({A, A, A})))
      return;
    Expected<std::vector<uint8_t>> Out = Buf->read();
    float First;
    std::memcpy(&First, Out->data(), 4);
    if (First != 2.0f)
      Result = makeError("wrong result " + std::to_string(First));
  });
  T.join();
  EXPECT_FALSE(Result) << Result.message();
}

/// A module of the fake driver (any PTX text loads).
Expected<Module> fakeModule(Device &D) {
  std::string Ptx = "// PTX text\n";
  return D.loadModuleData(std::vector<uint8_t>(Ptx.begin(), Ptx.end()),
                          ObjectKind::Ptx);
}

/// A kernel "tma" of one f16 tensor A[M, N] and no tensor map yet.
KernelSignature tmaKernelSignature() {
  KernelSignature Sig;
  Sig.Name = "tma";
  Sig.Params = {{"A", ParamKind::Tensor, "f16", {"M", "N"}, false},
                {"M", ParamKind::Dim, "i32", {}, false},
                {"N", ParamKind::Dim, "i32", {}, false}};
  return Sig;
}

TEST_F(FakeCudaTest, TensorMapsAreEncodedAndPassedAfterTheParameters) {
  Device D = open();
  Expected<Module> M = fakeModule(D);
  ASSERT_TRUE(M) << M.message();
  KernelSignature Sig = tmaKernelSignature();
  Sig.TensorMaps = {{0, {64, 32}, 128}};
  Expected<Kernel> K = M->getKernel("tma", Sig, {128, 0});
  ASSERT_TRUE(K) << K.message();
  Expected<Buffer> A = D.allocate(100 * 72 * 2);
  ASSERT_TRUE(A) << A.message();
  int Calls = last().Encode.Calls;
  ASSERT_FALSE(
      K->launch({ArgValue::tensor(A->address(), A->size(), {100, 72}, "f16")}));
  const FakeLaunch &L = last();
  EXPECT_EQ(L.Encode.Calls, Calls + 1);
  EXPECT_EQ(L.Encode.DataType, 1); // CU_TENSOR_MAP_DATA_TYPE_UINT16
  EXPECT_EQ(L.Encode.Rank, 2u);
  EXPECT_EQ(reinterpret_cast<uint64_t>(L.Encode.Address), A->address());
  // Innermost dimension first; the strides of dimensions 1.. only.
  EXPECT_EQ(L.Encode.Dims[0], 72u);
  EXPECT_EQ(L.Encode.Dims[1], 100u);
  EXPECT_EQ(L.Encode.Strides[0], 144u);
  EXPECT_EQ(L.Encode.Box[0], 32u);
  EXPECT_EQ(L.Encode.Box[1], 64u);
  EXPECT_EQ(L.Encode.ElementStrides[0], 1u);
  EXPECT_EQ(L.Encode.ElementStrides[1], 1u);
  EXPECT_EQ(L.Encode.Interleave, 0);
  EXPECT_EQ(L.Encode.Swizzle, 3); // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(L.Encode.L2Promotion, 2);
  EXPECT_EQ(L.Encode.OobFill, 0);
  // The encoded 128 bytes are the parameter after A, M and N.
  EXPECT_EQ(std::memcmp(L.MapParam, "FAKETMAP", 8), 0);
  unsigned Rank = 0;
  std::memcpy(&Rank, L.MapParam + 8, sizeof(Rank));
  EXPECT_EQ(Rank, 2u);
  EXPECT_TRUE(L.MapParamAligned);

  // A row of 100 f16 is 200 bytes: no TMA copy can stride it.
  Error E =
      K->launch({ArgValue::tensor(A->address(), A->size(), {64, 100}, "f16")});
  EXPECT_EQ(E.message(),
            "tma: tensor A (64x100 f16): a TMA copy needs rows whose byte "
            "stride is a multiple of 16, this one is 200 bytes; compile "
            "without --tma for such shapes");
  EXPECT_EQ(last().Encode.Calls, Calls + 1);
  // An empty tensor has nothing to encode.
  ASSERT_FALSE(
      K->launch({ArgValue::tensor(A->address(), A->size(), {0, 72}, "f16")}));
  EXPECT_EQ(last().Encode.Calls, Calls + 1);
}

// A packed weight (u4, u3: 1- to 7-bit elements) is mapped as bytes: the
// driver gets UINT8 elements, rows of K x bits / 8 bytes and the box's
// innermost extent in bytes as the signature says; rows of no whole bytes
// cannot be mapped.
TEST_F(FakeCudaTest, PackedTensorsAreMappedAsBytes) {
  Device D = open();
  Expected<Module> M = fakeModule(D);
  ASSERT_TRUE(M) << M.message();
  for (auto [DType, Bits] :
       {std::pair<const char *, unsigned>{"u4", 4}, {"u3", 3}}) {
    KernelSignature Sig = tmaKernelSignature();
    Sig.Params[0].DType = DType;
    Sig.TensorMaps = {{0, {64, 32}, 0}};
    Expected<Kernel> K = M->getKernel("tma", Sig, {128, 0});
    ASSERT_TRUE(K) << K.message();
    Expected<Buffer> A = D.allocate(100 * 512);
    ASSERT_TRUE(A) << A.message();
    ASSERT_FALSE(K->launch(
        {ArgValue::tensor(A->address(), A->size(), {100, 256}, DType)}));
    const FakeLaunch &L = last();
    EXPECT_EQ(L.Encode.DataType, 0); // CU_TENSOR_MAP_DATA_TYPE_UINT8
    EXPECT_EQ(L.Encode.Dims[0], 256u * Bits / 8);
    EXPECT_EQ(L.Encode.Dims[1], 100u);
    EXPECT_EQ(L.Encode.Strides[0], 256u * Bits / 8);
    EXPECT_EQ(L.Encode.Box[0], 32u);
    EXPECT_EQ(L.Encode.Box[1], 64u);
    EXPECT_EQ(L.Encode.Swizzle, 0);
  }
  KernelSignature Sig = tmaKernelSignature();
  Sig.Params[0].DType = "u3";
  Sig.TensorMaps = {{0, {64, 32}, 0}};
  Expected<Kernel> K = M->getKernel("tma", Sig, {128, 0});
  ASSERT_TRUE(K) << K.message();
  Expected<Buffer> A = D.allocate(100 * 512);
  ASSERT_TRUE(A) << A.message();
  Error E =
      K->launch({ArgValue::tensor(A->address(), A->size(), {64, 250}, "u3")});
  EXPECT_EQ(E.message(),
            "tma: tensor A (64x250 u3): a TMA copy of 3-bit elements needs "
            "rows of whole bytes, this one has 750 bits; compile without "
            "--tma for such shapes");
}

// A kernel with tensor maps and its copy without TMA (tile-clone-fallbacks):
// launches whose maps can be made run the kernel, the others (rows not a
// multiple of 16 bytes, a misaligned address) its fallback, with the
// fallback's own threads and shared memory and no map encoded.
TEST_F(FakeCudaTest, TensorMapsThatCannotBeMadeRunTheFallback) {
  Device D = open();
  Expected<Module> M = fakeModule(D);
  ASSERT_TRUE(M) << M.message();
  KernelSignature Sig = tmaKernelSignature();
  KernelSignature Plain = Sig;
  Sig.TensorMaps = {{0, {64, 32}, 128}};
  Expected<Kernel> K = M->getKernel("tma", Sig, {384, 0});
  Expected<Kernel> F = M->getKernel("tma__fallback", Plain, {256, 4096});
  ASSERT_TRUE(K && F);
  ASSERT_FALSE(K->setFallback(*F));
  Expected<Buffer> A = D.allocate(100 * 72 * 2 + 16);
  ASSERT_TRUE(A) << A.message();
  int Calls = last().Encode.Calls;

  ArgValue Aligned =
      ArgValue::tensor(A->address(), A->size(), {100, 72}, "f16");
  Expected<BoundArgs> B = bindArguments(K->signature(), {Aligned});
  ASSERT_TRUE(B) << B.message();
  EXPECT_FALSE(K->runsFallback(*B));
  ASSERT_FALSE(K->launch({Aligned}));
  EXPECT_EQ(last().Block[0], 384u);
  EXPECT_EQ(last().Encode.Calls, Calls + 1);

  // Rows of 100 f16 (200 bytes) and a start 4 bytes past 16n: the fallback.
  for (ArgValue Other :
       {ArgValue::tensor(A->address(), A->size(), {64, 100}, "f16"),
        ArgValue::tensor(A->address() + 4, A->size() - 4, {100, 72}, "f16")}) {
    B = bindArguments(K->signature(), {Other});
    ASSERT_TRUE(B) << B.message();
    EXPECT_TRUE(K->runsFallback(*B));
    ASSERT_FALSE(K->launch({Other}));
    EXPECT_EQ(last().Block[0], 256u);
    EXPECT_EQ(last().Shared, 4096u);
    EXPECT_EQ(last().Encode.Calls, Calls + 1);
  }

  // A fallback takes the same parameters and no tensor maps.
  Plain.Params[0].DType = "bf16";
  Expected<Kernel> Other = M->getKernel("tma__fallback", Plain, {256, 0});
  ASSERT_TRUE(Other) << Other.message();
  EXPECT_EQ(K->setFallback(*Other).message(),
            "tma: a fallback must be another kernel on the same device, "
            "with the same parameters, no tensor maps and no fallback of its "
            "own");
  EXPECT_EQ(F->setFallback(*F).message(),
            "tma: a fallback must be another kernel on the same device, "
            "with the same parameters, no tensor maps and no fallback of its "
            "own");
  EXPECT_EQ(F->setFallback(*K).message(),
            "tma: a fallback must be another kernel on the same device, "
            "with the same parameters, no tensor maps and no fallback of its "
            "own");
}

TEST_F(FakeCudaTest, ModuleAndFunctionErrors) {
  Device D = open();
  std::string Dir = makeBundle("errors", "BAD ptx");
  Expected<Module> Bad = D.loadModule(Dir + "/vadd.ptx", ObjectKind::Ptx);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.message(), "cuModuleLoadData(" + Dir +
                               "/vadd.ptx) failed: CUDA_ERROR_INVALID_PTX (a "
                               "PTX JIT compilation failed)\nptxas fatal: "
                               "line 1: syntax error");
  std::vector<uint8_t> Good = {'/', '/', ' ', 'o', 'k'};
  Expected<Module> M = D.loadModuleData(Good, ObjectKind::Ptx);
  ASSERT_TRUE(M) << M.message();
  KernelSignature Sig;
  Sig.Name = "k";
  EXPECT_EQ(M->getKernel("missing", Sig).message(),
            "cuModuleGetFunction(missing) failed: CUDA_ERROR_NOT_FOUND (named "
            "symbol not found)");
  EXPECT_EQ(M->getKernel("vadd", Sig, {128, 300 * 1024}).message(),
            "vadd needs 307200 bytes of shared memory but the device allows "
            "232448");
  EXPECT_EQ(D.loadModule(Dir + "/vadd.ptx", ObjectKind::HostSO).message(),
            "cannot load a host-so code object on a cuda device: " + Dir +
                "/vadd.ptx");
}

TEST_F(FakeCudaTest, DependentLaunchesCarryTheSerializationAttribute) {
  // A kernel compiled with --dependent-launch goes through
  // cuLaunchKernelEx with programmatic stream serialization; one compiled
  // without it through cuLaunchKernel.
  Device D = open();
  std::string Dir = test::makeTempBundle(
      "tile_fakecuda_dependent",
      {{"vadd.ptx", "// PTX\n"},
       {"manifest.json", test::manifestJson({test::vaddKernelJson(
                             R"("target": "sm_90a", "object": "vadd.ptx",
               "object_kind": "ptx", "dependent_launch": true)",
                             1000, 8)})}});
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  EXPECT_TRUE(B->manifest().Kernels[0].Launch.DependentLaunch);
  Expected<Kernel> K = B->loadKernel(D, B->manifest().Kernels[0]);
  ASSERT_TRUE(K) << K.message();
  Expected<test::VaddBuffers> V = test::makeVaddBuffers(D, 1000, 8);
  ASSERT_TRUE(V) << V.message();
  ASSERT_FALSE(K->launch(V->args()));
  EXPECT_TRUE(last().LastLaunchEx);
  EXPECT_EQ(last().ProgrammaticSerialization, 1);
  EXPECT_EQ(last().Grid[0], 16u);
  EXPECT_EQ(last().Block[0], 64u);
  Expected<std::vector<uint8_t>> C = V->C.read();
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, test::vaddReference(1000, 8));

  std::string Plain = makeBundle("independent", "// PTX\n");
  Expected<Bundle> P = Bundle::load(Plain);
  ASSERT_TRUE(P) << P.message();
  Expected<Kernel> KP = P->loadKernel(D, P->manifest().Kernels[0]);
  ASSERT_TRUE(KP) << KP.message();
  ASSERT_FALSE(KP->launch(V->args()));
  EXPECT_FALSE(last().LastLaunchEx);
  EXPECT_EQ(last().ProgrammaticSerialization, -1);
}

TEST_F(FakeCudaTest, RotatingWindowsAreHeldBehindAHostFunction) {
  // timeRotatingLaunches: every window's launches are queued while a host
  // function holds the stream (so the device runs them back to back), the
  // hold is released before the window is waited for, and each set's
  // tensors are the ones launched.
  Device D = open();
  std::string Dir = makeBundle("rotate", "// PTX\n");
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  Expected<Kernel> K = B->loadKernel(D, B->manifest().Kernels[0]);
  ASSERT_TRUE(K) << K.message();
  std::vector<test::VaddBuffers> Bufs;
  std::vector<BoundArgs> Bound;
  for (uint64_t Seed : {3, 4, 5}) {
    Expected<test::VaddBuffers> V = test::makeVaddBuffers(D, 1000, Seed);
    ASSERT_TRUE(V) << V.message();
    Expected<BoundArgs> A = bindArguments(K->signature(), V->args());
    ASSERT_TRUE(A) << A.message();
    Bufs.push_back(std::move(*V));
    Bound.push_back(std::move(*A));
  }
  std::vector<BoundArgs *> Sets;
  for (BoundArgs &A : Bound)
    Sets.push_back(&A);
  FakeLaunch Before = last();
  Expected<std::vector<double>> Ms = timeRotatingLaunches(*K, Sets, D, 2, 4);
  ASSERT_TRUE(Ms) << Ms.message();
  ASSERT_EQ(Ms->size(), 4u);
  for (double T : *Ms)
    EXPECT_GE(T, 0.0);
  const FakeLaunch &L = last();
  EXPECT_EQ(L.Launches - Before.Launches, 2 + 4 * 3);
  EXPECT_EQ(L.HostFunctions - Before.HostFunctions, 4);
  EXPECT_EQ(L.HostFunctionsRun - Before.HostFunctionsRun, 4);
  EXPECT_EQ(L.HeldLaunches - Before.HeldLaunches, 4 * 3);
  for (size_t I = 0; I < Bufs.size(); ++I) {
    Expected<std::vector<uint8_t>> C = Bufs[I].C.read();
    ASSERT_TRUE(C);
    EXPECT_EQ(*C, test::vaddReference(1000, 3 + I)) << "set " << I;
  }
  EXPECT_FALSE(timeRotatingLaunches(*K, {}, D, 0, 1));
  // A hold released by its destructor lets the stream run too.
  {
    Expected<StreamHold> H = D.defaultStream().hold();
    ASSERT_TRUE(H) << H.message();
    EXPECT_TRUE(H->held());
    H->release();
    EXPECT_FALSE(H->held());
  }
  EXPECT_FALSE(D.synchronize());
}

TEST_F(FakeCudaTest, TileRunRotatesOverCopiesOfTheTensors) {
  std::string Dir = makeBundle("tile_run_rotate", "// PTX\n");
  test::writeVaddReference(Dir + "/C.npy", 1000, 8);
  std::string Out;
  // 12 KB per set: 1 MiB asks for more than 64 sets, so 64.
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda --repeat 3 --rotate 1",
                             Out),
            0)
      << Out;
  EXPECT_NE(Out.find("PASS vadd[N=1000 seed=8] C: max_abs=0"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("over 3 runs (windows over 64 copies of the tensors, "
                     "per launch)"),
            std::string::npos)
      << Out;
  EXPECT_NE(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda --repeat 3 --rotate 1 "
                                 "--flush-l2 4",
                             Out),
            0);
  EXPECT_NE(Out.find("two timing methods"), std::string::npos) << Out;
}

TEST_F(FakeCudaTest, TileRunWithTheSimulatedDriver) {
  std::string Dir = makeBundle("tile_run", "// PTX\n");
  // The entry defaults to the name ("vadd"), which the fake executes.
  test::writeVaddReference(Dir + "/C.npy", 1000, 8);
  std::string Out;
  EXPECT_EQ(test::runCommand(std::string(TILE_RUN_EXE) + " " + Dir +
                                 " --device cuda --repeat 3",
                             Out),
            0)
      << Out;
  EXPECT_NE(Out.find("device Fake GPU [sm_90]"), std::string::npos) << Out;
  EXPECT_NE(Out.find("PASS vadd[N=1000 seed=8] C: max_abs=0"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("TIME vadd[N=1000 seed=8]: median"), std::string::npos)
      << Out;
  EXPECT_NE(Out.find("SKIP old: cubin code for sm_80 does not run on sm_90"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("1 passed, 0 failed, 1 skipped"), std::string::npos)
      << Out;
}

} // namespace
