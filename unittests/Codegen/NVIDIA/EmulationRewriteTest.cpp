//===- EmulationRewriteTest.cpp - NVPTX IR rewritten for the emulator ----===//
//
// Part of tilec. Checks lib/Codegen/NVIDIA/Emulation.cpp on its own, without
// the runtime's emulator: a hand-written NVPTX module using every NVVM
// intrinsic the rewrite knows is rewritten, JIT-compiled for the host and
// run once with a recording table of operations (NvEmuAbi.h). The test
// checks what each replacement passes to the table (operands packed as
// 32-bit words, the right kinds and flags, generic addresses) and that the
// table's answers come back as the intrinsic's results. Unknown intrinsics
// and static shared variables must be refused with a clear error.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Emulation/NvEmuAbi.h"

#include "../Support/EmulationTestSupport.h"

#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr const char *kKernel = R"(
target triple = "nvptx64-nvidia-cuda"
@__tile_dynamic_smem = external addrspace(3) global [0 x i8], align 16

define ptx_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %slot = alloca i32, align 4
  store i32 7, ptr %slot
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %x = load float, ptr addrspace(1) %in, align 4
  %s = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %x, i32 1, i32 31)
  %sp = getelementptr i8, ptr addrspace(3) @__tile_dynamic_smem, i32 16
  call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) %sp, ptr addrspace(1) %in, i32 %n)
  call void @llvm.nvvm.cp.async.commit.group()
  call void @llvm.nvvm.cp.async.wait.group(i32 1)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %lm = call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3) %sp)
  %l0 = extractvalue { i32, i32, i32, i32 } %lm, 0
  %l1 = extractvalue { i32, i32, i32, i32 } %lm, 1
  %l2 = extractvalue { i32, i32, i32, i32 } %lm, 2
  %l3 = extractvalue { i32, i32, i32, i32 } %lm, 3
  %a0 = bitcast i32 %l0 to <2 x half>
  %a1 = bitcast i32 %l1 to <2 x half>
  %a2 = bitcast i32 %l2 to <2 x half>
  %a3 = bitcast i32 %l3 to <2 x half>
  %d = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half> %a0, <2 x half> %a1, <2 x half> %a2, <2 x half> %a3, <2 x half> %a3, <2 x half> %a0, float %x, float %s, float 1.0, float 2.0)
  %d0 = extractvalue { float, float, float, float } %d, 0
  %d3 = extractvalue { float, float, float, float } %d, 3
  %e = call float @llvm.nvvm.ex2.approx.f32(float %x)
  %f = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)
  %seven = load i32, ptr %slot
  %o1 = getelementptr i32, ptr addrspace(1) %out, i32 1
  %o2 = getelementptr float, ptr addrspace(1) %out, i32 2
  %o3 = getelementptr float, ptr addrspace(1) %out, i32 3
  %o4 = getelementptr float, ptr addrspace(1) %out, i32 4
  %o5 = getelementptr float, ptr addrspace(1) %out, i32 5
  %o6 = getelementptr i32, ptr addrspace(1) %out, i32 6
  %o7 = getelementptr float, ptr addrspace(1) %out, i32 7
  %sum = add i32 %tid, %seven
  store i32 %sum, ptr addrspace(1) %out
  store i32 %cta, ptr addrspace(1) %o1
  store float %s, ptr addrspace(1) %o2
  store float %d0, ptr addrspace(1) %o3
  store float %d3, ptr addrspace(1) %o4
  store float %e, ptr addrspace(1) %o5
  store float %f, ptr addrspace(1) %o7
  %sv = load i32, ptr addrspace(3) %sp
  store i32 %sv, ptr addrspace(1) %o6
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
declare void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3), ptr addrspace(1), i32)
declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr addrspace(3))
declare { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float)
declare float @llvm.nvvm.ex2.approx.f32(float)
declare float @llvm.nvvm.ex2.approx.ftz.f32(float)
)";

/// What the rewritten kernel asked of the table.
struct Recorder {
  std::vector<uint32_t> sregs;
  std::vector<std::array<uint32_t, 5>> shfls; // mode, mask, value, b, c
  std::vector<uint32_t> barriers;
  std::vector<std::array<uint64_t, 4>> cpAsyncs; // dst, src, bytes, src_bytes
  int commits = 0;
  std::vector<uint32_t> waits;
  std::vector<std::array<uint64_t, 3>> ldmatrices; // count, trans, address
  std::vector<std::array<uint32_t, 11>> mmas;      // kind, a[4], b[2], c[4], d
  std::vector<std::array<uint64_t, 3>> accesses;   // address, bytes, flags
  std::vector<uint32_t> math;
  alignas(16) std::array<uint8_t, 256> smem{};
  const void *refuse = nullptr;
};

Recorder *rec = nullptr;

const tile_emu_ops kOps = {
    TILE_EMU_ABI_VERSION,
    /*sreg=*/
    [](uint32_t which) -> uint32_t {
      rec->sregs.push_back(which);
      return 100 + which;
    },
    /*shared_base=*/[]() -> void * { return rec->smem.data(); },
    /*barrier=*/[](uint32_t id) { rec->barriers.push_back(id); },
    /*shfl=*/
    [](uint32_t mode, uint32_t mask, uint32_t value, uint32_t b, uint32_t c,
       uint32_t *pred) -> uint32_t {
      rec->shfls.push_back({mode, mask, value, b, c});
      if (pred)
        *pred = 1;
      float f;
      std::memcpy(&f, &value, 4);
      f *= 3.0f;
      std::memcpy(&value, &f, 4);
      return value;
    },
    /*ldmatrix=*/
    [](uint32_t count, uint32_t trans, const void *address, uint32_t *out) {
      rec->ldmatrices.push_back(
          {count, trans, reinterpret_cast<uint64_t>(address)});
      for (uint32_t i = 0; i < count; ++i)
        out[i] = 0x3c003c00u + i; // f16 1.0 pairs, perturbed
    },
    /*mma=*/
    [](uint32_t kind, const uint32_t *a, const uint32_t *b, const uint32_t *c,
       uint32_t *d) {
      std::array<uint32_t, 11> r{kind};
      std::copy(a, a + 4, r.begin() + 1);
      std::copy(b, b + 2, r.begin() + 5);
      std::copy(c, c + 4, r.begin() + 7);
      rec->mmas.push_back(r);
      for (int i = 0; i < 4; ++i) {
        float f;
        std::memcpy(&f, &c[i], 4);
        f += 10.0f * (i + 1);
        std::memcpy(&d[i], &f, 4);
      }
    },
    /*cp_async=*/
    [](void *dst, const void *src, uint32_t bytes, uint32_t srcBytes) {
      rec->cpAsyncs.push_back({reinterpret_cast<uint64_t>(dst),
                               reinterpret_cast<uint64_t>(src), bytes,
                               srcBytes});
      std::memcpy(dst, src, srcBytes);
    },
    /*cp_async_commit=*/[]() { ++rec->commits; },
    /*cp_async_wait=*/[](uint32_t pending) { rec->waits.push_back(pending); },
    /*access=*/
    [](const void *address, uint32_t bytes, uint32_t flags) -> uint32_t {
      rec->accesses.push_back(
          {reinterpret_cast<uint64_t>(address), bytes, flags});
      // Refuse the store to out[6]: it must land in the sink instead.
      return address != rec->refuse;
    },
    /*math_f32=*/
    [](uint32_t fn, float x) -> float {
      rec->math.push_back(fn);
      return x + 0.5f;
    },
    /*unsupported=*/[](const char *) { ADD_FAILURE() << "unsupported"; },
};

using tile::test::bits;

std::string rewriteError(const std::string &text) {
  return tile::test::rewriteError(text, tile::nvidia::rewriteForEmulation);
}

TEST(EmulationRewrite, RewrittenKernelCallsTheTableWithPackedOperands) {
  auto jit =
      tile::test::rewriteAndJit(kKernel, [](llvm::Module &m) -> llvm::Error {
        if (llvm::Error err = tile::nvidia::rewriteForEmulation(m))
          return err;
        for (llvm::Function &f : m)
          if (f.getName().starts_with("llvm.nvvm."))
            return llvm::createStringError("left: " + f.getName().str());
        for (llvm::GlobalVariable &g : m.globals())
          if (g.getAddressSpace() == 3)
            return llvm::createStringError("left: " + g.getName().str());
        if (!m.getFunction("k")->hasInternalLinkage())
          return llvm::createStringError("the kernel is still exported");
        return llvm::Error::success();
      });
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  auto bind = tile::test::lookup<void (*)(const tile_emu_ops *)>(
      **jit, TILE_EMU_BIND_SYMBOL);
  auto entry =
      tile::test::lookup<void (*)(void **)>(**jit, "__tile_emu_entry_k");
  ASSERT_TRUE(bind && entry);

  std::array<uint32_t, 8> out{};
  out.fill(0xdeadbeef);
  Recorder r;
  r.refuse = &out[6];
  rec = &r;
  bind(&kOps);
  std::array<float, 8> in = {1.25f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f};
  uint32_t *outPtr = out.data();
  float *inPtr = in.data();
  uint32_t n = 12;
  void *args[] = {&outPtr, &inPtr, &n};
  entry(args);
  rec = nullptr;

  // Special registers, barrier, shuffle and approximate math.
  EXPECT_EQ(r.sregs, (std::vector<uint32_t>{TILE_EMU_TID_X, TILE_EMU_CTAID_Y}));
  EXPECT_EQ(out[0], 100u + TILE_EMU_TID_X + 7);
  EXPECT_EQ(out[1], 100u + TILE_EMU_CTAID_Y);
  EXPECT_EQ(r.barriers, (std::vector<uint32_t>{0}));
  ASSERT_EQ(r.shfls.size(), 1u);
  EXPECT_EQ(r.shfls[0],
            (std::array<uint32_t, 5>{TILE_EMU_SHFL_BFLY, 0xffffffffu,
                                     bits(1.25f), 1, 31}));
  EXPECT_EQ(out[2], bits(3.75f));
  // The flush-to-zero form (tilec's exp2) has its own entry.
  EXPECT_EQ(r.math, (std::vector<uint32_t>{TILE_EMU_EX2_APPROX,
                                           TILE_EMU_EX2_APPROX_FTZ}));
  EXPECT_EQ(out[5], bits(1.75f));
  EXPECT_EQ(out[7], bits(1.75f));

  // cp.async with its source size, then the group calls.
  auto smem = reinterpret_cast<uint64_t>(r.smem.data());
  ASSERT_EQ(r.cpAsyncs.size(), 1u);
  EXPECT_EQ(r.cpAsyncs[0],
            (std::array<uint64_t, 4>{
                smem + 16, reinterpret_cast<uint64_t>(inPtr), 16, 12}));
  EXPECT_EQ(r.commits, 1);
  EXPECT_EQ(r.waits, (std::vector<uint32_t>{1}));
  // out[6] gets the word read back from shared memory, but the recorder
  // refuses that store: it goes to the sink and out[6] keeps its poison.
  EXPECT_EQ(out[6], 0xdeadbeefu);

  // ldmatrix results feed the mma's A and B words; C is x, s, 1, 2.
  ASSERT_EQ(r.ldmatrices.size(), 1u);
  EXPECT_EQ(r.ldmatrices[0], (std::array<uint64_t, 3>{4, 1, smem + 16}));
  ASSERT_EQ(r.mmas.size(), 1u);
  EXPECT_EQ(r.mmas[0],
            (std::array<uint32_t, 11>{
                TILE_EMU_MMA_M16N8K16_F32_F16, 0x3c003c00u, 0x3c003c01u,
                0x3c003c02u, 0x3c003c03u, 0x3c003c03u, 0x3c003c00u, bits(1.25f),
                bits(3.75f), bits(1.0f), bits(2.0f)}));
  EXPECT_EQ(out[3], bits(11.25f));
  EXPECT_EQ(out[4], bits(42.0f));

  // Accesses: the global load of `in`, eight global stores, the shared
  // load; never the stack slot. Each carries the alignment it declares (4
  // bytes: log2 2 in the flags' alignment bits).
  auto outAt = [&](int i) { return reinterpret_cast<uint64_t>(&out[i]); };
  constexpr uint64_t kAlign4 = 2u << TILE_EMU_ACCESS_ALIGN_SHIFT;
  std::vector<std::array<uint64_t, 3>> expected = {
      {reinterpret_cast<uint64_t>(inPtr), 4, TILE_EMU_GLOBAL | kAlign4},
  };
  // The optimizer may reorder independent stores; compare as sets.
  std::vector<std::array<uint64_t, 3>> rest = {
      {outAt(0), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(1), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(2), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(3), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(4), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(5), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(6), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {outAt(7), 4, TILE_EMU_GLOBAL | TILE_EMU_ACCESS_WRITE | kAlign4},
      {smem + 16, 4, TILE_EMU_SHARED | kAlign4},
  };
  ASSERT_EQ(r.accesses.size(), expected.size() + rest.size());
  EXPECT_EQ(r.accesses.front(), expected.front());
  for (const auto &access : rest)
    EXPECT_NE(std::find(r.accesses.begin(), r.accesses.end(), access),
              r.accesses.end())
        << "missing access at " << access[0] << " flags " << access[2];
}

TEST(EmulationRewrite, UnknownIntrinsicIsAnError) {
  std::string err = rewriteError(R"(
define ptx_kernel void @k() {
  call void @llvm.nvvm.nanosleep(i32 100)
  ret void
}
declare void @llvm.nvvm.nanosleep(i32)
)");
  EXPECT_NE(err.find("does not know the intrinsic llvm.nvvm.nanosleep"),
            std::string::npos)
      << err;
}

TEST(EmulationRewrite, WgmmaStatementsOfAnotherFormAreErrors) {
  // tf32 operands: not a form tilec emits.
  std::string err = rewriteError(R"(
define ptx_kernel void @k(i64 %a, i64 %b) {
  %d = call { float, float, float, float } asm sideeffect "{\0A.reg .pred p;\0Asetp.ne.b32 p, $10, 0;\0Awgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, $8, $9, p, 1, 1;\0A}", "=f,=f,=f,=f,0,1,2,3,l,l,r"(float 0.0, float 0.0, float 0.0, float 0.0, i64 %a, i64 %b, i32 1)
  ret void
}
)");
  EXPECT_NE(err.find("the NVIDIA emulator does not know"), std::string::npos)
      << err;
  // A wait statement with a count that is not a number.
  err = rewriteError(R"(
define ptx_kernel void @k(float %x) {
  %d = call { float, float } asm sideeffect "wgmma.wait_group.sync.aligned n;", "=f,=f,0,1"(float %x, float %x)
  ret void
}
)");
  EXPECT_NE(err.find("does not know 'wgmma.wait_group.sync.aligned n;'"),
            std::string::npos)
      << err;
}

TEST(EmulationRewrite, UnknownSpecialRegisterIsAnError) {
  std::string err = rewriteError(R"(
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.clock()
  store i32 %c, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.clock()
)");
  EXPECT_NE(err.find("special register %clock"), std::string::npos) << err;
}

TEST(EmulationRewrite, StaticSharedVariableIsAnError) {
  std::string err = rewriteError(R"(
@buf = internal addrspace(3) global [64 x i8] undef, align 16
define ptx_kernel void @k(i32 %i) {
  %p = getelementptr i8, ptr addrspace(3) @buf, i32 %i
  store i8 1, ptr addrspace(3) %p
  ret void
}
)");
  EXPECT_NE(err.find("static shared variable @buf"), std::string::npos) << err;
}

//===----------------------------------------------------------------------===//
// TMA copies and mbarriers (TmaAsm.h)
//===----------------------------------------------------------------------===//

constexpr const char *kTmaKernel = R"(
target triple = "nvptx64-nvidia-cuda"
@__tile_dynamic_smem = external addrspace(3) global [0 x i8], align 16

define ptx_kernel void @tma(ptr addrspace(1) %out, ptr byval([128 x i8]) align 64 %map) {
entry:
  %bar = ptrtoint ptr addrspace(3) @__tile_dynamic_smem to i32
  %dstp = getelementptr i8, ptr addrspace(3) @__tile_dynamic_smem, i32 128
  %dst = ptrtoint ptr addrspace(3) %dstp to i32
  %m = ptrtoint ptr %map to i64
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r"(i32 %bar, i32 1)
  call void asm sideeffect "fence.mbarrier_init.release.cluster;", ""()
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r"(i32 %bar, i32 8192)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r"(i32 %dst, i64 %m, i32 -8, i32 64, i32 %bar)
  %ok = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r"(i32 %bar, i32 1)
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "r"(i32 %bar)
  store i32 %ok, ptr addrspace(1) %out
  ret void
}
)";

/// What the TMA ops were called with: op (0 init, 1 arrive, 2 wait,
/// 3 inval, 4 load; 5 setmaxnreg, 6 counted barrier, 7 plain arrive),
/// then the operands.
struct TmaRecorder {
  std::vector<std::array<int64_t, 6>> calls;
  alignas(16) std::array<uint8_t, 256> smem{};
  std::array<uint8_t, 128> map{}; ///< The tensor map's bytes at the load.
};
TmaRecorder *tmaRec = nullptr;

TEST(EmulationRewrite, TmaStatementsCallTheTable) {
  auto jit =
      tile::test::rewriteAndJit(kTmaKernel, tile::nvidia::rewriteForEmulation);
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  auto bind = tile::test::lookup<void (*)(const tile_emu_ops *)>(
      **jit, TILE_EMU_BIND_SYMBOL);
  auto entry =
      tile::test::lookup<void (*)(void **)>(**jit, "__tile_emu_entry_tma");
  ASSERT_TRUE(bind && entry);

  tile_emu_ops ops = kOps;
  ops.shared_base = []() -> void * { return tmaRec->smem.data(); };
  ops.access = [](const void *, uint32_t, uint32_t) -> uint32_t { return 1; };
  ops.mbarrier_init = [](uint32_t bar, uint32_t count) {
    tmaRec->calls.push_back({0, bar, count});
  };
  ops.mbarrier_arrive_expect_tx = [](uint32_t bar, uint32_t bytes) {
    tmaRec->calls.push_back({1, bar, bytes});
  };
  ops.mbarrier_try_wait_parity = [](uint32_t bar, uint32_t parity) {
    tmaRec->calls.push_back({2, bar, parity});
    return 1u;
  };
  ops.mbarrier_inval = [](uint32_t bar) { tmaRec->calls.push_back({3, bar}); };
  ops.tma_load = [](uint32_t dst, const void *map, const int32_t *coords,
                    uint32_t rank, uint32_t bar) {
    tmaRec->calls.push_back({4, dst, coords[0], coords[1], rank, bar});
    std::memcpy(tmaRec->map.data(), map, 128);
  };
  TmaRecorder r;
  tmaRec = &r;
  bind(&ops);
  uint32_t out = 0;
  uint32_t *outPtr = &out;
  // The byval tensor map: its slot holds the 128 bytes themselves.
  alignas(64) std::array<uint8_t, 128> map;
  for (size_t i = 0; i < map.size(); ++i)
    map[i] = static_cast<uint8_t>(i * 7 + 1);
  void *args[] = {&outPtr, map.data()};
  entry(args);
  tmaRec = nullptr;

  auto bar = static_cast<int64_t>(
      static_cast<uint32_t>(reinterpret_cast<uintptr_t>(r.smem.data())));
  std::vector<std::array<int64_t, 6>> want = {{0, bar, 1},
                                              {1, bar, 8192},
                                              {4, bar + 128, -8, 64, 2, bar},
                                              {2, bar, 1},
                                              {3, bar}};
  EXPECT_EQ(r.calls, want);
  EXPECT_EQ(r.map, map);
  EXPECT_EQ(out, 1u);
}

/// A warp-specialized kernel's own statements: a named barrier with a
/// thread count, setmaxnreg both ways, a plain mbarrier arrival.
constexpr const char *kRolesKernel = R"(
target triple = "nvptx64-nvidia-cuda"
@__tile_dynamic_smem = external addrspace(3) global [0 x i8], align 16

declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)
declare void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32)
declare void @llvm.nvvm.setmaxnreg.dec.sync.aligned.u32(i32)

define ptx_kernel void @roles() {
entry:
  %bar = ptrtoint ptr addrspace(3) @__tile_dynamic_smem to i32
  call void @llvm.nvvm.setmaxnreg.dec.sync.aligned.u32(i32 40)
  call void @llvm.nvvm.setmaxnreg.inc.sync.aligned.u32(i32 232)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 1, i32 256)
  call void asm sideeffect "mbarrier.arrive.shared::cta.b64 _, [$0];", "r"(i32 %bar)
  ret void
}
)";

TEST(EmulationRewrite, WarpRoleStatementsCallTheTable) {
  auto jit = tile::test::rewriteAndJit(kRolesKernel,
                                       tile::nvidia::rewriteForEmulation);
  ASSERT_TRUE(bool(jit)) << llvm::toString(jit.takeError());
  auto bind = tile::test::lookup<void (*)(const tile_emu_ops *)>(
      **jit, TILE_EMU_BIND_SYMBOL);
  auto entry =
      tile::test::lookup<void (*)(void **)>(**jit, "__tile_emu_entry_roles");
  ASSERT_TRUE(bind && entry);
  tile_emu_ops ops = kOps;
  ops.shared_base = []() -> void * { return tmaRec->smem.data(); };
  ops.setmaxnreg = [](uint32_t count, uint32_t increase) {
    tmaRec->calls.push_back({5, count, increase});
  };
  ops.barrier_count = [](uint32_t id, uint32_t count) {
    tmaRec->calls.push_back({6, id, count});
  };
  ops.mbarrier_arrive = [](uint32_t bar) { tmaRec->calls.push_back({7, bar}); };
  TmaRecorder r;
  tmaRec = &r;
  bind(&ops);
  entry(nullptr);
  tmaRec = nullptr;
  auto bar = static_cast<int64_t>(
      static_cast<uint32_t>(reinterpret_cast<uintptr_t>(r.smem.data())));
  std::vector<std::array<int64_t, 6>> want = {
      {5, 40, 0}, {5, 232, 1}, {6, 1, 256}, {7, bar}};
  EXPECT_EQ(r.calls, want);
}

TEST(EmulationRewrite, OtherTmaStatementsAreErrors) {
  std::string err = rewriteError(R"(
define ptx_kernel void @k(i32 %bar) {
  call void asm sideeffect "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$0];", "r"(i32 %bar)
  ret void
}
)");
  EXPECT_NE(err.find("does not know 'mbarrier.arrive.release.cluster."
                     "shared::cluster.b64 _, [$0];'"),
            std::string::npos)
      << err;
  err = rewriteError(R"(
define ptx_kernel void @k(i32 %dst, i64 %map, i32 %bar) {
  call void asm sideeffect "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $2, $2}], [$3];", "r,l,r,r"(i32 %dst, i64 %map, i32 %bar, i32 %bar)
  ret void
}
)");
  EXPECT_NE(err.find("does not know 'cp.async.bulk.tensor.3d"),
            std::string::npos)
      << err;
}

} // namespace
