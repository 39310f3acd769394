//===- ConvertToNVVM.cpp - The tile-convert-to-nvvm pass ------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tile::nvidia {

#define GEN_PASS_DECL_TILECONVERTTONVVM
#define GEN_PASS_DEF_TILECONVERTTONVVM
#include "Passes.h.inc"

namespace {

struct ConvertToNVVMPass
    : public impl::TileConvertToNVVMBase<ConvertToNVVMPass> {
  using TileConvertToNVVMBase::TileConvertToNVVMBase;

  void runOnOperation() override {
    std::optional<TargetInfo> info = TargetInfo::lookup(target);
    if (!info || !info->isNVIDIA()) {
      getOperation().emitError("tile-convert-to-nvvm: '")
          << target << "' is not an NVIDIA target";
      return signalPassFailure();
    }
    if (mlir::failed(lowerToNVVM(getOperation(), *info)))
      signalPassFailure();
  }
};

} // namespace
} // namespace tile::nvidia
