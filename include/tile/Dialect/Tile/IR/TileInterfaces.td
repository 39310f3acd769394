//===- TileInterfaces.td - Op interfaces of the tile dialect -*- tablegen -*-===//
//
// Part of tilec. What passes ask of an op's behaviour without naming the op:
// shared-memory accesses (which buffer, which block of it, read or write,
// synchronous or landing later) for shared-memory allocation, operand
// fusion and anything that reorders accesses.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILE_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_SharedAccessOpInterface : OpInterface<"SharedAccessOpInterface"> {
  let cppNamespace = "::tile";
  let description = [{
    An op that reads or writes a block of a shared-memory buffer: the
    buffer's leading dimensions are indexed away by `getSharedIndices()`, the
    trailing `getAccessRank()` ones are accessed from those indices on.
  }];
  let methods = [
    InterfaceMethod<"The shared-memory buffer accessed.", "::mlir::Value",
                    "getSharedBuffer">,
    InterfaceMethod<"One i32 index per buffer dimension.",
                    "::mlir::OperandRange", "getSharedIndices">,
    InterfaceMethod<"The rank of the accessed block (trailing dimensions).",
                    "unsigned", "getAccessRank">,
    InterfaceMethod<"Whether the op writes the buffer (otherwise it reads).",
                    "bool", "isSharedWrite">,
    InterfaceMethod<[{Whether the access completes later (an asynchronous
                     copy lands by a tile.wait), not when the op runs.}],
                    "bool", "isAsyncAccess">,
    InterfaceMethod<[{The register tile moved (the loaded result, the stored
                     value); null when registers are not involved.}],
                    "::mlir::Value", "getRegisterTile">,
  ];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
