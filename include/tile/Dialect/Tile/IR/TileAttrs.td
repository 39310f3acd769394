//===- TileAttrs.td - Attributes of the tile dialect --------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Axis : I32EnumAttr<"Axis", "a grid axis", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}
def Tile_AxisAttr : EnumAttr<Tile_Dialect, Tile_Axis, "axis">;

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce">;

include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

def Tile_LayoutAttr : AttrDef<Tile_Dialect, "Layout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "layout";
  let summary = "a distributed (register) layout of a tile";
  let description = [{
    Maps (thread, local slot) to a coordinate of the tile, written in the
    layout algebra of docs/Layouts.md as a product of primitives:

    ```mlir
    tensor<16x16xf16, #tile.layout<local(2,1) * spatial(8,4) * local(1,2)>>
    ```

    As a tensor encoding its shape must equal the tensor's. Inside a kernel
    with `tile.warps` and `tile.warp_size`, its thread count must be
    warps x warp_size.
  }];
  let parameters = (ins "::tile::layout::DistributedLayout":$layout);
  let hasCustomAssemblyFormat = 1;
}

def Tile_SharedLayoutAttr : AttrDef<Tile_Dialect, "SharedLayout"> {
  let mnemonic = "shared_layout";
  let summary = "a shared-memory layout: shape:stride with an XOR swizzle";
  let description = [{
    CuTe-style offsets in elements, optionally composed with a swizzle
    (B, M, S) and, before it, a column blocking `block(w,c,r)` (the
    2^c groups of 2^w columns of a 2^r-row tile stored one after the
    other: wide wgmma operands); the encoding of a `!tile.shared` buffer,
    whose shape it must equal.

    ```mlir
    !tile.shared<64x32xf16, #tile.shared_layout<swizzle(2,3,3) o (64,32):(32,1)>>
    !tile.shared<32x128xf16, #tile.shared_layout<swizzle(3,3,3) o block(6,1,5) o (32,128):(128,1)>>
    ```
  }];
  let parameters = (ins "::tile::layout::SharedLayout":$layout);
  let hasCustomAssemblyFormat = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
