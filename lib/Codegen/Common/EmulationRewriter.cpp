//===- EmulationRewriter.cpp - GPU LLVM IR rewritten for a CPU emulator ---===//
//
// Part of tilec. See EmulationRewriter.h.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/Common/EmulationRewriter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;
using namespace tile::emu;

namespace {
/// Refused accesses of up to this many bytes go to the sink.
constexpr unsigned kSinkBytes = 256;
} // namespace

EmulationRewriter::EmulationRewriter(Module &module, CommonFields fields)
    : m(module), ctx(module.getContext()), i32(Type::getInt32Ty(ctx)),
      f32(Type::getFloatTy(ctx)), voidTy(Type::getVoidTy(ctx)),
      ptr(PointerType::get(ctx, 0)), fields(fields) {
  SmallVector<Type *> types(fields.numFields, ptr);
  types[0] = i32; // abi_version
  opsType = StructType::create(ctx, types, "struct.tile_emu_ops");
  opsVar = new GlobalVariable(
      m, ptr, /*isConstant=*/false, GlobalValue::InternalLinkage,
      ConstantPointerNull::get(ptr), "__tile_emu_ops", nullptr,
      GlobalValue::NotThreadLocal, /*AddressSpace=*/0);
}

EmulationRewriter::~EmulationRewriter() = default;

Error EmulationRewriter::error(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

CallInst *EmulationRewriter::callOps(IRBuilderBase &b, unsigned field,
                                     Type *result, ArrayRef<Value *> args) {
  Value *table = b.CreateLoad(ptr, opsVar, "emu.ops");
  Value *fn = b.CreateLoad(ptr, b.CreateStructGEP(opsType, table, field));
  SmallVector<Type *> types;
  for (Value *arg : args)
    types.push_back(arg->getType());
  return b.CreateCall(FunctionType::get(result, types, false), fn, args);
}

Value *EmulationRewriter::generic(IRBuilderBase &b, Value *pointer) {
  return b.CreateAddrSpaceCast(pointer, ptr);
}

Value *EmulationRewriter::scratch(Function &f, StringRef role, unsigned n) {
  Value *&slot = scratchSlots[{&f, role}];
  auto *old = cast_or_null<AllocaInst>(slot);
  // A later use of the role may need more words (two wgmma dots of
  // different N): the slot grows, its earlier users move to the new one.
  if (old && cast<ArrayType>(old->getAllocatedType())->getNumElements() >= n)
    return slot;
  // Address space 0: the host's stack, whatever the GPU layout says.
  auto *grown = new AllocaInst(ArrayType::get(i32, n), /*AddrSpace=*/0,
                               /*ArraySize=*/nullptr, Align(16), "emu." + role,
                               f.getEntryBlock().begin());
  if (old) {
    old->replaceAllUsesWith(grown);
    old->eraseFromParent();
  }
  slot = grown;
  return slot;
}

unsigned EmulationRewriter::wordsOf(Type *type) const {
  if (auto *st = dyn_cast<StructType>(type)) {
    unsigned words = 0;
    for (Type *element : st->elements()) {
      unsigned n = wordsOf(element);
      if (!n)
        return 0;
      words += n;
    }
    return words;
  }
  if (!type->isSized())
    return 0;
  uint64_t bits = m.getDataLayout().getTypeSizeInBits(type);
  return bits % 32 == 0 ? unsigned(bits / 32) : 0;
}

void EmulationRewriter::storeWords(IRBuilderBase &b, Value *slot,
                                   ArrayRef<Value *> values) {
  unsigned index = 0;
  for (Value *value : values) {
    unsigned n = wordsOf(value->getType());
    Value *words =
        b.CreateBitCast(value, n == 1 ? static_cast<Type *>(i32)
                                      : FixedVectorType::get(i32, n));
    for (unsigned i = 0; i < n; ++i, ++index)
      b.CreateStore(n == 1 ? words : b.CreateExtractElement(words, i),
                    b.CreateConstInBoundsGEP1_32(i32, slot, index));
  }
}

Value *EmulationRewriter::loadWords(IRBuilderBase &b, Value *slot, Type *type) {
  unsigned index = 0;
  auto load = [&](Type *as) -> Value * {
    unsigned n = wordsOf(as);
    Value *words = n == 1 ? nullptr
                          : static_cast<Value *>(
                                PoisonValue::get(FixedVectorType::get(i32, n)));
    for (unsigned i = 0; i < n; ++i, ++index) {
      Value *word =
          b.CreateLoad(i32, b.CreateConstInBoundsGEP1_32(i32, slot, index));
      words = n == 1 ? word : b.CreateInsertElement(words, word, i);
    }
    return b.CreateBitCast(words, as);
  };
  auto *st = dyn_cast<StructType>(type);
  if (!st)
    return load(type);
  Value *result = PoisonValue::get(st);
  for (unsigned i = 0; i < st->getNumElements(); ++i)
    result = b.CreateInsertValue(result, load(st->getElementType(i)), i);
  return result;
}

void EmulationRewriter::replaceWithBase(GlobalVariable *global,
                                        unsigned baseField, uint64_t offset) {
  convertUsersOfConstantsToInstructions({global});
  for (Use &use : make_early_inc_range(global->uses())) {
    auto *user = cast<Instruction>(use.getUser());
    Function *f = user->getFunction();
    Value *&base = bases[{f, baseField}];
    if (!base) {
      IRBuilder<> entry(&f->getEntryBlock(),
                        f->getEntryBlock().getFirstInsertionPt());
      base = callOps(entry, baseField, ptr, {});
    }
    auto *phi = dyn_cast<PHINode>(user);
    IRBuilder<> b(phi ? phi->getIncomingBlock(use)->getTerminator() : user);
    Value *at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset);
    use.set(b.CreateAddrSpaceCast(at, global->getType(), "emu.shared"));
  }
}

Constant *EmulationRewriter::message(IRBuilderBase &b, StringRef text) {
  return b.CreateGlobalString(text, "emu.message", /*AddressSpace=*/0);
}

GlobalVariable *EmulationRewriter::sink() {
  if (!sinkVar) {
    auto *type = ArrayType::get(Type::getInt8Ty(ctx), kSinkBytes);
    sinkVar = new GlobalVariable(
        m, type, /*isConstant=*/false, GlobalValue::InternalLinkage,
        ConstantAggregateZero::get(type), "__tile_emu_sink", nullptr,
        GlobalValue::NotThreadLocal, /*AddressSpace=*/0);
    sinkVar->setAlignment(Align(64));
  }
  return sinkVar;
}

void EmulationRewriter::instrumentAccesses(Function &f) {
  const DataLayout &layout = m.getDataLayout();
  // Checks the access of `inst` through its operand `operand`; a refused
  // access is redirected to the sink (or, for a memory intrinsic of
  // unknown length, made empty).
  auto check = [&](Instruction *inst, unsigned operand, Value *bytes,
                   unsigned flags) {
    Value *pointer = inst->getOperand(operand);
    unsigned space = pointer->getType()->getPointerAddressSpace();
    if (!isCheckedSpace(space))
      return;
    // Stack slots and module constants are the work-item's own; shared
    // memory globals are rewritten later and are checked.
    const Value *object = getUnderlyingObject(pointer, /*MaxLookup=*/0);
    if (isa<AllocaInst>(object))
      return;
    if (auto *global = dyn_cast<GlobalVariable>(object))
      if (global->getAddressSpace() != sharedSpace())
        return;
    IRBuilder<> b(inst);
    Value *ok = callOps(b, fields.access, i32,
                        {generic(b, pointer), b.CreateZExtOrTrunc(bytes, i32),
                         b.getInt32(space | flags)});
    ok = b.CreateICmpNE(ok, b.getInt32(0));
    auto *constBytes = dyn_cast<ConstantInt>(bytes);
    if (constBytes && constBytes->getZExtValue() <= kSinkBytes) {
      Value *safe = b.CreateAddrSpaceCast(sink(), pointer->getType());
      inst->setOperand(operand,
                       b.CreateSelect(ok, pointer, safe, "emu.checked"));
    } else if (auto *mem = dyn_cast<AnyMemIntrinsic>(inst)) {
      mem->setLength(b.CreateSelect(ok, mem->getLength(),
                                    ConstantInt::get(bytes->getType(), 0)));
    }
  };
  auto size = [&](Type *type) {
    return ConstantInt::get(i32, layout.getTypeStoreSize(type));
  };
  constexpr unsigned kWrite = 0x100, kAtomic = 0x200;
  // The alignment an access declares, as log2 in bits 12..15: the GPU's
  // vector accesses fault where it does not hold (LLVM emits them on that
  // promise), so the emulator checks it.
  auto aligned = [&](Align align, unsigned flags) {
    return flags | std::min<unsigned>(Log2(align), 15) << 12;
  };
  SmallVector<Instruction *> accesses;
  for (Instruction &inst : instructions(f))
    if (isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst,
            AnyMemIntrinsic>(inst))
      accesses.push_back(&inst);
  for (Instruction *inst : accesses) {
    if (auto *load = dyn_cast<LoadInst>(inst)) {
      check(load, load->getPointerOperandIndex(), size(load->getType()),
            aligned(load->getAlign(), 0));
    } else if (auto *store = dyn_cast<StoreInst>(inst)) {
      check(store, store->getPointerOperandIndex(),
            size(store->getValueOperand()->getType()),
            aligned(store->getAlign(), kWrite));
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(inst)) {
      check(rmw, rmw->getPointerOperandIndex(), size(rmw->getType()),
            aligned(rmw->getAlign(), kWrite | kAtomic));
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(inst)) {
      check(cas, cas->getPointerOperandIndex(),
            size(cas->getNewValOperand()->getType()),
            aligned(cas->getAlign(), kWrite | kAtomic));
    } else if (auto *mem = dyn_cast<AnyMemIntrinsic>(inst)) {
      check(mem, 0, mem->getLength(), kWrite);
      if (isa<AnyMemTransferInst>(mem))
        check(mem, 1, mem->getLength(), 0);
    }
  }
}

/// `lop3.b32 $0, $1, $2, $3, LUT;` (the NVIDIA lowering's andXor): each
/// result bit is bit (a << 2 | b << 1 | c) of LUT, built here from the
/// minterms the table selects. Null for any other assembly.
static Value *evaluateLop3(CallInst *call, StringRef text) {
  text = text.trim();
  if (!text.consume_front("lop3.b32 $0, $1, $2, $3,") || call->arg_size() != 3)
    return nullptr;
  unsigned lut;
  if (text.trim().rtrim(';').trim().getAsInteger(0, lut) || lut > 0xFF)
    return nullptr;
  IRBuilder<> b(call);
  Value *in[3] = {call->getArgOperand(0), call->getArgOperand(1),
                  call->getArgOperand(2)};
  Value *result = ConstantInt::get(call->getType(), 0);
  for (unsigned i = 0; i < 8; ++i) {
    if (!((lut >> i) & 1))
      continue;
    Value *term = ConstantInt::get(call->getType(), ~0ull);
    for (unsigned k = 0; k < 3; ++k) {
      bool set = (i >> (2 - k)) & 1;
      term = b.CreateAnd(term, set ? in[k] : b.CreateNot(in[k]));
    }
    result = b.CreateOr(result, term);
  }
  return result;
}

/// `prmt.b32 $0, $1, $2, SEL;` (the NVIDIA lowering's permuteBytes), the
/// default mode: result byte k is byte (SEL >> 4k) & 7 of the pair (a, b),
/// bytes 0-3 from a, 4-7 from b (the selector's sign-replicate bits are
/// not used by tilec and rejected). Null for any other assembly.
static Value *evaluatePrmt(CallInst *call, StringRef text) {
  text = text.trim();
  if (!text.consume_front("prmt.b32 $0, $1, $2,") || call->arg_size() != 2)
    return nullptr;
  unsigned sel;
  if (text.trim().rtrim(';').trim().getAsInteger(0, sel) || (sel & ~0x7777u))
    return nullptr;
  IRBuilder<> b(call);
  Type *i64 = b.getInt64Ty();
  // The pair as one 64-bit value: a in bytes 0-3, b in bytes 4-7.
  Value *pair =
      b.CreateOr(b.CreateZExt(call->getArgOperand(0), i64),
                 b.CreateShl(b.CreateZExt(call->getArgOperand(1), i64), 32));
  Value *result = ConstantInt::get(call->getType(), 0);
  for (unsigned k = 0; k < 4; ++k) {
    unsigned from = (sel >> (4 * k)) & 7;
    Value *byte = b.CreateAnd(
        b.CreateTrunc(b.CreateLShr(pair, 8 * from), call->getType()), 0xFF);
    result = b.CreateOr(result, b.CreateShl(byte, 8 * k));
  }
  return result;
}

Error EmulationRewriter::rewriteInlineAsm() {
  // The inline assembly tilec emits: lop3.b32 (evaluateLop3), prmt.b32
  // (evaluatePrmt), the target's own (rewriteTargetAsm), an empty
  // register barrier (`asm "" "=v,0"`: the value unchanged, opaque to the
  // optimizer) or an empty statement; on the CPU the last two are the
  // identity.
  SmallVector<CallInst *> calls;
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (isa<InlineAsm>(call->getCalledOperand()))
          calls.push_back(call);
  for (CallInst *call : calls) {
    auto *asmOp = cast<InlineAsm>(call->getCalledOperand());
    Value *evaluated = evaluateLop3(call, asmOp->getAsmString());
    if (!evaluated)
      evaluated = evaluatePrmt(call, asmOp->getAsmString());
    if (evaluated) {
      call->replaceAllUsesWith(evaluated);
      call->eraseFromParent();
      continue;
    }
    Value *replacement = nullptr;
    Expected<bool> handled =
        rewriteTargetAsm(call, asmOp->getAsmString(), replacement);
    if (!handled)
      return handled.takeError();
    if (*handled) {
      if (replacement)
        call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
      continue;
    }
    if (!StringRef(asmOp->getAsmString()).trim().empty())
      return error("the emulator cannot run inline assembly '" +
                   asmOp->getAsmString() + "'");
    if (!call->getType()->isVoidTy()) {
      if (call->arg_size() != 1 ||
          call->getArgOperand(0)->getType() != call->getType())
        return error("the emulator cannot run an empty inline assembly "
                     "statement with constraints '" +
                     asmOp->getConstraintString() + "'");
      call->replaceAllUsesWith(call->getArgOperand(0));
    }
    call->eraseFromParent();
  }
  return Error::success();
}

void EmulationRewriter::addEntries() {
  SmallVector<Function *> kernels;
  for (Function &f : m)
    if (!f.isDeclaration() && isKernel(f))
      kernels.push_back(&f);
  for (Function *kernel : kernels) {
    kernel->setCallingConv(CallingConv::C);
    kernel->setLinkage(GlobalValue::InternalLinkage);
    auto *type = FunctionType::get(voidTy, {ptr}, false);
    Function *entry =
        Function::Create(type, GlobalValue::ExternalLinkage,
                         "__tile_emu_entry_" + kernel->getName(), m);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
    SmallVector<Value *> args;
    for (Argument &param : kernel->args()) {
      Value *slot =
          b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, entry->getArg(0),
                                                         param.getArgNo()));
      // A byval parameter (an NVIDIA TMA tensor map, __grid_constant__) is
      // passed by the address of its slot: the slot holds the bytes.
      args.push_back(
          param.hasByValAttr()
              ? b.CreatePointerBitCastOrAddrSpaceCast(slot, param.getType())
              : b.CreateLoad(param.getType(), slot));
    }
    // The kernel reads its byval parameters in place: without the
    // attribute the call passes their addresses (a byval parameter is
    // passed in the argument area on the host, which a call without the
    // attribute leaves unset: a tensor map read as zeros once the kernel
    // is too large to inline).
    for (Argument &param : kernel->args())
      if (param.hasByValAttr())
        kernel->removeParamAttr(param.getArgNo(), Attribute::ByVal);
    b.CreateCall(kernel, args);
    b.CreateRetVoid();
    addKernelExports(*kernel);
  }
  auto *bindType = FunctionType::get(voidTy, {ptr}, false);
  Function *bind = Function::Create(bindType, GlobalValue::ExternalLinkage,
                                    "__tile_emu_bind", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", bind));
  b.CreateStore(bind->getArg(0), opsVar);
  b.CreateRetVoid();
}

Error EmulationRewriter::run() {
  if (Error err = rewriteMemoryAsm())
    return err;
  // Accesses first, so that the table loads added below stay unchecked.
  for (Function &f : m)
    if (!f.isDeclaration())
      instrumentAccesses(f);

  SmallVector<Function *> intrinsics;
  for (Function &f : m)
    if (f.isDeclaration() && f.getName().starts_with(intrinsicPrefix()))
      intrinsics.push_back(&f);
  for (Function *intrinsic : intrinsics) {
    for (User *user : make_early_inc_range(intrinsic->users())) {
      auto *call = dyn_cast<CallInst>(user);
      if (!call || call->getCalledFunction() != intrinsic)
        return error("unexpected use of " + intrinsic->getName());
      Expected<Value *> replacement = rewriteCall(call, intrinsic->getName());
      if (!replacement)
        return replacement.takeError();
      if (!call->use_empty())
        call->replaceAllUsesWith(
            *replacement ? *replacement : PoisonValue::get(call->getType()));
      call->eraseFromParent();
    }
    intrinsic->eraseFromParent();
  }
  // llvm.trap (a failed check in the kernel): report it, then go on.
  if (Function *trap = m.getFunction("llvm.trap")) {
    for (User *user : make_early_inc_range(trap->users())) {
      auto *call = cast<CallInst>(user);
      IRBuilder<> b(call);
      callOps(b, fields.unsupported, voidTy, {message(b, "trap")});
      call->eraseFromParent();
    }
  }
  if (Error err = rewriteInlineAsm())
    return err;
  if (Error err = rewriteSharedGlobals())
    return err;
  addEntries();

  // Nothing target-specific is left for the host backend to trip on; the
  // module is the host's now (its data layout is set where it is compiled).
  for (Function &f : m) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  m.setTargetTriple(Triple(sys::getProcessTriple()));
  m.setDataLayout("");
  return Error::success();
}
