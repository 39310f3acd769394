//===- embed_jit.cpp - Embedding tilec in an application ------------------===//
//
// Part of tilec's examples. An application that carries its kernel as source
// text, compiles it at run time with the JIT library (cached on disk after
// the first run), and launches it through the runtime:
//
//   embed_jit [ROWS] [COLS]
//
// It computes a row-wise softmax, checks it against a plain loop and prints
// the largest error.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

// The kernel, as an application would ship it.
static const char *kSoftmax = R"(
kernel softmax_f32<ROWS: int = 4, COLS: int = 256>(x: f32[M, N], y: mut f32[M, N])
    grid(cdiv(M, ROWS)) warps 4
{
    let r0 = program_id(0) * ROWS;
    let t = load(x[r0 : r0 + ROWS, 0 : COLS], other = -inf);
    let e = exp(t - max(t, 1)[:, None]);
    store(y[r0 : r0 + ROWS, 0 : COLS], e / sum(e, 1)[:, None]);
}
)";

int main(int argc, char **argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 37;
  int64_t cols = argc > 2 ? std::atoll(argv[2]) : 200;
  if (rows < 1 || cols < 1 || cols > 256) {
    std::fprintf(stderr, "usage: embed_jit [ROWS] [COLS <= 256]\n");
    return 2;
  }

  // 1. Compile (or fetch from the cache) for the host.
  tile::jit::Compiler compiler;
  tile::jit::CompileOptions options;
  options.target = "host";
  auto compiled = compiler.compileKernel(kSoftmax, "softmax_f32.tile",
                                         "softmax_f32", options);
  if (!compiled) {
    std::fprintf(stderr, "compile error:\n%s\n", compiled.message().c_str());
    return 1;
  }

  // 2. Load it on a device and make buffers.
  auto device = tile::rt::Device::open("host");
  auto kernel = compiler.load(**compiled, *device);
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.message().c_str());
    return 1;
  }
  std::vector<float> x(rows * cols), y(rows * cols, NAN);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  for (float &v : x)
    v = normal(rng);
  uint64_t bytes = x.size() * sizeof(float);
  auto bx = device->allocate(bytes), by = device->allocate(bytes);
  if (!bx || !by || bx->upload(x.data(), bytes) ||
      by->upload(y.data(), bytes)) {
    std::fprintf(stderr, "cannot allocate or upload\n");
    return 1;
  }

  // 3. Launch: the runtime checks dtypes and shapes and infers M and N.
  using tile::rt::ArgValue;
  if (auto err = kernel->launch(
          {ArgValue::tensor(bx->address(), bytes, {rows, cols}, "f32"),
           ArgValue::tensor(by->address(), bytes, {rows, cols}, "f32")})) {
    std::fprintf(stderr, "launch failed: %s\n", err.message().c_str());
    return 1;
  }
  if (by->download(y.data(), bytes))
    return 1;

  // 4. Check against a plain loop.
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(x[r * cols + c] - mx);
    for (int64_t c = 0; c < cols; ++c) {
      double want = std::exp(x[r * cols + c] - mx) / sum;
      worst = std::max(worst, std::fabs(y[r * cols + c] - want));
    }
  }
  auto stats = compiler.stats();
  std::printf("softmax %lldx%lld on %s: max abs error %.3g (%s)\n",
              (long long)rows, (long long)cols, device->name().c_str(), worst,
              stats.Compilations ? "compiled" : "from the disk cache");
  return worst < 1e-5 ? 0 : 1;
}
