//===- CApi.cpp - C API of the JIT library --------------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/tile_jit.h"

#include "tile/JIT.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

struct tile_jit {
  tile::jit::Compiler compiler;
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

const char *tile_jit_last_error(void) { return lastError.c_str(); }

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
  for (size_t i = 0; i < numDefines; ++i) {
    const char *eq = defines[i] ? std::strchr(defines[i], '=') : nullptr;
    if (!eq || eq == defines[i])
      return failWith(std::string("define '") +
                      (defines[i] ? defines[i] : "(null)") +
                      "' is not NAME=VALUE");
    options.defines[std::string(defines[i], eq)] = eq + 1;
  }
  auto compiled = jit->compiler.compileKernel(
      source, sourceName ? sourceName : "<jit>", kernel, options);
  if (!compiled)
    return failWith(compiled.message());
  // The disk cache entry of the compilation is a bundle directory.
  llvm::SmallString<256> dir(jit->compiler.cacheDir());
  llvm::sys::path::append(dir, (*compiled)->CacheKey);
  if (!llvm::sys::fs::is_directory(dir)) {
    // The cache could not be written (read-only disk): write it now.
    if (tile::rt::Error err =
            tile::jit::writeBundle(std::string(dir), {*compiled}))
      return failWith(err.message());
  }
  if (dir.size() + 1 > capacity)
    return failWith("bundle_dir buffer too small: need " +
                    std::to_string(dir.size() + 1) + " bytes");
  std::memcpy(bundleDir, dir.c_str(), dir.size() + 1);
  return 0;
}
