//===- EmulationRewriteTest.cpp - AMDGPU IR rewritten for the emulator ----===//
//
// Part of tilec. Checks lib/Codegen/AMD/Emulation.cpp on its own, without
// the runtime's emulator: a hand-written AMDGPU module using the amdgcn
// intrinsics tilec emits (work-item ids, the dispatch packet, s_barrier,
// DPP, ds_swizzle, ds_bpermute, MFMA, rsq), an LDS variable, a private
// alloca and the register-barrier inline assembly is rewritten,
// JIT-compiled for the host and run once with a recording table
// (AmdEmuAbi.h). The test checks what each replacement passes to the table
// and that the answers come back as the intrinsics' results; unknown
// intrinsics and non-zero MFMA modifiers must be refused.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Emulation/AmdEmuAbi.h"

#include "../Support/EmulationTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

namespace {

using tile::test::bits;
using tile::test::fromBits;

constexpr const char *kKernel = R"(
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1"
target triple = "amdgcn-amd-amdhsa"
@k.lds = internal unnamed_addr addrspace(3) global [64 x i8] undef, align 16

define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %slot = alloca i32, align 4, addrspace(5)
  store i32 7, ptr addrspace(5) %slot
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.y()
  %x = load float, ptr addrspace(1) %in, align 4
  %xi = bitcast float %x to i32
  %dpp = call i32 @llvm.amdgcn.update.dpp.i32(i32 %tid, i32 %xi, i32 177, i32 15, i32 14, i1 true)
  %sw = call i32 @llvm.amdgcn.ds.swizzle(i32 %xi, i32 16415)
  %bp = call i32 @llvm.amdgcn.ds.bpermute(i32 8, i32 %xi)
  %rl = call i32 @llvm.amdgcn.readlane.i32(i32 %xi, i32 5)
  %l = getelementptr i8, ptr addrspace(3) @k.lds, i32 32
  store i32 %bp, ptr addrspace(3) %l, align 4
  call void @llvm.amdgcn.s.barrier()
  %lv = load i32, ptr addrspace(3) %l, align 4
  %a0 = insertelement <2 x i32> poison, i32 %lv, i32 0
  %a1 = insertelement <2 x i32> %a0, i32 %sw, i32 1
  %av = bitcast <2 x i32> %a1 to <4 x half>
  %b0 = insertelement <2 x i32> poison, i32 %sw, i32 0
  %b1 = insertelement <2 x i32> %b0, i32 %lv, i32 1
  %bv = bitcast <2 x i32> %b1 to <4 x half>
  %c = insertelement <16 x float> zeroinitializer, float %x, i32 0
  %d = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half> %av, <4 x half> %bv, <16 x float> %c, i32 0, i32 0, i32 0)
  %d0 = extractelement <16 x float> %d, i32 0
  %d15 = extractelement <16 x float> %d, i32 15
  %r = call float @llvm.amdgcn.rsq.f32(float %x)
  %same = call i32 asm "", "=v,0"(i32 %tid)
  %dp = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %gsp = getelementptr i8, ptr addrspace(4) %dp, i64 12
  %gs = load i32, ptr addrspace(4) %gsp, align 4
  %seven = load i32, ptr addrspace(5) %slot, align 4
  %sum = add i32 %tid, %seven
  store i32 %sum, ptr addrspace(1) %out, align 4
  %o1 = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %wg, ptr addrspace(1) %o1, align 4
  %o2 = getelementptr i32, ptr addrspace(1) %out, i32 2
  store i32 %dpp, ptr addrspace(1) %o2, align 4
  %o3 = getelementptr i32, ptr addrspace(1) %out, i32 3
  store i32 %sw, ptr addrspace(1) %o3, align 4
  %o4 = getelementptr i32, ptr addrspace(1) %out, i32 4
  store i32 %lv, ptr addrspace(1) %o4, align 4
  %o5 = getelementptr float, ptr addrspace(1) %out, i32 5
  store float %d0, ptr addrspace(1) %o5, align 4
  %o6 = getelementptr float, ptr addrspace(1) %out, i32 6
  store float %d15, ptr addrspace(1) %o6, align 4
  %o7 = getelementptr float, ptr addrspace(1) %out, i32 7
  store float %r, ptr addrspace(1) %o7, align 4
  %o8 = getelementptr i32, ptr addrspace(1) %out, i32 8
  store i32 %same, ptr addrspace(1) %o8, align 4
  %o9 = getelementptr i32, ptr addrspace(1) %out, i32 9
  store i32 %gs, ptr addrspace(1) %o9, align 4
  %o10 = getelementptr i32, ptr addrspace(1) %out, i32 10
  store i32 %rl, ptr addrspace(1) %o10, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare void @llvm.amdgcn.s.barrier()
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half>, <4 x half>, <16 x float>, i32 immarg, i32 immarg, i32 immarg)
declare float @llvm.amdgcn.rsq.f32(float)
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
)";

struct Recorder {
  std::vector<uint32_t> sregs;
  int barriers = 0;
  std::vector<std::array<uint32_t, 6>> dpps;
  std::vector<std::array<uint32_t, 2>> swizzles, bpermutes;
  std::vector<std::array<uint32_t, 39>> mfmas; // kind, a[2], b[2], c[16]...
  std::vector<std::array<uint64_t, 3>> accesses;
  std::vector<uint32_t> math;
  alignas(16) std::array<uint8_t, 64> lds{};
  alignas(16) std::array<uint8_t, 64> packet{};
};

Recorder *rec = nullptr;

const tile_amd_emu_ops kOps = {
    TILE_AMD_EMU_ABI_VERSION,
    /*sreg=*/
    [](uint32_t which) -> uint32_t {
      rec->sregs.push_back(which);
      return 100 + which;
    },
    /*dispatch_ptr=*/[]() -> const void * { return rec->packet.data(); },
    /*lds_base=*/[]() -> void * { return rec->lds.data(); },
    /*barrier=*/[]() { ++rec->barriers; },
    /*dpp=*/
    [](uint32_t old, uint32_t src, uint32_t ctrl, uint32_t rowMask,
       uint32_t bankMask, uint32_t bound) -> uint32_t {
      rec->dpps.push_back({old, src, ctrl, rowMask, bankMask, bound});
      return old ^ src;
    },
    /*ds_swizzle=*/
    [](uint32_t src, uint32_t pattern) -> uint32_t {
      rec->swizzles.push_back({src, pattern});
      return src + 1;
    },
    /*ds_bpermute=*/
    [](uint32_t address, uint32_t src) -> uint32_t {
      rec->bpermutes.push_back({address, src});
      return src + 2;
    },
    /*ds_permute=*/
    [](uint32_t, uint32_t) -> uint32_t {
      ADD_FAILURE() << "ds_permute";
      return 0;
    },
    /*mfma=*/
    [](uint32_t kind, const uint32_t *a, const uint32_t *b, const uint32_t *c,
       uint32_t *d) {
      std::array<uint32_t, 39> r{kind, a[0], a[1], b[0], b[1]};
      std::copy(c, c + 16, r.begin() + 5);
      rec->mfmas.push_back(r);
      for (int i = 0; i < 16; ++i)
        d[i] = bits(fromBits(c[i]) + float(i));
    },
    /*readfirstlane=*/
    [](uint32_t value) -> uint32_t {
      ADD_FAILURE() << "readfirstlane";
      return value;
    },
    /*access=*/
    [](const void *address, uint32_t bytes, uint32_t flags) -> uint32_t {
      rec->accesses.push_back(
          {reinterpret_cast<uint64_t>(address), bytes, flags});
      return 1;
    },
    /*math_f32=*/
    [](uint32_t fn, float x) -> float {
      rec->math.push_back(fn);
      return 2 * x;
    },
    /*unsupported=*/[](const char *what) { ADD_FAILURE() << what; },
};

std::string rewriteError(const std::string &text) {
  return tile::test::rewriteError(
      text, [](llvm::Module &m) { return tile::amd::rewriteForEmulation(m); });
}

TEST(AmdEmulationRewrite, RewrittenKernelCallsTheTableWithPackedOperands) {
  auto jit =
      tile::test::rewriteAndJit(kKernel, [](llvm::Module &m) -> llvm::Error {
        if (llvm::Error err = tile::amd::rewriteForEmulation(m))
          return err;
        for (llvm::Function &f : m)
          if (f.getName().starts_with("llvm.amdgcn."))
            return llvm::createStringError("left: " + f.getName().str());
        for (llvm::GlobalVariable &g : m.globals())
          if (g.getAddressSpace() == 3)
            return llvm::createStringError("left: " + g.getName().str());
        return llvm::Error::success();
      });
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  auto bind = tile::test::lookup<void (*)(const tile_amd_emu_ops *)>(
      **jit, "__tile_emu_bind");
  auto entry =
      tile::test::lookup<void (*)(void **)>(**jit, "__tile_emu_entry_k");
  auto ldsBytes = tile::test::lookup<const uint32_t *>(
      **jit, TILE_AMD_EMU_LDS_BYTES_PREFIX "k");
  ASSERT_TRUE(bind && entry && ldsBytes);
  // The 64-byte LDS variable, at offset 0 of a 16-byte multiple block.
  EXPECT_EQ(*ldsBytes, 64u);

  std::array<uint32_t, 12> out;
  out.fill(0xdeadbeef);
  float in = 1.5f;
  Recorder r;
  uint32_t gridX = 4242;
  std::memcpy(r.packet.data() + 12, &gridX, 4);
  rec = &r;
  bind(&kOps);
  uint32_t *outPtr = out.data();
  float *inPtr = &in;
  void *args[] = {&outPtr, &inPtr};
  entry(args);
  rec = nullptr;

  uint32_t x = bits(1.5f);
  EXPECT_EQ(r.sregs, (std::vector<uint32_t>{TILE_AMD_EMU_WORKITEM_X,
                                            TILE_AMD_EMU_WORKGROUP_Y}));
  EXPECT_EQ(out[0], 107u);
  EXPECT_EQ(out[1], 100u + TILE_AMD_EMU_WORKGROUP_Y);
  ASSERT_EQ(r.dpps.size(), 1u);
  EXPECT_EQ(r.dpps[0], (std::array<uint32_t, 6>{100, x, 177, 15, 14, 1}));
  EXPECT_EQ(out[2], 100u ^ x);
  EXPECT_EQ(r.swizzles, (std::vector<std::array<uint32_t, 2>>{{x, 16415}}));
  EXPECT_EQ(out[3], x + 1);
  // ds_bpermute, then readlane(x, 5) as a ds_bpermute from lane 5.
  EXPECT_EQ(r.bpermutes,
            (std::vector<std::array<uint32_t, 2>>{{8, x}, {20, x}}));
  EXPECT_EQ(r.barriers, 1);
  EXPECT_EQ(out[4], x + 2); // through LDS
  ASSERT_EQ(r.mfmas.size(), 1u);
  std::array<uint32_t, 39> mfma{
      TILE_AMD_EMU_MFMA_F32_32X32X8_F16, x + 2, x + 1, x + 1, x + 2, x};
  EXPECT_EQ(r.mfmas[0], mfma);
  EXPECT_EQ(out[5], x);           // c[0] + 0
  EXPECT_EQ(out[6], bits(15.0f)); // c[15] + 15
  EXPECT_EQ(r.math, (std::vector<uint32_t>{TILE_AMD_EMU_RSQ}));
  EXPECT_EQ(out[7], bits(3.0f));
  EXPECT_EQ(out[8], 100u);  // the register barrier is the identity
  EXPECT_EQ(out[9], gridX); // from the dispatch packet
  EXPECT_EQ(out[10], x + 2);
  EXPECT_EQ(out[11], 0xdeadbeefu);

  // Checked: the global load, the LDS store and load, 11 global stores;
  // not the private slot, not the dispatch packet. Each carries the
  // alignment it declares (4 bytes: log2 2 in the alignment bits).
  auto lds = reinterpret_cast<uint64_t>(r.lds.data()) + 32;
  constexpr uint64_t kAlign4 = 2u << TILE_AMD_EMU_ACCESS_ALIGN_SHIFT;
  EXPECT_EQ(r.accesses.size(), 14u);
  for (const auto &access : std::vector<std::array<uint64_t, 3>>{
           {reinterpret_cast<uint64_t>(inPtr), 4,
            TILE_AMD_EMU_GLOBAL | kAlign4},
           {lds, 4, TILE_AMD_EMU_LDS | TILE_AMD_EMU_ACCESS_WRITE | kAlign4},
           {lds, 4, TILE_AMD_EMU_LDS | kAlign4},
           {reinterpret_cast<uint64_t>(&out[9]), 4,
            TILE_AMD_EMU_GLOBAL | TILE_AMD_EMU_ACCESS_WRITE | kAlign4}})
    EXPECT_NE(std::find(r.accesses.begin(), r.accesses.end(), access),
              r.accesses.end())
        << "missing access at " << access[0] << " flags " << access[2];
}

TEST(AmdEmulationRewrite, UnknownIntrinsicIsAnError) {
  std::string err = rewriteError(R"(
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %c = call i64 @llvm.amdgcn.s.memtime()
  store i64 %c, ptr addrspace(1) %p
  ret void
}
declare i64 @llvm.amdgcn.s.memtime()
)");
  EXPECT_NE(err.find("does not know the intrinsic llvm.amdgcn.s.memtime"),
            std::string::npos)
      << err;
}

TEST(AmdEmulationRewrite, MfmaModifiersAreRefused) {
  std::string err = rewriteError(R"(
define amdgpu_kernel void @k(ptr addrspace(1) %p, <4 x half> %a) {
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %a, <4 x half> %a, <4 x float> zeroinitializer, i32 1, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
)");
  EXPECT_NE(err.find("only with cbsz = abid = blgp = 0"), std::string::npos)
      << err;
}

// The same 8-bit float MFMA reads FNUZ codes on gfx942 and OCP codes on
// gfx950: the emulator (gfx950's formats) refuses the gfx942 one, naming
// the chip, and takes the gfx950 one.
TEST(AmdEmulationRewrite, Fp8MfmaIsEmulatedForGfx950Only) {
  auto kernel = [](const char *cpu) {
    return std::string(R"(
define amdgpu_kernel void @k(ptr addrspace(1) %p, i64 %a) #0 {
  %d = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 %a, i64 %a, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)
  store <4 x float> %d, ptr addrspace(1) %p
  ret void
}
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64, i64, <4 x float>, i32 immarg, i32 immarg, i32 immarg)
attributes #0 = { "target-cpu"=")") +
           cpu + "\" }\n";
  };
  std::string err = rewriteError(kernel("gfx942"));
  EXPECT_NE(err.find("llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8 with gfx950's "
                     "OCP formats, not for 'gfx942'"),
            std::string::npos)
      << err;
  EXPECT_EQ(rewriteError(kernel("gfx950")), "");
}

TEST(AmdEmulationRewrite, NonEmptyInlineAssemblyIsAnError) {
  std::string err = rewriteError(R"IR(
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %v = call i32 asm sideeffect "s_getreg_b32 $0, hwreg(HW_REG_HW_ID)", "=s"()
  store i32 %v, ptr addrspace(1) %p
  ret void
}
)IR");
  EXPECT_NE(err.find("cannot run inline assembly"), std::string::npos) << err;
}

} // namespace
