//===- tilec.cpp - The tilec compiler driver ------------------------------===//
//
// Part of tilec. A staged driver in the style of clang and MLIR's toyc:
//
//   tilec FILE.tile [--target=T] [--emit=STAGE] [-D NAME=VALUE]...
//         [--kernel=NAME] [-o OUT]
//
// The front end produces the tile dialect (--emit=mlir). Later stages (tile
// passes, LLVM, assembly, objects) come from tile/Driver/Stages.h.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Driver/Stages.h"
#include "tile/Frontend/Frontend.h"
#include "tile/Frontend/KernelInfo.h"
#include "tile/InitAll.h"
#include "tile/Target/Serialize.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#ifndef TILEC_VERSION
#define TILEC_VERSION "unknown"
#endif

namespace cl = llvm::cl;

namespace {

/// Compilation targets.
enum class Target { Host, SM80, SM86, SM89, SM90, SM90a, GFX942, GFX950 };

/// Output stages, in pipeline order (tile/Driver/Stages.h says what each
/// means for each target).
using Stage = tile::driver::Stage;

cl::OptionCategory tilecCat("tilec options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .tile or .mlir file>"),
                                   cl::init("-"), cl::cat(tilecCat));

cl::opt<std::string> outputFilename("o",
                                    cl::desc("Output file (default: stdout)"),
                                    cl::value_desc("filename"), cl::init("-"),
                                    cl::cat(tilecCat));

cl::opt<Target> target(
    "target", cl::desc("Target to compile for:"), cl::init(Target::Host),
    cl::values(clEnumValN(Target::Host, "host", "the host CPU (default)"),
               clEnumValN(Target::SM80, "sm_80", "NVIDIA Ampere A100"),
               clEnumValN(Target::SM86, "sm_86", "NVIDIA Ampere GA10x"),
               clEnumValN(Target::SM89, "sm_89", "NVIDIA Ada"),
               clEnumValN(Target::SM90, "sm_90", "NVIDIA Hopper"),
               clEnumValN(Target::SM90a, "sm_90a",
                          "NVIDIA Hopper with wgmma/TMA features"),
               clEnumValN(Target::GFX942, "gfx942", "AMD MI300"),
               clEnumValN(Target::GFX950, "gfx950", "AMD MI350")),
    cl::cat(tilecCat));

cl::opt<Stage> emitStage(
    "emit", cl::desc("Stage to stop at and print:"), cl::init(Stage::MLIR),
    cl::values(clEnumValN(Stage::MLIR, "mlir",
                          "front-end output: the tile dialect (default)"),
               clEnumValN(Stage::Tile, "tile",
                          "after the tile passes (layouts, "
                          "pipelining)"),
               clEnumValN(Stage::LLVM, "llvm", "LLVM IR"),
               clEnumValN(Stage::Asm, "asm", "PTX / AMDGCN / host assembly"),
               clEnumValN(Stage::Obj, "obj", "cubin / HSACO / host object")),
    cl::cat(tilecCat));

cl::list<std::string>
    defines("D", cl::Prefix,
            cl::desc("Set a compile-time parameter: -D BM=32, -D T=u3, "
                     "-D CAUSAL=true (repeatable)"),
            cl::value_desc("NAME=VALUE"), cl::cat(tilecCat));

cl::opt<std::string>
    kernelName("kernel", cl::desc("Compile only this kernel of the file"),
               cl::value_desc("name"), cl::cat(tilecCat));

cl::opt<bool> listKernelsOpt(
    "list-kernels",
    cl::desc("Print the kernels of the file with their compile-time "
             "parameters, defaults (for --target) and tune spaces as JSON, "
             "then exit"),
    cl::cat(tilecCat));

cl::opt<bool> verbose("v",
                      cl::desc("Print the code object's resource report "
                               "(registers, spills, shared memory) to stderr"),
                      cl::cat(tilecCat));

cl::opt<bool> emulateOpt(
    "emulate",
    cl::desc("GPU targets: make the CPU emulator's LLVM IR (--emit=llvm) "
             "or code object (--emit=obj, a host shared object for device "
             "cuda-emu / hip-emu) from the NVPTX / AMDGPU IR"),
    cl::cat(tilecCat));

cl::opt<bool>
    tmaOpt("tma",
           cl::desc("sm_90 targets: copy the tiles of pipelined loops (GEMM "
                    "operands, attention's K and V; beside loads TMA cannot "
                    "copy, the wgmma operands it can) with TMA (the kernels "
                    "take tensor maps; tensor rows must be multiples of 16 "
                    "bytes)"),
           cl::cat(tilecCat));

cl::opt<bool> warpSpecializeOpt(
    "warp-specialize",
    cl::desc("sm_90a: give the TMA copies of pipelined loops to a "
             "producer warpgroup (implies --tma; 4 more warps per program)"),
    cl::cat(tilecCat));

cl::opt<bool> persistentOpt(
    "persistent",
    cl::desc("GPU targets: persistent kernels, launched with the programs "
             "the device runs at once, each looping over the grid's"),
    cl::cat(tilecCat));

cl::opt<bool> dependentLaunchOpt(
    "dependent-launch",
    cl::desc("NVIDIA sm_90+: each kernel waits for the kernels before it "
             "in its stream at its start and is launched with programmatic "
             "stream serialization, so that it may be scheduled while the "
             "kernel before it ends"),
    cl::cat(tilecCat));

cl::opt<unsigned>
    maxErrors("max-errors",
              cl::desc("Stop after this many errors (default 20)"),
              cl::init(20), cl::cat(tilecCat));

const char *targetName(Target t) {
  switch (t) {
  case Target::Host:
    return "host";
  case Target::SM80:
    return "sm_80";
  case Target::SM86:
    return "sm_86";
  case Target::SM89:
    return "sm_89";
  case Target::SM90:
    return "sm_90";
  case Target::SM90a:
    return "sm_90a";
  case Target::GFX942:
    return "gfx942";
  case Target::GFX950:
    return "gfx950";
  }
  return "?";
}

/// Splits NAME=VALUE options into a map; reports malformed ones.
bool parseDefines(std::map<std::string, std::string> &out) {
  bool ok = true;
  for (const std::string &d : defines) {
    size_t eq = d.find('=');
    llvm::StringRef name = llvm::StringRef(d).substr(0, eq).trim();
    if (eq == std::string::npos || name.empty() || eq + 1 == d.size()) {
      llvm::errs() << "tilec: error: -D " << d
                   << ": expected NAME=VALUE (e.g. -D BM=32)\n";
      ok = false;
      continue;
    }
    if (out.count(name.str())) {
      llvm::errs() << "tilec: error: -D " << name << " is given twice\n";
      ok = false;
      continue;
    }
    out[name.str()] = d.substr(eq + 1);
  }
  return ok;
}

int printKernelList(llvm::SourceMgr &sm, llvm::raw_ostream &os,
                    tile::frontend::TargetFacts target) {
  std::vector<tile::frontend::KernelInfo> kernels;
  if (!tile::frontend::listKernels(sm, kernels, nullptr, {}, target))
    return 1;
  llvm::json::Array arr;
  for (auto &k : kernels) {
    llvm::json::Array params, rt, tune;
    for (auto &p : k.ctParams) {
      llvm::json::Object o{{"name", p.name}, {"kind", p.kind}};
      if (p.hasDefault)
        o["default"] = p.defaultValue;
      params.push_back(std::move(o));
    }
    for (auto &p : k.rtParams) {
      llvm::json::Object o{{"name", p.name},
                           {"type", p.type},
                           {"tensor", p.isTensor},
                           {"mut", p.isMut}};
      if (p.isTensor) {
        llvm::json::Array dims;
        for (auto &d : p.dims)
          dims.push_back(d);
        o["dims"] = std::move(dims);
      }
      rt.push_back(std::move(o));
    }
    for (auto &t : k.tune) {
      llvm::json::Array vals;
      for (auto &v : t.values)
        vals.push_back(v);
      tune.push_back(
          llvm::json::Object{{"name", t.name}, {"values", std::move(vals)}});
    }
    arr.push_back(llvm::json::Object{{"name", k.name},
                                     {"line", (int64_t)k.line},
                                     {"params", std::move(params)},
                                     {"args", std::move(rt)},
                                     {"tune", std::move(tune)}});
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(arr))) << "\n";
  return 0;
}

} // namespace

/// An address inside this executable (getMainExecutable's hint).
static char executableAnchor;

int main(int argc, char **argv) {
  // Self-contained builds link host and AMD code objects by running
  // themselves as ld.lld (tile::runLinker).
  if (argc > 1 && llvm::StringRef(argv[1]) == tile::kBuiltinLinkerFlag)
    return tile::builtinLinkerMain(
        llvm::ArrayRef<const char *>(argv + 2, argv + argc));
  llvm::InitLLVM initLLVM(argc, argv);
  if (tile::hasBuiltinLinker())
    tile::setBuiltinLinkerProgram(
        llvm::sys::fs::getMainExecutable(argv[0], &executableAnchor));
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // --help lists tilec's options and MLIR's (IR printing, timing, ...); the
  // hundreds of LLVM-internal options of libLLVM stay usable and are listed
  // by --help-hidden.
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *opt = entry.second;
    llvm::StringRef name = entry.first;
    if (opt->getOptionHiddenFlag() != cl::NotHidden ||
        llvm::is_contained(opt->Categories, &tilecCat) ||
        name.starts_with("mlir-") || name.starts_with("help") ||
        name == "version" || name == "color")
      continue;
    opt->setHiddenFlag(cl::Hidden);
  }
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tilec version " << TILEC_VERSION << "\n"
       << "  LLVM version " << LLVM_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tilec: compiler for tile-level GPU kernels (.tile)\n\n"
      "  tilec FILE.tile [--target=T] [--emit=STAGE] [-D NAME=VALUE]... "
      "[--kernel=NAME] [-o OUT]\n\n"
      "Compiles the kernels of FILE (a .tile program, or a .mlir module in "
      "the tile dialect, which is parsed and passed on) and prints the "
      "requested stage. Exit code 1 on any error.\n\n"
      "  tilec run FILE --kernel K --size M=64,N=30 [--target T] ...\n"
      "  tilec check FILE --kernel K --size ... --target T\n"
      "  tilec bundle FILE... -o DIR [--target T] [--size ...]...\n"
      "  tilec tune FILE --kernel K --target T --size ... [--device D]\n"
      "  tilec pack W.npy --type T [--unpack] -o OUT.npy\n\n"
      "run, check and bundle execute kernels: see `tilec run --help`; tune "
      "and pack: `tilec tune --help`, `tilec pack --help`.\n");
  if (int rc = 0; tile::driver::runSelectedSubcommand(rc))
    return rc;

  std::map<std::string, std::string> defs;
  if (!parseDefines(defs))
    return 1;

  std::string err;
  auto input = mlir::openInputFile(inputFilename, &err);
  if (!input) {
    llvm::errs() << "tilec: error: " << err << "\n";
    return 1;
  }
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(input), llvm::SMLoc());

  auto output = mlir::openOutputFile(outputFilename, &err);
  if (!output) {
    llvm::errs() << "tilec: error: " << err << "\n";
    return 1;
  }

  bool isMLIR = llvm::StringRef(inputFilename).ends_with(".mlir");
  std::optional<tile::TargetInfo> info =
      tile::TargetInfo::lookup(targetName(target));
  tile::frontend::TargetFacts facts;
  if (info)
    facts = info->frontendFacts();
  if (listKernelsOpt) {
    if (isMLIR) {
      llvm::errs() << "tilec: error: --list-kernels needs a .tile file\n";
      return 1;
    }
    int rc = printKernelList(sm, output->os(), facts);
    if (rc == 0)
      output->keep();
    return rc;
  }

  mlir::DialectRegistry registry;
  tile::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (isMLIR) {
    if (!defs.empty() || !kernelName.empty()) {
      llvm::errs() << "tilec: error: -D and --kernel apply to .tile input "
                      "only\n";
      return 1;
    }
    mlir::SourceMgrDiagnosticHandler handler(sm, &ctx);
    module = mlir::parseSourceFile<mlir::ModuleOp>(sm, &ctx);
    if (!module)
      return 1;
  } else {
    tile::frontend::CompileOptions opts;
    opts.defines = defs;
    opts.kernel = kernelName;
    opts.maxErrors = maxErrors;
    opts.target = facts;
    module = tile::frontend::compileToMLIR(sm, ctx, opts);
    if (!module)
      return 1;
  }
  if (tmaOpt)
    (*module)->setAttr(tile::TileDialect::kTmaAttr, mlir::UnitAttr::get(&ctx));
  if (warpSpecializeOpt)
    (*module)->setAttr(tile::TileDialect::kWarpSpecializeAttr,
                       mlir::UnitAttr::get(&ctx));
  if (persistentOpt)
    (*module)->setAttr(tile::TileDialect::kPersistentAttr,
                       mlir::UnitAttr::get(&ctx));
  if (dependentLaunchOpt)
    (*module)->setAttr(tile::TileDialect::kDependentLaunchAttr,
                       mlir::UnitAttr::get(&ctx));

  if (emitStage == Stage::Obj && outputFilename == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::errs() << "tilec: error: --emit=obj writes a binary object: give "
                    "an output file with -o\n";
    return 1;
  }
  llvm::Expected<tile::driver::StageOutput> out =
      llvm::createStringError("not compiled");
  {
    mlir::SourceMgrDiagnosticHandler handler(sm, &ctx);
    mlir::DefaultTimingManager tm;
    mlir::applyDefaultTimingManagerCLOptions(tm);
    mlir::TimingScope timing = tm.getRootScope();
    mlir::PassManager pm(&ctx);
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return 1;
    pm.enableTiming(timing);
    tile::driver::PipelineOptions pipelineOptions;
    pipelineOptions.emulate = emulateOpt;
    out = tile::driver::compileToStage(*module, *info, emitStage, pm,
                                       pipelineOptions);
  }
  if (!out) {
    llvm::errs() << "tilec: error: " << llvm::toString(out.takeError()) << "\n";
    return 1;
  }
  if (verbose && !out->report.empty())
    llvm::errs() << out->report;
  output->os() << out->data;
  output->keep();
  return 0;
}
