// Wall time for the tools' timings (bench, run, demo), and how they print.
#ifndef MXLA_TOOLS_STOPWATCH_H_
#define MXLA_TOOLS_STOPWATCH_H_

#include <chrono>
#include <string>

#include "absl/strings/str_format.h"

namespace mxla::tools {

using Clock = std::chrono::steady_clock;

inline double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// `seconds` to three significant digits in the unit that puts it in
// [1, 1000): "182 ns", "1.23 µs", "41.2 ms", "2.50 s" (below 1 ns:
// "0.25 ns"; past 1000 s: "1234 s"; zero or less: "0 ns").
inline std::string FormatDuration(double seconds) {
  static constexpr struct {
    double per_second;
    const char* name;
  } kUnits[] = {{1e9, "ns"}, {1e6, "µs"}, {1e3, "ms"}, {1, "s"}};
  if (!(seconds > 0)) return "0 ns";
  for (const auto& unit : kUnits) {
    const double value = seconds * unit.per_second;
    // 999.5 would print as 1000: the next unit's 1.00 instead.
    if (value >= 999.5 && unit.per_second != 1) continue;
    // Only below 1 ns is a value under 1 (0.9996 µs rounds to 1.00 µs).
    if (value < 0.9995) return absl::StrFormat("%.3g %s", value, unit.name);
    const int decimals = value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
    return absl::StrFormat("%.*f %s", decimals, value, unit.name);
  }
  return "";  // not reached: seconds always fit
}

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_STOPWATCH_H_
