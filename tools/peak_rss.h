// How much memory a piece of code makes the process touch: the peak
// resident set growth (Linux /proc), for `mxla bench`'s memory table.
#ifndef MXLA_TOOLS_PEAK_RSS_H_
#define MXLA_TOOLS_PEAK_RSS_H_

#include <cstdint>
#include <functional>

namespace mxla::tools {

// How far the resident set peaks above its level before `run`, in bytes
// (0 where /proc/self/status is missing).
int64_t PeakRssGrowth(const std::function<void()>& run);

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_PEAK_RSS_H_
