//===- TuneCache.cpp - Tuned configurations on disk, by shape bucket ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/TuneCache.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tile::rt;

int64_t tile::rt::shapeBucket(int64_t Size) {
  if (Size <= 16)
    return Size;
  int64_t B = 32;
  while (B < Size && B < (int64_t(1) << 62))
    B <<= 1;
  return B;
}

DimMap tile::rt::bucketOf(const DimMap &Sizes) {
  DimMap B;
  for (const auto &[Name, Size] : Sizes)
    B[Name] = shapeBucket(Size);
  return B;
}

std::string tile::rt::bucketText(const DimMap &Sizes) {
  std::string S;
  for (const auto &[Name, Size] : bucketOf(Sizes))
    S += (S.empty() ? "" : ",") + Name + "=" + std::to_string(Size);
  return S;
}

Expected<DimMap> tile::rt::parseBucketText(const std::string &Text) {
  DimMap Dims;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find(',', Pos);
    std::string Part =
        Text.substr(Pos, End == std::string::npos ? End : End - Pos);
    size_t Eq = Part.find('=');
    char *Rest = nullptr;
    long long V = Eq == std::string::npos
                      ? 0
                      : std::strtoll(Part.c_str() + Eq + 1, &Rest, 10);
    if (Eq == std::string::npos || Eq == 0 || Eq + 1 == Part.size() ||
        *Rest != '\0')
      return makeError("bad shape bucket part '" + Part + "' in '" + Text +
                       "' (expected NAME=SIZE,...)");
    Dims[Part.substr(0, Eq)] = V;
    if (End == std::string::npos)
      break;
    Pos = End + 1;
  }
  return Dims;
}

bool TuneKey::operator==(const TuneKey &O) const {
  return Device == O.Device && Arch == O.Arch && Compiler == O.Compiler &&
         Source == O.Source && Kernel == O.Kernel && Target == O.Target &&
         Defines == O.Defines && Bucket == O.Bucket;
}

namespace {

constexpr const char *FormatName = "tilec-tune-cache";

/// The string fields of a key, in file order.
std::vector<std::pair<const char *, std::string TuneKey::*>> keyFields() {
  return {{"device", &TuneKey::Device},     {"arch", &TuneKey::Arch},
          {"compiler", &TuneKey::Compiler}, {"source", &TuneKey::Source},
          {"kernel", &TuneKey::Kernel},     {"target", &TuneKey::Target},
          {"defines", &TuneKey::Defines},   {"bucket", &TuneKey::Bucket}};
}

json::Value toJson(const TuneEntry &E) {
  json::Value V = json::Object{};
  for (const auto &[Name, Field] : keyFields())
    V.set(Name, E.Key.*Field);
  V.set("config", json::Value(json::Object(E.Config.begin(), E.Config.end())));
  V.set("time_ms", E.TimeMs);
  if (E.DefaultMs >= 0)
    V.set("default_ms", E.DefaultMs);
  return V;
}

Expected<TuneEntry> fromJson(const json::Value &V, size_t Index) {
  std::string Where = "entries[" + std::to_string(Index) + "]";
  if (!V.isObject())
    return makeError(Where + " is not an object");
  TuneEntry E;
  for (const auto &[Name, Field] : keyFields()) {
    const json::Value *F = V.find(Name);
    if (!F || !F->isString())
      return makeError(Where + ": missing string \"" + Name + "\"");
    E.Key.*Field = F->getString();
  }
  const json::Value *Config = V.find("config");
  const json::Value *Time = V.find("time_ms");
  if (!Config || !Config->isObject())
    return makeError(Where + ": missing object \"config\"");
  if (!Time || !Time->isNumber())
    return makeError(Where + ": missing number \"time_ms\"");
  for (const auto &[Name, Value] : Config->getObject())
    E.Config[Name] = Value;
  E.TimeMs = Time->getNumber();
  if (const json::Value *D = V.find("default_ms"); D && D->isNumber())
    E.DefaultMs = D->getNumber();
  return E;
}

/// Parses a whole cache file.
Expected<std::vector<TuneEntry>> fromFile(const json::Value &V) {
  const json::Value *Format = V.find("format");
  const json::Value *Version = V.find("version");
  const json::Value *Entries = V.find("entries");
  if (!Format || *Format != json::Value(FormatName) || !Version ||
      *Version != json::Value(1))
    return makeError("not a version 1 " + std::string(FormatName) + " file");
  if (!Entries || !Entries->isArray())
    return makeError("missing array \"entries\"");
  std::vector<TuneEntry> Out;
  for (size_t I = 0; I < Entries->getArray().size(); ++I) {
    Expected<TuneEntry> E = fromJson(Entries->getArray()[I], I);
    if (!E)
      return E.takeError();
    Out.push_back(std::move(*E));
  }
  return Out;
}

/// An exclusive lock on PATH.lock, released on destruction.
class FileLock {
public:
  explicit FileLock(const std::string &Path) {
    Fd = ::open((Path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd >= 0)
      while (::flock(Fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (Fd >= 0)
      ::close(Fd); // Releases the lock.
  }
  bool locked() const { return Fd >= 0; }

private:
  int Fd = -1;
};

/// Creates the folder that holds \p Path and its parents.
void makeParentDirs(const std::string &Path) {
  for (size_t Pos = Path.find('/', 1); Pos != std::string::npos;
       Pos = Path.find('/', Pos + 1))
    ::mkdir(Path.substr(0, Pos).c_str(), 0755);
}

} // namespace

TuneCache::TuneCache(std::string Path, std::FILE *Warnings)
    : Path(std::move(Path)), Warnings(Warnings) {}

std::string TuneCache::defaultPath() {
  if (const char *P = std::getenv("TILE_TUNE_CACHE"); P && *P)
    return P;
  if (const char *D = std::getenv("TILE_CACHE_DIR"); D && *D)
    return std::string(D) + "/tune.json";
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    return std::string(X) + "/tilec/tune.json";
  if (const char *H = std::getenv("HOME"); H && *H)
    return std::string(H) + "/.cache/tilec/tune.json";
  return "";
}

std::vector<TuneEntry> TuneCache::read() {
  if (!std::ifstream(Path))
    return {};
  Expected<json::Value> V = json::readFile(Path); // Errors name the file.
  Expected<std::vector<TuneEntry>> Entries =
      V ? fromFile(*V) : Expected<std::vector<TuneEntry>>(V.takeError());
  if (Entries)
    return std::move(*Entries);
  std::string Why = Entries.message();
  if (Why.compare(0, Path.size(), Path) != 0)
    Why = Path + ": " + Why;
  if (!Warned && Warnings)
    std::fprintf(Warnings,
                 "warning: unreadable tune cache %s; it is ignored and "
                 "rebuilt by the next tuning\n",
                 Why.c_str());
  Warned = true;
  return {};
}

std::vector<TuneEntry> TuneCache::entries() { return read(); }

std::optional<TuneEntry> TuneCache::lookup(const TuneKey &Key) {
  for (TuneEntry &E : read())
    if (E.Key == Key)
      return std::move(E);
  return std::nullopt;
}

Error TuneCache::store(const TuneEntry &E) {
  if (Path.empty())
    return makeError("no tune cache path (set TILE_TUNE_CACHE or HOME)");
  makeParentDirs(Path);
  FileLock Lock(Path);
  if (!Lock.locked())
    return makeError("cannot lock " + Path + ".lock: " + std::strerror(errno));
  std::vector<TuneEntry> Entries = read();
  bool Replaced = false;
  for (TuneEntry &Old : Entries)
    if (Old.Key == E.Key) {
      Old = E;
      Replaced = true;
    }
  if (!Replaced)
    Entries.push_back(E);
  json::Array Array;
  for (const TuneEntry &Entry : Entries)
    Array.push_back(toJson(Entry));
  json::Value File = json::Object{};
  File.set("format", FormatName);
  File.set("version", 1);
  File.set("entries", json::Value(std::move(Array)));
  return json::writeFile(Path, File);
}
