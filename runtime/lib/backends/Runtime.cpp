//===- Runtime.cpp - Devices, modules, kernels, streams, buffers ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"

#include "tile/Numerics/Format.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace tile::rt;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

/// Every code-object kind with its manifest name and platform.
struct KindInfo {
  ObjectKind Kind;
  const char *Name;
  Platform Plat;
};
constexpr KindInfo Kinds[] = {
    {ObjectKind::HostSO, "host-so", Platform::Host},
    {ObjectKind::Cubin, "cubin", Platform::Cuda},
    {ObjectKind::Ptx, "ptx", Platform::Cuda},
    {ObjectKind::Hsaco, "hsaco", Platform::Hip},
    {ObjectKind::NvEmuSO, "nvemu-so", Platform::NvEmu},
    {ObjectKind::AmdEmuSO, "amdemu-so", Platform::AmdEmu},
};

const KindInfo *findKind(ObjectKind K) {
  for (const KindInfo &I : Kinds)
    if (I.Kind == K)
      return &I;
  return nullptr;
}

} // namespace

const char *tile::rt::platformName(Platform P) {
  switch (P) {
  case Platform::Host:
    return "host";
  case Platform::Cuda:
    return "cuda";
  case Platform::Hip:
    return "hip";
  case Platform::NvEmu:
    return "cuda-emu";
  case Platform::AmdEmu:
    return "hip-emu";
  }
  return "?";
}

const char *tile::rt::objectKindName(ObjectKind K) {
  const KindInfo *I = findKind(K);
  return I ? I->Name : "?";
}

Expected<ObjectKind> tile::rt::parseObjectKind(std::string_view Name) {
  for (const KindInfo &I : Kinds)
    if (Name == I.Name)
      return I.Kind;
  return makeError(
      "unknown object kind '" + std::string(Name) +
      "' (expected host-so, cubin, ptx, hsaco, nvemu-so or amdemu-so)");
}

Platform tile::rt::platformOf(ObjectKind K) {
  const KindInfo *I = findKind(K);
  return I ? I->Plat : Platform::Host;
}

//===----------------------------------------------------------------------===//
// Helpers shared by the backends
//===----------------------------------------------------------------------===//

Expected<std::vector<uint8_t>> tile::rt::readBinaryFile(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return makeError("cannot open " + P);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(In)),
                              std::istreambuf_iterator<char>());
}

Expected<void *> tile::rt::openSharedObject(const std::string &Path,
                                            const char *What) {
  // dlopen searches the library path for names without a slash.
  std::string Name = Path.find('/') == std::string::npos ? "./" + Path : Path;
  void *Handle = dlopen(Name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    const char *Msg = dlerror();
    return makeError("cannot load " + std::string(What) + " " + Path + ": " +
                     (Msg ? Msg : "unknown error"));
  }
  return Handle;
}

Expected<void *>
tile::rt::openSharedObjectData(const std::vector<uint8_t> &Data,
                               const char *What) {
  // dlopen needs a file: write one, load it, and unlink it (the mapping
  // stays valid).
  const char *TmpDir = std::getenv("TMPDIR");
  std::string Path =
      std::string(TmpDir && *TmpDir ? TmpDir : "/tmp") + "/tile-kernel-XXXXXX";
  int Fd = mkstemp(Path.data());
  if (Fd < 0)
    return makeError("cannot create a temporary file " + Path + ": " +
                     std::strerror(errno));
  size_t Done = 0;
  while (Done < Data.size()) {
    ssize_t N = write(Fd, Data.data() + Done, Data.size() - Done);
    if (N <= 0)
      break;
    Done += static_cast<size_t>(N);
  }
  close(Fd);
  if (Done != Data.size()) {
    unlink(Path.c_str());
    return makeError("cannot write the temporary file " + Path);
  }
  Expected<void *> Handle = openSharedObject(Path, What);
  unlink(Path.c_str());
  return Handle;
}

Expected<std::shared_ptr<ModuleImpl>>
DeviceImpl::loadModule(const std::string &Path, ObjectKind Kind) {
  Expected<std::vector<uint8_t>> Data = readBinaryFile(Path);
  if (!Data)
    return Data.takeError();
  return loadModuleData(*Data, Kind, Path);
}

Error DeviceImpl::encodeTensorMap(const TensorMapRequest &, void *) {
  return makeError(std::string(platformName(P)) +
                   " has no TMA tensor maps (the kernel was compiled for "
                   "sm_90 with TMA copies)");
}

Expected<std::shared_ptr<DynamicLibrary>>
DynamicLibrary::open(const std::vector<std::string> &Candidates,
                     const char *EnvOverride) {
  std::vector<std::string> Names = Candidates;
  if (const char *Env = EnvOverride ? std::getenv(EnvOverride) : nullptr)
    Names = {Env};
  std::string Tried;
  for (const std::string &N : Names) {
    if (void *H = dlopen(N.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      auto Lib = std::make_shared<DynamicLibrary>();
      Lib->Handle = H;
      Lib->Path = N;
      return Lib;
    }
    const char *Msg = dlerror();
    Tried += "\n  " + N + ": " + (Msg ? Msg : "unknown error");
  }
  return makeError("tried:" + Tried);
}

DynamicLibrary::~DynamicLibrary() {
  if (Handle)
    dlclose(Handle);
}

void *DynamicLibrary::symbol(const char *Symbol) const {
  return dlsym(Handle, Symbol);
}

//===----------------------------------------------------------------------===//
// Buffer, Event, Stream
//===----------------------------------------------------------------------===//

struct Buffer::State {
  std::shared_ptr<DeviceImpl> Dev;
  uint64_t Address = 0;
  uint64_t Size = 0;
  ~State() { Dev->release(Address); }
};

uint64_t Buffer::address() const { return S ? S->Address : 0; }
uint64_t Buffer::size() const { return S ? S->Size : 0; }

static Error checkRange(const Buffer &B, uint64_t Bytes, uint64_t Offset,
                        const char *What) {
  if (!B)
    return makeError(std::string(What) + ": empty buffer");
  if (Offset > B.size() || Bytes > B.size() - Offset)
    return makeError(std::string(What) + " of " + std::to_string(Bytes) +
                     " bytes at offset " + std::to_string(Offset) +
                     " exceeds the buffer's " + std::to_string(B.size()) +
                     " bytes");
  return Error::success();
}

Error Buffer::upload(const void *Src, uint64_t Bytes, uint64_t Offset) {
  if (Error E = checkRange(*this, Bytes, Offset, "upload"))
    return E;
  return Bytes ? S->Dev->upload(S->Address + Offset, Src, Bytes)
               : Error::success();
}

Error Buffer::download(void *Dst, uint64_t Bytes, uint64_t Offset) const {
  if (Error E = checkRange(*this, Bytes, Offset, "download"))
    return E;
  return Bytes ? S->Dev->download(Dst, S->Address + Offset, Bytes)
               : Error::success();
}

Expected<std::vector<uint8_t>> Buffer::read() const {
  std::vector<uint8_t> Data(size());
  if (Error E = download(Data.data(), Data.size()))
    return E;
  return Data;
}

Error Buffer::fill(uint8_t Byte, Stream &St) {
  if (!S)
    return makeError("fill: empty buffer");
  return S->Size
             ? S->Dev->fillAsync(S->Address, Byte, S->Size, St.nativeHandle())
             : Error::success();
}

Error Buffer::fill(uint8_t Byte) {
  if (!S)
    return makeError("fill: empty buffer");
  return S->Size ? S->Dev->fill(S->Address, Byte, S->Size) : Error::success();
}

struct Event::State {
  std::shared_ptr<DeviceImpl> Dev;
  void *Handle = nullptr;
  ~State() { Dev->destroyEvent(Handle); }
};

Expected<float> Event::elapsedMs(const Event &Start, const Event &End) {
  if (!Start.S || !End.S)
    return makeError("elapsedMs: an event was never recorded");
  if (Start.S->Dev != End.S->Dev)
    return makeError("elapsedMs: events of different devices");
  return Start.S->Dev->elapsedMs(Start.S->Handle, End.S->Handle);
}

struct Stream::State {
  std::shared_ptr<DeviceImpl> Dev;
  void *Handle = nullptr; // Null: the default stream.
  bool Owned = true;      // False: the caller's (Device::wrapStream).
  ~State() {
    if (Handle && Owned)
      Dev->destroyStream(Handle);
  }
};

Error Stream::synchronize() {
  if (!S)
    return makeError("synchronize: empty stream");
  return S->Dev->synchronize(S->Handle);
}

Expected<Event> Stream::record() {
  if (!S)
    return makeError("record: empty stream");
  Expected<void *> H = S->Dev->recordEvent(S->Handle);
  if (!H)
    return H.takeError();
  Event E;
  E.S = std::make_shared<Event::State>();
  E.S->Dev = S->Dev;
  E.S->Handle = *H;
  return E;
}

void *Stream::nativeHandle() const { return S ? S->Handle : nullptr; }

void StreamGate::wait(void *Gate) {
  auto *G = static_cast<StreamGate *>(Gate);
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!G->Open.load(std::memory_order_acquire) &&
         std::chrono::steady_clock::now() < Deadline)
    std::this_thread::yield();
  if (G->Refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete G;
}

void StreamGate::open(StreamGate *G) {
  G->Open.store(true, std::memory_order_release);
  if (G->Refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete G;
}

struct StreamHold::State {
  std::shared_ptr<DeviceImpl> Dev;
  void *Handle = nullptr;
  ~State() { Dev->releaseStream(Handle); }
};

Expected<StreamHold> Stream::hold() {
  if (!S)
    return makeError("hold: empty stream");
  Expected<void *> H = S->Dev->holdStream(S->Handle);
  if (!H)
    return H.takeError();
  StreamHold Hold;
  Hold.S = std::make_shared<StreamHold::State>();
  Hold.S->Dev = S->Dev;
  Hold.S->Handle = *H;
  return Hold;
}

bool StreamHold::held() const { return S && S->Handle; }

void StreamHold::release() { S.reset(); }

//===----------------------------------------------------------------------===//
// Kernel, Module
//===----------------------------------------------------------------------===//

struct Kernel::State {
  std::shared_ptr<ModuleImpl> Mod;
  std::shared_ptr<DeviceImpl> Dev;
  void *Function = nullptr;
  KernelSignature Sig;
  LaunchConfig Config;
  /// The copy without TMA copies launched where a tensor map cannot be
  /// made (setFallback); null: none.
  std::shared_ptr<State> Fallback;
};

const KernelSignature &Kernel::signature() const { return S->Sig; }

namespace {

/// The storage of one encoded tensor map: a CUtensorMap is 128 bytes,
/// 64-byte aligned.
struct alignas(64) TensorMapStorage {
  uint8_t Bytes[128];
};

/// The request for tensor map \p M of \p Sig over the tensor bound in
/// \p Bound, checked against what a TMA copy allows; \p Empty is set (and
/// nothing is checked) when the tensor has no elements.
Error tensorMapRequest(const KernelSignature &Sig, const TensorMapInfo &M,
                       const BoundArgs &Bound, TensorMapRequest &R,
                       bool &Empty) {
  const ParamInfo &P = Sig.Params[M.Param];
  Expected<std::vector<int64_t>> Shape = evaluateShape(P, Bound.Dims);
  if (!Shape)
    return Shape.takeError();
  tile::numerics::Result<tile::numerics::Format> F =
      tile::numerics::parseFormat(P.DType);
  if (!F)
    return makeError(F.message());
  std::string Dims;
  for (int64_t D : *Shape)
    Dims += (Dims.empty() ? "" : "x") + std::to_string(D);
  std::string Where = "tensor " + P.Name + " (" + Dims + " " + P.DType + "): ";
  const std::string Advice = "; compile without --tma for such shapes";
  auto Rank = static_cast<unsigned>(Shape->size());
  // A sub-byte tensor (packed weights) is mapped as bytes: its rows of
  // Extent x bits bits are Extent x bits / 8 one-byte elements.
  unsigned Bits = F->bits();
  R.Address = Bound.Slots[M.Param];
  R.ElementBytes = Bits < 8 ? 1 : Bits / 8;
  R.Rank = Rank;
  R.SwizzleBytes = M.SwizzleBytes;
  Empty = false;
  uint64_t Stride = R.ElementBytes;
  for (unsigned I = 0; I < Rank; ++I) {
    // Innermost first: dimension Rank - 1 - I of the shape.
    auto Extent = static_cast<uint64_t>((*Shape)[Rank - 1 - I]);
    if (I == 0 && Bits < 8) {
      if (Extent * Bits % 8 != 0)
        return makeError(Where + "a TMA copy of " + std::to_string(Bits) +
                         "-bit elements needs rows of whole bytes, this one "
                         "has " +
                         std::to_string(Extent * Bits) + " bits" + Advice);
      Extent = Extent * Bits / 8;
    }
    Empty |= Extent == 0;
    R.Dims[I] = Extent;
    R.Strides[I] = Stride;
    R.Box[I] = M.Box[Rank - 1 - I];
    Stride *= Extent;
  }
  if (Empty)
    return Error::success();
  if (R.Address % 16 != 0)
    return makeError(Where +
                     "a TMA copy needs a 16-byte aligned address, "
                     "this one is 16n + " +
                     std::to_string(R.Address % 16));
  for (unsigned I = 0; I < Rank; ++I) {
    if (R.Dims[I] > (uint64_t(1) << 32))
      return makeError(Where +
                       "a TMA copy needs extents of at most 2^32, "
                       "this one has " +
                       std::to_string(R.Dims[I]));
    if (I == 0)
      continue;
    if (R.Strides[I] % 16 != 0)
      return makeError(Where + "a TMA copy needs " +
                       (I == 1 ? std::string("rows whose byte stride")
                               : "dimension " + std::to_string(Rank - 1 - I) +
                                     " to have a byte stride that") +
                       " is a multiple of 16, this one is " +
                       std::to_string(R.Strides[I]) + " bytes" + Advice);
    if (R.Strides[I] >= (uint64_t(1) << 40))
      return makeError(Where +
                       "a TMA copy needs byte strides below 2^40, "
                       "this one has " +
                       std::to_string(R.Strides[I]));
  }
  uint64_t InnerBytes = uint64_t(R.Box[0]) * R.ElementBytes;
  if (InnerBytes % 16 != 0 ||
      (M.SwizzleBytes != 0 && InnerBytes > M.SwizzleBytes))
    return makeError(
        Where + "the TMA box's inner extent is " + std::to_string(InnerBytes) +
        " bytes; it must be a multiple of 16" +
        (M.SwizzleBytes ? " and at most the " + std::to_string(M.SwizzleBytes) +
                              "-byte swizzle span"
                        : std::string()));
  return Error::success();
}

} // namespace
const LaunchConfig &Kernel::config() const { return S->Config; }

Expected<uint32_t> ModuleImpl::residentPerUnit(void *, const LaunchConfig &) {
  return 1u;
}

namespace {

/// The programs a persistent kernel is launched with: as many as the
/// device runs at once (compute units x occupancy), at most \p Programs,
/// at most $TILE_PERSISTENT_PROGRAMS when set (tests use it to give each
/// program several of the grid's).
Expected<uint32_t> persistentPrograms(DeviceImpl &Dev, ModuleImpl &Mod,
                                      void *Function,
                                      const LaunchConfig &Config,
                                      uint64_t Programs) {
  Expected<uint32_t> PerUnit = Mod.residentPerUnit(Function, Config);
  if (!PerUnit)
    return PerUnit.takeError();
  uint64_t Resident =
      uint64_t(std::max(1u, Dev.ComputeUnits)) * std::max(1u, *PerUnit);
  if (const char *Cap = std::getenv("TILE_PERSISTENT_PROGRAMS")) {
    char *End = nullptr;
    unsigned long long N = std::strtoull(Cap, &End, 10);
    if (!*Cap || *End || N == 0)
      return makeError("TILE_PERSISTENT_PROGRAMS must be a positive integer, "
                       "not '" +
                       std::string(Cap) + "'");
    Resident = std::min<uint64_t>(Resident, N);
  }
  return uint32_t(std::min<uint64_t>({Resident, Programs, UINT32_MAX}));
}

} // namespace

Error Kernel::launch(const std::vector<ArgValue> &Args, const DimMap &Given,
                     Stream *St) {
  if (!S)
    return makeError("launch: empty kernel");
  Expected<BoundArgs> B = bindArguments(S->Sig, Args, Given);
  if (!B)
    return B.takeError();
  return launch(*B, St);
}

namespace {

/// Whether every tensor map of \p S can be made for \p Bound.
bool tensorMapsPossible(const Kernel::State &S, const BoundArgs &Bound) {
  for (const TensorMapInfo &M : S.Sig.TensorMaps) {
    TensorMapRequest R;
    bool Empty = false;
    if (tensorMapRequest(S.Sig, M, Bound, R, Empty))
      return false;
  }
  return true;
}

/// Launches \p S with \p Bound (checked by Kernel::launch) on \p St, or its
/// fallback where a tensor map of \p S cannot be made.
Error launchState(Kernel::State &S, BoundArgs &Bound, Stream *St) {
  std::vector<void *> Ptrs = Bound.pointers();
  // A persistent kernel takes its grid's extents and runs on the programs
  // the device holds at once.
  std::array<uint32_t, 3> Grid = Bound.Grid;
  if (S.Sig.Persistent) {
    Expected<uint32_t> Programs = persistentPrograms(
        *S.Dev, *S.Mod, S.Function, S.Config, Bound.numPrograms());
    if (!Programs)
      return makeError(S.Sig.Name + ": " + Programs.message());
    for (uint32_t &Extent : Bound.Grid)
      Ptrs.push_back(&Extent);
    Grid = {*Programs, 1, 1};
  }
  // The tensor maps follow the parameters; an empty tensor's map is zeros
  // (a kernel copies nothing from an empty tensor). On the stack: no
  // allocation in the launch path (verify() bounds their number).
  std::array<TensorMapStorage, TensorMapInfo::MaxMaps> Maps;
  for (size_t I = 0; I < S.Sig.TensorMaps.size(); ++I) {
    TensorMapRequest R;
    bool Empty = false;
    std::memset(Maps[I].Bytes, 0, sizeof(Maps[I].Bytes));
    if (Error E = tensorMapRequest(S.Sig, S.Sig.TensorMaps[I], Bound, R, Empty))
      return S.Fallback ? launchState(*S.Fallback, Bound, St)
                        : makeError(S.Sig.Name + ": " + E.message());
    if (!Empty)
      if (Error E = S.Dev->encodeTensorMap(R, Maps[I].Bytes))
        return makeError(S.Sig.Name + ": " + E.message());
    Ptrs.push_back(Maps[I].Bytes);
  }
  if (Error E = S.Mod->launch(S.Function, S.Config, Grid, Ptrs.data(),
                              St ? St->nativeHandle() : nullptr))
    return makeError(S.Sig.Name + ": " + E.message());
  return Error::success();
}

} // namespace

Error Kernel::launch(BoundArgs &Bound, Stream *St) {
  if (!S)
    return makeError("launch: empty kernel");
  if (Bound.Slots.size() != S->Sig.Params.size())
    return makeError(S->Sig.Name + ": bound arguments do not match the "
                                   "kernel's parameters");
  if (St && St->S && St->S->Dev != S->Dev)
    return makeError(S->Sig.Name + ": stream belongs to another device");
  if (Bound.numPrograms() == 0)
    return Error::success(); // An empty grid has nothing to do.
  return launchState(*S, Bound, St);
}

bool Kernel::runsFallback(const BoundArgs &Bound) const {
  return S && S->Fallback && !tensorMapsPossible(*S, Bound);
}

Error Kernel::setFallback(const Kernel &F) {
  if (!S || !F.S)
    return makeError("setFallback: empty kernel");
  auto SameParam = [](const ParamInfo &A, const ParamInfo &B) {
    return A.Name == B.Name && A.Kind == B.Kind && A.DType == B.DType &&
           A.Shape == B.Shape;
  };
  if (F.S == S || F.S->Dev != S->Dev || !F.S->Sig.TensorMaps.empty() ||
      F.S->Fallback ||
      !std::equal(S->Sig.Params.begin(), S->Sig.Params.end(),
                  F.S->Sig.Params.begin(), F.S->Sig.Params.end(), SameParam))
    return makeError(S->Sig.Name +
                     ": a fallback must be another kernel on the same "
                     "device, with the same parameters, no tensor maps and "
                     "no fallback of its own");
  S->Fallback = F.S;
  return Error::success();
}

Expected<Kernel> Module::getKernel(const std::string &Entry,
                                   KernelSignature Sig, LaunchConfig Config) {
  if (!Impl)
    return makeError("getKernel: empty module");
  if (Error E = Sig.verify())
    return E;
  Expected<void *> F = Impl->getFunction(Entry, Config.SharedBytes);
  if (!F)
    return F.takeError();
  Kernel K;
  K.S = std::make_shared<Kernel::State>();
  K.S->Mod = Impl;
  K.S->Dev = Dev;
  K.S->Function = *F;
  K.S->Sig = std::move(Sig);
  K.S->Config = Config;
  return K;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Expected<Device> Device::open(std::string_view Spec) {
  std::string Kind(Spec);
  int Ordinal = 0;
  if (size_t Colon = Kind.find(':'); Colon != std::string::npos) {
    std::string Num = Kind.substr(Colon + 1);
    Kind.resize(Colon);
    if (Num.empty() || Num.size() > 4 ||
        Num.find_first_not_of("0123456789") != std::string::npos)
      return makeError(
          "bad device '" + std::string(Spec) +
          "' (expected host, cuda[:N], hip[:N], cuda-emu or hip-emu)");
    Ordinal = std::stoi(Num);
  }
  if (Kind != "host" && Kind != "cuda" && Kind != "hip" && Kind != "cuda-emu" &&
      Kind != "hip-emu")
    return makeError(
        "unknown device '" + std::string(Spec) +
        "' (expected host, cuda[:N], hip[:N], cuda-emu or hip-emu)");
  if (Kind == "host" && Ordinal != 0)
    return makeError("there is only one host device ('host')");
  if (Kind == "cuda-emu" && Ordinal != 0)
    return makeError("there is only one emulated NVIDIA device ('cuda-emu')");
  if (Kind == "hip-emu" && Ordinal != 0)
    return makeError("there is only one emulated AMD device ('hip-emu')");

  // Devices live until the process exits: never destroyed, so that no
  // driver call happens during static destruction.
  static std::mutex Lock;
  static auto *Open = new std::map<std::string, std::shared_ptr<DeviceImpl>>;
  std::lock_guard<std::mutex> Guard(Lock);
  std::string Key = Kind + ":" + std::to_string(Ordinal);
  auto It = Open->find(Key);
  if (It == Open->end()) {
    Expected<std::shared_ptr<DeviceImpl>> Impl =
        Kind == "host"       ? createHostDevice()
        : Kind == "cuda"     ? createCudaDevice(Ordinal)
        : Kind == "cuda-emu" ? createNvEmuDevice()
        : Kind == "hip-emu"  ? createAmdEmuDevice()
                             : createHipDevice(Ordinal);
    if (!Impl)
      return Impl.takeError();
    It = Open->emplace(Key, *Impl).first;
  }
  Device D;
  D.Impl = It->second;
  return D;
}

Platform Device::platform() const { return Impl->P; }
int Device::ordinal() const { return Impl->Ordinal; }
std::string Device::name() const { return Impl->Name; }
std::string Device::arch() const { return Impl->Arch; }

unsigned Device::computeUnits() const { return Impl->ComputeUnits; }

uint64_t Device::sharedBytesPerBlock() const { return Impl->SharedPerBlock; }

Expected<Buffer> Device::allocate(uint64_t Bytes) {
  Expected<uint64_t> Address = Impl->allocate(Bytes);
  if (!Address)
    return Address.takeError();
  Buffer B;
  B.S = std::make_shared<Buffer::State>();
  B.S->Dev = Impl;
  B.S->Address = *Address;
  B.S->Size = Bytes;
  return B;
}

Expected<Module> Device::loadModule(const std::string &Path, ObjectKind Kind) {
  if (platformOf(Kind) != Impl->P)
    return makeError("cannot load a " + std::string(objectKindName(Kind)) +
                     " code object on a " + platformName(Impl->P) +
                     " device: " + Path);
  Expected<std::shared_ptr<ModuleImpl>> M = Impl->loadModule(Path, Kind);
  if (!M)
    return M.takeError();
  Module Result;
  Result.Dev = Impl;
  Result.Impl = *M;
  return Result;
}

Expected<Module> Device::loadModuleData(const std::vector<uint8_t> &Data,
                                        ObjectKind Kind) {
  if (platformOf(Kind) != Impl->P)
    return makeError("cannot load a " + std::string(objectKindName(Kind)) +
                     " code object on a " + platformName(Impl->P) + " device");
  Expected<std::shared_ptr<ModuleImpl>> M =
      Impl->loadModuleData(Data, Kind, "<memory>");
  if (!M)
    return M.takeError();
  Module Result;
  Result.Dev = Impl;
  Result.Impl = *M;
  return Result;
}

Expected<Stream> Device::createStream() {
  Expected<void *> H = Impl->createStream();
  if (!H)
    return H.takeError();
  Stream S;
  S.S = std::make_shared<Stream::State>();
  S.S->Dev = Impl;
  S.S->Handle = *H;
  return S;
}

Stream Device::defaultStream() {
  Stream S;
  S.S = std::make_shared<Stream::State>();
  S.S->Dev = Impl;
  return S;
}

Stream Device::wrapStream(void *Native) {
  Stream S;
  S.S = std::make_shared<Stream::State>();
  S.S->Dev = Impl;
  S.S->Handle = Native;
  S.S->Owned = false;
  return S;
}

Error Device::synchronize() { return Impl->synchronizeDevice(); }
