// Cholesky and TriangularSolve.
#include <string>

#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {

using builder_internal::LookUpAll;
using builder_internal::PickBuilder;
using builder_internal::RecordOp;

XlaOp Cholesky(XlaOp a, bool lower, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({a});
  return RecordOp(builder, "Cholesky", {a},
                  absl::StrCat("lower=", lower ? "true" : "false"), location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    ASSIGN_OR_RETURN(builder_internal::LookedUp found,
                                     LookUpAll(builder, {a}));
                    ASSIGN_OR_RETURN(
                        Shape shape,
                        ShapeInference::InferCholeskyShape(*found.shapes[0]));
                    auto cholesky = HloInstruction::CreateGeneric(
                        HloOpcode::kCholesky, shape, found.instructions);
                    cholesky->set_cholesky_lower(lower);
                    return builder->AddInstruction(std::move(cholesky),
                                                   "Cholesky", location);
                  });
}

XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower,
                      bool unit_diagonal, TriangularSolveTranspose transpose_a,
                      SourceLocation location) {
  XlaBuilder* builder = PickBuilder({a, b});
  const TriangularSolveOptions options = {left_side, lower, unit_diagonal,
                                          transpose_a};
  const std::string attributes = absl::StrCat(
      "left_side=", left_side ? "true" : "false",
      ", lower=", lower ? "true" : "false",
      ", unit_diagonal=", unit_diagonal ? "true" : "false",
      ", transpose_a=", TriangularSolveTransposeString(transpose_a));
  return RecordOp(builder, "TriangularSolve", {a, b}, attributes, location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    ASSIGN_OR_RETURN(builder_internal::LookedUp found,
                                     LookUpAll(builder, {a, b}));
                    ASSIGN_OR_RETURN(
                        Shape shape,
                        ShapeInference::InferTriangularSolveShape(
                            *found.shapes[0], *found.shapes[1], options));
                    auto solve = HloInstruction::CreateGeneric(
                        HloOpcode::kTriangularSolve, shape, found.instructions);
                    solve->set_triangular_solve_options(options);
                    return builder->AddInstruction(std::move(solve),
                                                   "TriangularSolve", location);
                  });
}

}  // namespace mxla
