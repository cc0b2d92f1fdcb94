// convolution's dimension numbers (XLA's ConvolutionDimensionNumbers):
// which input (lhs) dimension is the batch, which the feature and which the
// spatial ones; likewise for the kernel (rhs: input and output feature)
// and the output. HLO text writes them as `dim_labels=b01f_01io->b01f`:
// per dimension of lhs, rhs and output in order, its letter (b, f; i, o)
// or the number of its spatial dimension.
#ifndef MXLA_IR_CONVOLUTION_DIMENSION_NUMBERS_H_
#define MXLA_IR_CONVOLUTION_DIMENSION_NUMBERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

struct ConvolutionDimensionNumbers {
  int64_t input_batch = 0;
  int64_t input_feature = 1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0;
  int64_t kernel_output_feature = 1;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0;
  int64_t output_feature = 1;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
};

// Parses `b01f_01io->b01f`; InvalidArgument saying what is wrong with it.
absl::StatusOr<ConvolutionDimensionNumbers> ParseConvolutionDimLabels(
    absl::string_view labels);
// The inverse of ParseConvolutionDimLabels for dimension numbers that name
// each dimension once (those that verify).
std::string ConvolutionDimLabelsToString(
    const ConvolutionDimensionNumbers& dnums);

}  // namespace mxla

#endif  // MXLA_IR_CONVOLUTION_DIMENSION_NUMBERS_H_
