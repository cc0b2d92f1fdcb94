#include "transforms/gradient_rules.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla {
namespace gradient_rules {

XlaOp Filled(XlaOp like, double value) {
  const Shape shape = ShapeOf(like);
  return BroadcastInDim(ScalarLike(like, value), shape.dimensions(), {});
}

XlaOp SumOver(XlaOp value, absl::Span<const int64_t> dimensions) {
  if (dimensions.empty()) return value;
  const PrimitiveType type = ShapeOf(value).element_type();
  return Reduce(value, ScalarLike(value, 0),
                CreateScalarAddComputation(type, value.builder()), dimensions);
}

XlaOp ConvertTo(XlaOp value, PrimitiveType type) {
  if (ShapeOf(value).element_type() == type) return value;
  return ConvertElementType(value, type);
}

Shape ShapeOf(XlaOp op) {
  absl::StatusOr<Shape> shape = op.builder()->GetShape(op);
  // An op that failed leaves the builder's error, which the caller
  // returns; the rule goes on with an empty shape meanwhile.
  return shape.ok() ? *shape : Shape();
}

absl::string_view NoRuleReason(HloOpcode op) {
  switch (op) {
    case Op::kCustomCall:
      return "(its target is a foreign kernel whose derivative mxla cannot "
             "know; JAX's custom_vjp attaches one to a function, not to a "
             "custom-call)";
    case Op::kInfeed:
    case Op::kOutfeed:
      return "(a value handed to or from the host is a side effect, not a "
             "function of the parameters; JAX's io_callback has no "
             "derivative either)";
    case Op::kAsyncStart:
    case Op::kAsyncUpdate:
    case Op::kAsyncDone:
    case Op::kCallStart:
    case Op::kCallDone:
      return "(an asynchronous pair is a schedule of its wrapped "
             "computation, which the JIT runs as one op: differentiate the "
             "synchronous form)";
    default:
      return "";
  }
}

absl::Status NoRuleError(const GradientContext& context) {
  return NoRuleError(context, "");
}

absl::Status NoRuleError(const GradientContext& context,
                         absl::string_view what) {
  const HloInstruction& instruction = context.instruction;
  return absl::UnimplementedError(absl::StrCat(
      "gradient: no rule for '", HloOpcodeString(instruction.opcode()), "'",
      what.empty() ? "" : " ", what, " yet (instruction '",
      instruction.name(), "', ", instruction.shape().ToString(),
      "); docs/autodiff.md lists the ops that have one"));
}

absl::StatusOr<XlaComputation> ScalarComputation(
    XlaBuilder& builder, const std::string& name, PrimitiveType type,
    const std::function<XlaOp(XlaOp, XlaOp)>& body) {
  std::unique_ptr<XlaBuilder> sub = builder.CreateSubBuilder(name);
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  const XlaOp lhs = Parameter(sub.get(), 0, scalar, "lhs");
  const XlaOp rhs = Parameter(sub.get(), 1, scalar, "rhs");
  return sub->Build(body(lhs, rhs));
}

}  // namespace gradient_rules

absl::StatusOr<OperandCotangents> OperandCotangentsOf(
    const GradientContext& context) {
  gradient_rules::GradientRules rules;
  return VisitOp<gradient_rules::Result>(rules, context.instruction.opcode(),
                                         context);
}

bool HasGradientRule(HloOpcode opcode) {
  return !gradient_rules::HasNoRuleYet(opcode);
}

}  // namespace mxla
