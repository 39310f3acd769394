//===- TuneCommand.cpp - tilec tune: the fastest configuration for a shape ===//
//
// Part of tilec. `tilec tune FILE --kernel K --target T --size M=1,N=4096
// [--device D] [--space NAME=V1,V2]` compiles the kernel's tune space (its
// tune block, with --space's values) on every core, prunes what
// cannot run or cannot win (and says why), times the rest on the device with
// seeded inputs, prints a table and records the winner in the tune cache
// (include/tile/runtime/TuneCache.h), where the JIT and `tilec bundle
// --tune-cache` find it. A cached shape bucket is reported without timing
// unless --force. docs/Tuning.md is the user's guide.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tile/JIT/Tune.h"
#include "tile/runtime/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace llvm;
using namespace tile;

namespace {

cl::OptionCategory tuneCat("tilec tune options");
cl::SubCommand tuneCmd("tune", "Time a kernel's tune space for one shape on "
                               "a device and record the fastest "
                               "configuration in the tune cache");
cl::opt<std::string> tuneFile(cl::Positional, cl::desc("<.tile file>"),
                              cl::Required, cl::sub(tuneCmd));
cl::opt<std::string> tuneKernelOpt("kernel", cl::desc("Kernel to tune"),
                                   cl::value_desc("name"), cl::Required,
                                   cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<std::string> tuneTarget("target",
                                cl::desc("host (default), sm_80 ... sm_90a, "
                                         "gfx942, gfx950"),
                                cl::init("host"), cl::sub(tuneCmd),
                                cl::cat(tuneCat));
cl::opt<std::string> tuneSizes("size", cl::desc("Runtime dimensions"),
                               cl::value_desc("M=1,N=4096,K=4096"),
                               cl::Required, cl::sub(tuneCmd),
                               cl::cat(tuneCat));
cl::opt<std::string>
    tuneDevice("device",
               cl::desc("Device to time on (default: from the target: host, "
                        "cuda, hip; cuda-emu / hip-emu run the emulators)"),
               cl::sub(tuneCmd), cl::cat(tuneCat));
cl::list<std::string> tuneDefines("D", cl::Prefix,
                                  cl::desc("Fix a compile-time parameter "
                                           "(removed from the space)"),
                                  cl::value_desc("NAME=VALUE"),
                                  cl::sub(tuneCmd), cl::cat(tuneCat));
cl::list<std::string>
    tuneSpaceOpt("space",
                 cl::desc("Values to try for a compile-time parameter, "
                          "instead of its tune block's (a parameter the "
                          "block does not list joins the space); repeatable"),
                 cl::value_desc("NAME=V1,V2,..."), cl::sub(tuneCmd),
                 cl::cat(tuneCat));
cl::list<std::string> tuneArgs("arg", cl::desc("Scalar argument NAME=VALUE"),
                               cl::value_desc("NAME=VALUE"), cl::sub(tuneCmd),
                               cl::cat(tuneCat));
cl::opt<uint64_t> tuneSeed("seed", cl::desc("Seed of the generated inputs"),
                           cl::init(1), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<unsigned> tuneWarmup("warmup",
                             cl::desc("Untimed launches per configuration"),
                             cl::init(5), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<unsigned> tuneRepeat("repeat",
                             cl::desc("Timed launches per configuration (the "
                                      "median is kept)"),
                             cl::init(20), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<int> tuneFlush("flush-l2",
                       cl::desc("MiB overwritten before each timed launch to "
                                "evict the L2 cache (default: 256 on a GPU, "
                                "0 elsewhere)"),
                       cl::init(-1), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<unsigned> tuneJobs("j",
                           cl::desc("Compile threads (default: every core)"),
                           cl::init(0), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<std::string>
    tuneCachePath("tune-cache",
                  cl::desc("Tune cache file (default: $TILE_TUNE_CACHE, else "
                           "tune.json in the compile cache folder)"),
                  cl::value_desc("FILE"), cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneForce("force",
                        cl::desc("Tune even when the cache holds the shape's "
                                 "bucket"),
                        cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneNoStore("no-store",
                          cl::desc("Print the table, do not write the cache"),
                          cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<std::string> tuneCsv("csv",
                             cl::desc("Also write the table as CSV to FILE"),
                             cl::value_desc("FILE"), cl::sub(tuneCmd),
                             cl::cat(tuneCat));
cl::opt<bool> tuneTma("tma",
                      cl::desc("sm_90 targets: tune the kernel with TMA "
                               "copies (tilec --tma; a tune cache entry of "
                               "its own)"),
                      cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneWarpSpecialize(
    "warp-specialize",
    cl::desc("sm_90a: tune the kernel with a producer warpgroup (tilec "
             "--warp-specialize; a tune cache entry of its own)"),
    cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tunePersistent(
    "persistent",
    cl::desc("GPU targets: tune the persistent kernel (tilec --persistent; "
             "a tune cache entry of its own)"),
    cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneDependentLaunch(
    "dependent-launch",
    cl::desc("sm_90+: tune the kernel built for dependent launches (tilec "
             "--dependent-launch; a tune cache entry of its own)"),
    cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneQuiet("quiet", cl::desc("No progress lines"),
                        cl::sub(tuneCmd), cl::cat(tuneCat));
cl::opt<bool> tuneNoCache("no-cache",
                          cl::desc("Do not use the compile cache on disk"),
                          cl::sub(tuneCmd), cl::cat(tuneCat));

int fail(const Twine &message) {
  errs() << "tilec: error: " << message << "\n";
  return 1;
}

/// Rows ordered for reading: timed by time, then pruned, then failed.
std::vector<const rt::TuneRow *> orderedRows(const rt::TuneResult &r) {
  std::vector<const rt::TuneRow *> rows;
  for (const rt::TuneRow &row : r.Rows)
    rows.push_back(&row);
  std::stable_sort(
      rows.begin(), rows.end(), [](const rt::TuneRow *a, const rt::TuneRow *b) {
        if (a->Status != b->Status)
          return int(a->Status) < int(b->Status);
        return a->Status == rt::TuneStatus::Timed && a->TimeMs < b->TimeMs;
      });
  return rows;
}

void printTable(raw_ostream &os, const jit::TuneOutcome &o) {
  os << format("%-10s %-8s %-36s %s\n", "time (ms)", "speedup", "configuration",
               "resources / reason");
  for (const rt::TuneRow *row : orderedRows(o.Result)) {
    std::string config = rt::configToString(row->Config);
    if (row->Config == o.Defaults)
      config += " (defaults)";
    if (row->Status == rt::TuneStatus::Timed) {
      char speedup[32] = "-";
      if (o.DefaultMs > 0)
        std::snprintf(speedup, sizeof speedup, "%.2fx",
                      o.DefaultMs / row->TimeMs);
      os << format("%-10.4f %-8s %-36s %s\n", row->TimeMs, speedup,
                   config.c_str(), row->Summary.c_str());
    } else {
      os << format("%-10s %-8s %-36s %s\n", rt::tuneStatusName(row->Status), "",
                   config.c_str(), row->Reason.c_str());
    }
  }
}

rt::Error writeCsv(const std::string &path, const jit::TuneOutcome &o) {
  std::ofstream out(path);
  if (!out)
    return rt::makeError("cannot write " + path);
  out << "config,status,time_ms,default_ms,resources,reason\n";
  for (const rt::TuneRow &row : o.Result.Rows)
    out << rt::csvField(rt::configToString(row.Config)) << ","
        << rt::tuneStatusName(row.Status) << ","
        << (row.Status == rt::TuneStatus::Timed ? std::to_string(row.TimeMs)
                                                : "")
        << "," << (o.DefaultMs >= 0 ? std::to_string(o.DefaultMs) : "") << ","
        << rt::csvField(row.Summary) << "," << rt::csvField(row.Reason) << "\n";
  return out ? rt::Error::success() : rt::makeError("cannot write " + path);
}

/// Builds the request from the command line; false after an error message.
bool makeRequest(jit::TuneRequest &request, const std::string &deviceSpec) {
  auto buffer = MemoryBuffer::getFile(tuneFile, /*IsText=*/true);
  if (!buffer) {
    fail("cannot read " + tuneFile + ": " + buffer.getError().message());
    return false;
  }
  request.Source = (*buffer)->getBuffer().str();
  request.SourceName = tuneFile;
  request.Kernel = tuneKernelOpt;
  request.Options.target = tuneTarget;
  request.Options.emulate = driver::isEmulatorDevice(deviceSpec);
  request.Options.tma = tuneTma;
  request.Options.warpSpecialize = tuneWarpSpecialize;
  request.Options.persistent = tunePersistent;
  request.Options.dependentLaunch = tuneDependentLaunch;
  for (const std::string &d : tuneDefines) {
    std::string name, value;
    if (!driver::splitAssignment(d, name, value)) {
      fail("-D expects NAME=VALUE, got '" + d + "'");
      return false;
    }
    request.Options.defines[name] = value;
  }
  for (const std::string &o : tuneSpaceOpt) {
    std::string name, values;
    if (!driver::splitAssignment(o, name, values)) {
      fail("--space expects NAME=V1,V2,..., got '" + o + "'");
      return false;
    }
    SmallVector<StringRef> parts;
    StringRef(values).split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    std::vector<std::string> &list = request.Space[name];
    for (StringRef v : parts)
      list.push_back(v.trim().str());
  }
  if (!driver::parseSizeList(tuneSizes, request.Test.Sizes))
    return false;
  request.Test.Seed = tuneSeed;
  for (const std::string &a : tuneArgs) {
    std::string name, value;
    double number;
    if (!driver::splitAssignment(a, name, value) ||
        StringRef(value).getAsDouble(number)) {
      fail("--arg expects NAME=NUMBER, got '" + a + "'");
      return false;
    }
    request.Test.Scalars[name] = number;
  }
  request.Timing.Warmup = tuneWarmup;
  request.Timing.Repeats = std::max(1u, tuneRepeat.getValue());
  request.Timing.Jobs = tuneJobs;
  request.Timing.Progress = tuneQuiet ? nullptr : stderr;
  bool gpu = StringRef(deviceSpec).starts_with("cuda") ||
             StringRef(deviceSpec).starts_with("hip");
  request.FlushL2MiB = tuneFlush >= 0
                           ? unsigned(tuneFlush)
                           : (gpu && !request.Options.emulate ? 256u : 0u);
  return true;
}

int tuneMain() {
  std::string deviceSpec = tuneDevice.empty()
                               ? driver::defaultDeviceFor(tuneTarget, false)
                               : std::string(tuneDevice);
  jit::TuneRequest request;
  if (!makeRequest(request, deviceSpec))
    return 1;
  auto device = rt::Device::open(deviceSpec);
  if (!device)
    return fail(device.message());
  rt::TuneCache cache(tuneCachePath.empty() ? rt::TuneCache::defaultPath()
                                            : std::string(tuneCachePath));
  rt::TuneKey key = jit::tuneKey(request.Source, request.Kernel,
                                 request.Options, *device, request.Test.Sizes);
  if (!tuneForce) {
    if (auto hit = cache.lookup(key)) {
      outs() << request.Kernel << " on " << device->name() << ", bucket "
             << key.Bucket << ": cached " << rt::configToString(hit->Config)
             << format(" (%.4f ms", hit->TimeMs);
      if (hit->DefaultMs > 0)
        outs() << format("; defaults %.4f ms", hit->DefaultMs);
      outs() << ") in " << cache.path() << "; --force tunes again\n";
      return 0;
    }
  }
  jit::Compiler::Config config;
  config.DiskCache = !tuneNoCache;
  jit::Compiler compiler(config);
  auto outcome = jit::tuneKernel(compiler, *device, request);
  if (!outcome)
    return fail(outcome.message());
  const rt::TuneResult &r = outcome->Result;
  std::string sizes;
  for (const auto &[name, size] : request.Test.Sizes)
    sizes += (sizes.empty() ? "" : ",") + name + "=" + std::to_string(size);
  outs() << request.Kernel << " on " << device->name() << ", sizes " << sizes
         << " (bucket " << key.Bucket << "): " << r.Rows.size()
         << " configurations, " << r.count(rt::TuneStatus::Timed) << " timed, "
         << r.count(rt::TuneStatus::Pruned) << " pruned, "
         << r.count(rt::TuneStatus::Failed) << " failed\n";
  printTable(outs(), *outcome);
  outs() << "best: " << rt::configToString(r.Best)
         << format(" (%.4f ms", r.TimeMs);
  if (outcome->DefaultMs > 0)
    outs() << format("; defaults %.4f ms, %.2fx", outcome->DefaultMs,
                     outcome->DefaultMs / r.TimeMs);
  outs() << ")\n";
  if (!tuneCsv.empty())
    if (rt::Error e = writeCsv(tuneCsv, *outcome))
      return fail(e.message());
  if (tuneNoStore)
    return 0;
  if (rt::Error e = cache.store(outcome->Entry))
    return fail(e.message());
  outs() << "recorded in " << cache.path() << "\n";
  return 0;
}

} // namespace

rt::Expected<jit::CompiledKernels> tile::driver::tunedVariants(
    jit::Compiler &compiler, const std::string &file, const std::string &kernel,
    const jit::CompileOptions &options, const std::string &cachePath,
    const std::string &deviceName, raw_ostream &log) {
  auto buffer = MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return rt::makeError("cannot read " + file + ": " +
                         buffer.getError().message());
  std::string source = (*buffer)->getBuffer().str();
  // The key of any device: only the device fields are left to compare.
  rt::TuneKey want = jit::tuneKey(source, kernel, options, "", "", {});
  rt::TuneCache cache(cachePath);
  std::map<std::string, rt::TuneEntry> byBucket;
  for (const rt::TuneEntry &e : cache.entries()) {
    const rt::TuneKey &k = e.Key;
    if (k.Compiler != want.Compiler || k.Source != want.Source ||
        k.Kernel != want.Kernel || k.Target != want.Target ||
        k.Defines != want.Defines ||
        (!deviceName.empty() && k.Device != deviceName))
      continue;
    auto [it, inserted] = byBucket.emplace(k.Bucket, e);
    if (!inserted && it->second.Config != e.Config)
      log << "note: bucket " << k.Bucket << " is tuned on "
          << it->second.Key.Device << " and on " << k.Device << "; keeping "
          << it->second.Key.Device << " (--tune-device chooses)\n";
  }
  jit::CompiledKernels variants;
  for (const auto &[bucket, entry] : byBucket) {
    jit::CompileOptions tuned = options;
    tuned.defines = jit::withConfig(tuned.defines, entry.Config);
    auto k = compiler.compileKernel(source, file, kernel, tuned);
    if (!k)
      return rt::makeError("bucket " + bucket + " (" +
                           rt::configToString(entry.Config) +
                           "): " + k.message());
    auto dims = rt::parseBucketText(bucket);
    if (!dims)
      return dims.takeError();
    auto variant = std::make_shared<jit::CompiledKernel>(**k);
    variant->Info.Bucket = *dims;
    variants.push_back(variant);
    log << "variant for " << bucket << ": " << rt::configToString(entry.Config)
        << " (tuned on " << entry.Key.Device << ")\n";
  }
  if (variants.empty())
    return rt::makeError(cachePath + " holds no tuned configuration of " +
                         kernel + " for " + options.target +
                         (options.defines.empty() ? "" : " with these -D") +
                         " from this compiler and source (tilec tune "
                         "records them)");
  return variants;
}

bool tile::driver::runTuneSubcommand(int &exitCode) {
  if (!tuneCmd)
    return false;
  exitCode = tuneMain();
  return true;
}
