// A window over an array (XLA's Window): per dimension its size, the
// stride between window positions, the padding before and after the base,
// the base's dilation (holes between base elements: lhs_dilate) and the
// window's dilation (holes between window taps: rhs_dilate), and whether
// the window is reversed. convolution and reduce-window carry one.
//
// HLO text writes it `window={size=3x3 stride=2x2 pad=1_1x0_1 lhs_dilate=1x2
// rhs_dilate=2x1 rhs_reversal=0x1}`, each key only when some dimension
// differs from the default (size always); an instruction keeps it as one
// flat list of kWindowFields values per dimension.
#ifndef MXLA_IR_WINDOW_H_
#define MXLA_IR_WINDOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mxla {

struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;
  int64_t window_dilation = 1;
  bool reversal = false;
  bool operator==(const WindowDimension&) const = default;
};

using Window = std::vector<WindowDimension>;

inline constexpr int64_t kWindowFields = 7;

std::vector<int64_t> EncodeWindow(const Window& window);
Window DecodeWindow(const std::vector<int64_t>& flat);

// `size=3x3 stride=2x2 ...` (without braces), XLA's short form.
std::string WindowToString(const Window& window);

// Sets the window's field `key` (size, stride, pad, lhs_dilate, rhs_dilate,
// rhs_reversal) from its text value, one entry per dimension ('x'
// between; pad's entries are low_high), creating dimensions as needed.
// InvalidArgument for an unknown key, a malformed value or a dimension
// count that differs from the window's earlier keys.
absl::Status SetWindowField(absl::string_view key, absl::string_view value,
                            Window& window);

// The extent of `size` elements with `dilation - 1` holes between
// neighbours (0 for no elements).
inline int64_t DilatedBound(int64_t size, int64_t dilation) {
  return size == 0 ? 0 : (size - 1) * dilation + 1;
}

// How many windows of extent `window` fit in `bound` at `stride`.
inline int64_t StridedBound(int64_t bound, int64_t window, int64_t stride) {
  if (window > bound) return 0;
  return (bound - window) / stride + 1;
}

// The number of window positions along `d` over a base of `base` elements.
inline int64_t WindowOutputSize(int64_t base, const WindowDimension& d) {
  const int64_t padded =
      d.padding_low + DilatedBound(base, d.base_dilation) + d.padding_high;
  return StridedBound(padded, DilatedBound(d.size, d.window_dilation),
                      d.stride);
}

}  // namespace mxla

#endif  // MXLA_IR_WINDOW_H_
