//===- ROCDLSerialize.cpp - The tile-rocdl-serialize pass -----------------===//
//
// Part of tilec. Exposes the AMD back half (AMDGCN assembly, HSACO code
// objects, kernel resources) to tile-opt pipelines and lit tests.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"

#include "tile/Target/TargetInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace tile::amd {

#define GEN_PASS_DECL_TILEROCDLSERIALIZE
#define GEN_PASS_DEF_TILEROCDLSERIALIZE
#include "Passes.h.inc"

namespace {

struct ROCDLSerializePass
    : public impl::TileROCDLSerializeBase<ROCDLSerializePass> {
  using TileROCDLSerializeBase::TileROCDLSerializeBase;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    std::optional<TargetInfo> info = TargetInfo::lookup(chip);
    if (!info || !info->isAMD()) {
      module.emitError("tile-rocdl-serialize: '")
          << chip << "' is not an AMD target (gfx942, gfx950)";
      return signalPassFailure();
    }
    if (format != "asm" && format != "hsaco") {
      module.emitError("tile-rocdl-serialize: format must be asm or hsaco, "
                       "not '")
          << format << "'";
      return signalPassFailure();
    }
    if (format == "hsaco" && output == "-") {
      module.emitError("tile-rocdl-serialize: format=hsaco needs an output "
                       "file (output=PATH)");
      return signalPassFailure();
    }
    std::string data;
    std::vector<KernelResources> kernels;
    llvm::LLVMContext context;
    auto llvmModule = translateToOptimizedLLVMIR(module, *info, context);
    if (!llvmModule)
      return fail(llvmModule.takeError());
    if (format == "asm") {
      auto result = emitAMDGCN(**llvmModule, *info);
      if (!result)
        return fail(result.takeError());
      data = std::move(result->assembly);
      kernels = std::move(result->kernels);
    } else {
      auto result = emitHSACO(**llvmModule, *info);
      if (!result)
        return fail(result.takeError());
      data = std::move(result->hsaco);
      kernels = std::move(result->kernels);
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file =
        mlir::openOutputFile(output, &error);
    if (!file) {
      module.emitError("tile-rocdl-serialize: ") << error;
      return signalPassFailure();
    }
    file->os() << data;
    file->keep();

    mlir::Builder b(module.getContext());
    llvm::SmallVector<mlir::Attribute> entries;
    for (const KernelResources &k : kernels) {
      llvm::SmallVector<mlir::NamedAttribute> fields;
      auto add = [&](llvm::StringRef name, unsigned value) {
        fields.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
      };
      fields.push_back(b.getNamedAttr("name", b.getStringAttr(k.name)));
      add("vgprs", k.vgprs);
      add("agprs", k.agprs);
      add("sgprs", k.sgprs);
      add("vgpr_spills", k.vgprSpills);
      add("sgpr_spills", k.sgprSpills);
      add("lds_bytes", k.ldsBytes);
      add("scratch_bytes", k.scratchBytes);
      add("wavefront_size", k.wavefrontSize);
      entries.push_back(b.getDictionaryAttr(fields));
    }
    module->setAttr("amdgcn.kernels", b.getArrayAttr(entries));
  }

  void fail(llvm::Error err) {
    getOperation().emitError("tile-rocdl-serialize: ")
        << llvm::toString(std::move(err));
    signalPassFailure();
  }
};

} // namespace
} // namespace tile::amd
