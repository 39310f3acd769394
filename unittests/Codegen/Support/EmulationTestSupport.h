//===- EmulationTestSupport.h - Running emulator-rewritten IR in tests -*- C++
//-*-===//
//
// Part of tilec. Shared by the tests of the NVIDIA and AMD emulation
// rewrites: parse a hand-written GPU module, rewrite it, JIT it for the host
// and call its entries with a recording table of operations.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_CODEGEN_SUPPORT_EMULATIONTESTSUPPORT_H
#define TILE_UNITTESTS_CODEGEN_SUPPORT_EMULATIONTESTSUPPORT_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>

namespace tile::test {

/// Parses LLVM IR text; a test failure (and null) when it does not parse.
inline std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &ctx,
                                             const std::string &text) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, diag, ctx);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diag.print("test", os);
    ADD_FAILURE() << message;
  }
  return module;
}

/// The message of \p rewrite's error on the module \p text ("" if none).
inline std::string
rewriteError(const std::string &text,
             const std::function<llvm::Error(llvm::Module &)> &rewrite) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module = parseIR(ctx, text);
  if (!module)
    return "<parse error>";
  llvm::Error err = rewrite(*module);
  return err ? llvm::toString(std::move(err)) : "";
}

/// Parses \p text, rewrites it with \p rewrite, checks that the result
/// verifies and JIT-compiles it for the host.
inline llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
rewriteAndJit(const std::string &text,
              const std::function<llvm::Error(llvm::Module &)> &rewrite) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = parseIR(*context, text);
  if (!module)
    return llvm::createStringError("the test module does not parse");
  if (llvm::Error err = rewrite(*module))
    return std::move(err);
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(*module, &os))
    return llvm::createStringError("the rewritten module is broken: " + broken);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  module->setDataLayout((*jit)->getDataLayout());
  module->setTargetTriple((*jit)->getTargetTriple());
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    return std::move(err);
  return std::move(*jit);
}

/// The address of \p name in \p jit as a \p Fn (a test failure and null if
/// it is missing).
template <typename Fn> Fn lookup(llvm::orc::LLJIT &jit, const char *name) {
  auto address = jit.lookup(name);
  if (!address) {
    ADD_FAILURE() << llvm::toString(address.takeError());
    return nullptr;
  }
  return address->toPtr<Fn>();
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

} // namespace tile::test

#endif // TILE_UNITTESTS_CODEGEN_SUPPORT_EMULATIONTESTSUPPORT_H
