//===- Serialize.cpp - LLVM IR to assembly and code objects ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#ifdef TILE_HAVE_LLD_LIBRARY
#include "lld/Common/Driver.h"
LLD_HAS_DRIVER(elf)
#endif

#include <memory>
#include <mutex>

using namespace tile;

#ifndef TILE_LLVM_TOOLS_DIR
#define TILE_LLVM_TOOLS_DIR "/usr/lib/llvm-22/bin"
#endif
// Where scripts/install-deps.sh puts the CUDA tools it takes from PyPI
// wheels (ptxas only when the CUDA toolkit is absent); TILE_CUDA_TOOLS_PREFIX
// in CMake.
#ifndef TILE_CUDA_TOOLS_DIR
#define TILE_CUDA_TOOLS_DIR "/opt/tilec-cuda-tools/bin"
#endif

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Registers the LLVM targets tilec generates code for, once per process.
static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
  });
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetInfo &target, unsigned optLevel) {
  initializeTargets();
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return makeError("no LLVM backend for " + target.triple + ": " + error);
  llvm::TargetOptions options;
  std::optional<llvm::Reloc::Model> reloc = llvm::Reloc::PIC_;
  llvm::CodeGenOptLevel level =
      optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : optLevel == 0 ? llvm::CodeGenOptLevel::None
                      : llvm::CodeGenOptLevel::Default;
  // The host's chip is "generic": host code objects travel in bundles to
  // other machines of the CPU family.
  std::string chip = target.chip;
  std::string features = target.features;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, chip, features, options, reloc, std::nullopt, level));
  if (!machine)
    return makeError("cannot create an LLVM target machine for " + target.name);
  return machine;
}

static void prepareModule(llvm::Module &module, llvm::TargetMachine &machine) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
}

llvm::Error tile::optimizeModule(llvm::Module &module, const TargetInfo &target,
                                 unsigned optLevel) {
  auto machine = createTargetMachine(target, optLevel);
  if (!machine)
    return machine.takeError();
  prepareModule(module, **machine);
  if (optLevel == 0)
    return llvm::Error::success();

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine->get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel >= 3   ? llvm::OptimizationLevel::O3
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O1;
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
  return llvm::Error::success();
}

static llvm::Expected<std::string> emit(llvm::Module &module,
                                        const TargetInfo &target,
                                        llvm::CodeGenFileType type) {
  auto machine = createTargetMachine(target, /*optLevel=*/3);
  if (!machine)
    return machine.takeError();
  prepareModule(module, **machine);
  llvm::SmallString<0> result;
  {
    llvm::raw_svector_ostream stream(result);
    llvm::legacy::PassManager passes;
    if ((*machine)->addPassesToEmitFile(passes, stream, nullptr, type))
      return makeError("the LLVM backend for " + target.name +
                       " cannot emit this kind of file");
    passes.run(module);
  }
  return std::string(result.str());
}

llvm::Expected<std::string> tile::emitAssembly(llvm::Module &module,
                                               const TargetInfo &target) {
  return emit(module, target, llvm::CodeGenFileType::AssemblyFile);
}

llvm::Expected<std::string> tile::emitRelocatable(llvm::Module &module,
                                                  const TargetInfo &target) {
  if (target.isNVIDIA())
    return makeError("NVIDIA objects come from ptxas: emit PTX and assemble "
                     "it with assemblePTX");
  return emit(module, target, llvm::CodeGenFileType::ObjectFile);
}

std::optional<std::string> tile::findTool(llvm::StringRef name) {
  std::string envName = "TILE_";
  for (char c : name)
    envName += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  if (const char *env = std::getenv(envName.c_str())) {
    // TILE_PTXAS=none (or empty): behave as if the tool were not installed.
    if (llvm::StringRef(env).empty() || llvm::StringRef(env) == "none")
      return std::nullopt;
    if (llvm::sys::fs::can_execute(env))
      return std::string(env);
  }
  llvm::SmallVector<std::string, 4> dirs;
  if (name == "ptxas" || name == "nvdisasm" || name == "cuobjdump") {
    if (const char *cuda = std::getenv("CUDA_HOME"))
      dirs.push_back((llvm::Twine(cuda) + "/bin").str());
    dirs.push_back("/usr/local/cuda/bin");
    dirs.push_back(TILE_CUDA_TOOLS_DIR);
  } else {
    dirs.push_back(TILE_LLVM_TOOLS_DIR);
  }
  for (const std::string &dir : dirs) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
  if (auto onPath = llvm::sys::findProgramByName(name))
    return *onPath;
  return std::nullopt;
}

namespace {
/// A temporary file removed when the object dies.
class TempFile {
public:
  static llvm::Expected<TempFile> create(llvm::StringRef suffix) {
    llvm::SmallString<128> path;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("tilec", suffix, path))
      return makeError("cannot create a temporary file: " + ec.message());
    return TempFile(path.str().str());
  }
  TempFile(TempFile &&other) : path(std::move(other.path)) {
    other.path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  const std::string &getPath() const { return path; }

private:
  explicit TempFile(std::string path) : path(std::move(path)) {}
  std::string path;
};
} // namespace

static llvm::Error writeFile(const std::string &path, llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return makeError("cannot write " + path + ": " + ec.message());
  os << data;
  return llvm::Error::success();
}

static llvm::Expected<std::string> readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return makeError("cannot read " + path + ": " +
                     buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// Runs `tool` with `args`, returning its combined output; fails with that
/// output when the tool exits non-zero.
static llvm::Expected<std::string> runTool(const std::string &tool,
                                           llvm::ArrayRef<std::string> args) {
  auto log = TempFile::create("log");
  if (!log)
    return log.takeError();
  llvm::SmallVector<llvm::StringRef> argv = {tool};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log->getPath(),
                                                log->getPath()};
  std::string errorMessage;
  int rc = llvm::sys::ExecuteAndWait(tool, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &errorMessage);
  auto output = readFile(log->getPath());
  std::string text = output ? *output : std::string();
  if (!output)
    llvm::consumeError(output.takeError());
  if (rc != 0) {
    std::string what = llvm::sys::path::filename(tool).str();
    return makeError(what + " failed" +
                     (errorMessage.empty() ? "" : " (" + errorMessage + ")") +
                     ":\n" + text);
  }
  return text;
}

llvm::Expected<PtxasResult> tile::assemblePTX(llvm::StringRef ptx,
                                              const TargetInfo &target) {
  if (!target.isNVIDIA())
    return makeError("ptxas only assembles for NVIDIA targets, not " +
                     target.name);
  std::optional<std::string> ptxas = findTool("ptxas");
  if (!ptxas)
    return makeError("ptxas was not found (install the CUDA toolkit, run "
                     "scripts/install-deps.sh, or set TILE_PTXAS); "
                     "--emit=asm gives PTX, which the CUDA driver can load "
                     "as it is");
  auto input = TempFile::create("ptx");
  if (!input)
    return input.takeError();
  auto output = TempFile::create("cubin");
  if (!output)
    return output.takeError();
  if (llvm::Error err = writeFile(input->getPath(), ptx))
    return std::move(err);
  auto report = runTool(*ptxas, {"-arch=" + target.chip, "-O3", "-v",
                                 input->getPath(), "-o", output->getPath()});
  if (!report)
    return report.takeError();
  auto cubin = readFile(output->getPath());
  if (!cubin)
    return cubin.takeError();
  return PtxasResult{std::move(*cubin), std::move(*report)};
}

namespace {
/// The program that runs the built-in lld (setBuiltinLinkerProgram).
std::string &builtinLinkerProgram() {
  static std::string program;
  return program;
}
} // namespace

void tile::setBuiltinLinkerProgram(llvm::StringRef program) {
  builtinLinkerProgram() = program.str();
}

bool tile::hasBuiltinLinker() {
#ifdef TILE_HAVE_LLD_LIBRARY
  return true;
#else
  return false;
#endif
}

int tile::builtinLinkerMain(llvm::ArrayRef<const char *> args) {
#ifdef TILE_HAVE_LLD_LIBRARY
  llvm::SmallVector<const char *> argv = {"ld.lld"};
  argv.append(args.begin(), args.end());
  lld::Result result = lld::lldMain(argv, llvm::outs(), llvm::errs(),
                                    {{lld::Gnu, &lld::elf::link}});
  return result.retCode;
#else
  (void)args;
  llvm::errs() << "this tilec has no built-in lld (TILEC_PORTABLE builds do)\n";
  return 1;
#endif
}

llvm::Error tile::runLinker(llvm::ArrayRef<std::string> args) {
  if (std::optional<std::string> lld = findTool("ld.lld")) {
    auto log = runTool(*lld, args);
    return log ? llvm::Error::success() : log.takeError();
  }
#ifdef TILE_HAVE_LLD_LIBRARY
  // The lld linked into tilec, in a child process: lld resets the LLVM
  // command-line options of the process it runs in, and keeps per-link state
  // in globals.
  if (!builtinLinkerProgram().empty()) {
    std::vector<std::string> argv = {kBuiltinLinkerFlag};
    argv.insert(argv.end(), args.begin(), args.end());
    auto log = runTool(builtinLinkerProgram(), argv);
    return log ? llvm::Error::success() : log.takeError();
  }
  // A program that did not register itself: in this process, one at a time.
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  llvm::SmallVector<const char *> argv = {"ld.lld"};
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  std::string log;
  llvm::raw_string_ostream logOS(log);
  lld::Result result =
      lld::lldMain(argv, logOS, logOS, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0)
    return makeError("ld.lld (built in) failed:\n" + log);
  return llvm::Error::success();
#else
  return makeError("ld.lld was not found (apt-get install lld-22, or set "
                   "TILE_LD_LLD)");
#endif
}

llvm::Expected<std::string> tile::linkSharedObject(llvm::StringRef object,
                                                   const TargetInfo &target) {
  if (target.isNVIDIA())
    return makeError("NVIDIA code objects are made by ptxas, not a linker");
  auto input = TempFile::create("o");
  if (!input)
    return input.takeError();
  auto output = TempFile::create(target.isAMD() ? "hsaco" : "so");
  if (!output)
    return output.takeError();
  if (llvm::Error err = writeFile(input->getPath(), object))
    return std::move(err);
  if (llvm::Error err = runLinker({"-shared", "--no-undefined",
                                   input->getPath(), "-o", output->getPath()}))
    return std::move(err);
  return readFile(output->getPath());
}
