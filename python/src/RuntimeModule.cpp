//===- RuntimeModule.cpp - tilec._runtime: launching from Python ----------===//
//
// Part of tilec's Python package. The runtime half of the package, with no
// LLVM in it: devices, bundle kernels as callables (Launcher), the weight
// packing of docs/Numerics.md. Every runtime failure is raised as
// tilec.Error (this module's Error).
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"

#include "tile/Numerics/OperandPack.h"

#include <algorithm>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace tile;
using namespace tile::python;

namespace {

nb::list params(const Launcher &L) {
  nb::list R;
  for (const rt::ParamInfo &P : L.info().Signature.Params) {
    nb::dict D;
    D["name"] = P.Name;
    D["kind"] = P.Kind == rt::ParamKind::Tensor   ? "tensor"
                : P.Kind == rt::ParamKind::Scalar ? "scalar"
                                                  : "dim";
    D["dtype"] = P.DType;
    D["shape"] = nb::cast(P.Shape);
    D["mut"] = P.Mut;
    R.append(D);
  }
  return R;
}

/// The bytes of any buffer (numpy array, bytes, memoryview).
std::string bufferBytes(nb::handle Obj) {
  Py_buffer B;
  if (PyObject_GetBuffer(Obj.ptr(), &B, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw TileError("expected a contiguous buffer (a numpy uint8 array or "
                    "bytes)");
  }
  std::string Data(static_cast<const char *>(B.buf), size_t(B.len));
  PyBuffer_Release(&B);
  return Data;
}

nb::bytes permute(nb::handle W, unsigned Bits, uint64_t K, uint64_t N,
                  uint64_t BK, const std::string &OrderName, bool Pack) {
  auto Order = numerics::parseOperandOrder(OrderName);
  if (!Order)
    throw TileError(Order.message());
  std::string In = bufferBytes(W);
  if (BK == 0)
    BK = numerics::defaultOperandBlockK(Bits);
  uint64_t Need = (K * N * Bits + 7) / 8;
  if (In.size() < Need)
    throw TileError("a [" + std::to_string(K) + ", " + std::to_string(N) +
                    "] weight of " + std::to_string(Bits) +
                    "-bit codes needs " + std::to_string(Need) +
                    " bytes but got " + std::to_string(In.size()));
  const auto *Data = reinterpret_cast<const uint8_t *>(In.data());
  auto Out = Pack ? numerics::packOperandOrder(Data, Bits, K, N, BK, *Order)
                  : numerics::unpackOperandOrder(Data, Bits, K, N, BK, *Order);
  if (!Out)
    throw TileError(Out.message());
  return nb::bytes(reinterpret_cast<const char *>(Out->data()), Out->size());
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "tilec's runtime: devices and compiled kernels (no LLVM needed)";
  nb::exception<TileError>(m, "Error");

  nb::class_<rt::Device>(m, "Device")
      .def_static(
          "open",
          [](const std::string &Spec) {
            return unwrap(rt::Device::open(Spec));
          },
          nb::arg("spec"),
          "Opens 'host', 'cuda[:N]', 'hip[:N]', 'cuda-emu' or 'hip-emu'.")
      .def_prop_ro("name", &rt::Device::name)
      .def_prop_ro("arch", &rt::Device::arch)
      .def_prop_ro("platform",
                   [](const rt::Device &D) {
                     return std::string(rt::platformName(D.platform()));
                   })
      .def_prop_ro("ordinal", &rt::Device::ordinal)
      .def_prop_ro("compute_units", &rt::Device::computeUnits)
      .def(
          "allocate",
          [](rt::Device &D, uint64_t Bytes) {
            return unwrap(D.allocate(Bytes));
          },
          nb::arg("nbytes"),
          "Device memory (freed with the last reference); its `address` "
          "is what kernels take, e.g. through an object's data_ptr().")
      .def("synchronize",
           [](rt::Device &D) {
             if (rt::Error E = D.synchronize())
               throw TileError(E.message());
           })
      .def("__repr__", [](const rt::Device &D) {
        return "<tilec Device " + D.name() + " (" +
               rt::platformName(D.platform()) + ")>";
      });

  nb::class_<rt::Buffer>(m, "Buffer")
      .def_prop_ro("address", &rt::Buffer::address)
      .def_prop_ro("nbytes", &rt::Buffer::size)
      .def(
          "upload",
          [](rt::Buffer &B, nb::handle Data) {
            std::string Bytes = bufferBytes(Data);
            if (Bytes.size() > B.size())
              throw TileError("upload of " + std::to_string(Bytes.size()) +
                              " bytes into a buffer of " +
                              std::to_string(B.size()));
            if (rt::Error E = B.upload(Bytes.data(), Bytes.size()))
              throw TileError(E.message());
          },
          nb::arg("data"))
      .def("download", [](const rt::Buffer &B) {
        std::vector<uint8_t> Data = unwrap(B.read());
        return nb::bytes(reinterpret_cast<const char *>(Data.data()),
                         Data.size());
      });

  nb::class_<Launcher>(m, "Launcher")
      .def(nb::init<const std::string &, const std::string &,
                    const std::string &>(),
           nb::arg("bundle_dir"), nb::arg("name"), nb::arg("device"))
      .def("__call__",
           [](Launcher &L, nb::args Args, nb::kwargs Kwargs) {
             L.call(Args.ptr(), Kwargs.ptr());
           })
      .def("load", &Launcher::load)
      .def_prop_ro("name", [](const Launcher &L) { return L.info().name(); })
      .def_prop_ro("target", [](const Launcher &L) { return L.info().Target; })
      .def_prop_ro("object_kind",
                   [](const Launcher &L) {
                     return std::string(rt::objectKindName(L.info().Kind));
                   })
      .def_prop_ro("device", &Launcher::deviceSpec)
      .def_prop_ro("bundle_dir", &Launcher::directory)
      .def_prop_ro("params", &params)
      .def_prop_ro("grid",
                   [](const Launcher &L) {
                     const auto &G = L.info().Signature.Grid;
                     return nb::make_tuple(G[0], G[1], G[2]);
                   })
      .def_prop_ro(
          "constants",
          [](const Launcher &L) { return rt::constantTexts(L.info()); })
      .def_prop_ro("warps", [](const Launcher &L) { return L.info().Warps; })
      .def_prop_ro(
          "dependent_launch",
          [](const Launcher &L) { return L.info().Launch.DependentLaunch; })
      .def_prop_ro(
          "shared_bytes",
          [](const Launcher &L) { return L.info().Launch.SharedBytes; })
      .def_prop_ro("registers",
                   [](const Launcher &L) { return L.info().Registers; })
      .def_prop_ro("spills", [](const Launcher &L) { return L.info().Spills; })
      .def_prop_ro("warnings",
                   [](const Launcher &L) { return L.info().Warnings; })
      .def_prop_ro("variants", &Launcher::numVariants);

  m.def(
      "bundle_kernels",
      [](const std::string &Dir) {
        rt::Bundle B = unwrap(rt::Bundle::load(Dir));
        std::vector<std::string> Names;
        for (const rt::KernelInfo &K : B.manifest().Kernels)
          if (std::find(Names.begin(), Names.end(), K.name()) == Names.end())
            Names.push_back(K.name());
        return Names;
      },
      nb::arg("bundle_dir"), "The kernel names of a bundle, in order.");
  m.def(
      "pack_weights",
      [](nb::handle W, unsigned Bits, uint64_t K, uint64_t N, uint64_t BK,
         const std::string &Order) {
        return permute(W, Bits, K, N, BK, Order, /*Pack=*/true);
      },
      nb::arg("w"), nb::arg("bits"), nb::arg("k"), nb::arg("n"),
      nb::arg("block_k") = 0, nb::arg("order") = "mma");
  m.def(
      "unpack_weights",
      [](nb::handle W, unsigned Bits, uint64_t K, uint64_t N, uint64_t BK,
         const std::string &Order) {
        return permute(W, Bits, K, N, BK, Order, /*Pack=*/false);
      },
      nb::arg("packed"), nb::arg("bits"), nb::arg("k"), nb::arg("n"),
      nb::arg("block_k") = 0, nb::arg("order") = "mma");
}
