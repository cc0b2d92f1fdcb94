// A top-k's selection (runtime/native_sort.h): a row's `prefix` smallest
// keys, as KeyRule (runtime/sort_key_rule.h) orders them, with ties by
// position, found in one read of the row instead of a sort.
#ifndef MXLA_RUNTIME_SELECT_PREFIX_H_
#define MXLA_RUNTIME_SELECT_PREFIX_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/sort_key_rule.h"

namespace mxla {

// Maps `count` keys, `stride` apart, into `block` as `rule` maps them;
// returns the smallest. Clears `ordered` for a NaN under the default
// float compare.
template <bool kFloat, bool kDefaultCompare, typename K>
[[gnu::always_inline]] inline K MapBlock(const KeyRule<K>& rule, const K* in,
                                         int64_t stride, int64_t count,
                                         K* block, bool& ordered) {
  bool block_ordered = true;
  K smallest = K(~K(0));
  for (int64_t i = 0; i < count; ++i) {
    const K key = rule.template MapAs<kFloat, kDefaultCompare>(in[i * stride],
                                                               block_ordered);
    block[i] = key;
    smallest = std::min(smallest, key);
  }
  ordered &= block_ordered;
  return smallest;
}

// MapBlock of consecutive keys compiled for AVX2 too: the baseline's SSE2
// has no unsigned 16-bit minimum, and this loop is all a top-k's time.
template <bool kFloat, bool kDefaultCompare, typename K>
[[gnu::target("avx2")]] K MapBlockAvx2(const KeyRule<K>& rule, const K* in,
                                       int64_t count, K* block, bool& ordered) {
  return MapBlock<kFloat, kDefaultCompare, K>(rule, in, 1, count, block,
                                              ordered);
}

template <bool kFloat, bool kDefaultCompare, typename K>
K MapBlockOf(const KeyRule<K>& rule, const K* in, int64_t count, K* block,
             bool& ordered) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    return MapBlockAvx2<kFloat, kDefaultCompare, K>(rule, in, count, block,
                                                    ordered);
  }
  return MapBlock<kFloat, kDefaultCompare, K>(rule, in, 1, count, block,
                                              ordered);
}

// The row's `prefix` smallest (key, position) pairs packed into W (the
// key on top), kept in a max-heap of `prefix` while the row is
// read once; then sorted into `order`. False, with `order` unwritten, if a
// key is a NaN under the default float compare. The keys are mapped a
// block at a time, and a block none of whose keys is below the heap's
// largest is skipped: once the heap holds good candidates, almost all are.
template <typename W, typename K>
bool SelectPacked(const K* keys, int64_t stride, int64_t size,
                  const KeyRule<K>& rule, int64_t prefix, std::vector<W>& heap,
                  std::vector<int64_t>& order) {
  constexpr int kShift = sizeof(W) * 8 - 8 * sizeof(K);
  constexpr W kPosition = (W(1) << kShift) - 1;
  constexpr int64_t kBlock = 256;
  heap.clear();
  bool ordered = true;
  K block[kBlock];
  auto select = [&](auto float_key, auto default_compare, auto unit_stride) {
    for (int64_t base = 0; base < size; base += kBlock) {
      const int64_t count = std::min(kBlock, size - base);
      const K* in = keys + base * stride;
      K smallest;
      if constexpr (unit_stride) {
        smallest = MapBlockOf<float_key, default_compare>(rule, in, count,
                                                          block, ordered);
      } else {
        smallest = MapBlock<float_key, default_compare, K>(
            rule, in, stride, count, block, ordered);
      }
      // A key equal to the largest kept one comes later, so ranks after it.
      if (static_cast<int64_t>(heap.size()) == prefix &&
          smallest >= K(heap.front() >> kShift)) {
        continue;
      }
      for (int64_t i = 0; i < count; ++i) {
        const W value = (W(block[i]) << kShift) | W(base + i);
        if (static_cast<int64_t>(heap.size()) < prefix) {
          heap.push_back(value);
          std::push_heap(heap.begin(), heap.end());
        } else if (value < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = value;
          std::push_heap(heap.begin(), heap.end());
        }
      }
    }
  };
  auto select_stride = [&](auto float_key, auto default_compare) {
    if (stride == 1) {
      select(float_key, default_compare, std::true_type{});
    } else {
      select(float_key, default_compare, std::false_type{});
    }
  };
  if (rule.kind != KeyKind::kFloat) {
    select_stride(std::false_type{}, std::false_type{});
  } else if (rule.total_order) {
    select_stride(std::true_type{}, std::false_type{});
  } else {
    select_stride(std::true_type{}, std::true_type{});
  }
  if (!ordered) return false;
  std::sort_heap(heap.begin(), heap.end());
  for (int64_t k = 0; k < prefix; ++k) order[k] = heap[k] & kPosition;
  return true;
}

}  // namespace mxla

#endif  // MXLA_RUNTIME_SELECT_PREFIX_H_
