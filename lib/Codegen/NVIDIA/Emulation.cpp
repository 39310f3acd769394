//===- Emulation.cpp - NVPTX LLVM IR retargeted to the CPU emulator -------===//
//
// Part of tilec. The NVIDIA emulator runs the LLVM IR that the NVPTX backend
// would compile (optimized exactly as for PTX) on the CPU, so that the
// NVIDIA lowering can be executed and checked on a machine without a GPU.
// This file rewrites that module for the runtime's emulated device
// (runtime/lib/NvEmuBackend.cpp); the contract between the two is
// runtime/include/tile/runtime/NvEmuAbi.h:
//  - every llvm.nvvm.* intrinsic becomes a call through the runtime's table
//    of functions (`__tile_emu_ops`, set by `__tile_emu_bind`), with
//    aggregate operands and results passed as arrays of 32-bit words;
//  - the dynamic shared memory array becomes the block's buffer
//    (ops->shared_base()) in every function that uses it;
//  - every load, store, atomic and memory intrinsic on global, shared or
//    generic memory is preceded by ops->access() (bounds and race checks),
//    except when it provably addresses a stack slot or a module global; a
//    refused access goes to a scratch sink instead, so that an
//    out-of-bounds kernel is reported rather than crashing the process;
//  - each kernel gets an entry `__tile_emu_entry_<name>(void **args)` that
//    runs one thread with cuLaunchKernel-style arguments.
// Anything the rewrite does not know (an unlisted NVVM intrinsic, static
// shared variables) is an error at compile time, not a wrong result later.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"

#include "tile/Codegen/Common/Serialize.h"
#include "tile/Codegen/Host/HostCodegen.h"
#include "tile/runtime/NvEmuAbi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace {

/// The fields of struct tile_emu_ops, in order.
enum OpsField : unsigned {
  kAbiVersion = 0,
  kSreg,
  kSharedBase,
  kBarrier,
  kShfl,
  kLdmatrix,
  kMma,
  kCpAsync,
  kCpAsyncCommit,
  kCpAsyncWait,
  kAccess,
  kMathF32,
  kUnsupported,
  kNumFields
};

/// Register counts of an mma kind: a, b, c, d (NvEmuAbi.h's table).
struct MmaShape {
  unsigned kind, a, b, c, d;
};

std::optional<MmaShape> parseMma(StringRef name) {
  // llvm.nvvm.mma.<shape>.row.col[.satfinite].<types>
  return StringSwitch<std::optional<MmaShape>>(name)
      .Case("llvm.nvvm.mma.m16n8k16.row.col.f32.f32",
            MmaShape{TILE_EMU_MMA_M16N8K16_F32_F16, 4, 2, 4, 4})
      .Case("llvm.nvvm.mma.m16n8k16.row.col.bf16",
            MmaShape{TILE_EMU_MMA_M16N8K16_F32_BF16, 4, 2, 4, 4})
      .Case("llvm.nvvm.mma.m16n8k16.row.col.f16.f16",
            MmaShape{TILE_EMU_MMA_M16N8K16_F16_F16, 4, 2, 2, 2})
      .Case("llvm.nvvm.mma.m16n8k32.row.col.s8",
            MmaShape{TILE_EMU_MMA_M16N8K32_S32_S8, 4, 2, 4, 4})
      .Case("llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8",
            MmaShape{TILE_EMU_MMA_M16N8K32_S32_S8_SAT, 4, 2, 4, 4})
      .Case("llvm.nvvm.mma.m16n8k8.row.col.f32.f32",
            MmaShape{TILE_EMU_MMA_M16N8K8_F32_F16, 2, 1, 4, 4})
      .Default(std::nullopt);
}

std::optional<unsigned> parseSreg(StringRef reg) {
  return StringSwitch<std::optional<unsigned>>(reg)
      .Case("tid.x", TILE_EMU_TID_X)
      .Case("tid.y", TILE_EMU_TID_Y)
      .Case("tid.z", TILE_EMU_TID_Z)
      .Case("ntid.x", TILE_EMU_NTID_X)
      .Case("ntid.y", TILE_EMU_NTID_Y)
      .Case("ntid.z", TILE_EMU_NTID_Z)
      .Case("ctaid.x", TILE_EMU_CTAID_X)
      .Case("ctaid.y", TILE_EMU_CTAID_Y)
      .Case("ctaid.z", TILE_EMU_CTAID_Z)
      .Case("nctaid.x", TILE_EMU_NCTAID_X)
      .Case("nctaid.y", TILE_EMU_NCTAID_Y)
      .Case("nctaid.z", TILE_EMU_NCTAID_Z)
      .Case("laneid", TILE_EMU_LANEID)
      .Case("warpid", TILE_EMU_WARPID)
      .Default(std::nullopt);
}

std::optional<unsigned> parseMath(StringRef name) {
  // llvm.nvvm.<fn>.approx[.ftz].<f|f32>
  if (!name.consume_front("llvm.nvvm."))
    return std::nullopt;
  StringRef fn = name.take_until([](char c) { return c == '.'; });
  if (!name.drop_front(fn.size()).starts_with(".approx."))
    return std::nullopt;
  return StringSwitch<std::optional<unsigned>>(fn)
      .Case("ex2", TILE_EMU_EX2_APPROX)
      .Case("lg2", TILE_EMU_LG2_APPROX)
      .Case("rsqrt", TILE_EMU_RSQRT_APPROX)
      .Case("rcp", TILE_EMU_RCP_APPROX)
      .Case("sqrt", TILE_EMU_SQRT_APPROX)
      .Case("sin", TILE_EMU_SIN_APPROX)
      .Case("cos", TILE_EMU_COS_APPROX)
      .Case("tanh", TILE_EMU_TANH_APPROX)
      .Default(std::nullopt);
}

class EmulationRewriter {
public:
  explicit EmulationRewriter(Module &module)
      : m(module), ctx(module.getContext()), i32(Type::getInt32Ty(ctx)),
        f32(Type::getFloatTy(ctx)), voidTy(Type::getVoidTy(ctx)),
        ptr(PointerType::get(ctx, 0)) {
    SmallVector<Type *> fields(kNumFields, ptr);
    fields[kAbiVersion] = i32;
    opsType = StructType::create(ctx, fields, "struct.tile_emu_ops");
    opsVar = new GlobalVariable(
        m, ptr, /*isConstant=*/false, GlobalValue::InternalLinkage,
        ConstantPointerNull::get(ptr), "__tile_emu_ops");
  }

  Error run();

private:
  /// Loads field \p field of the table.
  Value *opsFunction(IRBuilder<> &b, OpsField field) {
    Value *table = b.CreateLoad(ptr, opsVar, "emu.ops");
    return b.CreateLoad(ptr, b.CreateStructGEP(opsType, table, field));
  }
  CallInst *callOps(IRBuilder<> &b, OpsField field, Type *result,
                    ArrayRef<Value *> args) {
    SmallVector<Type *> types;
    for (Value *arg : args)
      types.push_back(arg->getType());
    auto *type = FunctionType::get(result, types, false);
    return b.CreateCall(type, opsFunction(b, field), args);
  }
  Value *generic(IRBuilder<> &b, Value *pointer) {
    return b.CreateAddrSpaceCast(pointer, ptr);
  }
  /// A [n x i32] stack slot at the entry of \p f, one per role and function
  /// (the runtime reads it during the call only).
  Value *scratch(Function &f, StringRef role, unsigned n) {
    Value *&slot = scratchSlots[{&f, role}];
    if (!slot) {
      IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().begin());
      slot = entry.CreateAlloca(ArrayType::get(i32, n), nullptr, "emu." + role);
      cast<AllocaInst>(slot)->setAlignment(Align(16));
    }
    return slot;
  }
  /// Stores 32-bit values (i32, float, <2 x half>, ...) into \p slot.
  void storeWords(IRBuilder<> &b, Value *slot, ArrayRef<Value *> words) {
    for (auto [i, word] : llvm::enumerate(words))
      b.CreateStore(b.CreateBitCast(word, i32),
                    b.CreateConstInBoundsGEP1_32(i32, slot, i));
  }
  /// Rebuilds a result of type \p type (a 32-bit scalar or a struct of
  /// them) from the words in \p slot.
  Value *loadWords(IRBuilder<> &b, Value *slot, Type *type) {
    auto word = [&](unsigned i, Type *as) {
      Value *v = b.CreateLoad(i32, b.CreateConstInBoundsGEP1_32(i32, slot, i));
      return b.CreateBitCast(v, as);
    };
    auto *st = dyn_cast<StructType>(type);
    if (!st)
      return word(0, type);
    Value *result = PoisonValue::get(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      result = b.CreateInsertValue(result, word(i, st->getElementType(i)), i);
    return result;
  }
  /// Where refused accesses of up to kSinkBytes go (module-private).
  static constexpr unsigned kSinkBytes = 256;
  GlobalVariable *sink() {
    if (!sinkVar) {
      auto *type = ArrayType::get(Type::getInt8Ty(ctx), kSinkBytes);
      sinkVar = new GlobalVariable(
          m, type, /*isConstant=*/false, GlobalValue::InternalLinkage,
          ConstantAggregateZero::get(type), "__tile_emu_sink");
      sinkVar->setAlignment(Align(64));
    }
    return sinkVar;
  }
  static bool is32Bit(Type *type) {
    return type->isSized() && type->getPrimitiveSizeInBits() == 32;
  }

  Error rewriteCall(CallInst *call, StringRef name);
  Error rewriteSharedGlobals();
  void instrumentAccesses(Function &f);
  void addEntries();

  Module &m;
  LLVMContext &ctx;
  Type *i32, *f32, *voidTy;
  PointerType *ptr;
  StructType *opsType;
  GlobalVariable *opsVar;
  GlobalVariable *sinkVar = nullptr;
  DenseMap<std::pair<Function *, StringRef>, Value *> scratchSlots;
};

Error EmulationRewriter::rewriteCall(CallInst *call, StringRef name) {
  IRBuilder<> b(call);
  Function &f = *call->getFunction();
  Value *replacement = nullptr;
  auto arg = [&](unsigned i) { return call->getArgOperand(i); };

  if (name.consume_front("llvm.nvvm.read.ptx.sreg.")) {
    if (name == "warpsize") {
      replacement = b.getInt32(32);
    } else if (std::optional<unsigned> reg = parseSreg(name)) {
      replacement = callOps(b, kSreg, i32, {b.getInt32(*reg)});
    } else {
      return createStringError("the NVIDIA emulator does not know special "
                               "register %" +
                               name);
    }
  } else if (name == "llvm.nvvm.barrier0") {
    callOps(b, kBarrier, voidTy, {b.getInt32(0)});
  } else if (name == "llvm.nvvm.barrier.cta.sync.aligned.all" ||
             name == "llvm.nvvm.barrier.cta.sync.all" ||
             name == "llvm.nvvm.barrier.sync" || name == "llvm.nvvm.bar.sync") {
    callOps(b, kBarrier, voidTy, {arg(0)});
  } else if (name.consume_front("llvm.nvvm.shfl.sync.")) {
    // <mode>.<i32|f32>[p](mask, value, b, c)
    unsigned mode = StringSwitch<unsigned>(name.take_front(name.find('.')))
                        .Case("up", TILE_EMU_SHFL_UP)
                        .Case("down", TILE_EMU_SHFL_DOWN)
                        .Case("bfly", TILE_EMU_SHFL_BFLY)
                        .Case("idx", TILE_EMU_SHFL_IDX)
                        .Default(~0u);
    if (mode == ~0u || !is32Bit(arg(1)->getType()))
      return createStringError("the NVIDIA emulator does not know "
                               "llvm.nvvm.shfl.sync." +
                               name);
    bool withPred = name.ends_with("p");
    Value *pred =
        withPred ? scratch(f, "pred", 1) : ConstantPointerNull::get(ptr);
    Value *value =
        callOps(b, kShfl, i32,
                {b.getInt32(mode), arg(0), b.CreateBitCast(arg(1), i32), arg(2),
                 arg(3), pred});
    value = b.CreateBitCast(value, arg(1)->getType());
    if (withPred) {
      Value *p = b.CreateICmpNE(b.CreateLoad(i32, pred), b.getInt32(0));
      Value *pair = PoisonValue::get(call->getType());
      pair = b.CreateInsertValue(pair, value, 0);
      replacement = b.CreateInsertValue(pair, p, 1);
    } else {
      replacement = value;
    }
  } else if (name.consume_front("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x")) {
    // <1|2|4>[.trans].b16[.p3](ptr)
    unsigned count = 0;
    if (name.consumeInteger(10, count) ||
        (count != 1 && count != 2 && count != 4))
      return createStringError("the NVIDIA emulator does not know "
                               "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x" +
                               name);
    bool trans = name.starts_with(".trans");
    if (!name.contains(".b16"))
      return createStringError("the NVIDIA emulator only knows ldmatrix "
                               ".b16, not ldmatrix" +
                               name);
    Value *out = scratch(f, "ldmatrix", 4);
    callOps(b, kLdmatrix, voidTy,
            {b.getInt32(count), b.getInt32(trans), generic(b, arg(0)), out});
    replacement = loadWords(b, out, call->getType());
  } else if (name.starts_with("llvm.nvvm.mma.")) {
    std::optional<MmaShape> shape = parseMma(name);
    if (!shape)
      return createStringError("the NVIDIA emulator does not know " + name);
    SmallVector<Value *> words(call->args());
    if (words.size() != shape->a + shape->b + shape->c ||
        !llvm::all_of(words, [](Value *w) { return is32Bit(w->getType()); }))
      return createStringError("unexpected operands of " + name);
    Value *a = scratch(f, "mma.a", 4), *bb = scratch(f, "mma.b", 2),
          *c = scratch(f, "mma.c", 4), *d = scratch(f, "mma.d", 4);
    ArrayRef<Value *> all(words);
    storeWords(b, a, all.take_front(shape->a));
    storeWords(b, bb, all.slice(shape->a, shape->b));
    storeWords(b, c, all.take_back(shape->c));
    callOps(b, kMma, voidTy, {b.getInt32(shape->kind), a, bb, c, d});
    replacement = loadWords(b, d, call->getType());
  } else if (name.consume_front("llvm.nvvm.cp.async.")) {
    if (name == "commit.group") {
      callOps(b, kCpAsyncCommit, voidTy, {});
    } else if (name == "wait.group") {
      callOps(b, kCpAsyncWait, voidTy, {arg(0)});
    } else if (name == "wait.all") {
      callOps(b, kCpAsyncWait, voidTy, {b.getInt32(0)});
    } else if (name.consume_front("ca.shared.global.") ||
               name.consume_front("cg.shared.global.")) {
      // <4|8|16>[.s](dst, src[, src_size])
      unsigned bytes = 0;
      if (name.consumeInteger(10, bytes) || (name != "" && name != ".s"))
        return createStringError("the NVIDIA emulator does not know "
                                 "cp.async." +
                                 name);
      Value *srcBytes = call->arg_size() > 2
                            ? b.CreateZExtOrTrunc(arg(2), i32)
                            : static_cast<Value *>(b.getInt32(bytes));
      callOps(b, kCpAsync, voidTy,
              {generic(b, arg(0)), generic(b, arg(1)), b.getInt32(bytes),
               srcBytes});
    } else {
      return createStringError("the NVIDIA emulator does not know "
                               "llvm.nvvm.cp.async." +
                               name);
    }
  } else if (std::optional<unsigned> fn = parseMath(name)) {
    if (!call->getType()->isFloatTy())
      return createStringError("the NVIDIA emulator only knows the f32 form "
                               "of " +
                               name);
    replacement = callOps(b, kMathF32, f32, {b.getInt32(*fn), arg(0)});
  } else {
    return createStringError("the NVIDIA emulator does not know the "
                             "intrinsic " +
                             name);
  }

  if (replacement)
    call->replaceAllUsesWith(replacement);
  else if (!call->use_empty())
    call->replaceAllUsesWith(PoisonValue::get(call->getType()));
  call->eraseFromParent();
  return Error::success();
}

Error EmulationRewriter::rewriteSharedGlobals() {
  SmallVector<GlobalVariable *> shared;
  for (GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == TILE_EMU_SHARED)
      shared.push_back(&g);
  for (GlobalVariable *g : shared) {
    auto *array = dyn_cast<ArrayType>(g->getValueType());
    if (!g->isDeclaration() || !array || array->getNumElements() != 0)
      return createStringError(
          "the NVIDIA emulator supports only the dynamic shared memory array "
          "(extern .shared), not the static shared variable @" +
          g->getName());
    convertUsersOfConstantsToInstructions({g});
    DenseMap<Function *, Value *> base;
    for (Use &use : make_early_inc_range(g->uses())) {
      auto *user = dyn_cast<Instruction>(use.getUser());
      if (!user)
        return createStringError("unexpected use of @" + g->getName());
      Function *f = user->getFunction();
      Value *&b3 = base[f];
      if (!b3) {
        IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
        Value *b0 = callOps(entry, kSharedBase, ptr, {});
        b3 = entry.CreateAddrSpaceCast(b0, g->getType(), "emu.smem");
      }
      use.set(b3);
    }
    g->eraseFromParent();
  }
  return Error::success();
}

void EmulationRewriter::instrumentAccesses(Function &f) {
  const DataLayout &layout = m.getDataLayout();
  // Checks the access of `inst` through its operand `operand`; when the
  // runtime refuses it (recorded as an error), the access is redirected to
  // a scratch sink so that the process survives to report it.
  auto check = [&](Instruction *inst, unsigned operand, Value *bytes,
                   unsigned flags) {
    Value *pointer = inst->getOperand(operand);
    unsigned space = pointer->getType()->getPointerAddressSpace();
    if (space != TILE_EMU_GENERIC && space != TILE_EMU_GLOBAL &&
        space != TILE_EMU_SHARED)
      return;
    // Stack slots and module constants are the thread's own; the shared
    // memory array is a global until rewriteSharedGlobals() and is checked.
    const Value *object = getUnderlyingObject(pointer, /*MaxLookup=*/0);
    if (isa<AllocaInst>(object))
      return;
    if (auto *global = dyn_cast<GlobalVariable>(object))
      if (global->getAddressSpace() != TILE_EMU_SHARED)
        return;
    IRBuilder<> b(inst);
    Value *ok = callOps(b, kAccess, i32,
                        {generic(b, pointer), b.CreateZExtOrTrunc(bytes, i32),
                         b.getInt32(space | flags)});
    ok = b.CreateICmpNE(ok, b.getInt32(0));
    auto *constBytes = dyn_cast<ConstantInt>(bytes);
    if (constBytes && constBytes->getZExtValue() <= kSinkBytes) {
      inst->setOperand(operand, b.CreateSelect(ok, pointer,
                                               b.CreateAddrSpaceCast(
                                                   sink(), pointer->getType()),
                                               "emu.checked"));
    } else if (auto *mem = dyn_cast<AnyMemIntrinsic>(inst)) {
      mem->setLength(b.CreateSelect(ok, mem->getLength(),
                                    ConstantInt::get(bytes->getType(), 0)));
    }
  };
  auto size = [&](Type *type) {
    return ConstantInt::get(i32, layout.getTypeStoreSize(type));
  };
  SmallVector<Instruction *> accesses;
  for (Instruction &inst : instructions(f))
    if (isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst,
            AnyMemIntrinsic>(inst))
      accesses.push_back(&inst);
  for (Instruction *inst : accesses) {
    if (auto *load = dyn_cast<LoadInst>(inst)) {
      check(load, load->getPointerOperandIndex(), size(load->getType()), 0);
    } else if (auto *store = dyn_cast<StoreInst>(inst)) {
      check(store, store->getPointerOperandIndex(),
            size(store->getValueOperand()->getType()), TILE_EMU_ACCESS_WRITE);
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(inst)) {
      check(rmw, rmw->getPointerOperandIndex(), size(rmw->getType()),
            TILE_EMU_ACCESS_WRITE | TILE_EMU_ACCESS_ATOMIC);
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(inst)) {
      check(cas, cas->getPointerOperandIndex(),
            size(cas->getNewValOperand()->getType()),
            TILE_EMU_ACCESS_WRITE | TILE_EMU_ACCESS_ATOMIC);
    } else if (auto *mem = dyn_cast<AnyMemIntrinsic>(inst)) {
      check(mem, 0, mem->getLength(), TILE_EMU_ACCESS_WRITE);
      if (isa<AnyMemTransferInst>(mem))
        check(mem, 1, mem->getLength(), 0);
    }
  }
}

void EmulationRewriter::addEntries() {
  SmallVector<Function *> kernels;
  for (Function &f : m)
    if (!f.isDeclaration() && f.getCallingConv() == CallingConv::PTX_Kernel)
      kernels.push_back(&f);
  for (Function *kernel : kernels) {
    kernel->setCallingConv(CallingConv::C);
    kernel->setLinkage(GlobalValue::InternalLinkage);
    auto *type = FunctionType::get(voidTy, {ptr}, false);
    Function *entry =
        Function::Create(type, GlobalValue::ExternalLinkage,
                         TILE_EMU_ENTRY_PREFIX + kernel->getName(), m);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
    SmallVector<Value *> args;
    for (Argument &param : kernel->args()) {
      Value *slot =
          b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, entry->getArg(0),
                                                         param.getArgNo()));
      args.push_back(b.CreateLoad(param.getType(), slot));
    }
    b.CreateCall(kernel, args);
    b.CreateRetVoid();
  }
  auto *bindType = FunctionType::get(voidTy, {ptr}, false);
  Function *bind = Function::Create(bindType, GlobalValue::ExternalLinkage,
                                    TILE_EMU_BIND_SYMBOL, m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", bind));
  b.CreateStore(bind->getArg(0), opsVar);
  b.CreateRetVoid();
}

Error EmulationRewriter::run() {
  // Accesses first, so that the table loads added below stay unchecked.
  for (Function &f : m)
    if (!f.isDeclaration())
      instrumentAccesses(f);

  SmallVector<Function *> intrinsics;
  for (Function &f : m)
    if (f.isDeclaration() && f.getName().starts_with("llvm.nvvm."))
      intrinsics.push_back(&f);
  for (Function *intrinsic : intrinsics) {
    for (User *user : make_early_inc_range(intrinsic->users())) {
      auto *call = dyn_cast<CallInst>(user);
      if (!call || call->getCalledFunction() != intrinsic)
        return createStringError("unexpected use of " + intrinsic->getName());
      if (Error err = rewriteCall(call, intrinsic->getName()))
        return err;
    }
    intrinsic->eraseFromParent();
  }
  // llvm.trap (a failed check in the kernel): report it, then go on.
  if (Function *trap = m.getFunction("llvm.trap")) {
    for (User *user : make_early_inc_range(trap->users())) {
      auto *call = cast<CallInst>(user);
      IRBuilder<> b(call);
      Constant *what = b.CreateGlobalString("trap", "emu.trap");
      callOps(b, kUnsupported, voidTy, {what});
      call->eraseFromParent();
    }
  }
  if (Error err = rewriteSharedGlobals())
    return err;
  addEntries();

  // Nothing NVPTX-specific is left for the host backend to trip on.
  for (Function &f : m) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  if (NamedMDNode *annotations = m.getNamedMetadata("nvvm.annotations"))
    m.eraseNamedMetadata(annotations);
  return Error::success();
}

/// The NVVM-dialect module translated to LLVM IR and optimized exactly as
/// for PTX, then rewritten for the emulator.
Expected<std::unique_ptr<Module>>
buildEmulationModule(mlir::ModuleOp module, const ::tile::TargetInfo &target,
                     LLVMContext &context) {
  Expected<std::unique_ptr<Module>> llvmModule =
      ::tile::nvidia::translateToOptimizedLLVMIR(module, target, context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (Error err = ::tile::nvidia::rewriteForEmulation(**llvmModule))
    return std::move(err);
  return llvmModule;
}

} // namespace

Error tile::nvidia::rewriteForEmulation(Module &module) {
  return EmulationRewriter(module).run();
}

/// Builds the emulation module of \p module and hands it to \p emit.
static Expected<std::string>
withEmulationModule(mlir::ModuleOp module, const tile::TargetInfo &target,
                    function_ref<Expected<std::string>(Module &)> emit) {
  LLVMContext context;
  Expected<std::unique_ptr<Module>> llvmModule =
      buildEmulationModule(module, target, context);
  if (!llvmModule)
    return llvmModule.takeError();
  return emit(**llvmModule);
}

Expected<std::string>
tile::nvidia::translateLLVMToEmulatorIR(mlir::ModuleOp module,
                                        const TargetInfo &target) {
  return withEmulationModule(module, target,
                             [](Module &m) -> Expected<std::string> {
                               std::string text;
                               raw_string_ostream os(text);
                               m.print(os, nullptr);
                               return text;
                             });
}

Expected<std::string>
tile::nvidia::translateLLVMToEmulator(mlir::ModuleOp module,
                                      const TargetInfo &target) {
  return withEmulationModule(
      module, target, [](Module &m) -> Expected<std::string> {
        SmallString<128> path;
        if (std::error_code ec =
                sys::fs::createTemporaryFile("tile-nvemu", "so", path))
          return createStringError("cannot create a temporary file: " +
                                   ec.message());
        FileRemover remove(path);
        if (Error err = host::emitSharedObjectFromLLVM(m, path))
          return std::move(err);
        ErrorOr<std::unique_ptr<MemoryBuffer>> bytes =
            MemoryBuffer::getFile(path, /*IsText=*/false);
        if (!bytes)
          return createStringError("cannot read " + path + ": " +
                                   bytes.getError().message());
        return (*bytes)->getBuffer().str();
      });
}
