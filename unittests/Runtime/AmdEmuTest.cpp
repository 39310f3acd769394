//===- AmdEmuTest.cpp - Tests of the AMD emulator platform ----------------===//
//
// Runs the hand-written kernels of AmdEmuKernels.cpp on device "hip-emu" and
// checks them against references written here from AMD's definitions: DPP
// controls and ds_swizzle modes as the GCN3/CDNA3 ISA describes them (lane
// formulas per control), ds_bpermute / ds_permute as the ISA's pseudocode,
// and the MFMA register layouts of the AMD Matrix Instruction Calculator,
// on seeded random data. The error tests check that each kind of
// misbehaviour fails the launch with a clear message.
//
//===----------------------------------------------------------------------===//

#include "EmuTestSupport.h"
#include "TestBundle.h"

#include "tile/Emulation/AmdEmuAbi.h"
#include "tile/runtime/Bundle.h"
#include "tile/runtime/Runtime.h"

#include "tile/Numerics/Format.h"

#include <cmath>
#include <filesystem>

using namespace tile::rt;
using test::contains;
using test::randomWords;
namespace num = tile::numerics;

namespace {

class AmdEmuTest : public test::EmuTestBase {
protected:
  void SetUp() override {
    open("hip-emu", TILE_AMDEMU_TEST_KERNELS, ObjectKind::AmdEmuSO);
  }

  /// Runs a one-wave (\p Threads work-item) kernel taking Src words, and
  /// returns the Out words; the launch must succeed.
  std::vector<uint32_t> runWave(const std::string &Name, uint32_t Threads,
                                std::vector<Buffer> In,
                                std::vector<uint64_t> Imms) {
    Buffer Out = output<uint32_t>(64);
    std::vector<uint64_t> Slots;
    for (Buffer &B : In)
      Slots.push_back(B.address());
    Slots.push_back(Out.address());
    Slots.insert(Slots.end(), Imms.begin(), Imms.end());
    Error E = run(Name, Threads, 0, {1, 1, 1}, Slots);
    EXPECT_FALSE(E) << E.message();
    return read<uint32_t>(Out);
  }
};

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

TEST_F(AmdEmuTest, DeviceAndNames) {
  EXPECT_EQ(Dev.platform(), Platform::AmdEmu);
  EXPECT_EQ(Dev.name(), "AMD emulator (CPU)");
  EXPECT_EQ(Dev.arch(), "gfx942");
  test::expectNames(Platform::AmdEmu, "hip-emu", ObjectKind::AmdEmuSO,
                    "amdemu-so");
  EXPECT_EQ(Device::open("hip-emu:1").message(),
            "there is only one emulated AMD device ('hip-emu')");
  // Any GFX9 (CDNA) target runs on the emulator; nothing else does.
  for (const char *T : {"gfx942", "gfx950", "gfx90a"})
    EXPECT_TRUE(
        targetRunsOn(T, ObjectKind::AmdEmuSO, Platform::AmdEmu, "gfx942"))
        << T;
  EXPECT_FALSE(
      targetRunsOn("gfx1100", ObjectKind::AmdEmuSO, Platform::AmdEmu, ""));
  EXPECT_FALSE(
      targetRunsOn("sm_90a", ObjectKind::AmdEmuSO, Platform::AmdEmu, ""));
  EXPECT_FALSE(
      targetRunsOn("gfx942", ObjectKind::Hsaco, Platform::AmdEmu, "gfx942"));
}

TEST_F(AmdEmuTest, LdsSizeComesFromTheCodeObject) {
  KernelSignature Sig;
  Sig.Name = "no_lds";
  EXPECT_TRUE(contains(Mod.getKernel("no_lds", Sig).message(),
                       "kernel 'no_lds' of " +
                           std::string(TILE_AMDEMU_TEST_KERNELS) +
                           " does not export its LDS size (symbol "
                           "__tile_emu_lds_bytes_no_lds)"));
  EXPECT_TRUE(contains(
      Dev.loadModule(TILE_TEST_KERNELS, ObjectKind::AmdEmuSO).message(),
      "is not an amdemu-so code object"));
}

TEST_F(AmdEmuTest, WorkItemRegistersAndDispatchPacket) {
  const uint32_t Threads = 96; // A full wave and a half one.
  const std::array<uint32_t, 3> Grid = {3, 2, 2};
  uint32_t Total = Threads * 12;
  Buffer Out = output<uint32_t>(Total * 16);
  ASSERT_FALSE(run("sregs", Threads, 0, Grid, {Out.address()}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t Z = 0; Z < 2; ++Z)
    for (uint32_t Y = 0; Y < 2; ++Y)
      for (uint32_t X = 0; X < 3; ++X)
        for (uint32_t T = 0; T < Threads; ++T) {
          uint32_t G = ((Z * 2 + Y) * 3 + X) * Threads + T;
          const uint32_t Want[16] = {T, 0,           0, X,       Y,       Z,
                                     3, 2,           2, Threads, Threads, 1,
                                     1, 3 * Threads, 2, 2};
          for (int K = 0; K < 16; ++K)
            ASSERT_EQ(Got[G * 16 + K], Want[K])
                << "work-item " << G << " value " << K;
        }
}

TEST_F(AmdEmuTest, BarrierOrdersLdsAccesses) {
  const uint32_t Threads = 192, Rounds = 5;
  std::vector<uint32_t> In = randomWords(Threads * 2, 11);
  Buffer InB = upload(In), Out = output<uint32_t>(Threads * 2);
  ASSERT_FALSE(run("rotate", Threads, 0, {2, 1, 1},
                   {InB.address(), Out.address(), Rounds}));
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t G = 0; G < 2; ++G) {
    std::vector<uint32_t> V = test::rotateReference(
        {In.begin() + G * Threads, In.begin() + (G + 1) * Threads}, Rounds);
    for (uint32_t T = 0; T < Threads; ++T)
      ASSERT_EQ(Got[G * Threads + T], V[T]) << "workgroup " << G << " " << T;
  }
}

//===----------------------------------------------------------------------===//
// DPP, ds_swizzle, ds_(b)permute, readfirstlane
//===----------------------------------------------------------------------===//

/// The lane lane \p L reads under DPP control \p C, or -1: each control's
/// definition in the GFX9 ISA's DPP_CTRL table, spelled out per control.
int dppReference(uint32_t C, int L) {
  int Row = L / 16, R = L % 16;
  if (C <= 0xFF) {
    int Sel[4] = {int(C & 3), int(C >> 2 & 3), int(C >> 4 & 3),
                  int(C >> 6 & 3)};
    return L - L % 4 + Sel[L % 4];
  }
  int N = static_cast<int>(C & 0xF);
  if (C > 0x100 && C < 0x110) // row_shl:N
    return R + N <= 15 ? L + N : -1;
  if (C > 0x110 && C < 0x120) // row_shr:N
    return R >= N ? L - N : -1;
  if (C > 0x120 && C < 0x130) // row_ror:N
    return Row * 16 + (R + 16 - N) % 16;
  switch (C) {
  case 0x130:
    return L == 63 ? -1 : L + 1;
  case 0x134:
    return L == 63 ? 0 : L + 1;
  case 0x138:
    return L == 0 ? -1 : L - 1;
  case 0x13C:
    return L == 0 ? 63 : L - 1;
  case 0x140:
    return L ^ 15;
  case 0x141:
    return L ^ 7;
  case 0x142:
    return Row == 0 ? -1 : Row * 16 - 1;
  case 0x143:
    return Row >= 2 ? 31 : -1;
  }
  ADD_FAILURE() << "no reference for control " << C;
  return -1;
}

TEST_F(AmdEmuTest, EveryCdnaDppControlMatchesTheIsa) {
  std::vector<uint32_t> Controls = {0x00, 0x1B, 0xE4, 0xB1, 0x4E, 0xFF};
  for (uint32_t X : randomWords(10, 3))
    Controls.push_back(X & 0xFF);
  for (uint32_t N = 1; N < 16; ++N)
    for (uint32_t Base : {0x100u, 0x110u, 0x120u})
      Controls.push_back(Base + N);
  for (uint32_t C : {0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143})
    Controls.push_back(C);
  std::vector<uint32_t> Masks = randomWords(Controls.size() * 3, 5);
  for (uint32_t Threads : {64u, 48u}) {
    std::vector<uint32_t> Src = randomWords(64, 7 + Threads),
                          Old = randomWords(64, 9 + Threads);
    Buffer SrcB = upload(Src), OldB = upload(Old);
    for (size_t I = 0; I < Controls.size(); ++I) {
      uint32_t C = Controls[I];
      // Full masks for half of the cases, random ones for the others.
      uint32_t RowMask = I % 2 ? Masks[3 * I] & 0xF : 0xF;
      uint32_t BankMask = I % 2 ? Masks[3 * I + 1] & 0xF : 0xF;
      uint32_t Bound = Masks[3 * I + 2] & 1;
      SCOPED_TRACE("dpp_ctrl " + std::to_string(C) + " row_mask " +
                   std::to_string(RowMask) + " bank_mask " +
                   std::to_string(BankMask) + " bound_ctrl " +
                   std::to_string(Bound) + " threads " +
                   std::to_string(Threads));
      std::vector<uint32_t> Got =
          runWave("dpp", Threads, {SrcB, OldB}, {C, RowMask, BankMask, Bound});
      for (int L = 0; L < int(Threads); ++L) {
        bool Writes =
            (RowMask >> (L / 16) & 1) && (BankMask >> (L % 16 / 4) & 1);
        int S = dppReference(C, L);
        uint32_t Want = Old[L];
        if (Writes)
          Want = S >= 0 && S < int(Threads) ? Src[S] : Bound ? 0 : Old[L];
        ASSERT_EQ(Got[L], Want) << "lane " << L << " source " << S;
      }
    }
  }
}

TEST_F(AmdEmuTest, DsSwizzleInBothModes) {
  std::vector<uint32_t> Src = randomWords(64, 21);
  Buffer SrcB = upload(Src);
  std::vector<uint32_t> Patterns = {0x041F, 0x001F, 0x0020, 0x7C1F,
                                    0x8000, 0x80E4, 0x801B};
  for (uint32_t X : randomWords(12, 23))
    Patterns.push_back(X & 0x7FFF); // Bit-mask mode.
  for (uint32_t X : randomWords(6, 25))
    Patterns.push_back(0x8000 | (X & 0xFF)); // Quad-permute mode.
  for (uint32_t P : Patterns) {
    SCOPED_TRACE("offset " + std::to_string(P));
    std::vector<uint32_t> Got = runWave("swizzle", 64, {SrcB}, {P});
    for (uint32_t L = 0; L < 64; ++L) {
      uint32_t S;
      if (P & 0x8000) {
        S = L / 4 * 4 + (P >> (2 * (L % 4)) & 3);
      } else {
        uint32_t And = P & 0x1F, Or = (P >> 5) & 0x1F, Xor = (P >> 10) & 0x1F;
        S = L / 32 * 32 + (((L % 32 & And) | Or) ^ Xor);
      }
      ASSERT_EQ(Got[L], Src[S]) << "lane " << L;
    }
  }
}

TEST_F(AmdEmuTest, DsBpermuteAndDsPermute) {
  std::vector<uint32_t> Src = randomWords(64, 31);
  for (unsigned Seed : {33u, 35u, 37u}) {
    // Byte addresses with stray low bits and high bits (both ignored).
    std::vector<uint32_t> Addr = randomWords(64, Seed);
    if (Seed == 37)
      for (uint32_t &A : Addr)
        A = (A & 0x3) | 4 * (A >> 8 & 7); // Many lanes share a target.
    Buffer SrcB = upload(Src), AddrB = upload(Addr);
    std::vector<uint32_t> Back = runWave("permute", 64, {SrcB, AddrB}, {1});
    std::vector<uint32_t> Fwd = runWave("permute", 64, {SrcB, AddrB}, {0});
    std::vector<uint32_t> Pushed(64, 0);
    for (uint32_t L = 0; L < 64; ++L) // Ascending: the highest lane wins.
      Pushed[(Addr[L] >> 2) & 63] = Src[L];
    for (uint32_t L = 0; L < 64; ++L) {
      ASSERT_EQ(Back[L], Src[(Addr[L] >> 2) & 63]) << "bpermute lane " << L;
      ASSERT_EQ(Fwd[L], Pushed[L]) << "permute lane " << L;
    }
  }
  // Reading a lane that does not exist gives 0.
  std::vector<uint32_t> Addr(64, 60 * 4);
  Buffer SrcB = upload(Src), AddrB = upload(Addr);
  std::vector<uint32_t> Got = runWave("permute", 40, {SrcB, AddrB}, {1});
  for (uint32_t L = 0; L < 40; ++L)
    EXPECT_EQ(Got[L], 0u) << L;
}

TEST_F(AmdEmuTest, ReadFirstLaneReadsTheFirstActiveLane) {
  std::vector<uint32_t> Src = randomWords(64, 41);
  Buffer SrcB = upload(Src);
  for (uint32_t Skip : {0u, 5u, 63u}) {
    std::vector<uint32_t> Got = runWave("first_lane", 64, {SrcB}, {Skip});
    for (uint32_t L = 0; L < 64; ++L)
      EXPECT_EQ(Got[L], L < Skip ? poison<uint32_t>() : Src[Skip])
          << "skip " << Skip << " lane " << L;
  }
}

TEST_F(AmdEmuTest, MathTakesSinAndCosInRevolutions) {
  std::vector<float> In(64);
  std::mt19937 Gen(45);
  std::uniform_real_distribution<float> Dist(0.05f, 3.0f);
  for (float &X : In)
    X = Dist(Gen);
  Buffer InB = upload(In), Out = output<float>(64 * TILE_AMD_EMU_NUM_MATH);
  ASSERT_FALSE(run("math", 64, 0, {1, 1, 1}, {InB.address(), Out.address()}));
  std::vector<float> Got = read<float>(Out);
  const double Pi = 3.14159265358979323846;
  for (unsigned I = 0; I < 64; ++I) {
    double X = In[I];
    const double Want[TILE_AMD_EMU_NUM_MATH] = {
        std::exp2(X), std::log2(X),         1 / std::sqrt(X),    1 / X,
        std::sqrt(X), std::sin(2 * Pi * X), std::cos(2 * Pi * X)};
    for (unsigned Fn = 0; Fn < TILE_AMD_EMU_NUM_MATH; ++Fn)
      EXPECT_NEAR(Got[I * TILE_AMD_EMU_NUM_MATH + Fn], Want[Fn],
                  1e-6 * std::max(1.0, std::fabs(Want[Fn])))
          << "function " << Fn << " of " << X;
  }
}

//===----------------------------------------------------------------------===//
// MFMA
//===----------------------------------------------------------------------===//

struct MfmaCase {
  uint32_t Kind;
  unsigned M, K;
  unsigned PerLane; ///< Input elements per lane.
  enum { F16, BF16, I8, FP8, BF8 } In;
};

/// Where A[i][k] (and B[k][j], with i -> j) sits: the calculator's
/// "Lane: M * floor(k / PerLane) + i", element k % PerLane.
void inputAt(const MfmaCase &C, unsigned I, unsigned K, unsigned &Lane,
             unsigned &Elem) {
  Lane = C.M * (K / C.PerLane) + I;
  Elem = K % C.PerLane;
}

/// Where D[i][j] sits: 32x32 "GPR: 4 * floor(i / 8) + (i % 4), Lane: (32 *
/// floor(i / 4)) % 64 + j"; 16x16 "GPR: i % 4, Lane: 16 * floor(i / 4) + j".
void accAt(const MfmaCase &C, unsigned I, unsigned J, unsigned &Lane,
           unsigned &Reg) {
  if (C.M == 32) {
    Reg = 4 * (I / 8) + I % 4;
    Lane = (32 * (I / 4)) % 64 + J;
  } else {
    Reg = I % 4;
    Lane = 16 * (I / 4) + J;
  }
}

TEST_F(AmdEmuTest, MfmaOfEveryKindMatchesAMatrixProduct) {
  const MfmaCase Cases[] = {
      {TILE_AMD_EMU_MFMA_F32_32X32X8_F16, 32, 8, 4, MfmaCase::F16},
      {TILE_AMD_EMU_MFMA_F32_16X16X16_F16, 16, 16, 4, MfmaCase::F16},
      {TILE_AMD_EMU_MFMA_F32_32X32X8_BF16, 32, 8, 4, MfmaCase::BF16},
      {TILE_AMD_EMU_MFMA_F32_16X16X16_BF16, 16, 16, 4, MfmaCase::BF16},
      {TILE_AMD_EMU_MFMA_I32_32X32X16_I8, 32, 16, 8, MfmaCase::I8},
      {TILE_AMD_EMU_MFMA_I32_16X16X32_I8, 16, 32, 8, MfmaCase::I8},
      {TILE_AMD_EMU_MFMA_F32_32X32X16_F16, 32, 16, 8, MfmaCase::F16},
      {TILE_AMD_EMU_MFMA_F32_16X16X32_F16, 16, 32, 8, MfmaCase::F16},
      {TILE_AMD_EMU_MFMA_F32_32X32X16_BF16, 32, 16, 8, MfmaCase::BF16},
      {TILE_AMD_EMU_MFMA_F32_16X16X32_BF16, 16, 32, 8, MfmaCase::BF16},
      {TILE_AMD_EMU_MFMA_I32_32X32X32_I8, 32, 32, 16, MfmaCase::I8},
      {TILE_AMD_EMU_MFMA_I32_16X16X64_I8, 16, 64, 16, MfmaCase::I8},
      // gfx950's 8-bit float kinds: OCP e4m3 (fp8) and e5m2 (bf8) codes.
      {TILE_AMD_EMU_MFMA_F32_32X32X16_FP8, 32, 16, 8, MfmaCase::FP8},
      {TILE_AMD_EMU_MFMA_F32_16X16X32_FP8, 16, 32, 8, MfmaCase::FP8},
      {TILE_AMD_EMU_MFMA_F32_32X32X16_BF8, 32, 16, 8, MfmaCase::BF8},
      {TILE_AMD_EMU_MFMA_F32_16X16X32_BF8, 16, 32, 8, MfmaCase::BF8},
  };
  std::mt19937 Gen(51);
  std::uniform_real_distribution<float> Real(-2.0f, 2.0f);
  std::uniform_int_distribution<int> Int(-128, 127);
  const num::Format E4M3 = *num::Format::smallFloat(4, 3),
                    E5M2 = *num::Format::smallFloat(5, 2);
  for (const MfmaCase &C : Cases) {
    SCOPED_TRACE("mfma kind " + std::to_string(C.Kind));
    unsigned M = C.M, N = C.M, K = C.K;
    // Matrices as codes (f16 / bf16 bits or i8 bytes) and as values.
    std::vector<uint32_t> ACode(M * K), BCode(K * N);
    std::vector<double> AVal(M * K), BVal(K * N);
    auto Fill = [&](std::vector<uint32_t> &Code, std::vector<double> &Val) {
      for (size_t I = 0; I < Code.size(); ++I) {
        if (C.In == MfmaCase::I8) {
          int V = Int(Gen);
          Code[I] = static_cast<uint8_t>(V);
          Val[I] = V;
        } else if (C.In == MfmaCase::FP8 || C.In == MfmaCase::BF8) {
          // Every finite code may come (NaN and infinities drawn again).
          const num::Format &F = C.In == MfmaCase::FP8 ? E4M3 : E5M2;
          do {
            Code[I] = static_cast<uint8_t>(Int(Gen));
            Val[I] = num::decode(F, Code[I]);
          } while (!std::isfinite(Val[I]));
        } else if (C.In == MfmaCase::F16) {
          Code[I] = num::f32ToF16(Real(Gen));
          Val[I] = num::f16ToF32(static_cast<uint16_t>(Code[I]));
        } else {
          Code[I] = num::f32ToBF16(Real(Gen));
          Val[I] = num::bf16ToF32(static_cast<uint16_t>(Code[I]));
        }
      }
    };
    Fill(ACode, AVal);
    Fill(BCode, BVal);
    // Pack the fragments: element e of a lane in half e%2 of word e/2
    // (f16/bf16) or byte e%4 of word e/4 (i8).
    unsigned Bits =
        C.In == MfmaCase::I8 || C.In == MfmaCase::FP8 || C.In == MfmaCase::BF8
            ? 8
            : 16;
    std::vector<uint32_t> AFrag(64 * 4, 0), BFrag(64 * 4, 0);
    for (unsigned I = 0; I < M; ++I)
      for (unsigned Kk = 0; Kk < K; ++Kk) {
        unsigned Lane, Elem;
        inputAt(C, I, Kk, Lane, Elem);
        unsigned Word = Elem * Bits / 32, Shift = Elem * Bits % 32;
        AFrag[Lane * 4 + Word] |= ACode[I * K + Kk] << Shift;
        inputAt(C, I, Kk, Lane, Elem); // B[k][j] with j = I.
        BFrag[Lane * 4 + Word] |= BCode[Kk * N + I] << Shift;
      }
    std::vector<uint32_t> CFrag(64 * 16, 0);
    std::vector<double> CVal(M * N);
    std::vector<uint32_t> CInt = randomWords(M * N, C.Kind + 60);
    for (unsigned I = 0; I < M; ++I)
      for (unsigned J = 0; J < N; ++J) {
        unsigned Lane, Reg;
        accAt(C, I, J, Lane, Reg);
        if (C.In == MfmaCase::I8) {
          CFrag[Lane * 16 + Reg] = CInt[I * N + J];
        } else {
          float F = Real(Gen);
          CVal[I * N + J] = F;
          std::memcpy(&CFrag[Lane * 16 + Reg], &F, 4);
        }
      }
    Buffer AB = upload(AFrag), BB = upload(BFrag), CB = upload(CFrag),
           DB = output<uint32_t>(64 * 16);
    ASSERT_FALSE(
        run("mfma", 64, 0, {1, 1, 1},
            {AB.address(), BB.address(), CB.address(), DB.address(), C.Kind}));
    std::vector<uint32_t> D = read<uint32_t>(DB);
    for (unsigned I = 0; I < M; ++I)
      for (unsigned J = 0; J < N; ++J) {
        unsigned Lane, Reg;
        accAt(C, I, J, Lane, Reg);
        uint32_t GotBits = D[Lane * 16 + Reg];
        if (C.In == MfmaCase::I8) {
          uint32_t Want = CInt[I * N + J];
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Want += static_cast<uint32_t>(int32_t(AVal[I * K + Kk]) *
                                          int32_t(BVal[Kk * N + J]));
          ASSERT_EQ(GotBits, Want) << "D[" << I << "][" << J << "]";
        } else {
          double Want = CVal[I * N + J];
          for (unsigned Kk = 0; Kk < K; ++Kk)
            Want += AVal[I * K + Kk] * BVal[Kk * N + J];
          float Got;
          std::memcpy(&Got, &GotBits, 4);
          ASSERT_FLOAT_EQ(Got, static_cast<float>(Want))
              << "D[" << I << "][" << J << "]";
        }
      }
    // The registers of a 16x16 accumulator beyond the 4th are untouched.
    if (C.M == 16)
      for (unsigned L = 0; L < 64; ++L)
        EXPECT_EQ(D[L * 16 + 4], poison<uint32_t>());
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(AmdEmuTest, OutOfBoundsGlobalAndLdsAccesses) {
  std::vector<uint32_t> In = randomWords(100, 71);
  Buffer InB = upload(In), Out = output<uint32_t>(128);
  EXPECT_TRUE(failsWith(
      run("copy", 128, 0, {1, 1, 1}, {InB.address(), Out.address()}),
      {"28 errors in emulated kernel 'copy' (grid (1,1,1), 128 work-items "
       "per workgroup)",
       "out-of-bounds global read of 4 bytes at offset 400 from the "
       "400-byte allocation",
       "(workgroup (0,0,0), work-item 100)"}));
  // The in-bounds part was copied.
  std::vector<uint32_t> Got = read<uint32_t>(Out);
  for (uint32_t I = 0; I < 100; ++I)
    ASSERT_EQ(Got[I], In[I]) << I;
  // The LDS block is as long as the kernel's symbol says (64 words).
  EXPECT_TRUE(failsWith(run("lds_oob", 128, 0, {1, 1, 1}, {Out.address()}),
                        {"out-of-bounds LDS write of 4 bytes at offset 256 "
                         "from the 256-byte LDS (workgroup (0,0,0), "
                         "work-item 64)"}));
}

TEST_F(AmdEmuTest, LdsRaceAndUninitializedRead) {
  Buffer Out = output<uint32_t>(64);
  EXPECT_TRUE(failsWith(
      run("racy", 64, 0, {1, 1, 1}, {Out.address()}),
      {"LDS race: work-item 1 writes byte 0 (access of 4 bytes at offset "
       "0), which work-item 0 wrote since the last barrier (workgroup "
       "(0,0,0))",
       "uninitialized LDS read: work-item 0 reads byte 4"}));
}

TEST_F(AmdEmuTest, DivergentCollectiveAndDeadlock) {
  Buffer Out = output<uint32_t>(128);
  EXPECT_TRUE(failsWith(
      run("divergent", 64, 0, {1, 1, 1}, {Out.address()}),
      {"divergent wave collective (workgroup (0,0,0), wave 0): lanes 0-31 "
       "at DPP move (dpp_ctrl 0x111, row_mask 0xf, bank_mask 0xf, "
       "bound_ctrl 1), lanes 32-63 at ds_swizzle_b32 (offset 0x41f)"}));
  EXPECT_TRUE(failsWith(
      run("half_barrier", 128, 0, {1, 1, 1}, {Out.address()}),
      {"deadlock in workgroup (0,0,0): every work-item that has not exited "
       "waits; wave 0: lanes 0-31 at s_barrier, lanes 32-63 at "
       "v_readfirstlane_b32; wave 1: lanes 0-31 at s_barrier"}));
}

TEST_F(AmdEmuTest, BadCollectiveOperands) {
  std::vector<uint32_t> Src = randomWords(64, 81);
  Buffer SrcB = upload(Src), Out = output<uint32_t>(64 * 16);
  uint64_t S = SrcB.address(), O = Out.address();
  EXPECT_TRUE(
      failsWith(run("dpp", 64, 0, {1, 1, 1}, {S, S, O, 0x150, 15, 15, 0}),
                {"DPP control 0x150 is not one CDNA defines"}));
  EXPECT_TRUE(failsWith(run("swizzle", 64, 0, {1, 1, 1}, {S, O, 0xE000}),
                        {"unsupported ds_swizzle_b32 offset 0xe000"}));
  // A swizzle reading a lane that does not exist.
  EXPECT_TRUE(failsWith(run("swizzle", 40, 0, {1, 1, 1}, {S, O, 0x7C1F}),
                        {"lane 32 reads lane 63, which is not active"}));
  // MFMA needs the whole wave; an unknown kind is refused.
  Buffer Frag = upload(randomWords(64 * 16, 83));
  uint64_t F = Frag.address();
  EXPECT_TRUE(failsWith(run("mfma", 32, 0, {1, 1, 1}, {F, F, F, O, 0}),
                        {"v_mfma_f32_32x32x8_f16 needs all 64 lanes of the "
                         "wave, but only 32 have not exited"}));
  EXPECT_TRUE(failsWith(run("mfma", 64, 0, {1, 1, 1}, {F, F, F, O, 99}),
                        {"unknown MFMA kind 99"}));
}

TEST_F(AmdEmuTest, TileRunOnTheEmulator) {
  std::string Kernel = test::vaddKernelJson(
      R"("target": "gfx942", "object": "kernels.so", "object_kind": )"
      R"("amdemu-so")",
      1000, 8);
  std::string Dir = test::makeTempBundle(
      "tile_amdemu_run", {{"manifest.json", test::manifestJson({Kernel})}});
  std::filesystem::copy_file(TILE_AMDEMU_TEST_KERNELS, Dir + "/kernels.so");
  test::writeVaddReference(Dir + "/C.npy", 1000, 8);
  std::string Cmd = std::string(TILE_RUN_EXE) + " " + Dir + " --device hip-emu";
  std::string Out;
  EXPECT_EQ(test::runCommand(Cmd, Out), 0) << Out;
  EXPECT_TRUE(contains(Out, "device AMD emulator (CPU) [gfx942]")) << Out;
  EXPECT_TRUE(contains(Out, "PASS vadd[N=1000 seed=8] C: max_abs=0")) << Out;
  test::writeVaddReference(Dir + "/C.npy", 1000, 8, /*CorruptAt=*/17);
  EXPECT_EQ(test::runCommand(Cmd, Out), 1) << Out;
  EXPECT_TRUE(contains(Out, "FAIL vadd[N=1000 seed=8]")) << Out;
  EXPECT_NE(test::runCommand("TILE_AMDEMU_STACK_KB=7 " + Cmd, Out), 0);
  EXPECT_TRUE(contains(Out, "TILE_AMDEMU_STACK_KB must be an integer")) << Out;
}

} // namespace
