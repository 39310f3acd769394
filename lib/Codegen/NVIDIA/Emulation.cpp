//===- Emulation.cpp - NVPTX LLVM IR retargeted to the CPU emulator -------===//
//
// Part of tilec. The NVIDIA emulator runs the LLVM IR that the NVPTX backend
// would compile (optimized exactly as for PTX) on the CPU, so that the
// NVIDIA lowering can be executed and checked on a machine without a GPU.
// The generic part of the rewrite (access checks, entries, the table) is
// tile::emu::EmulationRewriter; this file maps the NVVM intrinsics onto the
// runtime's table of include/tile/Emulation/NvEmuAbi.h (aggregate
// operands and results as arrays of 32-bit words) and the dynamic shared
// memory array onto the block's buffer (ops->shared_base()), and the
// inline-PTX TMA copies and mbarriers of TmaAsm.h onto the table's TMA
// entries. An unlisted NVVM intrinsic, TMA or mbarrier statement, or a
// static shared variable is an error at compile time, not a wrong result
// later.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"

#include "tile/Codegen/Common/EmulationRewriter.h"
#include "tile/Codegen/NVIDIA/TmaAsm.h"
#include "tile/Emulation/NvEmuAbi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/ReplaceConstant.h"
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
  kWgmmaFence,
  kWgmma,
  kWgmmaCommit,
  kWgmmaWait,
  kFenceProxyAsync,
  kMbarrierInit,
  kMbarrierArriveExpectTx,
  kMbarrierTryWaitParity,
  kMbarrierInval,
  kTmaLoad,
  kWgmmaRegisterA,
  kBarrierCount,
  kMbarrierArrive,
  kSetmaxnreg,
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
      .Case("llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32",
            MmaShape{TILE_EMU_MMA_M16N8K32_F32_E4M3, 4, 2, 4, 4})
      .Case("llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32",
            MmaShape{TILE_EMU_MMA_M16N8K32_F32_E5M2, 4, 2, 4, 4})
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
  // The flush-to-zero exp2 (tilec's exp2 on NVIDIA) has its own entry;
  // tilec emits no other .ftz form.
  if (fn == "ex2" && name.drop_front(fn.size()).starts_with(".approx.ftz."))
    return TILE_EMU_EX2_APPROX_FTZ;
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

class NvidiaRewriter : public tile::emu::EmulationRewriter {
public:
  explicit NvidiaRewriter(Module &module)
      : EmulationRewriter(module, {kAccess, kUnsupported, kNumFields}) {}

private:
  StringRef intrinsicPrefix() const override { return "llvm.nvvm."; }
  Expected<Value *> rewriteCall(CallInst *call, StringRef name) override;
  Expected<bool> rewriteTargetAsm(CallInst *call, StringRef text,
                                  Value *&replacement) override;
  Expected<bool> rewriteTmaAsm(CallInst *call, StringRef text,
                               Value *&replacement);
  Error rewriteMemoryAsm() override;
  Error rewriteSharedGlobals() override;
  bool isKernel(const Function &f) const override {
    return f.getCallingConv() == CallingConv::PTX_Kernel;
  }
  static bool is32Bit(Type *type) {
    return type->isSized() && type->getPrimitiveSizeInBits() == 32;
  }
};

Expected<Value *> NvidiaRewriter::rewriteCall(CallInst *call, StringRef name) {
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
      return error("the NVIDIA emulator does not know special "
                   "register %" +
                   name);
    }
  } else if (name == "llvm.nvvm.barrier0") {
    callOps(b, kBarrier, voidTy, {b.getInt32(0)});
  } else if (name == "llvm.nvvm.barrier.cta.sync.aligned.all" ||
             name == "llvm.nvvm.barrier.cta.sync.all" ||
             name == "llvm.nvvm.barrier.sync" || name == "llvm.nvvm.bar.sync") {
    callOps(b, kBarrier, voidTy, {arg(0)});
  } else if (name == "llvm.nvvm.barrier.cta.sync.aligned.count" ||
             name == "llvm.nvvm.barrier.cta.sync.count" ||
             name == "llvm.nvvm.barrier.sync.cnt" ||
             name == "llvm.nvvm.bar.sync.cnt") {
    callOps(b, kBarrierCount, voidTy, {arg(0), arg(1)});
  } else if (name == "llvm.nvvm.setmaxnreg.inc.sync.aligned.u32" ||
             name == "llvm.nvvm.setmaxnreg.dec.sync.aligned.u32") {
    callOps(b, kSetmaxnreg, voidTy,
            {arg(0), b.getInt32(name.contains(".inc.") ? 1 : 0)});
  } else if (name.consume_front("llvm.nvvm.shfl.sync.")) {
    // <mode>.<i32|f32>[p](mask, value, b, c)
    unsigned mode = StringSwitch<unsigned>(name.take_front(name.find('.')))
                        .Case("up", TILE_EMU_SHFL_UP)
                        .Case("down", TILE_EMU_SHFL_DOWN)
                        .Case("bfly", TILE_EMU_SHFL_BFLY)
                        .Case("idx", TILE_EMU_SHFL_IDX)
                        .Default(~0u);
    if (mode == ~0u || !is32Bit(arg(1)->getType()))
      return error("the NVIDIA emulator does not know "
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
      return error("the NVIDIA emulator does not know "
                   "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x" +
                   name);
    bool trans = name.starts_with(".trans");
    if (!name.contains(".b16"))
      return error("the NVIDIA emulator only knows ldmatrix "
                   ".b16, not ldmatrix" +
                   name);
    Value *out = scratch(f, "ldmatrix", 4);
    callOps(b, kLdmatrix, voidTy,
            {b.getInt32(count), b.getInt32(trans), generic(b, arg(0)), out});
    replacement = loadWords(b, out, call->getType());
  } else if (name.starts_with("llvm.nvvm.mma.")) {
    std::optional<MmaShape> shape = parseMma(name);
    if (!shape)
      return error("the NVIDIA emulator does not know " + name);
    SmallVector<Value *> words(call->args());
    if (words.size() != shape->a + shape->b + shape->c ||
        !llvm::all_of(words, [](Value *w) { return is32Bit(w->getType()); }))
      return error("unexpected operands of " + name);
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
        return error("the NVIDIA emulator does not know "
                     "cp.async." +
                     name);
      Value *srcBytes = call->arg_size() > 2
                            ? b.CreateZExtOrTrunc(arg(2), i32)
                            : static_cast<Value *>(b.getInt32(bytes));
      callOps(b, kCpAsync, voidTy,
              {generic(b, arg(0)), generic(b, arg(1)), b.getInt32(bytes),
               srcBytes});
    } else {
      return error("the NVIDIA emulator does not know "
                   "llvm.nvvm.cp.async." +
                   name);
    }
  } else if (name == "llvm.nvvm.wgmma.fence.sync.aligned") {
    callOps(b, kWgmmaFence, voidTy, {});
  } else if (name == "llvm.nvvm.wgmma.commit_group.sync.aligned") {
    callOps(b, kWgmmaCommit, voidTy, {});
  } else if (name == "llvm.nvvm.wgmma.wait_group.sync.aligned") {
    callOps(b, kWgmmaWait, voidTy, {b.CreateZExtOrTrunc(arg(0), i32)});
  } else if (name == "llvm.nvvm.fence.proxy.async.shared_cta") {
    callOps(b, kFenceProxyAsync, voidTy, {});
  } else if (name == "llvm.nvvm.prefetch.global.L2" ||
             name == "llvm.nvvm.prefetch.L2") {
    // An L2 prefetch changes nothing, but its address must be inside an
    // allocation (the lowering bounds-checks every line): checked as a
    // one-byte global read.
    callOps(b, kAccess, i32,
            {generic(b, arg(0)), b.getInt32(1), b.getInt32(TILE_EMU_GLOBAL)});
  } else if (name == "llvm.nvvm.griddepcontrol.wait" ||
             name == "llvm.nvvm.griddepcontrol.launch.dependents") {
    // Dependent launch: the emulator runs one grid at a time, each after
    // the one before it has finished, so there is nothing to wait for.
  } else if (std::optional<unsigned> fn = parseMath(name)) {
    if (!call->getType()->isFloatTy())
      return error("the NVIDIA emulator only knows the f32 form "
                   "of " +
                   name);
    replacement = callOps(b, kMathF32, f32, {b.getInt32(*fn), arg(0)});
  } else {
    return error("the NVIDIA emulator does not know the "
                 "intrinsic " +
                 name);
  }

  return replacement;
}

/// The TMA and mbarrier statements of TmaAsm.h, matched exactly: each is
/// a call through the table (fence.mbarrier_init is nothing: the emulator
/// has no async proxy to order). Any other statement naming an mbarrier or
/// a bulk copy is an error.
Expected<bool> NvidiaRewriter::rewriteTmaAsm(CallInst *call, StringRef text,
                                             Value *&replacement) {
  namespace tma = tile::nvidia::tma_asm;
  StringRef trimmed = text.trim();
  IRBuilder<> b(call);
  auto word = [&](unsigned i) -> Value * {
    Value *operand = call->getArgOperand(i);
    if (operand->getType()->isPointerTy())
      return b.CreatePtrToInt(operand, i32);
    return b.CreateZExtOrTrunc(operand, i32);
  };
  auto expect = [&](unsigned operands, bool result) -> Error {
    if (call->arg_size() != operands ||
        result != !call->getType()->isVoidTy() ||
        !llvm::all_of(call->args(), [](const Use &u) {
          return u->getType()->isIntegerTy() || u->getType()->isPointerTy();
        }))
      return error("unexpected operands of '" + text + "'");
    return Error::success();
  };
  if (trimmed == tma::kInitFence)
    return true;
  if (trimmed == tma::kInit || trimmed == tma::kArriveExpectTx) {
    if (Error err = expect(2, false))
      return std::move(err);
    callOps(b, trimmed == tma::kInit ? kMbarrierInit : kMbarrierArriveExpectTx,
            voidTy, {word(0), word(1)});
    return true;
  }
  if (trimmed == tma::kTryWaitParity) {
    if (Error err = expect(2, true))
      return std::move(err);
    replacement = b.CreateZExtOrTrunc(
        callOps(b, kMbarrierTryWaitParity, i32, {word(0), word(1)}),
        call->getType());
    return true;
  }
  if (trimmed == tma::kArrive) {
    if (Error err = expect(1, false))
      return std::move(err);
    callOps(b, kMbarrierArrive, voidTy, {word(0)});
    return true;
  }
  if (trimmed == tma::kInval) {
    if (Error err = expect(1, false))
      return std::move(err);
    callOps(b, kMbarrierInval, voidTy, {word(0)});
    return true;
  }
  unsigned rank = 0;
  for (unsigned r = 1; r <= 5 && !rank; ++r)
    if (trimmed == tma::loadText(r))
      rank = r;
  if (rank) {
    if (Error err = expect(rank + 3, false))
      return std::move(err);
    // The tensor map is the kernel's byval parameter, passed to the asm as
    // its address (ptrtoint): hand the pointer itself to the table (an
    // integer turned back into a pointer carries no provenance for the
    // optimizer).
    Value *map = call->getArgOperand(1);
    if (auto *address = dyn_cast<PtrToIntOperator>(map))
      map = address->getPointerOperand();
    map = map->getType()->isPointerTy() ? generic(b, map)
                                        : b.CreateIntToPtr(map, ptr);
    Value *coords = scratch(*call->getFunction(), "tma.coords", 5);
    SmallVector<Value *, 5> words;
    for (unsigned i = 0; i < rank; ++i)
      words.push_back(word(2 + i));
    storeWords(b, coords, words);
    callOps(b, kTmaLoad, voidTy,
            {word(0), map, coords, b.getInt32(rank), word(rank + 2)});
    return true;
  }
  if (trimmed.contains("mbarrier") || trimmed.contains("cp.async.bulk"))
    return error("the NVIDIA emulator does not know '" + text +
                 "' (it knows the TMA and mbarrier statements of TmaAsm.h)");
  return false;
}

/// The wgmma.mma_async statement tilec emits (NVVMTargetLowering::
/// warpgroupMma): "wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<T>.<T> {d},
/// desc-a, desc-b, p, 1, 1, <trans-a>, <trans-b>;" (T f16, bf16; with e4m3,
/// e5m2: k32 and no trans immediates; "k32.s32.s8.s8 {d}, desc-a, desc-b,
/// p;" for s8; the register-A form (warpgroupMmaRegisterA) "{d}, {a0, a1,
/// a2, a3}, desc-b, p, 1, 1, <trans-b>;") after a setp of p from the last
/// operand; operands: the N/2 accumulators (tied to the results), the A
/// descriptor or the four A registers, the B descriptor, scale-d.
Expected<bool> NvidiaRewriter::rewriteTargetAsm(CallInst *call, StringRef text,
                                                Value *&replacement) {
  Expected<bool> tma = rewriteTmaAsm(call, text, replacement);
  if (!tma || *tma)
    return tma;
  // "wgmma.wait_group.sync.aligned <n>;" returning its operands
  // (NVVMTargetLowering::warpgroupWait).
  StringRef wait = text.trim();
  if (wait.consume_front("wgmma.wait_group.sync.aligned ")) {
    unsigned pending;
    if (wait.consume_back(";") && !wait.trim().getAsInteger(10, pending)) {
      IRBuilder<> b(call);
      callOps(b, kWgmmaWait, voidTy, {b.getInt32(pending)});
      Value *all = PoisonValue::get(call->getType());
      auto *type = dyn_cast<StructType>(call->getType());
      if (!type || type->getNumElements() != call->arg_size())
        return error("unexpected operands of '" + text + "'");
      for (unsigned i = 0; i < call->arg_size(); ++i)
        all = b.CreateInsertValue(all, call->getArgOperand(i), i);
      replacement = all;
      return true;
    }
    return error("the NVIDIA emulator does not know '" + text + "'");
  }
  size_t at = text.find("wgmma.mma_async.sync.aligned.m64n");
  if (at == StringRef::npos)
    return false;
  StringRef rest = text.drop_front(at).drop_front(
      StringRef("wgmma.mma_async.sync.aligned.m64n").size());
  unsigned n = 0;
  if (rest.consumeInteger(10, n))
    return error("the NVIDIA emulator does not know '" + text + "'");
  unsigned kind;
  if (rest.consume_front("k16.f32.f16.f16 "))
    kind = TILE_EMU_WGMMA_F32_F16;
  else if (rest.consume_front("k16.f32.bf16.bf16 "))
    kind = TILE_EMU_WGMMA_F32_BF16;
  else if (rest.consume_front("k32.f32.e4m3.e4m3 "))
    kind = TILE_EMU_WGMMA_F32_E4M3;
  else if (rest.consume_front("k32.f32.e5m2.e5m2 "))
    kind = TILE_EMU_WGMMA_F32_E5M2;
  else if (rest.consume_front("k32.s32.s8.s8 "))
    kind = TILE_EMU_WGMMA_S32_S8;
  else
    return error("the NVIDIA emulator does not know '" + text +
                 "' (it knows wgmma.mma_async m64nNk16 with f16 or bf16 and "
                 "m64nNk32 with e4m3, e5m2 or s8 operands)");
  // The immediates after the scale-d predicate: imm-scale-a, imm-scale-b
  // and, for 16-bit operands, imm-trans-a (not with a register A),
  // imm-trans-b; none for s8. A register A is "{a0, a1, a2, a3}" (four
  // operands after the accumulators) instead of a descriptor.
  bool fp8 = kind == TILE_EMU_WGMMA_F32_E4M3 || kind == TILE_EMU_WGMMA_F32_E5M2;
  bool int8 = kind == TILE_EMU_WGMMA_S32_S8;
  size_t close = rest.find("}, ");
  bool registerA =
      close != StringRef::npos && rest.drop_front(close + 3).starts_with("{");
  size_t pred = rest.find(int8 ? ", p;" : ", p, ");
  SmallVector<StringRef, 4> imms;
  if (pred != StringRef::npos && !int8)
    rest.drop_front(pred + 5)
        .take_until([](char c) { return c == ';'; })
        .split(imms, ',');
  unsigned values[4] = {1, 1, 0, 0};
  unsigned expected = int8 ? 0u : fp8 ? 2u : registerA ? 3u : 4u;
  bool bad = pred == StringRef::npos || imms.size() != expected ||
             (registerA && (fp8 || int8));
  for (unsigned i = 0; !bad && i < imms.size(); ++i)
    bad = imms[i].trim().getAsInteger(10, values[i]);
  if (registerA) // imm-trans-b is the third immediate.
    std::swap(values[2], values[3]);
  unsigned half = n / 2, aOperands = registerA ? 4 : 1;
  auto *result = dyn_cast<StructType>(call->getType());
  if (bad || values[0] != 1 || values[1] != 1 || n % 8 != 0 || n > 256 ||
      call->arg_size() != half + aOperands + 2 || !result ||
      result->getNumElements() != half)
    return error("unexpected form of '" + text + "'");
  IRBuilder<> b(call);
  Function &f = *call->getFunction();
  Value *c = scratch(f, "wgmma.c", half), *d = scratch(f, "wgmma.d", half);
  SmallVector<Value *> acc(call->args().begin(), call->args().begin() + half);
  storeWords(b, c, acc);
  Value *scale = call->getArgOperand(half + aOperands + 1);
  Value *scaleD = b.CreateZExt(
      b.CreateICmpNE(scale, ConstantInt::get(scale->getType(), 0)), i32);
  Value *flags =
      b.CreateOr(scaleD, b.getInt32((values[2] ? TILE_EMU_WGMMA_TRANS_A : 0) |
                                    (values[3] ? TILE_EMU_WGMMA_TRANS_B : 0)));
  Value *descB = call->getArgOperand(half + aOperands);
  if (registerA) {
    Value *a = scratch(f, "wgmma.a", 4);
    SmallVector<Value *> regs(call->args().begin() + half,
                              call->args().begin() + half + 4);
    storeWords(b, a, regs);
    callOps(b, kWgmmaRegisterA, voidTy,
            {b.getInt32(kind), b.getInt32(n), a, descB, flags, c, d});
  } else {
    callOps(b, kWgmma, voidTy,
            {b.getInt32(kind), b.getInt32(n), call->getArgOperand(half), descB,
             flags, c, d});
  }
  replacement = loadWords(b, d, call->getType());
  return true;
}

/// "red.global.add.noftz.{f16x2,bf16x2} [$0], $1;" (NVVMTargetLowering::
/// atomicAddGlobalPair): two relaxed atomicrmw fadd of the halves, at the
/// pointer and two bytes on, which the access checks then see.
Error NvidiaRewriter::rewriteMemoryAsm() {
  SmallVector<CallInst *> calls;
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (auto *asmOp = dyn_cast<InlineAsm>(call->getCalledOperand()))
          if (StringRef(asmOp->getAsmString())
                  .trim()
                  .starts_with("red.global.add.noftz."))
            calls.push_back(call);
  for (CallInst *call : calls) {
    StringRef text = cast<InlineAsm>(call->getCalledOperand())->getAsmString();
    StringRef rest =
        text.trim().drop_front(StringRef("red.global.add.noftz.").size());
    IRBuilder<> b(call);
    Type *half;
    if (rest.consume_front("f16x2"))
      half = b.getHalfTy();
    else if (rest.consume_front("bf16x2"))
      half = b.getBFloatTy();
    else
      return error("the NVIDIA emulator does not know '" + text + "'");
    if (rest.trim() != "[$0], $1;" || call->arg_size() != 2 ||
        !call->getArgOperand(0)->getType()->isPointerTy() ||
        !call->getArgOperand(1)->getType()->isIntegerTy(32))
      return error("unexpected form of '" + text + "'");
    Value *ptr = call->getArgOperand(0), *pair = call->getArgOperand(1);
    Value *lo = b.CreateBitCast(b.CreateTrunc(pair, b.getInt16Ty()), half);
    Value *hi = b.CreateBitCast(
        b.CreateTrunc(b.CreateLShr(pair, 16), b.getInt16Ty()), half);
    b.CreateAtomicRMW(AtomicRMWInst::FAdd, ptr, lo, Align(4),
                      AtomicOrdering::Monotonic);
    b.CreateAtomicRMW(AtomicRMWInst::FAdd,
                      b.CreateConstGEP1_64(b.getInt8Ty(), ptr, 2), hi, Align(2),
                      AtomicOrdering::Monotonic);
    call->eraseFromParent();
  }
  return Error::success();
}

Error NvidiaRewriter::rewriteSharedGlobals() {
  SmallVector<GlobalVariable *> shared;
  for (GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == TILE_EMU_SHARED)
      shared.push_back(&g);
  for (GlobalVariable *g : shared) {
    auto *array = dyn_cast<ArrayType>(g->getValueType());
    if (!g->isDeclaration() || !array || array->getNumElements() != 0)
      return error(
          "the NVIDIA emulator supports only the dynamic shared memory array "
          "(extern .shared), not the static shared variable @" +
          g->getName());
    replaceWithBase(g, kSharedBase, 0);
    g->eraseFromParent();
  }
  return Error::success();
}

} // namespace

Error tile::nvidia::rewriteForEmulation(Module &module) {
  return NvidiaRewriter(module).run();
}
