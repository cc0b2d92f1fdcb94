// pad's padding configuration: per dimension, the elements added before
// the first element (low), after the last (high), both possibly negative
// (cropping), and between neighbours (interior, non-negative). HLO text
// writes it `padding=1_2x0_0_1`: low_high[_interior] per dimension, joined
// by 'x'; an instruction keeps it as one flat list of triples.
#ifndef MXLA_IR_PADDING_CONFIG_H_
#define MXLA_IR_PADDING_CONFIG_H_

#include <cstdint>
#include <vector>

namespace mxla {

struct PaddingDimension {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PaddingDimension&) const = default;
};

using PaddingConfig = std::vector<PaddingDimension>;

// The size of a dimension of `size` elements after padding (possibly
// negative: shape inference rejects that).
inline int64_t PaddedSize(int64_t size, const PaddingDimension& p) {
  return p.low + p.high + size + (size > 0 ? (size - 1) * p.interior : 0);
}

}  // namespace mxla

#endif  // MXLA_IR_PADDING_CONFIG_H_
