//===- BackendTest.cpp - Every target behind the Backend interface --------===//
//
// createBackend() gives each target kind its backend; on one small tile
// kernel each one prepares, lowers, translates and emits what its target
// needs (PTX and a cubin when ptxas exists, AMDGCN and an HSACO, host
// assembly and an ELF object), and the GPU backends build the emulator's
// module, which the host one refuses with a message.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Backend.h"
#include "tile/InitAll.h"
#include "tile/Target/Serialize.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

using namespace tile;

namespace {

const char *kVectorAdd = R"mlir(
func.func @vector_add(%x: !tile.ptr<f32> {tile.name = "x", tile.dtype = "f32", tile.shape = ["N"]},
                      %y: !tile.ptr<f32> {tile.name = "y", tile.dtype = "f32", tile.shape = ["N"]},
                      %z: !tile.ptr<f32> {tile.name = "z", tile.dtype = "f32", tile.shape = ["N"], tile.mut},
                      %N: i32 {tile.dim = "N"})
    attributes {tile.kernel, tile.warps = 4 : i32, tile.grid = ["cdiv(N, 1024)", "1", "1"]} {
  %vx = tile.view %x(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vy = tile.view %y(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %vz = tile.view %z(%N) : !tile.ptr<f32> -> !tile.view<?xf32>
  %pid = tile.program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %i0 = arith.muli %pid, %c1024 : i32
  %a = tile.load %vx[%i0] : !tile.view<?xf32> -> tensor<1024xf32>
  %b = tile.load %vy[%i0] : !tile.view<?xf32> -> tensor<1024xf32>
  %s = arith.addf %a, %b : tensor<1024xf32>
  tile.store %vz[%i0], %s : !tile.view<?xf32>, tensor<1024xf32>
  return
}
)mlir";

struct Lowered {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Parses kVectorAdd, runs \p backend's preparation and lowering.
Lowered prepareAndLower(target::Backend &backend) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  Lowered l{std::make_unique<mlir::MLIRContext>(registry), {}};
  l.context->loadAllAvailableDialects();
  l.module =
      mlir::parseSourceString<mlir::ModuleOp>(kVectorAdd, l.context.get());
  EXPECT_TRUE(l.module);
  mlir::PassManager pm(l.context.get());
  backend.buildPreparePipeline(pm);
  EXPECT_TRUE(mlir::succeeded(pm.run(*l.module)));
  llvm::Error err = backend.lowerToLLVM(*l.module, /*optimize=*/true);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
  return l;
}

TEST(Backend, EveryTargetNameHasOne) {
  for (llvm::StringRef name : TargetInfo::knownTargets()) {
    auto backend = target::createBackend(*TargetInfo::lookup(name));
    ASSERT_TRUE(backend);
    EXPECT_EQ(backend->target().name, name.str());
  }
}

TEST(Backend, NVIDIAEmitsPTXCubinAndTheEmulatorModule) {
  auto backend = target::createBackend(*TargetInfo::lookup("sm_90a"));
  Lowered l = prepareAndLower(*backend);
  // The kernel needs no dynamic shared memory, and says so.
  auto shared = backend->sharedBytes(*l.module);
  ASSERT_EQ(shared.count("vector_add"), 1u);
  EXPECT_EQ(shared["vector_add"], 0u);
  llvm::LLVMContext context;
  auto ir = backend->translate(*l.module, context, true);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  auto ptx = backend->emitAssembly(**ir);
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_FALSE(ptx->binary);
  EXPECT_NE(ptx->data.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(ptx->data.find(".entry vector_add"), std::string::npos);
  if (findTool("ptxas")) {
    auto cubin = backend->emitObject(**ir);
    ASSERT_TRUE(bool(cubin)) << llvm::toString(cubin.takeError());
    EXPECT_TRUE(cubin->binary);
    EXPECT_EQ(cubin->data.substr(0, 4), "\x7f"
                                        "ELF");
    EXPECT_NE(cubin->report.find("registers"), std::string::npos);
  }
  llvm::LLVMContext emuContext;
  auto emu = backend->buildEmulationModule(*l.module, emuContext);
  ASSERT_TRUE(bool(emu)) << llvm::toString(emu.takeError());
  EXPECT_TRUE((*emu)->getFunction("__tile_emu_entry_vector_add"));
}

TEST(Backend, AMDEmitsAMDGCNWithResourcesAndAnHSACO) {
  auto backend = target::createBackend(*TargetInfo::lookup("gfx942"));
  Lowered l = prepareAndLower(*backend);
  llvm::LLVMContext context;
  auto ir = backend->translate(*l.module, context, true);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  auto assembly = backend->emitAssembly(**ir);
  ASSERT_TRUE(bool(assembly)) << llvm::toString(assembly.takeError());
  EXPECT_NE(assembly->data.find(".amdhsa_kernel vector_add"),
            std::string::npos);
  EXPECT_NE(assembly->report.find("vector_add: VGPRs"), std::string::npos);
  // Emitting the assembly leaves the module whole for the object.
  auto hsaco = backend->emitObject(**ir);
  ASSERT_TRUE(bool(hsaco)) << llvm::toString(hsaco.takeError());
  EXPECT_TRUE(hsaco->binary);
  EXPECT_EQ(hsaco->data.substr(0, 4), "\x7f"
                                      "ELF");
  EXPECT_EQ(hsaco->report, assembly->report);
  llvm::LLVMContext emuContext;
  auto emu = backend->buildEmulationModule(*l.module, emuContext);
  ASSERT_TRUE(bool(emu)) << llvm::toString(emu.takeError());
}

TEST(Backend, HostEmitsAnObjectAndHasNoEmulator) {
  auto backend = target::createBackend(*TargetInfo::lookup("host"));
  Lowered l = prepareAndLower(*backend);
  EXPECT_TRUE(backend->sharedBytes(*l.module).empty());
  llvm::LLVMContext context;
  auto ir = backend->translate(*l.module, context, true);
  ASSERT_TRUE(bool(ir)) << llvm::toString(ir.takeError());
  auto object = backend->emitObject(**ir);
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  EXPECT_EQ(object->data.substr(0, 4), "\x7f"
                                       "ELF");
  llvm::LLVMContext emuContext;
  auto emu = backend->buildEmulationModule(*l.module, emuContext);
  ASSERT_FALSE(bool(emu));
  EXPECT_EQ(llvm::toString(emu.takeError()),
            "--emulate needs a GPU target (sm_*, gfx*), not host");
}

} // namespace
