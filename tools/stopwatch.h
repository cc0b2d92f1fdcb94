// Wall time for the tools' timings (bench, run, demo).
#ifndef MXLA_TOOLS_STOPWATCH_H_
#define MXLA_TOOLS_STOPWATCH_H_

#include <chrono>

namespace mxla::tools {

using Clock = std::chrono::steady_clock;

inline double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_STOPWATCH_H_
