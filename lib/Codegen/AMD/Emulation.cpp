//===- Emulation.cpp - AMDGPU LLVM IR retargeted to the CPU emulator ------===//
//
// Part of tilec. The AMD emulator runs the LLVM IR that the AMDGPU backend
// would compile (optimized exactly as for the HSACO, lane-mask
// rematerialization included) on the CPU, one work-item per fiber in waves
// of 64 (runtime/lib/emulator/AmdEmu*). The generic part of the rewrite (access
// checks, entries, the table) is tile::emu::EmulationRewriter; this file
// maps the llvm.amdgcn.* intrinsics onto the table of
// include/tile/Emulation/AmdEmuAbi.h and the module's LDS variables
// onto one per-workgroup block (ops->lds_base() + a fixed offset each;
// `__tile_emu_lds_bytes_<kernel>` tells the runtime its size). Private
// allocas (address space 5) move to the host stack. An unlisted intrinsic
// is an error at compile time.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"

#include "tile/Codegen/Common/EmulationRewriter.h"
#include "tile/Emulation/AmdEmuAbi.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace llvm;

namespace {

/// The fields of struct tile_amd_emu_ops, in order.
enum OpsField : unsigned {
  kAbiVersion = 0,
  kSreg,
  kDispatchPtr,
  kLdsBase,
  kBarrier,
  kDpp,
  kDsSwizzle,
  kDsBpermute,
  kDsPermute,
  kMfma,
  kReadFirstLane,
  kAccess,
  kMathF32,
  kUnsupported,
  kNumFields
};

std::optional<unsigned> parseMfma(StringRef name) {
  return StringSwitch<std::optional<unsigned>>(name)
      .Case("llvm.amdgcn.mfma.f32.32x32x8f16",
            TILE_AMD_EMU_MFMA_F32_32X32X8_F16)
      .Case("llvm.amdgcn.mfma.f32.16x16x16f16",
            TILE_AMD_EMU_MFMA_F32_16X16X16_F16)
      .Case("llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
            TILE_AMD_EMU_MFMA_F32_32X32X8_BF16)
      .Case("llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
            TILE_AMD_EMU_MFMA_F32_16X16X16_BF16)
      .Case("llvm.amdgcn.mfma.i32.32x32x16.i8",
            TILE_AMD_EMU_MFMA_I32_32X32X16_I8)
      .Case("llvm.amdgcn.mfma.i32.16x16x32.i8",
            TILE_AMD_EMU_MFMA_I32_16X16X32_I8)
      .Case("llvm.amdgcn.mfma.f32.32x32x16.f16",
            TILE_AMD_EMU_MFMA_F32_32X32X16_F16)
      .Case("llvm.amdgcn.mfma.f32.16x16x32.f16",
            TILE_AMD_EMU_MFMA_F32_16X16X32_F16)
      .Case("llvm.amdgcn.mfma.f32.32x32x16.bf16",
            TILE_AMD_EMU_MFMA_F32_32X32X16_BF16)
      .Case("llvm.amdgcn.mfma.f32.16x16x32.bf16",
            TILE_AMD_EMU_MFMA_F32_16X16X32_BF16)
      .Case("llvm.amdgcn.mfma.i32.32x32x32.i8",
            TILE_AMD_EMU_MFMA_I32_32X32X32_I8)
      .Case("llvm.amdgcn.mfma.i32.16x16x64.i8",
            TILE_AMD_EMU_MFMA_I32_16X16X64_I8)
      .Case("llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
            TILE_AMD_EMU_MFMA_F32_32X32X16_FP8)
      .Case("llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
            TILE_AMD_EMU_MFMA_F32_16X16X32_FP8)
      .Case("llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8",
            TILE_AMD_EMU_MFMA_F32_32X32X16_BF8)
      .Case("llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8",
            TILE_AMD_EMU_MFMA_F32_16X16X32_BF8)
      .Default(std::nullopt);
}

std::optional<unsigned> parseMath(StringRef name) {
  // llvm.amdgcn.<fn>[.f32]
  StringRef fn = name.drop_front(strlen("llvm.amdgcn."));
  fn.consume_back(".f32");
  return StringSwitch<std::optional<unsigned>>(fn)
      .Case("exp2", TILE_AMD_EMU_EXP2)
      .Case("log", TILE_AMD_EMU_LOG2)
      .Case("rsq", TILE_AMD_EMU_RSQ)
      .Case("rcp", TILE_AMD_EMU_RCP)
      .Case("sqrt", TILE_AMD_EMU_SQRT)
      .Case("sin", TILE_AMD_EMU_SIN)
      .Case("cos", TILE_AMD_EMU_COS)
      .Default(std::nullopt);
}

class AmdRewriter : public tile::emu::EmulationRewriter {
public:
  AmdRewriter(Module &module, StringRef chip)
      : EmulationRewriter(module, {kAccess, kUnsupported, kNumFields}),
        chip(chip) {}

private:
  StringRef intrinsicPrefix() const override { return "llvm.amdgcn."; }
  Expected<Value *> rewriteCall(CallInst *call, StringRef name) override;
  Error rewriteSharedGlobals() override;
  bool isKernel(const Function &f) const override {
    return f.getCallingConv() == CallingConv::AMDGPU_KERNEL;
  }
  void addKernelExports(Function &kernel) override {
    new GlobalVariable(m, i32, /*isConstant=*/true,
                       GlobalValue::ExternalLinkage,
                       ConstantInt::get(i32, ldsBytes),
                       TILE_AMD_EMU_LDS_BYTES_PREFIX + kernel.getName(),
                       nullptr, GlobalValue::NotThreadLocal,
                       /*AddressSpace=*/0);
  }
  /// A 32-bit operand as i32.
  Expected<Value *> word(IRBuilderBase &b, Value *value, StringRef name) {
    if (wordsOf(value->getType()) != 1)
      return error("unexpected operand type in " + name);
    return b.CreateBitCast(value, i32);
  }
  Expected<Value *> rewriteMfma(CallInst *call, unsigned kind, StringRef name);

  uint64_t ldsBytes = 0;
  /// The chip the module was compiled for ("" when its functions say).
  StringRef chip;
};

Expected<Value *> AmdRewriter::rewriteMfma(CallInst *call, unsigned kind,
                                           StringRef name) {
  // (a, b, c, cbsz, abid, blgp) -> d
  if (call->arg_size() != 6)
    return error("unexpected operands of " + name);
  for (unsigned i = 3; i < 6; ++i) {
    auto *imm = dyn_cast<ConstantInt>(call->getArgOperand(i));
    if (!imm || !imm->isZero())
      return error("the AMD emulator supports " + name +
                   " only with cbsz = abid = blgp = 0");
  }
  // The same 8-bit float MFMA reads FNUZ codes on gfx942 and OCP codes on
  // gfx950; the emulator knows gfx950's.
  if (kind >= TILE_AMD_EMU_MFMA_F32_32X32X16_FP8 &&
      kind <= TILE_AMD_EMU_MFMA_F32_16X16X32_BF8) {
    StringRef cpu = !chip.empty() ? chip
                                  : call->getFunction()
                                        ->getFnAttribute("target-cpu")
                                        .getValueAsString();
    if (cpu != "gfx950")
      return error("the AMD emulator runs " + name +
                   " with gfx950's OCP formats, not for '" + cpu +
                   "' (gfx942 reads FNUZ codes)");
  }
  Value *a = call->getArgOperand(0), *bv = call->getArgOperand(1),
        *c = call->getArgOperand(2);
  unsigned wa = wordsOf(a->getType()), wb = wordsOf(bv->getType()),
           wc = wordsOf(c->getType());
  if (!wa || wa > 4 || wa != wb || (wc != 4 && wc != 16) ||
      wordsOf(call->getType()) != wc)
    return error("unexpected operands of " + name);
  Function &f = *call->getFunction();
  IRBuilder<> b(call);
  Value *sa = scratch(f, "mfma.a", 4), *sb = scratch(f, "mfma.b", 4),
        *sc = scratch(f, "mfma.c", 16), *sd = scratch(f, "mfma.d", 16);
  storeWords(b, sa, {a});
  storeWords(b, sb, {bv});
  storeWords(b, sc, {c});
  callOps(b, kMfma, voidTy, {b.getInt32(kind), sa, sb, sc, sd});
  return loadWords(b, sd, call->getType());
}

Expected<Value *> AmdRewriter::rewriteCall(CallInst *call, StringRef name) {
  IRBuilder<> b(call);
  auto arg = [&](unsigned i) { return call->getArgOperand(i); };
  auto sreg = [&](unsigned reg) -> Value * {
    return callOps(b, kSreg, i32, {b.getInt32(reg)});
  };
  auto unknown = [&]() {
    return error("the AMD emulator does not know the intrinsic " + name);
  };

  if (name.consume_front("llvm.amdgcn.workitem.id.")) {
    if (name != "x" && name != "y" && name != "z")
      return unknown();
    return sreg(TILE_AMD_EMU_WORKITEM_X + (name[0] - 'x'));
  }
  if (name.consume_front("llvm.amdgcn.workgroup.id.")) {
    if (name != "x" && name != "y" && name != "z")
      return unknown();
    return sreg(TILE_AMD_EMU_WORKGROUP_X + (name[0] - 'x'));
  }
  if (name == "llvm.amdgcn.dispatch.ptr")
    return b.CreateAddrSpaceCast(callOps(b, kDispatchPtr, ptr, {}),
                                 call->getType());
  if (name == "llvm.amdgcn.s.barrier") {
    callOps(b, kBarrier, voidTy, {});
    return nullptr;
  }
  if (name.starts_with("llvm.amdgcn.update.dpp.") ||
      name.starts_with("llvm.amdgcn.mov.dpp.")) {
    // update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl);
    // mov.dpp(src, ctrl, row_mask, bank_mask, bound_ctrl) keeps 0 as `old`.
    bool update = name.starts_with("llvm.amdgcn.update.dpp.");
    unsigned first = update ? 1 : 0;
    Expected<Value *> old =
        update ? word(b, arg(0), name) : Expected<Value *>(b.getInt32(0));
    Expected<Value *> src = word(b, arg(first), name);
    if (!old)
      return old.takeError();
    if (!src)
      return src.takeError();
    Value *result =
        callOps(b, kDpp, i32,
                {*old, *src, arg(first + 1), arg(first + 2), arg(first + 3),
                 b.CreateZExt(arg(first + 4), i32)});
    return b.CreateBitCast(result, call->getType());
  }
  if (name == "llvm.amdgcn.ds.swizzle") {
    Expected<Value *> src = word(b, arg(0), name);
    if (!src)
      return src.takeError();
    return b.CreateBitCast(callOps(b, kDsSwizzle, i32, {*src, arg(1)}),
                           call->getType());
  }
  if (name == "llvm.amdgcn.ds.bpermute" || name == "llvm.amdgcn.ds.permute") {
    Expected<Value *> src = word(b, arg(1), name);
    if (!src)
      return src.takeError();
    unsigned field =
        name == "llvm.amdgcn.ds.bpermute" ? kDsBpermute : kDsPermute;
    return b.CreateBitCast(callOps(b, field, i32, {arg(0), *src}),
                           call->getType());
  }
  if (name.starts_with("llvm.amdgcn.readlane.") ||
      name.starts_with("llvm.amdgcn.readfirstlane")) {
    // Word by word (an i64 is two): v_readlane(src, lane) with a
    // wave-uniform lane is a ds_bpermute from address lane * 4.
    bool first = name.starts_with("llvm.amdgcn.readfirstlane");
    Type *type = call->getType();
    unsigned n = wordsOf(type);
    if (!n)
      return error("unexpected operand type in " + name);
    Value *words =
        b.CreateBitCast(arg(0), n == 1 ? static_cast<Type *>(i32)
                                       : FixedVectorType::get(i32, n));
    Value *result = n == 1 ? nullptr : words;
    for (unsigned i = 0; i < n; ++i) {
      Value *word = n == 1 ? words : b.CreateExtractElement(words, i);
      Value *read =
          first ? callOps(b, kReadFirstLane, i32, {word})
                : callOps(b, kDsBpermute, i32, {b.CreateShl(arg(1), 2), word});
      result = n == 1 ? read : b.CreateInsertElement(result, read, i);
    }
    return b.CreateBitCast(result, type);
  }
  if (std::optional<unsigned> kind = parseMfma(name))
    return rewriteMfma(call, *kind, name);
  if (std::optional<unsigned> fn = parseMath(name)) {
    if (!call->getType()->isFloatTy())
      return error("the AMD emulator only knows the f32 form of " + name);
    return callOps(b, kMathF32, f32, {b.getInt32(*fn), arg(0)});
  }
  return unknown();
}

Error AmdRewriter::rewriteSharedGlobals() {
  // Every LDS variable of the module in one block, each at a fixed offset
  // (a kernel's block may hold others' variables too: more than it needs).
  SmallVector<GlobalVariable *> lds;
  for (GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == TILE_AMD_EMU_LDS)
      lds.push_back(&g);
  const DataLayout &layout = m.getDataLayout();
  for (GlobalVariable *g : lds) {
    if (g->isDeclaration() && !g->getValueType()->isSized())
      return error("the AMD emulator cannot place the LDS variable @" +
                   g->getName());
    uint64_t align = std::max<uint64_t>(16, g->getAlign().valueOrOne().value());
    uint64_t offset = alignTo(ldsBytes, align);
    ldsBytes = offset + layout.getTypeAllocSize(g->getValueType());
    replaceWithBase(g, kLdsBase, offset);
    g->eraseFromParent();
  }
  ldsBytes = alignTo(ldsBytes, 16);
  return Error::success();
}

/// Private allocas (address space 5) become host stack slots.
void movePrivateAllocas(Module &m) {
  SmallVector<AllocaInst *> allocas;
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *alloca = dyn_cast<AllocaInst>(&inst))
        if (alloca->getAddressSpace() != 0)
          allocas.push_back(alloca);
  for (AllocaInst *alloca : allocas) {
    IRBuilder<> b(alloca);
    AllocaInst *host =
        b.CreateAlloca(alloca->getAllocatedType(), 0, alloca->getArraySize());
    host->setAlignment(alloca->getAlign());
    host->takeName(alloca);
    alloca->replaceAllUsesWith(b.CreateAddrSpaceCast(host, alloca->getType()));
    alloca->eraseFromParent();
  }
}

} // namespace

Error tile::amd::rewriteForEmulation(Module &module, StringRef chip) {
  // The host layout from here on: allocas in address space 0.
  movePrivateAllocas(module);
  if (Error err = AmdRewriter(module, chip).run())
    return err;
  for (Function &f : module) {
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
  }
  return Error::success();
}

Error tile::amd::rewriteForEmulation(Module &module) {
  return rewriteForEmulation(module, "");
}
