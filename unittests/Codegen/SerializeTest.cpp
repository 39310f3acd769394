//===- SerializeTest.cpp - LLVM IR to assembly and code objects -----------===//
//
// Each backend turns a small kernel into assembly and a code object; the host
// object is linked into a shared object, loaded and run.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <random>

using namespace tile;

namespace {

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &ctx,
                                    llvm::StringRef ir) {
  llvm::SMDiagnostic diag;
  auto module = llvm::parseAssemblyString(ir, diag, ctx);
  if (!module) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("test", os);
    ADD_FAILURE() << msg;
  }
  return module;
}

/// Parses an ELF image and returns the names of its defined symbols.
/// What a test needs to know of an ELF image.
struct ElfSummary {
  unsigned machine = 0;
  bool shared = false;
  std::vector<std::string> symbols;

  bool has(llvm::StringRef name) const {
    return std::find(symbols.begin(), symbols.end(), name.str()) !=
           symbols.end();
  }
};

ElfSummary readElf(llvm::StringRef image) {
  ElfSummary summary;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(image, "image", false);
  auto object = llvm::object::ObjectFile::createObjectFile(*buffer);
  EXPECT_TRUE(static_cast<bool>(object));
  if (!object) {
    llvm::consumeError(object.takeError());
    return summary;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  EXPECT_NE(elf, nullptr);
  summary.machine = elf ? elf->getEMachine() : 0;
  summary.shared = elf && elf->getEType() == llvm::ELF::ET_DYN;
  for (const auto &sym : (*object)->symbols()) {
    auto name = sym.getName();
    if (name)
      summary.symbols.push_back(name->str());
    else
      llvm::consumeError(name.takeError());
  }
  return summary;
}

const char *kNvptxKernel = R"(
define ptx_kernel void @add_one(ptr addrspace(1) %p) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = getelementptr float, ptr addrspace(1) %p, i32 %tid
  %v = load float, ptr addrspace(1) %g
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
)";

const char *kAmdgpuKernel = R"(
define amdgpu_kernel void @add_one(ptr addrspace(1) %p) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr float, ptr addrspace(1) %p, i32 %tid
  %v = load float, ptr addrspace(1) %g
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
)";

const char *kHostFunction = R"(
define void @scale_add(ptr %x, ptr %y, float %a, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i32 %i
  %py = getelementptr float, ptr %y, i32 %i
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr %py
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";

TEST(Serialize, PTXForEveryNVIDIATarget) {
  for (const char *name : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) {
    llvm::LLVMContext ctx;
    auto module = parse(ctx, kNvptxKernel);
    ASSERT_TRUE(module);
    TargetInfo target = *TargetInfo::lookup(name);
    ASSERT_FALSE(static_cast<bool>(optimizeModule(*module, target, 3)));
    auto ptx = emitAssembly(*module, target);
    ASSERT_TRUE(static_cast<bool>(ptx)) << llvm::toString(ptx.takeError());
    EXPECT_NE(ptx->find(".target " + std::string(name)), std::string::npos)
        << *ptx;
    EXPECT_NE(ptx->find(".entry add_one"), std::string::npos) << *ptx;
    EXPECT_NE(ptx->find("ld.global.b32"), std::string::npos) << *ptx;
    EXPECT_NE(ptx->find("add.rn.f32"), std::string::npos) << *ptx;
  }
}

TEST(Serialize, CubinThroughPtxas) {
  if (!findTool("ptxas"))
    GTEST_SKIP() << "ptxas not installed: cubin emission not checked";
  llvm::LLVMContext ctx;
  auto module = parse(ctx, kNvptxKernel);
  ASSERT_TRUE(module);
  TargetInfo target = *TargetInfo::lookup("sm_90a");
  auto ptx = emitAssembly(*module, target);
  ASSERT_TRUE(static_cast<bool>(ptx)) << llvm::toString(ptx.takeError());
  auto cubin = assemblePTX(*ptx, target);
  ASSERT_TRUE(static_cast<bool>(cubin)) << llvm::toString(cubin.takeError());
  ElfSummary elf = readElf(cubin->cubin);
  EXPECT_EQ(elf.machine, llvm::ELF::EM_CUDA);
  EXPECT_TRUE(elf.has("add_one"));
  EXPECT_NE(cubin->report.find("Used"), std::string::npos) << cubin->report;
  EXPECT_NE(cubin->report.find("registers"), std::string::npos);
}

TEST(Serialize, PtxasRejectsBadPTXWithItsMessage) {
  if (!findTool("ptxas"))
    GTEST_SKIP() << "ptxas not installed";
  auto cubin = assemblePTX("this is not ptx", *TargetInfo::lookup("sm_80"));
  ASSERT_FALSE(static_cast<bool>(cubin));
  std::string message = llvm::toString(cubin.takeError());
  EXPECT_NE(message.find("ptxas failed"), std::string::npos) << message;
}

TEST(Serialize, HsacoForGfx942AndGfx950) {
  if (!findTool("ld.lld"))
    GTEST_SKIP() << "ld.lld not installed";
  for (const char *name : {"gfx942", "gfx950"}) {
    llvm::LLVMContext ctx;
    auto module = parse(ctx, kAmdgpuKernel);
    ASSERT_TRUE(module);
    TargetInfo target = *TargetInfo::lookup(name);
    auto assembly = emitAssembly(*module, target);
    ASSERT_TRUE(static_cast<bool>(assembly))
        << llvm::toString(assembly.takeError());
    EXPECT_NE(assembly->find(".amdgcn_target \"amdgcn-amd-amdhsa--" +
                             std::string(name)),
              std::string::npos)
        << *assembly;
    EXPECT_NE(assembly->find("global_load_dword"), std::string::npos);
    auto module2 = parse(ctx, kAmdgpuKernel);
    auto object = emitRelocatable(*module2, target);
    ASSERT_TRUE(static_cast<bool>(object))
        << llvm::toString(object.takeError());
    auto hsaco = linkSharedObject(*object, target);
    ASSERT_TRUE(static_cast<bool>(hsaco)) << llvm::toString(hsaco.takeError());
    ElfSummary elf = readElf(*hsaco);
    EXPECT_EQ(elf.machine, llvm::ELF::EM_AMDGPU);
    EXPECT_TRUE(elf.shared);
    EXPECT_TRUE(elf.has("add_one"));
    EXPECT_TRUE(elf.has("add_one.kd")); // the kernel descriptor
    EXPECT_NE(hsaco->find("amdhsa.kernels"), std::string::npos);
  }
}

TEST(Serialize, NVIDIAObjectsNeedPtxas) {
  llvm::LLVMContext ctx;
  auto module = parse(ctx, kNvptxKernel);
  auto object = emitRelocatable(*module, *TargetInfo::lookup("sm_90a"));
  ASSERT_FALSE(static_cast<bool>(object));
  EXPECT_NE(llvm::toString(object.takeError()).find("ptxas"),
            std::string::npos);
}

TEST(Serialize, HostSharedObjectLoadsAndRuns) {
  if (!findTool("ld.lld"))
    GTEST_SKIP() << "ld.lld not installed";
  llvm::LLVMContext ctx;
  auto module = parse(ctx, kHostFunction);
  ASSERT_TRUE(module);
  TargetInfo host = *TargetInfo::lookup("host");
  ASSERT_FALSE(static_cast<bool>(optimizeModule(*module, host, 3)));
  auto object = emitRelocatable(*module, host);
  ASSERT_TRUE(static_cast<bool>(object)) << llvm::toString(object.takeError());
  auto so = linkSharedObject(*object, host);
  ASSERT_TRUE(static_cast<bool>(so)) << llvm::toString(so.takeError());

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("serialize", "so", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << *so;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  using Fn = void (*)(float *, float *, float, int);
  auto fn = reinterpret_cast<Fn>(dlsym(handle, "scale_add"));
  ASSERT_NE(fn, nullptr);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist;
  const int n = 1003;
  std::vector<float> x(n), y(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
    // Two float roundings, as the kernel does (no contraction into an FMA).
    volatile float product = 2.5f * x[i];
    expected[i] = product + y[i];
  }
  fn(x.data(), y.data(), 2.5f, n);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(y[i], expected[i]) << i;
  dlclose(handle);
  llvm::sys::fs::remove(path);
}

} // namespace
