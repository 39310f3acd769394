//===- BundleTest.cpp - Tests of bundle manifests -------------------------===//

#include "TestBundle.h"

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Compare.h"
#include "tile/runtime/Random.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace tile::rt;

namespace {

json::Value manifestJson() {
  Expected<json::Value> V = json::parse(test::hostManifest());
  EXPECT_TRUE(V) << V.message();
  return *V;
}

std::string manifestError(const json::Value &V) {
  Expected<Manifest> M = Manifest::fromJson(V);
  EXPECT_FALSE(M);
  return M ? "" : M.message();
}

/// The member \p Key of object \p Obj (which must exist).
json::Value &member(json::Value &Obj, const std::string &Key) {
  for (auto &[Name, Child] : Obj.getObject())
    if (Name == Key)
      return Child;
  ADD_FAILURE() << "no member " << Key;
  static json::Value Dummy;
  return Dummy;
}

/// Kernel \p K of manifest \p V.
json::Value &kernel(json::Value &V, size_t K) {
  return member(V, "kernels").getArray()[K];
}

TEST(BundleTest, ParsesTheHandWrittenManifest) {
  Expected<Manifest> M = Manifest::fromJson(manifestJson());
  ASSERT_TRUE(M) << M.message();
  EXPECT_EQ(M->Compiler, "hand-written");
  ASSERT_EQ(M->Kernels.size(), 2u);
  const KernelInfo &V = M->Kernels[0];
  EXPECT_EQ(V.name(), "vadd");
  EXPECT_EQ(V.Entry, "tile_test_vadd");
  EXPECT_EQ(V.Kind, ObjectKind::HostSO);
  EXPECT_EQ(V.Warps, 2u);
  EXPECT_EQ(V.Launch.ThreadsPerBlock, 64u); // warps * 32 by default.
  EXPECT_EQ(V.Constants.find("BLOCK")->getInteger(), 64);
  ASSERT_EQ(V.Signature.Params.size(), 4u);
  EXPECT_TRUE(V.Signature.Params[2].Mut);
  EXPECT_EQ(V.Signature.Params[3].Kind, ParamKind::Dim);
  EXPECT_EQ(V.Signature.Params[3].DType, "i32");
  ASSERT_EQ(V.Tests.size(), 1u);
  EXPECT_EQ(V.Tests[0].Sizes.at("N"), 1000);
  EXPECT_EQ(V.Tests[0].Seed, 3u);
  EXPECT_EQ(V.Tests[0].ExpectedFiles.at("C"), "vadd.C.npy");
  EXPECT_EQ(M->Kernels[1].Signature.Grid[2], "1"); // Integer grid entries.
  EXPECT_EQ(M->Kernels[1].Tests[0].Scalars.at("c"), 5.0);
}

TEST(BundleTest, RoundTrip) {
  Expected<Manifest> M = Manifest::fromJson(manifestJson());
  ASSERT_TRUE(M);
  M->Kernels[0].Tests[0].InOut = {"C"};
  M->Kernels[0].Tests[0].OutputTol["C"] = Tolerance{0.5, 0.25};
  M->Kernels[0].Registers = 96;
  M->Kernels[0].Spills = 0;
  M->Kernels[0].Bucket = {{"N", 64}};
  M->Kernels[0].Warnings = "k.tile:3:5: warning: the loop will spill\n";
  json::Value J = M->toJson();
  Expected<Manifest> Back = Manifest::fromJson(J);
  ASSERT_TRUE(Back) << Back.message() << "\n" << json::write(J);
  EXPECT_EQ(Back->toJson(), J);
  EXPECT_EQ(Back->Kernels[0].Tests[0].OutputTol.at("C").Atol, 0.5);
  EXPECT_EQ(Back->Kernels[0].Tests[0].InOut, std::vector<std::string>{"C"});
  EXPECT_EQ(Back->Kernels[0].Registers, 96);
  EXPECT_EQ(Back->Kernels[0].Spills, 0);
  EXPECT_EQ(Back->Kernels[0].Bucket, (DimMap{{"N", 64}}));
  EXPECT_EQ(Back->Kernels[0].Warnings, M->Kernels[0].Warnings);
  EXPECT_EQ(Back->Kernels[1].Registers, -1); // Unknown stays unknown.
  EXPECT_EQ(J.find("kernels")->getArray()[1].find("warnings"), nullptr);
  EXPECT_TRUE(Back->Kernels[1].Bucket.empty());

  // Tensor maps are written only when a kernel has some.
  EXPECT_EQ(J.find("kernels")->getArray()[0].find("tensor_maps"), nullptr);
  M->Kernels[1].Signature.TensorMaps = {{1, {16, 8}, 32}};
  Back = Manifest::fromJson(M->toJson());
  ASSERT_TRUE(Back) << Back.message();
  EXPECT_EQ(Back->Kernels[1].Signature.TensorMaps,
            M->Kernels[1].Signature.TensorMaps);
  EXPECT_EQ(Back->toJson(), M->toJson());
  EXPECT_NE(json::write(M->toJson()).find("\"tensor_maps\""),
            std::string::npos);
  M->Kernels[1].Signature.TensorMaps.clear();

  // So is a fallback (the kernel's copy without TMA).
  EXPECT_EQ(J.find("kernels")->getArray()[0].find("fallback"), nullptr);
  M->Kernels[1].Fallback = {"k__fallback", {256, 1024}, true};
  Back = Manifest::fromJson(M->toJson());
  ASSERT_TRUE(Back) << Back.message();
  EXPECT_EQ(Back->Kernels[1].Fallback.Entry, "k__fallback");
  EXPECT_EQ(Back->Kernels[1].Fallback.Launch.ThreadsPerBlock, 256u);
  EXPECT_EQ(Back->Kernels[1].Fallback.Launch.SharedBytes, 1024u);
  EXPECT_TRUE(Back->Kernels[1].Fallback.Persistent);
  EXPECT_TRUE(Back->Kernels[0].Fallback.Entry.empty());
  EXPECT_EQ(Back->toJson(), M->toJson());
  M->Kernels[1].Fallback = {};

  // A dependent launch (tilec --dependent-launch) is written only when set,
  // and the kernel's copy without TMA is launched the same way.
  EXPECT_EQ(J.find("kernels")->getArray()[0].find("dependent_launch"), nullptr);
  M->Kernels[1].Launch.DependentLaunch = true;
  M->Kernels[1].Fallback = {"k__fallback", {256, 1024}, false};
  Back = Manifest::fromJson(M->toJson());
  ASSERT_TRUE(Back) << Back.message();
  EXPECT_TRUE(Back->Kernels[1].Launch.DependentLaunch);
  EXPECT_TRUE(Back->Kernels[1].Fallback.Launch.DependentLaunch);
  EXPECT_FALSE(Back->Kernels[0].Launch.DependentLaunch);
  M->Kernels[1].Launch.DependentLaunch = false;
  M->Kernels[1].Fallback = {};

  std::string Dir = test::makeHostBundle("roundtrip");
  ASSERT_FALSE(Bundle::save(Dir, *M));
  Expected<Bundle> B = Bundle::load(Dir);
  ASSERT_TRUE(B) << B.message();
  EXPECT_EQ(B->manifest().toJson(), J);
  EXPECT_EQ(B->path("x.npy"), Dir + "/x.npy");
}

TEST(BundleTest, ErrorsNameTheField) {
  json::Value V = manifestJson();
  V.set("format", "zip");
  EXPECT_EQ(manifestError(V),
            "\"format\" is \"zip\", expected \"tilec-bundle\"");
  V = manifestJson();
  V.set("version", 2);
  EXPECT_EQ(manifestError(V), "unsupported bundle version 2 (this runtime "
                              "reads version 1)");

  V = manifestJson();
  kernel(V, 1).set("params", 3);
  EXPECT_EQ(manifestError(V),
            "kernels[1].params: expected an array, found number");

  V = manifestJson();
  json::Object &K0 = kernel(V, 0).getObject();
  K0.erase(K0.begin() + 2); // "target"
  EXPECT_EQ(manifestError(V), "kernels[0]: missing \"target\"");

  V = manifestJson();
  kernel(V, 0).set("object_kind", "elf");
  EXPECT_EQ(
      manifestError(V),
      "kernels[0].object_kind: unknown object kind "
      "'elf' (expected host-so, cubin, ptx, hsaco, nvemu-so or amdemu-so)");

  V = manifestJson();
  kernel(V, 0).set("grid", json::Array{"cdiv(N, 64)", "1"});
  EXPECT_EQ(manifestError(V), "kernels[0].grid: expected 3 expressions");

  V = manifestJson();
  kernel(V, 0).set("grid", json::Array{"cdiv(N, BLOCK)", "1", "1"});
  EXPECT_EQ(manifestError(V), "kernels[0]: kernel vadd: grid: 'BLOCK' is not "
                              "a dimension parameter");

  V = manifestJson();
  kernel(V, 0).set("bucket", json::Object{{"N", "big"}});
  EXPECT_EQ(manifestError(V),
            "kernels[0].bucket: expected an object of sizes, found object");
  V = manifestJson();
  kernel(V, 0).set("spills", -3);
  EXPECT_EQ(manifestError(V), "kernels[0].spills: must be at least 0");

  V = manifestJson();
  kernel(V, 0).set("tensor_maps", json::Array{json::Object{{"param", 0}}});
  EXPECT_EQ(manifestError(V), "kernels[0].tensor_maps[0]: missing \"box\"");
  kernel(V, 0).set("tensor_maps",
                   json::Array{json::Object{{"param", 0}, {"box", "big"}}});
  EXPECT_EQ(manifestError(V), "kernels[0].tensor_maps[0].box: expected an "
                              "array of integers, found string");
  kernel(V, 0).set(
      "tensor_maps",
      json::Array{json::Object{{"param", 0}, {"box", json::Array{300}}}});
  EXPECT_EQ(manifestError(V),
            "kernels[0].tensor_maps[0].box: extent 300 is outside 1-256");
  kernel(V, 0).set("tensor_maps", json::Array{json::Object{
                                      {"param", 3}, {"box", json::Array{64}}}});
  EXPECT_EQ(manifestError(V), "kernels[0]: kernel vadd: tensor map 0: "
                              "parameter 3 is not a tensor parameter");
  kernel(V, 0).set("tensor_maps", 1);
  EXPECT_EQ(manifestError(V),
            "kernels[0].tensor_maps: expected an array, found number");

  V = manifestJson();
  kernel(V, 0).set("fallback", 3);
  EXPECT_EQ(manifestError(V),
            "kernels[0].fallback: expected an object, found number");
  kernel(V, 0).set("fallback", json::Object{{"entry", ""}});
  EXPECT_EQ(manifestError(V), "kernels[0].fallback.entry: must not be empty");
  kernel(V, 0).set("fallback",
                   json::Object{{"entry", "f"}, {"threads_per_block", 4096}});
  EXPECT_EQ(manifestError(V), "kernels[0].fallback: threads_per_block or "
                              "shared_bytes out of range");

  V = manifestJson();
  kernel(V, 0).set("warps", "four");
  EXPECT_EQ(manifestError(V),
            "kernels[0].warps: expected an integer, found string");

  V = manifestJson();
  member(kernel(V, 0), "params").getArray()[1].set("kind", "matrix");
  EXPECT_EQ(manifestError(V),
            "kernels[0].params[1].kind: expected \"tensor\", \"scalar\" or "
            "\"dim\", found \"matrix\"");

  V = manifestJson();
  json::Value &Test = member(kernel(V, 1), "tests").getArray()[0];
  Test.set("scalars", json::Object{});
  EXPECT_EQ(manifestError(V),
            "kernels[1].tests[0].scalars: no value for scalar c");
  Test.set("scalars", json::Object{{"c", 5}});
  Test.set("sizes", json::Object{{"M", 7}});
  EXPECT_EQ(manifestError(V), "kernels[1].tests[0].sizes: no size for "
                              "dimension K");
  Test.set("sizes", json::Object{{"M", 7}, {"K", 3}});
  Test.set("expected", json::Object{{"X", "x.npy"}});
  EXPECT_EQ(manifestError(V), "kernels[1].tests[0].expected: 'X' is not a "
                              "mut tensor of u4_affine");
}

TEST(BundleTest, VariantsAreChosenByShapeBucket) {
  KernelInfo Any, Small, Big;
  Small.Bucket = {{"M", 1}, {"N", 4096}};
  Big.Bucket = {{"M", 64}, {"N", 4096}};
  std::vector<const KernelInfo *> V = {&Small, &Any, &Big};
  EXPECT_EQ(selectVariant(V, {{"M", 1}, {"N", 4096}}), 0u);
  EXPECT_EQ(selectVariant(V, {{"M", 1}, {"N", 3000}}), 0u); // Same bucket.
  EXPECT_EQ(selectVariant(V, {{"M", 2}, {"N", 4096}}), 1u);
  EXPECT_EQ(selectVariant(V, {{"M", 40}, {"N", 4096}}), 2u);
  EXPECT_EQ(selectVariant(V, {{"N", 4096}}), 1u); // M unknown: no match.
  // Without a variant for every shape, the first is the fallback.
  std::vector<const KernelInfo *> NoDefault = {&Small, &Big};
  EXPECT_EQ(selectVariant(NoDefault, {{"M", 7}, {"N", 4096}}), 0u);
  EXPECT_EQ(selectVariant(NoDefault, {{"M", 64}, {"N", 4096}}), 1u);
}

TEST(BundleTest, TargetCompatibility) {
  EXPECT_TRUE(targetRunsOn("host", ObjectKind::HostSO, Platform::Host, "host"));
  EXPECT_FALSE(
      targetRunsOn("sm_90", ObjectKind::Cubin, Platform::Host, "host"));
  EXPECT_TRUE(
      targetRunsOn("sm_90a", ObjectKind::Cubin, Platform::Cuda, "sm_90"));
  EXPECT_FALSE(
      targetRunsOn("sm_90a", ObjectKind::Cubin, Platform::Cuda, "sm_100"));
  EXPECT_TRUE(
      targetRunsOn("sm_80", ObjectKind::Cubin, Platform::Cuda, "sm_86"));
  EXPECT_FALSE(
      targetRunsOn("sm_80", ObjectKind::Cubin, Platform::Cuda, "sm_90"));
  EXPECT_FALSE(
      targetRunsOn("sm_86", ObjectKind::Cubin, Platform::Cuda, "sm_80"));
  EXPECT_TRUE(targetRunsOn("sm_80", ObjectKind::Ptx, Platform::Cuda, "sm_90"));
  EXPECT_FALSE(targetRunsOn("sm_90", ObjectKind::Ptx, Platform::Cuda, "sm_80"));
  EXPECT_TRUE(
      targetRunsOn("gfx942", ObjectKind::Hsaco, Platform::Hip, "gfx942"));
  EXPECT_FALSE(
      targetRunsOn("gfx950", ObjectKind::Hsaco, Platform::Hip, "gfx942"));
  EXPECT_TRUE(targetRunsOn("gfx950", ObjectKind::Hsaco, Platform::Hip, ""));
}

TEST(BundleTest, CompareTolerances) {
  namespace num = tile::numerics;
  num::Format F16 = num::Format::f16();
  auto pack16 = [&](std::vector<double> Values) {
    std::vector<uint32_t> Codes;
    for (double V : Values)
      Codes.push_back(num::encode(F16, V));
    return *num::pack(Codes, 16);
  };
  std::vector<uint8_t> Want = pack16({1.0, -2.0, 100.0, 0.0});
  std::vector<uint8_t> Near =
      pack16({1.0009765625, -2.0, 100.0625, 0.0009765625});
  Expected<CompareStats> S = compareTensors("f16", Near.data(), Want.data(), 4);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Mismatches, 0u) << S->summary();
  EXPECT_DOUBLE_EQ(S->MaxAbs, 0.0625);
  std::vector<uint8_t> Far = pack16({1.0, -2.0, 101.0, std::nan("")});
  S = compareTensors("f16", Far.data(), Want.data(), 4);
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Mismatches, 2u);
  EXPECT_EQ(S->FirstBad, 2);
  EXPECT_EQ(S->summary(), "max_abs=1 max_rel=0.01 mismatches=2/4 (first at 2: "
                          "got 101 want 100)");
  // Explicit tolerance.
  S = compareTensors("f16", Far.data(), Want.data(), 3, Tolerance{1.0, 0});
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Mismatches, 0u);
  // Integer codes are exact.
  std::vector<uint8_t> A = {0x21, 0x43}, B = {0x21, 0x53};
  S = compareTensors("u4", A.data(), B.data(), 4);
  ASSERT_TRUE(S);
  EXPECT_TRUE(S->Exact);
  EXPECT_EQ(S->Mismatches, 1u);
  EXPECT_EQ(S->FirstBad, 3);
  S = compareTensors("u4", A.data(), B.data(), 3);
  EXPECT_EQ(S->Mismatches, 0u);
  EXPECT_EQ(defaultTolerance("f32").Rtol, 1e-4);
  EXPECT_EQ(defaultTolerance("bf16").Rtol, 1.0 / 64);
  EXPECT_EQ(defaultTolerance("i8").Atol, 0.0);
}

// A reference output that still holds the runner's poison (bytes 0xFF) was
// not written: floats report the first all-ones NaN; formats where all ones
// is a number cannot tell.
TEST(BundleTest, PoisonLeftInReferences) {
  std::vector<uint8_t> F32(4 * 4, 0);
  Expected<int64_t> L = poisonLeft("f32", F32.data(), 4);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  std::fill(F32.begin() + 8, F32.begin() + 12, PoisonByte);
  L = poisonLeft("f32", F32.data(), 4);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, 2);
  // A canonical NaN is a result, not poison.
  const uint8_t QNaN[4] = {0x00, 0x00, 0xC0, 0x7F};
  L = poisonLeft("f32", QNaN, 1);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  // f16 all ones is a NaN too.
  const uint8_t H[4] = {0x00, 0x3C, 0xFF, 0xFF};
  L = poisonLeft("f16", H, 2);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, 1);
  // i8 -1 is a value, u4 15 as well (two per byte): never poison, even
  // everywhere (a max over random u4 codes is 15).
  std::vector<uint8_t> I8 = {0xFF, 0xFF, 0xFF};
  L = poisonLeft("i8", I8.data(), 3);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  const uint8_t U4[2] = {0xFF, 0xFF};
  L = poisonLeft("u4", U4, 4);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  // f4e2m1 has no NaN: all ones (-6) is a value.
  const uint8_t E2M1[1] = {0xF1};
  L = poisonLeft("f4e2m1", E2M1, 2);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  // f8e4m3's canonical NaN with the sign set is 0xFF: a conversion's
  // result, so not poison.
  const uint8_t E4M3[2] = {0x38, 0xFF};
  L = poisonLeft("f8e4m3", E4M3, 2);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  // f8e5m2's 0xFF is a NaN no operation returns, but one a copy or a cast
  // of an input code passes on: 8-bit formats are never checked.
  const uint8_t E5M2[2] = {0x3C, 0xFF};
  L = poisonLeft("f8e5m2", E5M2, 2);
  ASSERT_TRUE(L);
  EXPECT_EQ(*L, -1);
  EXPECT_FALSE(poisonLeft("q9", F32.data(), 1));
}

} // namespace
