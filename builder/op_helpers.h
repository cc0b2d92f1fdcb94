// Shared plumbing of the op functions (builder/ops.cc, builder/shape_ops.cc):
// how an op finds its builder, describes its operands in an error message,
// and records itself or its error. Not part of the public API.
#ifndef MXLA_BUILDER_OP_HELPERS_H_
#define MXLA_BUILDER_OP_HELPERS_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "builder/xla_builder.h"

namespace mxla::builder_internal {

// The builder that records the op's error: the first operand's.
XlaBuilder* PickBuilder(std::initializer_list<XlaOp> ops);

// An operand as error messages show it: its shape, or why it has none.
std::string Describe(const XlaBuilder* builder, XlaOp op);

std::string DimsString(Dims dims);

// "Add(f32[2,3], f32[3], broadcast_dimensions={1})".
std::string CallString(const XlaBuilder* builder, absl::string_view op_name,
                       absl::Span<const XlaOp> operands,
                       const std::string& attributes);

// Records an op built by `create` on `builder`; on failure the builder keeps
// the error, prefixed by the call as the user wrote it and its call site.
template <typename Create>
XlaOp RecordOp(XlaBuilder* builder, absl::string_view op_name,
               absl::Span<const XlaOp> operands, const std::string& attributes,
               const SourceLocation& location, Create&& create) {
  if (builder == nullptr) return XlaOp();
  return builder->ReportErrorOrReturn(
      [&]() -> absl::StatusOr<XlaOp> { return create(); },
      [&] { return CallString(builder, op_name, operands, attributes); },
      location);
}

// The instructions behind `ops`, and their shapes for shape inference.
struct LookedUp {
  std::vector<HloInstruction*> instructions;
  std::vector<const Shape*> shapes;
};
absl::StatusOr<LookedUp> LookUpAll(XlaBuilder* builder,
                                   absl::Span<const XlaOp> ops);

// A computation made from a parsed module has had no checks: "the <role>
// computation 'name' is not valid: <why>".
absl::Status CheckCalledComputation(const XlaComputation& computation,
                                    absl::string_view role);

}  // namespace mxla::builder_internal

#endif  // MXLA_BUILDER_OP_HELPERS_H_
