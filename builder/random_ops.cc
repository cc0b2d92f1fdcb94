// RngUniform and RngNormal (rng with its distribution) and RngBitGenerator.
#include "absl/strings/str_cat.h"
#include "builder/op_helpers.h"
#include "builder/ops.h"
#include "ir/status_macros.h"
#include "shape_inference/shape_inference.h"

namespace mxla {
namespace {

using builder_internal::PickBuilder;
using builder_internal::RecordOp;

XlaOp Rng(RandomDistribution distribution, absl::string_view op_name,
          XlaOp a, XlaOp b, const Shape& shape, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({a, b});
  return RecordOp(
      builder, op_name, {a, b}, absl::StrCat("shape=", shape.ToString()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * first, builder->LookUp(a));
        ASSIGN_OR_RETURN(HloInstruction * second, builder->LookUp(b));
        RETURN_IF_ERROR(ShapeInference::CheckRng(
            distribution, first->shape(), second->shape(), shape));
        auto rng = HloInstruction::CreateGeneric(HloOpcode::kRng, shape,
                                                 {first, second});
        rng->set_rng_distribution(distribution);
        return builder->AddInstruction(std::move(rng), op_name, location);
      });
}

}  // namespace

XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state,
                      const Shape& shape, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({initial_state});
  return RecordOp(
      builder, "RngBitGenerator", {initial_state},
      absl::StrCat(RandomAlgorithmString(algorithm), ", shape=",
                   shape.ToString()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * state,
                         builder->LookUp(initial_state));
        const Shape result({state->shape(), shape});
        RETURN_IF_ERROR(ShapeInference::CheckRngBitGenerator(
            algorithm, state->shape(), result));
        auto rng = HloInstruction::CreateGeneric(HloOpcode::kRngBitGenerator,
                                                 result, {state});
        rng->set_rng_algorithm(algorithm);
        return builder->AddInstruction(std::move(rng), "RngBitGenerator",
                                       location);
      });
}

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape,
                 SourceLocation location) {
  return Rng(RandomDistribution::kUniform, "RngUniform", a, b, shape,
             location);
}

XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape,
                SourceLocation location) {
  return Rng(RandomDistribution::kNormal, "RngNormal", mu, sigma, shape,
             location);
}

}  // namespace mxla
