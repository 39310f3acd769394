//===- FrontendFuzzer.cpp - libFuzzer target for the .tile front end ------===//
//
// Part of tilec. Feeds arbitrary bytes to the lexer, parser and semantic
// analysis (the MLIR-free part of the front end) and checks two invariants:
// nothing crashes (ASan/UBSan watch), and every rejected input produced at
// least one diagnostic.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Frontend.h"
#include "tile/Frontend/KernelInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile"), llvm::SMLoc());
    std::string diags;
    llvm::raw_string_ostream os(diags);
    tile::frontend::CompileOptions opts;
    bool ok = tile::frontend::checkSource(sm, opts, &os);
    if (!ok && diags.empty()) {
      fprintf(stderr, "rejected input without a diagnostic\n");
      abort();
    }
  }
  {
    // Overrides exercise the specialization paths too.
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile"), llvm::SMLoc());
    std::string diags;
    llvm::raw_string_ostream os(diags);
    std::vector<tile::frontend::KernelInfo> kernels;
    if (tile::frontend::listKernels(sm, kernels, &os) && !kernels.empty() &&
        !kernels[0].ctParams.empty()) {
      tile::frontend::CompileOptions opts;
      opts.kernel = kernels[0].name;
      opts.defines[kernels[0].ctParams[0].name] = "1";
      llvm::SourceMgr sm2;
      sm2.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tile"),
          llvm::SMLoc());
      (void)tile::frontend::checkSource(sm2, opts, &os);
    }
  }
  return 0;
}
