// Shared by the example programs: unwrap a StatusOr or exit with its error,
// compare a result with the values it must have, make inputs and show the
// kernels the JIT made.
#ifndef MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_
#define MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/hlo_computation.h"
#include "ir/literal.h"
#include "ir/or_die.h"
#include "runtime/executable.h"

namespace mxla::examples {

// The installed helper (ir/or_die.h): the error and its call site, exit 1.
using ::mxla::OrDie;

// True if every element of `actual` is within `tolerance` (relative) plus
// `absolute` of `expected`, in row-major order; prints the first difference
// otherwise.
inline bool Matches(const Literal& actual, const std::vector<float>& expected,
                    float tolerance = 0, float absolute = 0) {
  absl::Span<const float> values = actual.data<float>();
  if (values.size() != expected.size()) {
    std::cerr << "expected " << expected.size() << " values, got "
              << values.size() << "\n";
    return false;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::fabs(values[i] - expected[i]) >
        tolerance * std::fabs(expected[i]) + absolute) {
      std::cerr << "element " << i << ": expected " << expected[i] << ", got "
                << values[i] << "\n";
      return false;
    }
  }
  return true;
}

// Prints each kernel the JIT made of `executable`: its fusion's name and
// plan (docs/design.md, "Fusion plans").
inline void PrintKernels(const Executable& executable) {
  for (const HloInstruction* instruction :
       executable.module().entry_computation()->instructions()) {
    if (instruction->opcode() != HloOpcode::kFusion) continue;
    std::cout << "  kernel " << instruction->name() << ": "
              << instruction->fusion_plan()->ToString() << "\n";
  }
}

// Deterministic values in [-scale, scale): a small hash of the index.
inline Literal Values(const Shape& shape, float scale, uint32_t seed) {
  Literal literal(shape);
  absl::Span<float> values = literal.data<float>();
  uint32_t state = seed;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    value = scale * (static_cast<float>(state >> 8) / (1 << 23) - 1.0f);
  }
  return literal;
}

}  // namespace mxla::examples

#endif  // MXLA_TOOLS_EXAMPLES_EXAMPLE_UTIL_H_
