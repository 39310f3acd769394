//===- tile-opt.cpp - The tile dialect optimizer driver -------------------===//
//
// Part of tilec. mlir-opt with the tile dialect, the upstream dialects tile
// programs lower through, and every tilec and upstream pass registered: the
// tool the lit tests of each pass are written against.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tile::registerAllPasses();
  mlir::DialectRegistry registry;
  tile::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tilec optimizer driver (tile dialect)\n", registry));
}
