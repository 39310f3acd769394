//===- EmuTestSupport.h - Fixture shared by the emulator tests --*- C++ -*-===//
//
// Part of tilec. The NVIDIA (NvEmuTest.cpp) and AMD (AmdEmuTest.cpp)
// emulator tests open an emulated device, load a hand-written code object
// and launch its kernels with 64-bit parameter slots; this fixture does
// that and moves data in and out of device buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTESTS_RUNTIME_EMUTESTSUPPORT_H
#define TILE_UNITTESTS_RUNTIME_EMUTESTSUPPORT_H

#include "tile/runtime/Runtime.h"
#include "tile/runtime/Signature.h"

#include "gtest/gtest.h"

#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace tile {
namespace rt {
namespace test {

/// Opens device \p DeviceSpec and loads \p Object of kind \p Kind.
class EmuTestBase : public testing::Test {
protected:
  void open(const char *DeviceSpec, const char *Object, rt::ObjectKind Kind) {
    rt::Expected<rt::Device> D = rt::Device::open(DeviceSpec);
    ASSERT_TRUE(D) << D.message();
    Dev = *D;
    rt::Expected<rt::Module> M = Dev.loadModule(Object, Kind);
    ASSERT_TRUE(M) << M.message();
    Mod = *M;
  }

  /// Launches kernel \p Name with 64-bit parameter slots \p Slots.
  rt::Error run(const std::string &Name, uint32_t Threads, uint32_t SharedBytes,
                std::array<uint32_t, 3> Grid, std::vector<uint64_t> Slots) {
    rt::KernelSignature Sig;
    Sig.Name = Name;
    for (size_t I = 0; I < Slots.size(); ++I)
      Sig.Params.push_back(
          {"p" + std::to_string(I), rt::ParamKind::Scalar, "i32", {}, false});
    rt::Expected<rt::Kernel> K =
        Mod.getKernel(Name, Sig, {Threads, SharedBytes});
    if (!K)
      return K.takeError();
    rt::BoundArgs B;
    B.Grid = Grid;
    B.Slots = std::move(Slots);
    return K->launch(B);
  }

  template <typename T> rt::Buffer upload(const std::vector<T> &Data) {
    rt::Expected<rt::Buffer> B = Dev.allocate(Data.size() * sizeof(T));
    EXPECT_TRUE(B) << B.message();
    EXPECT_FALSE(B->upload(Data.data(), Data.size() * sizeof(T)));
    return *B;
  }
  /// A buffer of \p N elements filled with 0xEE bytes.
  template <typename T> rt::Buffer output(size_t N) {
    return upload(std::vector<T>(N, poison<T>()));
  }
  template <typename T> static T poison() {
    T V;
    std::memset(&V, 0xEE, sizeof(T));
    return V;
  }
  template <typename T> std::vector<T> read(const rt::Buffer &B) {
    std::vector<T> Out(B.size() / sizeof(T));
    EXPECT_FALSE(B.download(Out.data(), Out.size() * sizeof(T)));
    return Out;
  }

  /// Success when \p E failed with a message containing each of \p Parts.
  static testing::AssertionResult
  failsWith(const rt::Error &E, std::initializer_list<const char *> Parts) {
    if (!E)
      return testing::AssertionFailure() << "the launch succeeded";
    for (const char *Part : Parts)
      if (E.message().find(Part) == std::string::npos)
        return testing::AssertionFailure() << "no \"" << Part << "\" in:\n"
                                           << E.message();
    return testing::AssertionSuccess();
  }

  rt::Device Dev;
  rt::Module Mod;
};

/// \p N seeded random 32-bit words.
inline std::vector<uint32_t> randomWords(size_t N, unsigned Seed) {
  std::mt19937 Gen(Seed);
  std::vector<uint32_t> V(N);
  for (uint32_t &X : V)
    X = Gen();
  return V;
}

/// What the "rotate" test kernels leave in each thread of a block of
/// \p Threads starting from values \p In after \p Rounds rounds: each round
/// a thread takes the sum of the values of threads t+1+round and t-1
/// (mod Threads).
inline std::vector<uint32_t> rotateReference(std::vector<uint32_t> V,
                                             uint32_t Rounds) {
  auto Threads = static_cast<uint32_t>(V.size());
  for (uint32_t R = 0; R < Rounds; ++R) {
    std::vector<uint32_t> Next(Threads);
    for (uint32_t T = 0; T < Threads; ++T)
      Next[T] = V[(T + 1 + R) % Threads] + V[(T + Threads - 1) % Threads];
    V.swap(Next);
  }
  return V;
}

/// Checks the names of platform \p P and object kind \p K, and that the
/// kind runs on the platform.
inline void expectNames(rt::Platform P, const char *PlatformName,
                        rt::ObjectKind K, const char *KindName) {
  EXPECT_STREQ(rt::platformName(P), PlatformName);
  EXPECT_STREQ(rt::objectKindName(K), KindName);
  rt::Expected<rt::ObjectKind> Parsed = rt::parseObjectKind(KindName);
  ASSERT_TRUE(Parsed) << Parsed.message();
  EXPECT_EQ(*Parsed, K);
  EXPECT_EQ(rt::platformOf(K), P);
}

inline bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace test
} // namespace rt
} // namespace tile

#endif // TILE_UNITTESTS_RUNTIME_EMUTESTSUPPORT_H
