#include "ir/convolution_dimension_numbers.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace mxla {
namespace {

// One side of the labels: the positions of its two letters and of each
// spatial dimension, in spatial order.
struct Side {
  int64_t first = -1;   // b or i
  int64_t second = -1;  // f or o
  std::vector<int64_t> spatial;
};

absl::StatusOr<Side> ParseSide(absl::string_view labels,
                               absl::string_view part, char first,
                               char second) {
  Side side;
  const int64_t rank = static_cast<int64_t>(part.size());
  std::vector<int64_t> spatial(rank, -1);
  int64_t spatial_count = 0;
  for (int64_t position = 0; position < rank; ++position) {
    const char c = part[position];
    int64_t* letter = c == first ? &side.first
                      : c == second ? &side.second
                                    : nullptr;
    if (letter != nullptr) {
      if (*letter >= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dim_labels=", labels, ": '", part, "' names '",
            std::string(1, c), "' twice"));
      }
      *letter = position;
      continue;
    }
    if (!absl::ascii_isdigit(c) || c - '0' >= rank - 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dim_labels=", labels, ": unexpected '", std::string(1, c),
          "' in '", part, "' (expected ", std::string(1, first), ", ",
          std::string(1, second), " and the spatial dimensions 0 to ",
          rank - 3, ")"));
    }
    if (spatial[c - '0'] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dim_labels=", labels, ": '", part,
                       "' names spatial dimension ", std::string(1, c),
                       " twice"));
    }
    spatial[c - '0'] = position;
    ++spatial_count;
  }
  if (side.first < 0 || side.second < 0 || spatial_count != rank - 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels=", labels, ": '", part, "' must name ",
        std::string(1, first), ", ", std::string(1, second),
        " and each spatial dimension 0 to ", rank - 3, " once"));
  }
  side.spatial.assign(spatial.begin(), spatial.begin() + spatial_count);
  return side;
}

}  // namespace

absl::StatusOr<ConvolutionDimensionNumbers> ParseConvolutionDimLabels(
    absl::string_view labels) {
  const size_t arrow = labels.find("->");
  const size_t underscore = labels.find('_');
  if (arrow == absl::string_view::npos || underscore == absl::string_view::npos ||
      underscore > arrow) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels=", labels,
        ": expected lhs_rhs->output labels like b01f_01io->b01f"));
  }
  absl::string_view lhs = labels.substr(0, underscore);
  absl::string_view rhs = labels.substr(underscore + 1, arrow - underscore - 1);
  absl::string_view out = labels.substr(arrow + 2);
  if (lhs.size() != rhs.size() || lhs.size() != out.size() ||
      lhs.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels=", labels,
        ": lhs, rhs and output labels must have one rank, at least 2"));
  }
  ConvolutionDimensionNumbers dnums;
  absl::StatusOr<Side> l = ParseSide(labels, lhs, 'b', 'f');
  if (!l.ok()) return l.status();
  absl::StatusOr<Side> r = ParseSide(labels, rhs, 'i', 'o');
  if (!r.ok()) return r.status();
  absl::StatusOr<Side> o = ParseSide(labels, out, 'b', 'f');
  if (!o.ok()) return o.status();
  dnums.input_batch = l->first;
  dnums.input_feature = l->second;
  dnums.input_spatial = l->spatial;
  dnums.kernel_input_feature = r->first;
  dnums.kernel_output_feature = r->second;
  dnums.kernel_spatial = r->spatial;
  dnums.output_batch = o->first;
  dnums.output_feature = o->second;
  dnums.output_spatial = o->spatial;
  return dnums;
}

std::string ConvolutionDimLabelsToString(
    const ConvolutionDimensionNumbers& dnums) {
  auto side = [](int64_t first, char first_letter, int64_t second,
                 char second_letter, const std::vector<int64_t>& spatial) {
    std::string text(spatial.size() + 2, '?');
    auto put = [&](int64_t position, char c) {
      if (position >= 0 && position < static_cast<int64_t>(text.size())) {
        text[position] = c;
      }
    };
    put(first, first_letter);
    put(second, second_letter);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    return text;
  };
  return absl::StrCat(
      side(dnums.input_batch, 'b', dnums.input_feature, 'f',
           dnums.input_spatial),
      "_",
      side(dnums.kernel_input_feature, 'i', dnums.kernel_output_feature, 'o',
           dnums.kernel_spatial),
      "->",
      side(dnums.output_batch, 'b', dnums.output_feature, 'f',
           dnums.output_spatial));
}

}  // namespace mxla
