// scan in the interpreter: the computation on each slice of the inputs
// along the scan dimension, in order (reversed with is_reverse), threading
// the carries; each output slice lands at its input's index.
#include <utility>
#include <vector>

#include "interpreter/hlo_evaluator.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {

namespace {

// Slice i of `input` along dimension d, without that dimension.
absl::StatusOr<Literal> SliceAt(const Literal& input, int64_t d, int64_t i) {
  const Shape& shape = input.shape();
  std::vector<int64_t> starts(shape.rank(), 0);
  std::vector<int64_t> limits(shape.dimensions().begin(),
                              shape.dimensions().end());
  starts[d] = i;
  limits[d] = i + 1;
  ASSIGN_OR_RETURN(Literal slice,
                   EvaluateSlice(input, starts, limits,
                                 std::vector<int64_t>(shape.rank(), 1)));
  std::vector<int64_t> dims(limits.size());
  for (size_t a = 0; a < dims.size(); ++a) dims[a] = limits[a] - starts[a];
  dims.erase(dims.begin() + d);
  return EvaluateReshape(slice,
                         ShapeUtil::MakeShape(shape.element_type(), dims));
}

// `stacked` with `output` as its slice i along dimension d.
absl::StatusOr<Literal> PlaceAt(const Literal& stacked, const Literal& output,
                                int64_t d, int64_t i) {
  std::vector<int64_t> dims(output.shape().dimensions().begin(),
                            output.shape().dimensions().end());
  dims.insert(dims.begin() + d, 1);
  ASSIGN_OR_RETURN(
      Literal update,
      EvaluateReshape(
          output, ShapeUtil::MakeShape(output.shape().element_type(), dims)));
  std::vector<Literal> starts;
  for (size_t a = 0; a < dims.size(); ++a) {
    starts.push_back(
        LiteralUtil::CreateR0<int64_t>(static_cast<int64_t>(a) == d ? i : 0));
  }
  std::vector<const Literal*> update_operands = {&stacked, &update};
  for (const Literal& start : starts) update_operands.push_back(&start);
  return EvaluateDynamicUpdateSlice(update_operands);
}

}  // namespace

absl::StatusOr<Literal> EvaluateScan(const HloInstruction& scan,
                                     absl::Span<const Literal* const> operands,
                                     const EvaluatorOptions& options) {
  const int64_t carries = scan.num_carries();
  const int64_t inputs = static_cast<int64_t>(operands.size()) - carries;
  const int64_t d = scan.dimensions(0);
  const Shape& shape = scan.shape();
  RET_CHECK(shape.IsTuple() && inputs > 0, scan.ToString());
  const int64_t outputs =
      static_cast<int64_t>(shape.tuple_shapes().size()) - carries;
  const int64_t length = operands[0]->shape().dimensions(d);
  std::vector<Literal> stacked;
  for (int64_t j = 0; j < outputs; ++j) stacked.emplace_back(shape.tuple_shapes(j));
  std::vector<Literal> carried;
  for (int64_t k = 0; k < carries; ++k) carried.push_back(*operands[inputs + k]);
  for (int64_t step = 0; step < length; ++step) {
    // A scan is a loop: the JIT runs it as one, under the same limit.
    if (options.max_loop_trips >= 0 && step == options.max_loop_trips) {
      return LoopTripsExceeded(scan.name(), options.max_loop_trips);
    }
    const int64_t i = scan.is_reverse() ? length - 1 - step : step;
    std::vector<Literal> arguments;
    for (int64_t n = 0; n < inputs; ++n) {
      ASSIGN_OR_RETURN(Literal element, SliceAt(*operands[n], d, i));
      arguments.push_back(std::move(element));
    }
    for (Literal& carry : carried) arguments.push_back(std::move(carry));
    std::vector<const Literal*> pointers;
    for (const Literal& argument : arguments) pointers.push_back(&argument);
    ASSIGN_OR_RETURN(Literal result,
                     EvaluateComputation(*scan.to_apply(), pointers, options));
    for (int64_t j = 0; j < outputs; ++j) {
      ASSIGN_OR_RETURN(stacked[j],
                       PlaceAt(stacked[j], result.tuple_element(j), d, i));
    }
    carried.clear();
    for (int64_t k = 0; k < carries; ++k) {
      carried.push_back(result.tuple_element(outputs + k));
    }
  }
  for (Literal& carry : carried) stacked.push_back(std::move(carry));
  return LiteralUtil::MakeTuple(std::move(stacked));
}

}  // namespace mxla::hlo_evaluator_internal
