// StreamingCopy: every length from 0 to past two 64-byte lines, into every
// alignment of the destination and from an unaligned source, copies the
// bytes exactly and touches nothing around them.
#include "runtime/streaming_copy.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace mxla {
namespace {

TEST(StreamingCopyTest, CopiesEveryLengthAtEveryAlignment) {
  std::vector<char> from(300);
  for (size_t i = 0; i < from.size(); ++i)
    from[i] = static_cast<char>(i * 7 + 1);
  for (int64_t offset = 0; offset < 16; ++offset) {
    for (int64_t bytes = 0; bytes <= 150; ++bytes) {
      std::vector<char> to(200, 'x');
      StreamingCopy(to.data() + offset, from.data() + 3, bytes);
      StreamingCopyFence();
      for (int64_t i = 0; i < static_cast<int64_t>(to.size()); ++i) {
        const bool inside = i >= offset && i < offset + bytes;
        const char expected = inside ? from[3 + i - offset] : 'x';
        ASSERT_EQ(to[i], expected)
            << "offset " << offset << ", " << bytes << " bytes, byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace mxla
