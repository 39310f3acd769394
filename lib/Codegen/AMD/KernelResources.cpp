//===- KernelResources.cpp - Kernel resources from code-object metadata ---===//
//
// Part of tilec. The AMDGPU backend prints the HSA code-object metadata (the
// msgpack note of the HSACO) as YAML between `.amdgpu_metadata` and
// `.end_amdgpu_metadata` in its assembly; we read the kernels' register, LDS
// and scratch figures from there.
//
//===----------------------------------------------------------------------===//

#include "tile/Codegen/AMD/AMDCodegen.h"

#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/raw_ostream.h"

namespace tile::amd {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The unsigned value of `key` in `kernel`, or an error naming it.
static llvm::Expected<unsigned> getUnsigned(llvm::msgpack::MapDocNode &kernel,
                                            llvm::StringRef key,
                                            llvm::StringRef kernelName) {
  auto it = kernel.find(key);
  if (it == kernel.end())
    return makeError("code-object metadata of kernel '" + kernelName +
                     "' has no " + key);
  llvm::msgpack::DocNode &node = it->second;
  switch (node.getKind()) {
  case llvm::msgpack::Type::UInt:
    return unsigned(node.getUInt());
  case llvm::msgpack::Type::Int:
    if (node.getInt() >= 0)
      return unsigned(node.getInt());
    break;
  case llvm::msgpack::Type::Boolean:
    return unsigned(node.getBool());
  default:
    break;
  }
  return makeError("code-object metadata of kernel '" + kernelName +
                   "': " + key + " is not a non-negative integer");
}

llvm::Expected<std::vector<KernelResources>>
parseKernelResources(llvm::StringRef assembly) {
  constexpr llvm::StringLiteral kBegin = ".amdgpu_metadata";
  constexpr llvm::StringLiteral kEnd = ".end_amdgpu_metadata";
  size_t begin = assembly.find(kBegin);
  if (begin == llvm::StringRef::npos)
    return makeError("the AMDGCN assembly has no .amdgpu_metadata block");
  size_t end = assembly.find(kEnd, begin);
  if (end == llvm::StringRef::npos)
    return makeError("the .amdgpu_metadata block is not terminated");
  llvm::StringRef yaml =
      assembly.slice(begin + kBegin.size(), end).drop_while([](char c) {
        return c != '\n';
      });
  llvm::msgpack::Document doc;
  if (!doc.fromYAML(yaml))
    return makeError("cannot parse the .amdgpu_metadata block as YAML");
  if (doc.getRoot().getKind() != llvm::msgpack::Type::Map)
    return makeError("the code-object metadata is not a map");
  llvm::msgpack::MapDocNode &root = doc.getRoot().getMap();
  auto kernelsIt = root.find("amdhsa.kernels");
  if (kernelsIt == root.end())
    return std::vector<KernelResources>{};
  if (kernelsIt->second.getKind() != llvm::msgpack::Type::Array)
    return makeError("amdhsa.kernels is not a list");
  std::vector<KernelResources> result;
  for (llvm::msgpack::DocNode &node : kernelsIt->second.getArray()) {
    if (node.getKind() != llvm::msgpack::Type::Map)
      return makeError("an entry of amdhsa.kernels is not a map");
    llvm::msgpack::MapDocNode &kernel = node.getMap();
    KernelResources r;
    auto name = kernel.find(".name");
    if (name == kernel.end() ||
        name->second.getKind() != llvm::msgpack::Type::String)
      return makeError("a kernel of the code-object metadata has no .name");
    r.name = name->second.getString().str();
    struct Field {
      const char *key;
      unsigned *out;
      bool required;
    } fields[] = {
        {".vgpr_count", &r.vgprs, true},
        {".agpr_count", &r.agprs, false},
        {".sgpr_count", &r.sgprs, true},
        {".vgpr_spill_count", &r.vgprSpills, false},
        {".sgpr_spill_count", &r.sgprSpills, false},
        {".group_segment_fixed_size", &r.ldsBytes, true},
        {".private_segment_fixed_size", &r.scratchBytes, true},
        {".wavefront_size", &r.wavefrontSize, true},
        {".max_flat_workgroup_size", &r.maxWorkgroupSize, true},
    };
    for (const Field &f : fields) {
      if (!f.required && kernel.find(f.key) == kernel.end())
        continue;
      auto value = getUnsigned(kernel, f.key, r.name);
      if (!value)
        return value.takeError();
      *f.out = *value;
    }
    result.push_back(std::move(r));
  }
  return result;
}

std::string formatResources(const std::vector<KernelResources> &kernels) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const KernelResources &k : kernels) {
    os << k.name << ": VGPRs " << k.vgprs << ", AGPRs " << k.agprs << ", SGPRs "
       << k.sgprs << ", LDS " << k.ldsBytes << " bytes, scratch "
       << k.scratchBytes << " bytes, wave" << k.wavefrontSize << ", "
       << k.maxWorkgroupSize << " threads, spills: " << k.vgprSpills
       << " VGPRs, " << k.sgprSpills << " SGPRs\n";
  }
  return text;
}

} // namespace tile::amd
