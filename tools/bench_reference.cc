#include "tools/bench_reference.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "semantics/float32_math.h"

namespace mxla::bench {

void BiasAdd(const float* x, const float* b, float* out, int64_t cols,
             int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = x[i * cols + j] + b[j];
  }
}

void BiasReluScale(const float* x, const float* s, const float* b, float* out,
                   int64_t cols, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out[i * cols + j] = std::max(x[i * cols + j] * s[j] + b[j], 0.0f);
    }
  }
}

void Outer(const float* a, const float* c, float* out, int64_t cols,
           int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = a[i] + c[j];
  }
}

void Compose3d(const float* a, const float* b, float* out, int64_t inner,
               int64_t begin, int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    for (int64_t k = 0; k < inner; ++k) out[r * inner + k] = a[r] + b[k];
  }
}

// Sums and maxima over kLanes independent accumulators: GCC vectorizes them
// without reassociating anything.
constexpr int64_t kLanes = 16;

void ColumnSum(const float* x, float* out, int64_t rows, int64_t cols,
               int64_t begin, int64_t end) {
  for (int64_t j = begin; j < end; ++j) out[j] = 0;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = begin; j < end; ++j) out[j] += x[i * cols + j];
  }
}

void Sum(const float* x, float* out, int64_t n) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += x[i + l];
  }
  float total = 0;
  for (; i < n; ++i) total += x[i];
  for (float lane : lanes) total += lane;
  *out = total;
}

void ScaleByExp(const float* x, const float* v, float* out, int64_t cols,
                int64_t begin, int64_t end) {
  std::vector<float> scale(cols);
  for (int64_t j = 0; j < cols; ++j) scale[j] = std::exp(v[j]);
  for (int64_t i = begin; i < end; ++i) {
    const float* row = x + i * cols;
    float* o = out + i * cols;
    for (int64_t j = 0; j < cols; ++j) o[j] = row[j] * scale[j];
  }
}

void Chain10(const float* a, const float* b, const float* c, float* out,
             int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    float v = ((a[i] * b[i] + c[i]) * a[i] - b[i]) / (c[i] * c[i] + 1.0f);
    out[i] = std::min(std::max(v, 0.5f * b[i]), a[i]);
  }
}

void StreamCopy(const float* a, float* c, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) c[i] = a[i];
}

void StreamTriad(const float* b, const float* c, float* a, float s,
                 int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
}

void StreamFill(float* a, float s, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) a[i] = s;
}

void StreamTriadNonTemporal(const float* b, const float* c, float* a, float s,
                            int64_t begin, int64_t end) {
  int64_t i = begin;
  // Scalar until `a` is 32-byte aligned, then streaming AVX stores.
  for (; i < end && (reinterpret_cast<uintptr_t>(a + i) & 31) != 0; ++i) {
    a[i] = b[i] + s * c[i];
  }
#if defined(__AVX__)
  const __m256 scale = _mm256_set1_ps(s);
  for (; i + 8 <= end; i += 8) {
    __m256 v = _mm256_add_ps(_mm256_loadu_ps(b + i),
                             _mm256_mul_ps(scale, _mm256_loadu_ps(c + i)));
    _mm256_stream_ps(a + i, v);
  }
  _mm_sfence();
#endif
  for (; i < end; ++i) a[i] = b[i] + s * c[i];
}

void StreamFillNonTemporal(float* a, float s, int64_t begin, int64_t end) {
  int64_t i = begin;
  for (; i < end && (reinterpret_cast<uintptr_t>(a + i) & 31) != 0; ++i) {
    a[i] = s;
  }
#if defined(__AVX__)
  const __m256 value = _mm256_set1_ps(s);
  for (; i + 8 <= end; i += 8) _mm256_stream_ps(a + i, value);
  _mm_sfence();
#endif
  for (; i < end; ++i) a[i] = s;
}

void Matmul(const float* a, const float* b, float* out, int64_t k, int64_t n,
            int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    float* row = out + i * n;
    std::fill(row, row + n, 0.0f);
    for (int64_t p = 0; p < k; ++p) {
      const float a_ip = a[i * k + p];
      const float* b_row = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += a_ip * b_row[j];
    }
  }
}

}  // namespace mxla::bench
