/* Ahead-of-time compilation from C: the build runs
 *
 *   mxla compile bias_relu.hlo -o bias_relu
 *
 * and links bias_relu.o into this plain C program, with libm and no mxla or
 * LLVM library. The header declares the function and every buffer's shape.
 * Checks its result against the same arithmetic written here. */
#include <stdio.h>

#include "bias_relu.h"

int main(void) {
  enum { kRows = 4, kCols = 8 };
  /* The header states the shapes the object was compiled for. */
  if (bias_relu_arg0_dims[0] != kRows || bias_relu_arg0_dims[1] != kCols ||
      BIAS_RELU_RESULT0_BYTES != sizeof(float) * kRows * kCols ||
      BIAS_RELU_TEMP_BYTES != 0) {
    fprintf(stderr, "unexpected shapes in bias_relu.h\n");
    return 1;
  }
  float x[kRows][kCols], v[kCols], out[kRows][kCols];
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) x[i][j] = (float)(i - j);
  }
  for (int j = 0; j < kCols; ++j) v[j] = 0.5f * (float)j;

  bias_relu_run(&x[0][0], v, &out[0][0], /*temp=*/NULL);

  int wrong = 0;
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kCols; ++j) {
      const float sum = x[i][j] + v[j];
      const float expected = sum > 0 ? sum : 0;
      if (out[i][j] != expected) {
        fprintf(stderr, "out[%d][%d] = %g, expected %g\n", i, j, out[i][j],
                expected);
        wrong = 1;
      }
    }
    for (int j = 0; j < kCols; ++j) printf("%5.1f", out[i][j]);
    printf("\n");
  }
  return wrong;
}
