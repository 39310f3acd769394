//===- Tune.cpp - Autotuning kernels from source --------------------------===//
//
// Part of tilec. The space comes from the front end's kernel listing; each
// configuration is a set of -D values compiled through the JIT (so repeated
// tunings hit its caches); rt::Autotuner compiles on all cores and times one
// candidate at a time.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Tune.h"

#include "tile/Frontend/KernelInfo.h"
#include "tile/Target/TargetInfo.h"
#include "tile/runtime/TestRun.h"
#include "tile/runtime/Timing.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

using namespace tile;
using namespace tile::jit;

namespace {

/// A tune value as JSON: an integer when it reads as one, true/false, else
/// the text (a type name).
rt::json::Value valueOf(const std::string &text) {
  int64_t n;
  if (!llvm::StringRef(text).getAsInteger(10, n))
    return rt::json::Value(n);
  if (text == "true" || text == "false")
    return rt::json::Value(text == "true");
  return rt::json::Value(text);
}

/// The -D text of a tune value.
std::string textOf(const rt::json::Value &v) {
  if (v.isString())
    return v.getString();
  if (v.isBool())
    return v.getBool() ? "true" : "false";
  return rt::json::write(v, 0);
}

/// "NAME=V,NAME=V" of \p defines (sorted by name).
std::string definesText(const std::map<std::string, std::string> &defines) {
  std::string s;
  for (const auto &[name, value] : defines)
    s += (s.empty() ? "" : ",") + name + "=" + value;
  return s;
}

std::string hashText(const std::string &text) {
  std::string hex;
  llvm::raw_string_ostream(hex) << llvm::format_hex_no_prefix(
      llvm::xxh3_64bits(llvm::StringRef(text)), 16);
  return hex;
}

/// Inputs shared by the candidates of one signature, prepared at the first
/// timed launch (one allocation for the whole tuning).
struct SharedInputs {
  rt::Device device;
  rt::TestCase test;
  std::map<std::string, std::shared_ptr<rt::PreparedRun>> bySignature;
  rt::Buffer scratch;

  rt::Expected<rt::PreparedRun *> get(const rt::KernelInfo &info) {
    std::string key;
    for (const rt::ParamInfo &p : info.Signature.Params) {
      key += p.Name + ":" + p.DType + "[";
      for (const std::string &d : p.Shape)
        key += d + ",";
      key += "];";
    }
    auto &slot = bySignature[key];
    if (!slot) {
      auto run = rt::prepareRun(info.Signature, test, device);
      if (!run)
        return run.takeError();
      slot = std::make_shared<rt::PreparedRun>(std::move(*run));
    }
    return slot.get();
  }
};

/// NVIDIA sm_80 to sm_90: 64K 32-bit registers per SM, allocated per warp
/// in units of 256.
constexpr unsigned kNvRegistersPerSM = 65536;

/// Programs of \p info that fit on one SM by their registers (NVIDIA code
/// with a register figure; -1 otherwise).
int64_t programsPerSMByRegisters(const rt::KernelInfo &info) {
  if (info.Registers <= 0 || info.Target.rfind("sm_", 0) != 0)
    return -1;
  uint64_t warpRegs = (uint64_t(info.Registers) * 32 + 255) / 256 * 256;
  uint64_t warps = (info.Launch.ThreadsPerBlock + 31) / 32;
  return int64_t(kNvRegistersPerSM / (warpRegs * warps));
}

/// "96 regs, 2 KB spills, 48 KB shared, 2 CTAs/SM by registers, 264
/// programs".
std::string summarize(const rt::KernelInfo &info, uint64_t programs) {
  std::string s;
  auto add = [&](const std::string &part) {
    s += (s.empty() ? "" : ", ") + part;
  };
  if (info.Registers >= 0)
    add(std::to_string(info.Registers) + " regs");
  if (info.Spills > 0)
    add(std::to_string(info.Spills) + " spilled");
  if (info.Launch.SharedBytes)
    add(std::to_string((info.Launch.SharedBytes + 1023) / 1024) + " KB shared");
  if (int64_t perSM = programsPerSMByRegisters(info); perSM >= 0)
    add(std::to_string(perSM) + " per SM by registers");
  add(std::to_string(programs) + " programs");
  return s;
}

/// What pruning needs to know of a compiled candidate.
struct CandidateFacts {
  int64_t spills = -1;
  uint64_t programs = 0;
};

/// Compiles \p config of \p request into a candidate (or a reason to prune
/// it) and records what the whole-space pruning needs in \p facts.
rt::Expected<rt::Autotuner::Candidate>
compileCandidate(Compiler &compiler, const TuneRequest &request,
                 const rt::TuneConfig &config, uint64_t sharedLimit,
                 const std::shared_ptr<SharedInputs> &inputs,
                 CandidateFacts &facts) {
  CompileOptions options = request.Options;
  options.defines = withConfig(options.defines, config);
  auto kernel = compiler.compileKernel(request.Source, request.SourceName,
                                       request.Kernel, options);
  if (!kernel)
    return kernel.takeError();
  rt::KernelInfo info = (*kernel)->Info;
  if (options.target != "host" && options.emulate) {
    // The emulator's code object has no register report: the native
    // compilation tells (skipped when its assembler is missing).
    CompileOptions native = options;
    native.emulate = false;
    if (auto real = compiler.compileKernel(request.Source, request.SourceName,
                                           request.Kernel, native)) {
      info.Registers = (*real)->Info.Registers;
      info.Spills = (*real)->Info.Spills;
    }
  }
  facts.spills = info.Spills;
  uint64_t programs = 1;
  for (const std::string &g : info.Signature.Grid) {
    auto n = rt::evaluateExpr(g, request.Test.Sizes);
    if (!n)
      return rt::makeError("grid: " + n.message() +
                           " (give every dimension with the sizes)");
    programs *= uint64_t(std::max<int64_t>(*n, 0));
  }
  facts.programs = programs;
  rt::Autotuner::Candidate candidate;
  candidate.Summary = summarize(info, programs);
  if (sharedLimit && info.Launch.SharedBytes > sharedLimit)
    candidate.PruneReason = "needs " + std::to_string(info.Launch.SharedBytes) +
                            " bytes of shared memory, the device has " +
                            std::to_string(sharedLimit);
  else if (programs == 0)
    candidate.PruneReason = "empty grid for these sizes";
  else if (programsPerSMByRegisters(info) == 0)
    candidate.PruneReason = std::to_string(info.Registers) +
                            " registers per thread: no program fits in "
                            "an SM's " +
                            std::to_string(kNvRegistersPerSM) + " registers";
  auto compiled = *kernel;
  candidate.Run =
      [&compiler, compiled, inputs,
       loaded = std::optional<rt::Kernel>()]() mutable -> rt::Expected<double> {
    if (!loaded) {
      auto k = compiler.load(*compiled, inputs->device);
      if (!k)
        return k.takeError();
      loaded = *k;
    }
    auto run = inputs->get(compiled->Info);
    if (!run)
      return run.takeError();
    auto times = rt::timeLaunches(*loaded, (*run)->Bound, inputs->device, 0, 1,
                                  inputs->scratch ? &inputs->scratch : nullptr);
    if (!times)
      return times.takeError();
    return times->front();
  };
  return candidate;
}

/// What cannot win against the rest of the space: spills beyond the
/// negligible while others have none beyond it (negligibleSpills; \p nvidia:
/// the spills are bytes of spill stores, else spilled registers); a grid
/// under a quarter of the device's \p units while another fills it.
std::vector<std::string>
pruneDominated(const std::vector<const rt::Autotuner::Candidate *> &cands,
               const std::vector<CandidateFacts> &facts, unsigned units,
               bool nvidia) {
  std::vector<std::string> why(cands.size());
  auto heavy = [&](size_t i) {
    return facts[i].spills > 0 && !negligibleSpills(facts[i].spills, nvidia);
  };
  bool someClean = false;
  uint64_t maxPrograms = 0;
  for (size_t i = 0; i < cands.size(); ++i)
    if (cands[i]) {
      someClean |= facts[i].spills >= 0 && !heavy(i);
      maxPrograms = std::max(maxPrograms, facts[i].programs);
    }
  for (size_t i = 0; i < cands.size(); ++i) {
    if (!cands[i])
      continue;
    if (someClean && heavy(i))
      why[i] = "spills (" + std::to_string(facts[i].spills) +
               ") while other configurations do not (beyond 4 registers)";
    else if (units && maxPrograms >= units && facts[i].programs * 4 < units)
      why[i] = std::to_string(facts[i].programs) + " programs for " +
               std::to_string(units) +
               " compute units while others fill the device";
  }
  return why;
}

/// The dimensions of \p k's tune space: its tune block's parameters but
/// those \p fixed sets, each with the values \p overrides gives it or the
/// block's, then the overrides' parameters the block does not list, in the
/// kernel's order.
rt::Expected<std::vector<frontend::KernelInfo::TuneDim>>
spaceDimensions(const frontend::KernelInfo &k, const std::string &sourceName,
                const std::map<std::string, std::string> &fixed,
                const SpaceOverrides &overrides) {
  std::string where = sourceName + ":" + std::to_string(k.line) + ": ";
  for (const auto &[name, values] : overrides) {
    bool known = std::any_of(k.ctParams.begin(), k.ctParams.end(),
                             [&](const auto &p) { return p.name == name; });
    if (!known)
      return rt::makeError(where + "kernel " + k.name +
                           " has no compile-time parameter '" + name +
                           "' (--space " + name + "=...)");
    if (values.empty())
      return rt::makeError("--space " + name + "= lists no value to try");
    if (fixed.count(name))
      return rt::makeError("'" + name +
                           "' is both fixed (-D) and tuned (--space)");
  }
  std::vector<frontend::KernelInfo::TuneDim> dims;
  for (const frontend::KernelInfo::TuneDim &dim : k.tune) {
    if (fixed.count(dim.name))
      continue;
    dims.push_back(dim);
    if (auto o = overrides.find(dim.name); o != overrides.end())
      dims.back().values = o->second;
  }
  for (const auto &p : k.ctParams) {
    auto o = overrides.find(p.name);
    bool listed = std::any_of(k.tune.begin(), k.tune.end(),
                              [&](const auto &d) { return d.name == p.name; });
    if (o == overrides.end() || listed)
      continue;
    frontend::KernelInfo::TuneDim dim;
    dim.name = p.name;
    dim.values = o->second;
    dims.push_back(std::move(dim));
  }
  return dims;
}

} // namespace

bool jit::negligibleSpills(int64_t spills, bool nvidia) {
  constexpr int64_t kNegligibleRegisters = 4;
  return spills <= (nvidia ? 4 * kNegligibleRegisters : kNegligibleRegisters);
}

rt::Expected<std::vector<rt::TuneConfig>>
jit::tuneSpace(const std::string &source, const std::string &sourceName,
               const std::string &kernel,
               const std::map<std::string, std::string> &fixed,
               rt::TuneConfig *defaults, std::vector<std::string> *params,
               const SpaceOverrides &overrides, frontend::TargetFacts target) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, sourceName), llvm::SMLoc());
  std::vector<frontend::KernelInfo> kernels;
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  bool listed = frontend::listKernels(sm, kernels, &diagOS, fixed, target);
  auto it = std::find_if(kernels.begin(), kernels.end(),
                         [&](const auto &k) { return k.name == kernel; });
  if (it == kernels.end())
    return rt::makeError(kernels.empty() && !listed
                             ? diagnostics
                             : "no kernel named '" + kernel + "' in " +
                                   sourceName);
  // A parameter without a default is fine when the space or -D gives it
  // (the listing reports every parameter without a default, of every kernel).
  for (const auto &p : it->ctParams) {
    bool tuned = overrides.count(p.name) ||
                 std::any_of(it->tune.begin(), it->tune.end(),
                             [&](const auto &d) { return d.name == p.name; });
    if (!p.hasDefault && !tuned && !fixed.count(p.name))
      return rt::makeError(sourceName + ":" + std::to_string(it->line) +
                           ": compile-time parameter '" + p.name + "' of " +
                           kernel +
                           " has no default value and is not tuned; pass -D " +
                           p.name + "=VALUE");
  }
  auto dims = spaceDimensions(*it, sourceName, fixed, overrides);
  if (!dims)
    return dims.takeError();
  if (dims->empty() && it->tune.empty())
    return rt::makeError(sourceName + ":" + std::to_string(it->line) +
                         ": kernel " + kernel +
                         " has no tune block: nothing to tune");
  std::vector<rt::TuneConfig> space = {{}};
  for (const frontend::KernelInfo::TuneDim &dim : *dims) {
    if (params)
      params->push_back(dim.name);
    for (const auto &p : it->ctParams)
      if (defaults && p.name == dim.name && p.hasDefault)
        (*defaults)[dim.name] = valueOf(p.defaultValue);
    std::vector<rt::TuneConfig> next;
    for (const rt::TuneConfig &partial : space)
      for (const std::string &value : dim.values) {
        rt::TuneConfig c = partial;
        c[dim.name] = valueOf(value);
        next.push_back(std::move(c));
      }
    space = std::move(next);
  }
  if (space.size() == 1 && space.front().empty())
    return rt::makeError("every parameter of the tune block of " + kernel +
                         " is fixed by -D: nothing to tune");
  return space;
}

std::map<std::string, std::string>
jit::withConfig(std::map<std::string, std::string> defines,
                const rt::TuneConfig &config) {
  for (const auto &[name, value] : config)
    defines[name] = textOf(value);
  return defines;
}

rt::TuneKey jit::tuneKey(const std::string &source, const std::string &kernel,
                         const CompileOptions &options,
                         const rt::Device &device, const rt::DimMap &sizes) {
  return tuneKey(source, kernel, options, device.name(), device.arch(), sizes);
}

rt::TuneKey jit::tuneKey(const std::string &source, const std::string &kernel,
                         const CompileOptions &options,
                         const std::string &deviceName, const std::string &arch,
                         const rt::DimMap &sizes) {
  rt::TuneKey key;
  key.Device = deviceName;
  key.Arch = arch;
  key.Compiler = Compiler::version();
  key.Source = hashText(source);
  key.Kernel = kernel;
  // TMA copies (CompileOptions::tma) make other kernels: their own entries
  // (so do a producer warpgroup, persistence and dependent launches).
  key.Target = options.target + (options.tma ? "+tma" : "") +
               (options.warpSpecialize ? "+ws" : "") +
               (options.persistent ? "+persistent" : "") +
               (options.dependentLaunch ? "+pdl" : "");
  key.Defines = definesText(options.defines);
  key.Bucket = rt::bucketText(sizes);
  return key;
}

rt::Expected<TuneOutcome> jit::tuneKernel(Compiler &compiler,
                                          rt::Device &device,
                                          const TuneRequest &request) {
  const CompileOptions &opts = request.Options;
  bool isHost = opts.target == "host", isNV = opts.target.rfind("sm_", 0) == 0;
  rt::ObjectKind kind =
      isHost ? rt::ObjectKind::HostSO
      : isNV
          ? (opts.emulate ? rt::ObjectKind::NvEmuSO : rt::ObjectKind::Cubin)
          : (opts.emulate ? rt::ObjectKind::AmdEmuSO : rt::ObjectKind::Hsaco);
  if (!rt::targetRunsOn(opts.target, kind, device))
    return rt::makeError("code for " + opts.target + " cannot run on " +
                         device.name() + " (" + device.arch() + ")");
  TuneOutcome outcome;
  std::optional<::tile::TargetInfo> info =
      ::tile::TargetInfo::lookup(opts.target);
  auto space = tuneSpace(
      request.Source, request.SourceName, request.Kernel,
      request.Options.defines, &outcome.Defaults, &outcome.Params,
      request.Space, info ? info->frontendFacts() : frontend::TargetFacts{});
  if (!space)
    return space.takeError();
  bool defaultsComplete = outcome.Defaults.size() == outcome.Params.size();
  if (defaultsComplete &&
      std::find(space->begin(), space->end(), outcome.Defaults) == space->end())
    space->push_back(outcome.Defaults); // Timed too, for the comparison.

  auto inputs = std::make_shared<SharedInputs>();
  inputs->device = device;
  inputs->test = request.Test;
  if (request.FlushL2MiB) {
    auto scratch = device.allocate(uint64_t(request.FlushL2MiB) << 20);
    if (!scratch)
      return scratch.takeError();
    inputs->scratch = *scratch;
  }
  std::vector<CandidateFacts> facts(space->size());
  std::map<std::string, size_t> indexOf;
  for (size_t i = 0; i < space->size(); ++i)
    indexOf[rt::configToString((*space)[i])] = i;

  uint64_t sharedLimit = device.sharedBytesPerBlock();
  rt::Autotuner::Compile compile = [&](const rt::TuneConfig &config) {
    return compileCandidate(compiler, request, config, sharedLimit, inputs,
                            facts[indexOf.at(rt::configToString(config))]);
  };

  unsigned units = device.computeUnits();
  rt::Autotuner::PruneAll pruneAll =
      [&](const std::vector<const rt::Autotuner::Candidate *> &cands) {
        return pruneDominated(cands, facts, units, isNV);
      };

  rt::Autotuner tuner(request.Timing);
  auto result = tuner.tune(*space, compile, pruneAll);
  if (!result)
    return result.takeError();
  outcome.Result = std::move(*result);
  for (const rt::TuneRow &row : outcome.Result.Rows)
    if (defaultsComplete && row.Config == outcome.Defaults &&
        row.Status == rt::TuneStatus::Timed)
      outcome.DefaultMs = row.TimeMs;
  outcome.Entry.Key = tuneKey(request.Source, request.Kernel, request.Options,
                              device, request.Test.Sizes);
  outcome.Entry.Config = outcome.Result.Best;
  outcome.Entry.TimeMs = outcome.Result.TimeMs;
  outcome.Entry.DefaultMs = outcome.DefaultMs;
  return outcome;
}

rt::Expected<TunedKernel>
jit::compileTuned(Compiler &compiler, rt::Device &device,
                  const std::string &source, const std::string &sourceName,
                  const std::string &kernel, const CompileOptions &options,
                  const rt::DimMap &sizes, const TunePolicy &policy) {
  rt::TuneCache cache(policy.CachePath.empty() ? rt::TuneCache::defaultPath()
                                               : policy.CachePath);
  TunedKernel result;
  rt::TuneKey key = tuneKey(source, kernel, options, device, sizes);
  if (std::optional<rt::TuneEntry> hit = cache.lookup(key)) {
    result.Config = hit->Config;
    result.FromCache = true;
  } else if (policy.TuneOnMiss) {
    TuneRequest request{source,  sourceName,  kernel,
                        options, policy.Test, policy.Timing};
    request.Test.Sizes = sizes;
    auto outcome = tuneKernel(compiler, device, request);
    if (!outcome)
      return outcome.takeError();
    if (rt::Error e = cache.store(outcome->Entry))
      return e;
    result.Config = outcome->Entry.Config;
    result.Tuned = true;
  }
  CompileOptions tuned = options;
  tuned.defines = withConfig(tuned.defines, result.Config);
  auto compiled = compiler.compileKernel(source, sourceName, kernel, tuned);
  if (!compiled)
    return compiled.takeError();
  result.Kernel = *compiled;
  return result;
}
