//===- IndexFacts.cpp - What tile-pipeline knows of index values ---------===//
//
// Part of tilec. Internal to lib/Transforms (PipelineSupport.h), for
// tile-pipeline's choice of TMA copies:
//  - knownDivisor: a divisor every value of an i32/index SSA value is known
//    to have, from constants, sums, products, casts and the induction
//    variables of scf.for loops (their lower bound and step): whether the
//    column offset of a sub-byte tile starts on a byte, which a TMA copy of
//    packed weights (a map of bytes) needs;
//  - extentExpression: a view extent written as the front end writes a
//    declared shape ("K", "K / 128"), to check that a view is its
//    parameter with the declared shape the runtime maps.
//
//===----------------------------------------------------------------------===//

#include "PipelineSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;

namespace tile::pipeline {

/// A divisor of every value, standing for "any": zero's.
static constexpr int64_t kAny = int64_t(1) << 40;

static int64_t divisorOf(Value v, unsigned depth) {
  if (depth > 16)
    return 1;
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant))) {
    int64_t c = std::abs(constant.getSExtValue());
    return c == 0 ? kAny : c;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return 1;
    return std::gcd(divisorOf(loop.getLowerBound(), depth + 1),
                    divisorOf(loop.getStep(), depth + 1));
  }
  Operation *op = v.getDefiningOp();
  auto sides = [&](Operation *o) {
    return std::make_pair(divisorOf(o->getOperand(0), depth + 1),
                          divisorOf(o->getOperand(1), depth + 1));
  };
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinSIOp, arith::MaxSIOp,
          arith::MinUIOp, arith::MaxUIOp>(op)) {
    auto [a, b] = sides(op);
    return std::gcd(a, b);
  }
  if (isa<arith::MulIOp>(op)) {
    auto [a, b] = sides(op);
    return a >= kAny / b ? kAny : a * b;
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return divisorOf(op->getOperand(0), depth + 1);
  return 1;
}

int64_t knownDivisor(Value v) { return divisorOf(v, 0); }

std::string extentExpression(Value v, func::FuncOp kernel) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return std::to_string(constant.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &kernel.getBody().front())
      return "";
    auto name = kernel.getArgAttrOfType<StringAttr>(
        arg.getArgNumber(), tile::TileDialect::kArgDimAttr);
    return name ? name.str() : "";
  }
  // One operator between two leaves, as "K / 128" (deeper expressions are
  // parenthesized by the front end: not matched, so not TMA copies).
  Operation *op = v.getDefiningOp();
  const char *symbol = isa<arith::DivSIOp>(op)  ? " / "
                       : isa<arith::MulIOp>(op) ? " * "
                       : isa<arith::AddIOp>(op) ? " + "
                       : isa<arith::SubIOp>(op) ? " - "
                                                : nullptr;
  if (!symbol)
    return "";
  for (Value operand : op->getOperands())
    if (operand.getDefiningOp() && !matchPattern(operand, m_Constant()))
      return "";
  std::string lhs = extentExpression(op->getOperand(0), kernel),
              rhs = extentExpression(op->getOperand(1), kernel);
  return lhs.empty() || rhs.empty() ? "" : lhs + symbol + rhs;
}

} // namespace tile::pipeline
