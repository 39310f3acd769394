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
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_AxisAttr : EnumAttr<Tile_Dialect, Tile_Axis, "axis">;

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce">;

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
