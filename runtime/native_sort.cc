#include "runtime/native_sort.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/radix_sort.h"
#include "runtime/select_prefix.h"
#include "runtime/sort_key_rule.h"

namespace mxla {
namespace {

// One thread's buffers, reused across its rows and sorts; a row longer
// than this many elements releases them when its sort is done.
constexpr int64_t kMaxKeptRow = int64_t{1} << 20;

struct Scratch {
  std::vector<uint32_t> packed32, spare32;
  std::vector<uint64_t> packed64, spare64;
  std::vector<std::pair<uint64_t, int64_t>> pairs;
  std::vector<uint64_t> keys;
  std::vector<uint8_t> unordered;
  std::vector<int64_t> order;
  std::vector<uint32_t> radix;
  std::vector<int64_t> radix_order;
};

// Where a row's elements are: first + k * stride, k < size.
struct Row {
  int64_t first;
  int64_t stride;
  int64_t size;
};

// One stable counting-sort pass of `from` by the byte at `shift` into `to`
// (the position bits only, with kPositions). The input is read as kWays
// consecutive parts placed in interleaved steps: independent chains of
// bucket-counter updates instead of one, which a skewed byte (floats'
// exponents) would serialize. Counts fit 32 bits: a pass runs only on a
// byte the keys do not all share, so no bucket holds all n <= 2^32.
template <int kWays, bool kPositions, typename W, typename Out>
void CountingPass(const W* from, Out* to, int64_t n, int shift,
                  W position_mask) {
  const int64_t q = n / kWays;
  const W* part[kWays];
  for (int w = 0; w < kWays; ++w) part[w] = from + w * q;
  uint32_t counts[kWays][256] = {};
  for (int64_t i = 0; i < q; ++i) {
    for (int w = 0; w < kWays; ++w) ++counts[w][(part[w][i] >> shift) & 0xff];
  }
  constexpr int kLast = kWays - 1;
  for (int64_t i = kWays * q; i < n; ++i) {
    ++counts[kLast][(from[i] >> shift) & 0xff];
  }
  uint32_t sum = 0;
  for (int d = 0; d < 256; ++d) {
    for (int w = 0; w < kWays; ++w) {
      const uint32_t c = counts[w][d];
      counts[w][d] = sum;
      sum += c;
    }
  }
  auto emit = [&](W v) -> Out {
    if constexpr (kPositions) {
      return static_cast<Out>(v & position_mask);
    } else {
      return v;
    }
  };
  for (int64_t i = 0; i < q; ++i) {
    for (int w = 0; w < kWays; ++w) {
      const W v = part[w][i];
      to[counts[w][(v >> shift) & 0xff]++] = emit(v);
    }
  }
  for (int64_t i = kWays * q; i < n; ++i) {
    const W v = from[i];
    to[counts[kLast][(v >> shift) & 0xff]++] = emit(v);
  }
}

// CountingPass with four chains, or one for a short row, whose cost is
// mostly the counters' clearing and prefix sums.
template <bool kPositions, typename W, typename Out>
void CountingPassOfRow(const W* from, Out* to, int64_t n, int shift,
                       W position_mask) {
  if (n >= 256) {
    CountingPass<4, kPositions>(from, to, n, shift, position_mask);
  } else {
    CountingPass<1, kPositions>(from, to, n, shift, position_mask);
  }
}

// The row's keys packed by PackKeys: whether they are ordered (false: a
// NaN under the default float compare), and the bits every key has and
// the bits any key has (a radix pass sorts only by the bytes where they
// differ).
template <typename K>
struct PackedBits {
  bool ordered;
  K all_or;
  K all_and;
};

// Packs each (key, position) of the row into W, the key on top, in `out`.
template <typename W, typename K>
PackedBits<K> PackKeys(const K* keys, const Row& row, const KeyRule<K>& rule,
                       W* out) {
  constexpr int kShift = sizeof(W) * 8 - 8 * sizeof(K);
  const int64_t n = row.size;
  bool ordered = true;
  K all_or = 0;
  K all_and = K(~K(0));
  const K* in = keys + row.first;
  auto pack = [&](auto float_key, auto default_compare, auto unit_stride) {
    for (int64_t k = 0; k < n; ++k) {
      const K raw = in[unit_stride ? k : k * row.stride];
      const K key =
          rule.template MapAs<float_key, default_compare>(raw, ordered);
      out[k] = (W(key) << kShift) | W(k);
      all_or |= key;
      all_and &= key;
    }
  };
  auto pack_stride = [&](auto float_key, auto default_compare) {
    if (row.stride == 1) {
      pack(float_key, default_compare, std::true_type{});
    } else {
      pack(float_key, default_compare, std::false_type{});
    }
  };
  if (rule.kind != KeyKind::kFloat) {
    pack_stride(std::false_type{}, std::false_type{});
  } else if (rule.total_order) {
    pack_stride(std::true_type{}, std::false_type{});
  } else {
    pack_stride(std::true_type{}, std::true_type{});
  }
  return {ordered, all_or, all_and};
}

// Writes to `order` the positions of the packed values in sorted order
// (the first `prefix` of them), by an LSD radix sort over the key bytes
// that differ (the last pass writes the positions), or by std::sort for
// a prefix or a short row.
template <typename W, typename K>
void OrderPacked(const PackedBits<K>& bits, int64_t prefix,
                 std::vector<W>& packed, std::vector<W>& spare,
                 std::vector<int64_t>& order) {
  constexpr int kKeyBytes = sizeof(K);
  constexpr int kShift = sizeof(W) * 8 - 8 * kKeyBytes;
  constexpr W kPosition = (W(1) << kShift) - 1;
  const int64_t n = packed.size();
  if (prefix < n) {
    // Packed values are distinct, so the `prefix` smallest, sorted, are
    // the stable order's first `prefix`.
    std::nth_element(packed.begin(), packed.begin() + prefix, packed.end());
    std::sort(packed.begin(), packed.begin() + prefix);
    for (int64_t k = 0; k < prefix; ++k) order[k] = packed[k] & kPosition;
    return;
  }
  if (n <= 64) {
    std::sort(packed.begin(), packed.end());
    for (int64_t k = 0; k < n; ++k) order[k] = packed[k] & kPosition;
    return;
  }
  int active[kKeyBytes];
  int passes = 0;
  for (int b = 0; b < kKeyBytes; ++b) {
    if (((bits.all_or ^ bits.all_and) >> (8 * b)) & 0xff) {
      active[passes++] = b;
    }
  }
  if (passes == 0) {  // all keys equal
    for (int64_t k = 0; k < n; ++k) order[k] = k;
    return;
  }
  spare.resize(n);
  W* from = packed.data();
  W* to = spare.data();
  for (int p = 0; p + 1 < passes; ++p) {
    CountingPassOfRow<false>(from, to, n, kShift + 8 * active[p], kPosition);
    std::swap(from, to);
  }
  CountingPassOfRow<true>(from, order.data(), n,
                          kShift + 8 * active[passes - 1], kPosition);
}

// Packs each (key, position) into W, the key on top, and sorts them
// (OrderPacked). Positions are distinct and start ascending, so the result
// is the stable order of the keys. False, with `order` unwritten, if a key
// is a NaN under the default float compare.
template <typename W, typename K>
bool SortPacked(const K* keys, const Row& row, const KeyRule<K>& rule,
                int64_t prefix, std::vector<W>& packed, std::vector<W>& spare,
                std::vector<int64_t>& order) {
  packed.resize(row.size);
  const PackedBits<K> bits = PackKeys(keys, row, rule, packed.data());
  if (!bits.ordered) return false;
  OrderPacked(bits, prefix, packed, spare, order);
  return true;
}

// Up to this many leading results are selected through a heap of that
// size in one pass over the row (a top-k's k); more, by nth_element.
constexpr int64_t kMaxHeapPrefix = 64;

// The row's permutation into `scratch.order`: its first `prefix` entries
// (prefix <= row.size), the rest unwritten.
template <typename K>
void SortRowOrder(const K* keys, const Row& row, const KeyRule<K>& rule,
                  int64_t prefix, Scratch& scratch) {
  const int64_t n = row.size;
  scratch.order.resize(n);
  bool sorted = false;
  bool packed = false;
  const bool heap = prefix <= kMaxHeapPrefix && prefix * 8 <= n;
  if constexpr (sizeof(K) <= 2) {
    if (n <= (int64_t{1} << (32 - 8 * sizeof(K)))) {
      sorted =
          heap ? SelectPacked<uint32_t>(keys + row.first, row.stride, n, rule,
                                        prefix, scratch.packed32, scratch.order)
               : SortPacked<uint32_t>(keys, row, rule, prefix, scratch.packed32,
                                      scratch.spare32, scratch.order);
      packed = true;
    }
  }
  if constexpr (sizeof(K) <= 4) {
    if (!packed && n <= (int64_t{1} << 32)) {
      sorted =
          heap ? SelectPacked<uint64_t>(keys + row.first, row.stride, n, rule,
                                        prefix, scratch.packed64, scratch.order)
               : SortPacked<uint64_t>(keys, row, rule, prefix, scratch.packed64,
                                      scratch.spare64, scratch.order);
      packed = true;
    }
  }
  if (!packed) {
    scratch.pairs.resize(n);
    bool ordered = true;
    for (int64_t k = 0; k < n; ++k) {
      K key;
      ordered &= rule.Map(keys[row.first + k * row.stride], key);
      scratch.pairs[k] = {key, k};
    }
    if (ordered) {
      std::sort(scratch.pairs.begin(), scratch.pairs.end());
      for (int64_t k = 0; k < n; ++k)
        scratch.order[k] = scratch.pairs[k].second;
      sorted = true;
    }
  }
  if (sorted) return;
  // A NaN under the default compare: std::stable_sort on the same
  // comparison answers as SortRows's, so the same permutation.
  scratch.keys.resize(n);
  scratch.unordered.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    K key;
    scratch.unordered[k] = !rule.Map(keys[row.first + k * row.stride], key);
    scratch.keys[k] = key;
  }
  std::iota(scratch.order.begin(), scratch.order.end(), 0);
  std::stable_sort(scratch.order.begin(), scratch.order.end(),
                   [&](int64_t a, int64_t b) {
                     return !scratch.unordered[a] && !scratch.unordered[b] &&
                            scratch.keys[a] < scratch.keys[b];
                   });
}

// Writes the row's first `count` results from `order`.
template <typename T>
void GatherRow(const void* input, void* output, const Row& row,
               const int64_t* order, int64_t count) {
  const T* in = static_cast<const T*>(input) + row.first;
  T* out = static_cast<T*>(output) + row.first;
  if (row.stride == 1) {
    for (int64_t k = 0; k < count; ++k) out[k] = in[order[k]];
    return;
  }
  for (int64_t k = 0; k < count; ++k) {
    out[k * row.stride] = in[order[k] * row.stride];
  }
}

void GatherRowBytes(const void* input, void* output, const Row& row,
                    const int64_t* order, int64_t count, int64_t bytes) {
  switch (bytes) {
    case 1:
      return GatherRow<uint8_t>(input, output, row, order, count);
    case 2:
      return GatherRow<uint16_t>(input, output, row, order, count);
    case 4:
      return GatherRow<uint32_t>(input, output, row, order, count);
    case 8:
      return GatherRow<uint64_t>(input, output, row, order, count);
  }
  const char* in = static_cast<const char*>(input);
  char* out = static_cast<char*>(output);
  for (int64_t k = 0; k < count; ++k) {
    std::memcpy(out + (row.first + k * row.stride) * bytes,
                in + (row.first + order[k] * row.stride) * bytes, bytes);
  }
}

// Whole rows of 16-bit keys go through RadixSortRows16. Its words carry
// the one result a program reads when that fits 16 bits (a sort of bf16
// keys with a bf16 payload: the words are the results), else positions,
// through which the results are gathered (as they leave the last pass
// when only one is read).
struct RadixPlan {
  int64_t carried = -1;   // operand whose bits the words carry, else -1
  int64_t gathered = -1;  // the one operand read through positions, else -1
  int64_t bytes = 0;      // element bytes of `carried` or `gathered`
};

RadixPlan PlanRadix(absl::Span<const int64_t> element_bytes,
                    absl::Span<void* const> outputs) {
  std::vector<int64_t> read;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] != nullptr) read.push_back(i);
  }
  RadixPlan plan;
  if (read.size() != 1) return plan;
  plan.bytes = element_bytes[read[0]];
  if (plan.bytes <= 2) {
    plan.carried = read[0];
  } else if (plan.bytes == 4 || plan.bytes == 8) {
    plan.gathered = read[0];
  }
  return plan;
}

// Whether RadixSortRows16 sorts rows of `size` under `plan`: positions
// must fit the words' 16 bits, counts 32; rows of 64 or fewer take
// std::sort.
bool UsesRadix(const RadixPlan& plan, int64_t size) {
  const int64_t longest =
      plan.carried >= 0 ? (int64_t{1} << 32) - 1 : int64_t{1} << 16;
  return size > 64 && size <= longest;
}

// Sorts kRows rows of 16-bit keys whole and writes their results; clears
// ordered[r] (its results then unwritten or wrong) for a row holding a NaN
// under the default float compare.
template <int kRows, bool kFloat, bool kDefaultCompare>
void RadixSortGroup(const uint16_t* keys, const Row* rows,
                    const KeyRule<uint16_t>& rule, const RadixPlan& plan,
                    absl::Span<const int64_t> element_bytes,
                    absl::Span<const void* const> inputs,
                    absl::Span<void* const> outputs, Scratch& scratch,
                    bool* ordered) {
  const int64_t n = rows[0].size;
  const int64_t stride = rows[0].stride;
  scratch.radix.resize(2 * kRows * n);
  auto sort = [&](const auto& value, const auto& emit) {
    auto pack = [&](int r, int64_t k) -> uint32_t {
      const uint16_t raw = keys[rows[r].first + k * stride];
      const uint16_t key =
          rule.template MapAs<kFloat, kDefaultCompare>(raw, ordered[r]);
      return uint32_t{key} << 16 | value(r, k);
    };
    RadixSortRows16<kRows>(n, pack, emit, scratch.radix.data());
  };
  auto at = [&](int r, int64_t k) { return rows[r].first + k * stride; };
  auto position = [](int, int64_t k) { return static_cast<uint32_t>(k); };
  auto carry = [&](auto type) {
    using T = decltype(type);
    const T* in = static_cast<const T*>(inputs[plan.carried]);
    T* out = static_cast<T*>(outputs[plan.carried]);
    sort([&](int r, int64_t k) -> uint32_t { return in[at(r, k)]; },
         [&](int r, int64_t p, uint32_t word) { out[at(r, p)] = T(word); });
  };
  auto gather = [&](auto type) {
    using T = decltype(type);
    const T* in = static_cast<const T*>(inputs[plan.gathered]);
    T* out = static_cast<T*>(outputs[plan.gathered]);
    sort(position, [&](int r, int64_t p, uint32_t word) {
      out[at(r, p)] = in[at(r, word & 0xffff)];
    });
  };
  if (plan.carried >= 0) {
    return plan.bytes == 1 ? carry(uint8_t{}) : carry(uint16_t{});
  }
  if (plan.gathered >= 0) {
    return plan.bytes == 4 ? gather(uint32_t{}) : gather(uint64_t{});
  }
  scratch.radix_order.resize(kRows * n);
  int64_t* order = scratch.radix_order.data();
  sort(position, [&](int r, int64_t p, uint32_t word) {
    order[r * n + p] = word & 0xffff;
  });
  for (int r = 0; r < kRows; ++r) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (outputs[i] == nullptr) continue;  // unread
      GatherRowBytes(inputs[i], outputs[i], rows[r], order + r * n, n,
                     element_bytes[i]);
    }
  }
}

// RadixSortGroup for the rule's kind of key.
template <int kRows>
void RadixSortGroupOf(const uint16_t* keys, const Row* rows,
                      const KeyRule<uint16_t>& rule, const RadixPlan& plan,
                      absl::Span<const int64_t> element_bytes,
                      absl::Span<const void* const> inputs,
                      absl::Span<void* const> outputs, Scratch& scratch,
                      bool* ordered) {
  if (rule.kind != KeyKind::kFloat) {
    RadixSortGroup<kRows, false, false>(keys, rows, rule, plan, element_bytes,
                                        inputs, outputs, scratch, ordered);
  } else if (rule.total_order) {
    RadixSortGroup<kRows, true, false>(keys, rows, rule, plan, element_bytes,
                                       inputs, outputs, scratch, ordered);
  } else {
    RadixSortGroup<kRows, true, true>(keys, rows, rule, plan, element_bytes,
                                      inputs, outputs, scratch, ordered);
  }
}

// Rows interleaved by RadixSortRows16 while their scratch (8 bytes per
// element and row) stays within the L2 cache.
constexpr int kRadixRows = 4;
constexpr int64_t kMaxInterleavedRow = 8192;

template <typename K>
KeyRule<K> RuleOf(const TrivialSortComparator& comparator) {
  KeyRule<K> rule;
  rule.kind = KindOf(comparator.type);
  rule.descending = comparator.descending;
  rule.total_order = comparator.total_order;
  rule.infinity = static_cast<K>(InfinityBits(comparator.type));
  return rule;
}

// What sorting any of the rows needs: where row r is, its keys' rule, and
// the inputs gathered into the outputs in its order (the first `count`).
template <typename K>
struct RowSorter {
  const K* keys;
  KeyRule<K> rule;
  RadixPlan plan;
  int64_t size, inner, count;
  absl::Span<const int64_t> element_bytes;
  absl::Span<const void* const> inputs;
  absl::Span<void* const> outputs;

  Row At(int64_t r) const {
    return Row{(r / inner) * size * inner + r % inner, inner, size};
  }

  void SortAndGather(const Row& row, Scratch& scratch) const {
    SortRowOrder(keys, row, rule, count, scratch);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (outputs[i] == nullptr) continue;  // unread
      GatherRowBytes(inputs[i], outputs[i], row, scratch.order.data(), count,
                     element_bytes[i]);
    }
  }

  // Rows [begin, end) by radix sort of 16-bit keys, kRadixRows
  // interleaved where they fit the cache; a row a NaN leaves unordered is
  // sorted again by SortAndGather.
  void RadixSortRows(int64_t begin, int64_t end, Scratch& scratch) const {
    const int group = size <= kMaxInterleavedRow ? kRadixRows : 1;
    for (int64_t r = begin; r < end; r += group) {
      const int n = static_cast<int>(std::min<int64_t>(group, end - r));
      Row group_rows[kRadixRows];
      bool ordered[kRadixRows];
      for (int i = 0; i < n; ++i) {
        group_rows[i] = At(r + i);
        ordered[i] = true;
      }
      if (n == kRadixRows) {
        RadixSortGroupOf<kRadixRows>(keys, group_rows, rule, plan,
                                     element_bytes, inputs, outputs, scratch,
                                     ordered);
      } else {
        for (int i = 0; i < n; ++i) {
          RadixSortGroupOf<1>(keys, group_rows + i, rule, plan, element_bytes,
                              inputs, outputs, scratch, ordered + i);
        }
      }
      for (int i = 0; i < n; ++i) {
        if (!ordered[i]) SortAndGather(group_rows[i], scratch);
      }
    }
  }
};

template <typename K>
void SortAllRows(absl::Span<const int64_t> dims, int64_t dimension,
                 absl::Span<const int64_t> element_bytes,
                 absl::Span<const void* const> inputs,
                 absl::Span<void* const> outputs,
                 const TrivialSortComparator& comparator, ThreadPool& pool,
                 int threads, int64_t prefix) {
  const int64_t size = dims[dimension];
  int64_t inner = 1;
  for (size_t d = dimension + 1; d < dims.size(); ++d) inner *= dims[d];
  int64_t elements = 1;
  for (int64_t extent : dims) elements *= extent;
  if (elements == 0) return;
  const int64_t rows = elements / size;
  const int64_t count = std::clamp<int64_t>(prefix, 0, size);
  if (count == 0) return;  // nothing reads any result
  const RowSorter<K> sorter{static_cast<const K*>(inputs[comparator.operand]),
                            RuleOf<K>(comparator),
                            PlanRadix(element_bytes, outputs),
                            size,
                            inner,
                            count,
                            element_bytes,
                            inputs,
                            outputs};
  const bool radix =
      sizeof(K) == 2 && count == size && UsesRadix(sorter.plan, size);
  // Chunks of at least 16k elements: a smaller sort is not worth a thread.
  const int64_t chunks =
      std::clamp<int64_t>(elements / 16384, 1, std::max(threads, 1));
  pool.ParallelFor(rows, chunks, [&](int64_t begin, int64_t end) {
    // Kept per thread across sorts: allocating and zeroing fresh pages per
    // call cost more than sorting a long row.
    thread_local Scratch scratch;
    if constexpr (sizeof(K) == 2) {
      if (radix) {
        sorter.RadixSortRows(begin, end, scratch);
        begin = end;
      }
    }
    for (int64_t r = begin; r < end; ++r) {
      sorter.SortAndGather(sorter.At(r), scratch);
    }
    if (size > kMaxKeptRow) scratch = Scratch();
  });
}

}  // namespace

bool IsNativeSortKeyType(PrimitiveType type) {
  switch (type) {
    case PRED:
    case S8:
    case S16:
    case S32:
    case S64:
    case U8:
    case U16:
    case U32:
    case U64:
    case F16:
    case BF16:
    case F32:
    case F64:
      return true;
    default:
      return false;
  }
}

void NativeSortRows(absl::Span<const int64_t> dims, int64_t dimension,
                    absl::Span<const int64_t> element_bytes,
                    absl::Span<const void* const> inputs,
                    absl::Span<void* const> outputs,
                    const TrivialSortComparator& key, ThreadPool& pool,
                    int threads, int64_t prefix) {
  switch (element_bytes[key.operand]) {
    case 1:
      return SortAllRows<uint8_t>(dims, dimension, element_bytes, inputs,
                                  outputs, key, pool, threads, prefix);
    case 2:
      return SortAllRows<uint16_t>(dims, dimension, element_bytes, inputs,
                                   outputs, key, pool, threads, prefix);
    case 4:
      return SortAllRows<uint32_t>(dims, dimension, element_bytes, inputs,
                                   outputs, key, pool, threads, prefix);
    default:
      return SortAllRows<uint64_t>(dims, dimension, element_bytes, inputs,
                                   outputs, key, pool, threads, prefix);
  }
}

}  // namespace mxla
