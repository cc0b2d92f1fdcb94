#include "ir/window.h"

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace mxla {

std::vector<int64_t> EncodeWindow(const Window& window) {
  std::vector<int64_t> flat;
  for (const WindowDimension& d : window) {
    flat.insert(flat.end(),
                {d.size, d.stride, d.padding_low, d.padding_high,
                 d.base_dilation, d.window_dilation, d.reversal ? 1 : 0});
  }
  return flat;
}

Window DecodeWindow(const std::vector<int64_t>& flat) {
  Window window;
  for (size_t i = 0; i + kWindowFields <= flat.size(); i += kWindowFields) {
    window.push_back({flat[i], flat[i + 1], flat[i + 2], flat[i + 3],
                      flat[i + 4], flat[i + 5], flat[i + 6] != 0});
  }
  return window;
}

std::string WindowToString(const Window& window) {
  if (window.empty()) return "";
  std::vector<std::string> parts;
  auto field = [&](absl::string_view key, auto value, auto is_default) {
    bool all_default = true;
    for (const WindowDimension& d : window) all_default &= is_default(d);
    if (all_default && key != "size") return;
    std::vector<std::string> dims;
    for (const WindowDimension& d : window) dims.push_back(value(d));
    parts.push_back(absl::StrCat(key, "=", absl::StrJoin(dims, "x")));
  };
  field("size", [](const WindowDimension& d) { return absl::StrCat(d.size); },
        [](const WindowDimension&) { return false; });
  field("stride",
        [](const WindowDimension& d) { return absl::StrCat(d.stride); },
        [](const WindowDimension& d) { return d.stride == 1; });
  field("pad",
        [](const WindowDimension& d) {
          return absl::StrCat(d.padding_low, "_", d.padding_high);
        },
        [](const WindowDimension& d) {
          return d.padding_low == 0 && d.padding_high == 0;
        });
  field("lhs_dilate",
        [](const WindowDimension& d) { return absl::StrCat(d.base_dilation); },
        [](const WindowDimension& d) { return d.base_dilation == 1; });
  field("rhs_dilate",
        [](const WindowDimension& d) {
          return absl::StrCat(d.window_dilation);
        },
        [](const WindowDimension& d) { return d.window_dilation == 1; });
  field("rhs_reversal",
        [](const WindowDimension& d) { return d.reversal ? "1" : "0"; },
        [](const WindowDimension& d) { return !d.reversal; });
  return absl::StrJoin(parts, " ");
}

absl::Status SetWindowField(absl::string_view key, absl::string_view value,
                            Window& window) {
  std::function<bool(absl::string_view, WindowDimension&)> set;
  auto integer = [](int64_t WindowDimension::*field) {
    return [field](absl::string_view text, WindowDimension& d) {
      return absl::SimpleAtoi(text, &(d.*field));
    };
  };
  if (key == "size") {
    set = integer(&WindowDimension::size);
  } else if (key == "stride") {
    set = integer(&WindowDimension::stride);
  } else if (key == "lhs_dilate") {
    set = integer(&WindowDimension::base_dilation);
  } else if (key == "rhs_dilate") {
    set = integer(&WindowDimension::window_dilation);
  } else if (key == "rhs_reversal") {
    set = [](absl::string_view text, WindowDimension& d) {
      if (text != "0" && text != "1") return false;
      d.reversal = text == "1";
      return true;
    };
  } else if (key == "pad") {
    set = [](absl::string_view text, WindowDimension& d) {
      std::vector<absl::string_view> ends = absl::StrSplit(text, '_');
      return ends.size() == 2 && absl::SimpleAtoi(ends[0], &d.padding_low) &&
             absl::SimpleAtoi(ends[1], &d.padding_high);
    };
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown window field '", key,
        "' (expected size, stride, pad, lhs_dilate, rhs_dilate or "
        "rhs_reversal)"));
  }
  std::vector<absl::string_view> dims = absl::StrSplit(value, 'x');
  if (!window.empty() && dims.size() != window.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window field ", key, "=", value, " has ", dims.size(),
        " dimensions, but the window has ", window.size()));
  }
  if (window.empty()) window.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!set(dims[i], window[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed window field ", key, "=", value));
    }
  }
  return absl::OkStatus();
}

}  // namespace mxla
