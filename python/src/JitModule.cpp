//===- JitModule.cpp - tilec._jit: the compiler from Python ---------------===//
//
// Part of tilec's Python package. Compiles .tile source through the JIT
// library (its memory and disk caches) into bundle directories, which
// tilec._runtime loads; tunes kernels into the tune cache. Compile errors
// are raised as CompileFailure carrying the compiler's diagnostic
// (file:line:col: error: ...), which tilec/__init__.py turns into a
// tilec.CompileError with the location as attributes. The GIL is released
// while compiling and tuning.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"
#include "tile/JIT/Tune.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <memory>
#include <mutex>

namespace nb = nanobind;
using namespace tile;

namespace {

/// A compilation or tuning that failed; the message is the diagnostic.
struct CompileFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Defines = std::map<std::string, std::string>;

/// One compiler per cache folder, for the life of the process (their memory
/// caches then serve repeated compilations).
jit::Compiler &compilerFor(const std::string &CacheDir) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<jit::Compiler>> Compilers;
  std::lock_guard<std::mutex> Guard(Lock);
  std::unique_ptr<jit::Compiler> &C = Compilers[CacheDir];
  if (!C) {
    jit::Compiler::Config Config;
    Config.CacheDir = CacheDir;
    C = std::make_unique<jit::Compiler>(Config);
    if (C->cacheDir().empty()) {
      C.reset();
      throw CompileFailure("no cache directory: set TILE_CACHE_DIR or HOME, "
                           "or pass cache_dir");
    }
  }
  return *C;
}

jit::CompileOptions options(const std::string &Target, const Defines &D,
                            bool Optimize, bool Emulate, bool Tma,
                            bool WarpSpecialize = false,
                            bool Persistent = false,
                            bool DependentLaunch = false) {
  jit::CompileOptions O;
  O.target = Target;
  O.defines = D;
  O.optimize = Optimize;
  O.emulate = Emulate;
  O.tma = Tma;
  O.warpSpecialize = WarpSpecialize;
  O.persistent = Persistent;
  O.dependentLaunch = DependentLaunch;
  return O;
}

template <typename T> T unwrap(rt::Expected<T> E) {
  if (!E)
    throw CompileFailure(E.message());
  return std::move(*E);
}

nb::object toPython(const rt::json::Value &V) {
  if (V.isString())
    return nb::str(V.getString().c_str());
  if (V.isBool())
    return nb::bool_(V.getBool());
  if (V.isInteger())
    return nb::int_(V.getInteger());
  return nb::float_(V.getNumber());
}

nb::dict toPython(const rt::TuneConfig &C) {
  nb::dict D;
  for (const auto &[Name, V] : C)
    D[Name.c_str()] = toPython(V);
  return D;
}

/// compile(): the bundle directory and the names of its kernels.
nb::tuple compile(const std::string &Source, const std::string &SourceName,
                  const std::string &Kernel, const std::string &Target,
                  const Defines &D, bool Optimize, bool Emulate, bool Tma,
                  bool WarpSpecialize, bool Persistent, bool DependentLaunch,
                  const std::string &CacheDir) {
  jit::Compiler &C = compilerFor(CacheDir);
  rt::Expected<jit::CompiledKernels> Ks = rt::makeError("not compiled");
  {
    nb::gil_scoped_release Release;
    Ks = C.compile(Source, SourceName,
                   options(Target, D, Optimize, Emulate, Tma, WarpSpecialize,
                           Persistent, DependentLaunch),
                   Kernel);
  }
  jit::CompiledKernels Kernels = unwrap(std::move(Ks));
  if (Kernels.empty())
    throw CompileFailure(SourceName + ": defines no kernel");
  std::vector<std::string> Names;
  for (const auto &K : Kernels)
    Names.push_back(K->Info.name());
  return nb::make_tuple(unwrap(C.bundleDir(*Kernels.front())), Names);
}

/// compile_tuned(): the bundle directory, the configuration used and
/// whether the tune cache held it.
nb::tuple compileTuned(const std::string &Source, const std::string &SourceName,
                       const std::string &Kernel, const std::string &Target,
                       const Defines &D, bool Emulate, bool Tma,
                       bool WarpSpecialize, bool Persistent,
                       bool DependentLaunch,
                       const std::map<std::string, int64_t> &Sizes,
                       const std::string &DeviceSpec,
                       const std::string &TuneCache, bool TuneOnMiss,
                       const std::string &CacheDir) {
  jit::Compiler &C = compilerFor(CacheDir);
  rt::Device Dev = unwrap(rt::Device::open(DeviceSpec));
  jit::TunePolicy Policy;
  Policy.CachePath = TuneCache;
  Policy.TuneOnMiss = TuneOnMiss;
  Policy.Timing.Progress = TuneOnMiss ? stderr : nullptr;
  rt::DimMap Dims(Sizes.begin(), Sizes.end());
  rt::Expected<jit::TunedKernel> T = rt::makeError("not compiled");
  {
    nb::gil_scoped_release Release;
    T = jit::compileTuned(C, Dev, Source, SourceName, Kernel,
                          options(Target, D, true, Emulate, Tma, WarpSpecialize,
                                  Persistent, DependentLaunch),
                          Dims, Policy);
  }
  jit::TunedKernel K = unwrap(std::move(T));
  return nb::make_tuple(unwrap(C.bundleDir(*K.Kernel)), toPython(K.Config),
                        K.FromCache);
}

struct TuneArgs {
  std::string Source, SourceName, Kernel, Target, DeviceSpec, TuneCache;
  Defines D;
  std::map<std::string, int64_t> Sizes;
  std::map<std::string, double> Scalars;
  unsigned Warmup = 5, Repeat = 20, Jobs = 0;
  int FlushL2 = -1;
  bool Progress = true, Store = true, Force = false;
  std::string CacheDir;
  jit::SpaceOverrides Space;
};

nb::dict rowsOf(const jit::TuneOutcome &O) {
  nb::list Rows;
  for (const rt::TuneRow &R : O.Result.Rows) {
    nb::dict Row;
    Row["config"] = toPython(R.Config);
    Row["status"] = rt::tuneStatusName(R.Status);
    Row["time_ms"] = R.Status == rt::TuneStatus::Timed
                         ? nb::object(nb::float_(R.TimeMs))
                         : nb::none();
    Row["reason"] = R.Reason;
    Row["resources"] = R.Summary;
    Rows.append(Row);
  }
  nb::dict D;
  D["rows"] = Rows;
  D["best"] = toPython(O.Result.Best);
  D["time_ms"] = O.Result.TimeMs;
  D["default_ms"] =
      O.DefaultMs >= 0 ? nb::object(nb::float_(O.DefaultMs)) : nb::none();
  return D;
}

/// tune(): the table and the winner, looked up in and stored to the tune
/// cache as `tilec tune` does.
nb::dict tune(const TuneArgs &A) {
  rt::Device Dev = unwrap(rt::Device::open(A.DeviceSpec));
  jit::TuneRequest Req;
  Req.Source = A.Source;
  Req.SourceName = A.SourceName;
  Req.Kernel = A.Kernel;
  Req.Options = options(A.Target, A.D, true,
                        Dev.platform() == rt::Platform::NvEmu ||
                            Dev.platform() == rt::Platform::AmdEmu,
                        /*Tma=*/false);
  Req.Test.Sizes = rt::DimMap(A.Sizes.begin(), A.Sizes.end());
  Req.Test.Scalars = A.Scalars;
  Req.Timing.Warmup = A.Warmup;
  Req.Timing.Repeats = std::max(1u, A.Repeat);
  Req.Timing.Jobs = A.Jobs;
  Req.Timing.Progress = A.Progress ? stderr : nullptr;
  bool Gpu = Dev.platform() == rt::Platform::Cuda ||
             Dev.platform() == rt::Platform::Hip;
  Req.FlushL2MiB = A.FlushL2 >= 0 ? unsigned(A.FlushL2) : (Gpu ? 256u : 0u);
  Req.Space = A.Space;
  rt::TuneCache Cache(A.TuneCache.empty() ? rt::TuneCache::defaultPath()
                                          : A.TuneCache);
  rt::TuneKey Key =
      jit::tuneKey(Req.Source, Req.Kernel, Req.Options, Dev, Req.Test.Sizes);
  if (!A.Force) {
    if (auto Hit = Cache.lookup(Key)) {
      nb::dict D;
      D["rows"] = nb::list();
      D["best"] = toPython(Hit->Config);
      D["time_ms"] = Hit->TimeMs;
      D["default_ms"] = Hit->DefaultMs > 0
                            ? nb::object(nb::float_(Hit->DefaultMs))
                            : nb::none();
      D["cached"] = true;
      D["bucket"] = Key.Bucket;
      D["cache"] = Cache.path();
      return D;
    }
  }
  jit::Compiler &C = compilerFor(A.CacheDir);
  rt::Expected<jit::TuneOutcome> O = rt::makeError("not tuned");
  {
    nb::gil_scoped_release Release;
    O = jit::tuneKernel(C, Dev, Req);
  }
  jit::TuneOutcome Outcome = unwrap(std::move(O));
  if (A.Store)
    if (rt::Error E = Cache.store(Outcome.Entry))
      throw CompileFailure(E.message());
  nb::dict D = rowsOf(Outcome);
  D["cached"] = false;
  D["bucket"] = Key.Bucket;
  D["cache"] = Cache.path();
  return D;
}

} // namespace

NB_MODULE(_jit, m) {
  m.doc() = "tilec's compiler (JIT library) for the tilec package";
  nb::exception<CompileFailure>(m, "CompileFailure");
  m.def("version", &jit::Compiler::version);
  m.def("compile", &compile, nb::arg("source"), nb::arg("source_name"),
        nb::arg("kernel"), nb::arg("target"), nb::arg("defines"),
        nb::arg("optimize"), nb::arg("emulate"), nb::arg("tma"),
        nb::arg("warp_specialize"), nb::arg("persistent"),
        nb::arg("dependent_launch"), nb::arg("cache_dir"));
  m.def("compile_tuned", &compileTuned, nb::arg("source"),
        nb::arg("source_name"), nb::arg("kernel"), nb::arg("target"),
        nb::arg("defines"), nb::arg("emulate"), nb::arg("tma"),
        nb::arg("warp_specialize"), nb::arg("persistent"),
        nb::arg("dependent_launch"), nb::arg("sizes"), nb::arg("device"),
        nb::arg("tune_cache"), nb::arg("tune_on_miss"), nb::arg("cache_dir"));
  m.def(
      "tune",
      [](const std::string &Source, const std::string &SourceName,
         const std::string &Kernel, const std::string &Target,
         const std::string &DeviceSpec,
         const std::map<std::string, int64_t> &Sizes, const Defines &D,
         const std::map<std::string, double> &Scalars, unsigned Warmup,
         unsigned Repeat, int FlushL2, unsigned Jobs, bool Progress,
         const std::string &TuneCache, bool Store, bool Force,
         const std::string &CacheDir, const jit::SpaceOverrides &Space) {
        TuneArgs A{Source,  SourceName, Kernel,  Target, DeviceSpec, TuneCache,
                   D,       Sizes,      Scalars, Warmup, Repeat,     Jobs,
                   FlushL2, Progress,   Store,   Force,  CacheDir,   Space};
        return tune(A);
      },
      nb::arg("source"), nb::arg("source_name"), nb::arg("kernel"),
      nb::arg("target"), nb::arg("device"), nb::arg("sizes"),
      nb::arg("defines"), nb::arg("scalars"), nb::arg("warmup"),
      nb::arg("repeat"), nb::arg("flush_l2"), nb::arg("jobs"),
      nb::arg("progress"), nb::arg("tune_cache"), nb::arg("store"),
      nb::arg("force"), nb::arg("cache_dir"), nb::arg("space"));
}
