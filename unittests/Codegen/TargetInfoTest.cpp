//===- TargetInfoTest.cpp - Target descriptions ---------------------------===//

#include "tile/Target/TargetInfo.h"

#include "gtest/gtest.h"

using namespace tile;

TEST(TargetInfo, EveryKnownTargetLooksUp) {
  for (llvm::StringRef name : TargetInfo::knownTargets()) {
    std::optional<TargetInfo> t = TargetInfo::lookup(name);
    ASSERT_TRUE(t.has_value()) << name.str();
    EXPECT_EQ(t->name, name.str());
    EXPECT_FALSE(t->triple.empty()) << name.str();
    EXPECT_GT(t->maxSharedBytes, 0u) << name.str();
  }
}

TEST(TargetInfo, UnknownTargetsAreRejected) {
  EXPECT_FALSE(TargetInfo::lookup("sm_70").has_value());
  EXPECT_FALSE(TargetInfo::lookup("gfx90a").has_value());
  EXPECT_FALSE(TargetInfo::lookup("").has_value());
  EXPECT_FALSE(TargetInfo::lookup("SM_90A").has_value());
}

TEST(TargetInfo, WarpSizeIsAParameterOfTheVendor) {
  EXPECT_EQ(TargetInfo::lookup("sm_80")->warpSize, 32u);
  EXPECT_EQ(TargetInfo::lookup("sm_90a")->warpSize, 32u);
  EXPECT_EQ(TargetInfo::lookup("gfx942")->warpSize, 64u);
  EXPECT_EQ(TargetInfo::lookup("gfx950")->warpSize, 64u);
}

TEST(TargetInfo, SharedMemoryAndFeatures) {
  TargetInfo gfx942 = *TargetInfo::lookup("gfx942");
  TargetInfo gfx950 = *TargetInfo::lookup("gfx950");
  EXPECT_EQ(gfx942.maxSharedBytes, 64u * 1024);
  EXPECT_EQ(gfx950.maxSharedBytes, 160u * 1024);
  EXPECT_TRUE(gfx950.hasMfmaGfx950);
  EXPECT_FALSE(gfx942.hasMfmaGfx950);
  // 8-bit float MFMA: gfx950 reads OCP e4m3 / e5m2 (tilec's f8e4m3 /
  // f8e5m2), gfx942 the FNUZ formats: a matrix dot on gfx950 only.
  EXPECT_TRUE(gfx950.hasFp8Mma);
  EXPECT_FALSE(gfx942.hasFp8Mma);
  EXPECT_TRUE(gfx950.hasMatrixDot(8, true, true));
  EXPECT_FALSE(gfx942.hasMatrixDot(8, true, true));
  EXPECT_TRUE(gfx942.hasMatrixDot(8, false, false));
  EXPECT_FALSE(gfx950.hasMatrixDot(4, true, false));
  TargetInfo sm90a = *TargetInfo::lookup("sm_90a");
  TargetInfo sm90 = *TargetInfo::lookup("sm_90");
  TargetInfo sm80 = *TargetInfo::lookup("sm_80");
  EXPECT_EQ(sm90a.maxSharedBytes, 227u * 1024);
  EXPECT_EQ(sm80.maxSharedBytes, 163u * 1024);
  EXPECT_EQ(sm80.defaultSharedBytes, 48u * 1024);
  EXPECT_TRUE(sm90a.hasWgmma);
  EXPECT_FALSE(sm90.hasWgmma);
  EXPECT_TRUE(sm80.hasCpAsync && sm80.hasMmaSync && sm80.hasLdmatrix);
  EXPECT_FALSE(sm80.hasFp8Mma);
  EXPECT_TRUE(TargetInfo::lookup("sm_89")->hasFp8Mma);
  EXPECT_EQ(sm90a.objectKind(), ObjectKind::Cubin);
  EXPECT_EQ(gfx942.objectKind(), ObjectKind::Hsaco);
  EXPECT_EQ(TargetInfo::lookup("host")->objectKind(), ObjectKind::HostObject);
}

// What `occupancy P` is checked against: the warps and the shared memory of
// one SM (CU), from the vendors' tables (CUDA C Programming Guide, compute
// capabilities 8.0 / 8.6 / 8.9 / 9.0: 64 / 48 / 48 / 64 warps and 164 /
// 100 / 100 / 228 KB per SM, 1 KB of it reserved per block; CDNA3/4: 8
// wavefronts per SIMD, 4 SIMDs per CU, 64 / 160 KB of LDS per CU). The
// front end sees the warps (frontendFacts); the host has no bound.
TEST(TargetInfo, ProcessorLimits) {
  TargetInfo sm80 = *TargetInfo::lookup("sm_80");
  TargetInfo sm86 = *TargetInfo::lookup("sm_86");
  TargetInfo sm89 = *TargetInfo::lookup("sm_89");
  TargetInfo sm90a = *TargetInfo::lookup("sm_90a");
  TargetInfo gfx942 = *TargetInfo::lookup("gfx942");
  TargetInfo gfx950 = *TargetInfo::lookup("gfx950");
  TargetInfo host = *TargetInfo::lookup("host");
  EXPECT_EQ(sm80.maxWarpsPerProcessor, 64u);
  EXPECT_EQ(sm86.maxWarpsPerProcessor, 48u);
  EXPECT_EQ(sm89.maxWarpsPerProcessor, 48u);
  EXPECT_EQ(sm90a.maxWarpsPerProcessor, 64u);
  EXPECT_EQ(gfx942.maxWarpsPerProcessor, 32u);
  EXPECT_EQ(host.maxWarpsPerProcessor, 0u);
  EXPECT_EQ(sm80.sharedBytesPerProcessor, 164u * 1024);
  EXPECT_EQ(sm86.sharedBytesPerProcessor, 100u * 1024);
  EXPECT_EQ(sm90a.sharedBytesPerProcessor, 228u * 1024);
  EXPECT_EQ(sm90a.reservedSharedBytesPerProgram, 1024u);
  EXPECT_EQ(gfx942.sharedBytesPerProcessor, 64u * 1024);
  EXPECT_EQ(gfx950.sharedBytesPerProcessor, 160u * 1024);
  EXPECT_EQ(gfx942.reservedSharedBytesPerProgram, 0u);
  EXPECT_EQ(sm90a.frontendFacts().maxWarpsPerProcessor, 64u);
  EXPECT_EQ(gfx950.frontendFacts().maxWarpsPerProcessor, 32u);
}
