//===- ROCDLTargetLowering.cpp - ROCDL hooks of the GPU lowering ----------===//
//
// Part of tilec. The AMD CDNA half of the generic GPU lowering: work-item and
// work-group ids, dispatch-packet grid sizes, LDS (address space 3), the
// workgroup barrier with its fences, cross-lane exchange (DPP, ds_swizzle,
// ds_bpermute), MFMA, v_exp/v_log/v_rsq and the kernel ABI (amdgpu_kernel,
// flat work-group size, static LDS).
//
//===----------------------------------------------------------------------===//

#include "ROCDLTargetLowering.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

#include <deque>

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::MmaOperand;

namespace tile::amd {

DistributedLayout mfmaLayout(unsigned m, unsigned n, unsigned k,
                             MmaOperand operand) {
  // 64 lanes form 64 / M groups of M lanes; group g holds the K elements
  // [g * kPer, (g + 1) * kPer) of its row of A (lane % M) or column of B.
  int64_t groups = 64 / m, kPer = k / groups;
  switch (operand) {
  case MmaOperand::A:
    return DistributedLayout::columnSpatial({m, groups}) *
           DistributedLayout::local({1, kPer});
  case MmaOperand::B:
    return DistributedLayout::spatial({groups, n}) *
           DistributedLayout::local({kPer, 1});
  case MmaOperand::C:
    // Lane l holds column l % N; its rows come in runs of 4, the lane group
    // choosing the run inside each block of 4 * groups rows.
    if (m == 16)
      return DistributedLayout::spatial({4, 16}) *
             DistributedLayout::local({4, 1});
    return DistributedLayout::local({4, 1}) *
           DistributedLayout::spatial({2, 32}) *
           DistributedLayout::local({4, 1});
  }
  return DistributedLayout();
}

namespace {

/// Name of the placeholder LDS array the lowering addresses; markKernel
/// replaces it by a static, exactly sized array per kernel.
constexpr const char *kLdsPlaceholder = "__tile_lds";

/// The MFMA instruction (ROCDL op name) for an atom and its operand types.
struct MfmaInstr {
  StringRef opName;
  /// Elements of A (and B) per lane packed into one operand.
  unsigned kPer;
};

std::optional<MfmaInstr> selectInstr(const gpu::MmaAtom &atom, Type elem,
                                     bool gfx950) {
  unsigned m = atom.m, k = atom.k;
  // e4m3 / e5m2 arrive as their i8 codes; the atom names the format
  // (gfx950: OCP formats; no double-K form short of the scaled f8f6f4 ones).
  if (isa_and_nonnull<Float8E4M3FNType, Float8E5M2Type>(atom.operand)) {
    bool e4m3 = isa<Float8E4M3FNType>(atom.operand);
    if (m == 32 && k == 16)
      return MfmaInstr{e4m3 ? "rocdl.mfma.f32.32x32x16.fp8.fp8"
                            : "rocdl.mfma.f32.32x32x16.bf8.bf8",
                       8};
    if (m == 16 && k == 32)
      return MfmaInstr{e4m3 ? "rocdl.mfma.f32.16x16x32.fp8.fp8"
                            : "rocdl.mfma.f32.16x16x32.bf8.bf8",
                       8};
    return std::nullopt;
  }
  if (elem.isF16()) {
    if (m == 32 && k == 8)
      return MfmaInstr{"rocdl.mfma.f32.32x32x8f16", 4};
    if (m == 16 && k == 16)
      return MfmaInstr{"rocdl.mfma.f32.16x16x16f16", 4};
    if (gfx950 && m == 32 && k == 16)
      return MfmaInstr{"rocdl.mfma.f32.32x32x16.f16", 8};
    if (gfx950 && m == 16 && k == 32)
      return MfmaInstr{"rocdl.mfma.f32.16x16x32.f16", 8};
  } else if (elem.isBF16()) {
    if (m == 32 && k == 8)
      return MfmaInstr{"rocdl.mfma.f32.32x32x8bf16.1k", 4};
    if (m == 16 && k == 16)
      return MfmaInstr{"rocdl.mfma.f32.16x16x16bf16.1k", 4};
    if (gfx950 && m == 32 && k == 16)
      return MfmaInstr{"rocdl.mfma.f32.32x32x16.bf16", 8};
    if (gfx950 && m == 16 && k == 32)
      return MfmaInstr{"rocdl.mfma.f32.16x16x32.bf16", 8};
  } else if (elem.isInteger(8)) {
    if (m == 32 && k == 16)
      return MfmaInstr{"rocdl.mfma.i32.32x32x16.i8", 8};
    if (m == 16 && k == 32)
      return MfmaInstr{"rocdl.mfma.i32.16x16x32.i8", 8};
    if (gfx950 && m == 32 && k == 32)
      return MfmaInstr{"rocdl.mfma.i32.32x32x32.i8", 16};
    if (gfx950 && m == 16 && k == 64)
      return MfmaInstr{"rocdl.mfma.i32.16x16x64.i8", 16};
  }
  return std::nullopt;
}

gpu::MmaAtom makeAtom(unsigned m, unsigned n, unsigned k) {
  gpu::MmaAtom atom;
  atom.m = m, atom.n = n, atom.k = k;
  atom.a = mfmaLayout(m, n, k, MmaOperand::A);
  atom.b = mfmaLayout(m, n, k, MmaOperand::B);
  atom.c = mfmaLayout(m, n, k, MmaOperand::C);
  return atom;
}

/// A double-K instruction fed by two k-blocks of the single-K layouts: slots
/// [0, kPer) come from the first k-block and [kPer, 2 kPer) from the second.
/// A and B see the same permutation of k, so the sum over k is unchanged.
gpu::MmaAtom makePairedAtom(unsigned m, unsigned n, unsigned k) {
  gpu::MmaAtom atom;
  atom.m = m, atom.n = n, atom.k = 2 * k;
  atom.a =
      DistributedLayout::local({1, 2}) * mfmaLayout(m, n, k, MmaOperand::A);
  atom.b =
      DistributedLayout::local({2, 1}) * mfmaLayout(m, n, k, MmaOperand::B);
  atom.c = mfmaLayout(m, n, k, MmaOperand::C);
  return atom;
}

class ROCDLTargetLowering final : public ROCDLLoweringBase {
public:
  explicit ROCDLTargetLowering(const TargetInfo &info) : info(info) {}

  const TargetInfo &getTargetInfo() const override { return info; }
  unsigned getGlobalAddressSpace() const override { return 1; }
  unsigned getSharedAddressSpace() const override { return 3; }

  Value threadId(OpBuilder &b, Location loc) override {
    return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value programId(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return ROCDL::BlockIdXOp::create(b, loc, i32);
    case 1:
      return ROCDL::BlockIdYOp::create(b, loc, i32);
    default:
      return ROCDL::BlockIdZOp::create(b, loc, i32);
    }
  }
  /// ceil(grid_size / workgroup_size) from the HSA kernel dispatch packet
  /// (workgroup_size_{x,y,z}: u16 at byte 4 + 2 axis; grid_size_{x,y,z}: u32
  /// at byte 12 + 4 axis). rocdl.grid.dim.* would call the device library
  /// (__ockl_get_num_groups), which tilec does not link.
  Value numPrograms(OpBuilder &b, Location loc, unsigned axis) override {
    axis = std::min(axis, 2u);
    MLIRContext *ctx = b.getContext();
    auto constPtr = LLVM::LLVMPointerType::get(ctx, 4);
    Value packet =
        LLVM::CallIntrinsicOp::create(
            b, loc, constPtr, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
            ValueRange{})
            .getResult(0);
    auto at = [&](int64_t byte) {
      return LLVM::GEPOp::create(b, loc, constPtr, b.getI8Type(), packet,
                                 ArrayRef<LLVM::GEPArg>{int32_t(byte)});
    };
    Value wg = LLVM::LoadOp::create(b, loc, b.getI16Type(), at(4 + 2 * axis),
                                    /*alignment=*/2, /*isVolatile=*/false,
                                    /*isNonTemporal=*/false,
                                    /*isInvariant=*/true);
    Value grid = LLVM::LoadOp::create(b, loc, b.getI32Type(), at(12 + 4 * axis),
                                      /*alignment=*/4,
                                      /*isVolatile=*/false,
                                      /*isNonTemporal=*/false,
                                      /*isInvariant=*/true);
    Value wg32 = LLVM::ZExtOp::create(b, loc, b.getI32Type(), wg);
    Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
    Value sum = LLVM::AddOp::create(b, loc, grid,
                                    LLVM::SubOp::create(b, loc, wg32, one));
    return LLVM::UDivOp::create(b, loc, sum, wg32);
  }

  /// HIP's __syncthreads(): a workgroup-scope release fence (the backend's
  /// memory legalizer turns it into the s_waitcnt vmcnt/lgkmcnt that make
  /// earlier global and LDS accesses complete), s_barrier, and an acquire
  /// fence so that later accesses are not hoisted above the barrier.
  void barrier(OpBuilder &b, Location loc) override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release,
                          StringRef("workgroup"));
    ROCDL::SBarrierOp::create(b, loc);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire,
                          StringRef("workgroup"));
  }

  Value laneId(OpBuilder &b, Location loc) {
    Value mask = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                          int64_t(info.warpSize) - 1);
    return LLVM::AndOp::create(b, loc, threadId(b, loc), mask);
  }

  /// Applies `exchange` to the 32-bit image of `value` (any type of 8 to 32
  /// bits, or 64 bits as two halves) and converts the result back.
  Value on32Bits(OpBuilder &b, Location loc, Value value,
                 llvm::function_ref<Value(Value)> exchange) {
    Type type = value.getType();
    Type i32 = b.getI32Type();
    unsigned bits = type.getIntOrFloatBitWidth();
    if (bits == 64) {
      auto vec = VectorType::get({2}, i32);
      Value v = LLVM::BitcastOp::create(b, loc, vec, value);
      Value out = LLVM::PoisonOp::create(b, loc, vec);
      for (int64_t i = 0; i < 2; ++i) {
        Value idx = LLVM::ConstantOp::create(b, loc, i32, i);
        Value half = LLVM::ExtractElementOp::create(b, loc, v, idx);
        out = LLVM::InsertElementOp::create(b, loc, out, exchange(half), idx);
      }
      return LLVM::BitcastOp::create(b, loc, type, out);
    }
    Type intType = b.getIntegerType(bits);
    Value asInt =
        type == intType
            ? value
            : LLVM::BitcastOp::create(b, loc, intType, value).getResult();
    Value wide = bits == 32
                     ? asInt
                     : LLVM::ZExtOp::create(b, loc, i32, asInt).getResult();
    Value r = exchange(wide);
    if (bits != 32)
      r = LLVM::TruncOp::create(b, loc, intType, r);
    if (type != intType)
      r = LLVM::BitcastOp::create(b, loc, type, r);
    return r;
  }

  /// ds_bpermute: every lane reads `value` of lane `srcLane` (addressed in
  /// bytes, lane * 4, modulo the wave).
  Value bpermute(OpBuilder &b, Location loc, Value value, Value srcLane) {
    Value two = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 2);
    Value addr = LLVM::ShlOp::create(b, loc, srcLane, two);
    return ROCDL::DsBpermuteOp::create(b, loc, b.getI32Type(), addr, value);
  }

  /// xor 1, 2, 3: DPP quad_perm (a VALU modifier, no LDS round trip);
  /// xor 4 .. 31: ds_swizzle in bit-mask mode (32-lane groups, no address
  /// computation); xor >= 32: ds_bpermute across the whole wave.
  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   unsigned laneMask) override {
    Type i32 = b.getI32Type();
    return on32Bits(b, loc, value, [&](Value v) -> Value {
      if (laneMask >= 1 && laneMask <= 3) {
        // quad_perm: lane i of each quad reads lane sel[i] = i ^ laneMask.
        unsigned ctrl = 0;
        for (unsigned i = 0; i < 4; ++i)
          ctrl |= (i ^ laneMask) << (2 * i);
        return ROCDL::DPPUpdateOp::create(b, loc, i32, v, v, ctrl,
                                          /*rowMask=*/0xF, /*bankMask=*/0xF,
                                          /*boundCtrl=*/true);
      }
      if (laneMask < 32) {
        // offset[15] = 0: bit-mask mode, and_mask = 0x1F (bits 4:0),
        // or_mask = 0 (bits 9:5), xor_mask = laneMask (bits 14:10).
        Value offset = LLVM::ConstantOp::create(
            b, loc, i32, int64_t(0x1F | (laneMask << 10)));
        return ROCDL::DsSwizzleOp::create(b, loc, i32, v, offset);
      }
      Value mask = LLVM::ConstantOp::create(b, loc, i32, int64_t(laneMask));
      return bpermute(b, loc, v,
                      LLVM::XOrOp::create(b, loc, laneId(b, loc), mask));
    });
  }
  Value shuffleIndex(OpBuilder &b, Location loc, Value value,
                     Value srcLane) override {
    return on32Bits(b, loc, value,
                    [&](Value v) { return bpermute(b, loc, v, srcLane); });
  }

  Value sharedMemoryBase(OpBuilder &b, Location loc, ModuleOp module) override {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
    if (!module.lookupSymbol(kLdsPlaceholder)) {
      OpBuilder mb(module.getBodyRegion());
      LLVM::GlobalOp::create(mb, loc,
                             LLVM::LLVMArrayType::get(mb.getI8Type(), 0),
                             /*isConstant=*/false, LLVM::Linkage::External,
                             kLdsPlaceholder, Attribute(), /*alignment=*/16,
                             /*addrSpace=*/3);
    }
    return LLVM::AddressOfOp::create(b, loc, ptrType, kLdsPlaceholder);
  }

  /// The MFMA shapes the chip runs for these operand types, preferred first:
  /// the double-K gfx950 instructions (native layouts, then fed by pairs of
  /// single-K blocks), then 32x32 before 16x16; the list ends with the
  /// single-K 32x32 and 16x16 shapes.
  std::vector<gpu::MmaAtom> candidateAtoms(Type operand,
                                           Type acc) const override {
    std::vector<gpu::MmaAtom> atoms;
    if (!info.hasMfma)
      return atoms;
    bool gfx950 = info.hasMfmaGfx950;
    if ((operand.isF16() || operand.isBF16()) && acc.isF32()) {
      if (gfx950) {
        atoms.push_back(makeAtom(32, 32, 16));
        atoms.push_back(makeAtom(16, 16, 32));
        atoms.push_back(makePairedAtom(32, 32, 8));
        atoms.push_back(makePairedAtom(16, 16, 16));
      }
      atoms.push_back(makeAtom(32, 32, 8));
      atoms.push_back(makeAtom(16, 16, 16));
    } else if (operand.isInteger(8) && acc.isInteger(32)) {
      if (gfx950) {
        atoms.push_back(makeAtom(32, 32, 32));
        atoms.push_back(makeAtom(16, 16, 64));
        atoms.push_back(makePairedAtom(32, 32, 16));
        atoms.push_back(makePairedAtom(16, 16, 32));
      }
      atoms.push_back(makeAtom(32, 32, 16));
      atoms.push_back(makeAtom(16, 16, 32));
    } else if (isa<Float8E4M3FNType, Float8E5M2Type>(operand) && acc.isF32() &&
               info.hasFp8Mma) {
      // gfx950: v_mfma_f32_{32x32x16,16x16x32}_{fp8_fp8,bf8_bf8}.
      for (auto [m, k] : {std::pair{32u, 16u}, std::pair{16u, 32u}}) {
        atoms.push_back(makeAtom(m, m, k));
        atoms.back().operand = operand;
      }
    }
    return atoms;
  }

  void selectMmaAtoms(ModuleOp module) override {
    pending.clear();
    // The generic lowering asks for one atom per tile.dot, kernel by kernel
    // in module order and op by op in program order: queue, in that order,
    // the first candidate whose layouts divide the dot's operand layouts.
    auto layoutOf = [](Value v) -> std::optional<DistributedLayout> {
      auto type = cast<RankedTensorType>(v.getType());
      if (auto attr = dyn_cast_or_null<tile::LayoutAttr>(type.getEncoding()))
        return attr.getLayout();
      return std::nullopt;
    };
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr("tile.kernel"))
        continue;
      fn.walk([&](tile::DotOp dot) {
        Type aElem =
            cast<RankedTensorType>(dot.getA().getType()).getElementType();
        Type cElem =
            cast<RankedTensorType>(dot.getAcc().getType()).getElementType();
        Selection sel{aElem, cElem, std::nullopt};
        auto la = layoutOf(dot.getA()), lb = layoutOf(dot.getB()),
             lc = layoutOf(dot.getAcc());
        if (la && lb && lc)
          for (gpu::MmaAtom &atom : candidateAtoms(aElem, cElem))
            if (la->divideRight(atom.a) && lb->divideRight(atom.b) &&
                lc->divideRight(atom.c)) {
              sel.atom = std::move(atom);
              break;
            }
        pending.push_back(std::move(sel));
      });
    }
  }

  std::optional<gpu::MmaAtom> getMmaAtom(Type operand,
                                         Type acc) const override {
    if (!pending.empty()) {
      Selection sel = std::move(pending.front());
      pending.pop_front();
      if (sel.operand == operand && sel.acc == acc && sel.atom)
        return sel.atom;
    }
    std::vector<gpu::MmaAtom> atoms = candidateAtoms(operand, acc);
    if (atoms.empty())
      return std::nullopt;
    // No layout fits (the lowering reports it) or an unplanned query: the
    // shape the layout inference prefers (32x32, single K).
    return atoms[atoms.size() - 2];
  }

  /// Packs `slots` (kPer elements of A or B) into the operand type of the
  /// instruction: <4 x half>, <8 x half>, <4 x i16> (bf16 on the *_1k
  /// instructions), <8 x bfloat>, i64 (8 x i8) or <4 x i32> (16 x i8).
  static Value packOperand(OpBuilder &b, Location loc, ValueRange slots,
                           StringRef opName) {
    Type elem = slots[0].getType();
    Type i32 = b.getI32Type();
    bool bf16As16 = elem.isBF16() && opName.ends_with(".1k");
    Type laneElem = bf16As16 ? Type(b.getI16Type()) : elem;
    auto vecType = VectorType::get({int64_t(slots.size())}, laneElem);
    Value v = LLVM::PoisonOp::create(b, loc, vecType);
    for (auto [i, s] : llvm::enumerate(slots)) {
      Value x = bf16As16
                    ? LLVM::BitcastOp::create(b, loc, laneElem, s).getResult()
                    : s;
      v = LLVM::InsertElementOp::create(
          b, loc, v, x, LLVM::ConstantOp::create(b, loc, i32, int64_t(i)));
    }
    if (elem.isInteger(8)) {
      Type packed =
          slots.size() == 8
              ? Type(b.getI64Type())
              : Type(VectorType::get({int64_t(slots.size() / 4)}, i32));
      v = LLVM::BitcastOp::create(b, loc, packed, v);
    }
    return v;
  }

  /// The gfx950 double-K instruction that does the work of two consecutive
  /// single-K instructions `opName`, if there is one.
  static std::optional<StringRef> doubleK(StringRef opName) {
    return llvm::StringSwitch<std::optional<StringRef>>(opName)
        .Case("rocdl.mfma.f32.32x32x8f16", "rocdl.mfma.f32.32x32x16.f16")
        .Case("rocdl.mfma.f32.16x16x16f16", "rocdl.mfma.f32.16x16x32.f16")
        .Case("rocdl.mfma.f32.32x32x8bf16.1k", "rocdl.mfma.f32.32x32x16.bf16")
        .Case("rocdl.mfma.f32.16x16x16bf16.1k", "rocdl.mfma.f32.16x16x32.bf16")
        .Case("rocdl.mfma.i32.32x32x16.i8", "rocdl.mfma.i32.32x32x32.i8")
        .Case("rocdl.mfma.i32.16x16x32.i8", "rocdl.mfma.i32.16x16x64.i8")
        .Default(std::nullopt);
  }

  /// The single-K MFMA this function emitted whose results are exactly `c`
  /// (slot i = element i, used nowhere else): the previous step of the same
  /// accumulation chain.
  Operation *chainedSingleK(ValueRange c) {
    Operation *prev = nullptr;
    for (auto [i, v] : llvm::enumerate(c)) {
      auto ex = v.getDefiningOp<LLVM::ExtractElementOp>();
      APInt index;
      if (!ex || !ex->use_empty() ||
          !matchPattern(ex.getPosition(), m_ConstantInt(&index)) ||
          index.getZExtValue() != i)
        return nullptr;
      Operation *def = ex.getVector().getDefiningOp();
      if (!def || (prev && def != prev) || !singleK.count(def) ||
          !def->getName().getStringRef().starts_with("rocdl.mfma."))
        return nullptr;
      prev = def;
    }
    if (!prev || !llvm::all_of(prev->getUsers(), [&](Operation *user) {
          return llvm::is_contained(c, user->getResult(0));
        }))
      return nullptr;
    return prev;
  }

  SmallVector<Value> mma(OpBuilder &b, Location loc, const gpu::MmaAtom &atom,
                         ValueRange a, ValueRange bOp, ValueRange c) override {
    Type elem = a[0].getType();
    std::optional<MfmaInstr> instr =
        selectInstr(atom, elem, info.hasMfmaGfx950);
    assert(instr && "mma() called with an atom getMmaAtom never returned");
    assert(a.size() == instr->kPer && bOp.size() == instr->kPer &&
           "operand slots do not match the MFMA operand width");
    Type i32 = b.getI32Type();
    StringRef opName = instr->opName;
    SmallVector<Value> aSlots(a.begin(), a.end()),
        bSlots(bOp.begin(), bOp.end());
    Value acc;
    // gfx950: the second of two chained single-K steps replaces the first
    // by one double-K instruction over both k-blocks. Slots [0, kPer) of A
    // and B come from the first block, [kPer, 2 kPer) from the second: A and
    // B see the same permutation of k, so the sum over k is unchanged.
    std::optional<StringRef> fused =
        info.hasMfmaGfx950 ? doubleK(opName) : std::nullopt;
    if (Operation *prev = fused ? chainedSingleK(c) : nullptr) {
      Chain chain = singleK.lookup(prev);
      singleK.erase(prev);
      aSlots.insert(aSlots.begin(), chain.a.begin(), chain.a.end());
      bSlots.insert(bSlots.begin(), chain.b.begin(), chain.b.end());
      acc = chain.acc;
      opName = *fused;
      for (Value v : c)
        eraseOp(v.getDefiningOp());
      eraseOp(prev);
    } else {
      auto accType = VectorType::get({int64_t(c.size())}, c[0].getType());
      acc = LLVM::PoisonOp::create(b, loc, accType);
      for (auto [i, s] : llvm::enumerate(c))
        acc = LLVM::InsertElementOp::create(
            b, loc, acc, s, LLVM::ConstantOp::create(b, loc, i32, int64_t(i)));
    }
    Value va = packOperand(b, loc, aSlots, opName);
    Value vb = packOperand(b, loc, bSlots, opName);
    // cbsz, abid, blgp = 0: no broadcast between blocks, no B lane swizzle.
    Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
    OperationState state(loc, opName);
    state.addOperands({va, vb, acc, zero, zero, zero});
    state.addTypes(acc.getType());
    Operation *op = b.create(state);
    if (opName == instr->opName && fused)
      singleK[op] = Chain{aSlots, bSlots, acc};
    Value d = op->getResult(0);
    SmallVector<Value> out;
    for (int64_t i = 0; i < int64_t(c.size()); ++i)
      out.push_back(LLVM::ExtractElementOp::create(
          b, loc, d, LLVM::ConstantOp::create(b, loc, i32, i)));
    return out;
  }

  /// CDNA3 has no asynchronous global-to-LDS copy that the generic lowering
  /// can use (buffer_load ... lds moves 4 bytes per lane with an M0 base);
  /// tile.copy_async is lowered to loads and LDS stores by the caller.
  bool hasAsyncCopy() const override { return false; }
  /// A synchronous copy with the asynchronous interface (never used while
  /// hasAsyncCopy() is false): one vector load and store when all `bytes`
  /// are read, else byte by byte with zero fill.
  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value srcBytes) override {
    Type i32 = b.getI32Type();
    APInt known;
    if (matchPattern(srcBytes, m_ConstantInt(&known)) &&
        known.getZExtValue() == bytes && bytes % 4 == 0) {
      Type vec = bytes == 4 ? i32 : Type(VectorType::get({bytes / 4}, i32));
      Value v = LLVM::LoadOp::create(b, loc, vec, src, bytes);
      LLVM::StoreOp::create(b, loc, v, dst, bytes);
      return;
    }
    Type i8 = b.getI8Type();
    for (unsigned i = 0; i < bytes; ++i) {
      Value idx = LLVM::ConstantOp::create(b, loc, i32, int64_t(i));
      Value live =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, idx, srcBytes);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{i8}, live, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        Value p = LLVM::GEPOp::create(b, loc, src.getType(), i8, src,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
        scf::YieldOp::create(b, loc,
                             ValueRange{LLVM::LoadOp::create(b, loc, i8, p)});
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(
            b, loc, ValueRange{LLVM::ConstantOp::create(b, loc, i8, 0)});
      }
      Value q = LLVM::GEPOp::create(b, loc, dst.getType(), i8, dst,
                                    ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, ifOp.getResult(0), q);
    }
  }
  /// Copies are synchronous: nothing to group or wait for. The data a
  /// thread stored to LDS is visible to the others after tile.barrier,
  /// whose release fence waits for the stores (s_waitcnt lgkmcnt(0)).
  void asyncCommitGroup(OpBuilder &, Location) override {}
  void asyncWait(OpBuilder &, Location, unsigned) override {}

  // v_exp_f32 (about 1 ulp); LLVM rescales inputs below -126 so that
  // denormal results are kept.
  Value exp2(OpBuilder &b, Location loc, Value x) override {
    return LLVM::Exp2Op::create(b, loc, x.getType(), x);
  }
  // v_log_f32 (about 1 ulp); LLVM rescales denormal inputs by 2^32 first.
  Value log2(OpBuilder &b, Location loc, Value x) override {
    return LLVM::Log2Op::create(b, loc, x.getType(), x);
  }
  // v_rsq_f32 (about 1 ulp) through llvm.amdgcn.rsq, no device library.
  Value rsqrt(OpBuilder &b, Location loc, Value x) override {
    return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                         b.getStringAttr("llvm.amdgcn.rsq"),
                                         ValueRange{x})
        .getResult(0);
  }

  // Device-scope ("agent") relaxed atomics on memory that is neither remote
  // nor fine-grained (tilec's buffers are plain device allocations): with
  // that metadata the backend emits global_atomic_add_f32 instead of a
  // compare-and-swap loop.
  void atomicAddGlobal(OpBuilder &b, Location loc, Value ptr,
                       Value value) override {
    bool isFloat = isa<mlir::FloatType>(value.getType());
    agentAtomicAdd(b, loc,
                   isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add,
                   ptr, value, value.getType().getIntOrFloatBitWidth() / 8);
  }
  // With the same metadata an f16 / bf16 pair is one
  // global_atomic_pk_add_f16 / _bf16 (CDNA3/4), where a single f16 is a
  // compare-and-swap loop.
  bool hasAtomicAddPair(Type type) const override {
    return type.isF16() || type.isBF16();
  }
  void atomicAddGlobalPair(OpBuilder &b, Location loc, Value ptr, Value lo,
                           Value hi) override {
    auto vec = VectorType::get({2}, lo.getType());
    Value pair = LLVM::PoisonOp::create(b, loc, vec);
    pair = LLVM::InsertElementOp::create(b, loc, pair, lo, i32Const(b, loc, 0));
    pair = LLVM::InsertElementOp::create(b, loc, pair, hi, i32Const(b, loc, 1));
    agentAtomicAdd(b, loc, LLVM::AtomicBinOp::fadd, ptr, pair, 4);
  }
  // A device-scope relaxed atomicrmw with the metadata above.
  static void agentAtomicAdd(OpBuilder &b, Location loc, LLVM::AtomicBinOp op,
                             Value ptr, Value value, unsigned alignment) {
    auto rmw = LLVM::AtomicRMWOp::create(b, loc, op, ptr, value,
                                         LLVM::AtomicOrdering::monotonic,
                                         "agent", alignment);
    MLIRContext *ctx = b.getContext();
    auto *rocdl = ctx->getLoadedDialect<ROCDL::ROCDLDialect>();
    rocdl->getNoRemoteMemoryAttrHelper().setAttr(rmw, UnitAttr::get(ctx));
    rocdl->getNoFineGrainedMemoryAttrHelper().setAttr(rmw, UnitAttr::get(ctx));
  }
  static Value i32Const(OpBuilder &b, Location loc, int32_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
  }

  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads,
                  unsigned /*maxRegisters: NVIDIA only*/,
                  unsigned occupancy) override {
    MLIRContext *ctx = func.getContext();
    func.setCConv(LLVM::cconv::CConv::AMDGPU_KERNEL);
    func->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(),
                  UnitAttr::get(ctx));
    std::string size = std::to_string(numThreads);
    func->setAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
                  StringAttr::get(ctx, size + "," + size));
    func->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(),
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
    // `occupancy N`: N workgroups per CU, whose wavefronts the CU's four
    // SIMDs share: at least ceil(N x waves / 4) per SIMD
    // ("amdgpu-waves-per-eu", which bounds the VGPRs of each).
    if (occupancy > 1) {
      unsigned waves = numThreads / getTargetInfo().warpSize;
      auto *rocdl = ctx->getLoadedDialect<ROCDL::ROCDLDialect>();
      rocdl->getWavesPerEuAttrHelper().setAttr(
          func, IntegerAttr::get(IntegerType::get(ctx, 32),
                                 (occupancy * waves + 3) / 4));
    }
    makeStaticLds(func);
  }

  /// Gives `func` its own LDS array of exactly the bytes it uses, so that the
  /// backend checks it against the chip's LDS and the code object records it
  /// (.group_segment_fixed_size). The kernel then needs no dynamic LDS.
  void makeStaticLds(LLVM::LLVMFuncOp func) {
    auto module = func->getParentOfType<ModuleOp>();
    int64_t bytes = 0;
    if (auto attr =
            func->getAttrOfType<IntegerAttr>(gpu::kDynamicSharedBytesAttr))
      bytes = attr.getInt();
    SmallVector<LLVM::AddressOfOp> uses;
    func.walk([&](LLVM::AddressOfOp op) {
      if (op.getGlobalName() == kLdsPlaceholder)
        uses.push_back(op);
    });
    if (bytes > int64_t(info.maxSharedBytes)) {
      // tile-allocate-shared checks its own plan; this is scratch the
      // lowering had to add after it. Fail here, at the kernel, rather than
      // with the backend's location-less "local memory exceeds limit".
      func.emitError() << "kernel '" << func.getName() << "' needs " << bytes
                       << " bytes of LDS, but " << info.name << " has "
                       << info.maxSharedBytes
                       << " (the lowering added shared scratch that "
                          "tile-allocate-shared did not plan)";
      ldsExceeded = true;
    }
    OpBuilder b(func.getContext());
    if (func->hasAttr(gpu::kDynamicSharedBytesAttr))
      func->setAttr(gpu::kDynamicSharedBytesAttr, b.getI64IntegerAttr(0));
    if (uses.empty())
      return;
    // The lowering reads at most `bytes` bytes; keep at least one element.
    std::string name = (func.getName() + ".lds").str();
    SymbolTable symbols(module);
    b.clearInsertionPoint();
    auto global = LLVM::GlobalOp::create(
        b, func.getLoc(),
        LLVM::LLVMArrayType::get(b.getI8Type(), std::max<int64_t>(bytes, 1)),
        /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute(),
        /*alignment=*/16, /*addrSpace=*/3);
    symbols.insert(global, module.getBody()->begin());
    for (LLVM::AddressOfOp op : uses)
      op.setGlobalName(global.getSymName());
  }

  bool exceededLds() const override { return ldsExceeded; }

private:
  TargetInfo info;
  bool ldsExceeded = false;
  /// The atom chosen for each tile.dot, in the order the lowering asks.
  struct Selection {
    Type operand, acc;
    std::optional<gpu::MmaAtom> atom;
  };
  mutable std::deque<Selection> pending;
  /// Single-K MFMAs (gfx950) that a chained successor may fuse with: their
  /// operand slots and accumulator input.
  struct Chain {
    SmallVector<Value> a, b;
    Value acc;
  };
  llvm::DenseMap<Operation *, Chain> singleK;
};

} // namespace

void eraseUnusedLdsPlaceholder(ModuleOp module) {
  Operation *global = module.lookupSymbol(kLdsPlaceholder);
  if (global && SymbolTable::symbolKnownUseEmpty(global, module))
    global->erase();
}

std::unique_ptr<ROCDLLoweringBase>
createROCDLLowering(const TargetInfo &target) {
  return std::make_unique<ROCDLTargetLowering>(target);
}

std::unique_ptr<gpu::TargetLowering>
createROCDLTargetLowering(const TargetInfo &target) {
  return createROCDLLowering(target);
}

} // namespace tile::amd
