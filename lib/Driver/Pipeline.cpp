//===- Pipeline.cpp - From the tile dialect to every output stage ---------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/Pipeline.h"

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Codegen/Common/Serialize.h"
#include "tile/Codegen/Common/TargetInfo.h"
#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;
using namespace tile::driver;

llvm::StringRef driver::stageName(Stage stage) {
  switch (stage) {
  case Stage::MLIR:
    return "mlir";
  case Stage::Tile:
    return "tile";
  case Stage::LLVM:
    return "llvm";
  case Stage::Asm:
    return "asm";
  case Stage::Obj:
    return "obj";
  }
  llvm_unreachable("unknown stage");
}

std::optional<Stage> driver::parseStage(llvm::StringRef name) {
  for (Stage s :
       {Stage::MLIR, Stage::Tile, Stage::LLVM, Stage::Asm, Stage::Obj})
    if (stageName(s) == name)
      return s;
  return std::nullopt;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Runs \p pm on \p module. Its diagnostics go to the context's handler
/// (tilec prints them with the source line; the JIT collects them).
static llvm::Error runPasses(mlir::PassManager &pm, mlir::ModuleOp module) {
  if (mlir::failed(pm.run(module)))
    return makeError("compilation failed in the tile passes");
  return llvm::Error::success();
}

static std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// Host: tile → LLVM through lib/Codegen/Host, then LLVM's own backend.
static llvm::Expected<StageOutput> compileHost(mlir::ModuleOp module,
                                               const TargetInfo &target,
                                               Stage stage,
                                               const PipelineOptions &options) {
  host::HostCompileOptions hostOptions;
  hostOptions.optimize = options.optimize;
  if (llvm::Error err = host::lowerToHostLLVM(module, hostOptions))
    return std::move(err);
  llvm::LLVMContext context;
  auto llvmModule = host::translateToLLVMIR(module, context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (llvm::Error err =
          optimizeModule(**llvmModule, target, options.optimize ? 3 : 0))
    return std::move(err);
  StageOutput out;
  switch (stage) {
  case Stage::LLVM: {
    llvm::raw_string_ostream os(out.data);
    (*llvmModule)->print(os, nullptr);
    return out;
  }
  case Stage::Asm: {
    auto text = emitAssembly(**llvmModule, target);
    if (!text)
      return text.takeError();
    out.data = std::move(*text);
    return out;
  }
  case Stage::Obj: {
    auto object = emitRelocatable(**llvmModule, target);
    if (!object)
      return object.takeError();
    out.data = std::move(*object);
    out.binary = true;
    return out;
  }
  default:
    llvm_unreachable("handled by the caller");
  }
}

static llvm::Expected<std::string> printLLVMIR(mlir::ModuleOp module,
                                               const TargetInfo &target);

/// The CPU emulator's LLVM IR (Stage::LLVM) or code object (Stage::Obj: a
/// host shared object) from the module \p build makes (a vendor's
/// buildEmulationModule).
template <typename Build>
static llvm::Expected<StageOutput> compileEmulator(Stage stage, StageOutput out,
                                                   Build build) {
  if (stage == Stage::Asm)
    return makeError("the GPU emulators have no assembly stage: use "
                     "--emit=llvm or --emit=obj with --emulate");
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> llvmModule = build(context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (stage == Stage::LLVM) {
    llvm::raw_string_ostream os(out.data);
    (*llvmModule)->print(os, nullptr);
    return out;
  }
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-emu", "so", path))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover remove(path);
  if (llvm::Error err = host::emitSharedObjectFromLLVM(**llvmModule, path))
    return std::move(err);
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!bytes)
    return makeError("cannot read " + path + ": " + bytes.getError().message());
  out.data = (*bytes)->getBuffer().str();
  out.binary = true;
  return out;
}

/// NVIDIA: the kernels are already prepared (layouts, shared memory); lower
/// them to NVVM, then LLVM's NVPTX backend and ptxas (with `emulate`: the
/// CPU emulator's IR or code object instead).
static llvm::Expected<StageOutput>
compileNVIDIA(mlir::ModuleOp module, const TargetInfo &target, Stage stage,
              const PipelineOptions &options) {
  if (mlir::failed(nvidia::lowerToNVVM(module, target)))
    return makeError("compilation failed in the NVVM lowering");
  StageOutput out;
  module.walk([&](mlir::LLVM::LLVMFuncOp func) {
    if (auto bytes = func->getAttrOfType<mlir::IntegerAttr>(
            gpu::kDynamicSharedBytesAttr))
      out.sharedBytes[func.getName().str()] = bytes.getInt();
  });
  if (options.emulate)
    return compileEmulator(stage, std::move(out), [&](llvm::LLVMContext &c) {
      return nvidia::buildEmulationModule(module, target, c);
    });
  if (stage == Stage::LLVM) {
    auto text = printLLVMIR(module, target);
    if (!text)
      return text.takeError();
    out.data = std::move(*text);
    return out;
  }
  auto ptx = nvidia::translateLLVMToPTX(module, target);
  if (!ptx)
    return ptx.takeError();
  if (stage == Stage::Asm) {
    out.data = std::move(*ptx);
    return out;
  }
  auto cubin = assemblePTX(*ptx, target);
  if (!cubin)
    return cubin.takeError();
  out.data = std::move(cubin->cubin);
  out.report = std::move(cubin->report);
  out.binary = true;
  return out;
}

/// Translates a module in the LLVM dialect (with NVVM or ROCDL ops) to
/// optimized LLVM IR text.
static llvm::Expected<std::string> printLLVMIR(mlir::ModuleOp module,
                                               const TargetInfo &target) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tile");
  if (!llvmModule)
    return makeError("cannot translate the module to LLVM IR");
  if (llvm::Error err = optimizeModule(*llvmModule, target, 3))
    return std::move(err);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvmModule->print(os, nullptr);
  return text;
}

/// AMD: lower to ROCDL, then the AMDGPU backend and ld.lld. LDS is static
/// in the code object, so kernels launch with no dynamic shared memory.
static llvm::Expected<StageOutput> compileAMD(mlir::ModuleOp module,
                                              const TargetInfo &target,
                                              Stage stage,
                                              const PipelineOptions &options) {
  if (mlir::failed(amd::lowerToROCDL(module, target)))
    return makeError("compilation failed in the ROCDL lowering");
  StageOutput out;
  module.walk([&](mlir::LLVM::LLVMFuncOp func) {
    if (func->hasAttr("rocdl.kernel"))
      out.sharedBytes[func.getName().str()] = 0;
  });
  if (options.emulate)
    return compileEmulator(stage, std::move(out), [&](llvm::LLVMContext &c) {
      return amd::buildEmulationModule(module, target, c);
    });
  if (stage == Stage::LLVM) {
    auto text = printLLVMIR(module, target);
    if (!text)
      return text.takeError();
    out.data = std::move(*text);
    return out;
  }
  auto hsaco = amd::compileLLVMToHSACO(module, target);
  if (!hsaco)
    return hsaco.takeError();
  out.report = amd::formatResources(hsaco->kernels);
  if (stage == Stage::Asm) {
    out.data = std::move(hsaco->assembly);
    return out;
  }
  out.data = std::move(hsaco->hsaco);
  out.binary = true;
  return out;
}

llvm::Expected<StageOutput>
driver::compileToStage(mlir::ModuleOp module, const TargetInfo &target,
                       Stage stage, mlir::PassManager &pm,
                       const PipelineOptions &options) {
  // The tile passes run in the caller's pass manager so that its IR
  // printing and timing options apply.
  if (stage != Stage::MLIR && options.optimize) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  if (!target.isHost() && stage != Stage::MLIR)
    mlir::tile::buildGpuPreparePipeline(pm, target.name);
  if (llvm::Error err = runPasses(pm, module))
    return std::move(err);
  if (stage == Stage::MLIR || stage == Stage::Tile)
    return StageOutput{printModule(module), false, "", {}};
  if (target.isHost()) {
    if (options.emulate)
      return makeError("--emulate needs a GPU target (sm_*, gfx*), not host");
    return compileHost(module, target, stage, options);
  }
  if (target.isNVIDIA())
    return compileNVIDIA(module, target, stage, options);
  return compileAMD(module, target, stage, options);
}
