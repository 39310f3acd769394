//===- LowerKernel.cpp - Rebuild a tile kernel as per-thread code ---------===//
//
// Part of tilec. The driver of the generic GPU lowering: function signature,
// control flow, elementwise arith/math, shape ops and the small tile ops.
// Memory ops live in LowerMemory.cpp, reductions and layout conversions in
// LowerReduce.cpp, matrix products in LowerDot.cpp, casts in LowerCast.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

TargetLowering::~TargetLowering() = default;

bool TargetLowering::hasMatrixLoad(unsigned, bool) const { return false; }

Value TargetLowering::andXor(OpBuilder &b, Location loc, Value a, int64_t mask,
                             int64_t c) {
  Type i32 = b.getI32Type();
  Value t = arith::AndIOp::create(
      b, loc, a, arith::ConstantIntOp::create(b, loc, i32, mask));
  return arith::XOrIOp::create(b, loc, t,
                               arith::ConstantIntOp::create(b, loc, i32, c));
}

void TargetLowering::atomicAddGlobal(OpBuilder &b, Location loc, Value ptr,
                                     Value value) {
  bool isFloat = isa<mlir::FloatType>(value.getType());
  LLVM::AtomicRMWOp::create(
      b, loc, isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add, ptr,
      value, LLVM::AtomicOrdering::monotonic, /*syncscope=*/StringRef(),
      value.getType().getIntOrFloatBitWidth() / 8);
}

SmallVector<Value> TargetLowering::loadMatrices(OpBuilder &, Location, Value,
                                                unsigned, bool) {
  return {};
}

KernelLowering::KernelLowering(TargetLowering &target, ModuleOp module,
                               func::FuncOp kernel)
    : tl(target), module(module), kernel(kernel), b(kernel.getContext()),
      loc(kernel.getLoc()) {
  if (auto bytes = kernel->getAttrOfType<IntegerAttr>("tile.shared_bytes"))
    sharedBytes = bytes.getInt();
  sharedBytes = (sharedBytes + 15) / 16 * 16;
}

unsigned KernelLowering::warpSize() const {
  return tl.getTargetInfo().warpSize;
}

Type KernelLowering::storageType(Type elementType) {
  if (mlir::tile::isSmallFloatType(elementType))
    return IntegerType::get(elementType.getContext(),
                            mlir::tile::getElementBitWidth(elementType));
  return elementType;
}

FailureOr<DistributedLayout> KernelLowering::layoutOf(Operation *op,
                                                      Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError("expected a tile type, got ") << type;
  auto attr = dyn_cast_or_null<mlir::tile::LayoutAttr>(tensor.getEncoding());
  if (!attr)
    return op->emitOpError("tile type ")
           << type
           << " has no #tile.layout encoding; run layout inference first";
  DistributedLayout layout = attr.getLayout();
  int64_t threads =
      kernel->getAttrOfType<IntegerAttr>("tile.warps").getInt() * warpSize();
  if (layout.numThreads() != threads)
    return op->emitOpError("layout ")
           << layout.str() << " spans " << layout.numThreads()
           << " threads but the kernel has " << threads;
  return layout;
}

Value KernelLowering::i32(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value KernelLowering::i64(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}
Value KernelLowering::constant(Type type, int64_t v) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, type,
                                     b.getFloatAttr(type, double(v)));
  return arith::ConstantIntOp::create(b, loc, type, v);
}

SmallVector<Value, 4>
KernelLowering::spatialCoords(const DistributedLayout &layout, Value thread) {
  if (!thread)
    thread = tid;
  ArrayRef<::tile::layout::Mode> modes = layout.modes();
  ArrayRef<unsigned> spatial = layout.spatialModes();
  SmallVector<Value, 4> coords(layout.rank(), Value());
  int64_t stride = 1;
  for (int i = int(spatial.size()) - 1; i >= 0; --i) {
    const auto &mode = modes[spatial[i]];
    int64_t size = mode.size;
    if (!mode.isReplicated()) {
      // digit = (t / stride) % size, weight = product of the sizes of the
      // less significant modes of the same dimension.
      Value digit = thread;
      if (stride != 1)
        digit = arith::DivUIOp::create(b, loc, digit, i32(stride));
      if (stride * size < layout.numThreads())
        digit = arith::RemUIOp::create(b, loc, digit, i32(size));
      int64_t weight = 1;
      for (unsigned j = spatial[i] + 1; j < modes.size(); ++j)
        if (modes[j].dim == mode.dim)
          weight *= modes[j].size;
      if (weight != 1)
        digit = arith::MulIOp::create(b, loc, digit, i32(weight));
      Value &c = coords[mode.dim];
      c = c ? arith::AddIOp::create(b, loc, c, digit).getResult() : digit;
    }
    stride *= size;
  }
  for (Value &c : coords)
    if (!c)
      c = i32(0);
  return coords;
}

Value KernelLowering::isFirstHolder(const DistributedLayout &layout) {
  ArrayRef<::tile::layout::Mode> modes = layout.modes();
  ArrayRef<unsigned> spatial = layout.spatialModes();
  Value result;
  int64_t stride = 1;
  for (int i = int(spatial.size()) - 1; i >= 0; --i) {
    const auto &mode = modes[spatial[i]];
    if (mode.isReplicated()) {
      Value digit = arith::DivUIOp::create(b, loc, tid, i32(stride));
      digit = arith::RemUIOp::create(b, loc, digit, i32(mode.size));
      Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         digit, i32(0));
      result = result ? arith::AndIOp::create(b, loc, result, zero).getResult()
                      : zero;
    }
    stride *= mode.size;
  }
  if (!result)
    result = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  return result;
}

Value KernelLowering::gep(Value base, Value byteOffset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{byteOffset});
}

Value KernelLowering::sharedBase() {
  if (!smemBase) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entryBlock);
    smemBase = tl.sharedMemoryBase(b, loc, module);
  }
  return smemBase;
}

Value KernelLowering::scratch(Operation *op, int64_t bytes) {
  // Space reserved by tile-allocate-shared for this op, when large enough.
  auto offset = op->getAttrOfType<IntegerAttr>("tile.scratch_offset");
  auto size = op->getAttrOfType<IntegerAttr>("tile.scratch_bytes");
  if (offset && size && size.getInt() >= bytes)
    return gep(sharedBase(), i32(offset.getInt()));
  // Otherwise our own region after the kernel's shared memory.
  scratchBytes = std::max(scratchBytes, (bytes + 15) / 16 * 16);
  return gep(sharedBase(), i32(sharedBytes));
}

SharedValue *KernelLowering::lookupShared(Value v) {
  auto it = shareds.find(v);
  return it == shareds.end() ? nullptr : &it->second;
}

ViewValue *KernelLowering::lookupView(Value v) {
  auto it = views.find(v);
  return it == views.end() ? nullptr : &it->second;
}

std::optional<SmallVector<int64_t>> KernelLowering::staticRemap(
    const DistributedLayout &src, const DistributedLayout &dst,
    llvm::function_ref<SmallVector<int64_t, 4>(ArrayRef<int64_t>)> coordMap) {
  if (src.numThreads() != dst.numThreads())
    return std::nullopt;
  SmallVector<int64_t> result;
  for (int64_t l = 0; l < dst.localSize(); ++l) {
    int64_t found = -1;
    for (int64_t t = 0; t < dst.numThreads(); ++t) {
      SmallVector<int64_t, 4> c = coordMap(dst.apply(t, l));
      int64_t slot = -1;
      for (const auto &h : src.holders(c))
        if (h.thread == t) {
          slot = h.slot;
          break;
        }
      if (slot < 0 || (found >= 0 && slot != found))
        return std::nullopt;
      found = slot;
    }
    result.push_back(found);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Function and control flow
//===----------------------------------------------------------------------===//

FailureOr<Type> KernelLowering::convertArgType(Type type) {
  if (isa<mlir::tile::PtrType>(type))
    return Type(
        LLVM::LLVMPointerType::get(b.getContext(), tl.getGlobalAddressSpace()));
  if (type.isIntOrFloat())
    return storageType(type);
  return failure();
}

LogicalResult KernelLowering::run() {
  auto warps = kernel->getAttrOfType<IntegerAttr>("tile.warps");
  if (!warps || warps.getInt() <= 0)
    return kernel.emitOpError("a GPU kernel needs a positive tile.warps");
  if (auto ws = kernel->getAttrOfType<IntegerAttr>("tile.warp_size"))
    if (ws.getInt() != warpSize())
      return kernel.emitOpError("tile.warp_size = ")
             << ws.getInt() << " but the target's warp size is " << warpSize();
  if (kernel.getNumResults() != 0)
    return kernel.emitOpError("a kernel returns no values");

  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes()) {
    FailureOr<Type> converted = convertArgType(t);
    if (failed(converted))
      return kernel.emitOpError("unsupported kernel parameter type ") << t;
    argTypes.push_back(*converted);
  }
  b.setInsertionPoint(kernel);
  auto fn = func::FuncOp::create(b, loc, "__tile_gpu_lowering",
                                 b.getFunctionType(argTypes, {}));
  Block *entry = fn.addEntryBlock();
  entryBlock = entry;
  b.setInsertionPointToStart(entry);
  tid = tl.threadId(b, loc);
  Block &oldEntry = kernel.getBody().front();
  for (auto [oldArg, newArg] :
       llvm::zip(oldEntry.getArguments(), entry->getArguments()))
    values[oldArg] = {newArg};
  analyzeOperandFusion();
  if (failed(lowerBlock(oldEntry))) {
    fn.erase();
    return failure();
  }
  StringAttr name = kernel.getSymNameAttr();
  fn->setAttr(kDynamicSharedBytesAttr, b.getI64IntegerAttr(getSharedBytes()));
  kernel.erase();
  fn.setSymName(name);
  return success();
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(lowerOp(&op)))
      return failure();
  Operation *term = block.getTerminator();
  if (isa<func::ReturnOp>(term)) {
    func::ReturnOp::create(b, term->getLoc());
    return success();
  }
  // scf.yield: flatten the operands.
  if (isa<scf::YieldOp>(term)) {
    SmallVector<Value> operands;
    for (Value v : term->getOperands())
      llvm::append_range(operands, values[v]);
    scf::YieldOp::create(b, term->getLoc(), operands);
    return success();
  }
  return term->emitOpError("unsupported terminator in a GPU kernel");
}

/// Flattened register types of a value.
static SmallVector<Type> flatTypes(const Regs &regs) {
  SmallVector<Type> types;
  for (Value v : regs)
    types.push_back(v.getType());
  return types;
}

LogicalResult KernelLowering::lowerFor(scf::ForOp op) {
  SmallVector<Value> inits;
  SmallVector<unsigned> counts;
  for (Value v : op.getInitArgs()) {
    const Regs &regs = values[v];
    if (regs.empty())
      return op.emitOpError("loop-carried value of unsupported type ")
             << v.getType();
    llvm::append_range(inits, regs);
    counts.push_back(regs.size());
  }
  auto newFor = scf::ForOp::create(
      b, op.getLoc(), values[op.getLowerBound()][0],
      values[op.getUpperBound()][0], values[op.getStep()][0], inits);
  for (NamedAttribute attr : op->getDiscardableAttrs())
    newFor->setAttr(attr.getName(), attr.getValue());
  Block *body = newFor.getBody();
  // The builder may have added a terminator for loops without results.
  if (!body->empty())
    body->getTerminator()->erase();
  values[op.getInductionVar()] = {newFor.getInductionVar()};
  unsigned pos = 0;
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs())) {
    Regs regs;
    for (unsigned k = 0; k < counts[i]; ++k)
      regs.push_back(newFor.getRegionIterArgs()[pos++]);
    values[arg] = regs;
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    if (failed(lowerBlock(*op.getBody())))
      return failure();
  }
  pos = 0;
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    Regs regs;
    for (unsigned k = 0; k < counts[i]; ++k)
      regs.push_back(newFor.getResult(pos++));
    values[res] = regs;
  }
  return success();
}

LogicalResult KernelLowering::lowerIf(scf::IfOp op) {
  // Result register types come from lowering the then-region's yield; we
  // need them up front, so derive them from the result types.
  SmallVector<Type> types;
  SmallVector<unsigned> counts;
  for (Value res : op.getResults()) {
    Type t = res.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      FailureOr<DistributedLayout> layout = layoutOf(op, t);
      if (failed(layout))
        return failure();
      Type elem = storageType(tensor.getElementType());
      types.append(layout->localSize(), elem);
      counts.push_back(layout->localSize());
    } else if (t.isIntOrFloat()) {
      types.push_back(storageType(t));
      counts.push_back(1);
    } else {
      return op.emitOpError("unsupported result type ") << t;
    }
  }
  auto newIf =
      scf::IfOp::create(b, op.getLoc(), types, values[op.getCondition()][0],
                        /*withElseRegion=*/true);
  for (auto [oldRegion, newRegion] :
       {std::pair<Region *, Region *>{&op.getThenRegion(),
                                      &newIf.getThenRegion()},
        {&op.getElseRegion(), &newIf.getElseRegion()}}) {
    Block *block = &newRegion->front();
    if (!block->empty())
      block->getTerminator()->erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    if (oldRegion->empty()) {
      scf::YieldOp::create(b, op.getLoc());
      continue;
    }
    if (failed(lowerBlock(oldRegion->front())))
      return failure();
  }
  unsigned pos = 0;
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    Regs regs;
    for (unsigned k = 0; k < counts[i]; ++k)
      regs.push_back(newIf.getResult(pos++));
    values[res] = regs;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise arith and math
//===----------------------------------------------------------------------===//

FailureOr<Value> KernelLowering::lowerMath(Operation *op, ValueRange operands,
                                           Type resultType) {
  if (!isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::RsqrtOp,
           math::TanhOp>(op))
    return Value();
  Type f32 = b.getF32Type();
  if (!isa<FloatType>(resultType) ||
      cast<FloatType>(resultType).getWidth() > 32)
    return op->emitOpError("only f16/bf16/f32 are supported on GPUs");
  Value x = operands[0];
  if (resultType != f32)
    x = arith::ExtFOp::create(b, loc, f32, x);
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(float(v)));
  };
  Value r;
  if (isa<math::Exp2Op>(op)) {
    r = tl.exp2(b, loc, x);
  } else if (isa<math::ExpOp>(op)) {
    r = tl.exp2(b, loc, arith::MulFOp::create(b, loc, x, cst(M_LOG2E)));
  } else if (isa<math::Log2Op>(op)) {
    r = tl.log2(b, loc, x);
  } else if (isa<math::LogOp>(op)) {
    r = arith::MulFOp::create(b, loc, tl.log2(b, loc, x), cst(M_LN2));
  } else if (isa<math::RsqrtOp>(op)) {
    r = tl.rsqrt(b, loc, x);
  } else {
    // tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1)), exact at 0 and
    // saturating to +-1 for large |x|.
    Value ax = math::AbsFOp::create(b, loc, x);
    Value e =
        tl.exp2(b, loc, arith::MulFOp::create(b, loc, ax, cst(2.0 * M_LOG2E)));
    Value frac = arith::DivFOp::create(
        b, loc, cst(2.0), arith::AddFOp::create(b, loc, e, cst(1.0)));
    Value mag = arith::SubFOp::create(b, loc, cst(1.0), frac);
    r = math::CopySignOp::create(b, loc, mag, x);
  }
  if (resultType != f32)
    r = arith::TruncFOp::create(b, loc, resultType, r);
  return r;
}

/// Marks a float multiplication, addition or subtraction of the program as
/// contractible: the backend may fuse a product feeding a sum into one fma
/// (one rounding), as nvcc and hipcc do by default (HFMA2 for f16 pairs,
/// one instruction instead of HMUL2 + HADD2). Only the program's own
/// arithmetic: the compiler's internal sequences (casts) keep their
/// roundings. The host, the reference, does not contract.
static void allowContraction(Operation *op) {
  if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
    return;
  auto fm = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = fm.getFastMathFlagsAttr().getValue();
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::contract));
}

/// f16/bf16 additions, subtractions and multiplications: lowered two slots
/// at a time (lowerHalfPairs).
static bool isPairedHalfOp(Operation *op, ArrayRef<Type> resultTypes) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op) &&
         resultTypes.size() == 1 &&
         (resultTypes[0].isF16() || resultTypes[0].isBF16());
}

/// One <2 x half> operation per slot pair (2m, 2m + 1) (HADD2 / HMUL2 /
/// HFMA2 on NVIDIA, v_pk_* on AMD): the pairs matrix operands and the
/// word-wise conversions use, so that LLVM neither splits them nor pairs
/// other slots (which costs a PRMT per register on the way to an mma).
Regs KernelLowering::lowerHalfPairs(Operation *op, int64_t count, Type elem) {
  auto vecType = VectorType::get({2}, elem);
  auto pairOf = [&](Value v, int64_t l) -> Value {
    const Regs &regs = values[v];
    Value lo = regs.size() == 1 ? regs[0] : regs[l];
    Value hi = regs.size() == 1 ? regs[0] : regs[l + 1];
    Value vec = LLVM::PoisonOp::create(b, loc, vecType);
    vec = LLVM::InsertElementOp::create(b, loc, vec, lo, i32(0));
    return LLVM::InsertElementOp::create(b, loc, vec, hi, i32(1));
  };
  Regs out;
  for (int64_t l = 0; l < count; l += 2) {
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(pairOf(v, l));
    OperationState state(loc, op->getName().getStringRef(), operands,
                         TypeRange{vecType}, op->getAttrs());
    Operation *pair = b.create(state);
    allowContraction(pair);
    out.push_back(
        LLVM::ExtractElementOp::create(b, loc, pair->getResult(0), i32(0)));
    out.push_back(
        LLVM::ExtractElementOp::create(b, loc, pair->getResult(0), i32(1)));
  }
  return out;
}

LogicalResult KernelLowering::lowerElementwise(Operation *op) {
  // Constants: splats of tiles become one scalar per register.
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    Type type = cst.getType();
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
      if (!dense)
        return op->emitOpError("only splat tile constants are supported");
      FailureOr<DistributedLayout> layout = layoutOf(op, type);
      if (failed(layout))
        return failure();
      Type elem = tensor.getElementType();
      if (storageType(elem) != elem)
        return op->emitOpError("small-float constants are not supported");
      Value scalar = arith::ConstantOp::create(
          b, loc, elem, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      values[cst.getResult()] = Regs(layout->localSize(), scalar);
      return success();
    }
    values[cst.getResult()] = {
        arith::ConstantOp::create(b, loc, type, cst.getValue())};
    return success();
  }

  int64_t count = 1;
  SmallVector<Type> resultTypes;
  for (Type t : op->getResultTypes()) {
    Type elem = t;
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      FailureOr<DistributedLayout> layout = layoutOf(op, t);
      if (failed(layout))
        return failure();
      count = layout->localSize();
      elem = tensor.getElementType();
    }
    if (storageType(elem) != elem)
      return op->emitOpError("arithmetic on small floats (")
             << elem << ") is not supported; cast to f16/f32 first";
    resultTypes.push_back(elem);
  }
  // Scalar operands (arith.select's condition) are used by every slot.
  for (Value v : op->getOperands())
    if (values[v].size() != size_t(count) &&
        (isa<RankedTensorType>(v.getType()) || values[v].size() != 1))
      return op->emitOpError("operands must have the same layout as the "
                             "result (insert tile.convert_layout)");
  SmallVector<Regs> results(op->getNumResults());
  if (count % 2 == 0 && isPairedHalfOp(op, resultTypes)) {
    results[0] = lowerHalfPairs(op, count, resultTypes[0]);
    values[op->getResult(0)] = results[0];
    return success();
  }
  for (int64_t l = 0; l < count; ++l) {
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(values[v].size() == 1 ? values[v][0] : values[v][l]);
    if (op->getNumResults() == 1) {
      FailureOr<Value> special = lowerMath(op, operands, resultTypes[0]);
      if (failed(special))
        return failure();
      if (*special) {
        results[0].push_back(*special);
        continue;
      }
    }
    OperationState state(loc, op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Operation *clone = b.create(state);
    allowContraction(clone);
    for (unsigned r = 0; r < clone->getNumResults(); ++r)
      results[r].push_back(clone->getResult(r));
  }
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    values[op->getResult(r)] = results[r];
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops: registers are renamed when every thread keeps its elements,
// otherwise the tile goes through shared memory.
//===----------------------------------------------------------------------===//

/// Row-major strides of a shape.
static SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

LogicalResult KernelLowering::lowerShapeOp(Operation *op) {
  Value src = op->getOperand(0);
  Value res = op->getResult(0);
  auto srcType = cast<RankedTensorType>(src.getType());
  auto resType = cast<RankedTensorType>(res.getType());
  FailureOr<DistributedLayout> srcLayout = layoutOf(op, srcType);
  FailureOr<DistributedLayout> dstLayout = layoutOf(op, resType);
  if (failed(srcLayout) || failed(dstLayout))
    return failure();
  ArrayRef<int64_t> srcShape = srcType.getShape();
  ArrayRef<int64_t> dstShape = resType.getShape();
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(srcShape);

  // dst coordinate -> src coordinate, and the dst-shaped view of the
  // row-major src buffer used by the shared-memory fallback.
  std::function<SmallVector<int64_t, 4>(ArrayRef<int64_t>)> coordMap;
  SmallVector<int64_t, 4> viewStrides;
  if (isa<mlir::tile::BroadcastOp>(op)) {
    coordMap = [=](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.begin(), c.end());
      for (unsigned d = 0; d < s.size(); ++d)
        if (srcShape[d] == 1)
          s[d] = 0;
      return s;
    };
    for (unsigned d = 0; d < dstShape.size(); ++d)
      viewStrides.push_back(srcShape[d] == 1 ? 0 : srcStrides[d]);
  } else if (auto trans = dyn_cast<mlir::tile::TransOp>(op)) {
    SmallVector<int32_t> perm = trans.getPermutation();
    coordMap = [=](ArrayRef<int64_t> c) {
      SmallVector<int64_t, 4> s(c.size());
      for (unsigned i = 0; i < c.size(); ++i)
        s[perm[i]] = c[i];
      return s;
    };
    for (unsigned i = 0; i < dstShape.size(); ++i)
      viewStrides.push_back(srcStrides[perm[i]]);
  } else {
    // expand_dims, reshape and convert_layout keep the row-major order.
    SmallVector<int64_t, 4> dstStrides = rowMajorStrides(dstShape);
    coordMap = [=](ArrayRef<int64_t> c) {
      int64_t linear = 0;
      for (unsigned d = 0; d < c.size(); ++d)
        linear += c[d] * dstStrides[d];
      SmallVector<int64_t, 4> s(srcShape.size());
      for (unsigned d = 0; d < srcShape.size(); ++d)
        s[d] = srcShape.empty() ? 0 : (linear / srcStrides[d]) % srcShape[d];
      return s;
    };
    viewStrides = dstStrides;
  }

  const Regs &in = values[src];
  if (std::optional<SmallVector<int64_t>> remap =
          staticRemap(*srcLayout, *dstLayout, coordMap)) {
    Regs out;
    for (int64_t s : *remap)
      out.push_back(in[s]);
    values[res] = out;
    return success();
  }
  if (isa<mlir::tile::ConvertLayoutOp>(op)) {
    FailureOr<Regs> out =
        convertLayout(op, in, *srcLayout, *dstLayout, srcType.getElementType());
    if (failed(out))
      return failure();
    values[res] = *out;
    return success();
  }
  // Shared-memory round trip: store row-major, read through a strided view.
  Type elem = srcType.getElementType();
  int64_t bits = mlir::tile::getElementBitWidth(elem);
  int64_t bytes = (srcType.getNumElements() * bits + 7) / 8;
  Value base = scratch(op, bytes);
  SharedLayout store = SharedLayout::rowMajor(srcShape);
  auto view = SharedLayout::get(dstShape, viewStrides);
  if (!view)
    return op->emitOpError(llvm::toString(view.takeError()));
  if (failed(storeShared(op, base, store, Value(), 0, *srcLayout, elem, in,
                         /*onlyFirstHolder=*/true)))
    return failure();
  tl.barrier(b, loc);
  FailureOr<Regs> out =
      loadShared(op, base, *view, Value(), 0, *dstLayout, elem);
  if (failed(out))
    return failure();
  tl.barrier(b, loc);
  values[res] = *out;
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerOp(Operation *op) {
  loc = op->getLoc();
  using namespace mlir::tile;
  if (isFusedOperandOp(op))
    return deferFusedOperandOp(op);
  if (loweredEarly.contains(op))
    return success();
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return lowerElementwise(op);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(ifOp);
  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    values[pid] = {tl.programId(b, loc, unsigned(pid.getAxis()))};
    return success();
  }
  if (auto np = dyn_cast<NumProgramsOp>(op)) {
    values[np] = {tl.numPrograms(b, loc, unsigned(np.getAxis()))};
    return success();
  }
  if (auto view = dyn_cast<ViewOp>(op)) {
    ViewValue v;
    v.ptr = values[view.getPtr()][0];
    auto type = cast<ViewType>(view.getType());
    v.elementType = type.getElementType();
    unsigned dyn = 0;
    for (int64_t d : type.getShape())
      v.dims.push_back(
          ShapedType::isDynamic(d) ? values[view.getDims()[dyn++]][0] : i32(d));
    if (!view.getStrides().empty()) {
      v.contiguous = false;
      for (Value s : view.getStrides())
        v.strides.push_back(
            arith::ExtSIOp::create(b, loc, b.getI64Type(), values[s][0]));
    } else {
      // Row-major: stride[d] = prod(dims[d+1:]).
      v.strides.assign(type.getRank(), Value());
      Value acc = i64(1);
      for (int d = int(type.getRank()) - 1; d >= 0; --d) {
        v.strides[d] = acc;
        if (d > 0)
          acc = arith::MulIOp::create(
              b, loc, acc,
              arith::ExtUIOp::create(b, loc, b.getI64Type(), v.dims[d]));
      }
    }
    views[view.getResult()] = v;
    return success();
  }
  if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
    auto offset = alloc->getAttrOfType<IntegerAttr>("tile.offset");
    if (!offset)
      return op->emitOpError(
          "needs a tile.offset attribute; run tile-allocate-shared first");
    auto type = cast<SharedType>(alloc.getType());
    SharedValue s;
    s.type = type;
    if (auto enc = dyn_cast_or_null<SharedLayoutAttr>(type.getEncoding()))
      s.layout = enc.getLayout();
    else
      s.layout = SharedLayout::rowMajor(type.getShape());
    s.ptr = gep(sharedBase(), i32(offset.getInt()));
    shareds[alloc.getResult()] = s;
    return success();
  }
  if (isa<BarrierOp>(op)) {
    tl.barrier(b, loc);
    return success();
  }
  if (auto wait = dyn_cast<WaitOp>(op)) {
    tl.asyncWait(b, loc, wait.getPending());
    return success();
  }
  if (auto splat = dyn_cast<SplatOp>(op)) {
    FailureOr<DistributedLayout> layout = layoutOf(op, splat.getType());
    if (failed(layout))
      return failure();
    values[splat.getResult()] =
        Regs(layout->localSize(), values[splat.getSrc()][0]);
    return success();
  }
  if (auto iota = dyn_cast<IotaOp>(op)) {
    FailureOr<DistributedLayout> layout = layoutOf(op, iota.getType());
    if (failed(layout))
      return failure();
    Type elem = cast<RankedTensorType>(iota.getType()).getElementType();
    if (!elem.isSignlessInteger())
      return op->emitOpError("iota needs an integer element type");
    Value base = spatialCoords(*layout)[0];
    if (elem.getIntOrFloatBitWidth() < 32)
      base = arith::TruncIOp::create(b, loc, elem, base);
    else if (elem.getIntOrFloatBitWidth() > 32)
      base = arith::ExtUIOp::create(b, loc, elem, base);
    Regs regs;
    for (int64_t l = 0; l < layout->localSize(); ++l)
      regs.push_back(arith::AddIOp::create(
          b, loc, base, constant(elem, layout->apply(0, l)[0])));
    values[iota.getResult()] = regs;
    return success();
  }
  if (isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, ConvertLayoutOp>(op))
    return lowerShapeOp(op);
  if (auto load = dyn_cast<LoadOp>(op))
    return lowerLoad(load);
  if (auto store = dyn_cast<StoreOp>(op))
    return lowerStore(store);
  if (auto add = dyn_cast<AtomicAddOp>(op))
    return lowerAtomicAdd(add);
  if (auto sl = dyn_cast<SharedLoadOp>(op))
    return lowerSharedLoad(sl);
  if (auto ss = dyn_cast<SharedStoreOp>(op))
    return lowerSharedStore(ss);
  if (auto copy = dyn_cast<CopyAsyncOp>(op))
    return lowerCopyAsync(copy);
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return lowerReduce(reduce);
  if (auto dot = dyn_cast<DotOp>(op))
    return lowerDot(dot);
  if (auto cast = dyn_cast<CastOp>(op))
    return lowerCast(cast);
  if (auto bitcast = dyn_cast<BitcastOp>(op))
    return lowerBitcast(bitcast);
  return op->emitOpError("cannot be lowered to GPU code");
}

} // namespace tile::gpu
