#include "runtime/streaming_copy.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mxla {

#if defined(__SSE2__)

void StreamingCopy(char* to, const char* from, int64_t bytes) {
  if (bytes <= 0) return;
  const int64_t misaligned = reinterpret_cast<uintptr_t>(to) % 16;
  const int64_t head = std::min<int64_t>(bytes, (16 - misaligned) % 16);
  std::memcpy(to, from, head);
  int64_t i = head;
  // Four 16-byte stores fill a 64-byte line, so the write-combining buffer
  // sends whole lines.
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    const __m128i b =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 16));
    const __m128i c =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 32));
    const __m128i d =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i + 48), d);
  }
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(
        reinterpret_cast<__m128i*>(to + i),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
  }
  std::memcpy(to + i, from + i, bytes - i);
}

void StreamingCopyFence() { _mm_sfence(); }

#else

void StreamingCopy(char* to, const char* from, int64_t bytes) {
  if (bytes > 0) std::memcpy(to, from, bytes);
}

void StreamingCopyFence() {}

#endif

}  // namespace mxla
