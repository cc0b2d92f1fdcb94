#include "builder/arithmetic.h"

#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace mxla {
namespace {

using BinaryFn = XlaOp (*)(XlaOp, XlaOp, Dims, SourceLocation);

// `fn(lhs, rhs)` on two scalars of `type`. Add, multiply, maximum and
// minimum accept every array type (pred included), so only a non-array
// `type` fails: that error goes to `builder`, and an f32 reducer is returned
// so the caller's next op is skipped cleanly.
XlaComputation CreateScalarComputation(const std::string& name,
                                       PrimitiveType type, BinaryFn fn,
                                       XlaBuilder* builder) {
  if (!primitive_util::IsArrayType(type)) {
    builder->NoteError(absl::InvalidArgumentError(absl::StrCat(
        "CreateScalar", name, "Computation: ",
        primitive_util::LowercaseName(type), " is not an array element type")));
    type = F32;
  }
  std::unique_ptr<XlaBuilder> sub = builder->CreateSubBuilder(
      absl::StrCat(absl::AsciiStrToLower(name), "_", primitive_util::LowercaseName(type)));
  Shape scalar = ShapeUtil::MakeScalarShape(type);
  XlaOp lhs = Parameter(sub.get(), 0, scalar, "lhs");
  XlaOp rhs = Parameter(sub.get(), 1, scalar, "rhs");
  fn(lhs, rhs, {}, SourceLocation::current());
  absl::StatusOr<XlaComputation> computation = sub->Build();
  if (!computation.ok()) __builtin_trap();
  return *std::move(computation);
}

}  // namespace

XlaComputation CreateScalarAddComputation(PrimitiveType type,
                                          XlaBuilder* builder) {
  return CreateScalarComputation("Add", type, &Add, builder);
}

XlaComputation CreateScalarMulComputation(PrimitiveType type,
                                          XlaBuilder* builder) {
  return CreateScalarComputation("Mul", type, &Mul, builder);
}

XlaComputation CreateScalarMaxComputation(PrimitiveType type,
                                          XlaBuilder* builder) {
  return CreateScalarComputation("Max", type, &Max, builder);
}

XlaComputation CreateScalarMinComputation(PrimitiveType type,
                                          XlaBuilder* builder) {
  return CreateScalarComputation("Min", type, &Min, builder);
}

}  // namespace mxla
