#include "builder/op_helpers.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

}  // namespace mxla::builder_internal
