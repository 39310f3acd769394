//===- EmitEntry.cpp - tile-host-emit-entry -------------------------------===//
//
// Part of tilec. Gives every tile.kernel function the host entry ABI shared
// with runtime/:
//
//   void NAME(void **args, const uint32_t pid[3], const uint32_t nprog[3]);
//
// The kernel body moves to an internal function that takes the kernel's
// parameters followed by six i32 values (program ids and grid size); the
// entry loads each parameter through args[i] and calls it.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace tile {
#define GEN_PASS_DEF_TILEHOSTEMITENTRY
#include "tile/Codegen/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace ::tile;

namespace {

/// Prefix of the function that holds a kernel's body after the pass.
constexpr llvm::StringLiteral kImplPrefix = "__tile_host_impl_";

/// True for scalar parameter types the entry can load from args[i].
static bool isEntryScalarType(Type type) {
  return isa<IntegerType>(type) || type.isF16() || type.isBF16() ||
         type.isF32();
}

/// Loads element \p index (of type \p elemType) of the array at \p base.
static Value loadElement(OpBuilder &b, Location loc, Value base, Type elemType,
                         int64_t index) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value addr = LLVM::GEPOp::create(b, loc, ptrType, elemType, base,
                                   ArrayRef<LLVM::GEPArg>{int32_t(index)});
  return LLVM::LoadOp::create(b, loc, elemType, addr);
}

struct EmitEntryPass : public tile::impl::TileHostEmitEntryBase<EmitEntryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    module.walk([&](Operation *op) {
      if (!isa<ProgramIdOp, NumProgramsOp>(op))
        return;
      auto func = op->getParentOfType<func::FuncOp>();
      if (!func || !func->hasAttr("tile.kernel")) {
        op->emitOpError() << "is only allowed in a function with the "
                             "'tile.kernel' attribute";
        failedAny = true;
      }
    });
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr("tile.kernel"))
        kernels.push_back(func);
    SymbolTable symbols(module);
    for (func::FuncOp kernel : kernels)
      if (failed(emitEntry(kernel, symbols)))
        failedAny = true;
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult emitEntry(func::FuncOp kernel, SymbolTable &symbols) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    if (kernel.isExternal())
      return kernel.emitOpError() << "is a kernel without a body";
    if (kernel.getNumResults() != 0)
      return kernel.emitOpError() << "is a kernel and must not return values";
    SmallVector<Type> paramTypes(kernel.getArgumentTypes());
    for (auto [i, type] : llvm::enumerate(paramTypes))
      if (!isa<PtrType>(type) && !isEntryScalarType(type))
        return kernel.emitOpError()
               << "parameter " << i << " has type " << type
               << ", which the host entry ABI cannot pass (expected "
                  "!tile.ptr, an integer, f16, bf16 or f32)";
    std::string name = kernel.getSymName().str();
    std::string implName = (kImplPrefix + name).str();
    if (symbols.lookup(implName))
      return kernel.emitOpError()
             << "cannot be wrapped: symbol '" << implName << "' exists";

    // The body: six trailing i32 parameters replace the program id ops.
    unsigned numParams = paramTypes.size();
    auto i32 = IntegerType::get(ctx, 32);
    SmallVector<unsigned> indices(6, numParams);
    SmallVector<Type> types(6, i32);
    SmallVector<DictionaryAttr> attrs(6, DictionaryAttr::get(ctx));
    SmallVector<Location> locs(6, loc);
    if (failed(kernel.insertArguments(indices, types, attrs, locs)))
      return kernel.emitOpError() << "cannot add the program id parameters";
    kernel.walk([&](Operation *op) {
      unsigned base = numParams;
      Axis axis;
      if (auto pid = dyn_cast<ProgramIdOp>(op)) {
        axis = pid.getAxis();
      } else if (auto num = dyn_cast<NumProgramsOp>(op)) {
        axis = num.getAxis();
        base += 3;
      } else {
        return;
      }
      op->getResult(0).replaceAllUsesWith(
          kernel.getArgument(base + static_cast<unsigned>(axis)));
      op->erase();
    });
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      kernel.setArgAttrs(i, DictionaryAttr::get(ctx));
    SmallVector<StringAttr> tileAttrs;
    for (NamedAttribute attr : kernel->getDiscardableAttrs())
      if (attr.getName().getValue().starts_with("tile."))
        tileAttrs.push_back(attr.getName());
    for (StringAttr attr : tileAttrs)
      kernel->removeAttr(attr);
    symbols.setSymbolName(kernel, implName);
    kernel.setPrivate();
    kernel->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));

    // The entry: loads every parameter through args[i].
    OpBuilder b(kernel);
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto entryType = FunctionType::get(ctx, {ptrType, ptrType, ptrType}, {});
    auto entry = func::FuncOp::create(b, loc, name, entryType);
    Block *block = entry.addEntryBlock();
    b.setInsertionPointToStart(block);
    Value args = block->getArgument(0);
    SmallVector<Value> callArgs;
    for (auto [i, type] : llvm::enumerate(paramTypes)) {
      Value slot = loadElement(b, loc, args, ptrType, int64_t(i));
      if (isa<PtrType>(type)) {
        Value data = LLVM::LoadOp::create(b, loc, ptrType, slot);
        callArgs.push_back(
            UnrealizedConversionCastOp::create(b, loc, type, data)
                .getResult(0));
      } else {
        callArgs.push_back(LLVM::LoadOp::create(b, loc, type, slot));
      }
    }
    for (unsigned k = 0; k < 6; ++k)
      callArgs.push_back(loadElement(b, loc, block->getArgument(1 + k / 3), i32,
                                     int64_t(k % 3)));
    func::CallOp::create(b, loc, kernel, callArgs);
    func::ReturnOp::create(b, loc);
    return success();
  }
};

} // namespace
