//===- LaneMaskRematTest.cpp - Lane masks recomputed inside loops ---------===//
//
// rematerializeLaneMasks on hand-written LLVM IR: a loop that branches on
// masks computed before it (as LICM leaves them) gets its own copies of
// the compares, built from the bases passed through one asm barrier per
// loop; the originals are erased; masks computed in the loop, uses outside
// loops and non-mask i1 values are left alone. Then the AMDGPU backend
// compiles a loop with 64 hoisted element masks, which spills SGPRs
// without the pass, and does not with it.
//
//===----------------------------------------------------------------------===//

#include "LaneMaskRemat.h"

#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <string>

using namespace llvm;

namespace {

std::unique_ptr<Module> parse(LLVMContext &context, const std::string &ir) {
  SMDiagnostic error;
  std::unique_ptr<Module> module = parseAssemblyString(ir, error, context);
  if (!module)
    ADD_FAILURE() << error.getMessage().str();
  return module;
}

/// Compares (icmp) per block of \p function.
std::map<std::string, int> comparesPerBlock(Function &function) {
  std::map<std::string, int> out;
  for (BasicBlock &block : function)
    for (Instruction &inst : block)
      if (isa<ICmpInst>(inst))
        ++out[block.getName().str()];
  return out;
}

int barriers(Function &function) {
  int n = 0;
  for (BasicBlock &block : function)
    for (Instruction &inst : block)
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (auto *asmCall = dyn_cast<InlineAsm>(call->getCalledOperand()))
          n += asmCall->hasSideEffects() && asmCall->getAsmString().empty();
  return n;
}

// %col + 1 < %n and %col < %n are fixed for the loop; %k < %n changes.
// %col is the work-item id (an instruction: it gets the barrier).
const char *kLoop = R"(
declare i32 @llvm.amdgcn.workitem.id.x()
define void @f(ptr addrspace(1) %p, i32 %n, i32 %trip) {
entry:
  %col = call i32 @llvm.amdgcn.workitem.id.x()
  %c1 = add i32 %col, 1
  %ok0 = icmp ult i32 %col, %n
  %ok1 = icmp ult i32 %c1, %n
  %both = and i1 %ok0, %ok1
  %outside = icmp eq i32 %col, 7
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %latch ]
  %inloop = icmp ult i32 %k, %n
  %m = and i1 %inloop, %both
  br i1 %m, label %then, label %latch
then:
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %k
  store i32 %k, ptr addrspace(1) %q
  br i1 %ok1, label %then2, label %latch
then2:
  store i32 %col, ptr addrspace(1) %q
  br label %latch
latch:
  %k1 = add i32 %k, 1
  %done = icmp eq i32 %k1, %trip
  br i1 %done, label %exit, label %loop
exit:
  %z = zext i1 %outside to i32
  store i32 %z, ptr addrspace(1) %p
  ret void
}
)";

TEST(LaneMaskRemat, RecomputesHoistedMasksInTheLoop) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context, kLoop);
  ASSERT_TRUE(module);
  Function &f = *module->getFunction("f");
  // %both in %loop, %ok1 in %then.
  EXPECT_EQ(tile::amd::rematerializeLaneMasks(f), 2u);
  EXPECT_FALSE(verifyFunction(f, &errs()));
  std::map<std::string, int> compares = comparesPerBlock(f);
  // entry keeps only %outside (used after the loop, not in it).
  EXPECT_EQ(compares["entry"], 1);
  // loop: %inloop, %done is in latch; the copies of %ok0 and %ok1.
  EXPECT_EQ(compares["loop"], 3);
  EXPECT_EQ(compares["then"], 1);
  EXPECT_EQ(compares["latch"], 1);
  // One barrier for %col (the base of %c1 = %col + 1 too, which is
  // recomputed in the loop); %n is an argument, used as it is.
  EXPECT_EQ(barriers(f), 1);
  for (Instruction &inst : f.getEntryBlock())
    EXPECT_NE(inst.getName(), "ok1") << "the hoisted mask is left over";
  // Nothing to do the second time.
  EXPECT_EQ(tile::amd::rematerializeLaneMasks(f), 0u);
}

TEST(LaneMaskRemat, NoLoopNoChange) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context, R"(
define i32 @g(i32 %a, i32 %b) {
  %c = icmp ult i32 %a, %b
  %r = select i1 %c, i32 %a, i32 %b
  ret i32 %r
}
)");
  ASSERT_TRUE(module);
  EXPECT_EQ(tile::amd::rematerializeLaneMasks(*module), 0u);
  EXPECT_EQ(barriers(*module->getFunction("g")), 0);
}

/// A gfx942 kernel whose loop stores 64 elements, each guarded by its own
/// column mask computed before the loop (what LICM makes of per-element
/// bounds checks) and-ed with the loop's row check.
std::string manyMasksKernel() {
  const int kMasks = 64;
  std::string ir = R"(
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %n, i32 %m, i32 %trip) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %col = shl i32 %tid, 6
)";
  for (int j = 0; j < kMasks; ++j) {
    std::string s = std::to_string(j);
    ir += "  %c" + s + " = or i32 %col, " + s + "\n  %ok" + s +
          " = icmp ult i32 %c" + s + ", %n\n";
  }
  ir += "  br label %loop\nloop:\n  %k = phi i32 [ 0, %entry ], [ %k1, %step" +
        std::to_string(kMasks - 1) +
        " ]\n  %row = add i32 %k, %tid\n  %rok = icmp ult i32 %row, %m\n"
        "  br label %test0\n";
  for (int j = 0; j < kMasks; ++j) {
    std::string s = std::to_string(j);
    ir += "test" + s + ":\n  %g" + s + " = and i1 %ok" + s +
          ", %rok\n  br i1 %g" + s + ", label %store" + s + ", label %step" +
          s + "\nstore" + s + ":\n  %a" + s + " = add i32 %c" + s +
          ", %k\n  %q" + s +
          " = getelementptr i32, ptr addrspace(1) %p, i32 %a" + s +
          "\n  store volatile i32 %k, ptr addrspace(1) %q" + s +
          "\n  br label %step" + s + "\nstep" + s + ":\n";
    if (j + 1 < kMasks)
      ir += "  br label %test" + std::to_string(j + 1) + "\n";
  }
  ir += "  %k1 = add i32 %k, 1\n  %done = icmp eq i32 %k1, %trip\n"
        "  br i1 %done, label %exit, label %loop\nexit:\n  ret void\n}\n"
        "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"256,256\" }\n";
  return ir;
}

unsigned sgprSpills(const std::string &assembly) {
  size_t at = assembly.find(".sgpr_spill_count:");
  if (at == std::string::npos)
    return ~0u;
  return std::stoul(assembly.substr(at + 18));
}

TEST(LaneMaskRemat, BackendKeepsSgprsWithThePass) {
  std::optional<tile::TargetInfo> gfx942 = tile::TargetInfo::lookup("gfx942");
  ASSERT_TRUE(gfx942);
  unsigned spills[2];
  for (int withPass = 0; withPass < 2; ++withPass) {
    LLVMContext context;
    std::unique_ptr<Module> module = parse(context, manyMasksKernel());
    ASSERT_TRUE(module);
    if (withPass)
      EXPECT_GT(tile::amd::rematerializeLaneMasks(*module), 0u);
    ASSERT_FALSE(verifyModule(*module, &errs()));
    Expected<std::string> assembly = tile::emitAssembly(*module, *gfx942);
    ASSERT_TRUE(static_cast<bool>(assembly)) << toString(assembly.takeError());
    spills[withPass] = sgprSpills(*assembly);
    ASSERT_NE(spills[withPass], ~0u) << "no .sgpr_spill_count";
  }
  // 64 masks alive across the loop are 128 SGPRs on wave64: the baseline
  // spills (otherwise this test would prove nothing), the pass does not.
  EXPECT_GT(spills[0], 0u);
  EXPECT_EQ(spills[1], 0u);
}

} // namespace
