// The op functions: each looks up its operands, asks ShapeInference for the
// result shape and records one instruction (BroadcastInDim records XLA's
// broadcast/reshape/broadcast sequence). Binary ops keep their
// broadcast_dimensions as an implicit broadcast for lower-broadcasts.
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/op_helpers.h"
#include "builder/xla_builder.h"
#include "ir/memory_budget.h"
#include "ir/status_macros.h"
#include "shape_inference/broadcast_sequence.h"

namespace mxla {
namespace {

using builder_internal::PickBuilder;
using builder_internal::RecordOp;
using builder_internal::DimsString;


XlaOp BinaryOp(HloOpcode opcode, absl::string_view op_name, XlaOp lhs,
               XlaOp rhs, Dims broadcast_dimensions,
               std::optional<ComparisonDirection> direction,
               const SourceLocation& location, bool total_order = false) {
  XlaBuilder* builder = PickBuilder({lhs, rhs});
  std::string attributes =
      broadcast_dimensions.empty()
          ? ""
          : absl::StrCat("broadcast_dimensions=",
                         DimsString(broadcast_dimensions));
  return RecordOp(
      builder, op_name, {lhs, rhs}, attributes, location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * l, builder->LookUp(lhs));
        ASSIGN_OR_RETURN(HloInstruction * r, builder->LookUp(rhs));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferBinaryOpShape(
                                          opcode, l->shape(), r->shape(),
                                          broadcast_dimensions));
        if (total_order) {
          RETURN_IF_ERROR(ShapeInference::CheckTotalOrderCompare(l->shape()));
        }
        std::optional<std::vector<int64_t>> implicit;
        if (!broadcast_dimensions.empty()) {
          implicit.emplace(broadcast_dimensions.begin(),
                           broadcast_dimensions.end());
        }
        auto instruction =
            direction.has_value()
                ? HloInstruction::CreateCompare(shape, l, r, *direction,
                                                std::move(implicit))
                : HloInstruction::CreateBinary(shape, opcode, l, r,
                                               std::move(implicit));
        if (total_order) instruction->set_total_order_comparison(true);
        return builder->AddInstruction(std::move(instruction), op_name,
                                       location);
      });
}

XlaOp UnaryOp(HloOpcode opcode, absl::string_view op_name, XlaOp operand,
              const SourceLocation& location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(builder, op_name, {operand}, "", location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    ASSIGN_OR_RETURN(HloInstruction * x,
                                     builder->LookUp(operand));
                    ASSIGN_OR_RETURN(Shape shape,
                                     ShapeInference::InferUnaryOpShape(
                                         opcode, x->shape()));
                    return builder->AddInstruction(
                        HloInstruction::CreateUnary(shape, opcode, x), op_name,
                        location);
                  });
}

}  // namespace

XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number,
                const Shape& shape, const std::string& name,
                SourceLocation location) {
  std::string attributes = absl::StrCat(parameter_number, ", ",
                                        shape.ToString(), ", \"", name, "\"");
  return RecordOp(
      builder, "Parameter", {}, attributes, location,
      [&]() -> absl::StatusOr<XlaOp> {
        RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
        RETURN_IF_ERROR(builder->RegisterParameter(parameter_number));
        return builder->AddInstruction(
            HloInstruction::CreateParameter(parameter_number, shape,
                                            name.empty() ? "parameter" : name),
            "Parameter", location);
      });
}

namespace builder_internal {
namespace {

// Records `status` on `builder` as ReportErrorOrReturn would (prefixed with
// the call and its site); true if it is OK.
bool NoteCallError(XlaBuilder* builder, const std::string& call,
                   const absl::Status& status, const SourceLocation& location) {
  if (status.ok()) return true;
  if (builder != nullptr) {
    builder->NoteError(absl::Status(
        status.code(), absl::StrCat(call, " at ", CallSiteString(location),
                                    ": ", status.message())));
  }
  return false;
}

absl::Status CheckConstantBytes(const XlaBuilder* builder, int64_t elements,
                                int64_t element_bytes) {
  int64_t bytes;
  if (__builtin_mul_overflow(elements, element_bytes, &bytes)) {
    bytes = std::numeric_limits<int64_t>::max();
  }
  const int64_t budget = builder != nullptr ? builder->memory_limit_bytes()
                                            : PhysicalMemoryBytes();
  return CheckMemoryBudget(bytes, budget, "the constant");
}

}  // namespace

bool CheckConstantR1Length(XlaBuilder* builder, int64_t length,
                           int64_t element_bytes,
                           const SourceLocation& location) {
  absl::Status status =
      length < 0 ? absl::InvalidArgumentError("the length must be >= 0")
                 : CheckConstantBytes(builder, length, element_bytes);
  return NoteCallError(builder, absl::StrCat("ConstantR1(length=", length, ")"),
                       status, location);
}

bool CheckConstantR2Rows(XlaBuilder* builder,
                         absl::Span<const int64_t> row_sizes,
                         int64_t element_bytes,
                         const SourceLocation& location) {
  absl::Status status;
  for (size_t row = 1; row < row_sizes.size() && status.ok(); ++row) {
    if (row_sizes[row] != row_sizes[0]) {
      status = absl::InvalidArgumentError(
          absl::StrCat("row ", row, " has ", row_sizes[row],
                       " elements but row 0 has ", row_sizes[0]));
    }
  }
  if (status.ok() && !row_sizes.empty()) {
    status = CheckConstantBytes(
        builder, row_sizes[0] * static_cast<int64_t>(row_sizes.size()),
        element_bytes);
  }
  return NoteCallError(
      builder, absl::StrCat("ConstantR2(", row_sizes.size(), " rows)"),
      status, location);
}

}  // namespace builder_internal

XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal,
                      SourceLocation location) {
  return RecordOp(builder, "ConstantLiteral", {}, literal.shape().ToString(),
                  location, [&]() -> absl::StatusOr<XlaOp> {
                    if (!literal.shape().IsArray()) {
                      return absl::InvalidArgumentError(
                          "constants must be arrays, not tuples");
                    }
                    return builder->AddInstruction(
                        HloInstruction::CreateConstant(literal), "Constant",
                        location);
                  });
}

XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension,
           SourceLocation location) {
  return RecordOp(
      builder, "Iota", {},
      absl::StrCat(shape.ToString(), ", iota_dimension=", iota_dimension),
      location, [&]() -> absl::StatusOr<XlaOp> {
        RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
        RETURN_IF_ERROR(ShapeInference::CheckIota(shape, iota_dimension));
        return builder->AddInstruction(
            HloInstruction::CreateIota(shape, iota_dimension), "Iota",
            location);
      });
}

// One function per binary and unary op of the op table.
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(e, text, Name, type_rule, cost)                     \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,              \
             SourceLocation location) {                                    \
    return BinaryOp(HloOpcode::e, #Name, lhs, rhs, broadcast_dimensions,   \
                    std::nullopt, location);                               \
  }
#define MXLA_UNARY_OP(e, text, Name, type_rule, cost)          \
  XlaOp Name(XlaOp operand, SourceLocation location) {         \
    return UnaryOp(HloOpcode::e, #Name, operand, location);    \
  }
#include "ir/hlo_ops.def"

#define MXLA_DEFINE_COMPARE_OP(Name, direction)                            \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,              \
             SourceLocation location) {                                    \
    return BinaryOp(HloOpcode::kCompare, #Name, lhs, rhs,                  \
                    broadcast_dimensions, ComparisonDirection::direction,  \
                    location);                                             \
  }
MXLA_DEFINE_COMPARE_OP(Eq, kEq)
MXLA_DEFINE_COMPARE_OP(Ne, kNe)
MXLA_DEFINE_COMPARE_OP(Lt, kLt)
MXLA_DEFINE_COMPARE_OP(Le, kLe)
MXLA_DEFINE_COMPARE_OP(Gt, kGt)
MXLA_DEFINE_COMPARE_OP(Ge, kGe)
#undef MXLA_DEFINE_COMPARE_OP

#define MXLA_DEFINE_TOTAL_ORDER_OP(Name, direction)                        \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,              \
             SourceLocation location) {                                    \
    return BinaryOp(HloOpcode::kCompare, #Name, lhs, rhs,                  \
                    broadcast_dimensions, ComparisonDirection::direction,  \
                    location, /*total_order=*/true);                       \
  }
MXLA_DEFINE_TOTAL_ORDER_OP(EqTotalOrder, kEq)
MXLA_DEFINE_TOTAL_ORDER_OP(NeTotalOrder, kNe)
MXLA_DEFINE_TOTAL_ORDER_OP(LtTotalOrder, kLt)
MXLA_DEFINE_TOTAL_ORDER_OP(LeTotalOrder, kLe)
MXLA_DEFINE_TOTAL_ORDER_OP(GtTotalOrder, kGt)
MXLA_DEFINE_TOTAL_ORDER_OP(GeTotalOrder, kGe)
#undef MXLA_DEFINE_TOTAL_ORDER_OP

XlaOp Compare(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,
              ComparisonDirection direction, SourceLocation location) {
  return BinaryOp(HloOpcode::kCompare, "Compare", lhs, rhs,
                  broadcast_dimensions, direction, location);
}


}  // namespace mxla
