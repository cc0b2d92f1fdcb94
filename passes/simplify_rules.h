// The rules of the simplify pass. A rule looks at one instruction and returns
// its replacement (possibly a new instruction it added to the computation),
// or nullptr when it does not apply.
#ifndef MXLA_PASSES_SIMPLIFY_RULES_H_
#define MXLA_PASSES_SIMPLIFY_RULES_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_instruction.h"

namespace mxla::simplify {

using Rule = absl::StatusOr<HloInstruction*> (*)(HloInstruction*);

struct NamedRule {
  const char* name;
  Rule rule;
};

// In the order they are tried.
absl::Span<const NamedRule> Rules();

}  // namespace mxla::simplify

#endif  // MXLA_PASSES_SIMPLIFY_RULES_H_
