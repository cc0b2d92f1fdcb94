#include "builder/reductions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/shape_util.h"

namespace mxla {

namespace {

enum class Kind { kSum, kMax, kMin, kMean };

const char* NameOf(Kind kind) {
  switch (kind) {
    case Kind::kSum:
      return "ReduceSum";
    case Kind::kMax:
      return "ReduceMax";
    case Kind::kMin:
      return "ReduceMin";
    case Kind::kMean:
      return "ReduceMean";
  }
  return "";
}

template <typename T>
Literal ScalarOf(PrimitiveType type, T value) {
  Literal literal(ShapeUtil::MakeShape(type, {}));
  literal.data<T>()[0] = value;
  return literal;
}

// The type's lowest (or highest) value, for an integer or pred type.
template <typename T>
Literal Extreme(PrimitiveType type, bool highest) {
  return ScalarOf<T>(type, highest ? std::numeric_limits<T>::max()
                                   : std::numeric_limits<T>::lowest());
}

Literal IntegerExtreme(PrimitiveType type, bool highest) {
  switch (type) {
    case PRED:
      return ScalarOf<bool>(type, highest);
    case S8:
      return Extreme<int8_t>(type, highest);
    case S16:
      return Extreme<int16_t>(type, highest);
    case S32:
      return Extreme<int32_t>(type, highest);
    case S64:
      return Extreme<int64_t>(type, highest);
    case U8:
      return Extreme<uint8_t>(type, highest);
    case U16:
      return Extreme<uint16_t>(type, highest);
    case U32:
      return Extreme<uint32_t>(type, highest);
    default:
      return Extreme<uint64_t>(type, highest);
  }
}

XlaOp Reduction(Kind kind, XlaOp operand, absl::Span<const int64_t> axes,
                bool keepdims, const SourceLocation& location) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return XlaOp();
  const std::string context =
      absl::StrCat(NameOf(kind), "(", shape->ToString(), ", axes={",
                   absl::StrJoin(axes, ","), "}) at ", CallSiteString(location));
  auto fail = [&](const std::string& why) {
    builder->NoteError(
        absl::InvalidArgumentError(absl::StrCat(context, ": ", why)));
    return XlaOp();
  };
  if (!shape->IsArray()) return fail("the operand must be an array");
  const PrimitiveType type = shape->element_type();
  const int64_t rank = shape->rank();
  std::vector<int64_t> dims;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return fail(absl::StrCat("axis ", axis, " is out of range for rank ",
                               rank));
    }
    const int64_t dim = axis < 0 ? axis + rank : axis;
    if (std::find(dims.begin(), dims.end(), dim) != dims.end()) {
      return fail(absl::StrCat("axis ", axis, " is repeated"));
    }
    dims.push_back(dim);
  }
  std::sort(dims.begin(), dims.end());
  const bool is_float = primitive_util::IsFloatingPointType(type);
  if (kind == Kind::kMean && !is_float) {
    return fail(absl::StrCat("the mean needs a floating-point operand, not ",
                             primitive_util::LowercaseName(type)));
  }
  const bool extreme = kind == Kind::kMax || kind == Kind::kMin;
  const bool max = kind == Kind::kMax;
  XlaOp init =
      !extreme ? ScalarLike(operand, 0, location)
      : is_float
          ? ScalarLike(operand, max ? -INFINITY : INFINITY, location)
          : ConstantLiteral(builder, IntegerExtreme(type, !max), location);
  const XlaComputation reducer =
      !extreme ? CreateScalarAddComputation(type, builder)
      : max    ? CreateScalarMaxComputation(type, builder)
               : CreateScalarMinComputation(type, builder);
  XlaOp result = Reduce(operand, init, reducer, dims, location);
  if (kind == Kind::kMean) {
    int64_t count = 1;
    for (int64_t dim : dims) count *= shape->dimensions(dim);
    result = Div(result, ScalarLike(operand, static_cast<double>(count),
                                    location),
                 {}, location);
  }
  if (!keepdims) return result;
  std::vector<int64_t> kept(shape->dimensions().begin(),
                            shape->dimensions().end());
  for (int64_t dim : dims) kept[dim] = 1;
  return Reshape(result, kept, location);
}

}  // namespace

XlaOp ReduceSum(XlaOp operand, absl::Span<const int64_t> axes, bool keepdims,
                SourceLocation location) {
  return Reduction(Kind::kSum, operand, axes, keepdims, location);
}
XlaOp ReduceMax(XlaOp operand, absl::Span<const int64_t> axes, bool keepdims,
                SourceLocation location) {
  return Reduction(Kind::kMax, operand, axes, keepdims, location);
}
XlaOp ReduceMin(XlaOp operand, absl::Span<const int64_t> axes, bool keepdims,
                SourceLocation location) {
  return Reduction(Kind::kMin, operand, axes, keepdims, location);
}
XlaOp ReduceMean(XlaOp operand, absl::Span<const int64_t> axes, bool keepdims,
                 SourceLocation location) {
  return Reduction(Kind::kMean, operand, axes, keepdims, location);
}

}  // namespace mxla
