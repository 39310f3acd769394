//===- FfiTest.cpp - The C API through dlopen, as an FFI would use it -----===//

#include "TestBundle.h"

#include "tile/runtime/Random.h"
#include "tile/runtime/tile_runtime.h"

#include "gtest/gtest.h"

#include <cstring>
#include <dlfcn.h>

namespace {

template <typename Fn> Fn lookup(void *Lib, const char *Name) {
  void *P = dlsym(Lib, Name);
  EXPECT_NE(P, nullptr) << Name;
  return reinterpret_cast<Fn>(P);
}

TEST(FfiTest, SharedLibraryRunsABundle) {
  void *Lib = dlopen(TILE_RUNTIME_SHARED, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(Lib, nullptr) << dlerror();
  // Only the C API is exported.
  EXPECT_EQ(dlsym(Lib, "_ZN4tile2rt4json5parseESt17basic_string_viewIcSt11char_"
                       "traitsIcEE"),
            nullptr);
#define TILE_FN(Name) auto Name = lookup<decltype(&::Name)>(Lib, #Name)
  TILE_FN(tile_last_error);
  TILE_FN(tile_device_open);
  TILE_FN(tile_device_close);
  TILE_FN(tile_buffer_create);
  TILE_FN(tile_buffer_free);
  TILE_FN(tile_buffer_upload);
  TILE_FN(tile_buffer_download);
  TILE_FN(tile_bundle_load);
  TILE_FN(tile_bundle_free);
  TILE_FN(tile_launch);
#undef TILE_FN
  ASSERT_FALSE(testing::Test::HasFailure());

  std::string Dir = tile::rt::test::makeHostBundle("ffi");
  tile_device *Dev = tile_device_open("host");
  ASSERT_NE(Dev, nullptr) << tile_last_error();
  tile_bundle *B = tile_bundle_load(Dev, Dir.c_str());
  ASSERT_NE(B, nullptr) << tile_last_error();

  // u4_affine on a 3 x 5 tensor: Y = X * 3 + c.
  const int64_t Shape[2] = {3, 5};
  auto X = tile::rt::generateTensor("u4", 15, 4, "X");
  ASSERT_TRUE(X);
  tile_buffer *BX = tile_buffer_create(Dev, X->size());
  tile_buffer *BY = tile_buffer_create(Dev, 15);
  ASSERT_TRUE(BX && BY) << tile_last_error();
  ASSERT_EQ(tile_buffer_upload(BX, X->data(), X->size(), 0), 0);
  tile_arg Args[3] = {{1, BX, Shape, 2, "u4", 0},
                      {1, BY, Shape, 2, "u8", 0},
                      {0, nullptr, nullptr, 0, nullptr, 200}};
  ASSERT_EQ(tile_launch(B, "u4_affine", Args, 3), 0) << tile_last_error();
  uint8_t Y[15];
  ASSERT_EQ(tile_buffer_download(BY, Y, 15, 0), 0);
  for (int I = 0; I < 15; ++I) {
    unsigned Code = ((*X)[I / 2] >> (4 * (I % 2))) & 0xF;
    EXPECT_EQ(Y[I], static_cast<uint8_t>(Code * 3 + 200)) << I;
  }
  Args[2].scalar = 2.5;
  EXPECT_EQ(tile_launch(B, "u4_affine", Args, 3), -1);
  EXPECT_STREQ(tile_last_error(),
               "u4_affine: scalar c of type i32 cannot hold 2.5");

  tile_buffer_free(BX);
  tile_buffer_free(BY);
  tile_bundle_free(B);
  tile_device_close(Dev);
  dlclose(Lib);
}

} // namespace
