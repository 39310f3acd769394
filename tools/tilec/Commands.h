//===- Commands.h - tilec run / check / bundle ------------------*- C++ -*-===//
//
// Part of tilec. The subcommands that execute kernels:
//   tilec run FILE --kernel K --size M=64,N=30 [--target T] [--seed S]
//             [--arg NAME=V]... [--input NAME=F.npy]... [--dump DIR]
//   tilec check FILE --kernel K --size ... --target T
//   tilec bundle FILE... -o DIR [--target T] [--size ...]...
//   tilec pack W.npy --type T [--block-k BK] [--unpack] -o OUT.npy
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILEC_COMMANDS_H
#define TILE_TOOLS_TILEC_COMMANDS_H

namespace tile::driver {

/// If the command line selected a subcommand, runs it, stores its exit code
/// in \p exitCode and returns true. Call after cl::ParseCommandLineOptions.
bool runSelectedSubcommand(int &exitCode);
/// `tilec pack` (PackCommand.cpp): the same contract.
bool runPackSubcommand(int &exitCode);

} // namespace tile::driver

#endif // TILE_TOOLS_TILEC_COMMANDS_H
