//===- NoPolly.cpp - The Polly extension hook, empty (portable builds) ----===//
//
// Part of tilec. Debian's LLVM is built with Polly as a static extension:
// libLLVMLTO.a (pulled in by lld's LTO support) calls getPollyPluginInfo()
// for every LTO pipeline. A static tilec has no Polly and never runs LTO;
// this definition registers nothing, so that the link resolves. Only
// TILEC_PORTABLE builds compile this file (libLLVM.so carries its own).
//
//===----------------------------------------------------------------------===//

#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly (not built in)", "0",
          [](llvm::PassBuilder &) {}};
}
