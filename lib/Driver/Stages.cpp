//===- Stages.cpp - From the tile dialect to every output stage -----------===//
//
// Part of tilec. What each --emit stage means: the tile passes, then the
// target's Backend (include/tile/Target/Backend.h) from the LLVM dialect to
// optimized IR, assembly and code objects.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/Stages.h"

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/Backend.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// \p out with \p module's LLVM IR as its text (--emit=llvm).
static StageOutput withIR(StageOutput out, const llvm::Module &module) {
  llvm::raw_string_ostream os(out.data);
  module.print(os, nullptr);
  return out;
}

/// The CPU emulator's LLVM IR (Stage::LLVM) or code object (Stage::Obj: a
/// host shared object) of a lowered GPU module.
static llvm::Expected<StageOutput> compileEmulator(target::Backend &backend,
                                                   mlir::ModuleOp module,
                                                   Stage stage,
                                                   StageOutput out) {
  if (stage == Stage::Asm)
    return makeError("the GPU emulators have no assembly stage: use "
                     "--emit=llvm or --emit=obj with --emulate");
  llvm::LLVMContext context;
  auto llvmModule = backend.buildEmulationModule(module, context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (stage == Stage::LLVM)
    return withIR(std::move(out), **llvmModule);
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-emu", "so", path))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover remove(path);
  // The module is the GPU pipeline's optimized IR with its target
  // operations turned into calls to the emulator; it is compiled for the CPU
  // as it is, with LLVM's fast code generator. Optimizing it again (O2 and
  // the optimizing code generator) took 45-55 % of a small kernel's check
  // (the cast sweep's kernels: 3.2 -> 1.5 s) and made no emulation faster:
  // an emulated program's time is in the runtime its accesses and
  // collectives call (gemm_f16 at 512^3 on sm_90a 6.7 s either way,
  // attention_fwd on gfx942 8.3 -> 5.9 s).
  if (llvm::Error err = host::emitSharedObjectFromLLVM(**llvmModule, path,
                                                       /*optimize=*/false))
    return std::move(err);
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!bytes)
    return makeError("cannot read " + path + ": " + bytes.getError().message());
  out.data = (*bytes)->getBuffer().str();
  out.binary = true;
  return out;
}

/// The tensor maps of each lowered kernel (`tile.tensor_maps`, which the
/// GPU lowering keeps on the function).
static std::map<std::string, std::vector<TensorMapDesc>>
tensorMapsOf(mlir::ModuleOp module) {
  std::map<std::string, std::vector<TensorMapDesc>> maps;
  module.walk([&](mlir::FunctionOpInterface func) {
    auto list = func->getAttrOfType<mlir::ArrayAttr>(
        tile::TileDialect::kTensorMapsAttr);
    if (!list)
      return;
    std::vector<TensorMapDesc> &out = maps[func.getName().str()];
    for (mlir::Attribute entry : list) {
      auto dict = mlir::cast<mlir::DictionaryAttr>(entry);
      TensorMapDesc map;
      map.param = dict.getAs<mlir::IntegerAttr>("param").getInt();
      for (int64_t extent :
           dict.getAs<mlir::DenseI64ArrayAttr>("box").asArrayRef())
        map.box.push_back(uint32_t(extent));
      map.swizzleBytes = dict.getAs<mlir::IntegerAttr>("swizzle").getInt();
      out.push_back(std::move(map));
    }
  });
  return maps;
}

/// The threads per block of each kernel with producer warps
/// (tile.producer_warps, which tile-pipeline adds to its tile.warps).
static std::map<std::string, uint32_t> threadsPerBlockOf(mlir::ModuleOp module,
                                                         unsigned warpSize) {
  std::map<std::string, uint32_t> threads;
  module.walk([&](mlir::func::FuncOp func) {
    auto warps =
        func->getAttrOfType<mlir::IntegerAttr>(tile::TileDialect::kWarpsAttr);
    auto producers = func->getAttrOfType<mlir::IntegerAttr>(
        tile::TileDialect::kProducerWarpsAttr);
    if (warps && producers)
      threads[func.getSymName().str()] =
          uint32_t((warps.getInt() + producers.getInt()) * warpSize);
  });
  return threads;
}

/// From a module the tile passes prepared to \p stage (LLVM, Asm or Obj)
/// through \p backend: the LLVM dialect, optimized LLVM IR (what
/// --emit=llvm prints is what the assembly is made from), assembly or a
/// code object.
static llvm::Expected<StageOutput>
compileLowered(target::Backend &backend, mlir::ModuleOp module, Stage stage,
               const PipelineOptions &options) {
  if (options.emulate && backend.target().isHost())
    return makeError("--emulate needs a GPU target (sm_*, gfx*), not host");
  std::map<std::string, uint32_t> threads =
      threadsPerBlockOf(module, backend.target().warpSize);
  std::set<std::string> persistent;
  std::map<std::string, std::string> fallbacks;
  bool dependentLaunch =
      module->hasAttr(tile::TileDialect::kDependentLaunchAttr) &&
      backend.target().hasDependentLaunch();
  if (module->hasAttr(tile::TileDialect::kDependentLaunchAttr) &&
      !dependentLaunch)
    module.emitWarning() << "dependent launch needs NVIDIA sm_90 or later; "
                            "the kernels for "
                         << backend.target().name << " are launched as usual";
  module.walk([&](mlir::func::FuncOp func) {
    if (func->hasAttr(tile::TileDialect::kPersistentAttr))
      persistent.insert(func.getSymName().str());
    if (auto fallback = func->getAttrOfType<mlir::FlatSymbolRefAttr>(
            tile::TileDialect::kFallbackAttr))
      fallbacks[func.getSymName().str()] = fallback.getValue().str();
  });
  if (llvm::Error err = backend.lowerToLLVM(module, options.optimize))
    return std::move(err);
  StageOutput out;
  out.threadsPerBlock = std::move(threads);
  out.persistent = std::move(persistent);
  out.fallbacks = std::move(fallbacks);
  out.dependentLaunch = dependentLaunch;
  out.sharedBytes = backend.sharedBytes(module);
  out.tensorMaps = tensorMapsOf(module);
  if (options.emulate)
    return compileEmulator(backend, module, stage, std::move(out));
  llvm::LLVMContext context;
  auto llvmModule = backend.translate(module, context, options.optimize);
  if (!llvmModule)
    return llvmModule.takeError();
  if (stage == Stage::LLVM)
    return withIR(std::move(out), **llvmModule);
  auto emitted = stage == Stage::Asm ? backend.emitAssembly(**llvmModule)
                                     : backend.emitObject(**llvmModule);
  if (emitted && stage == Stage::Obj && options.loadable)
    emitted = backend.link(std::move(*emitted));
  if (!emitted)
    return emitted.takeError();
  out.data = std::move(emitted->data);
  out.binary = emitted->binary;
  out.report = std::move(emitted->report);
  return out;
}

llvm::Expected<StageOutput>
driver::compileToStage(mlir::ModuleOp module, const TargetInfo &target,
                       Stage stage, mlir::PassManager &pm,
                       const PipelineOptions &options) {
  std::unique_ptr<target::Backend> backend = target::createBackend(target);
  // The tile passes run in the caller's pass manager so that its IR
  // printing and timing options apply.
  if (stage != Stage::MLIR && options.optimize) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  if (stage != Stage::MLIR)
    backend->buildPreparePipeline(pm);
  if (llvm::Error err = runPasses(pm, module))
    return std::move(err);
  if (stage == Stage::MLIR || stage == Stage::Tile)
    return StageOutput{printModule(module), false, "", {}};
  return compileLowered(*backend, module, stage, options);
}
