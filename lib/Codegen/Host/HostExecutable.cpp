//===- HostExecutable.cpp - JIT, objects and grids on the host ------------===//
//
// Part of tilec. LLVM IR translation, object and shared-object emission, the
// in-process JIT (mlir::ExecutionEngine on ORC) with the lib/Numerics C ABI
// resolved, and the thread pool that runs a grid of programs.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Numerics/CAPI.h"
#include "tile/Target/Serialize.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include <dlfcn.h>

using namespace mlir;
using namespace ::tile::host;
namespace host = ::tile::host;

namespace {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

/// Collects the diagnostics of a context into a string while alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : os(messages), handler(ctx, [this](Diagnostic &diag) {
          os << diag.getLocation() << ": " << diag.str() << "\n";
          return success();
        }) {}

  llvm::Error error(const llvm::Twine &what) {
    return llvm::createStringError(what + (messages.empty() ? "" : ":\n") +
                                   messages);
  }

private:
  std::string messages;
  llvm::raw_string_ostream os;
  ScopedDiagnosticHandler handler;
};

/// A target machine for the host triple; \p portable selects the generic
/// CPU of the family (objects that run on other machines).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
makeTargetMachine(bool portable, bool optimize) {
  initializeNativeTarget();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return llvm::createStringError("no LLVM target for " + triple.str() + ": " +
                                   message);
  std::string cpu = portable ? "generic" : llvm::sys::getHostCPUName().str();
  std::string features;
  if (!portable) {
    llvm::SubtargetFeatures subtarget;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      subtarget.AddFeature(feature.getKey(), feature.getValue());
    features = subtarget.getString();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      optimize ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for " +
                                   triple.str());
  return machine;
}

#if defined(__FLT16_MAX__)
/// compiler-rt's __truncsfbf2: the bf16 result is returned as a 16-bit
/// float is (the low half of the first vector register), which _Float16
/// gives on x86-64 and AArch64.
_Float16 tileTruncSFBF2(float x) {
  uint16_t bits = tile_num_f32_to_bf16(x);
  _Float16 out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}
#endif

/// The lib/Numerics C functions generated code may call, and the compiler
/// runtime functions libgcc lacks.
llvm::orc::SymbolMap numericsSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char *name, auto *function) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                           llvm::JITSymbolFlags::Exported};
  };
  add("tile_num_convert", &tile_num_convert);
  add("tile_num_decode", &tile_num_decode);
  add("tile_num_encode_f32", &tile_num_encode_f32);
  add("tile_num_f32_to_f16", &tile_num_f32_to_f16);
  add("tile_num_f16_to_f32", &tile_num_f16_to_f32);
  add("tile_num_f32_to_bf16", &tile_num_f32_to_bf16);
  add("tile_num_bf16_to_f32", &tile_num_bf16_to_f32);
#if defined(__FLT16_MAX__)
  add("__truncsfbf2", &tileTruncSFBF2);
#endif
  return map;
}

/// Retargets \p llvmModule to the host, optimizes it and writes it as an
/// object file to \p path.
llvm::Error writeLLVMObject(llvm::Module &llvmModule, llvm::StringRef path,
                            bool optimize) {
  auto machine = makeTargetMachine(/*portable=*/true, optimize);
  if (!machine)
    return machine.takeError();
  llvmModule.setDataLayout((*machine)->createDataLayout());
  llvmModule.setTargetTriple((*machine)->getTargetTriple());
  auto transform =
      makeOptimizingTransformer(optimize ? 2 : 0, 0, machine->get());
  if (llvm::Error error = transform(&llvmModule))
    return error;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  llvm::legacy::PassManager pm;
  if ((*machine)->addPassesToEmitFile(pm, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit objects");
  pm.run(llvmModule);
  os.flush();
  if (os.has_error())
    return llvm::createStringError("error writing " + path);
  return llvm::Error::success();
}

/// Writes \p module (LLVM dialect) as an object file to \p path.
llvm::Error writeObject(ModuleOp module, llvm::StringRef path,
                        const HostCompileOptions &options) {
  llvm::LLVMContext context;
  auto llvmModule = translateToLLVMIR(module, context);
  if (!llvmModule)
    return llvmModule.takeError();
  return writeLLVMObject(**llvmModule, path, options.optimize);
}

/// An archive host shared objects link in, by file name: in lib/tilec next
/// to the bin/ of a relocated tilec (the layout of scripts/make-portable.sh),
/// in lib/ next to the shared object holding this code (the Python
/// package's tilec/_jit module, which pip installs with its archives), else
/// at its build-time path.
std::string hostArchive(llvm::StringRef buildPath) {
  llvm::StringRef name = llvm::sys::path::filename(buildPath);
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&hostArchive));
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(path, "lib", "tilec", name);
  if (llvm::sys::fs::exists(path))
    return std::string(path);
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&hostArchive), &info) && info.dli_fname) {
    path = llvm::sys::path::parent_path(info.dli_fname);
    llvm::sys::path::append(path, "lib", name);
    if (llvm::sys::fs::exists(path))
      return std::string(path);
  }
  return buildPath.str();
}

/// Links the object file \p object into the shared object \p path.
llvm::Error linkSharedObject(llvm::StringRef object, llvm::StringRef path) {
  // The Numerics C ABI and the compiler-rt builtins the code may call are
  // linked in and hidden (--exclude-libs), so that the shared object loads
  // in any process; libc, libm and libstdc++ come from the process.
  std::vector<std::string> args = {"-shared",    "--as-needed",
                                   "-o",         path.str(),
                                   object.str(), "--exclude-libs=ALL"};
#ifdef TILE_NUMERICS_ARCHIVE
  args.push_back(hostArchive(TILE_NUMERICS_ARCHIVE));
#endif
#ifdef TILE_CLANG_RT_BUILTINS
  args.push_back(hostArchive(TILE_CLANG_RT_BUILTINS));
#endif
  return ::tile::runLinker(args);
}

/// Creates an empty temporary file "tile-host-*.<suffix>" at \p path.
llvm::Error createTemporary(llvm::StringRef suffix,
                            llvm::SmallVectorImpl<char> &path) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-host", suffix, path))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  return llvm::Error::success();
}

/// Runs \p write to a temporary object file, then links it into \p path.
template <typename WriteFn>
llvm::Error writeSharedObject(llvm::StringRef path, WriteFn write) {
  llvm::SmallString<128> object;
  if (llvm::Error error = createTemporary("o", object))
    return error;
  llvm::FileRemover removeObject(object);
  if (llvm::Error error = write(object.str()))
    return error;
  return linkSharedObject(object, path);
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
host::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &context) {
  DialectRegistry registry;
  registerHostCodegenDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  DiagnosticCollector diagnostics(module.getContext());
  std::unique_ptr<llvm::Module> result =
      translateModuleToLLVMIR(module, context, "tile_host");
  if (!result)
    return diagnostics.error("cannot translate the module to LLVM IR (is it "
                             "in the LLVM dialect?)");
  return result;
}

llvm::Error host::emitHostObject(ModuleOp module, llvm::StringRef path,
                                 const HostCompileOptions &options) {
  return writeObject(module, path, options);
}

llvm::Error host::emitHostSharedObject(ModuleOp module, llvm::StringRef path,
                                       const HostCompileOptions &options) {
  return writeSharedObject(path, [&](llvm::StringRef object) {
    return writeObject(module, object, options);
  });
}

llvm::Expected<std::string> host::linkHostSharedObject(llvm::StringRef object) {
  llvm::SmallString<128> path;
  if (llvm::Error error = createTemporary("so", path))
    return std::move(error);
  llvm::FileRemover removeShared(path);
  if (llvm::Error error =
          writeSharedObject(path, [&](llvm::StringRef objectPath) {
            std::error_code ec;
            llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
            if (ec)
              return llvm::createStringError("cannot write " + objectPath +
                                             ": " + ec.message());
            os << object;
            os.close();
            return os.has_error()
                       ? llvm::createStringError("error writing " + objectPath)
                       : llvm::Error::success();
          }))
    return std::move(error);
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!bytes)
    return llvm::createStringError("cannot read " + path + ": " +
                                   bytes.getError().message());
  return (*bytes)->getBuffer().str();
}

llvm::Error host::emitSharedObjectFromLLVM(llvm::Module &module,
                                           llvm::StringRef path,
                                           bool optimize) {
  return writeSharedObject(path, [&](llvm::StringRef object) {
    return writeLLVMObject(module, object, optimize);
  });
}

//===----------------------------------------------------------------------===//
// HostExecutable
//===----------------------------------------------------------------------===//

HostExecutable::HostExecutable() = default;
HostExecutable::~HostExecutable() = default;

void host::registerHostRuntimeSymbols(ExecutionEngine &engine) {
  engine.registerSymbols(numericsSymbols);
}

llvm::Expected<std::unique_ptr<HostExecutable>>
HostExecutable::create(ModuleOp module, const HostCompileOptions &options) {
  initializeNativeTarget();
  DialectRegistry registry;
  registerHostCodegenDialects(registry);
  module.getContext()->appendDialectRegistry(registry);
  DiagnosticCollector diagnostics(module.getContext());

  auto transform =
      makeOptimizingTransformer(options.optimize ? 2 : 0, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transform;
  engineOptions.jitCodeGenOptLevel = options.optimize
                                         ? llvm::CodeGenOptLevel::Default
                                         : llvm::CodeGenOptLevel::None;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine) {
    llvm::Error error = engine.takeError();
    std::string text = llvm::toString(std::move(error));
    return diagnostics.error("JIT compilation failed: " + text);
  }
  registerHostRuntimeSymbols(**engine);
  (*engine)->initialize();
  std::unique_ptr<HostExecutable> result(new HostExecutable());
  result->engine = std::move(*engine);
  return result;
}

llvm::Expected<std::unique_ptr<HostExecutable>>
HostExecutable::createFromSource(llvm::StringRef source,
                                 const HostCompileOptions &options) {
  DialectRegistry registry;
  registry.insert<tile::TileDialect>();
  registerHostCodegenDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  OwningOpRef<ModuleOp> module;
  {
    DiagnosticCollector diagnostics(&context);
    module = parseSourceString<ModuleOp>(source, ParserConfig(&context));
    if (!module)
      return diagnostics.error("cannot parse the tile module");
  }
  if (llvm::Error error = lowerToHostLLVM(*module, options))
    return std::move(error);
  return create(*module, options);
}

llvm::Expected<KernelEntry> HostExecutable::lookup(llvm::StringRef name) const {
  auto address = engine->lookup(name);
  if (!address)
    return llvm::createStringError("no kernel '" + name +
                                   "' in the host executable (" +
                                   llvm::toString(address.takeError()) + ")");
  return reinterpret_cast<KernelEntry>(*address);
}

//===----------------------------------------------------------------------===//
// Grids
//===----------------------------------------------------------------------===//

llvm::Error host::runGrid(KernelEntry entry, void **args,
                          const std::array<uint32_t, 3> &grid,
                          unsigned numThreads) {
  if (!entry)
    return llvm::createStringError("runGrid: no kernel entry");
  uint64_t sizeX = grid[0], sizeY = grid[1];
  uint64_t total = sizeX * sizeY * grid[2];
  if (total == 0)
    return llvm::Error::success();
  auto runProgram = [&](uint64_t linear) {
    uint32_t programId[3] = {uint32_t(linear % sizeX),
                             uint32_t((linear / sizeX) % sizeY),
                             uint32_t(linear / (sizeX * sizeY))};
    entry(args, programId, grid.data());
  };
  unsigned threads = numThreads
                         ? numThreads
                         : llvm::hardware_concurrency().compute_thread_count();
  if (uint64_t(threads) > total)
    threads = unsigned(total);
  if (threads <= 1) {
    for (uint64_t i = 0; i < total; ++i)
      runProgram(i);
    return llvm::Error::success();
  }
  std::atomic<uint64_t> next{0};
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
  for (unsigned t = 0; t < threads; ++t)
    pool.async([&] {
      for (uint64_t i = next++; i < total; i = next++)
        runProgram(i);
    });
  pool.wait();
  return llvm::Error::success();
}
