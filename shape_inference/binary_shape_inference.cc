// ShapeInference::InferBinaryOpShape: XLA's binary-op broadcasting rules in
// XLA's checking order (xla-semantics.md §a.2). The first failing rule
// decides the message, so the order of the checks below is the contract.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {
namespace {

// One binary op being inferred; its Error() prefixes XLA's message fragment
// with the op, both shapes and the broadcast_dimensions, so every message
// names them (mxla's rule) while XLA's fragment stays greppable.
struct BinaryOp {
  HloOpcode opcode;
  const Shape& lhs;
  const Shape& rhs;
  absl::Span<const int64_t> dims;

  absl::string_view name() const { return HloOpcodeString(opcode); }

  std::string Prefix() const {
    std::string prefix =
        absl::StrCat(name(), "(", lhs.ToString(), ", ", rhs.ToString(), ")");
    if (!dims.empty()) {
      absl::StrAppend(&prefix, ", broadcast_dimensions={",
                      absl::StrJoin(dims, ","), "}");
    }
    return absl::StrCat(prefix, ": ");
  }

  template <typename... Args>
  absl::Status Error(const Args&... fragment) const {
    return absl::InvalidArgumentError(absl::StrCat(Prefix(), fragment...));
  }
};

absl::Status CheckOperandIsArray(const BinaryOp& op, const Shape& shape,
                                 absl::string_view side) {
  if (!shape.IsArray()) {
    // XLA's text already names the op and the shape.
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected array argument for ", side, " of binary operation ",
        op.name(), ", but got ", shape.ToString(), "."));
  }
  // XLA assumes valid shapes here; mxla may see any, so reject bad sizes
  // before they reach the arithmetic below.
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return op.Error(side, " operand: ", valid.message());
  return absl::OkStatus();
}

// Step 2: the opcode's own element-type rules (the op table's type_rule).
absl::Status CheckTypeRules(const BinaryOp& op) {
  switch (GetOpSpec(op.opcode).type_rule) {
    case TypeRule::kArithmetic:
      for (const Shape* shape : {&op.lhs, &op.rhs}) {
        if (shape->element_type() == PRED) {
          return op.Error(
              "Expected element type in shape to be arithmetic type for "
              "operation ",
              op.name(), "; got PRED.");
        }
      }
      return absl::OkStatus();
    case TypeRule::kPredOrIntegral: {
      // XLA checks the lhs only; step 3 then catches a differing rhs.
      PrimitiveType type = op.lhs.element_type();
      if (type != PRED && !primitive_util::IsIntegralType(type)) {
        return op.Error(
            "Expected element type in shape to be predicate or integral for "
            "operation ",
            op.name(), "; got ", primitive_util::UppercaseName(type), ".");
      }
      return absl::OkStatus();
    }
    case TypeRule::kIntegral:
      // XLA rejects pred on either side as not arithmetic; mxla also
      // rejects floats here, which XLA leaves to its emitters.
      for (const Shape* shape : {&op.lhs, &op.rhs}) {
        PrimitiveType type = shape->element_type();
        if (type == PRED) {
          return op.Error(
              "Expected element type in shape to be arithmetic type for "
              "operation ",
              op.name(), "; got PRED.");
        }
        if (!primitive_util::IsIntegralType(type)) {
          return op.Error(
              "Expected element type in shape to be integral for operation ",
              op.name(), "; got ", primitive_util::UppercaseName(type), ".");
        }
      }
      return absl::OkStatus();
    case TypeRule::kFloating: {
      PrimitiveType type = op.lhs.element_type();
      if (!primitive_util::IsFloatingPointType(type)) {
        return op.Error(
            "Expected element type in shape to be floating for operation ",
            op.name(), "; got ", primitive_util::UppercaseName(type), ".");
      }
      return absl::OkStatus();
    }
    case TypeRule::kAnyType:
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

// Degenerate (size-1) broadcasting of two equal-rank dimension lists.
// Returns false at the first pair that differs with neither side 1.
bool DegenerateBroadcast(absl::Span<const int64_t> a,
                         absl::Span<const int64_t> b,
                         std::vector<int64_t>* out) {
  out->clear();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 1) {
      out->push_back(b[i]);
    } else if (b[i] == 1 || a[i] == b[i]) {
      out->push_back(a[i]);
    } else {
      return false;
    }
  }
  return true;
}

absl::StatusOr<std::vector<int64_t>> InferEqualRank(const BinaryOp& op) {
  if (!op.dims.empty()) {
    bool identity = static_cast<int64_t>(op.dims.size()) == op.lhs.rank();
    for (size_t i = 0; identity && i < op.dims.size(); ++i) {
      identity = op.dims[i] == static_cast<int64_t>(i);
    }
    if (!identity) {
      return op.Error(
          "Broadcast dimensions field must either be not set or be the "
          "identity on binary operations with operands of the same rank.");
    }
  }
  std::vector<int64_t> out;
  if (!DegenerateBroadcast(op.lhs.dimensions(), op.rhs.dimensions(), &out)) {
    // XLA's text already names the op and both shapes.
    return absl::InvalidArgumentError(
        absl::StrCat("Binary op ", op.name(), " with incompatible shapes: ",
                     op.lhs.ToString(), " and ", op.rhs.ToString(), "."));
  }
  return out;
}

// In-dim broadcasting of the lower-rank operand, then degenerate
// broadcasting against the higher-rank one (either side may stretch).
absl::StatusOr<std::vector<int64_t>> InferDifferentRank(const BinaryOp& op) {
  bool lhs_is_small = op.lhs.rank() < op.rhs.rank();
  const Shape& small = lhs_is_small ? op.lhs : op.rhs;
  const Shape& large = lhs_is_small ? op.rhs : op.lhs;
  if (op.dims.empty() && !small.IsScalar()) {
    return op.Error("Shapes must be equal rank, but are ", op.lhs.ToString(),
                    " and ", op.rhs.ToString());
  }
  if (static_cast<int64_t>(op.dims.size()) != small.rank()) {
    return op.Error(
        "Size of broadcast_dimensions has to match lower-rank operand's "
        "rank; lower-rank operand's rank is ",
        small.rank(), ", size of broadcast_dimensions is ", op.dims.size(),
        ".");
  }
  std::vector<int64_t> in_dim(large.dimensions().begin(),
                              large.dimensions().end());
  for (int64_t i = 0; i < small.rank(); ++i) {
    int64_t d = op.dims[i];
    if (d < 0) {
      return op.Error("Broadcast dimension number (", d,
                      ") cannot be negative.");
    }
    if (d >= large.rank()) {
      return op.Error("Broadcast dimension number (", d,
                      ") too large; higher-rank operand has rank ",
                      large.rank(), ".");
    }
    int64_t s = small.dimensions(i);
    int64_t l = large.dimensions(d);
    if (s != l && s != 1 && l != 1) {
      return op.Error("Broadcast dimension ", i, " mismatch: ", s, " != ", l,
                      "; ", small.ToString(), " and ", large.ToString(), ".");
    }
    if (i > 0 && op.dims[i - 1] >= d) {
      return op.Error("Broadcast dimensions order is wrong: ", d,
                      " comes after ", op.dims[i - 1], ".");
    }
    in_dim[d] = s;
  }
  std::vector<int64_t> out;
  // Cannot fail: every mapped pair was checked above.
  RET_CHECK(DegenerateBroadcast(in_dim, large.dimensions(), &out));
  return out;
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferBinaryOpShape(
    HloOpcode opcode, const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions) {
  BinaryOp op{opcode, lhs, rhs, broadcast_dimensions};
  if (!IsBinaryElementwise(opcode)) {
    return op.Error("not a binary elementwise opcode");
  }
  RETURN_IF_ERROR(CheckOperandIsArray(op, lhs, "lhs"));
  RETURN_IF_ERROR(CheckOperandIsArray(op, rhs, "rhs"));
  RETURN_IF_ERROR(CheckTypeRules(op));
  if (lhs.element_type() != rhs.element_type()) {
    // XLA's text already names the op and both shapes.
    return absl::InvalidArgumentError(
        absl::StrCat("Binary op ", op.name(), " with different element types: ",
                     lhs.ToString(), " and ", rhs.ToString(), "."));
  }
  std::vector<int64_t> dimensions;
  if (lhs.rank() == rhs.rank()) {
    ASSIGN_OR_RETURN(dimensions, InferEqualRank(op));
  } else {
    ASSIGN_OR_RETURN(dimensions, InferDifferentRank(op));
  }
  PrimitiveType type =
      opcode == HloOpcode::kCompare ? PRED : lhs.element_type();
  Shape result = ShapeUtil::MakeShape(type, dimensions);
  // Both operands stretching can overflow the element count.
  absl::Status valid = ShapeUtil::ValidateShape(result);
  if (!valid.ok()) return op.Error("result: ", valid.message());
  return result;
}

}  // namespace mxla
