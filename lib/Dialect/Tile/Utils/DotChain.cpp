//===- DotChain.cpp - Products whose operands are other products ----------===//
//
// Part of tilec. See include/tile/Dialect/Tile/Utils/DotChain.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Utils/DotChain.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

bool tile::isElementwiseOnTiles(Operation *op) {
  if (isa<CastOp>(op))
    return true;
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
}

/// Ops a value flows through unchanged in distribution.
static bool passesThrough(Operation *op) {
  return tile::isElementwiseOnTiles(op) || isa<tile::ConvertLayoutOp>(op);
}

bool tile::isChainedProduct(DotOp dot) {
  SmallVector<Value> work{dot.getResult()};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second || seen.size() > 256)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<DotOp>(user) && use.getOperandNumber() == 0)
        return true;
      if (passesThrough(user))
        llvm::append_range(work, user->getResults());
      // A value an scf.if yields (a mask applied on some iterations only)
      // flows on as the if's result.
      if (isa<scf::YieldOp>(user))
        if (auto ifOp = dyn_cast<scf::IfOp>(user->getParentOp()))
          work.push_back(ifOp.getResult(use.getOperandNumber()));
    }
  }
  work.assign({dot.getA()});
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second || seen.size() > 512)
      continue;
    Operation *def = value.getDefiningOp();
    if (!def)
      continue;
    if (isa<DotOp>(def))
      return true;
    if (passesThrough(def))
      for (Value operand : def->getOperands())
        if (isa<RankedTensorType>(operand.getType()))
          work.push_back(operand);
    // An scf.if result: what either branch yields.
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      unsigned i = cast<OpResult>(value).getResultNumber();
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty())
          work.push_back(region->front().getTerminator()->getOperand(i));
    }
  }
  return false;
}
