// The element types differential_fuzzer lets its bytes choose, shared with
// the dictionary generator (fuzz_dictionaries.cc). The first list is read
// first, one Bool byte per type, at kDifferentialTypeMaskOffset; the
// others of ir/primitive_types.def are read last, so that the corpus
// written before them keeps its meaning (exhausted input reads false).
#ifndef MXLA_TESTS_FUZZ_DIFFERENTIAL_LAYOUT_H_
#define MXLA_TESTS_FUZZ_DIFFERENTIAL_LAYOUT_H_

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

#include "ir/primitive_type.h"

namespace mxla::fuzz {

// The seed (8 bytes), then max_instructions, max_rank and
// max_dimension_size (a byte each).
inline constexpr size_t kDifferentialTypeMaskOffset = 11;

inline constexpr PrimitiveType kDifferentialFirstTypes[] = {
    F32, F64, S32, S64, PRED, S8, S16, U8, U16, U32, U64, F16, BF16, S2,
    S4, U2, U4, F8E4M3FN, F8E5M2, F8E4M3FNUZ, F4E2M1FN, F8E8M0FNU};

// The types of ir/primitive_types.def not in kDifferentialFirstTypes, in
// the table's order.
inline std::vector<PrimitiveType> DifferentialLaterTypes() {
  std::vector<PrimitiveType> later;
  for (PrimitiveType type : {
#define MXLA_PRIMITIVE_TYPE(e, text, native) e,
#include "ir/primitive_types.def"
#undef MXLA_PRIMITIVE_TYPE
       }) {
    if (std::find(std::begin(kDifferentialFirstTypes),
                  std::end(kDifferentialFirstTypes),
                  type) == std::end(kDifferentialFirstTypes)) {
      later.push_back(type);
    }
  }
  return later;
}

}  // namespace mxla::fuzz

#endif  // MXLA_TESTS_FUZZ_DIFFERENTIAL_LAYOUT_H_
