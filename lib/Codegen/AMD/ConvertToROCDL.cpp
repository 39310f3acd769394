//===- ConvertToROCDL.cpp - The tile-convert-to-rocdl pass ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tile::amd {

#define GEN_PASS_DECL_TILECONVERTTOROCDL
#define GEN_PASS_DEF_TILECONVERTTOROCDL
#include "Passes.h.inc"

namespace {

struct ConvertToROCDLPass
    : public impl::TileConvertToROCDLBase<ConvertToROCDLPass> {
  using TileConvertToROCDLBase::TileConvertToROCDLBase;

  void runOnOperation() override {
    std::optional<TargetInfo> info = TargetInfo::lookup(chip);
    if (!info || !info->isAMD()) {
      getOperation().emitError("tile-convert-to-rocdl: '")
          << chip << "' is not an AMD target (gfx942, gfx950)";
      return signalPassFailure();
    }
    if (mlir::failed(lowerToROCDL(getOperation(), *info)))
      signalPassFailure();
  }
};

} // namespace
} // namespace tile::amd
