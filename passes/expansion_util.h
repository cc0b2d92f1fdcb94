// What the passes that expand an op into simpler HLO (expand-dots,
// expand-convolutions, expand-reduce-windows) build with: index lists,
// transposes that vanish when they are identities, and the scalar add
// computation a sum reduces with, made once per module and type.
#ifndef MXLA_PASSES_EXPANSION_UTIL_H_
#define MXLA_PASSES_EXPANSION_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"

namespace mxla::expansion {

// from, from + 1, ..., from + count - 1.
std::vector<int64_t> Iota(int64_t from, int64_t count);

template <typename... Lists>
std::vector<int64_t> Concat(const Lists&... lists) {
  std::vector<int64_t> all;
  (all.insert(all.end(), lists.begin(), lists.end()), ...);
  return all;
}

// `operand` with its dimensions in the order `permutation` (result
// dimension i is operand dimension permutation[i]); `operand` itself when
// that is the identity.
HloInstruction* Transposed(HloComputation& computation,
                           HloInstruction* operand,
                           const std::vector<int64_t>& permutation);
// `operand` reshaped to `dims` (same element type); itself if unchanged.
HloInstruction* Reshaped(HloComputation& computation, HloInstruction* operand,
                         const std::vector<int64_t>& dims);
// The scalar constant 0 (false for pred) of `type`.
HloInstruction* Zero(HloComputation& computation, PrimitiveType type);

// The scalar `add` computation per element type, added to the module on
// first use under `prefix`_<type>.
class AddComputations {
 public:
  AddComputations(HloModule& module, absl::string_view prefix)
      : module_(module), prefix_(prefix) {}
  HloComputation* Get(PrimitiveType type);

 private:
  HloModule& module_;
  std::string prefix_;
  absl::flat_hash_map<PrimitiveType, HloComputation*> made_;
};

}  // namespace mxla::expansion

#endif  // MXLA_PASSES_EXPANSION_UTIL_H_
