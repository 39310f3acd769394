//===- EmuFiber.h - Stackful fibers for the GPU emulators -------*- C++ -*-===//
//
// Part of tilec. Internal to runtime/lib: the emulators run every GPU thread
// of a block as a fiber on the launching OS thread. A fiber owns an mmap'ed
// stack with a guard page below it; switching saves only the callee-saved
// state (x86-64: a few instructions, no system call; elsewhere ucontext).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_EMUFIBER_H
#define TILE_RUNTIME_LIB_EMUFIBER_H

#include "tile/runtime/Error.h"

#include <cstddef>
#include <memory>

namespace tile {
namespace rt {
namespace emu {

/// A fiber's stack: [low(), high()) usable, one inaccessible guard page
/// below low(). Unmapped on destruction.
class FiberStack {
public:
  /// Maps a stack of \p Bytes usable bytes (rounded up to pages).
  static Expected<std::unique_ptr<FiberStack>> create(size_t Bytes);
  ~FiberStack();
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;

  char *low() const { return Low; }
  char *high() const { return High; }

private:
  FiberStack() = default;
  char *Mapping = nullptr;
  size_t MappingBytes = 0;
  char *Low = nullptr;
  char *High = nullptr;
};

/// A saved execution context: the scheduler's own (default-constructed)
/// or a fiber's, started with start().
class Context {
public:
  Context();
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// Prepares this context to run Body(Arg) on \p Stack when first
  /// switched to. Body must never return (it switches away for good).
  void start(FiberStack &Stack, void (*Body)(void *), void *Arg);

  /// Saves the current context into \p From and resumes \p To.
  static void swap(Context &From, Context &To);

  /// The saved state (EmuFiber.cpp).
  struct Impl;

private:
  std::unique_ptr<Impl> I;
};

} // namespace emu
} // namespace rt
} // namespace tile

#endif // TILE_RUNTIME_LIB_EMUFIBER_H
