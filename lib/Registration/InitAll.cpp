//===- InitAll.cpp - Register every tilec dialect and pass ----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAll.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#ifdef TILE_HAVE_CODEGEN_HOST
#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/Codegen/Passes.h"
#endif
#ifdef TILE_HAVE_TRANSFORMS
#include "tile/Transforms/Passes.h"
#endif
#ifdef TILE_HAVE_CODEGEN_NVIDIA
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#endif
#ifdef TILE_HAVE_CODEGEN_AMD
#include "tile/Codegen/AMD/AMDCodegen.h"
#endif

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

void tile::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::func::FuncDialect, mlir::cf::ControlFlowDialect,
                  mlir::tensor::TensorDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::ROCDL::ROCDLDialect>();
#ifdef TILE_HAVE_CODEGEN_HOST
  tile::host::registerHostCodegenDialects(registry);
#endif
#ifdef TILE_HAVE_CODEGEN_NVIDIA
  tile::nvidia::registerNVIDIACodegenDialects(registry);
#endif
#ifdef TILE_HAVE_CODEGEN_AMD
  tile::amd::registerAMDCodegenDialects(registry);
#endif
}

void tile::registerAllPasses() {
  // tilec's own passes register here as they are added (Transforms/,
  // Codegen/).
#ifdef TILE_HAVE_CODEGEN_HOST
  mlir::tile::registerCodegenPasses();
#endif
#ifdef TILE_HAVE_TRANSFORMS
  mlir::tile::registerTransformsPasses();
#endif
#ifdef TILE_HAVE_CODEGEN_NVIDIA
  tile::nvidia::registerNVIDIACodegenPasses();
#endif
#ifdef TILE_HAVE_CODEGEN_AMD
  tile::amd::registerAMDCodegenPasses();
#endif
}
