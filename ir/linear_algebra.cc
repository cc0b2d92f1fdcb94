#include "ir/linear_algebra.h"

#include "absl/strings/str_cat.h"

namespace mxla {
namespace {

constexpr TriangularSolveTranspose kTransposes[] = {
    TriangularSolveTranspose::kNoTranspose,
    TriangularSolveTranspose::kTranspose, TriangularSolveTranspose::kAdjoint};

}  // namespace

absl::string_view TriangularSolveTransposeString(
    TriangularSolveTranspose transpose) {
  switch (transpose) {
    case TriangularSolveTranspose::kNoTranspose:
      return "NO_TRANSPOSE";
    case TriangularSolveTranspose::kTranspose:
      return "TRANSPOSE";
    case TriangularSolveTranspose::kAdjoint:
      return "ADJOINT";
  }
  return "";
}

absl::StatusOr<TriangularSolveTranspose> StringToTriangularSolveTranspose(
    absl::string_view text) {
  for (TriangularSolveTranspose transpose : kTransposes) {
    if (TriangularSolveTransposeString(transpose) == text) return transpose;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT; got ", text));
}

}  // namespace mxla
