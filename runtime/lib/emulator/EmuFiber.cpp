//===- EmuFiber.cpp - Stackful fibers for the GPU emulators ---------------===//
//
// Part of tilec. On x86-64 a switch pushes the callee-saved registers and
// the SSE/x87 control words on the old stack, swaps stack pointers and pops
// them from the new one (System V ABI: everything else is caller-saved). A
// fresh fiber's stack is laid out as if it had switched away just before
// entering a small trampoline, which calls Body(Arg). Other targets use
// ucontext (slower: it saves the signal mask with a system call), as does
// x86-64 when built with -DTILE_NVEMU_USE_UCONTEXT (e.g. for sanitizers).
//
//===----------------------------------------------------------------------===//

#include "emulator/EmuFiber.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__) || defined(TILE_NVEMU_USE_UCONTEXT)
#include <ucontext.h>
#endif

using namespace tile::rt;
using namespace tile::rt::emu;

Expected<std::unique_ptr<FiberStack>> FiberStack::create(size_t Bytes) {
  size_t Page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t Usable = (Bytes + Page - 1) / Page * Page;
  size_t Total = Usable + Page;
  void *M = mmap(nullptr, Total, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (M == MAP_FAILED)
    return makeError("cannot map a fiber stack of " + std::to_string(Total) +
                     " bytes: " + std::strerror(errno));
  // The guard page: a fiber overflowing its stack faults instead of
  // silently overwriting the neighbouring stack.
  if (mprotect(M, Page, PROT_NONE) != 0) {
    int Err = errno;
    munmap(M, Total);
    return makeError(std::string("cannot protect a fiber stack's guard "
                                 "page: ") +
                     std::strerror(Err));
  }
  std::unique_ptr<FiberStack> S(new FiberStack());
  S->Mapping = static_cast<char *>(M);
  S->MappingBytes = Total;
  S->Low = S->Mapping + Page;
  S->High = S->Mapping + Total;
  return S;
}

FiberStack::~FiberStack() {
  if (Mapping)
    munmap(Mapping, MappingBytes);
}

#if defined(__x86_64__) && !defined(TILE_NVEMU_USE_UCONTEXT)

extern "C" {
/// Saves the callee-saved state on the current stack, stores the stack
/// pointer to *From and continues with the state saved at To.
void tile_emu_fiber_switch(void **From, void *To);
/// First code of a fiber: calls r13(r12).
void tile_emu_fiber_trampoline();
}

// Saved frame, from the saved stack pointer upwards: MXCSR (4 bytes) and the
// x87 control word (2 bytes) in one 8-byte slot, r15, r14, r13, r12, rbx,
// rbp, return address.
asm(R"(
  .text
  .globl tile_emu_fiber_switch
  .hidden tile_emu_fiber_switch
  .type tile_emu_fiber_switch,@function
  .p2align 4
tile_emu_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tile_emu_fiber_switch, .-tile_emu_fiber_switch

  .globl tile_emu_fiber_trampoline
  .hidden tile_emu_fiber_trampoline
  .type tile_emu_fiber_trampoline,@function
  .p2align 4
tile_emu_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size tile_emu_fiber_trampoline, .-tile_emu_fiber_trampoline
)");

struct Context::Impl {
  void *Sp = nullptr;
};

void Context::start(FiberStack &Stack, void (*Body)(void *), void *Arg) {
  // The trampoline is entered by `ret` with the stack 16-byte aligned, so
  // that its call leaves the callee the usual (16n + 8) alignment.
  auto Top = reinterpret_cast<uintptr_t>(Stack.high()) & ~uintptr_t(15);
  auto *Slots = reinterpret_cast<uint64_t *>(Top) - 8;
  uint32_t Mxcsr;
  uint16_t Fpcw;
  asm volatile("stmxcsr %0" : "=m"(Mxcsr));
  asm volatile("fnstcw %0" : "=m"(Fpcw));
  Slots[0] = uint64_t(Mxcsr) | uint64_t(Fpcw) << 32;
  Slots[1] = 0;                                // r15
  Slots[2] = 0;                                // r14
  Slots[3] = reinterpret_cast<uint64_t>(Body); // r13
  Slots[4] = reinterpret_cast<uint64_t>(Arg);  // r12
  Slots[5] = 0;                                // rbx
  Slots[6] = 0;                                // rbp
  Slots[7] = reinterpret_cast<uint64_t>(&tile_emu_fiber_trampoline);
  I->Sp = Slots;
}

void Context::swap(Context &From, Context &To) {
  tile_emu_fiber_switch(&From.I->Sp, To.I->Sp);
}

#else // ucontext

struct Context::Impl {
  ucontext_t Ctx;
  void (*Body)(void *) = nullptr;
  void *Arg = nullptr;
};

namespace {
void ucontextEntry(unsigned Hi, unsigned Lo) {
  auto *I =
      reinterpret_cast<Context::Impl *>(uintptr_t(Hi) << 32 | uintptr_t(Lo));
  I->Body(I->Arg);
}
} // namespace

void Context::start(FiberStack &Stack, void (*Body)(void *), void *Arg) {
  getcontext(&I->Ctx);
  I->Ctx.uc_stack.ss_sp = Stack.low();
  I->Ctx.uc_stack.ss_size = static_cast<size_t>(Stack.high() - Stack.low());
  I->Ctx.uc_link = nullptr;
  I->Body = Body;
  I->Arg = Arg;
  auto P = reinterpret_cast<uintptr_t>(I.get());
  makecontext(&I->Ctx, reinterpret_cast<void (*)()>(&ucontextEntry), 2,
              unsigned(P >> 32), unsigned(P & 0xffffffffu));
}

void Context::swap(Context &From, Context &To) {
  swapcontext(&From.I->Ctx, &To.I->Ctx);
}

#endif

Context::Context() : I(std::make_unique<Impl>()) {}
Context::~Context() = default;
