//===- Cache.cpp - Cache keys, the on-disk cache and bundle writing -------===//
//
// Part of tilec. A disk cache entry is a bundle directory named by its key:
// <cache>/<key>/manifest.json plus the code objects, written to a private
// folder first and renamed into place, so that concurrent processes never
// see half an entry.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"

#include "KernelMetadata.h"

#include "tile/Target/Serialize.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <set>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

#ifndef TILE_VERSION
#define TILE_VERSION "unknown"
#endif

using namespace tile;
using namespace tile::jit;

static std::string defaultCacheDir() {
  if (auto dir = llvm::sys::Process::GetEnv("TILE_CACHE_DIR"))
    return *dir;
  llvm::SmallString<256> path;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME")) {
    path = *xdg;
  } else if (!llvm::sys::path::home_directory(path)) {
    return {};
  } else {
    llvm::sys::path::append(path, ".cache");
  }
  llvm::sys::path::append(path, "tilec");
  return std::string(path);
}

const std::string &Compiler::buildIdentity() {
  static const std::string identity = []() -> std::string {
    std::string path;
#if defined(__unix__) || defined(__APPLE__)
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&defaultCacheDir), &info) &&
        info.dli_fname)
      path = info.dli_fname;
#endif
    if (path.empty() || !llvm::sys::fs::exists(path))
      path = llvm::sys::fs::getMainExecutable(
          nullptr, reinterpret_cast<void *>(&defaultCacheDir));
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return "unknown-build";
    std::string hex;
    llvm::raw_string_ostream(hex) << llvm::format_hex_no_prefix(
        llvm::xxh3_64bits((*buffer)->getBuffer()), 16);
    return hex;
  }();
  return identity;
}

Compiler::Compiler() : Compiler(Config()) {}

Compiler::Compiler(Config config) {
  if (config.DiskCache)
    CacheDir = config.CacheDir.empty() ? defaultCacheDir() : config.CacheDir;
}

Compiler::~Compiler() = default;

Compiler::Stats Compiler::stats() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Counters;
}

std::string Compiler::version() {
  return std::string("tilec ") + TILE_VERSION + " (LLVM " +
         LLVM_VERSION_STRING + ")";
}

std::string Compiler::cacheKey(std::string_view source,
                               const CompileOptions &options,
                               std::string_view kernel) {
  // Every field is length-prefixed so that no two different requests
  // serialize alike.
  std::string text;
  auto add = [&](std::string_view field) {
    text += std::to_string(field.size());
    text += ':';
    text += field;
  };
  add(version());
  add(buildIdentity());
  add(options.target);
  add(kernel);
  add(options.optimize ? "O" : "O0");
  add(options.emulate ? "emulate" : "native");
  add(options.tma ? "tma" : "no-tma");
  add(options.warpSpecialize ? "ws" : "no-ws");
  add(options.persistent ? "persistent" : "grid");
  add(options.dependentLaunch ? "dependent" : "independent");
  // NVIDIA code is a cubin with ptxas, PTX for the driver's JIT without.
  if (llvm::StringRef(options.target).starts_with("sm_") && !options.emulate)
    add(findTool("ptxas") ? "cubin" : "ptx");
  for (const auto &[name, value] : options.defines) {
    add(name);
    add(value);
  }
  add(source);
  uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(text));
  std::string key;
  llvm::raw_string_ostream(key) << llvm::format_hex_no_prefix(hash, 16);
  return key;
}

rt::Expected<std::vector<uint8_t>>
jit::detail::readBytes(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return rt::makeError("cannot read " + path + ": " +
                         buffer.getError().message());
  llvm::StringRef data = (*buffer)->getBuffer();
  return std::vector<uint8_t>(data.begin(), data.end());
}

rt::Expected<CompiledKernels> Compiler::loadFromDisk(const std::string &key) {
  llvm::SmallString<256> dir(CacheDir);
  llvm::sys::path::append(dir, key);
  rt::Expected<rt::Bundle> bundle = rt::Bundle::load(std::string(dir));
  if (!bundle)
    return bundle.takeError();
  if (bundle->manifest().Compiler != version())
    return rt::makeError("cache entry from another compiler version");
  std::map<std::string, std::shared_ptr<const std::vector<uint8_t>>> objects;
  CompiledKernels kernels;
  for (const rt::KernelInfo &info : bundle->manifest().Kernels) {
    auto &object = objects[info.Object];
    if (!object) {
      rt::Expected<std::vector<uint8_t>> bytes =
          detail::readBytes(bundle->path(info.Object));
      if (!bytes)
        return bytes.takeError();
      object = std::make_shared<const std::vector<uint8_t>>(std::move(*bytes));
    }
    auto compiled = std::make_shared<CompiledKernel>();
    compiled->Info = info;
    compiled->Object = object;
    compiled->CacheKey = key;
    kernels.push_back(std::move(compiled));
  }
  if (kernels.empty())
    return rt::makeError("empty cache entry");
  return kernels;
}

void Compiler::storeToDisk(const std::string &key,
                           const CompiledKernels &kernels) {
  // A failure to cache never fails the compilation: the entry is simply
  // compiled again next time.
  static std::atomic<unsigned> counter{0};
  llvm::SmallString<256> finalDir(CacheDir);
  llvm::sys::path::append(finalDir, key);
  if (llvm::sys::fs::exists(finalDir))
    return;
  llvm::SmallString<256> tempDir(CacheDir);
  llvm::sys::path::append(
      tempDir, ".tmp-" + key + "-" +
                   std::to_string(llvm::sys::Process::getProcessId()) + "-" +
                   std::to_string(counter++));
  if (writeBundle(std::string(tempDir), kernels)) {
    llvm::sys::fs::remove_directories(tempDir);
    return;
  }
  if (llvm::sys::fs::rename(tempDir, finalDir))
    llvm::sys::fs::remove_directories(tempDir); // another process won
}

rt::Error
jit::writeBundle(const std::string &dir, const CompiledKernels &kernels,
                 const std::vector<std::vector<rt::TestCase>> &tests) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return rt::makeError("cannot create " + dir + ": " + ec.message());
  rt::Manifest manifest;
  manifest.Compiler = Compiler::version();
  std::set<std::string> written;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const CompiledKernel &k = *kernels[i];
    if (written.insert(k.Info.Object).second) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, k.Info.Object);
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return rt::makeError("cannot write " + std::string(path) + ": " +
                             ec.message());
      os.write(reinterpret_cast<const char *>(k.Object->data()),
               k.Object->size());
      os.close();
      if (os.has_error())
        return rt::makeError("cannot write " + std::string(path));
    }
    rt::KernelInfo info = k.Info;
    if (i < tests.size())
      info.Tests = tests[i];
    manifest.Kernels.push_back(std::move(info));
  }
  return rt::Bundle::save(dir, manifest);
}
