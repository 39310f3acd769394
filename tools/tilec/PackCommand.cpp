//===- PackCommand.cpp - tilec pack: weights in an operand's order --------===//
//
// Part of tilec. `tilec pack W.npy --type T --block-k BK -o Wp.npy` reads a
// [K, N] array of T codes (as tile-run and `tilec run --dump` write them:
// one code per element) and writes the [N, K] array in the operand order of
// include/tile/Numerics/OperandPack.h, which examples/gemm_decode_packed.tile
// reads (`--order mfma`: AMD's MFMA operand order); `--unpack` goes back.
// The C API has the same as tile_pack_weights(_for).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tile/Numerics/Format.h"
#include "tile/Numerics/OperandPack.h"
#include "tile/runtime/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace num = tile::numerics;

namespace {

cl::OptionCategory packCat("tilec pack options");
cl::SubCommand packCmd("pack", "Store a [K, N] weight of low-bit codes as "
                               "[N, K] in the order tensor-core operands "
                               "read it (or back, with --unpack)");
cl::opt<std::string> packInput(cl::Positional, cl::desc("<W.npy>"),
                               cl::Required, cl::sub(packCmd));
cl::opt<std::string> packType("type",
                              cl::desc("Element type of the codes (u1 ... u8, "
                                       "i2 ... i8, f4e2m1, f8e4m3, ...)"),
                              cl::Required, cl::sub(packCmd), cl::cat(packCat));
cl::opt<unsigned> packBlockK(
    "block-k",
    cl::desc("The kernel's K chunk BK (a multiple of 32 dividing K; default "
             "gemm_decode_packed's: 512 for 1 bit, 256 for 2-4, 128 for "
             "5-8)"),
    cl::init(0), cl::sub(packCmd), cl::cat(packCat));
cl::opt<std::string> packOrder(
    "order",
    cl::desc("Whose register operands the chunks follow: mma (NVIDIA "
             "mma.sync / wgmma, the default) or mfma (AMD MFMA, which "
             "gemm_decode_packed reads with -D MFMA=true)"),
    cl::init("mma"), cl::sub(packCmd), cl::cat(packCat));
cl::opt<bool> packUnpack("unpack",
                         cl::desc("Read an [N, K] packed array, write [K, N]"),
                         cl::sub(packCmd), cl::cat(packCat));
cl::opt<std::string> packOutput("o", cl::desc("Output .npy file"),
                                cl::value_desc("file"), cl::Required,
                                cl::sub(packCmd), cl::cat(packCat));

int fail(const Twine &message) {
  errs() << "tilec pack: error: " << message << "\n";
  return 1;
}

int packMain() {
  auto format = num::parseFormat(packType);
  if (!format || format->bits() > 8)
    return fail("--type " + packType +
                ": expected a format of 1 to 8 bits (u4, i3, f4e2m1, ...)");
  tile::rt::Expected<tile::rt::NpyArray> in = tile::rt::readNpy(packInput);
  if (!in)
    return fail(packInput + ": " + in.message());
  if (in->Shape.size() != 2)
    return fail(packInput + ": expected a 2-D array, got " +
                Twine(in->Shape.size()) + " dimensions");
  // [K, N] to pack, [N, K] to unpack.
  int64_t k = packUnpack ? in->Shape[1] : in->Shape[0];
  int64_t n = packUnpack ? in->Shape[0] : in->Shape[1];
  tile::rt::Expected<std::vector<uint8_t>> codes =
      tile::rt::fromNpy(*in, packType, in->Shape);
  if (!codes)
    return fail(packInput + ": " + codes.message());
  auto order = num::parseOperandOrder(packOrder);
  if (!order)
    return fail("--order: " + order.message());
  unsigned bits = format->bits();
  size_t blockK = packBlockK ? size_t(packBlockK)
                             : num::defaultOperandBlockK(bits);
  auto out =
      packUnpack
          ? num::unpackOperandOrder(codes->data(), bits, k, n, blockK, *order)
          : num::packOperandOrder(codes->data(), bits, k, n, blockK, *order);
  if (!out)
    return fail(packInput + ": " + out.message());
  std::vector<int64_t> shape =
      packUnpack ? std::vector<int64_t>{k, n} : std::vector<int64_t>{n, k};
  tile::rt::Expected<tile::rt::NpyArray> array =
      tile::rt::toNpy(packType, shape, *out);
  if (!array)
    return fail(array.message());
  if (tile::rt::Error e = tile::rt::writeNpy(packOutput, *array))
    return fail(packOutput + ": " + e.message());
  outs() << (packUnpack ? "unpacked " : "packed ") << packType << " ["
         << in->Shape[0] << ", " << in->Shape[1] << "] -> [" << shape[0] << ", "
         << shape[1] << "], chunks of " << blockK << ", " << packOrder
         << " order: " << packOutput << "\n";
  return 0;
}

} // namespace

bool tile::driver::runPackSubcommand(int &exitCode) {
  if (!packCmd)
    return false;
  exitCode = packMain();
  return true;
}
