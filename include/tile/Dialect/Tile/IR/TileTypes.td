//===- TileTypes.td - Types of the tile dialect -------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_TD
#define TILE_DIALECT_TILE_IR_TILETYPES_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_FloatType : Tile_Type<"SmallFloat", "float"> {
  let summary = "a small floating-point format eXmY without a builtin type";
  let description = [{
    `!tile.float<eXmY>` is the floating-point format with one sign bit, X
    exponent bits and Y mantissa bits (1 + X + Y <= 8, X >= 1), bias
    2^(X-1) - 1, with subnormals and no infinities or NaN (every code is a
    finite number). Formats that MLIR has a builtin type for with the same
    meaning (e2m1, e2m3, e3m2) must use the builtin (`f4E2M1FN`, `f6E2M3FN`,
    `f6E3M2FN`). Examples: `!tile.float<e2m2>` (f5e2m2), `!tile.float<e1m1>`.
  }];
  let parameters = (ins "unsigned":$exponentBits, "unsigned":$mantissaBits);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Total width in bits: sign + exponent + mantissa.
    unsigned getWidth() const { return 1 + getExponentBits() + getMantissaBits(); }
  }];
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "a pointer to a dense row-major stream of elements in global memory";
  let description = [{
    Kernel arguments for global tensors. Sub-byte element types are packed
    LSB-first: element i occupies bits [i*b, (i+1)*b) of the stream.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_ViewType : Tile_Type<"View", "view"> {
  let summary = "a global tensor: pointer, dimensions and strides";
  let description = [{
    `!tile.view<?x1024xf16>`: a global tensor of the given rank; `?` dims are
    known at run time. Slices of it are loaded and stored with `tile.load`,
    `tile.store` and `tile.copy_async`, masked by its dimensions.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// Number of `?` dimensions (each one is an operand of tile.view).
    unsigned getNumDynamicDims() const;
  }];
}

def Tile_SharedType : Tile_Type<"Shared", "shared"> {
  let summary = "a buffer in shared memory (LDS on AMD)";
  let description = [{
    `!tile.shared<3x64x32xf16>`: a statically shaped shared-memory buffer,
    optionally with a shared-layout encoding (shape:stride and swizzle) once
    allocation has chosen one.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        OptionalParameter<"::mlir::Attribute">:$encoding);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType, ::mlir::Attribute());
    }]>
  ];
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    int64_t getNumElements() const;
  }];
}

#endif // TILE_DIALECT_TILE_IR_TILETYPES_TD
