//===- Launcher.h - A bundle kernel callable from Python --------*- C++ -*-===//
//
// Part of tilec's Python package. A Launcher is one kernel of a bundle
// directory (every shape-bucket variant of it) for one device spec. It reads
// the manifest when made and loads the code objects on the first call, so a
// kernel for a GPU can be compiled and inspected on a machine without one.
// A call binds the arguments, picks the variant of their shape bucket and
// launches on the caller's stream (GPU tensors; returns once queued) or runs
// to completion (host, emulators, and host arrays staged through a GPU).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PYTHON_LAUNCHER_H
#define TILEC_PYTHON_LAUNCHER_H

#include "Arguments.h"

#include "tile/runtime/Bundle.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tile {
namespace python {

class Launcher {
public:
  /// Reads \p Dir/manifest.json and finds kernel \p Name; \p DeviceSpec as
  /// rt::Device::open takes it. Throws TileError.
  Launcher(const std::string &Dir, const std::string &Name,
           const std::string &DeviceSpec);

  /// Launches with positional \p Args and keyword \p Kwargs (parameters by
  /// name, runtime dimensions by name, `stream`).
  void call(PyObject *Args, PyObject *Kwargs);

  /// The kernel as compiled (the variant for shapes outside every bucket).
  const rt::KernelInfo &info() const { return Infos.front(); }
  size_t numVariants() const { return Infos.size(); }
  const std::string &deviceSpec() const { return Spec; }
  const std::string &directory() const { return Dir; }
  /// Opens the device and loads every variant that runs on it (done by
  /// the first call otherwise).
  void load();

private:
  struct Prepared;
  void prepare(PyObject *Args, PyObject *Kwargs, Prepared &P);
  void addTensor(size_t Index, PyObject *Obj, Prepared &P);
  void stageIn(Prepared &P);
  void stageOut(Prepared &P);

  std::string Dir, Name, Spec;
  rt::Bundle B;
  std::vector<rt::KernelInfo> Infos;
  /// The user parameters (tensors and scalars), then the dimensions.
  std::vector<const rt::ParamInfo *> UserParams;
  std::mutex LoadLock;
  bool Loaded = false;
  std::optional<rt::Device> Dev;
  std::vector<rt::KernelInfo> LoadedInfos;
  std::vector<rt::Kernel> Kernels;
};

} // namespace python
} // namespace tile

#endif // TILEC_PYTHON_LAUNCHER_H
