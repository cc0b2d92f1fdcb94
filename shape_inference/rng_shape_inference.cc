// The shape rules of rng (ShapeInference::CheckRng, with the checks and
// wording of XLA's verifier) and rng-bit-generator.
#include "ir/primitive_type.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"
#include "shape_inference/shape_inference_errors.h"

namespace mxla {

using shape_inference_internal::ExpectValidArray;
using shape_inference_internal::OpError;

absl::Status ShapeInference::CheckRng(RandomDistribution distribution,
                                      const Shape& a, const Shape& b,
                                      const Shape& shape) {
  constexpr HloOpcode kOp = HloOpcode::kRng;
  RETURN_IF_ERROR(ExpectValidArray(kOp, shape, "result"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, a, "operand 0"));
  RETURN_IF_ERROR(ExpectValidArray(kOp, b, "operand 1"));
  if (a.rank() != 0 || b.rank() != 0) {
    return OpError(kOp, "Expected scalar types for the two operands; got ",
                   a.ToString(), " and ", b.ToString(), ".");
  }
  if (a.element_type() != b.element_type() ||
      a.element_type() != shape.element_type()) {
    return OpError(kOp,
                   "Expected the same element type for the result and the two "
                   "operands; got ",
                   a.ToString(), " and ", b.ToString(), " for ",
                   shape.ToString(), ".");
  }
  if (distribution == RandomDistribution::kNormal &&
      !primitive_util::IsFloatingPointType(shape.element_type())) {
    return OpError(kOp,
                   "Element type not supported. Expected element to be of "
                   "floating point type for rng_normal; got ",
                   shape.ToString(), ".");
  }
  return absl::OkStatus();
}

absl::Status ShapeInference::CheckRngBitGenerator(RandomAlgorithm algorithm,
                                                  const Shape& state,
                                                  const Shape& shape) {
  constexpr HloOpcode kOp = HloOpcode::kRngBitGenerator;
  RETURN_IF_ERROR(ExpectValidArray(kOp, state, "state"));
  if (state.element_type() != U64 || state.rank() != 1) {
    return OpError(kOp, "the state must be u64[n]; got ", state.ToString());
  }
  const int64_t n = state.dimensions(0);
  if (algorithm == RandomAlgorithm::kThreeFry && n != 2) {
    return OpError(kOp,
                   "rng_three_fry keeps its state in u64[2] (key, counter); "
                   "got ",
                   state.ToString());
  }
  if (algorithm != RandomAlgorithm::kThreeFry && n != 2 && n != 3) {
    return OpError(kOp, RandomAlgorithmString(algorithm),
                   " keeps its state in u64[2] or u64[3] (key, 128-bit "
                   "counter); got ",
                   state.ToString());
  }
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2 ||
      !shape.tuple_shapes(1).IsArray()) {
    return OpError(kOp,
                   "the result is a tuple (new state, bits) of two arrays; "
                   "got ",
                   shape.ToString());
  }
  if (shape.tuple_shapes(0) != state) {
    return OpError(kOp, "the new state ", shape.tuple_shapes(0).ToString(),
                   " must have the shape of the state ", state.ToString());
  }
  const Shape& bits = shape.tuple_shapes(1);
  RETURN_IF_ERROR(ExpectValidArray(kOp, bits, "bits"));
  if (!primitive_util::IsUnsignedIntegralType(bits.element_type())) {
    return OpError(kOp,
                   "XLA's bit generators make unsigned integers (u2, u4, u8, "
                   "u16, u32 or u64); got ",
                   bits.ToString());
  }
  return absl::OkStatus();
}

}  // namespace mxla
