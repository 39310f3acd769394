//===- TileDialect.cpp - The tile dialect, its types and attributes -------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/MmaInFlight.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

unsigned tile::getElementBitWidth(Type type) {
  if (auto intTy = dyn_cast<IntegerType>(type))
    return intTy.getWidth();
  if (auto floatTy = dyn_cast<mlir::FloatType>(type))
    return floatTy.getWidth();
  if (auto smallTy = dyn_cast<tile::SmallFloatType>(type))
    return smallTy.getWidth();
  return 0;
}

bool tile::isTileElementType(Type type) {
  if (auto intTy = dyn_cast<IntegerType>(type))
    return intTy.isSignless() && intTy.getWidth() >= 1 &&
           intTy.getWidth() <= 64;
  if (isa<tile::SmallFloatType>(type))
    return true;
  if (auto floatTy = dyn_cast<mlir::FloatType>(type))
    return floatTy.getWidth() <= 32;
  return false;
}

bool tile::isSmallFloatType(Type type) {
  if (isa<tile::SmallFloatType>(type))
    return true;
  auto floatTy = dyn_cast<mlir::FloatType>(type);
  return floatTy && floatTy.getWidth() < 16;
}

//===----------------------------------------------------------------------===//
// !tile.float<eXmY>
//===----------------------------------------------------------------------===//

Type tile::SmallFloatType::parse(AsmParser &parser) {
  // The spelling is one keyword: e<digits>m<digits>.
  SMLoc loc = parser.getCurrentLocation();
  StringRef spelling;
  if (parser.parseLess() || parser.parseKeyword(&spelling))
    return {};
  unsigned exponent = 0, mantissa = 0;
  auto [ePart, mPart] = spelling.drop_front().split('m');
  if (!spelling.starts_with("e") || ePart.getAsInteger(10, exponent) ||
      mPart.getAsInteger(10, mantissa) || !spelling.contains('m')) {
    parser.emitError(loc, "expected a small-float format 'eXmY' (e.g. e2m2), "
                          "got '")
        << spelling << "'";
    return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<tile::SmallFloatType>(loc, parser.getContext(),
                                                 exponent, mantissa);
}

void tile::SmallFloatType::print(AsmPrinter &printer) const {
  printer << "<e" << getExponentBits() << "m" << getMantissaBits() << ">";
}

LogicalResult
tile::SmallFloatType::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned exponentBits, unsigned mantissaBits) {
  if (exponentBits < 1)
    return emitError() << "!tile.float needs at least one exponent bit, got e"
                       << exponentBits << "m" << mantissaBits;
  if (1 + exponentBits + mantissaBits > 8)
    return emitError() << "!tile.float<e" << exponentBits << "m" << mantissaBits
                       << "> is " << 1 + exponentBits + mantissaBits
                       << " bits wide; small floats have at most 8 bits";
  static constexpr struct {
    unsigned e, m;
    const char *builtin;
  } kBuiltins[] = {{2, 1, "f4E2M1FN"}, {2, 3, "f6E2M3FN"}, {3, 2, "f6E3M2FN"}};
  for (const auto &b : kBuiltins)
    if (b.e == exponentBits && b.m == mantissaBits)
      return emitError() << "!tile.float<e" << exponentBits << "m"
                         << mantissaBits << "> is the builtin type "
                         << b.builtin << "; use that instead";
  return success();
}

//===----------------------------------------------------------------------===//
// Shaped tile types: parsing helpers
//===----------------------------------------------------------------------===//

/// Parses `<` dims `x` element-type; the caller parses the rest and `>`.
static LogicalResult parseShapeAndElement(AsmParser &parser,
                                          SmallVectorImpl<int64_t> &shape,
                                          Type &elementType,
                                          bool allowDynamic) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, allowDynamic, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                                 Type elementType) {
  printer << "<";
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << "?";
    else
      printer << dim;
    printer << "x";
  }
  printer << elementType;
}

static LogicalResult
verifyTileElementType(function_ref<InFlightDiagnostic()> emitError,
                      Type elementType, StringRef what) {
  if (!isTileElementType(elementType))
    return emitError() << what << " element type must be a signless integer, "
                       << "a float of at most 32 bits or !tile.float, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// !tile.view
//===----------------------------------------------------------------------===//

Type ViewType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (failed(parseShapeAndElement(parser, shape, elementType,
                                  /*allowDynamic=*/true)) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(loc, parser.getContext(), shape,
                                     elementType);
}

void ViewType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ">";
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "!tile.view must have rank 1 or more";
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim < 0)
      return emitError() << "!tile.view dimensions must be non-negative or ?";
  return verifyTileElementType(emitError, elementType, "!tile.view");
}

unsigned ViewType::getNumDynamicDims() const {
  return llvm::count_if(getShape(), ShapedType::isDynamic);
}

//===----------------------------------------------------------------------===//
// !tile.shared
//===----------------------------------------------------------------------===//

Type SharedType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (failed(parseShapeAndElement(parser, shape, elementType,
                                  /*allowDynamic=*/false)))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(encoding))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SharedType>(loc, parser.getContext(), shape,
                                       elementType, encoding);
}

void SharedType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  if (getEncoding())
    printer << ", " << getEncoding();
  printer << ">";
}

LogicalResult SharedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 Attribute encoding) {
  if (shape.empty())
    return emitError() << "!tile.shared must have rank 1 or more";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "!tile.shared dimensions must be positive";
  if (encoding) {
    auto layout = dyn_cast<SharedLayoutAttr>(encoding);
    if (!layout)
      return emitError() << "!tile.shared encoding must be a "
                            "#tile.shared_layout, got "
                         << encoding;
    if (layout.getLayout().shape() != shape)
      return emitError() << "shared layout '" << layout.getLayout().str()
                         << "' does not have the buffer's shape";
  }
  return verifyTileElementType(emitError, elementType, "!tile.shared");
}

int64_t SharedType::getNumElements() const {
  int64_t n = 1;
  for (int64_t dim : getShape())
    n *= dim;
  return n;
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

/// Reads the tokens of an attribute body up to the closing `>` (not
/// consumed) back into text, so that the layout libraries parse their own
/// syntax: `local(2,1) * spatial(8,4)`, `swizzle(2,3,3) o (64,32):(32,1)`.
static FailureOr<std::string> parseLayoutText(AsmParser &parser) {
  std::string text;
  int depth = 0;
  auto append = [&](StringRef piece) {
    if (!text.empty() && llvm::isAlnum(text.back()) &&
        (llvm::isAlnum(piece.front()) || piece.front() == '-'))
      text += ' ';
    text += piece;
  };
  while (true) {
    StringRef keyword;
    int64_t number;
    if (depth == 0 && succeeded(parser.parseOptionalGreater()))
      break;
    if (succeeded(parser.parseOptionalKeyword(&keyword))) {
      append(keyword);
    } else if (OptionalParseResult r = parser.parseOptionalInteger(number);
               r.has_value()) {
      if (failed(*r))
        return failure();
      append(std::to_string(number));
    } else if (succeeded(parser.parseOptionalLParen())) {
      append("(");
      ++depth;
    } else if (succeeded(parser.parseOptionalLSquare())) {
      append("[");
      ++depth;
    } else if (depth > 0 && succeeded(parser.parseOptionalRParen())) {
      append(")");
      --depth;
    } else if (depth > 0 && succeeded(parser.parseOptionalRSquare())) {
      append("]");
      --depth;
    } else if (succeeded(parser.parseOptionalComma())) {
      append(",");
    } else if (succeeded(parser.parseOptionalStar())) {
      append(" * ");
    } else if (succeeded(parser.parseOptionalColon())) {
      append(":");
    } else if (succeeded(parser.parseOptionalEqual())) {
      append("=");
    } else {
      return parser.emitError(parser.getCurrentLocation(),
                              "unexpected token in layout '" + text + "'");
    }
  }
  return text;
}

/// Parses `<TEXT>` with the layout library's own parser (Layout::parse) into
/// an attribute of type AttrT; `what` names the layout in errors.
template <typename AttrT, typename Layout>
static Attribute parseLayoutAttr(AsmParser &parser, StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  FailureOr<std::string> text = parseLayoutText(parser);
  if (failed(text))
    return {};
  auto layout = Layout::parse(*text);
  if (!layout) {
    parser.emitError(loc, "invalid ")
        << what << " '" << *text << "': " << llvm::toString(layout.takeError());
    return {};
  }
  return AttrT::get(parser.getContext(), *layout);
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  return parseLayoutAttr<LayoutAttr, ::tile::layout::DistributedLayout>(
      parser, "layout");
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << getLayout().str() << ">";
}

LogicalResult
LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  // getLayout() returns a copy: keep it alive while its shape is read (a
  // rank above 4 keeps the shape on the heap).
  ::tile::layout::DistributedLayout layout = getLayout();
  ArrayRef<int64_t> layoutShape = layout.shape();
  if (layoutShape != shape) {
    InFlightDiagnostic diag = emitError();
    diag << "layout '" << getLayout().str() << "' covers a tile of shape [";
    llvm::interleaveComma(layoutShape, diag);
    diag << "], not [";
    llvm::interleaveComma(shape, diag);
    return diag << "]";
  }
  return success();
}

Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  return parseLayoutAttr<SharedLayoutAttr, ::tile::layout::SharedLayout>(
      parser, "shared layout");
}

void SharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << getLayout().str() << ">";
}

/// In a kernel that knows its thread count, every tile layout must use
/// exactly that many threads.
static LogicalResult verifyThreadCounts(func::FuncOp func, int64_t threads) {
  WalkResult result = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      auto layout =
          tensor ? dyn_cast_or_null<LayoutAttr>(tensor.getEncoding()) : nullptr;
      if (layout && layout.getLayout().numThreads() != threads) {
        op->emitOpError() << "result layout '" << layout.getLayout().str()
                          << "' uses " << layout.getLayout().numThreads()
                          << " threads, but the kernel has " << threads
                          << " (tile.warps x tile.warp_size)";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Discardable attributes: kernels, loops, kernel arguments
//===----------------------------------------------------------------------===//

int64_t TileDialect::occupancyOf(Operation *kernel) {
  auto n = kernel->getAttrOfType<IntegerAttr>(kOccupancyAttr);
  return n && n.getInt() > 1 ? n.getInt() : 1;
}

static bool isStringArray(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto requireKernel = [&]() -> LogicalResult {
    if (!isa<func::FuncOp>(op) || !op->hasAttr(kKernelAttr))
      return op->emitOpError() << "'" << name
                               << "' is only valid on a func.func that has "
                                  "the 'tile.kernel' attribute";
    return success();
  };
  if (name == kKernelAttr) {
    if (!isa<func::FuncOp>(op))
      return op->emitOpError() << "'tile.kernel' is only valid on func.func";
    if (!isa<UnitAttr>(value))
      return op->emitOpError() << "'tile.kernel' must be a unit attribute";
    return success();
  }
  if (name == kWarpsAttr) {
    if (failed(requireKernel()))
      return failure();
    auto warps = dyn_cast<IntegerAttr>(value);
    if (!warps || !warps.getType().isInteger(32) || warps.getInt() < 1 ||
        warps.getInt() > 32)
      return op->emitOpError()
             << "'tile.warps' must be an i32 between 1 and 32, got " << value;
    return success();
  }
  if (name == kWarpSizeAttr) {
    if (failed(requireKernel()))
      return failure();
    auto warpSize = dyn_cast<IntegerAttr>(value);
    if (!warpSize || !warpSize.getType().isInteger(32) ||
        !llvm::is_contained({1, 32, 64}, warpSize.getInt()))
      return op->emitOpError()
             << "'tile.warp_size' must be an i32 of 1, 32 or 64, got " << value;
    auto warps = op->getAttrOfType<IntegerAttr>(kWarpsAttr);
    if (!warps)
      return op->emitOpError() << "'tile.warp_size' needs 'tile.warps'";
    return verifyThreadCounts(cast<func::FuncOp>(op),
                              warps.getInt() * warpSize.getInt());
  }
  if (name == kGridAttr) {
    if (failed(requireKernel()))
      return failure();
    auto grid = dyn_cast<ArrayAttr>(value);
    if (!isStringArray(value) || grid.empty() || grid.size() > 3)
      return op->emitOpError() << "'tile.grid' must be an array of 1 to 3 "
                                  "expression strings, got "
                               << value;
    return success();
  }
  if (name == kConstantsAttr) {
    if (failed(requireKernel()))
      return failure();
    if (!isa<DictionaryAttr>(value))
      return op->emitOpError() << "'tile.constants' must be a dictionary";
    return success();
  }
  if (name == kPipelineAttr) {
    if (!isa<scf::ForOp>(op))
      return op->emitOpError() << "'tile.pipeline' is only valid on scf.for";
    auto stages = dyn_cast<IntegerAttr>(value);
    if (!stages || stages.getInt() < 1 || stages.getInt() > 16)
      return op->emitOpError()
             << "'tile.pipeline' must be a stage count between 1 and 16, got "
             << value;
    return success();
  }
  // Written by tile-pipeline (MmaInFlight.h): groups of asynchronous MMAs
  // the dot may leave in flight across its loop's iterations.
  if (name == kMmaInFlightAttr) {
    auto groups = dyn_cast<IntegerAttr>(value);
    if (!isa<DotOp>(op))
      return op->emitOpError() << "'" << name << "' is only valid on tile.dot";
    if (!groups || !groups.getType().isInteger(64) || groups.getInt() < 0 ||
        groups.getInt() > 1)
      return op->emitOpError()
             << "'" << name << "' must be an i64 of 0 or 1, got " << value;
    return success();
  }
  if (name == kWarpSpecializeAttr) {
    bool pipelinedLoop = isa<scf::ForOp>(op) && op->hasAttr(kPipelineAttr);
    if (!(isa<ModuleOp>(op) || pipelinedLoop) || !isa<UnitAttr>(value))
      return op->emitOpError()
             << "'tile.warp_specialize' must be a unit attribute of the module "
                "or of a loop with 'tile.pipeline'";
    return success();
  }
  // Written by the GPU lowering of tile.warp_specialize on the scf.if it
  // becomes (gpu::WarpRoles): [consumer threads, producer threads].
  if (name == "tile.warp_roles") {
    auto roles = dyn_cast<DenseI32ArrayAttr>(value);
    if (!isa<scf::IfOp>(op) || !roles || roles.size() != 2)
      return op->emitOpError() << "'tile.warp_roles' must be two i32 thread "
                                  "counts on an scf.if, got "
                               << value;
    return success();
  }
  if (name == kPersistentAttr) {
    if (!isa<ModuleOp, FunctionOpInterface, scf::ForOp>(op) ||
        !isa<UnitAttr>(value))
      return op->emitOpError() << "'tile.persistent' must be a unit attribute "
                                  "of the module, a kernel or its loop over "
                                  "the virtual grid";
    return success();
  }
  if (name == kDependentLaunchAttr) {
    if (!isa<ModuleOp>(op) || !isa<UnitAttr>(value))
      return op->emitOpError() << "'tile.dependent_launch' must be a unit "
                                  "attribute of the module";
    return success();
  }
  if (name == kOccupancyAttr) {
    auto n = dyn_cast<IntegerAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !n || n.getInt() < 1)
      return op->emitOpError() << "'tile.occupancy' must be a positive "
                                  "integer on a kernel, got "
                               << value;
    return success();
  }
  if (name == kPersistAttr) {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(value))
      return op->emitOpError()
             << "'tile.persist' must be a unit attribute of a kernel";
    return success();
  }
  if (name == kFallbackOfAttr || name == kFallbackAttr) {
    if (!isa<FunctionOpInterface>(op) || !isa<FlatSymbolRefAttr>(value))
      return op->emitOpError() << "'" << name
                               << "' must be a kernel's symbol on a function, "
                                  "got "
                               << value;
    return success();
  }
  if (name == kProducerWarpsAttr) {
    auto warps = dyn_cast<IntegerAttr>(value);
    if (!isa<FunctionOpInterface>(op) || !warps || warps.getInt() <= 0 ||
        warps.getInt() % 4 != 0)
      return op->emitOpError() << "'tile.producer_warps' must be a positive "
                                  "multiple of 4 on a function, got "
                               << value;
    return success();
  }
  if (name == kTmaAttr) {
    if (!isa<ModuleOp>(op) || !isa<UnitAttr>(value))
      return op->emitOpError()
             << "'tile.tma' must be a unit attribute of the module";
    return success();
  }
  // Written by tile-assign-tensor-maps: one dictionary per tensor map
  // ({param, box, swizzle}) and, on a TMA copy, the index of its map.
  // (Also on the lowered kernel, which keeps them for the driver.)
  if (name == kTensorMapsAttr) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "'tile.tensor_maps' is only valid on a function";
    auto maps = dyn_cast<ArrayAttr>(value);
    if (!maps || !llvm::all_of(maps, [](Attribute map) {
          auto dict = dyn_cast<DictionaryAttr>(map);
          return dict && dict.getAs<IntegerAttr>("param") &&
                 dict.getAs<DenseI64ArrayAttr>("box") &&
                 dict.getAs<IntegerAttr>("swizzle");
        }))
      return op->emitOpError()
             << "'tile.tensor_maps' must be an array of {param, box, "
                "swizzle} dictionaries, got "
             << value;
    return success();
  }
  if (name == kTmaMapAttr) {
    auto index = dyn_cast<IntegerAttr>(value);
    auto copy = dyn_cast<CopyAsyncOp>(op);
    if (!copy || !copy.isTensorCopy())
      return op->emitOpError()
             << "'tile.tma_map' is only valid on a tile.copy_async with a "
                "barrier";
    if (!index || index.getInt() < 0)
      return op->emitOpError() << "'tile.tma_map' must be a non-negative "
                                  "index, got "
                               << value;
    return success();
  }
  // Written by tile-allocate-shared (docs/Passes.md): byte offsets/sizes.
  if (name == "tile.offset" || name == "tile.shared_bytes" ||
      name == "tile.scratch_offset" || name == "tile.scratch_bytes") {
    auto bytes = dyn_cast<IntegerAttr>(value);
    if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64, got " << value;
    return success();
  }
  return op->emitOpError() << "unknown tile dialect attribute '" << name << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func || !func->hasAttr(kKernelAttr))
    return op->emitOpError() << "argument attribute '" << name
                             << "' is only valid on a tile.kernel function";
  Type argType = func.getArgumentTypes()[argIndex];
  auto fail = [&](const Twine &what) {
    return op->emitOpError()
           << "argument #" << argIndex << ": '" << name << "' " << what;
  };
  if (name == kArgNameAttr || name == kArgDTypeAttr || name == kArgDimAttr) {
    auto str = dyn_cast<StringAttr>(value);
    if (!str || str.getValue().empty())
      return fail("must be a non-empty string");
    if (name == kArgDimAttr && !argType.isInteger(32))
      return fail("marks a runtime dimension, which must be an i32 argument");
    return success();
  }
  if (name == kArgShapeAttr) {
    if (!isa<PtrType>(argType))
      return fail("is only valid on a !tile.ptr argument");
    if (!isStringArray(value) || cast<ArrayAttr>(value).empty())
      return fail("must be a non-empty array of dimension expressions");
    return success();
  }
  if (name == kVirtualGridAttr) {
    auto axis = dyn_cast<IntegerAttr>(value);
    if (!argType.isInteger(32) || !axis || axis.getInt() < 0 ||
        axis.getInt() > 2)
      return fail("marks the virtual grid's extent along axis 0, 1 or 2, "
                  "an i32 argument");
    return success();
  }
  if (name == kArgMutAttr) {
    if (!isa<PtrType>(argType))
      return fail("is only valid on a !tile.ptr argument");
    if (!isa<UnitAttr>(value))
      return fail("must be a unit attribute");
    return success();
  }
  return fail("is not a known tile argument attribute");
}
