//===- Diagnostics.cpp - Front-end diagnostics ----------------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile::frontend;

void DiagEngine::error(llvm::SMLoc loc, const llvm::Twine &msg) {
  ++numErrors;
  lastPrinted = numErrors <= maxErrors;
  if (!lastPrinted)
    return;
  llvm::raw_ostream &out = os ? *os : llvm::errs();
  if (loc.isValid() && srcMgr.FindBufferContainingLoc(loc)) {
    srcMgr.PrintMessage(out, loc, llvm::SourceMgr::DK_Error, msg);
  } else {
    out << "error: " << msg << "\n";
  }
  if (numErrors == maxErrors)
    out << "error: too many errors, stopping\n";
}

void DiagEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (!lastPrinted)
    return;
  llvm::raw_ostream &out = os ? *os : llvm::errs();
  if (loc.isValid() && srcMgr.FindBufferContainingLoc(loc)) {
    srcMgr.PrintMessage(out, loc, llvm::SourceMgr::DK_Note, msg);
  } else {
    out << "note: " << msg << "\n";
  }
}

void DiagEngine::errorNoLoc(const llvm::Twine &msg) {
  error(llvm::SMLoc(), msg);
}
