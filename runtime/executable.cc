#include "runtime/executable.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"

namespace mxla {

namespace {

// The array leaves of `literal`, depth-first (buffer_leaves.h's order).
void CollectLeaves(Literal& literal, std::vector<Literal*>& leaves) {
  if (!literal.shape().IsTuple()) {
    leaves.push_back(&literal);
    return;
  }
  for (int64_t i = 0; i < literal.tuple_size(); ++i) {
    CollectLeaves(literal.tuple_element(i), leaves);
  }
}

}  // namespace

absl::Status Executable::RunBuffers(absl::Span<const void* const> arguments,
                                    absl::Span<void* const> results) const {
  const HloComputation& entry = *module().entry_computation();
  int64_t argument_count = CountArgumentLeaves(entry);
  if (static_cast<int64_t>(arguments.size()) != argument_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", argument_count,
        " argument buffers (one per array leaf of the parameters), got ",
        arguments.size()));
  }
  std::vector<Literal> literals;
  std::vector<const Literal*> pointers;
  literals.reserve(entry.num_parameters());
  size_t next = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    ASSIGN_OR_RETURN(
        Literal literal,
        Literal::CreateForOverwrite(entry.parameter_instruction(i)->shape()));
    literals.push_back(std::move(literal));
    std::vector<Literal*> leaves;
    CollectLeaves(literals.back(), leaves);
    for (Literal* leaf : leaves) {
      std::memcpy(leaf->untyped_data(), arguments[next++], leaf->size_bytes());
    }
  }
  for (const Literal& literal : literals) pointers.push_back(&literal);
  ASSIGN_OR_RETURN(Literal result, Run(pointers));
  std::vector<Literal*> leaves;
  CollectLeaves(result, leaves);
  if (leaves.size() != results.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", leaves.size(), " result buffers, got ", results.size()));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::memcpy(results[i], leaves[i]->untyped_data(), leaves[i]->size_bytes());
  }
  return absl::OkStatus();
}

absl::Status Executable::RunBuffers(
    absl::Span<const void* const> arguments,
    absl::Span<const int64_t> argument_sizes, absl::Span<void* const> results,
    absl::Span<const int64_t> result_sizes) const {
  RETURN_IF_ERROR(CheckSizedBuffers(*module().entry_computation(), arguments,
                                    argument_sizes, results, result_sizes));
  return RunBuffers(arguments, results);
}

}  // namespace mxla
