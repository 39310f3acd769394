//===- FakeCuda.h - What the simulated libcuda records ----------*- C++ -*-===//

#ifndef TILE_UNITTESTS_RUNTIME_FAKECUDA_H
#define TILE_UNITTESTS_RUNTIME_FAKECUDA_H

/// The last launch and other observations of the simulated driver.
struct FakeCudaLaunch {
  unsigned Grid[3] = {0, 0, 0};
  unsigned Block[3] = {0, 0, 0};
  unsigned Shared = 0;
  void *Stream = nullptr;
  int SetAttributeValue = -1;
  int LiveAllocations = 0;
  long SetCurrentCalls = 0;
};

extern "C" const FakeCudaLaunch *fakeCudaLastLaunch();

#endif // TILE_UNITTESTS_RUNTIME_FAKECUDA_H
