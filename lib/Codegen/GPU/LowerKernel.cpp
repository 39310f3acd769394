//===- LowerKernel.cpp - Rebuild a tile kernel as per-thread code ---------===//
//
// Part of tilec. The driver of the generic GPU lowering: the helpers every
// op lowering uses, the 1:N type conversion and the binding of converted
// operands and results (KernelLowering.h), the patterns of the kernel
// function, structured control flow and program coordinates, and the
// dialect conversion that runs all patterns. The other op families have a
// file each: LowerElementwise, LowerShape, LowerMemory, LowerCopy,
// LowerAtomic, LowerReduce, LowerDot (with LowerSharedOperand), LowerCast.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Codegen/GPU/GPULowering.h"
#include "tile/Dialect/Tile/IR/MmaInFlight.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::tile::layout::DistributedLayout;
using ::tile::layout::SharedLayout;

namespace tile::gpu {

TargetLowering::~TargetLowering() = default;

bool TargetLowering::hasMatrixLoad(unsigned, bool) const { return false; }

void TargetLowering::eraseOp(Operation *op) {
  if (rewriter)
    rewriter->eraseOp(op);
  else
    op->erase();
}

Value TargetLowering::andXor(OpBuilder &b, Location loc, Value a, int64_t mask,
                             int64_t c) {
  Type i32 = b.getI32Type();
  Value t = arith::AndIOp::create(
      b, loc, a, arith::ConstantIntOp::create(b, loc, i32, mask));
  return arith::XOrIOp::create(b, loc, t,
                               arith::ConstantIntOp::create(b, loc, i32, c));
}

Value TargetLowering::bitSelect(OpBuilder &b, Location loc, Value a,
                                Value bValue, int64_t mask) {
  Type i32 = b.getI32Type();
  Value keep = arith::AndIOp::create(
      b, loc, a, arith::ConstantIntOp::create(b, loc, i32, mask));
  Value other = arith::AndIOp::create(
      b, loc, bValue, arith::ConstantIntOp::create(b, loc, i32, ~mask));
  return arith::OrIOp::create(b, loc, keep, other);
}

Value TargetLowering::permuteBytes(OpBuilder &b, Location loc, Value a,
                                   uint32_t c, uint32_t selector) {
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  uint32_t constBytes = 0;
  Value result;
  for (unsigned k = 0; k < 4; ++k) {
    unsigned from = (selector >> (4 * k)) & 7;
    if (from >= 4) {
      constBytes |= ((c >> (8 * (from - 4))) & 0xFF) << (8 * k);
      continue;
    }
    // Byte `from` of `a` moved to byte k.
    int shift = 8 * (int(k) - int(from));
    Value t = a;
    if (shift > 0)
      t = arith::ShLIOp::create(b, loc, t, cst(shift));
    else if (shift < 0)
      t = arith::ShRUIOp::create(b, loc, t, cst(-shift));
    t = arith::AndIOp::create(b, loc, t, cst(int64_t(0xFFu << (8 * k))));
    result = result ? arith::OrIOp::create(b, loc, result, t).getResult() : t;
  }
  if (!result)
    return cst(constBytes);
  if (constBytes)
    result = arith::OrIOp::create(b, loc, result, cst(constBytes));
  return result;
}

void TargetLowering::atomicAddGlobal(OpBuilder &b, Location loc, Value ptr,
                                     Value value) {
  bool isFloat = isa<mlir::FloatType>(value.getType());
  LLVM::AtomicRMWOp::create(
      b, loc, isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add, ptr,
      value, LLVM::AtomicOrdering::monotonic, /*syncscope=*/StringRef(),
      value.getType().getIntOrFloatBitWidth() / 8);
}

bool TargetLowering::hasAtomicAddPair(Type) const { return false; }
void TargetLowering::atomicAddGlobalPair(OpBuilder &, Location, Value, Value,
                                         Value) {
  llvm_unreachable("atomicAddGlobalPair without hasAtomicAddPair");
}

void TargetLowering::prefetchL2(OpBuilder &, Location, Value) {
  llvm_unreachable("prefetchL2 without hasL2Prefetch");
}

void TargetLowering::waitForPrecedingGrids(OpBuilder &, Location) {
  llvm_unreachable("waitForPrecedingGrids without hasDependentLaunch");
}

SmallVector<Value> TargetLowering::loadMatrices(OpBuilder &, Location, Value,
                                                unsigned, bool) {
  return {};
}

bool TargetLowering::hasWarpgroupMma(Type, Type) const { return false; }
SmallVector<Value> TargetLowering::warpgroupMma(OpBuilder &, Location, Type,
                                                unsigned, Value, Value, bool,
                                                bool, ValueRange) {
  return {};
}
SmallVector<Value> TargetLowering::warpgroupMmaRegisterA(OpBuilder &, Location,
                                                         Type, unsigned,
                                                         ValueRange, Value,
                                                         bool, ValueRange) {
  return {};
}
void TargetLowering::warpgroupFence(OpBuilder &, Location) {}
void TargetLowering::warpgroupCommit(OpBuilder &, Location) {}
SmallVector<Value> TargetLowering::warpgroupWait(OpBuilder &, Location,
                                                 unsigned, ValueRange acc) {
  return SmallVector<Value>(acc.begin(), acc.end());
}
void TargetLowering::fenceSharedForWarpgroupMma(OpBuilder &, Location) {}

bool TargetLowering::hasTensorCopy() const { return false; }
void TargetLowering::mbarrierInit(OpBuilder &, Location, Value, unsigned) {
  llvm_unreachable("mbarrierInit without hasTensorCopy");
}
void TargetLowering::mbarrierInitFence(OpBuilder &, Location) {
  llvm_unreachable("mbarrierInitFence without hasTensorCopy");
}
void TargetLowering::mbarrierArriveExpectTx(OpBuilder &, Location, Value,
                                            int64_t) {
  llvm_unreachable("mbarrierArriveExpectTx without hasTensorCopy");
}
Value TargetLowering::mbarrierTryWait(OpBuilder &, Location, Value, Value) {
  llvm_unreachable("mbarrierTryWait without hasTensorCopy");
}
void TargetLowering::mbarrierInval(OpBuilder &, Location, Value) {
  llvm_unreachable("mbarrierInval without hasTensorCopy");
}
void TargetLowering::tensorCopy(OpBuilder &, Location, Value, Value, ValueRange,
                                Value) {
  llvm_unreachable("tensorCopy without hasTensorCopy");
}
void TargetLowering::mbarrierArrive(OpBuilder &, Location, Value) {
  llvm_unreachable("mbarrierArrive without hasTensorCopy");
}
void TargetLowering::setMaxRegisters(OpBuilder &, Location, unsigned, bool) {
  llvm_unreachable("setMaxRegisters without hasTensorCopy");
}

WarpRoles WarpRoles::at(Block *block) {
  WarpRoles roles;
  for (Operation *op = block ? block->getParentOp() : nullptr; op;
       op = op->getParentOp()) {
    Region *region = block->getParent();
    block = op->getBlock();
    auto attr = op->getAttrOfType<DenseI32ArrayAttr>(kAttr);
    if (!attr || attr.size() != 2)
      continue;
    bool producer = region->getRegionNumber() == 0;
    roles.threads = unsigned(attr[producer ? 1 : 0]);
    roles.firstThread = producer ? unsigned(attr[0]) : 0;
    return roles;
  }
  return roles;
}

KernelLowering::KernelLowering(TargetLowering &target, ModuleOp module,
                               func::FuncOp kernel)
    : tl(target), module(module), kernel(kernel), b(kernel.getContext()),
      loc(kernel.getLoc()) {
  populateTypeConversion();
  if (auto warps = kernel->getAttrOfType<IntegerAttr>("tile.warps"))
    threads = warps.getInt() * warpSize();
  programsPerSM = TileDialect::occupancyOf(kernel);
  if (auto bytes = kernel->getAttrOfType<IntegerAttr>("tile.shared_bytes"))
    sharedBytes = bytes.getInt();
  sharedBytes = (sharedBytes + 15) / 16 * 16;
}

unsigned KernelLowering::warpSize() const {
  return tl.getTargetInfo().warpSize;
}

Type KernelLowering::storageType(Type elementType) {
  if (tile::isSmallFloatType(elementType))
    return IntegerType::get(elementType.getContext(),
                            tile::getElementBitWidth(elementType));
  return elementType;
}

FailureOr<DistributedLayout> KernelLowering::layoutOf(Operation *op,
                                                      Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError("expected a tile type, got ") << type;
  auto attr = dyn_cast_or_null<tile::LayoutAttr>(tensor.getEncoding());
  if (!attr)
    return op->emitOpError("tile type ")
           << type
           << " has no #tile.layout encoding; run layout inference first";
  DistributedLayout layout = attr.getLayout();
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
// The conversion: types, binding of operands and results
//===----------------------------------------------------------------------===//

void KernelLowering::populateTypeConversion() {
  // Anything else (index, vectors, LLVM types) is already per-thread.
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([](Type t) -> std::optional<Type> {
    if (t.isIntOrFloat() || tile::isSmallFloatType(t))
      return storageType(t);
    return std::nullopt;
  });
  converter.addConversion([this](tile::PtrType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext(),
                                      tl.getGlobalAddressSpace());
  });
  // Views and shared buffers: no values (their lowered form is kept by the
  // KernelLowering, see lookupView / lookupShared).
  converter.addConversion(
      [](tile::ViewType, SmallVectorImpl<Type> &) { return success(); });
  converter.addConversion(
      [](tile::SharedType, SmallVectorImpl<Type> &) { return success(); });
  // A tile: the registers of its layout.
  converter.addConversion([](RankedTensorType t,
                             SmallVectorImpl<Type> &out) -> LogicalResult {
    auto attr = dyn_cast_or_null<tile::LayoutAttr>(t.getEncoding());
    if (!attr)
      return failure();
    out.append(attr.getLayout().localSize(), storageType(t.getElementType()));
    return success();
  });
}

void KernelLowering::enterFunction(Block *entry,
                                   ConversionPatternRewriter &rewriter) {
  entryBlock = entry;
  b.setListener(rewriter.getListener());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  tid = tl.threadId(b, loc);
}

void KernelLowering::mapConverted(ValueRange old, ValueRange converted) {
  unsigned pos = 0;
  for (Value v : old) {
    SmallVector<Type> types;
    (void)converter.convertType(v.getType(), types);
    values[v] =
        Regs(converted.begin() + pos, converted.begin() + pos + types.size());
    pos += types.size();
  }
}

LogicalResult KernelLowering::lowerWith(Operation *op,
                                        ArrayRef<ValueRange> operands,
                                        ConversionPatternRewriter &rewriter,
                                        function_ref<LogicalResult()> lower) {
  loc = op->getLoc();
  tl.setRewriter(&rewriter);
  b.setListener(rewriter.getListener());
  b.setInsertionPoint(rewriter.getInsertionBlock(),
                      rewriter.getInsertionPoint());
  for (auto [v, regs] : llvm::zip(op->getOperands(), operands))
    values[v] = Regs(regs.begin(), regs.end());
  if (isFusedOperandOp(op)) {
    // The dot reads the operand from shared memory itself; no registers.
    if (failed(deferFusedOperandOp(op))) {
      errorReported = true;
      return failure();
    }
    rewriter.replaceOpWithMultiple(
        op, SmallVector<SmallVector<Value>>(op->getNumResults()));
    return success();
  }
  if (!loweredEarly.contains(op) && failed(lower())) {
    errorReported = true;
    return failure();
  }
  return finishOp(op, rewriter);
}

LogicalResult KernelLowering::finishOp(Operation *op,
                                       ConversionPatternRewriter &rewriter) {
  if (op->getNumResults() == 0) {
    rewriter.eraseOp(op);
    return success();
  }
  SmallVector<SmallVector<Value>> results;
  for (Value r : op->getResults()) {
    if (isa<tile::ViewType, tile::SharedType>(r.getType())) {
      results.emplace_back();
      continue;
    }
    auto it = values.find(r);
    if (it == values.end()) {
      errorReported = true;
      return op->emitOpError("internal error: the GPU lowering of this op "
                             "gave its result no registers");
    }
    results.emplace_back(it->second.begin(), it->second.end());
  }
  rewriter.replaceOpWithMultiple(op, std::move(results));
  return success();
}

//===----------------------------------------------------------------------===//
// The kernel function and structured control flow
//===----------------------------------------------------------------------===//

namespace {

/// Flattens 1:N converted operands.
SmallVector<Value> flatten(ArrayRef<ValueRange> ranges) {
  SmallVector<Value> out;
  for (ValueRange r : ranges)
    llvm::append_range(out, r);
  return out;
}

/// Replaces the results of `op` by the flattened results of `newOp`, in
/// groups of their converted types, and maps them in `kl` (a dot's
/// epilogue reads values that are not its operands).
void replaceFlattened(KernelLowering &kl, Operation *op, ValueRange results,
                      ConversionPatternRewriter &rewriter) {
  kl.mapConverted(op->getResults(), results);
  SmallVector<SmallVector<Value>> groups;
  for (Value r : op->getResults()) {
    const Regs &regs = kl.lookup(r);
    groups.emplace_back(regs.begin(), regs.end());
  }
  rewriter.replaceOpWithMultiple(op, std::move(groups));
}

/// The kernel becomes a plain function of converted parameters (pointers,
/// scalars) that keeps only its name and dynamic shared memory size.
class KernelFunctionLowering : public OpConversionPattern<func::FuncOp> {
public:
  KernelFunctionLowering(KernelLowering &kl)
      : OpConversionPattern(kl.getTypeConverter(), kl.getContext()), kl(kl) {}

  LogicalResult
  matchAndRewrite(func::FuncOp fn, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!fn->hasAttr("tile.kernel"))
      return failure();
    const TypeConverter &tc = *getTypeConverter();
    TypeConverter::SignatureConversion signature(fn.getNumArguments());
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes())) {
      SmallVector<Type> converted;
      if (failed(tc.convertType(t, converted)) || converted.size() != 1)
        return fn.emitOpError("unsupported kernel parameter type ") << t;
      signature.addInputs(i, converted);
    }
    // The tensor maps of TMA copies (tile.tensor_maps) follow the
    // parameters: 128-byte parameters passed by value, whose generic address
    // the copies use (markKernel makes them __grid_constant__).
    auto maps = fn->getAttrOfType<ArrayAttr>(TileDialect::kTensorMapsAttr);
    unsigned numMaps = maps ? maps.size() : 0;
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    SmallVector<Type> types(signature.getConvertedTypes());
    types.append(numMaps, ptr);
    auto newFn = func::FuncOp::create(rewriter, fn.getLoc(), fn.getSymName(),
                                      rewriter.getFunctionType(types, {}));
    rewriter.inlineRegionBefore(fn.getBody(), newFn.getBody(), newFn.end());
    SmallVector<Value> oldArgs(newFn.getBody().front().getArguments());
    Block *entry = rewriter.applySignatureConversion(&newFn.getBody().front(),
                                                     signature, &tc);
    kl.mapConverted(oldArgs, entry->getArguments());
    if (numMaps) {
      newFn->setAttr(TileDialect::kTensorMapsAttr, maps);
      auto byval = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 128);
      SmallVector<Value> mapArgs;
      for (unsigned i = 0; i < numMaps; ++i) {
        unsigned arg = entry->getNumArguments();
        mapArgs.push_back(entry->addArgument(ptr, fn.getLoc()));
        newFn.setArgAttr(arg, LLVM::LLVMDialect::getByValAttrName(),
                         TypeAttr::get(byval));
        newFn.setArgAttr(arg, LLVM::LLVMDialect::getAlignAttrName(),
                         rewriter.getI64IntegerAttr(64));
      }
      kl.setTensorMaps(mapArgs);
    }
    kl.enterFunction(entry, rewriter);
    rewriter.eraseOp(fn);
    return success();
  }

private:
  KernelLowering &kl;
};

/// scf.for with flattened loop-carried registers.
class ForLowering : public OpConversionPattern<scf::ForOp> {
public:
  ForLowering(KernelLowering &kl)
      : OpConversionPattern(kl.getTypeConverter(), kl.getContext()), kl(kl) {}

  LogicalResult
  matchAndRewrite(scf::ForOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &tc = *getTypeConverter();
    Block *body = op.getBody();
    SmallVector<bool> inFlight = mmaGroupsInFlight(body);
    TypeConverter::SignatureConversion signature(body->getNumArguments());
    if (failed(tc.convertSignatureArgs(body->getArgumentTypes(), signature)))
      return op.emitOpError("loop-carried value of unsupported type");
    SmallVector<Value> operands = {adaptor.getLowerBound()[0],
                                   adaptor.getUpperBound()[0],
                                   adaptor.getStep()[0]};
    llvm::append_range(operands, flatten(adaptor.getInitArgs()));
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(ArrayRef<Type>(signature.getConvertedTypes()).drop_front(1));
    state.addAttributes(op->getAttrs());
    state.addRegion();
    Operation *newFor = rewriter.create(state);
    rewriter.inlineRegionBefore(op.getRegion(), newFor->getRegion(0),
                                newFor->getRegion(0).end());
    SmallVector<Value> oldArgs(body->getArguments());
    Block *newBody = rewriter.applySignatureConversion(
        &newFor->getRegion(0).front(), signature, &tc);
    kl.mapConverted(oldArgs, newBody->getArguments());
    SmallVector<Value> results(newFor->getResults());
    // Accumulators a dot left groups of asynchronous MMAs in flight on
    // (tile.mma_in_flight): nothing reads them before the last group is
    // retired, right after the loop.
    rewriter.setInsertionPointAfter(newFor);
    size_t at = 0;
    for (auto [r, pending] : llvm::zip_equal(op.getResults(), inFlight)) {
      SmallVector<Type> types;
      if (failed(tc.convertType(r.getType(), types)))
        return op.emitOpError("loop result of unsupported type");
      if (pending) {
        SmallVector<Value> done = kl.target().warpgroupWait(
            rewriter, op.getLoc(), 0,
            ArrayRef<Value>(results).slice(at, types.size()));
        llvm::copy(done, results.begin() + at);
      }
      at += types.size();
    }
    replaceFlattened(kl, op, results, rewriter);
    return success();
  }

private:
  /// Per loop result: whether the loop body \p body yields it from a
  /// tile.dot marked tile.mma_in_flight (tile-pipeline, MmaInFlight.h).
  static SmallVector<bool> mmaGroupsInFlight(Block *body) {
    SmallVector<bool> out;
    for (Value v : body->getTerminator()->getOperands()) {
      auto dot = v.getDefiningOp<tile::DotOp>();
      auto attr = dot ? dot->getAttrOfType<IntegerAttr>(tile::kMmaInFlightAttr)
                      : IntegerAttr();
      out.push_back(attr && attr.getInt() > 0);
    }
    return out;
  }

  KernelLowering &kl;
};

/// scf.if with flattened result registers.
class IfLowering : public OpConversionPattern<scf::IfOp> {
public:
  IfLowering(KernelLowering &kl)
      : OpConversionPattern(kl.getTypeConverter(), kl.getContext()), kl(kl) {}

  LogicalResult
  matchAndRewrite(scf::IfOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return op.emitOpError("result of unsupported type");
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(adaptor.getCondition()[0]);
    state.addTypes(types);
    state.addAttributes(op->getAttrs());
    state.addRegion();
    state.addRegion();
    Operation *newIf = rewriter.create(state);
    for (unsigned r = 0; r < 2; ++r)
      rewriter.inlineRegionBefore(op->getRegion(r), newIf->getRegion(r),
                                  newIf->getRegion(r).end());
    replaceFlattened(kl, op, newIf->getResults(), rewriter);
    return success();
  }

private:
  KernelLowering &kl;
};

/// scf.yield of flattened registers.
class YieldLowering : public OpConversionPattern<scf::YieldOp> {
public:
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(scf::YieldOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op,
                                              flatten(adaptor.getOperands()));
    return success();
  }
};

} // namespace

LogicalResult KernelLowering::lowerProgramId(tile::ProgramIdOp op) {
  values[op] = {tl.programId(b, loc, unsigned(op.getAxis()))};
  return success();
}

LogicalResult KernelLowering::lowerNumPrograms(tile::NumProgramsOp op) {
  values[op] = {tl.numPrograms(b, loc, unsigned(op.getAxis()))};
  return success();
}

void populateKernelPatterns(KernelLowering &kl, RewritePatternSet &patterns) {
  MLIRContext *ctx = kl.getContext();
  const TypeConverter &tc = kl.getTypeConverter();
  patterns.add<KernelFunctionLowering, ForLowering, IfLowering>(kl);
  patterns.add<YieldLowering>(tc, ctx);
  addLowering(patterns, kl, &KernelLowering::lowerProgramId);
  addLowering(patterns, kl, &KernelLowering::lowerNumPrograms);
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
  analyzeOperandFusion();
  warpgroupMmaKernel = mayUseWarpgroupMma();
  if (warpgroupMmaKernel)
    unfencedBarriers = barriersAfterSharedReads();
  // The program's scalar arithmetic stays as it is (legal), contractible
  // like its tile arithmetic.
  // (Tile ops are marked as they are lowered: a dot's epilogue add, which
  // the dot lowers, is not.)
  kernel.walk([](Operation *op) {
    if (llvm::none_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      allowContraction(op);
  });

  MLIRContext *ctx = getContext();
  RewritePatternSet patterns(ctx);
  populateKernelPatterns(*this, patterns);
  populateElementwisePatterns(*this, patterns);
  populateShapePatterns(*this, patterns);
  populateMemoryPatterns(*this, patterns);
  populateCopyPatterns(*this, patterns);
  populateTensorCopyPatterns(*this, patterns);
  populateAtomicPatterns(*this, patterns);
  populateReducePatterns(*this, patterns);
  populateDotPatterns(*this, patterns);
  populateCastPatterns(*this, patterns);
  populatePrefetchPatterns(*this, patterns);

  ConversionTarget target(*ctx);
  target.addIllegalDialect<tile::TileDialect>();
  target.addDynamicallyLegalOp<func::FuncOp>(
      [](func::FuncOp fn) { return !fn->hasAttr("tile.kernel"); });
  // Everything else is legal once its types are per-thread ones: arith,
  // math and scf on scalars, and what the lowering creates (LLVM, NVVM,
  // ROCDL, vectors).
  target.markUnknownOpDynamicallyLegal(
      [this](Operation *op) { return converter.isLegal(op); });

  StringAttr name = kernel.getSymNameAttr();
  Location kernelLoc = kernel.getLoc();
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  LogicalResult result = success();
  {
    // A pattern that failed reported why; the conversion's own "failed to
    // legalize" adds nothing then.
    ScopedDiagnosticHandler handler(ctx, [this](Diagnostic &diag) {
      return success(errorReported &&
                     StringRef(diag.str()).starts_with("failed to legalize"));
    });
    result = applyPartialConversion(kernel.getOperation(), target,
                                    std::move(patterns), config);
  }
  b.setListener(nullptr);
  tl.setRewriter(nullptr);
  if (failed(result))
    return failure();
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn)
    return mlir::emitError(kernelLoc,
                           "internal error: the GPU lowering of kernel '")
           << name.getValue() << "' left no function";
  fn->setAttr(kDynamicSharedBytesAttr, b.getI64IntegerAttr(getSharedBytes()));
  return success();
}

} // namespace tile::gpu
