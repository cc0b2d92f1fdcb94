// A stable LSD radix sort of rows by 16-bit keys, a few rows at a time.
// Each element is a 32-bit word: its key in the upper 16 bits (an unsigned
// integer that orders as the sort must, runtime/native_sort.cc's KeyRule),
// and 16 bits the sort carries in the lower (a position, or a payload).
// Two stable counting passes, low key byte then high, make a stable sort:
// words of equal keys leave in the order they were packed. Both histograms
// are counted in one read of the packed words.
// kRows rows go through every loop interleaved: their counter updates are
// independent chains, where one row's would wait on each other (a float's
// exponent byte repeats a few counters).
#ifndef MXLA_RUNTIME_RADIX_SORT_H_
#define MXLA_RUNTIME_RADIX_SORT_H_

#include <cstdint>

namespace mxla {

// Sorts kRows rows of `n` words each. pack(r, k) returns row r's element
// k (called for k ascending); emit(r, p, word) is called once per word of
// row r with its place p in the sorted row. `scratch` holds 2 * kRows * n
// words. Rows must have at most 2^32 - 1 elements.
template <int kRows, typename Pack, typename Emit>
void RadixSortRows16(int64_t n, const Pack& pack, const Emit& emit,
                     uint32_t* scratch) {
  uint32_t low[kRows][256] = {};
  uint32_t high[kRows][256] = {};
  uint32_t* words = scratch;
  uint32_t* spare = scratch + kRows * n;
  // Packing a row at a time can use vector instructions; the histograms
  // then read the key bytes of the words.
  for (int r = 0; r < kRows; ++r) {
    for (int64_t k = 0; k < n; ++k) words[r * n + k] = pack(r, k);
  }
  for (int64_t k = 0; k < n; ++k) {
    for (int r = 0; r < kRows; ++r) {
      const uint32_t word = words[r * n + k];
      ++low[r][(word >> 16) & 0xff];
      ++high[r][word >> 24];
    }
  }
  for (int r = 0; r < kRows; ++r) {
    uint32_t low_sum = 0;
    uint32_t high_sum = 0;
    for (int d = 0; d < 256; ++d) {
      const uint32_t low_count = low[r][d];
      const uint32_t high_count = high[r][d];
      low[r][d] = low_sum;
      high[r][d] = high_sum;
      low_sum += low_count;
      high_sum += high_count;
    }
  }
  for (int64_t k = 0; k < n; ++k) {
    for (int r = 0; r < kRows; ++r) {
      const uint32_t word = words[r * n + k];
      spare[r * n + low[r][(word >> 16) & 0xff]++] = word;
    }
  }
  for (int64_t k = 0; k < n; ++k) {
    for (int r = 0; r < kRows; ++r) {
      const uint32_t word = spare[r * n + k];
      emit(r, int64_t{high[r][word >> 24]++}, word);
    }
  }
}

}  // namespace mxla

#endif  // MXLA_RUNTIME_RADIX_SORT_H_
