//===- JIT.h - tilec as a library: compile, cache, launch -------*- C++ -*-===//
//
// Part of tilec. Compiles .tile source text at run time for a target, caches
// the code objects in memory and on disk, and hands them to the runtime to
// launch:
//
//   tile::jit::Compiler compiler;                 // cache: $TILE_CACHE_DIR
//   tile::jit::CompileOptions opts;
//   opts.target = "host";
//   opts.defines["BLOCK"] = "256";
//   auto k = compiler.compileKernel(source, "vector_add.tile", "vector_add",
//                                   opts);
//   auto device = tile::rt::Device::open("host");
//   auto kernel = compiler.load(**k, *device);
//   kernel->launch({ArgValue::tensor(...), ...});
//
// Thread-safe: one Compiler may be used from several threads at once.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_H
#define TILE_JIT_H

#include "tile/runtime/Bundle.h"
#include "tile/runtime/Runtime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tile {
namespace jit {

/// What to compile, besides the source.
struct CompileOptions {
  /// `host` (default), `sm_80` ... `sm_90a`, `gfx942`, `gfx950`.
  std::string target = "host";
  /// Compile-time parameter overrides (NAME -> VALUE), as `tilec -D`.
  std::map<std::string, std::string> defines;
  /// Optimize (MLIR canonicalization, LLVM O2/O3). False gives the plain
  /// lowering, used by `tilec check --target host` as a second result.
  bool optimize = true;
  /// GPU targets: build the CPU emulator's code object (kind nvemu-so run
  /// by device "cuda-emu", amdemu-so run by "hip-emu") instead of a cubin /
  /// an HSACO. Ignored for the host.
  bool emulate = false;
  /// NVIDIA sm_90 targets: copy the tiles of pipelined loops (GEMM
  /// operands, attention's K and V; beside loads TMA cannot copy, the wgmma
  /// operands it can) with TMA (tile-pipeline's TMA scheme); the
  /// kernels then take tensor maps the runtime encodes at launch; tensors
  /// whose rows are not multiples of 16 bytes run each kernel's copy
  /// compiled without TMA (docs/Passes.md, tile-clone-fallbacks). Ignored
  /// elsewhere.
  bool tma = false;
  /// NVIDIA sm_90a: also give those loops' copies to a producer warpgroup
  /// (tile-pipeline's warp-specialized scheme; implies tma): the kernel
  /// launches 4 more warps than its `warps`. Ignored elsewhere.
  bool warpSpecialize = false;
  /// GPU targets: persistent kernels (tile-persist-programs): launched with
  /// the programs the device runs at once, each looping over the grid's.
  /// Ignored for the host.
  bool persistent = false;
  /// NVIDIA sm_90+: each kernel waits for the grids before it in its
  /// stream at its start (griddepcontrol) and is launched with
  /// programmatic stream serialization, so that it may be scheduled while
  /// the kernel before it ends (LaunchConfig::DependentLaunch). Ignored
  /// elsewhere.
  bool dependentLaunch = false;
};

/// One compiled kernel: its launch description and its code object (shared
/// by the kernels compiled from one source).
struct CompiledKernel {
  /// Signature, launch configuration, target and object kind. `Object` is
  /// the file name the code object gets in a bundle.
  rt::KernelInfo Info;
  std::shared_ptr<const std::vector<uint8_t>> Object;
  /// The cache key (hex) this kernel was compiled under.
  std::string CacheKey;
};

using CompiledKernels = std::vector<std::shared_ptr<const CompiledKernel>>;

/// The compiler as a library, with an in-memory and an on-disk cache.
class Compiler {
public:
  struct Config {
    /// Where compiled code objects are kept between processes. Empty:
    /// $TILE_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec.
    std::string CacheDir;
    /// Keep code objects on disk (always kept in memory).
    bool DiskCache = true;
  };

  Compiler();
  explicit Compiler(Config C);
  ~Compiler();

  /// Compiles every kernel of \p Source (or only \p Kernel when not empty).
  /// \p SourceName is used in diagnostics, which the error carries
  /// (file:line:col, the line and a caret).
  rt::Expected<CompiledKernels> compile(std::string_view Source,
                                        std::string_view SourceName,
                                        const CompileOptions &Options,
                                        std::string_view Kernel = {});

  /// Compiles exactly the kernel \p Kernel of \p Source.
  rt::Expected<std::shared_ptr<const CompiledKernel>>
  compileKernel(std::string_view Source, std::string_view SourceName,
                std::string_view Kernel, const CompileOptions &Options);

  /// Reads and compiles the file at \p Path.
  rt::Expected<CompiledKernels> compileFile(const std::string &Path,
                                            const CompileOptions &Options,
                                            std::string_view Kernel = {});

  /// The bundle directory holding \p K: its disk cache entry (with the
  /// kernels compiled with it), written now with \p K alone when the cache
  /// could not be written at compile time. Fails when the disk cache is off.
  rt::Expected<std::string> bundleDir(const CompiledKernel &K);

  /// Loads a compiled kernel on \p D.
  rt::Expected<rt::Kernel> load(const CompiledKernel &K, rt::Device &D);

  /// How compilations were answered.
  struct Stats {
    uint64_t MemoryHits = 0;
    uint64_t DiskHits = 0;
    uint64_t Compilations = 0;
  };
  Stats stats() const;

  /// The cache folder in use (empty when the disk cache is off).
  const std::string &cacheDir() const { return CacheDir; }

  /// "tilec <version> (LLVM <version>)": part of every cache key.
  static std::string version();

  /// A hash (16 hex digits) of the binary, executable or shared library,
  /// the compiler is part of; part of every cache key, so that a rebuilt
  /// compiler never reuses the code objects of an earlier build that has
  /// the same version string. Computed once per process.
  static const std::string &buildIdentity();

  /// The cache key of a compilation: source hash, kernel, target,
  /// overrides, optimization, compiler version and a hash of the binary
  /// the compiler is part of (a rebuilt compiler never reuses old entries).
  static std::string cacheKey(std::string_view Source,
                              const CompileOptions &Options,
                              std::string_view Kernel);

private:
  rt::Expected<CompiledKernels> compileUncached(std::string_view Source,
                                                std::string_view SourceName,
                                                const CompileOptions &Options,
                                                std::string_view Kernel,
                                                const std::string &Key);
  rt::Expected<CompiledKernels> loadFromDisk(const std::string &Key);
  void storeToDisk(const std::string &Key, const CompiledKernels &Kernels);

  std::string CacheDir;
  mutable std::mutex Mutex;
  std::map<std::string, CompiledKernels> Memory;
  Stats Counters;
};

/// Writes a bundle directory: manifest.json plus the code objects of
/// \p Kernels (each distinct object once). Creates \p Dir if needed.
rt::Error writeBundle(const std::string &Dir, const CompiledKernels &Kernels,
                      const std::vector<std::vector<rt::TestCase>> &Tests = {});

} // namespace jit
} // namespace tile

#endif // TILE_JIT_H
