//===- Commands.cpp - tilec run / check / bundle --------------------------===//
//
// Part of tilec. Each subcommand compiles through the JIT library (with its
// caches), sets launches up with the runtime's prepareRun — the same seeded
// inputs and poisoned outputs tile-run uses — and runs them. check compares
// with lib/Reference's float64 reference of an example and with the host.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tile/JIT.h"
#include "tile/JIT/Tune.h"
#include "tile/Numerics/Format.h"
#include "tile/Numerics/Pack.h"
#include "tile/Reference/Reference.h"
#include "tile/runtime/Bundle.h"
#include "tile/runtime/Compare.h"
#include "tile/runtime/Npy.h"
#include "tile/runtime/Random.h"
#include "tile/runtime/TestRun.h"
#include "tile/runtime/Timing.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <optional>

namespace cl = llvm::cl;
using namespace tile;

namespace {

cl::SubCommand runCmd("run", "Compile a kernel, run it on seeded random "
                             "inputs and summarize its outputs");
cl::SubCommand checkCmd("check",
                        "Run a kernel on a target; compare with its float64 "
                        "reference (kernels of examples/) and with the host "
                        "on the same inputs");
cl::SubCommand bundleCmd("bundle", "Compile kernels into a bundle directory "
                                   "(code objects + manifest.json) with "
                                   "reference outputs for tile-run");

cl::OptionCategory commandCat("tilec run/check/bundle options");

cl::opt<std::string> runFile(cl::Positional, cl::desc("<.tile file>"),
                             cl::Required, cl::sub(runCmd), cl::sub(checkCmd),
                             cl::cat(commandCat));
cl::list<std::string> bundleFiles(cl::Positional, cl::desc("<.tile files>"),
                                  cl::OneOrMore, cl::sub(bundleCmd),
                                  cl::cat(commandCat));
cl::opt<std::string> kernelOpt("kernel", cl::desc("Kernel to run"),
                               cl::value_desc("name"), cl::sub(runCmd),
                               cl::sub(checkCmd), cl::sub(bundleCmd),
                               cl::cat(commandCat));
cl::list<std::string>
    sizeOpt("size",
            cl::desc("Runtime dimensions, DIM=V,... (bundle: one test per "
                     "--size)"),
            cl::value_desc("M=64,N=30"), cl::sub(runCmd), cl::sub(checkCmd),
            cl::sub(bundleCmd), cl::cat(commandCat));
cl::opt<std::string> targetOpt("target",
                               cl::desc("host (default), sm_80 ... sm_90a, "
                                        "gfx942, gfx950"),
                               cl::init("host"), cl::sub(runCmd),
                               cl::sub(checkCmd), cl::sub(bundleCmd),
                               cl::cat(commandCat));
cl::opt<std::string>
    deviceOpt("device",
              cl::desc("Device to run on (default: from the target: host, "
                       "cuda, hip)"),
              cl::sub(runCmd), cl::sub(checkCmd), cl::cat(commandCat));
cl::opt<bool>
    emulateOpt("emulate",
               cl::desc("NVIDIA targets: compile for the CPU emulator (device "
                        "cuda-emu; implied by --device cuda-emu)"),
               cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
               cl::cat(commandCat));
cl::opt<bool>
    tmaOpt("tma",
           cl::desc("sm_90 targets: copy the tiles of pipelined loops (GEMM "
                    "operands, attention's K and V; beside loads TMA cannot "
                    "copy, the wgmma operands it can) with TMA (tensor rows "
                    "must be multiples of 16 bytes)"),
           cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
           cl::cat(commandCat));
cl::opt<bool> warpSpecializeOpt(
    "warp-specialize",
    cl::desc("sm_90a: give the TMA copies of pipelined loops to a "
             "producer warpgroup (implies --tma; 4 more warps per program)"),
    cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
    cl::cat(commandCat));
cl::opt<bool> persistentOpt(
    "persistent",
    cl::desc("GPU targets: persistent kernels, launched with the programs "
             "the device runs at once, each looping over the grid's"),
    cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
    cl::cat(commandCat));
cl::opt<bool> dependentLaunchOpt(
    "dependent-launch",
    cl::desc("NVIDIA sm_90+: each kernel waits for the kernels before it "
             "in its stream at its start and is launched with programmatic "
             "stream serialization, so that it may be scheduled while the "
             "kernel before it ends"),
    cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
    cl::cat(commandCat));
cl::opt<uint64_t> seedOpt("seed", cl::desc("Seed of the generated inputs"),
                          cl::init(1), cl::sub(runCmd), cl::sub(checkCmd),
                          cl::sub(bundleCmd), cl::cat(commandCat));
cl::list<std::string> argOpt("arg", cl::desc("Scalar argument NAME=VALUE"),
                             cl::value_desc("NAME=VALUE"), cl::sub(runCmd),
                             cl::sub(checkCmd), cl::sub(bundleCmd),
                             cl::cat(commandCat));
cl::list<std::string> inputOpt("input",
                               cl::desc("Read tensor NAME from a .npy file"),
                               cl::value_desc("NAME=F.npy"), cl::sub(runCmd),
                               cl::sub(checkCmd), cl::cat(commandCat));
cl::list<std::string>
    inoutOpt("inout",
             cl::desc("A mut tensor that is also read: generate it instead of "
                      "poisoning it"),
             cl::value_desc("NAME"), cl::sub(runCmd), cl::sub(checkCmd),
             cl::sub(bundleCmd), cl::cat(commandCat));
cl::opt<double> atolOpt(
    "atol",
    cl::desc("Absolute tolerance of the output comparison (check, bundle; "
             "default: from the element type, see runtime/README.md)"),
    cl::init(-1), cl::sub(checkCmd), cl::sub(bundleCmd), cl::cat(commandCat));
cl::opt<double> rtolOpt("rtol",
                        cl::desc("Relative tolerance of the output comparison "
                                 "(check, bundle; default: from the element "
                                 "type)"),
                        cl::init(-1), cl::sub(checkCmd), cl::sub(bundleCmd),
                        cl::cat(commandCat));
cl::opt<std::string> referenceOpt(
    "reference",
    cl::desc("What check compares with: auto (the float64 reference of a "
             "kernel of examples/ where one exists, and the host), float64, "
             "host"),
    cl::init("auto"), cl::sub(checkCmd), cl::cat(commandCat));
cl::list<std::string> defineOpt("D", cl::Prefix,
                                cl::desc("Set a compile-time parameter"),
                                cl::value_desc("NAME=VALUE"), cl::sub(runCmd),
                                cl::sub(checkCmd), cl::sub(bundleCmd),
                                cl::cat(commandCat));
cl::opt<std::string>
    dumpOpt("dump",
            cl::desc("Write every tensor before (NAME.in.npy) and after "
                     "(NAME.out.npy) the run, and manifest.json, to DIR"),
            cl::value_desc("DIR"), cl::sub(runCmd), cl::cat(commandCat));
cl::opt<unsigned> repeatOpt("repeat",
                            cl::desc("Time N launches (median) after the run"),
                            cl::init(0), cl::sub(runCmd), cl::cat(commandCat));
cl::opt<std::string> bundleOut("o", cl::desc("Bundle directory"),
                               cl::value_desc("DIR"), cl::Required,
                               cl::sub(bundleCmd), cl::cat(commandCat));
cl::opt<std::string> bundleTuneCache(
    "tune-cache",
    cl::desc("bundle: add a variant of the kernel per shape bucket tuned in "
             "this tune cache (tilec tune), picked by shape at launch; run, "
             "check: use the configuration it holds for the sizes' bucket on "
             "the device"),
    cl::value_desc("FILE"), cl::sub(bundleCmd), cl::sub(runCmd),
    cl::sub(checkCmd), cl::cat(commandCat));
cl::opt<std::string> bundleTuneDevice(
    "tune-device",
    cl::desc("With --tune-cache: only configurations tuned on this device "
             "(its name as tilec tune printed it)"),
    cl::value_desc("NAME"), cl::sub(bundleCmd), cl::cat(commandCat));
cl::opt<bool> noCache("no-cache", cl::desc("Do not use the disk cache"),
                      cl::sub(runCmd), cl::sub(checkCmd), cl::sub(bundleCmd),
                      cl::cat(commandCat));

int fail(const llvm::Twine &message) {
  llvm::errs() << "tilec: error: " << message << "\n";
  return 1;
}

/// Builds the test case described by the options (sizes from \p sizeText).
bool makeTestCase(llvm::StringRef sizeText, rt::TestCase &test) {
  if (!driver::parseSizeList(sizeText, test.Sizes))
    return false;
  test.Seed = seedOpt;
  for (const std::string &a : argOpt) {
    std::string name, value;
    double number;
    if (!driver::splitAssignment(a, name, value) ||
        llvm::StringRef(value).getAsDouble(number)) {
      fail("--arg expects NAME=NUMBER, got '" + a + "'");
      return false;
    }
    test.Scalars[name] = number;
  }
  for (const std::string &in : inputOpt) {
    std::string name, path;
    if (!driver::splitAssignment(in, name, path)) {
      fail("--input expects NAME=FILE.npy, got '" + in + "'");
      return false;
    }
    llvm::SmallString<256> absolute(path);
    llvm::sys::fs::make_absolute(absolute);
    test.InputFiles[name] = std::string(absolute);
  }
  test.InOut.assign(inoutOpt.begin(), inoutOpt.end());
  test.Tol = {atolOpt, rtolOpt};
  return true;
}

bool collectDefines(std::map<std::string, std::string> &defines) {
  for (const std::string &d : defineOpt) {
    std::string name, value;
    if (!driver::splitAssignment(d, name, value)) {
      fail("-D expects NAME=VALUE, got '" + d + "'");
      return false;
    }
    defines[name] = value;
  }
  return true;
}

jit::Compiler makeCompiler() {
  jit::Compiler::Config config;
  config.DiskCache = !noCache;
  return jit::Compiler(config);
}

std::string defaultDevice(llvm::StringRef target) {
  return driver::defaultDeviceFor(target, emulateOpt);
}

bool isEmulator(llvm::StringRef deviceSpec) {
  return driver::isEmulatorDevice(deviceSpec);
}

/// Prints the compiler's warnings of \p kernels to stderr, once per text.
void printWarnings(const jit::CompiledKernels &kernels) {
  std::string last;
  for (const auto &k : kernels)
    if (!k->Info.Warnings.empty() && k->Info.Warnings != last) {
      llvm::errs() << k->Info.Warnings;
      last = k->Info.Warnings;
    }
}

/// Compiles FILE for \p options and picks the kernel named by --kernel (or
/// the only one).
rt::Expected<std::shared_ptr<const jit::CompiledKernel>>
compileSelected(jit::Compiler &compiler, const std::string &file,
                const jit::CompileOptions &options) {
  rt::Expected<jit::CompiledKernels> kernels =
      compiler.compileFile(file, options, kernelOpt);
  if (!kernels)
    return kernels.takeError();
  // Only the target's warnings (a host reference build has its own).
  if (options.target != "host" || !options.optimize)
    printWarnings(*kernels);
  if (kernelOpt.empty() && kernels->size() != 1) {
    std::string names;
    for (const auto &k : *kernels)
      names += (names.empty() ? "" : ", ") + k->Info.name();
    return rt::makeError(file + " has several kernels (" + names +
                         "): choose one with --kernel");
  }
  return kernels->front();
}

/// Decodes a packed tensor to doubles.
std::vector<double> decodeAll(const std::string &dtype,
                              const std::vector<uint8_t> &packed, uint64_t n) {
  auto format = numerics::parseFormat(dtype);
  std::vector<uint32_t> codes(n);
  (void)numerics::unpackBits(packed.data(), n, format->bits(), codes.data());
  std::vector<double> values(n);
  for (uint64_t i = 0; i < n; ++i)
    values[i] = numerics::decode(*format, codes[i]);
  return values;
}

void printSummary(llvm::raw_ostream &os, const rt::TensorArg &t,
                  const std::vector<uint8_t> &packed) {
  std::vector<double> values = decodeAll(t.Param->DType, packed, t.NumElements);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  uint64_t finite = 0, nan = 0;
  for (double v : values) {
    if (std::isnan(v)) {
      ++nan;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (std::isfinite(v)) {
      sum += v;
      ++finite;
    }
  }
  os << t.Param->Name << ": " << t.Param->DType << "[";
  llvm::interleaveComma(t.Shape, os);
  os << "]";
  if (values.empty()) {
    os << " (empty)\n";
    return;
  }
  os << llvm::format("  min %.6g  max %.6g  mean %.6g", lo, hi,
                     finite ? sum / finite : 0.0);
  if (nan)
    os << "  nan " << nan;
  uint64_t checksum = rt::fnv1a64(std::string_view(
      reinterpret_cast<const char *>(packed.data()), packed.size()));
  os << "  checksum " << llvm::format_hex_no_prefix(checksum, 16) << "\n";
}

rt::Error writeTensorNpy(const std::string &path, const rt::TensorArg &t,
                         const std::vector<uint8_t> &packed) {
  rt::Expected<rt::NpyArray> array = rt::toNpy(t.Param->DType, t.Shape, packed);
  if (!array)
    return array.takeError();
  return rt::writeNpy(path, *array);
}

rt::Error writeDumpManifest(const std::string &dir, const rt::KernelInfo &info,
                            const rt::PreparedRun &run,
                            const rt::TestCase &test) {
  rt::json::Array args;
  for (const rt::ParamInfo &p : info.Signature.Params) {
    rt::json::Object entry{{"name", p.Name}, {"dtype", p.DType}};
    switch (p.Kind) {
    case rt::ParamKind::Tensor: {
      entry.emplace_back("kind", "tensor");
      for (const rt::TensorArg &t : run.Tensors)
        if (t.Param == &p) {
          rt::json::Array shape;
          for (int64_t d : t.Shape)
            shape.emplace_back(d);
          entry.emplace_back("shape", std::move(shape));
        }
      entry.emplace_back("mut", p.Mut);
      entry.emplace_back("before", p.Name + ".in.npy");
      entry.emplace_back("after", p.Name + ".out.npy");
      break;
    }
    case rt::ParamKind::Scalar:
      entry.emplace_back("kind", "scalar");
      entry.emplace_back("value", test.Scalars.at(p.Name));
      break;
    case rt::ParamKind::Dim:
      entry.emplace_back("kind", "dim");
      entry.emplace_back("value", test.Sizes.at(p.Name));
      break;
    }
    args.emplace_back(std::move(entry));
  }
  rt::json::Object root{{"kernel", info.name()},
                        {"target", info.Target},
                        {"seed", static_cast<int64_t>(test.Seed)},
                        {"args", std::move(args)}};
  return rt::json::writeFile(dir + "/manifest.json",
                             rt::json::Value(std::move(root)));
}

/// Compiles, prepares and launches one kernel; the outputs are read back
/// into \p outputs (parallel to run.Tensors).
struct Execution {
  std::shared_ptr<const jit::CompiledKernel> kernel;
  rt::Device device;
  rt::PreparedRun run;
  std::vector<std::vector<uint8_t>> outputs;
  /// With --repeat: the median time of the timed launches.
  std::optional<float> medianMs;
};

rt::Expected<Execution> execute(jit::Compiler &compiler,
                                const std::string &file,
                                const jit::CompileOptions &options,
                                const std::string &deviceSpec,
                                const rt::TestCase &test) {
  Execution exec;
  auto kernel = compileSelected(compiler, file, options);
  if (!kernel)
    return kernel.takeError();
  exec.kernel = *kernel;
  auto device = rt::Device::open(deviceSpec);
  if (!device)
    return device.takeError();
  exec.device = *device;
  if (!rt::targetRunsOn(exec.kernel->Info.Target, exec.kernel->Info.Kind,
                        exec.device))
    return rt::makeError("code for " + exec.kernel->Info.Target +
                         " cannot run on " + exec.device.name() + " (" +
                         exec.device.arch() + ")");
  auto loaded = compiler.load(*exec.kernel, exec.device);
  if (!loaded)
    return loaded.takeError();
  auto run = rt::prepareRun(exec.kernel->Info.Signature, test, exec.device);
  if (!run)
    return run.takeError();
  exec.run = std::move(*run);
  if (loaded->runsFallback(exec.run.Bound))
    llvm::errs() << "tilec: note: " << exec.kernel->Info.name()
                 << ": no TMA tensor map fits these tensors (they need "
                    "16-byte aligned rows of a multiple of 16 bytes): "
                    "running its copy compiled without TMA\n";
  if (rt::Error e = loaded->launch(exec.run.Bound))
    return e;
  if (rt::Error e = exec.device.synchronize())
    return e;
  for (const rt::TensorArg &t : exec.run.Tensors) {
    std::vector<uint8_t> bytes(t.Bytes);
    if (t.Bytes)
      if (rt::Error e = t.Buf.download(bytes.data(), t.Bytes))
        return e;
    exec.outputs.push_back(std::move(bytes));
  }
  if (repeatOpt > 0) {
    // Timing: 2 warm-up launches, then the median of N.
    auto times =
        rt::timeLaunches(*loaded, exec.run.Bound, exec.device, 2, repeatOpt);
    if (!times)
      return times.takeError();
    auto stats = rt::summarizeTimes(std::move(*times));
    if (!stats)
      return stats.takeError();
    exec.medianMs = static_cast<float>(stats->MedianMs);
  }
  return exec;
}

/// With --tune-cache (run, check): adds to \p options the configuration the
/// cache holds for kernel --kernel of runFile at the sizes of \p test on
/// \p deviceSpec, and says which; false after an error.
bool applyTunedConfiguration(jit::CompileOptions &options,
                             const std::string &deviceSpec,
                             const rt::TestCase &test) {
  if (bundleTuneCache.empty())
    return true;
  if (kernelOpt.empty()) {
    fail("--tune-cache needs --kernel");
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(runFile, /*IsText=*/true);
  if (!buffer) {
    fail("cannot read " + runFile + ": " + buffer.getError().message());
    return false;
  }
  auto device = rt::Device::open(deviceSpec);
  if (!device) {
    fail(device.message());
    return false;
  }
  rt::TuneKey key = jit::tuneKey((*buffer)->getBuffer().str(), kernelOpt,
                                 options, *device, test.Sizes);
  rt::TuneCache cache(bundleTuneCache);
  std::optional<rt::TuneEntry> hit = cache.lookup(key);
  if (!hit) {
    fail(bundleTuneCache + " holds no configuration of " + kernelOpt +
         " for bucket " + key.Bucket + " on " + device->name() +
         " (tilec tune records one)");
    return false;
  }
  options.defines = jit::withConfig(options.defines, hit->Config);
  llvm::outs() << "tuned configuration for bucket " << key.Bucket << ": "
               << rt::configToString(hit->Config) << "\n";
  return true;
}

int runMain() {
  jit::CompileOptions options;
  options.target = targetOpt;
  options.tma = tmaOpt;
  options.warpSpecialize = warpSpecializeOpt;
  options.persistent = persistentOpt;
  options.dependentLaunch = dependentLaunchOpt;
  if (!collectDefines(options.defines))
    return 1;
  if (sizeOpt.size() > 1)
    return fail("tilec run takes one --size list");
  rt::TestCase test;
  if (!makeTestCase(sizeOpt.empty() ? "" : sizeOpt.front(), test))
    return 1;
  jit::Compiler compiler = makeCompiler();
  std::string deviceSpec =
      deviceOpt.empty() ? defaultDevice(targetOpt) : std::string(deviceOpt);
  options.emulate = isEmulator(deviceSpec);
  if (!applyTunedConfiguration(options, deviceSpec, test))
    return 1;
  auto exec = execute(compiler, runFile, options, deviceSpec, test);
  if (!exec)
    return fail(exec.message());

  llvm::outs() << exec->kernel->Info.name() << " on " << exec->device.name()
               << ", grid [" << exec->run.Bound.Grid[0] << ", "
               << exec->run.Bound.Grid[1] << ", " << exec->run.Bound.Grid[2]
               << "], seed " << test.Seed << "\n";
  for (size_t i = 0; i < exec->run.Tensors.size(); ++i)
    if (exec->run.Tensors[i].Param->Mut)
      printSummary(llvm::outs(), exec->run.Tensors[i], exec->outputs[i]);
  if (exec->medianMs)
    llvm::outs() << llvm::format("time: median %.4f ms over %u runs\n",
                                 *exec->medianMs, repeatOpt.getValue());

  if (!dumpOpt.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpOpt))
      return fail("cannot create " + dumpOpt + ": " + ec.message());
    for (size_t i = 0; i < exec->run.Tensors.size(); ++i) {
      const rt::TensorArg &t = exec->run.Tensors[i];
      std::string base = dumpOpt + "/" + t.Param->Name;
      if (rt::Error e = writeTensorNpy(base + ".in.npy", t, t.Initial))
        return fail(e.message());
      if (rt::Error e = writeTensorNpy(base + ".out.npy", t, exec->outputs[i]))
        return fail(e.message());
    }
    if (rt::Error e =
            writeDumpManifest(dumpOpt, exec->kernel->Info, exec->run, test))
      return fail(e.message());
  }
  return 0;
}

/// The float64 reference (lib/Reference) of the kernel \p exec ran, when
/// runFile is one of examples/ (by file name) and the kernel reads and
/// writes what the reference expects; otherwise null and \p why says why.
const reference::Reference *float64ReferenceFor(const Execution &exec,
                                                std::string &why) {
  std::string file = llvm::sys::path::filename(runFile).str();
  const std::string &kernel = exec.kernel->Info.name();
  const reference::Reference *r = reference::lookup(file, kernel);
  if (!r) {
    why = "no float64 reference for kernel " + kernel + " of " + file +
          " (there is one for each kernel of examples/)";
    return nullptr;
  }
  const auto &params = exec.kernel->Info.Signature.Params;
  auto has = [&](const std::string &name, bool mut) {
    return llvm::any_of(params, [&](const rt::ParamInfo &p) {
      return p.Name == name && (!mut || p.Mut);
    });
  };
  for (const std::string &name : r->inputs)
    if (!has(name, false)) {
      why = file + " " + kernel + " has no parameter " + name +
            ": not the example its float64 reference describes";
      return nullptr;
    }
  for (const std::string &name : r->outputs)
    if (!has(name, true)) {
      why = file + " " + kernel + " has no mut tensor " + name +
            ": not the example its float64 reference describes";
      return nullptr;
    }
  return r;
}

/// Compares the outputs of \p exec with the float64 reference \p r; returns
/// the number of outputs that fail.
unsigned checkAgainstFloat64(const Execution &exec, const rt::TestCase &test,
                             const reference::Reference &r) {
  reference::Launch launch;
  for (const rt::TensorArg &t : exec.run.Tensors)
    if (!t.Poisoned)
      launch.in[t.Param->Name] = {
          t.Shape, decodeAll(t.Param->DType, t.Initial, t.NumElements)};
  for (const auto &[name, value] : exec.run.Bound.Dims)
    launch.dims[name] = value;
  launch.scalars = test.Scalars;
  launch.constants = rt::constantTexts(exec.kernel->Info);
  // A mut tensor the reference reads (the addend of gemm_decode's
  // atomic_add) must hold its inputs, not the poison.
  for (const rt::TensorArg &t : exec.run.Tensors)
    if (t.Poisoned && llvm::is_contained(r.inputs, t.Param->Name)) {
      llvm::errs() << "tilec: error: the float64 reference of "
                   << exec.kernel->Info.name() << " reads " << t.Param->Name
                   << " before the launch: pass --inout " << t.Param->Name
                   << "\n";
      return 1;
    }
  if (r.unsupported) {
    std::string why = r.unsupported(launch);
    if (!why.empty()) {
      llvm::errs() << "tilec: error: the float64 reference of "
                   << exec.kernel->Info.name() << " does not apply: " << why
                   << "\n";
      return 1;
    }
  }
  reference::Outputs want = r.compute(launch);

  llvm::outs() << exec.kernel->Info.name() << ": " << targetOpt << " on "
               << exec.device.name() << " vs float64 reference (examples/"
               << llvm::sys::path::filename(runFile) << ")\n";
  unsigned failures = 0;
  for (size_t i = 0; i < exec.run.Tensors.size(); ++i) {
    const rt::TensorArg &t = exec.run.Tensors[i];
    auto it = want.find(t.Param->Name);
    if (it == want.end())
      continue;
    reference::Expected expected = it->second;
    if (atolOpt >= 0)
      expected.atol = atolOpt;
    if (rtolOpt >= 0)
      expected.rtol = rtolOpt;
    reference::Comparison c = reference::compare(
        decodeAll(t.Param->DType, exec.outputs[i], t.NumElements), expected);
    failures += c.bad != 0;
    llvm::outs() << (c.bad ? "FAIL " : "PASS ") << t.Param->Name
                 << llvm::format(": max_abs=%g atol=%g rtol=%g ", c.maxAbsError,
                                 expected.atol, expected.rtol)
                 << "mismatches=" << c.bad << "/" << t.NumElements
                 << (c.bad ? " (first: " + c.firstBad + ")" : "") << "\n";
  }
  return failures;
}

/// Runs the kernel on the host with the same inputs (for --target host,
/// the unoptimized host lowering: a second, independent compilation) and
/// compares; returns the number of outputs that fail.
rt::Expected<unsigned> checkAgainstHost(jit::Compiler &compiler,
                                        const jit::CompileOptions &options,
                                        const rt::TestCase &test,
                                        const Execution &exec) {
  jit::CompileOptions refOptions = options;
  refOptions.target = "host";
  refOptions.emulate = false;
  refOptions.optimize = options.target != "host";
  auto ref = execute(compiler, runFile, refOptions, "host", test);
  if (!ref)
    return rt::makeError("reference: " + ref.message());

  llvm::outs() << exec.kernel->Info.name() << ": " << options.target << " on "
               << exec.device.name() << " vs host reference"
               << (refOptions.optimize ? "" : " (unoptimized)") << "\n";
  unsigned failures = 0;
  for (size_t i = 0; i < exec.run.Tensors.size(); ++i) {
    const rt::TensorArg &t = exec.run.Tensors[i];
    if (!t.Param->Mut)
      continue;
    if (ref->run.Tensors[i].Poisoned) {
      auto left =
          rt::poisonLeft(t.Param->DType, ref->outputs[i].data(), t.NumElements);
      if (!left)
        return left.takeError();
      if (*left >= 0) {
        ++failures;
        llvm::outs() << "FAIL " << t.Param->Name
                     << ": the host reference leaves element " << *left
                     << " unwritten (it still holds the poison pattern)\n";
        continue;
      }
    }
    auto stats = rt::compareTensors(t.Param->DType, exec.outputs[i].data(),
                                    ref->outputs[i].data(), t.NumElements,
                                    {atolOpt, rtolOpt});
    if (!stats)
      return stats.takeError();
    bool ok = stats->Mismatches == 0;
    failures += !ok;
    llvm::outs() << (ok ? "PASS " : "FAIL ") << t.Param->Name << ": "
                 << (stats->Exact ? "exact, " : "") << stats->summary() << "\n";
  }
  return failures;
}

int checkMain() {
  jit::CompileOptions options;
  options.target = targetOpt;
  options.tma = tmaOpt;
  options.warpSpecialize = warpSpecializeOpt;
  options.persistent = persistentOpt;
  options.dependentLaunch = dependentLaunchOpt;
  if (!collectDefines(options.defines))
    return 1;
  if (sizeOpt.size() != 1)
    return fail("tilec check takes one --size list");
  const std::string mode = referenceOpt;
  if (mode != "auto" && mode != "float64" && mode != "host")
    return fail("--reference takes auto, float64 or host, not '" + mode + "'");
  rt::TestCase test;
  if (!makeTestCase(sizeOpt.front(), test))
    return 1;
  jit::Compiler compiler = makeCompiler();
  std::string deviceSpec =
      deviceOpt.empty() ? defaultDevice(targetOpt) : std::string(deviceOpt);
  options.emulate = isEmulator(deviceSpec);
  if (!applyTunedConfiguration(options, deviceSpec, test))
    return 1;
  auto exec = execute(compiler, runFile, options, deviceSpec, test);
  if (!exec)
    return fail(exec.message());
  if (llvm::none_of(exec->run.Tensors,
                    [](const rt::TensorArg &t) { return t.Param->Mut; }))
    return fail("kernel has no mut tensor to compare");

  unsigned failures = 0;
  if (mode != "host") {
    std::string why;
    if (const reference::Reference *r = float64ReferenceFor(*exec, why))
      failures += checkAgainstFloat64(*exec, test, *r);
    else if (mode == "float64")
      return fail(why);
  }
  if (mode != "float64") {
    auto hostFailures = checkAgainstHost(compiler, options, test, *exec);
    if (!hostFailures)
      return fail(hostFailures.message());
    failures += *hostFailures;
  }
  return failures ? 1 : 0;
}

int bundleMain() {
  jit::CompileOptions options;
  options.target = targetOpt;
  options.tma = tmaOpt;
  options.warpSpecialize = warpSpecializeOpt;
  options.persistent = persistentOpt;
  options.dependentLaunch = dependentLaunchOpt;
  options.emulate = emulateOpt;
  if (!collectDefines(options.defines))
    return 1;
  jit::Compiler compiler = makeCompiler();
  jit::CompiledKernels all;
  std::vector<std::vector<rt::TestCase>> tests;
  for (const std::string &file : bundleFiles) {
    auto kernels = compiler.compileFile(file, options, kernelOpt);
    if (!kernels)
      return fail(kernels.message());
    printWarnings(*kernels);
    for (const auto &k : *kernels) {
      all.push_back(k);
      tests.emplace_back();
    }
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(bundleOut))
    return fail("cannot create " + bundleOut + ": " + ec.message());

  // Reference outputs: every test case runs on the host target; the runner
  // regenerates the same seeded inputs and compares against these.
  if (!sizeOpt.empty()) {
    if (bundleFiles.size() != 1 || all.size() != 1)
      return fail("--size in a bundle needs exactly one kernel (use "
                  "--kernel)");
    jit::CompileOptions refOptions = options;
    refOptions.target = "host";
    refOptions.emulate = false;
    for (auto [index, sizes] : llvm::enumerate(sizeOpt)) {
      rt::TestCase test;
      if (!makeTestCase(sizes, test))
        return 1;
      auto ref =
          execute(compiler, bundleFiles.front(), refOptions, "host", test);
      if (!ref)
        return fail("reference for --size " + sizes + ": " + ref.message());
      for (size_t i = 0; i < ref->run.Tensors.size(); ++i) {
        const rt::TensorArg &t = ref->run.Tensors[i];
        if (!t.Param->Mut)
          continue;
        if (t.Poisoned) {
          auto left = rt::poisonLeft(t.Param->DType, ref->outputs[i].data(),
                                     t.NumElements);
          if (!left)
            return fail(left.message());
          if (*left >= 0)
            return fail("reference for --size " + sizes + ": output " +
                        t.Param->Name + " element " + std::to_string(*left) +
                        " is not written (it still holds the poison "
                        "pattern)");
        }
        std::string file = all.front()->Info.name() + ".test" +
                           std::to_string(index) + "." + t.Param->Name + ".npy";
        if (rt::Error e =
                writeTensorNpy(bundleOut + "/" + file, t, ref->outputs[i]))
          return fail(e.message());
        test.ExpectedFiles[t.Param->Name] = file;
      }
      tests.front().push_back(std::move(test));
    }
  }
  if (!bundleTuneCache.empty()) {
    if (bundleFiles.size() != 1 || all.size() != 1)
      return fail("--tune-cache needs exactly one kernel (use --kernel)");
    auto variants = driver::tunedVariants(
        compiler, bundleFiles.front(), all.front()->Info.name(), options,
        bundleTuneCache, bundleTuneDevice, llvm::outs());
    if (!variants)
      return fail(variants.message());
    for (const auto &v : *variants) {
      all.push_back(v);
      tests.push_back(tests.front()); // The same shapes, the same outputs.
    }
  }
  if (rt::Error e = jit::writeBundle(bundleOut, all, tests))
    return fail(e.message());
  llvm::outs() << "wrote " << bundleOut << ": " << all.size() << " kernel"
               << (all.size() == 1 ? "" : "s") << " for " << options.target;
  if (!sizeOpt.empty())
    llvm::outs() << ", " << sizeOpt.size() << " test"
                 << (sizeOpt.size() == 1 ? "" : "s");
  llvm::outs() << "\n";
  return 0;
}

} // namespace

bool tile::driver::splitAssignment(llvm::StringRef text, std::string &name,
                                   std::string &value) {
  auto [lhs, rhs] = text.split('=');
  if (lhs.trim().empty() || !text.contains('='))
    return false;
  name = lhs.trim().str();
  value = rhs.trim().str();
  return true;
}

bool tile::driver::parseSizeList(llvm::StringRef text, rt::DimMap &dims) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    std::string name, value;
    int64_t n;
    if (!driver::splitAssignment(part, name, value) ||
        llvm::StringRef(value).getAsInteger(10, n) || n < 0) {
      fail("--size expects DIM=V with V a non-negative integer, got '" + part +
           "'");
      return false;
    }
    dims[name] = n;
  }
  return true;
}

std::string tile::driver::defaultDeviceFor(llvm::StringRef target,
                                           bool emulate) {
  if (target.starts_with("sm_"))
    return emulate ? "cuda-emu" : "cuda";
  if (target.starts_with("gfx"))
    return emulate ? "hip-emu" : "hip";
  return "host";
}

bool tile::driver::isEmulatorDevice(llvm::StringRef deviceSpec) {
  return deviceSpec.starts_with("cuda-emu") ||
         deviceSpec.starts_with("hip-emu");
}

bool tile::driver::runSelectedSubcommand(int &exitCode) {
  if (runCmd) {
    exitCode = runMain();
    return true;
  }
  if (checkCmd) {
    exitCode = checkMain();
    return true;
  }
  if (bundleCmd) {
    exitCode = bundleMain();
    return true;
  }
  return runPackSubcommand(exitCode) || runTuneSubcommand(exitCode);
}
