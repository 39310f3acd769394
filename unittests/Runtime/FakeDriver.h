//===- FakeDriver.h - What the simulated drivers record ---------*- C++ -*-===//

#ifndef TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H
#define TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H

/// The last launch and other observations of a simulated driver.
struct FakeLaunch {
  unsigned Grid[3] = {0, 0, 0};
  unsigned Block[3] = {0, 0, 0};
  unsigned Shared = 0;
  void *Stream = nullptr;
  int SetAttributeValue = -1;
  int LiveAllocations = 0;
};

extern "C" const FakeLaunch *fakeCudaLastLaunch();
extern "C" const FakeLaunch *fakeHipLastLaunch();

#endif // TILE_UNITTESTS_RUNTIME_FAKEDRIVER_H
