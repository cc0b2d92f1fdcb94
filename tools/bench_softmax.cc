// The softmax baseline of `mxla bench`, alone in a file compiled with
// -ffast-math (tools/CMakeLists.txt): that lets GCC vectorize the max and
// the sum in any order and call glibc's vector expf (libmvec), which is what
// an optimizing compiler with a vector math library gives a hand loop. The
// JIT keeps XLA's exact semantics, so this baseline is strictly easier.
#include <cmath>

#include "tools/bench_reference.h"

namespace mxla::bench {

void SoftmaxRows(const float* __restrict x, float* __restrict out,
                 int64_t cols, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const float* __restrict row = x + i * cols;
    float* __restrict o = out + i * cols;
    float m = row[0];
    for (int64_t j = 1; j < cols; ++j) m = row[j] > m ? row[j] : m;
    // One read of the row from memory; the second pass reads `o` from L1.
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) {
      const float e = expf(row[j] - m);
      o[j] = e;
      sum += e;
    }
    const float inverse = 1.0f / sum;
    for (int64_t j = 0; j < cols; ++j) o[j] *= inverse;
  }
}

void AttentionRows(const float* __restrict q, const float* __restrict k,
                   float* __restrict out, int64_t s, int64_t d, float scale,
                   int64_t begin, int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    const float* __restrict row = q + r * d;
    const float* __restrict keys = k + r / s * s * d;
    float* __restrict o = out + r * s;
    for (int64_t j = 0; j < s; ++j) {
      float sum = 0.0f;
      for (int64_t c = 0; c < d; ++c) sum += row[c] * keys[j * d + c];
      o[j] = sum * scale;
    }
    SoftmaxRows(o, o, s, 0, 1);
  }
}

}  // namespace mxla::bench
