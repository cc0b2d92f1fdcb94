// How a sort key's bits become an unsigned integer of the same width that
// orders as a trivial comparator (passes/sort_key_hoisting.h) orders the
// keys: the native sort (runtime/native_sort.h) then sorts the integers.
#ifndef MXLA_RUNTIME_SORT_KEY_RULE_H_
#define MXLA_RUNTIME_SORT_KEY_RULE_H_

#include <cstdint>

#include "ir/primitive_type.h"

namespace mxla {

enum class KeyKind { kUnsigned, kSigned, kFloat };

// How a key's bits K become an unsigned integer that orders as the
// comparator does.
template <typename K>
struct KeyRule {
  static constexpr K kSign = K(1) << (sizeof(K) * 8 - 1);
  KeyKind kind = KeyKind::kUnsigned;
  bool descending = false;
  bool total_order = false;
  K infinity = 0;  // floats: the magnitude bits of infinity

  // Without branches, for packing loops: kFloat for a float key,
  // kDefaultCompare for its default (non-TOTALORDER) compare. Clears
  // `ordered` for a NaN under the default float compare (no strict weak
  // order: the caller sorts that row as SortRows does).
  template <bool kFloat, bool kDefaultCompare>
  K MapAs(K raw, bool& ordered) const {
    if constexpr (kDefaultCompare) {
      const K magnitude = raw & K(~kSign);
      ordered &= magnitude <= infinity;
      raw = magnitude == 0 ? K(0) : raw;  // -0 == +0
    }
    K key;
    if constexpr (kFloat) {
      // TOTALORDER's sign-magnitude order as an unsigned one: a negative
      // value's bits all flipped, a positive value's sign bit set.
      const K negative = K(K(0) - K(raw >> (sizeof(K) * 8 - 1)));
      key = raw ^ K(negative | kSign);
    } else {
      key = kind == KeyKind::kSigned ? K(raw ^ kSign) : raw;
    }
    return descending ? K(~key) : key;
  }

  // MapAs for this rule's kind; false for a NaN under the default compare.
  bool Map(K raw, K& key) const {
    bool ordered = true;
    if (kind != KeyKind::kFloat) {
      key = MapAs<false, false>(raw, ordered);
    } else if (total_order) {
      key = MapAs<true, false>(raw, ordered);
    } else {
      key = MapAs<true, true>(raw, ordered);
    }
    return ordered;
  }
};

inline KeyKind KindOf(PrimitiveType type) {
  switch (type) {
    case S8:
    case S16:
    case S32:
    case S64:
      return KeyKind::kSigned;
    case F16:
    case BF16:
    case F32:
    case F64:
      return KeyKind::kFloat;
    default:
      return KeyKind::kUnsigned;
  }
}

inline uint64_t InfinityBits(PrimitiveType type) {
  switch (type) {
    case F16:
      return 0x7c00;
    case BF16:
      return 0x7f80;
    case F32:
      return 0x7f800000;
    case F64:
      return 0x7ff0000000000000;
    default:
      return 0;
  }
}

}  // namespace mxla

#endif  // MXLA_RUNTIME_SORT_KEY_RULE_H_
