//===- NVVMTargetLowering.cpp - NVVM hooks of the GPU lowering ------------===//
//
// Part of tilec. The NVIDIA half of the generic GPU lowering: special
// registers, bar.sync, shfl.sync, the extern dynamic shared array,
// mma.sync m16n8k16 / m16n8k32, wgmma.mma_async (sm_90a), ldmatrix,
// cp.async, ex2/lg2/rsqrt.approx and
// the kernel ABI (ptx_kernel, reqntid).
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/GPU/TargetLowering.h"
#include "tile/Codegen/NVIDIA/NVIDIACodegen.h"
#include "tile/Codegen/NVIDIA/TmaAsm.h"
#include "tile/Layout/MmaAtoms.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

using namespace mlir;

namespace tile::nvidia {
namespace {

/// Name of the extern dynamic shared-memory array.
constexpr const char *kSharedArray = "__tile_dynamic_smem";

class NVVMTargetLowering final : public gpu::TargetLowering {
public:
  explicit NVVMTargetLowering(const TargetInfo &info) : info(info) {}

  const TargetInfo &getTargetInfo() const override { return info; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  Value threadId(OpBuilder &b, Location loc) override {
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value programId(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, i32);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, i32);
    default:
      return NVVM::BlockIdZOp::create(b, loc, i32);
    }
  }
  Value numPrograms(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, i32);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, i32);
    default:
      return NVVM::GridDimZOp::create(b, loc, i32);
    }
  }

  void barrier(OpBuilder &b, Location loc) override {
    gpu::WarpRoles roles = gpu::WarpRoles::at(b.getInsertionBlock());
    if (!roles.threads) {
      NVVM::Barrier0Op::create(b, loc);
      return;
    }
    // Named barrier 1 for the consumers, 2 for the producers: bar.sync 0
    // would wait for the other role's threads too.
    Type i32 = b.getI32Type();
    NVVM::BarrierOp::create(
        b, loc, Type(),
        arith::ConstantIntOp::create(b, loc, i32, roles.firstThread ? 2 : 1),
        arith::ConstantIntOp::create(b, loc, i32, roles.threads),
        NVVM::BarrierReductionAttr(), Value());
  }

  Value shuffle(OpBuilder &b, Location loc, Value value, Value offset,
                NVVM::ShflKind kind) {
    Value all = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
    Value clamp = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0x1f);
    return NVVM::ShflOp::create(
        b, loc, value.getType(), all, value, offset, clamp,
        NVVM::ShflKindAttr::get(b.getContext(), kind), UnitAttr());
  }
  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   unsigned laneMask) override {
    Value offset =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), laneMask);
    return shuffle(b, loc, value, offset, NVVM::ShflKind::bfly);
  }
  Value shuffleIndex(OpBuilder &b, Location loc, Value value,
                     Value srcLane) override {
    return shuffle(b, loc, value, srcLane, NVVM::ShflKind::idx);
  }

  Value sharedMemoryBase(OpBuilder &b, Location loc, ModuleOp module) override {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
    if (!module.lookupSymbol(kSharedArray)) {
      OpBuilder mb(module.getBodyRegion());
      auto global = LLVM::GlobalOp::create(
          mb, loc, LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSharedArray,
          Attribute(),
          // wgmma's swizzles act on address bits: buffers are aligned to
          // their 1024-byte patterns (tile-allocate-shared), so the array
          // is too.
          /*alignment=*/info.hasWgmma ? 1024 : 16, /*addrSpace=*/3);
      (void)global;
    }
    return LLVM::AddressOfOp::create(b, loc, ptrType, kSharedArray);
  }

  std::optional<gpu::MmaAtom> getMmaAtom(Type operand,
                                         Type acc) const override {
    if (!info.hasMmaSync)
      return std::nullopt;
    using ::tile::layout::MmaOperand;
    gpu::MmaAtom atom;
    atom.operand = operand;
    if ((operand.isF16() || operand.isBF16()) && acc.isF32()) {
      atom.m = 16, atom.n = 8, atom.k = 16;
      atom.a = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::A);
      atom.b = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::B);
      atom.c = ::tile::layout::nvidiaMmaM16N8K16(MmaOperand::C);
      return atom;
    }
    // s8 x s8 -> s32, and (sm_89+) e4m3 / e5m2 x the same -> f32:
    // mma.sync.aligned.m16n8k32 has one fragment layout for 8-bit operands.
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(operand) && acc.isF32() &&
               info.hasFp8Mma;
    if ((operand.isInteger(8) && acc.isInteger(32)) || fp8) {
      atom.m = 16, atom.n = 8, atom.k = 32;
      atom.a = ::tile::layout::nvidiaMmaM16N8K32Int8(MmaOperand::A);
      atom.b = ::tile::layout::nvidiaMmaM16N8K32Int8(MmaOperand::B);
      atom.c = ::tile::layout::nvidiaMmaM16N8K32Int8(MmaOperand::C);
      return atom;
    }
    return std::nullopt;
  }

  /// Packs consecutive slots into 32-bit registers of `regType`
  /// (vector<2xf16> for f16, i32 otherwise), low slot in the low bits.
  static SmallVector<Value> pack(OpBuilder &b, Location loc, ValueRange slots,
                                 Type regType) {
    Type elem = slots[0].getType();
    unsigned per = 32 / elem.getIntOrFloatBitWidth();
    auto vecType = VectorType::get({per}, elem);
    SmallVector<Value> regs;
    for (unsigned i = 0; i < slots.size(); i += per) {
      Value v = LLVM::PoisonOp::create(b, loc, vecType);
      for (unsigned k = 0; k < per; ++k)
        v = LLVM::InsertElementOp::create(
            b, loc, v, slots[i + k],
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), k));
      if (regType != vecType)
        v = LLVM::BitcastOp::create(b, loc, regType, v);
      regs.push_back(v);
    }
    return regs;
  }

  SmallVector<Value> mma(OpBuilder &b, Location loc, const gpu::MmaAtom &atom,
                         ValueRange a, ValueRange bOp, ValueRange c) override {
    Type elem = a[0].getType();
    Type accType = c[0].getType();
    NVVM::MMATypes ptxType = elem.isF16()    ? NVVM::MMATypes::f16
                             : elem.isBF16() ? NVVM::MMATypes::bf16
                                             : NVVM::MMATypes::s8;
    if (isa_and_nonnull<Float8E4M3FNType>(atom.operand))
      ptxType = NVVM::MMATypes::e4m3;
    else if (isa_and_nonnull<Float8E5M2Type>(atom.operand))
      ptxType = NVVM::MMATypes::e5m2;
    Type regType =
        elem.isF16() ? Type(VectorType::get({2}, elem)) : Type(b.getI32Type());
    SmallVector<Value> ra = pack(b, loc, a, regType);
    SmallVector<Value> rb = pack(b, loc, bOp, regType);
    SmallVector<Type> fields(c.size(), accType);
    auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
    SmallVector<Value> out;
    if (ptxType == NVVM::MMATypes::e4m3 || ptxType == NVVM::MMATypes::e5m2) {
      // The NVVM dialect's mma.sync does not take 8-bit float operands (its
      // verifier): the intrinsic itself (sm_89+, PTX 8.4).
      std::string t = ptxType == NVVM::MMATypes::e4m3 ? "e4m3" : "e5m2";
      SmallVector<Value> args(ra);
      llvm::append_range(args, rb);
      llvm::append_range(args, c);
      Value d = LLVM::CallIntrinsicOp::create(
                    b, loc, structType,
                    b.getStringAttr("llvm.nvvm.mma.m16n8k32.row.col.f32." + t +
                                    "." + t + ".f32"),
                    args)
                    .getResult(0);
      for (unsigned i = 0; i < c.size(); ++i)
        out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
      return out;
    }
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (ptxType == NVVM::MMATypes::s8)
      overflow = NVVM::MMAIntOverflow::wrapped;
    Value d = NVVM::MmaOp::create(
        b, loc, structType, ra, rb, c,
        ArrayRef<int64_t>{atom.m, atom.n, atom.k}, std::nullopt, overflow,
        std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (unsigned i = 0; i < c.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return out;
  }

  // ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (sm_75+). 8-bit
  // operands use the b16 form: a 16-byte row is 8 b16 or 16 b8 elements and
  // lane l receives bytes 4 * (l % 4) .. + 3 of row l / 4 either way; .trans
  // moves whole b16 elements, so it is offered for 16-bit elements only.
  bool hasMatrixLoad(unsigned elementBits, bool transpose) const override {
    if (!info.hasLdmatrix)
      return false;
    return elementBits == 16 || (elementBits == 8 && !transpose);
  }
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value rowAddress,
                                  unsigned numMatrices,
                                  bool transpose) override {
    Type i32 = b.getI32Type();
    Type resType = i32;
    if (numMatrices > 1)
      resType = LLVM::LLVMStructType::getLiteral(
          b.getContext(), SmallVector<Type>(numMatrices, i32));
    Value res = NVVM::LdMatrixOp::create(
        b, loc, resType, rowAddress, numMatrices,
        transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    if (numMatrices == 1)
      return {res};
    SmallVector<Value> regs;
    for (unsigned i = 0; i < numMatrices; ++i)
      regs.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
    return regs;
  }

  // wgmma.mma_async (sm_90a), B from shared memory, A from shared memory or
  // (16-bit floats) from registers. The MLIR
  // NVVM op builds the same PTX; tilec writes the statement itself so that
  // its exact form is fixed and known to the emulator
  // (lib/Codegen/NVIDIA/Emulation.cpp): the accumulators are outputs tied
  // to inputs, scale-d a predicate set from the last operand (always 1:
  // D += A x B).
  bool hasWarpgroupMma(Type operand, Type acc) const override {
    if (!info.hasWgmma)
      return false;
    if (operand.isInteger(8))
      return acc.isInteger(32);
    return (operand.isF16() || operand.isBF16() ||
            isa<Float8E4M3FNType, Float8E5M2Type>(operand)) &&
           acc.isF32();
  }
  SmallVector<Value> warpgroupMma(OpBuilder &b, Location loc, Type operandType,
                                  unsigned n, Value descA, Value descB,
                                  bool transA, bool transB,
                                  ValueRange acc) override {
    return emitWarpgroupMma(b, loc, operandType, n, descA, descB, transA,
                            transB, acc);
  }
  // The register-A form: the thread's A fragment (the mma.sync m16n8k16 A
  // fragment of its warp's 16 rows) as four 32-bit registers.
  SmallVector<Value> warpgroupMmaRegisterA(OpBuilder &b, Location loc,
                                           Type operandType, unsigned n,
                                           ValueRange aWords, Value descB,
                                           bool transB,
                                           ValueRange acc) override {
    return emitWarpgroupMma(b, loc, operandType, n, aWords, descB, false,
                            transB, acc);
  }

  /// The statement "wgmma.mma_async.sync.aligned.m64n<n>k<16|32>.<d>.<t>.<t>
  /// {d}, A, desc-b, p[, 1, 1[, trans-a], trans-b];": A is the descriptor
  /// (one i64 operand) or, for the register form, {a0, a1, a2, a3}; the
  /// immediates: none for s8, the scales for 8-bit floats, the scales and
  /// transposes for 16-bit floats (no trans-a with a register A).
  SmallVector<Value> emitWarpgroupMma(OpBuilder &b, Location loc,
                                      Type operandType, unsigned n,
                                      ValueRange aOperands, Value descB,
                                      bool transA, bool transB,
                                      ValueRange acc) {
    unsigned half = n / 2;
    bool int8 = operandType.isInteger(8);
    bool k32 = int8 || isa<Float8E4M3FNType, Float8E5M2Type>(operandType);
    bool registerA = aOperands.size() > 1;
    std::string type = operandType.isBF16()                 ? "bf16"
                       : isa<Float8E4M3FNType>(operandType) ? "e4m3"
                       : isa<Float8E5M2Type>(operandType)   ? "e5m2"
                       : int8                               ? "s8"
                                                            : "f16";
    auto operand = [](unsigned i) { return "$" + std::to_string(i); };
    unsigned next = 2 * half; // after the outputs and the tied inputs
    std::string aText;
    for (unsigned i = 0; i < aOperands.size(); ++i)
      aText += (i ? ", " : "") + operand(next++);
    if (registerA)
      aText = "{" + aText + "}";
    unsigned descBIndex = next++, scaleIndex = next++;
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, " +
                       operand(scaleIndex) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(n) + (k32 ? "k32." : "k16.") +
                       (int8 ? "s32." : "f32.") + type + "." + type + " {";
    std::string constraints;
    for (unsigned i = 0; i < half; ++i) {
      text += (i ? ", " : "") + operand(i);
      constraints += int8 ? "=r," : "=f,";
    }
    std::string imms;
    if (!int8)
      imms = ", 1, 1";
    if (!k32) {
      if (!registerA)
        imms += ", " + std::to_string(transA);
      imms += ", " + std::to_string(transB);
    }
    text += "}, " + aText + ", " + operand(descBIndex) + ", p" + imms + ";\n}";
    for (unsigned i = 0; i < half; ++i)
      constraints += std::to_string(i) + ",";
    for (unsigned i = 0; i < aOperands.size(); ++i)
      constraints += registerA ? "r," : "l,";
    constraints += "l,r";
    SmallVector<Value> operands(acc.begin(), acc.end());
    llvm::append_range(operands, aOperands);
    operands.append(
        {descB, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1)});
    Type word = int8 ? Type(b.getI32Type()) : Type(b.getF32Type());
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(half, word));
    Value d = LLVM::InlineAsmOp::create(
                  b, loc, structType, operands, text, constraints,
                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
    SmallVector<Value> out;
    for (unsigned i = 0; i < half; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return out;
  }
  void warpgroupFence(OpBuilder &b, Location loc) override {
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
  }
  void warpgroupCommit(OpBuilder &b, Location loc) override {
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  }
  // wgmma.wait_group as a statement whose outputs are the accumulators
  // (tied to its inputs): their uses cannot move above it.
  SmallVector<Value> warpgroupWait(OpBuilder &b, Location loc, unsigned pending,
                                   ValueRange acc) override {
    // f32 accumulators, or s32 (s8 operands).
    Type word = acc.empty() ? Type(b.getF32Type()) : acc.front().getType();
    std::string constraints;
    for (unsigned i = 0; i < acc.size(); ++i)
      constraints += word.isInteger(32) ? "=r," : "=f,";
    for (unsigned i = 0; i < acc.size(); ++i)
      constraints += (i ? "," : "") + std::to_string(i);
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(acc.size(), word));
    Value all =
        LLVM::InlineAsmOp::create(
            b, loc, structType, acc,
            "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
            constraints, /*has_side_effects=*/true,
            /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    SmallVector<Value> out;
    for (unsigned i = 0; i < acc.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, all, i));
    return out;
  }
  // red.global.add.noftz.f16x2 (sm_60+) and .bf16x2 (sm_90+): the atomic
  // addition of a pair in one instruction; the scalar f16/bf16 atom.add is
  // a compare-and-swap loop in the SASS, one round trip each.
  bool hasAtomicAddPair(Type type) const override {
    return type.isF16() || (type.isBF16() && info.computeCapability >= 90);
  }
  void atomicAddGlobalPair(OpBuilder &b, Location loc, Value ptr, Value lo,
                           Value hi) override {
    Type i16 = b.getI16Type(), i32 = b.getI32Type();
    auto bits = [&](Value v) {
      return LLVM::ZExtOp::create(b, loc, i32,
                                  LLVM::BitcastOp::create(b, loc, i16, v));
    };
    Value pair = LLVM::OrOp::create(
        b, loc, bits(lo),
        LLVM::ShlOp::create(b, loc, bits(hi),
                            LLVM::ConstantOp::create(b, loc, i32, 16)));
    std::string text = std::string("red.global.add.noftz.") +
                       (lo.getType().isF16() ? "f16x2" : "bf16x2") +
                       " [$0], $1;";
    LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{ptr, pair}, text,
                              "l,r", /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
  }
  void fenceSharedForWarpgroupMma(OpBuilder &b, Location loc) override {
    if (info.hasWgmma)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
  }

  bool hasAsyncCopy() const override { return info.hasCpAsync; }
  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value srcBytes) override {
    auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                : NVVM::LoadCacheModifierKind::CA;
    NVVM::CpAsyncOp::create(
        b, loc, dst, src, b.getI32IntegerAttr(bytes),
        NVVM::LoadCacheModifierKindAttr::get(b.getContext(), modifier),
        srcBytes);
  }
  void asyncCommitGroup(OpBuilder &b, Location loc) override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void asyncWait(OpBuilder &b, Location loc, unsigned pending) override {
    if (info.hasCpAsync)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }

  Value call(OpBuilder &b, Location loc, StringRef name, Value x) {
    return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                         b.getStringAttr(name), ValueRange{x})
        .getResult(0);
  }
  // ex2.approx.ftz.f32: max relative error 2^-22 (PTX ISA) for normal
  // results; results below 2^-126 are 0. One MUFU.EX2: without .ftz,
  // ptxas adds a compare and two predicated multiplies per value to scale
  // subnormal results (attention's softmax: 96 of its 910 loop
  // instructions per warp at W = 8, sm_90a, 2026-11-27).
  Value exp2(OpBuilder &b, Location loc, Value x) override {
    return call(b, loc, "llvm.nvvm.ex2.approx.ftz.f32", x);
  }
  // lg2.approx.f32: max absolute error 2^-22 for inputs in [0.5, 2].
  Value log2(OpBuilder &b, Location loc, Value x) override {
    return call(b, loc, "llvm.nvvm.lg2.approx.f", x);
  }
  // rsqrt.approx.f32: max relative error 2^-22.9.
  Value rsqrt(OpBuilder &b, Location loc, Value x) override {
    return call(b, loc, "llvm.nvvm.rsqrt.approx.f", x);
  }

  // lop3.b32 with the truth table of (a & b) ^ c (0xF0 & 0xCC ^ 0xAA), the
  // magic exponent in a register: one LOP3 where the backend would emit an
  // and and an xor with two immediates. The emulator evaluates the table.
  Value andXor(OpBuilder &b, Location loc, Value a, int64_t mask,
               int64_t c) override {
    Type i32 = b.getI32Type();
    Value cReg = arith::ConstantIntOp::create(b, loc, i32, c);
    return LLVM::InlineAsmOp::create(
               b, loc, i32,
               ValueRange{a, arith::ConstantIntOp::create(b, loc, i32, mask),
                          cReg},
               "lop3.b32 $0, $1, $2, $3, 0x6a;", "=r,r,n,r",
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  Value bitSelect(OpBuilder &b, Location loc, Value a, Value bValue,
                  int64_t mask) override {
    Type i32 = b.getI32Type();
    // LUT 0xe4: (a & c) | (b & ~c) for a = 0xf0, b = 0xcc, c = 0xaa.
    return LLVM::InlineAsmOp::create(
               b, loc, i32,
               ValueRange{a, bValue,
                          arith::ConstantIntOp::create(b, loc, i32, mask)},
               "lop3.b32 $0, $1, $2, $3, 0xe4;", "=r,r,r,n",
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  Value permuteBytes(OpBuilder &b, Location loc, Value a, uint32_t c,
                     uint32_t selector) override {
    Type i32 = b.getI32Type();
    std::string text =
        "prmt.b32 $0, $1, $2, " + std::to_string(selector & 0x7777) + ";";
    return LLVM::InlineAsmOp::create(
               b, loc, i32,
               ValueRange{
                   a, arith::ConstantIntOp::create(b, loc, i32, int64_t(c))},
               text, "=r,r,r", /*has_side_effects=*/false,
               /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }

  bool hasTensorCopy() const override { return info.hasTma; }

  void mbarrierInit(OpBuilder &b, Location loc, Value bar,
                    unsigned count) override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), count);
    sideEffect(b, loc, tma_asm::kInit, "r,r", {sharedAddress(b, loc, bar), n});
  }

  void mbarrierInitFence(OpBuilder &b, Location loc) override {
    sideEffect(b, loc, tma_asm::kInitFence, "", {});
  }

  void mbarrierArriveExpectTx(OpBuilder &b, Location loc, Value bar,
                              int64_t bytes) override {
    Value n = arith::ConstantIntOp::create(b, loc, b.getI32Type(), bytes);
    sideEffect(b, loc, tma_asm::kArriveExpectTx, "r,r",
               {sharedAddress(b, loc, bar), n});
  }

  Value mbarrierTryWait(OpBuilder &b, Location loc, Value bar,
                        Value parity) override {
    return LLVM::InlineAsmOp::create(
               b, loc, b.getI32Type(),
               ValueRange{sharedAddress(b, loc, bar), parity},
               tma_asm::kTryWaitParity, "=r,r,r,~{memory}",
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
               ArrayAttr())
        .getResult(0);
  }

  void mbarrierInval(OpBuilder &b, Location loc, Value bar) override {
    sideEffect(b, loc, tma_asm::kInval, "r", {sharedAddress(b, loc, bar)});
  }

  void mbarrierArrive(OpBuilder &b, Location loc, Value bar) override {
    sideEffect(b, loc, tma_asm::kArrive, "r", {sharedAddress(b, loc, bar)});
  }

  void setMaxRegisters(OpBuilder &b, Location loc, unsigned count,
                       bool increase) override {
    NVVM::SetMaxRegisterOp::create(b, loc, count,
                                   increase
                                       ? NVVM::SetMaxRegisterAction::increase
                                       : NVVM::SetMaxRegisterAction::decrease);
  }

  void tensorCopy(OpBuilder &b, Location loc, Value dst, Value map,
                  ValueRange coords, Value bar) override {
    Value mapAddress = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), map);
    SmallVector<Value> operands{sharedAddress(b, loc, dst), mapAddress};
    llvm::append_range(operands, coords);
    operands.push_back(sharedAddress(b, loc, bar));
    std::string constraints = "r,l";
    for (size_t i = 0; i <= coords.size(); ++i)
      constraints += ",r";
    std::string text = tma_asm::loadText(coords.size());
    sideEffect(b, loc, text.c_str(), constraints, operands);
  }

  bool hasL2Prefetch() const override { return true; }
  void prefetchL2(OpBuilder &b, Location loc, Value ptr) override {
    NVVM::PrefetchOp::create(b, loc,
                             NVVM::PrefetchCacheLevelAttr::get(
                                 b.getContext(), NVVM::PrefetchCacheLevel::L2),
                             /*evictPriority=*/nullptr, ptr,
                             /*predicate=*/Value());
  }

  void waitForPrecedingGrids(OpBuilder &b, Location loc) override {
    // Wait first: the next grid is let in only once this one runs on the
    // finished results of the one before (at most two grids in flight).
    NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    NVVM::GriddepcontrolOp::create(b, loc,
                                   NVVM::GridDepActionKind::launch_dependents);
  }

  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads,
                  unsigned maxRegisters, unsigned occupancy) override {
    MLIRContext *ctx = func.getContext();
    auto i32 = IntegerType::get(ctx, 32);
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                  UnitAttr::get(ctx));
    func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads)}));
    // setmaxnreg needs the register count at the kernel's start (.maxnreg,
    // which already counts the occupancy); otherwise the occupancy is
    // ptxas's .minnctapersm, which caps the registers at 65536 / (threads
    // x N) in its allocation granules.
    if (maxRegisters)
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    IntegerAttr::get(i32, maxRegisters));
    else if (occupancy > 1)
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    IntegerAttr::get(i32, occupancy));
    // Parameters passed by value (the tensor maps of TMA copies) are read
    // in place through their generic address: __grid_constant__, which
    // keeps the compiler from copying them to local memory.
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, LLVM::LLVMDialect::getByValAttrName()))
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
  }

private:
  /// The 32-bit shared-window address of a shared pointer.
  static Value sharedAddress(OpBuilder &b, Location loc, Value ptr) {
    return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
  }

  /// An inline PTX statement without results that touches memory.
  static void sideEffect(OpBuilder &b, Location loc, const char *text,
                         StringRef constraints, ValueRange operands) {
    std::string all = constraints.str();
    all += all.empty() ? "~{memory}" : ",~{memory}";
    LLVM::InlineAsmOp::create(b, loc, TypeRange{}, operands, text, all,
                              /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
  }

  TargetInfo info;
};

} // namespace

std::unique_ptr<gpu::TargetLowering>
createNVVMTargetLowering(const TargetInfo &target) {
  return std::make_unique<NVVMTargetLowering>(target);
}

} // namespace tile::nvidia
