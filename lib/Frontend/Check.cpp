//===- Check.cpp - Parse and check a whole .tile file ---------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Frontend.h"
#include "tile/Frontend/Parser.h"
#include "tile/Frontend/Sema.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

using namespace tile::frontend;

std::unique_ptr<CheckedModule>
tile::frontend::checkModule(const Defines &defines,
                            const std::string &kernelName, DiagEngine &diags,
                            TargetFacts target) {
  llvm::SourceMgr &sm = diags.getSourceMgr();
  auto result = std::make_unique<CheckedModule>();
  result->ast = parseModule(sm, sm.getMainFileID(), diags);
  if (diags.getNumErrors())
    return nullptr;
  Module &mod = *result->ast;
  if (mod.kernels.empty()) {
    diags.error(llvm::SMLoc::getFromPointer(
                    sm.getMemoryBuffer(sm.getMainFileID())->getBufferStart()),
                "no kernel in this file; expected 'kernel NAME<...>(...) "
                "grid(...) warps N { ... }'");
    return nullptr;
  }
  // Kernel names must be unique.
  llvm::StringMap<KernelDecl *> names;
  for (auto &k : mod.kernels) {
    auto ins = names.insert({k->name, k.get()});
    if (!ins.second) {
      diags.error(k->loc, "redefinition of kernel '" + k->name + "'");
      diags.note(ins.first->second->loc, "previous definition is here");
    }
  }
  if (diags.getNumErrors())
    return nullptr;
  std::vector<KernelDecl *> selected;
  for (auto &k : mod.kernels) {
    if (kernelName.empty() || k->name == kernelName)
      selected.push_back(k.get());
  }
  if (selected.empty()) {
    std::string all;
    for (auto &k : mod.kernels)
      all += (all.empty() ? "" : ", ") + k->name;
    diags.errorNoLoc(
        "no kernel named '" + kernelName + "' in " +
        sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier() +
        " (kernels: " + all + ")");
    return nullptr;
  }
  for (auto &d : defines) {
    bool known = false;
    for (KernelDecl *k : selected) {
      for (auto &p : k->ctParams)
        known |= p.name == d.first;
    }
    if (!known) {
      diags.errorNoLoc("-D " + d.first + "=" + d.second +
                       ": no compiled kernel has a compile-time parameter "
                       "named '" +
                       d.first + "'");
    }
  }
  if (diags.getNumErrors())
    return nullptr;
  for (KernelDecl *k : selected) {
    if (diags.tooManyErrors())
      break;
    auto ck = checkKernel(*k, defines, diags, target);
    if (ck)
      result->kernels.push_back(std::move(ck));
  }
  if (diags.getNumErrors())
    return nullptr;
  return result;
}

bool tile::frontend::checkSource(llvm::SourceMgr &sm,
                                 const CompileOptions &options,
                                 llvm::raw_ostream *diagOS) {
  DiagEngine diags(sm, diagOS);
  diags.setMaxErrors(options.maxErrors);
  return checkModule(options.defines, options.kernel, diags, options.target) !=
         nullptr;
}
