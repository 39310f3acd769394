//===- CApi.cpp - C API of the JIT library --------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/tile_jit.h"

#include "tile/JIT.h"
#include "tile/JIT/Tune.h"

#include <atomic>
#include <cstring>

struct tile_jit {
  tile::jit::Compiler compiler;
  /// TILE_JIT_* flags of the compiles that start after tile_jit_set_flags.
  std::atomic<unsigned> flags{0};
  explicit tile_jit(tile::jit::Compiler::Config config)
      : compiler(std::move(config)) {}
};

namespace {
thread_local std::string lastError;

int failWith(std::string message) {
  lastError = std::move(message);
  return -1;
}
} // namespace

tile_jit *tile_jit_create(const char *cacheDir) {
  tile::jit::Compiler::Config config;
  if (cacheDir)
    config.CacheDir = cacheDir;
  auto *jit = new tile_jit(std::move(config));
  if (jit->compiler.cacheDir().empty()) {
    delete jit;
    lastError = "no cache directory: set TILE_CACHE_DIR or HOME, or pass one";
    return nullptr;
  }
  return jit;
}

void tile_jit_destroy(tile_jit *jit) { delete jit; }

int tile_jit_set_flags(tile_jit *jit, unsigned flags) {
  if (!jit)
    return failWith("tile_jit_set_flags: jit must not be NULL");
  unsigned known = TILE_JIT_TMA | TILE_JIT_WARP_SPECIALIZE |
                   TILE_JIT_PERSISTENT | TILE_JIT_DEPENDENT_LAUNCH;
  if (flags & ~known)
    return failWith(
        "tile_jit_set_flags: unknown flags " + std::to_string(flags & ~known) +
        " (known: TILE_JIT_TMA = " + std::to_string(TILE_JIT_TMA) +
        ", TILE_JIT_WARP_SPECIALIZE = " +
        std::to_string(TILE_JIT_WARP_SPECIALIZE) + ", TILE_JIT_PERSISTENT = " +
        std::to_string(TILE_JIT_PERSISTENT) + ", TILE_JIT_DEPENDENT_LAUNCH = " +
        std::to_string(TILE_JIT_DEPENDENT_LAUNCH) + ")");
  jit->flags = flags;
  return 0;
}

const char *tile_jit_last_error(void) { return lastError.c_str(); }

namespace {

/// Reads "NAME=VALUE" defines into \p options; false after failWith().
bool readDefines(const char *const *defines, size_t numDefines,
                 tile::jit::CompileOptions &options) {
  for (size_t i = 0; i < numDefines; ++i) {
    const char *eq = defines[i] ? std::strchr(defines[i], '=') : nullptr;
    if (!eq || eq == defines[i]) {
      failWith(std::string("define '") + (defines[i] ? defines[i] : "(null)") +
               "' is not NAME=VALUE");
      return false;
    }
    options.defines[std::string(defines[i], eq)] = eq + 1;
  }
  return true;
}

/// Writes the path of \p compiled's bundle directory (its disk cache entry)
/// into \p bundleDir.
int returnBundleDir(tile_jit *jit, const tile::jit::CompiledKernel &compiled,
                    char *bundleDir, size_t capacity) {
  auto dir = jit->compiler.bundleDir(compiled);
  if (!dir)
    return failWith(dir.message());
  if (dir->size() + 1 > capacity)
    return failWith("bundle_dir buffer too small: need " +
                    std::to_string(dir->size() + 1) + " bytes");
  std::memcpy(bundleDir, dir->c_str(), dir->size() + 1);
  return 0;
}

} // namespace

int tile_jit_compile(tile_jit *jit, const char *source, const char *sourceName,
                     const char *kernel, const char *target,
                     const char *const *defines, size_t numDefines,
                     char *bundleDir, size_t capacity) {
  if (!jit || !source || !kernel || !bundleDir)
    return failWith("tile_jit_compile: jit, source, kernel and bundle_dir "
                    "must not be NULL");
  tile::jit::CompileOptions options;
  if (target)
    options.target = target;
  options.tma = (jit->flags & TILE_JIT_TMA) != 0;
  options.warpSpecialize = (jit->flags & TILE_JIT_WARP_SPECIALIZE) != 0;
  options.persistent = (jit->flags & TILE_JIT_PERSISTENT) != 0;
  options.dependentLaunch = (jit->flags & TILE_JIT_DEPENDENT_LAUNCH) != 0;
  if (!readDefines(defines, numDefines, options))
    return -1;
  auto compiled = jit->compiler.compileKernel(
      source, sourceName ? sourceName : "<jit>", kernel, options);
  if (!compiled)
    return failWith(compiled.message());
  return returnBundleDir(jit, **compiled, bundleDir, capacity);
}

int tile_jit_compile_tuned(tile_jit *jit, const char *source,
                           const char *sourceName, const char *kernel,
                           const char *target, const char *const *defines,
                           size_t numDefines, const char *sizes,
                           const char *device, const char *tuneCache,
                           int tuneOnMiss, int *fromCache, char *bundleDir,
                           size_t capacity) {
  if (!jit || !source || !kernel || !sizes || !device || !bundleDir)
    return failWith("tile_jit_compile_tuned: jit, source, kernel, sizes, "
                    "device and bundle_dir must not be NULL");
  tile::jit::CompileOptions options;
  if (target)
    options.target = target;
  options.tma = (jit->flags & TILE_JIT_TMA) != 0;
  options.warpSpecialize = (jit->flags & TILE_JIT_WARP_SPECIALIZE) != 0;
  options.persistent = (jit->flags & TILE_JIT_PERSISTENT) != 0;
  options.dependentLaunch = (jit->flags & TILE_JIT_DEPENDENT_LAUNCH) != 0;
  if (!readDefines(defines, numDefines, options))
    return -1;
  tile::rt::Expected<tile::rt::DimMap> dims = tile::rt::parseBucketText(sizes);
  if (!dims)
    return failWith("tile_jit_compile_tuned: " + dims.message());
  tile::rt::Expected<tile::rt::Device> dev = tile::rt::Device::open(device);
  if (!dev)
    return failWith(dev.message());
  options.emulate = dev->platform() == tile::rt::Platform::NvEmu ||
                    dev->platform() == tile::rt::Platform::AmdEmu;
  tile::jit::TunePolicy policy;
  if (tuneCache)
    policy.CachePath = tuneCache;
  policy.TuneOnMiss = tuneOnMiss != 0;
  auto tuned = tile::jit::compileTuned(jit->compiler, *dev, source,
                                       sourceName ? sourceName : "<jit>",
                                       kernel, options, *dims, policy);
  if (!tuned)
    return failWith(tuned.message());
  if (fromCache)
    *fromCache = tuned->FromCache ? 1 : 0;
  return returnBundleDir(jit, *tuned->Kernel, bundleDir, capacity);
}
