//===- KernelMetadata.cpp - Launch description of a tile.kernel -----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "KernelMetadata.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace tile;
using tile::TileDialect;

static std::string stringAttr(mlir::DictionaryAttr attrs,
                              llvm::StringRef name) {
  if (!attrs)
    return {};
  auto value = attrs.getAs<mlir::StringAttr>(name);
  return value ? value.getValue().str() : std::string();
}

/// Converts a compile-time value (i64, bool, string) to JSON.
static rt::json::Value toJson(mlir::Attribute attr) {
  if (auto b = mlir::dyn_cast<mlir::BoolAttr>(attr))
    return rt::json::Value(b.getValue());
  if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(attr)) {
    if (i.getType().isInteger(1))
      return rt::json::Value(i.getValue().getBoolValue());
    return rt::json::Value(i.getValue().getSExtValue());
  }
  if (auto f = mlir::dyn_cast<mlir::FloatAttr>(attr))
    return rt::json::Value(f.getValueAsDouble());
  if (auto s = mlir::dyn_cast<mlir::StringAttr>(attr))
    return rt::json::Value(s.getValue().str());
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return rt::json::Value(text);
}

rt::Expected<rt::KernelInfo> jit::kernelInfoFromFunc(mlir::func::FuncOp func,
                                                     const TargetInfo &target) {
  rt::KernelInfo info;
  std::string name = func.getSymName().str();
  info.Entry = name;
  info.Target = target.name;
  info.Signature.Name = name;

  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    mlir::DictionaryAttr attrs = func.getArgAttrDict(i);
    mlir::Type type = func.getArgumentTypes()[i];
    rt::ParamInfo param;
    if (std::string dim = stringAttr(attrs, TileDialect::kArgDimAttr);
        !dim.empty()) {
      param.Name = dim;
      param.Kind = rt::ParamKind::Dim;
      param.DType = "i32";
    } else {
      param.Name = stringAttr(attrs, TileDialect::kArgNameAttr);
      param.DType = stringAttr(attrs, TileDialect::kArgDTypeAttr);
      if (param.Name.empty() || param.DType.empty())
        return rt::makeError("kernel " + name + ": argument #" +
                             std::to_string(i) +
                             " has no tile.name / tile.dtype attribute");
      if (mlir::isa<tile::PtrType>(type)) {
        param.Kind = rt::ParamKind::Tensor;
        param.Mut = attrs && attrs.get(TileDialect::kArgMutAttr);
        auto shape = attrs.getAs<mlir::ArrayAttr>(TileDialect::kArgShapeAttr);
        if (!shape)
          return rt::makeError("kernel " + name + ": tensor " + param.Name +
                               " has no tile.shape attribute");
        for (mlir::Attribute dim : shape)
          param.Shape.push_back(
              mlir::cast<mlir::StringAttr>(dim).getValue().str());
      } else {
        param.Kind = rt::ParamKind::Scalar;
      }
    }
    info.Signature.Params.push_back(std::move(param));
  }

  if (auto grid = func->getAttrOfType<mlir::ArrayAttr>(TileDialect::kGridAttr))
    for (auto [axis, expr] : llvm::enumerate(grid))
      if (axis < 3)
        info.Signature.Grid[axis] =
            mlir::cast<mlir::StringAttr>(expr).getValue().str();

  auto warps = func->getAttrOfType<mlir::IntegerAttr>(TileDialect::kWarpsAttr);
  info.Warps = warps ? warps.getInt() : 4;
  info.Launch.ThreadsPerBlock = info.Warps * target.warpSize;
  if (auto shared = func->getAttrOfType<mlir::IntegerAttr>("tile.shared_bytes"))
    info.Launch.SharedBytes = shared.getInt();

  rt::json::Object constants;
  if (auto dict = func->getAttrOfType<mlir::DictionaryAttr>(
          TileDialect::kConstantsAttr))
    for (mlir::NamedAttribute entry : dict)
      constants.emplace_back(entry.getName().str(), toJson(entry.getValue()));
  info.Constants = rt::json::Value(std::move(constants));

  if (rt::Error err = info.Signature.verify())
    return rt::makeError("kernel " + name + ": " + err.message());
  return info;
}

void jit::readResourceReport(const std::string &report,
                             std::vector<rt::KernelInfo> &infos) {
  auto numberBefore = [](llvm::StringRef line, llvm::StringRef what) {
    size_t at = line.find(what);
    if (at == llvm::StringRef::npos)
      return int64_t(-1);
    llvm::StringRef head = line.take_front(at).rtrim();
    llvm::StringRef digits =
        head.substr(head.find_last_not_of("0123456789") + 1);
    int64_t value = -1;
    return digits.getAsInteger(10, value) ? int64_t(-1) : value;
  };
  auto numberAfter = [](llvm::StringRef line, llvm::StringRef what) {
    size_t at = line.find(what);
    if (at == llvm::StringRef::npos)
      return int64_t(-1);
    llvm::StringRef rest = line.substr(at + what.size()).ltrim();
    int64_t value = -1;
    rest = rest.take_while([](char c) { return c >= '0' && c <= '9'; });
    return rest.getAsInteger(10, value) ? int64_t(-1) : value;
  };
  auto find = [&](llvm::StringRef entry) -> rt::KernelInfo * {
    for (rt::KernelInfo &info : infos)
      if (info.Entry == entry)
        return &info;
    return nullptr;
  };
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(report).split(lines, '\n');
  rt::KernelInfo *current = nullptr;
  for (llvm::StringRef line : lines) {
    // ptxas: "Compiling entry function 'NAME' for 'sm_90a'", then
    // "N bytes spill stores" and "Used N registers".
    if (size_t at = line.find("Compiling entry function '");
        at != llvm::StringRef::npos) {
      llvm::StringRef name = line.substr(at + 26);
      current = find(name.take_until([](char c) { return c == '\''; }));
      continue;
    }
    if (current && line.contains("spill stores"))
      current->Spills = numberBefore(line, "bytes spill stores");
    if (current && line.contains("Used ") && line.contains(" registers"))
      current->Registers = static_cast<int>(numberAfter(line, "Used "));
    // AMD: "NAME: VGPRs N, AGPRs N, ..., spills: N VGPRs, N SGPRs".
    if (size_t colon = line.find(": VGPRs "); colon != llvm::StringRef::npos) {
      rt::KernelInfo *info = find(line.take_front(colon));
      if (!info)
        continue;
      int64_t vgprs = numberAfter(line, ": VGPRs ");
      int64_t agprs = numberAfter(line, "AGPRs ");
      llvm::StringRef spills = line.substr(line.find("spills:"));
      int64_t spilledV = numberAfter(spills, "spills:");
      int64_t spilledS = numberAfter(spills, "VGPRs,");
      if (vgprs >= 0)
        info->Registers = static_cast<int>(vgprs + std::max<int64_t>(agprs, 0));
      if (spilledV >= 0 && spilledS >= 0)
        info->Spills = spilledV + spilledS;
    }
  }
}
