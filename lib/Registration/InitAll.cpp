//===- InitAll.cpp - Register every tilec dialect and pass ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAll.h"

#include "tile/Codegen/AMD/AMDCodegen.h"
#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Codegen/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

void tile::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::func::FuncDialect, mlir::cf::ControlFlowDialect,
                  mlir::tensor::TensorDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::ROCDL::ROCDLDialect>();
  tile::host::registerHostCodegenDialects(registry);
  tile::nvidia::registerNVIDIACodegenDialects(registry);
  tile::amd::registerAMDCodegenDialects(registry);
}

void tile::registerAllPasses() {
  tile::registerCodegenPasses();
  tile::registerTransformsPasses();
  tile::nvidia::registerNVIDIACodegenPasses();
  tile::amd::registerAMDCodegenPasses();
}
