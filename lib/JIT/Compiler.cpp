//===- Compiler.cpp - Compile .tile source to code objects at run time ----===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"

#include "KernelMetadata.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Driver/Stages.h"
#include "tile/Frontend/Frontend.h"
#include "tile/InitAll.h"
#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;
using namespace tile::jit;

static rt::Error fromLLVM(llvm::Error err) {
  if (!err)
    return rt::Error::success();
  return rt::makeError(llvm::toString(std::move(err)));
}

/// Whether NVIDIA code is handed to the driver as PTX (its JIT assembles
/// it at load time) because ptxas is not installed.
static bool ptxForTheDriver(const TargetInfo &target,
                            const CompileOptions &options) {
  return target.isNVIDIA() && !options.emulate && !findTool("ptxas");
}

/// The driver's pipeline (lib/Driver, the target's Backend) to the code
/// object the runtime loads: a host shared object, a cubin or an HSACO (PTX
/// without ptxas), an emulator's shared object; the dynamic shared memory
/// each kernel needs goes into its launch configuration.
/// "file:line:col: " of a diagnostic's location, or nothing.
static std::string sourceLocation(mlir::Location loc) {
  auto file = loc->findInstanceOf<mlir::FileLineColLoc>();
  if (!file)
    return "";
  return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
          ":" + std::to_string(file.getColumn()) + ": ");
}

/// \p launch (the front end's: its warps' threads) with what the
/// compilation \p out says of \p entry: its dynamic shared memory and, with
/// producer warps, its threads.
static void applyLaunch(const driver::StageOutput &out,
                        const std::string &entry, rt::LaunchConfig &launch) {
  auto shared = out.sharedBytes.find(entry);
  launch.SharedBytes = shared == out.sharedBytes.end() ? 0 : shared->second;
  auto threads = out.threadsPerBlock.find(entry);
  if (threads != out.threadsPerBlock.end())
    launch.ThreadsPerBlock = threads->second;
  launch.DependentLaunch = out.dependentLaunch;
}

/// The kernel's copy without TMA copies, \p entry (tile-clone-fallbacks),
/// as the runtime launches it; \p frontEnd is the kernel's launch before
/// applyLaunch.
static rt::KernelInfo::FallbackInfo fallbackInfo(const driver::StageOutput &out,
                                                 const std::string &entry,
                                                 rt::LaunchConfig frontEnd) {
  rt::KernelInfo::FallbackInfo fallback;
  fallback.Entry = entry;
  fallback.Launch = frontEnd;
  applyLaunch(out, entry, fallback.Launch);
  fallback.Persistent = out.persistent.count(entry) != 0;
  return fallback;
}

static rt::Expected<std::vector<uint8_t>>
buildObject(mlir::ModuleOp module, const TargetInfo &target,
            const CompileOptions &options, std::vector<rt::KernelInfo> &infos) {
  std::string diagnostics, warnings;
  llvm::raw_string_ostream diagOS(diagnostics), warnOS(warnings);
  mlir::ScopedDiagnosticHandler handler(
      module.getContext(), [&](mlir::Diagnostic &diag) {
        diagOS << diag.getLocation() << ": " << diag << "\n";
        if (diag.getSeverity() == mlir::DiagnosticSeverity::Warning)
          warnOS << sourceLocation(diag.getLocation()) << "warning: " << diag
                 << "\n";
        return mlir::success();
      });
  mlir::PassManager pm(module.getContext());
  driver::PipelineOptions pipelineOptions;
  // The unoptimized lowering is a second, independent host result (tilec
  // check); GPU code is always optimized.
  pipelineOptions.optimize = options.optimize || !target.isHost();
  pipelineOptions.emulate = options.emulate && !target.isHost();
  pipelineOptions.loadable = true;
  driver::Stage stage = ptxForTheDriver(target, options) ? driver::Stage::Asm
                                                         : driver::Stage::Obj;
  auto out = driver::compileToStage(module, target, stage, pm, pipelineOptions);
  if (!out)
    return rt::makeError(llvm::toString(out.takeError()) +
                         (diagnostics.empty() ? "" : ":\n" + diagnostics));
  for (rt::KernelInfo &info : infos) {
    auto fallback = out->fallbacks.find(info.Entry);
    if (fallback != out->fallbacks.end())
      info.Fallback = fallbackInfo(*out, fallback->second, info.Launch);
    applyLaunch(*out, info.Entry, info.Launch);
    info.Signature.Persistent = out->persistent.count(info.Entry) != 0;
    auto maps = out->tensorMaps.find(info.Entry);
    if (maps == out->tensorMaps.end())
      continue;
    for (const driver::TensorMapDesc &map : maps->second) {
      rt::TensorMapInfo tm;
      tm.Param = map.param;
      tm.Box.assign(map.box.begin(), map.box.end());
      tm.SwizzleBytes = map.swizzleBytes;
      info.Signature.TensorMaps.push_back(std::move(tm));
    }
    if (rt::Error err = info.Signature.verify())
      return rt::makeError("kernel " + info.Entry + ": " + err.message());
  }
  readResourceReport(out->report, infos);
  // A successful compile keeps its warnings (the kernels of one source
  // share them): tilec prints them, Python warns with them.
  for (rt::KernelInfo &info : infos)
    info.Warnings = warnings;
  return std::vector<uint8_t>(out->data.begin(), out->data.end());
}

rt::Expected<CompiledKernels>
Compiler::compileUncached(std::string_view source, std::string_view sourceName,
                          const CompileOptions &options,
                          std::string_view kernel, const std::string &key) {
  std::optional<TargetInfo> target = TargetInfo::lookup(options.target);
  if (!target) {
    std::string known;
    for (llvm::StringRef name : TargetInfo::knownTargets())
      known += (known.empty() ? "" : ", ") + name.str();
    return rt::makeError("unknown target '" + options.target +
                         "' (known: " + known + ")");
  }
  mlir::DialectRegistry registry;
  tile::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          llvm::StringRef(sourceName.data(), sourceName.size())),
      llvm::SMLoc());
  frontend::CompileOptions feOptions;
  feOptions.defines = options.defines;
  feOptions.kernel = std::string(kernel);
  feOptions.target = target->frontendFacts();
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      frontend::compileToMLIR(sourceMgr, context, feOptions, &diagOS);
  if (!module)
    return rt::makeError(diagnostics.empty() ? "compilation failed"
                                             : diagnostics);

  if (options.tma)
    (*module)->setAttr(tile::TileDialect::kTmaAttr,
                       mlir::UnitAttr::get(&context));
  if (options.warpSpecialize)
    (*module)->setAttr(tile::TileDialect::kWarpSpecializeAttr,
                       mlir::UnitAttr::get(&context));
  if (options.persistent)
    (*module)->setAttr(tile::TileDialect::kPersistentAttr,
                       mlir::UnitAttr::get(&context));
  if (options.dependentLaunch)
    (*module)->setAttr(tile::TileDialect::kDependentLaunchAttr,
                       mlir::UnitAttr::get(&context));

  // The launch description is read before lowering rewrites the kernels.
  std::vector<rt::KernelInfo> infos;
  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    if (!func->hasAttr(tile::TileDialect::kKernelAttr))
      continue;
    rt::Expected<rt::KernelInfo> info = kernelInfoFromFunc(func, *target);
    if (!info)
      return info.takeError();
    infos.push_back(std::move(*info));
  }
  if (infos.empty())
    return rt::makeError(std::string(sourceName) + ": no kernel to compile");

  rt::Expected<std::vector<uint8_t>> object =
      buildObject(*module, *target, options, infos);
  if (!object)
    return object.takeError();
  auto shared =
      std::make_shared<const std::vector<uint8_t>>(std::move(*object));

  CompiledKernels kernels;
  bool emulated = options.emulate && !target->isHost();
  bool ptx = ptxForTheDriver(*target, options);
  rt::ObjectKind kind =
      target->isHost() ? rt::ObjectKind::HostSO
      : target->isNVIDIA()
          ? (emulated ? rt::ObjectKind::NvEmuSO
             : ptx    ? rt::ObjectKind::Ptx
                      : rt::ObjectKind::Cubin)
          : (emulated ? rt::ObjectKind::AmdEmuSO : rt::ObjectKind::Hsaco);
  const char *extension = target->isHost()     ? "so"
                          : emulated           ? "emu.so"
                          : ptx                ? "ptx"
                          : target->isNVIDIA() ? "cubin"
                                               : "hsaco";
  std::string objectName = key + "." + target->name + "." + extension;
  for (rt::KernelInfo &info : infos) {
    auto compiled = std::make_shared<CompiledKernel>();
    info.Object = objectName;
    info.Kind = kind;
    compiled->Info = std::move(info);
    compiled->Object = shared;
    compiled->CacheKey = key;
    kernels.push_back(std::move(compiled));
  }
  return kernels;
}

rt::Expected<CompiledKernels> Compiler::compile(std::string_view source,
                                                std::string_view sourceName,
                                                const CompileOptions &options,
                                                std::string_view kernel) {
  std::string key = cacheKey(source, options, kernel);
  {
    std::lock_guard<std::mutex> lock(Mutex);
    auto it = Memory.find(key);
    if (it != Memory.end()) {
      ++Counters.MemoryHits;
      return it->second;
    }
  }
  if (!CacheDir.empty()) {
    rt::Expected<CompiledKernels> cached = loadFromDisk(key);
    if (cached) {
      std::lock_guard<std::mutex> lock(Mutex);
      ++Counters.DiskHits;
      return Memory.emplace(key, std::move(*cached)).first->second;
    }
  }
  rt::Expected<CompiledKernels> compiled =
      compileUncached(source, sourceName, options, kernel, key);
  if (!compiled)
    return compiled;
  if (!CacheDir.empty())
    storeToDisk(key, *compiled);
  std::lock_guard<std::mutex> lock(Mutex);
  ++Counters.Compilations;
  // Another thread may have finished the same compilation first: keep one.
  return Memory.emplace(key, std::move(*compiled)).first->second;
}

rt::Expected<std::shared_ptr<const CompiledKernel>>
Compiler::compileKernel(std::string_view source, std::string_view sourceName,
                        std::string_view kernel,
                        const CompileOptions &options) {
  rt::Expected<CompiledKernels> kernels =
      compile(source, sourceName, options, kernel);
  if (!kernels)
    return kernels.takeError();
  for (const auto &k : *kernels)
    if (k->Info.name() == kernel)
      return k;
  return rt::makeError("no kernel named '" + std::string(kernel) + "' in " +
                       std::string(sourceName));
}

rt::Expected<CompiledKernels>
Compiler::compileFile(const std::string &path, const CompileOptions &options,
                      std::string_view kernel) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return rt::makeError("cannot read " + path + ": " +
                         buffer.getError().message());
  return compile((*buffer)->getBuffer(), path, options, kernel);
}

rt::Expected<std::string> Compiler::bundleDir(const CompiledKernel &k) {
  if (CacheDir.empty())
    return rt::makeError(
        "the disk cache is off: bundle directories live in it");
  llvm::SmallString<256> dir(CacheDir);
  llvm::sys::path::append(dir, k.CacheKey);
  if (!llvm::sys::fs::is_directory(dir)) {
    // The cache could not be written (read-only disk): write it now.
    if (rt::Error err = writeBundle(std::string(dir),
                                    {std::make_shared<CompiledKernel>(k)}))
      return err;
  }
  return std::string(dir);
}

rt::Expected<rt::Kernel> Compiler::load(const CompiledKernel &k,
                                        rt::Device &device) {
  rt::Expected<rt::Module> module =
      device.loadModuleData(*k.Object, k.Info.Kind);
  if (!module)
    return module.takeError();
  return rt::kernelFromModule(*module, k.Info);
}
