//===- Commands.h - tilec run / check / bundle ------------------*- C++ -*-===//
//
// Part of tilec. The subcommands that execute kernels:
//   tilec run FILE --kernel K --size M=64,N=30 [--target T] [--seed S]
//             [--arg NAME=V]... [--input NAME=F.npy]... [--dump DIR]
//   tilec check FILE --kernel K --size ... --target T
//   tilec bundle FILE... -o DIR [--target T] [--size ...]...
//   tilec pack W.npy --type T [--block-k BK] [--unpack] -o OUT.npy
//   tilec tune FILE --kernel K --target T --size ... [--device D]
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILEC_COMMANDS_H
#define TILE_TOOLS_TILEC_COMMANDS_H

#include "tile/JIT.h"
#include "tile/runtime/Expr.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tile::driver {

/// If the command line selected a subcommand, runs it, stores its exit code
/// in \p exitCode and returns true. Call after cl::ParseCommandLineOptions.
bool runSelectedSubcommand(int &exitCode);
/// `tilec pack` (PackCommand.cpp): the same contract.
bool runPackSubcommand(int &exitCode);
/// `tilec tune` (TuneCommand.cpp): the same contract.
bool runTuneSubcommand(int &exitCode);

/// `tilec bundle --tune-cache` (TuneCommand.cpp): kernel \p kernel of
/// \p file compiled with the configuration of every shape bucket the cache
/// at \p cachePath holds for it (same source, target, -D values and
/// compiler version; entries of the device \p deviceName only when it is
/// not empty), each with its bucket set. One line per variant goes to
/// \p log. Two devices with different winners for one bucket: the first
/// is kept and the others are reported.
rt::Expected<jit::CompiledKernels>
tunedVariants(jit::Compiler &compiler, const std::string &file,
              const std::string &kernel, const jit::CompileOptions &options,
              const std::string &cachePath, const std::string &deviceName,
              llvm::raw_ostream &log);

// Shared by the subcommands.
/// Splits "NAME=VALUE" (both trimmed); false without '=' or a name.
bool splitAssignment(llvm::StringRef text, std::string &name,
                     std::string &value);
/// Parses "M=64,N=30" into \p dims; prints an error and returns false on a
/// malformed part.
bool parseSizeList(llvm::StringRef text, rt::DimMap &dims);
/// The device a target runs on by default: host, cuda or hip (cuda-emu /
/// hip-emu when \p emulate).
std::string defaultDeviceFor(llvm::StringRef target, bool emulate);
/// Whether \p deviceSpec names a CPU emulator of a GPU (code objects must
/// then be compiled for it).
bool isEmulatorDevice(llvm::StringRef deviceSpec);

} // namespace tile::driver

#endif // TILE_TOOLS_TILEC_COMMANDS_H
