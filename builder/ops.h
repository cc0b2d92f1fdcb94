// The op functions of XlaBuilder, named as in XLA. Included by
// builder/xla_builder.h; include that header, not this one.
//
// Every function takes the call site as a defaulted last argument, so error
// messages point at the user's line. An op whose operands are invalid (or
// whose builder already failed) returns an invalid XlaOp.
#ifndef MXLA_BUILDER_OPS_H_
#define MXLA_BUILDER_OPS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "ir/literal.h"

namespace mxla {

using Dims = absl::Span<const int64_t>;

// --- Inputs and constants ---------------------------------------------------

XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number,
                const Shape& shape, const std::string& name,
                SourceLocation location = SourceLocation::current());
XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal,
                      SourceLocation location = SourceLocation::current());

template <typename T>
XlaOp ConstantR0(XlaBuilder* builder, T value,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR0<T>(value), location);
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, absl::Span<const T> values,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR1<T>(values), location);
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, std::initializer_list<T> values,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR1<T>(values), location);
}
// `length` copies of `value`.
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, int64_t length, T value,
                 SourceLocation location = SourceLocation::current()) {
  std::vector<T> values(length < 0 ? 0 : length, value);
  return ConstantLiteral(
      builder, LiteralUtil::CreateR1<T>(absl::Span<const T>(values)),
      location);
}
template <typename T>
XlaOp ConstantR2(XlaBuilder* builder,
                 std::initializer_list<std::initializer_list<T>> values,
                 SourceLocation location = SourceLocation::current()) {
  return ConstantLiteral(builder, LiteralUtil::CreateR2<T>(values), location);
}

// An array of `shape` whose values count along `iota_dimension`.
XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension,
           SourceLocation location = SourceLocation::current());

// --- Binary elementwise ops -------------------------------------------------
// `broadcast_dimensions` maps the lower-rank operand's dimensions onto the
// higher-rank one's (strictly increasing); empty for equal ranks or scalars.
// Size-1 dimensions stretch as in XLA's degenerate broadcasting.

#define MXLA_DECLARE_BINARY_OP(Name)                                     \
  XlaOp Name(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions = {},       \
             SourceLocation location = SourceLocation::current());
MXLA_DECLARE_BINARY_OP(Add)
MXLA_DECLARE_BINARY_OP(Sub)
MXLA_DECLARE_BINARY_OP(Mul)
MXLA_DECLARE_BINARY_OP(Div)
MXLA_DECLARE_BINARY_OP(Rem)
MXLA_DECLARE_BINARY_OP(Max)
MXLA_DECLARE_BINARY_OP(Min)
MXLA_DECLARE_BINARY_OP(Pow)
MXLA_DECLARE_BINARY_OP(And)
MXLA_DECLARE_BINARY_OP(Or)
MXLA_DECLARE_BINARY_OP(Xor)
MXLA_DECLARE_BINARY_OP(Eq)
MXLA_DECLARE_BINARY_OP(Ne)
MXLA_DECLARE_BINARY_OP(Lt)
MXLA_DECLARE_BINARY_OP(Le)
MXLA_DECLARE_BINARY_OP(Gt)
MXLA_DECLARE_BINARY_OP(Ge)
#undef MXLA_DECLARE_BINARY_OP

XlaOp Compare(XlaOp lhs, XlaOp rhs, Dims broadcast_dimensions,
              ComparisonDirection direction,
              SourceLocation location = SourceLocation::current());

// --- Unary elementwise ops --------------------------------------------------

#define MXLA_DECLARE_UNARY_OP(Name) \
  XlaOp Name(XlaOp operand, SourceLocation location = SourceLocation::current());
MXLA_DECLARE_UNARY_OP(Neg)
MXLA_DECLARE_UNARY_OP(Abs)
MXLA_DECLARE_UNARY_OP(Exp)
MXLA_DECLARE_UNARY_OP(Log)
MXLA_DECLARE_UNARY_OP(Sqrt)
MXLA_DECLARE_UNARY_OP(Rsqrt)
MXLA_DECLARE_UNARY_OP(Tanh)
MXLA_DECLARE_UNARY_OP(Logistic)
MXLA_DECLARE_UNARY_OP(Floor)
MXLA_DECLARE_UNARY_OP(Ceil)
MXLA_DECLARE_UNARY_OP(Sign)
MXLA_DECLARE_UNARY_OP(Not)
#undef MXLA_DECLARE_UNARY_OP

// --- Other ops --------------------------------------------------------------

// Scalar operands (pred included) broadcast to the others' shape; non-scalar
// operands must have equal dimensions.
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false,
             SourceLocation location = SourceLocation::current());
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type,
                         SourceLocation location = SourceLocation::current());
// Prepends `broadcast_sizes`: the result is sizes ++ operand dimensions.
XlaOp Broadcast(XlaOp operand, Dims broadcast_sizes,
                SourceLocation location = SourceLocation::current());
// Operand dimension i goes to output dimension broadcast_dimensions[i]
// (strictly increasing); size-1 operand dimensions may stretch.
XlaOp BroadcastInDim(XlaOp operand, Dims out_dimension_sizes,
                     Dims broadcast_dimensions,
                     SourceLocation location = SourceLocation::current());
XlaOp Reshape(XlaOp operand, Dims new_sizes,
              SourceLocation location = SourceLocation::current());
// Output dimension i is operand dimension permutation[i].
XlaOp Transpose(XlaOp operand, Dims permutation,
                SourceLocation location = SourceLocation::current());
// Reduces `dimensions_to_reduce` of `operand` with the scalar `computation`
// (e.g. CreateScalarAddComputation) starting from `init_value`.
XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             Dims dimensions_to_reduce,
             SourceLocation location = SourceLocation::current());
// Variadic reduce: N operands, N inits, a reducer of 2N scalars returning an
// N-tuple; the result is an N-tuple.
XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, Dims dimensions_to_reduce,
             SourceLocation location = SourceLocation::current());
XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements,
            SourceLocation location = SourceLocation::current());
XlaOp GetTupleElement(XlaOp tuple, int64_t index,
                      SourceLocation location = SourceLocation::current());

}  // namespace mxla

#endif  // MXLA_BUILDER_OPS_H_
