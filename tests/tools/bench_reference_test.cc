// The bench's hand-written softmax baseline (tools/bench_reference.h)
// computes softmax: each element within a few ulp of the exact value
// (computed in double with std::exp from the f32 differences x - max), on rows with a vector tail, and only
// on the rows it is asked for.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tools/bench_reference.h"

namespace mxla::bench {
namespace {

void ExpectSoftmax(int64_t rows, int64_t cols) {
  std::vector<float> x(rows * cols), out(rows * cols, -1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) {
    x[i] = 30 * std::sin(0.37f * i) + (i % 7 == 0 ? -80.0f : 0.0f);
  }
  // Rows [1, rows - 1): the first and last stay untouched.
  SoftmaxRows(x.data(), out.data(), cols, 1, rows - 1);
  for (int64_t i = 0; i < rows; ++i) {
    const float* row = x.data() + i * cols;
    const float* o = out.data() + i * cols;
    if (i == 0 || i == rows - 1) {
      for (int64_t j = 0; j < cols; ++j) ASSERT_EQ(o[j], -1.0f) << i << "," << j;
      continue;
    }
    // x - max is rounded to f32 as in any f32 softmax; the rest is exact.
    float m = -INFINITY;
    for (int64_t j = 0; j < cols; ++j) m = std::max(m, row[j]);
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(double(row[j] - m));
    for (int64_t j = 0; j < cols; ++j) {
      const double expected = std::exp(double(row[j] - m)) / sum;
      EXPECT_NEAR(o[j], expected, 2e-6 * expected + 1e-37)
          << "row " << i << ", column " << j << " of " << cols;
    }
  }
}

TEST(BenchReferenceTest, SoftmaxRowsIsSoftmax) {
  ExpectSoftmax(6, 1024);  // the bench's row length
  ExpectSoftmax(5, 37);    // a tail after two 16-lane blocks
  ExpectSoftmax(4, 5);     // only a tail
}

}  // namespace
}  // namespace mxla::bench
