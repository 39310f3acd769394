//===- LaneMaskRemat.cpp - Keep lane masks inside loops -------------------===//
//
// Part of tilec. On wave64 AMDGPU every divergent i1 (a lane mask: the
// result of a per-lane compare, or and/or/xor of such) lives in a pair of
// SGPRs. LICM hoists the loop-invariant ones out of loops, so a loop whose
// masked tile loads check each element's column bound (fixed for the whole
// loop) keeps dozens of masks alive across it, exceeds the 102 SGPRs of a
// wave and spills them to VGPR lanes. One VALU compare per use is cheaper:
// this pass recomputes such masks next to their uses, from operands passed
// through an optimization barrier at the loop header, so that neither the
// IR LICM of the codegen pipeline nor MachineLICM hoists them again. Only
// the operands (VGPRs and SGPRs the loop needs anyway) stay live.
//
//===----------------------------------------------------------------------===//

#include "LaneMaskRemat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace tile::amd {

namespace {

/// A lane mask: an i1 compare, or and/or/xor of i1 values.
bool isLaneMask(const Value *value) {
  const auto *inst = dyn_cast<Instruction>(value);
  if (!inst || !inst->getType()->isIntegerTy(1))
    return false;
  if (isa<ICmpInst>(inst))
    return true;
  if (const auto *bin = dyn_cast<BinaryOperator>(inst)) {
    unsigned op = bin->getOpcode();
    return op == Instruction::And || op == Instruction::Or ||
           op == Instruction::Xor;
  }
  return false;
}

class Rematerializer {
public:
  explicit Rematerializer(Loop &loop) : loop(loop) {}

  /// A copy of the mask \p value in front of \p before; copies made in the
  /// same block are reused.
  Value *mask(Value *value, Instruction *before) {
    if (!isLaneMask(value))
      return operand(value, before, /*depth=*/0);
    auto key = std::make_pair(value, before->getParent());
    auto it = copies.find(key);
    if (it != copies.end())
      return it->second;
    auto *inst = cast<Instruction>(value);
    Instruction *copy = inst->clone();
    for (unsigned i = 0; i < copy->getNumOperands(); ++i)
      copy->setOperand(i, mask(copy->getOperand(i), before));
    copy->insertBefore(before->getIterator());
    copy->setName(inst->getName() + ".remat");
    copies[key] = copy;
    return copy;
  }

private:
  /// A compare operand inside the loop: cheap integer arithmetic with a
  /// constant (the per-element offsets `base + j`) is recomputed there too,
  /// so that only its base goes through the barrier, once per loop.
  Value *operand(Value *value, Instruction *before, unsigned depth) {
    auto *bin = dyn_cast<BinaryOperator>(value);
    if (bin && depth < 4 && !loop.contains(bin->getParent()) &&
        bin->getType()->isIntegerTy() &&
        (isa<Constant>(bin->getOperand(0)) ||
         isa<Constant>(bin->getOperand(1)))) {
      auto key = std::make_pair(value, before->getParent());
      auto it = copies.find(key);
      if (it != copies.end())
        return it->second;
      Instruction *copy = bin->clone();
      for (unsigned i = 0; i < 2; ++i)
        copy->setOperand(i, operand(copy->getOperand(i), before, depth + 1));
      copy->insertBefore(before->getIterator());
      copies[key] = copy;
      return copy;
    }
    return barrier(value);
  }

  /// \p value as seen through an empty asm at the loop header: the same
  /// bits, but nothing computed from it is loop-invariant. Constants,
  /// arguments (kernel arguments are uniform) and values of other types
  /// pass through.
  Value *barrier(Value *value) {
    auto *inst = dyn_cast<Instruction>(value);
    auto *type = dyn_cast<IntegerType>(value->getType());
    if (!inst || !type || type->getBitWidth() < 8 || type->getBitWidth() > 64)
      return value;
    auto it = barriers.find(value);
    if (it != barriers.end())
      return it->second;
    BasicBlock *header = loop.getHeader();
    IRBuilder<> builder(header, header->getFirstInsertionPt());
    auto *asmType = FunctionType::get(type, {type}, false);
    InlineAsm *copy = InlineAsm::get(asmType, "", "=v,0",
                                     /*hasSideEffects=*/true);
    Value *result = builder.CreateCall(copy, {value}, value->getName());
    barriers[value] = result;
    return result;
  }

  Loop &loop;
  DenseMap<std::pair<Value *, BasicBlock *>, Value *> copies;
  DenseMap<Value *, Value *> barriers;
};

} // namespace

unsigned rematerializeLaneMasks(Function &function) {
  if (function.isDeclaration())
    return 0;
  DominatorTree dominators(function);
  LoopInfo loops(dominators);
  // Innermost loop of each block; collect the uses first, then rewrite.
  struct Use {
    Instruction *user;
    unsigned operand;
    Loop *loop;
  };
  SmallVector<Use> uses;
  for (BasicBlock &block : function) {
    Loop *loop = loops.getLoopFor(&block);
    if (!loop)
      continue;
    for (Instruction &user : block) {
      if (isa<PHINode>(user))
        continue;
      for (unsigned i = 0; i < user.getNumOperands(); ++i) {
        Value *def = user.getOperand(i);
        if (isLaneMask(def) &&
            !loop->contains(cast<Instruction>(def)->getParent()))
          uses.push_back({&user, i, loop});
      }
    }
  }
  DenseMap<Loop *, std::unique_ptr<Rematerializer>> perLoop;
  SmallVector<WeakTrackingVH> maybeDead;
  for (const Use &use : uses) {
    std::unique_ptr<Rematerializer> &r = perLoop[use.loop];
    if (!r)
      r = std::make_unique<Rematerializer>(*use.loop);
    Value *def = use.user->getOperand(use.operand);
    use.user->setOperand(use.operand, r->mask(def, use.user));
    maybeDead.push_back(def);
  }
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(maybeDead);
  return uses.size();
}

unsigned rematerializeLaneMasks(Module &module) {
  unsigned count = 0;
  for (Function &function : module)
    count += rematerializeLaneMasks(function);
  return count;
}

} // namespace tile::amd
