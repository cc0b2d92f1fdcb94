#include "builder/op_helpers.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"

namespace mxla::builder_internal {

XlaBuilder* PickBuilder(std::initializer_list<XlaOp> ops) {
  for (const XlaOp& op : ops) {
    if (op.builder() != nullptr) return op.builder();
  }
  return nullptr;
}

std::string Describe(const XlaBuilder* builder, XlaOp op) {
  if (!op.valid()) return "<invalid XlaOp>";
  if (op.builder() != builder) {
    return absl::StrCat("<op of builder '", op.builder()->name(), "'>");
  }
  absl::StatusOr<HloInstruction*> instruction = builder->LookUp(op);
  return instruction.ok() ? (*instruction)->shape().ToString() : "<invalid>";
}

std::string DimsString(Dims dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string CallString(const XlaBuilder* builder, absl::string_view op_name,
                       absl::Span<const XlaOp> operands,
                       const std::string& attributes) {
  std::vector<std::string> parts;
  for (const XlaOp& op : operands) parts.push_back(Describe(builder, op));
  if (!attributes.empty()) parts.push_back(attributes);
  return absl::StrCat(op_name, "(", absl::StrJoin(parts, ", "), ")");
}

absl::StatusOr<LookedUp> LookUpAll(XlaBuilder* builder,
                                   absl::Span<const XlaOp> ops) {
  LookedUp looked_up;
  for (const XlaOp& op : ops) {
    ASSIGN_OR_RETURN(HloInstruction * instruction, builder->LookUp(op));
    looked_up.instructions.push_back(instruction);
    looked_up.shapes.push_back(&instruction->shape());
  }
  return looked_up;
}

// A computation made from a parsed module has had no checks: "the <role>
// computation 'name' is not valid: <why>".
absl::Status CheckCalledComputation(const XlaComputation& computation,
                                    absl::string_view role) {
  absl::Status valid =
      VerifyModule(computation.module(), VerifierMode::kBuilder);
  if (valid.ok()) return valid;
  return absl::InvalidArgumentError(
      absl::StrCat("the ", role, " computation '", computation.name(),
                   "' is not valid: ", valid.message()));
}

}  // namespace mxla::builder_internal
