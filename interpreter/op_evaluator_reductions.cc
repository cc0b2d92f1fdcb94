#include "interpreter/op_evaluator.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/binary_reducer.h"
#include "interpreter/hlo_evaluator_index_ops.h"
#include "semantics/batch_norm.h"
#include "semantics/bit_generators.h"
#include "semantics/bit_ops.h"
#include "semantics/linear_algebra.h"
#include "semantics/index_walk.h"
#include "semantics/random_numbers.h"
#include "semantics/scalar_semantics.h"
#include "semantics/scatter_elements.h"
#include "semantics/select_and_scatter.h"
#include "semantics/sort_rows.h"
#include "semantics/stochastic_convert.h"
#include "ir/narrow_float.h"
#include "ir/replica_groups.h"
#include "ir/shape_summary.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "interpreter/evaluation_plan.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// One reduce: N inputs of one shape, N scalar inits, and, per output
// element, the input offset of its first reduced element (`bases`) and the
// offsets of all its reduced elements relative to that, in row-major order
// of the operand (`steps`).
struct ReduceJob {
  std::vector<const Literal*> inputs;
  std::vector<const Literal*> inits;
  int64_t output_count = 0;
  // Fills the input offsets output o combines, in order.
  std::function<void(int64_t o, std::vector<int64_t>& offsets)> offsets;
  std::vector<Literal> outputs;
};

// If the reducer is one binary op on its two parameters (the common sum,
// product, max, min; binary_reducer.h), runs it as a typed loop and
// returns true. The elements are combined in the same order and by the
// same functions as the general path, so the results are identical.
bool TryReduceWithBinaryOp(const HloComputation& reducer, ReduceJob& job) {
  if (job.inputs.size() != 1) return false;
  const PrimitiveType type = job.inputs[0]->shape().element_type();
  const std::optional<BinaryReducer> binary = AsBinaryReducer(reducer, type);
  if (!binary.has_value() ||
      job.inits[0]->shape() != ShapeUtil::MakeScalarShape(type)) {
    return false;
  }
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithReducerOp<T>(*binary, [&](auto op) {
      const T* in = job.inputs[0]->data<T>().data();
      T* out = job.outputs[0].data<T>().data();
      const T init = job.inits[0]->data<T>()[0];
      std::vector<int64_t> offsets;
      for (int64_t o = 0; o < job.output_count; ++o) {
        job.offsets(o, offsets);
        T acc = init;
        for (int64_t offset : offsets) acc = op(acc, in[offset]);
        out[o] = acc;
      }
    });
  });
}

const uint8_t* Bytes(const Literal& literal) {
  return static_cast<const uint8_t*>(literal.untyped_data());
}

// Any reducer: calls it once per reduced element on scalar literals.
absl::Status ReduceWithComputation(const HloComputation& reducer,
                                   ReduceJob& job) {
  const size_t n = job.inputs.size();
  ASSIGN_OR_RETURN(Plan plan, MakePlan(reducer));
  std::vector<Literal> accumulators(n), elements(n);
  std::vector<const Literal*> arguments(2 * n);
  std::vector<int64_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    PrimitiveType type = job.inputs[i]->shape().element_type();
    accumulators[i] = *job.inits[i];
    elements[i] = Literal(ShapeUtil::MakeScalarShape(type));
    widths[i] = primitive_util::ByteWidth(type);
    arguments[i] = &accumulators[i];
    arguments[n + i] = &elements[i];
  }
  // The argument shapes never change, so one check covers every call.
  RETURN_IF_ERROR(CheckArguments(reducer, arguments));
  std::vector<int64_t> offsets;
  for (int64_t o = 0; o < job.output_count; ++o) {
    for (size_t i = 0; i < n; ++i) accumulators[i] = *job.inits[i];
    job.offsets(o, offsets);
    for (int64_t offset : offsets) {
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(elements[i].untyped_data(),
                    Bytes(*job.inputs[i]) + offset * widths[i], widths[i]);
      }
      ASSIGN_OR_RETURN(Literal result, RunPlan(plan, arguments));
      for (size_t i = 0; i < n; ++i) {
        Literal& value = n == 1 ? result : result.tuple_element(i);
        RET_CHECK(value.shape() == accumulators[i].shape(), "reducer returned ",
                  result.shape().ToString());
        accumulators[i] = std::move(value);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      auto* out = static_cast<uint8_t*>(job.outputs[i].untyped_data());
      std::memcpy(out + o * widths[i], accumulators[i].untyped_data(),
                  widths[i]);
    }
  }
  return absl::OkStatus();
}

// Runs `job` with the fast path when the reducer allows; one result per
// input (a tuple when there are several).
absl::StatusOr<Literal> RunReduceJob(const HloComputation& reducer,
                                     ReduceJob& job) {
  if (!TryReduceWithBinaryOp(reducer, job)) {
    RETURN_IF_ERROR(ReduceWithComputation(reducer, job));
  }
  if (job.outputs.size() == 1) return std::move(job.outputs[0]);
  return LiteralUtil::MakeTuple(std::move(job.outputs));
}

absl::StatusOr<Literal> EvaluateReduce(
    const HloInstruction& reduce, absl::Span<const Literal* const> operands) {
  const HloComputation* reducer = reduce.to_apply();
  if (reducer == nullptr || reducer->root_instruction() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce '", reduce.name(), "' has no reducer computation (to_apply)"));
  }
  const size_t n = operands.size() / 2;
  RET_CHECK(n >= 1 && operands.size() == 2 * n,
            "reduce needs inputs and "
            "as many init values");
  ReduceJob job;
  job.inputs.assign(operands.begin(), operands.begin() + n);
  job.inits.assign(operands.begin() + n, operands.end());
  const Shape& shape = job.inputs[0]->shape();
  for (size_t i = 0; i < n; ++i) {
    RET_CHECK(
        job.inputs[i]->shape().IsArray() &&
            ShapeUtil::SameDimensions(job.inputs[i]->shape(), shape) &&
            job.inits[i]->shape() == ShapeUtil::MakeScalarShape(
                                         job.inputs[i]->shape().element_type()),
        "reduce input ", i, " or its init value has the wrong shape");
  }
  std::vector<bool> reduced(shape.rank(), false);
  for (int64_t d : reduce.dimensions()) {
    RET_CHECK(d >= 0 && d < shape.rank() && !reduced[d],
              "bad reduce dimension ", d);
    reduced[d] = true;
  }
  // Ascending dimension order makes `steps` increase in the operand's
  // row-major order, whatever order `dimensions` lists.
  std::vector<int64_t> strides = ShapeUtil::RowMajorStrides(shape);
  std::vector<int64_t> kept_dims, kept_strides, reduced_dims, reduced_strides;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    (reduced[d] ? reduced_dims : kept_dims).push_back(shape.dimensions(d));
    (reduced[d] ? reduced_strides : kept_strides).push_back(strides[d]);
  }
  const std::vector<int64_t> bases = StridedOffsets(kept_dims, kept_strides);
  const std::vector<int64_t> steps =
      StridedOffsets(reduced_dims, reduced_strides);
  job.output_count = bases.size();
  job.offsets = [&](int64_t o, std::vector<int64_t>& offsets) {
    offsets.resize(steps.size());
    for (size_t k = 0; k < steps.size(); ++k) offsets[k] = bases[o] + steps[k];
  };
  for (size_t i = 0; i < n; ++i) {
    job.outputs.emplace_back(
        ShapeUtil::MakeShape(job.inits[i]->shape().element_type(), kept_dims));
  }
  return RunReduceJob(*reducer, job);
}

// reduce-window: each output element combines, from its init, the input
// elements under its window's taps in row-major tap order; taps in padding
// or in holes of the dilated base are skipped (XLA's semantics).
absl::StatusOr<Literal> EvaluateReduceWindow(
    const HloInstruction& reduce_window,
    absl::Span<const Literal* const> operands) {
  const HloComputation* reducer = reduce_window.to_apply();
  RET_CHECK(reducer != nullptr && reducer->root_instruction() != nullptr,
            reduce_window.ToString());
  const size_t n = operands.size() / 2;
  RET_CHECK(n >= 1 && operands.size() == 2 * n, reduce_window.ToString());
  ReduceJob job;
  job.inputs.assign(operands.begin(), operands.begin() + n);
  job.inits.assign(operands.begin() + n, operands.end());
  const Shape& base = job.inputs[0]->shape();
  const Window window = reduce_window.window();
  const int64_t rank = base.rank();
  RET_CHECK(static_cast<int64_t>(window.size()) == rank,
            reduce_window.ToString());
  std::vector<int64_t> positions, taps;
  for (int64_t d = 0; d < rank; ++d) {
    positions.push_back(WindowOutputSize(base.dimensions(d), window[d]));
    taps.push_back(window[d].size);
  }
  const std::vector<int64_t> strides = ShapeUtil::RowMajorStrides(base);
  const Shape position_shape = ShapeUtil::MakeShape(PRED, positions);
  job.output_count = ShapeUtil::ElementsIn(position_shape);
  std::vector<int64_t> position(rank), tap(rank);
  job.offsets = [&](int64_t o, std::vector<int64_t>& offsets) {
    offsets.clear();
    for (int64_t d = rank - 1, rest = o; d >= 0; --d) {
      position[d] = rest % positions[d];
      rest /= positions[d];
    }
    std::fill(tap.begin(), tap.end(), 0);
    do {
      int64_t offset = 0;
      if (semantics::WindowTapOffset(window, base.dimensions(), strides,
                                     position, tap, &offset)) {
        offsets.push_back(offset);
      }
    } while (semantics::NextIndex(taps, tap));
  };
  for (size_t i = 0; i < n; ++i) {
    job.outputs.emplace_back(
        ShapeUtil::MakeShape(job.inits[i]->shape().element_type(), positions));
  }
  return RunReduceJob(*reducer, job);
}

// ---- Map ------------------------------------------------------------------

// to_apply on each element position of the operands.
absl::StatusOr<Literal> EvaluateMap(const HloInstruction& map,
                                    absl::Span<const Literal* const> operands,
                                    const EvaluatorOptions& options) {
  const HloComputation* to_apply = map.to_apply();
  RET_CHECK(to_apply != nullptr, map.ToString());
  ASSIGN_OR_RETURN(Plan plan, MakePlan(*to_apply));
  const size_t n = operands.size();
  std::vector<Literal> scalars(n);
  std::vector<const Literal*> arguments(n);
  std::vector<int64_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    const PrimitiveType type = operands[i]->shape().element_type();
    scalars[i] = Literal(ShapeUtil::MakeScalarShape(type));
    arguments[i] = &scalars[i];
    widths[i] = primitive_util::ByteWidth(type);
  }
  RETURN_IF_ERROR(CheckArguments(*to_apply, arguments));
  Literal result(map.shape());
  const int64_t result_width =
      primitive_util::ByteWidth(map.shape().element_type());
  for (int64_t e = 0; e < result.element_count(); ++e) {
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(scalars[i].untyped_data(), Bytes(*operands[i]) + e * widths[i],
                  widths[i]);
    }
    ASSIGN_OR_RETURN(Literal value, RunPlan(plan, arguments, options));
    std::memcpy(static_cast<uint8_t*>(result.untyped_data()) + e * result_width,
                value.untyped_data(), result_width);
  }
  return result;
}

// ---- Sort -----------------------------------------------------------------

// Each row put in the comparator's stable order (semantics/sort_rows.h),
// the comparator evaluated on scalar literals per comparison.
absl::StatusOr<Literal> EvaluateSort(const HloInstruction& sort,
                                     absl::Span<const Literal* const> operands,
                                     const EvaluatorOptions& options) {
  const HloComputation* comparator = sort.to_apply();
  RET_CHECK(comparator != nullptr && sort.dimensions().size() == 1,
            sort.ToString());
  ASSIGN_OR_RETURN(Plan plan, MakePlan(*comparator));
  const size_t n = operands.size();
  std::vector<Literal> scalars(2 * n);
  std::vector<const Literal*> arguments(2 * n);
  std::vector<int64_t> widths(n);
  std::vector<const void*> inputs(n);
  std::vector<Literal> outputs;
  std::vector<void*> output_data(n);
  for (size_t i = 0; i < n; ++i) {
    const Shape& shape = operands[i]->shape();
    RET_CHECK(shape.IsArray(), "sort operand ", shape.ToString());
    widths[i] = primitive_util::ByteWidth(shape.element_type());
    for (int side = 0; side < 2; ++side) {
      scalars[2 * i + side] =
          Literal(ShapeUtil::MakeScalarShape(shape.element_type()));
      arguments[2 * i + side] = &scalars[2 * i + side];
    }
    inputs[i] = operands[i]->untyped_data();
    outputs.emplace_back(shape);
  }
  for (size_t i = 0; i < n; ++i) output_data[i] = outputs[i].untyped_data();
  RETURN_IF_ERROR(CheckArguments(*comparator, arguments));
  RETURN_IF_ERROR(semantics::SortRows(
      operands[0]->shape().dimensions(), sort.dimensions(0), widths, inputs,
      output_data,
      [&](absl::Span<const void* const> pair) -> absl::StatusOr<bool> {
        for (size_t i = 0; i < 2 * n; ++i) {
          std::memcpy(scalars[i].untyped_data(), pair[i], widths[i / 2]);
        }
        ASSIGN_OR_RETURN(Literal lhs_first, RunPlan(plan, arguments, options));
        return lhs_first.data<bool>()[0];
      }));
  if (n == 1) return std::move(outputs[0]);
  return LiteralUtil::MakeTuple(std::move(outputs));
}

// A scatter of one operand whose combiner is one op (binary_reducer.h) on
// its type: the updates combined into `result` by a typed loop, in the
// order ScatterElements gives, as the evaluated combiner would. nullopt
// for any other scatter.
std::optional<absl::Status> TryScatterWithBinaryOp(
    const HloComputation& combiner, const semantics::ScatterGeometry& geometry,
    const Literal& indices, const Literal& updates, Literal& result) {
  const PrimitiveType type = result.shape().element_type();
  const std::optional<BinaryReducer> binary = AsBinaryReducer(combiner, type);
  if (!binary.has_value() || updates.shape().element_type() != type) {
    return std::nullopt;
  }
  absl::Status status;
  const bool typed = primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithReducerOp<T>(*binary, [&](auto op) {
      T* out = result.data<T>().data();
      const T* in = updates.data<T>().data();
      status = semantics::ScatterElements(
          geometry, indices.untyped_data(),
          [&](int64_t element, int64_t update) -> absl::Status {
            out[element] = op(out[element], in[update]);
            return absl::OkStatus();
          });
    });
  });
  if (!typed) return std::nullopt;
  return status;
}

// scatter: the operands copied, then each update element combined into the
// element it lands on by the evaluated combiner, as
// semantics/scatter_elements.h orders it.
absl::StatusOr<Literal> EvaluateScatter(
    const HloInstruction& scatter, absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
  const HloComputation* combiner = scatter.to_apply();
  RET_CHECK(combiner != nullptr && operands.size() % 2 == 1,
            scatter.ToString());
  ASSIGN_OR_RETURN(Plan plan, MakePlan(*combiner));
  const size_t n = operands.size() / 2;
  const Literal& indices = *operands[n];
  std::vector<Literal> results, scalars(2 * n);
  std::vector<const Literal*> arguments(2 * n);
  std::vector<int64_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    results.push_back(*operands[i]);
    widths[i] = primitive_util::ByteWidth(operands[i]->shape().element_type());
    scalars[i] = Literal(
        ShapeUtil::MakeScalarShape(operands[i]->shape().element_type()));
    scalars[n + i] = Literal(ShapeUtil::MakeScalarShape(
        operands[n + 1 + i]->shape().element_type()));
  }
  for (size_t i = 0; i < 2 * n; ++i) arguments[i] = &scalars[i];
  RETURN_IF_ERROR(CheckArguments(*combiner, arguments));
  semantics::ScatterGeometry geometry;
  const Shape& operand = operands[0]->shape();
  const Shape& updates = operands[n + 1]->shape();
  geometry.operand_dims.assign(operand.dimensions().begin(),
                               operand.dimensions().end());
  geometry.indices_dims.assign(indices.shape().dimensions().begin(),
                               indices.shape().dimensions().end());
  geometry.indices_type = indices.shape().element_type();
  geometry.update_dims.assign(updates.dimensions().begin(),
                              updates.dimensions().end());
  geometry.dnums = scatter.scatter_dimension_numbers();
  if (n == 1) {
    if (std::optional<absl::Status> done = TryScatterWithBinaryOp(
            *combiner, geometry, indices, *operands[2], results[0])) {
      RETURN_IF_ERROR(*done);
      return std::move(results[0]);
    }
  }
  RETURN_IF_ERROR(semantics::ScatterElements(
      geometry, indices.untyped_data(),
      [&](int64_t element, int64_t update) -> absl::Status {
        for (size_t i = 0; i < n; ++i) {
          const int64_t update_width = primitive_util::ByteWidth(
              operands[n + 1 + i]->shape().element_type());
          std::memcpy(scalars[i].untyped_data(),
                      Bytes(results[i]) + element * widths[i], widths[i]);
          std::memcpy(scalars[n + i].untyped_data(),
                      Bytes(*operands[n + 1 + i]) + update * update_width,
                      update_width);
        }
        ASSIGN_OR_RETURN(Literal combined, RunPlan(plan, arguments, options));
        for (size_t i = 0; i < n; ++i) {
          const Literal& value = n == 1 ? combined : combined.tuple_element(i);
          std::memcpy(static_cast<uint8_t*>(results[i].untyped_data()) +
                          element * widths[i],
                      value.untyped_data(), widths[i]);
        }
        return absl::OkStatus();
      }));
  if (n == 1) return std::move(results[0]);
  return LiteralUtil::MakeTuple(std::move(results));
}

// A select-and-scatter whose select is one compare and whose scatter is
// one op (binary_reducer.h), all on the result's type: both run as typed
// code inside SelectAndScatter's walk, in its order, as the evaluated
// computations would. nullopt for any other.
std::optional<absl::Status> TrySelectAndScatterTyped(
    const HloInstruction& instruction, const Literal& operand,
    const Literal& source, Literal& result) {
  const PrimitiveType type = result.shape().element_type();
  const auto& callees = instruction.called_computations();
  const std::optional<BinarySelect> select = AsBinarySelect(*callees[0], type);
  const std::optional<BinaryReducer> scatter =
      AsBinaryReducer(*callees[1], type);
  if (!select.has_value() || !scatter.has_value() ||
      operand.shape().element_type() != type ||
      source.shape().element_type() != type) {
    return std::nullopt;
  }
  absl::Status status;
  bool ran = false;  // both computations had a typed form
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithSelect<T>(*select, [&](auto keep) {
      WithReducerOp<T>(*scatter, [&](auto op) {
        const T* in = operand.data<T>().data();
        const T* from = source.data<T>().data();
        T* out = result.data<T>().data();
        status = semantics::SelectAndScatter(
            std::vector<int64_t>(operand.shape().dimensions().begin(),
                                 operand.shape().dimensions().end()),
            instruction.window(),
            [&](int64_t selected,
                int64_t candidate) -> absl::StatusOr<bool> {
              return keep(in[selected], in[candidate]);
            },
            [&](int64_t target, int64_t element) -> absl::Status {
              out[target] = op(out[target], from[element]);
              return absl::OkStatus();
            });
        ran = true;
      });
    });
  });
  if (!ran) return std::nullopt;
  return status;
}

// select-and-scatter: init_value everywhere, then each source element
// scattered onto the element its window selects, with the evaluated
// computations in semantics/select_and_scatter.h's order.
absl::StatusOr<Literal> EvaluateSelectAndScatter(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
  const auto& callees = instruction.called_computations();
  RET_CHECK(callees.size() == 2 && operands.size() == 3,
            instruction.ToString());
  ASSIGN_OR_RETURN(Plan select, MakePlan(*callees[0]));
  ASSIGN_OR_RETURN(Plan scatter, MakePlan(*callees[1]));
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const PrimitiveType type = instruction.shape().element_type();
  const int64_t width = primitive_util::ByteWidth(type);
  Literal result(instruction.shape());
  for (int64_t k = 0; k < result.element_count(); ++k) {
    std::memcpy(static_cast<uint8_t*>(result.untyped_data()) + k * width,
                operands[2]->untyped_data(), width);
  }
  Literal a(ShapeUtil::MakeScalarShape(operand.shape().element_type()));
  Literal b(ShapeUtil::MakeScalarShape(operand.shape().element_type()));
  Literal accumulator(ShapeUtil::MakeScalarShape(type));
  Literal element(ShapeUtil::MakeScalarShape(source.shape().element_type()));
  const Literal* select_arguments[] = {&a, &b};
  const Literal* scatter_arguments[] = {&accumulator, &element};
  RETURN_IF_ERROR(CheckArguments(*callees[0], select_arguments));
  RETURN_IF_ERROR(CheckArguments(*callees[1], scatter_arguments));
  if (std::optional<absl::Status> done = TrySelectAndScatterTyped(
          instruction, operand, source, result)) {
    RETURN_IF_ERROR(*done);
    return result;
  }
  const int64_t operand_width =
      primitive_util::ByteWidth(operand.shape().element_type());
  const int64_t source_width =
      primitive_util::ByteWidth(source.shape().element_type());
  RETURN_IF_ERROR(semantics::SelectAndScatter(
      std::vector<int64_t>(operand.shape().dimensions().begin(),
                           operand.shape().dimensions().end()),
      instruction.window(),
      [&](int64_t selected, int64_t candidate) -> absl::StatusOr<bool> {
        std::memcpy(a.untyped_data(),
                    Bytes(operand) + selected * operand_width, operand_width);
        std::memcpy(b.untyped_data(),
                    Bytes(operand) + candidate * operand_width, operand_width);
        ASSIGN_OR_RETURN(Literal keep, RunPlan(select, select_arguments,
                                               options));
        return keep.data<bool>()[0];
      },
      [&](int64_t target, int64_t from) -> absl::Status {
        uint8_t* slot =
            static_cast<uint8_t*>(result.untyped_data()) + target * width;
        std::memcpy(accumulator.untyped_data(), slot, width);
        std::memcpy(element.untyped_data(),
                    Bytes(source) + from * source_width, source_width);
        ASSIGN_OR_RETURN(Literal combined,
                         RunPlan(scatter, scatter_arguments, options));
        std::memcpy(slot, combined.untyped_data(), width);
        return absl::OkStatus();
      }));
  return result;
}

}  // namespace

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kReduce>) {
  return EvaluateReduce(instruction_, operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kReduceWindow>) {
  return EvaluateReduceWindow(instruction_, operands_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kMap>) {
  return EvaluateMap(instruction_, operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kSort>) {
  return EvaluateSort(instruction_, operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kScatter>) {
  return EvaluateScatter(instruction_, operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kSelectAndScatter>) {
  return EvaluateSelectAndScatter(instruction_, operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kScan>) {
  return EvaluateScan(instruction_, operands_, options_);
}

OpEvaluator::Result OpEvaluator::Handle(OpTag<Op::kTopK>) {
  return EvaluateTopK(operand(0), instruction_.topk_k(),
                      instruction_.topk_largest());
}

}  // namespace mxla::hlo_evaluator_internal
