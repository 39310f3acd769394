//===- Diagnostics.h - Front-end diagnostics over llvm::SourceMgr -*- C++
//-*-===//
//
// Part of tilec. The front end reports every problem through a DiagEngine,
// which prints `file:line:col: error: message`, the source line and a caret
// through llvm::SourceMgr, counts errors and caps their number.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_DIAGNOSTICS_H
#define TILE_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace tile {
namespace frontend {

/// Collects and prints front-end diagnostics.
class DiagEngine {
public:
  /// Diagnostics are printed to \p os (the SourceMgr's default stream, i.e.
  /// stderr, when null).
  explicit DiagEngine(llvm::SourceMgr &sm, llvm::raw_ostream *os = nullptr)
      : srcMgr(sm), os(os) {}

  /// Reports an error at \p loc.
  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  /// Attaches a note to the previous error (printed only if it was printed).
  void note(llvm::SMLoc loc, const llvm::Twine &msg);
  /// Reports an error without a location (e.g. about a -D option).
  void errorNoLoc(const llvm::Twine &msg);

  /// Number of errors reported so far.
  unsigned getNumErrors() const { return numErrors; }
  /// True once the error limit is reached; callers should stop.
  bool tooManyErrors() const { return numErrors >= maxErrors; }
  /// Sets the maximum number of errors that are printed.
  void setMaxErrors(unsigned n) { maxErrors = n; }

  llvm::SourceMgr &getSourceMgr() { return srcMgr; }

private:
  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream *os;
  unsigned numErrors = 0;
  unsigned maxErrors = 20;
  bool lastPrinted = false;
};

} // namespace frontend
} // namespace tile

#endif // TILE_FRONTEND_DIAGNOSTICS_H
