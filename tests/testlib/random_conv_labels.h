// Random convolution dimension numbers for the seeded convolution tests:
// each of the input, kernel and output dimension orders is a random
// permutation (batch or input feature first, then feature or output
// feature, then the spatial dimensions), so every dim_labels form turns up.
#ifndef MXLA_TESTS_TESTLIB_RANDOM_CONV_LABELS_H_
#define MXLA_TESTS_TESTLIB_RANDOM_CONV_LABELS_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ir/convolution_dimension_numbers.h"

namespace mxla::testing {

inline ConvolutionDimensionNumbers RandomConvLabels(int64_t spatial_dims,
                                                    std::mt19937& rng) {
  const int64_t rank = spatial_dims + 2;
  auto permutation = [&] {
    std::vector<int64_t> p(rank);
    for (int64_t i = 0; i < rank; ++i) p[i] = i;
    std::shuffle(p.begin(), p.end(), rng);
    return p;
  };
  const std::vector<int64_t> in = permutation(), kernel = permutation(),
                             out = permutation();
  ConvolutionDimensionNumbers dnums;
  dnums.input_batch = in[0];
  dnums.input_feature = in[1];
  dnums.kernel_input_feature = kernel[0];
  dnums.kernel_output_feature = kernel[1];
  dnums.output_batch = out[0];
  dnums.output_feature = out[1];
  for (int64_t i = 0; i < spatial_dims; ++i) {
    dnums.input_spatial.push_back(in[2 + i]);
    dnums.kernel_spatial.push_back(kernel[2 + i]);
    dnums.output_spatial.push_back(out[2 + i]);
  }
  return dnums;
}

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_RANDOM_CONV_LABELS_H_
