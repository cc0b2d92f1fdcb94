#include "interpreter/hlo_evaluator.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
#include "ir/replica_groups.h"
#include "ir/shape_summary.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

using hlo_evaluator_internal::EvaluateBroadcast;
using hlo_evaluator_internal::EvaluateConcatenate;
using hlo_evaluator_internal::EvaluateDot;
using hlo_evaluator_internal::EvaluateRaggedDot;
using hlo_evaluator_internal::EvaluateScaledDot;
using hlo_evaluator_internal::EvaluateIota;
using hlo_evaluator_internal::EvaluateReshape;
using hlo_evaluator_internal::EvaluateScan;
using hlo_evaluator_internal::EvaluateTopK;
using hlo_evaluator_internal::EvaluateSlice;
using hlo_evaluator_internal::EvaluateReverse;
using hlo_evaluator_internal::EvaluateGather;
using hlo_evaluator_internal::EvaluateConvolution;
using hlo_evaluator_internal::EvaluateSingleDeviceCollective;
using hlo_evaluator_internal::EvaluateDynamicSlice;
using hlo_evaluator_internal::EvaluatePad;
using hlo_evaluator_internal::EvaluateDynamicUpdateSlice;
using hlo_evaluator_internal::EvaluateTranspose;
using hlo_evaluator_internal::ImplicitBroadcast;
using hlo_evaluator_internal::StridedOffsets;

// A computation prepared for evaluation: the instructions the root depends
// on, operands before users, with each value's last use, so values can be
// freed as soon as nothing needs them. Built once per computation call (and
// once per reduce for its reducer).
struct Plan {
  // The root last, unless a side effect after it reads it.
  std::vector<const HloInstruction*> order;
  int64_t root = 0;  // Its position in `order`.
  std::vector<std::vector<int64_t>> operand_slots;  // Positions in `order`.
  std::vector<int64_t> last_use;  // Position of the last user; root: size.
};

absl::StatusOr<Plan> MakePlan(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  RET_CHECK(root != nullptr, "computation ", computation.name(),
            " has no root");
  std::vector<HloInstruction*> all = computation.MakeInstructionPostOrder();
  // Users come after their operands, so one backward sweep finds
  // everything the root and the side effects depend on.
  absl::flat_hash_set<const HloInstruction*> needed = {root};
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (HasSideEffect((*it)->opcode())) needed.insert(*it);
    if (!needed.contains(*it)) continue;
    for (const HloInstruction* operand : (*it)->operands()) {
      needed.insert(operand);
    }
  }
  Plan plan;
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (const HloInstruction* instruction : all) {
    if (!needed.contains(instruction)) continue;
    position[instruction] = static_cast<int64_t>(plan.order.size());
    plan.order.push_back(instruction);
  }
  const int64_t n = static_cast<int64_t>(plan.order.size());
  RET_CHECK(position.contains(root), "root of ", computation.name(),
            " is not in its post order");
  plan.root = position[root];
  plan.operand_slots.resize(n);
  plan.last_use.assign(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    for (const HloInstruction* operand : plan.order[i]->operands()) {
      auto it = position.find(operand);
      RET_CHECK(it != position.end(), "operand ", operand->name(), " of ",
                plan.order[i]->name(), " is not in ", computation.name());
      plan.operand_slots[i].push_back(it->second);
      plan.last_use[it->second] = i;
    }
  }
  plan.last_use[plan.root] = n;
  return plan;
}

absl::StatusOr<Literal> Dispatch(const HloInstruction& instruction,
                                 absl::Span<const Literal* const> operands,
                                 const EvaluatorOptions& options);

// Runs a plan on checked arguments.
absl::StatusOr<Literal> RunPlan(const Plan& plan,
                                absl::Span<const Literal* const> arguments,
                                const EvaluatorOptions& options = {}) {
  const int64_t n = static_cast<int64_t>(plan.order.size());
  // Parameters and constants are read in place; computed values are owned
  // here until their last user has run.
  std::vector<Literal> owned(n);
  std::vector<const Literal*> values(n, nullptr);
  std::vector<const Literal*> operands;
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction& instruction = *plan.order[i];
    if (instruction.opcode() == HloOpcode::kParameter) {
      int64_t number = instruction.parameter_number();
      RET_CHECK(number >= 0 && number < static_cast<int64_t>(arguments.size()),
                "parameter number ", number, " out of range");
      values[i] = arguments[number];
    } else if (instruction.opcode() == HloOpcode::kConstant &&
               instruction.has_literal()) {
      values[i] = &instruction.literal();
    } else {
      operands.clear();
      for (int64_t slot : plan.operand_slots[i]) {
        operands.push_back(values[slot]);
      }
      absl::StatusOr<Literal> value = Dispatch(instruction, operands, options);
      if (!value.ok()) {
        return absl::Status(
            value.status().code(),
            absl::StrCat("evaluating ", instruction.name(), " (",
                         HloOpcodeString(instruction.opcode()),
                         "): ", value.status().message()));
      }
      owned[i] = *std::move(value);
      values[i] = &owned[i];
    }
    for (int64_t slot : plan.operand_slots[i]) {
      if (plan.last_use[slot] == i) {
        owned[slot] = Literal();
        values[slot] = nullptr;
      }
    }
  }
  const int64_t root = plan.root;
  if (values[root] == &owned[root]) return std::move(owned[root]);
  return *values[root];  // A parameter or constant root: copy it.
}

// ---- Elementwise ----------------------------------------------------------

// `operand` read at the result's dimensions: itself in lowered HLO, an
// implicit broadcast into `storage` in the builder form.
absl::StatusOr<const Literal*> AtResultDims(
    const Literal& operand, const Shape& result,
    const std::optional<std::vector<int64_t>>& broadcast_dimensions,
    Literal& storage) {
  if (operand.shape().IsArray() &&
      ShapeUtil::SameDimensions(operand.shape(), result)) {
    return &operand;
  }
  ASSIGN_OR_RETURN(storage, ImplicitBroadcast(operand, result.dimensions(),
                                              broadcast_dimensions));
  return &storage;
}

absl::StatusOr<Literal> EvaluateBinary(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  Literal lhs_storage, rhs_storage;
  const auto& dims = instruction.broadcast_dimensions();
  ASSIGN_OR_RETURN(
      const Literal* lhs,
      AtResultDims(*operands[0], instruction.shape(), dims, lhs_storage));
  ASSIGN_OR_RETURN(
      const Literal* rhs,
      AtResultDims(*operands[1], instruction.shape(), dims, rhs_storage));
  if (instruction.opcode() == HloOpcode::kCompare) {
    return semantics::ApplyCompare(instruction.comparison_direction(), *lhs,
                                   *rhs, instruction.total_order_comparison());
  }
  return semantics::ApplyBinaryOp(instruction.opcode(), *lhs, *rhs);
}

// The three operands of select or clamp read at the result's dimensions:
// a scalar among arrays applies everywhere (the builder form of select,
// and clamp's bounds in any form).
struct ThreeAtResult {
  Literal storage[3];
  const Literal* at_result[3];
};

absl::Status ReadThreeAtResult(const HloInstruction& instruction,
                               absl::Span<const Literal* const> operands,
                               ThreeAtResult& three) {
  for (int i = 0; i < 3; ++i) {
    ASSIGN_OR_RETURN(three.at_result[i],
                     AtResultDims(*operands[i], instruction.shape(),
                                  std::nullopt, three.storage[i]));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> EvaluateSelect(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  ThreeAtResult three;
  RETURN_IF_ERROR(ReadThreeAtResult(instruction, operands, three));
  const Literal* const* at_result = three.at_result;
  return semantics::ApplySelect(*at_result[0], *at_result[1], *at_result[2]);
}

// clamp(min, x, max) = min(max(x, min), max), with maximum's and minimum's
// NaN and signed-zero rules.
absl::StatusOr<Literal> EvaluateClamp(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) {
  ThreeAtResult three;
  RETURN_IF_ERROR(ReadThreeAtResult(instruction, operands, three));
  const Literal* const* at_result = three.at_result;
  ASSIGN_OR_RETURN(Literal low,
                   semantics::ApplyBinaryOp(HloOpcode::kMaximum,
                                            *at_result[1], *at_result[0]));
  return semantics::ApplyBinaryOp(HloOpcode::kMinimum, low, *at_result[2]);
}

// ---- Reduce ---------------------------------------------------------------

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
// product, max, min), runs it as a typed loop and returns true. The
// elements are combined in the same order and by the same functions as the
// general path, so the results are identical.
bool TryReduceWithBinaryOp(const HloComputation& reducer, ReduceJob& job) {
  // An unverified reducer may have no root or a malformed one: the general
  // path reports it.
  const HloInstruction* root = reducer.root_instruction();
  if (job.inputs.size() != 1 || root == nullptr ||
      GetHloOpcodeCategory(root->opcode()) != HloOpcodeCategory::kBinary ||
      root->operand_count() != 2) {
    return false;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter || !root->shape().IsScalar() ||
      a->shape() != root->shape() || b->shape() != root->shape() ||
      root->shape() != job.inits[0]->shape() ||
      job.inputs[0]->shape().element_type() != root->shape().element_type() ||
      a->parameter_number() + b->parameter_number() != 1) {
    return false;
  }
  bool swapped = a->parameter_number() == 1;  // root = op(element, acc).
  return primitive_util::ArrayTypeSwitch(
      root->shape().element_type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        return semantics::WithBinaryOp<T>(root->opcode(), [&](auto op) {
          const T* in = job.inputs[0]->data<T>().data();
          T* out = job.outputs[0].data<T>().data();
          const T init = job.inits[0]->data<T>()[0];
          std::vector<int64_t> offsets;
          for (int64_t o = 0; o < job.output_count; ++o) {
            job.offsets(o, offsets);
            T acc = init;
            if (swapped) {
              for (int64_t offset : offsets) acc = op(in[offset], acc);
            } else {
              for (int64_t offset : offsets) acc = op(acc, in[offset]);
            }
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

// ---- Dispatch -------------------------------------------------------------

absl::StatusOr<Literal> EvaluateOther(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operands,
    const EvaluatorOptions& options) {
  const Shape& shape = instruction.shape();
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", instruction.name(),
                       " has no value outside a computation call"));
    case HloOpcode::kConstant:
      RET_CHECK(instruction.has_literal(), "constant without a literal");
      return instruction.literal();
    case HloOpcode::kIota:
      return EvaluateIota(shape, instruction.iota_dimension());
    case HloOpcode::kSelect:
      return EvaluateSelect(instruction, operands);
    case HloOpcode::kConvert:
      return semantics::ApplyConvert(*operands[0], shape.element_type());
    case HloOpcode::kIsFinite:
      return semantics::ApplyIsFinite(*operands[0]);
    case HloOpcode::kClamp:
      return EvaluateClamp(instruction, operands);
    case HloOpcode::kReducePrecision:
      return semantics::ApplyReducePrecision(*operands[0],
                                             instruction.exponent_bits(),
                                             instruction.mantissa_bits());
    case HloOpcode::kBitcastConvert:
      return semantics::ApplyBitcastConvert(*operands[0], shape);
    case HloOpcode::kReverse:
      return EvaluateReverse(*operands[0], instruction.dimensions());
    case HloOpcode::kGetDimensionSize: {
      const Shape& operand = operands[0]->shape();
      const int64_t d = instruction.dimensions(0);
      RET_CHECK(operand.IsArray() && d >= 0 && d < operand.rank(),
                instruction.ToString());
      return LiteralUtil::CreateR0<int32_t>(
          static_cast<int32_t>(operand.dimensions(d)));
    }
    case HloOpcode::kOptimizationBarrier:  // a scheduling fence: a no-op here
    case HloOpcode::kAddDependency:  // no side effects to order
      return *operands[0];
    case HloOpcode::kAfterAll:
      return Literal(Shape(TOKEN, {}));
    case HloOpcode::kInfeed: {
      ASSIGN_OR_RETURN(Literal data,
                       ReadInfeed(instruction.name(),
                                  instruction.shape().tuple_shapes(0),
                                  options.host_feed));
      std::vector<Literal> pair;
      pair.push_back(std::move(data));
      pair.push_back(Literal(Shape(TOKEN, {})));
      return LiteralUtil::MakeTuple(std::move(pair));
    }
    case HloOpcode::kOutfeed:
      RETURN_IF_ERROR(
          WriteOutfeed(instruction.name(), Literal(*operands[0]),
                       options.host_feed));
      return Literal(Shape(TOKEN, {}));
    case HloOpcode::kBroadcast:
      return EvaluateBroadcast(*operands[0], shape, instruction.dimensions());
    case HloOpcode::kReshape:
      return EvaluateReshape(*operands[0], shape);
    case HloOpcode::kTranspose:
      return EvaluateTranspose(*operands[0], instruction.dimensions());
    case HloOpcode::kBitcast:
      return EvaluateReshape(*operands[0], shape);
    case HloOpcode::kDot:
      return EvaluateDot(*operands[0], *operands[1],
                         instruction.dot_dimension_numbers(), shape);
    case HloOpcode::kRaggedDot:
      return EvaluateRaggedDot(*operands[0], *operands[1], *operands[2],
                               instruction.ragged_dot_dimension_numbers(),
                               shape);
    case HloOpcode::kScaledDot:
      return EvaluateScaledDot(*operands[0], *operands[1], *operands[2],
                               *operands[3],
                               instruction.dot_dimension_numbers(), shape);
    case HloOpcode::kConcatenate:
      return EvaluateConcatenate(operands, shape, instruction.dimensions(0));
    case HloOpcode::kDynamicUpdateSlice:
      return EvaluateDynamicUpdateSlice(operands);
    case HloOpcode::kCustomCall:  // only identity targets verify
      return *operands[0];
    case HloOpcode::kReplicaId:  // mxla runs one replica of one partition
    case HloOpcode::kPartitionId:
      return LiteralUtil::CreateR0<uint32_t>(0);
    case HloOpcode::kConvolution: {
      ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                       instruction.convolution_dimension_numbers());
      return EvaluateConvolution(*operands[0], *operands[1],
                                 instruction.window(), dnums,
                                 instruction.feature_group_count(),
                                 instruction.batch_group_count(), shape);
    }
    case HloOpcode::kGather:
      return EvaluateGather(*operands[0], *operands[1],
                            instruction.gather_dimension_numbers(),
                            instruction.gather_slice_sizes(), shape);
    case HloOpcode::kPad:
      return EvaluatePad(*operands[0], *operands[1],
                         instruction.padding_config(), shape);
    case HloOpcode::kDynamicSlice:
      return EvaluateDynamicSlice(operands, instruction.dynamic_slice_sizes());
    case HloOpcode::kSlice:
      return EvaluateSlice(*operands[0], instruction.slice_starts(),
                           instruction.slice_limits(),
                           instruction.slice_strides());
    case HloOpcode::kReduce:
      return EvaluateReduce(instruction, operands);
    case HloOpcode::kReduceWindow:
      return EvaluateReduceWindow(instruction, operands);
    case HloOpcode::kScatter:
      return EvaluateScatter(instruction, operands, options);
    case HloOpcode::kSelectAndScatter:
      return EvaluateSelectAndScatter(instruction, operands, options);
    case HloOpcode::kSort:
      return EvaluateSort(instruction, operands, options);
    case HloOpcode::kScan:
      return EvaluateScan(instruction, operands, options);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return semantics::EvaluateBatchNorm(instruction.opcode(), operands,
                                          instruction.epsilon(),
                                          instruction.feature_index(), shape);
    case HloOpcode::kStochasticConvert:
      return semantics::StochasticConvert(*operands[0], *operands[1],
                                          shape.element_type());
    case HloOpcode::kCholesky: {
      ASSIGN_OR_RETURN(bool lower, instruction.cholesky_lower());
      return semantics::Cholesky(*operands[0], lower);
    }
    case HloOpcode::kTriangularSolve: {
      ASSIGN_OR_RETURN(TriangularSolveOptions options,
                       instruction.triangular_solve_options());
      return semantics::TriangularSolve(*operands[0], *operands[1], options);
    }
    case HloOpcode::kRng: {
      ASSIGN_OR_RETURN(RandomDistribution distribution,
                       instruction.rng_distribution());
      return semantics::random::Generate(
          distribution, semantics::random::NameKey(instruction.name()),
          *operands[0], *operands[1], instruction.shape());
    }
    case HloOpcode::kRngBitGenerator: {
      ASSIGN_OR_RETURN(RandomAlgorithm algorithm, instruction.rng_algorithm());
      return semantics::bit_generators::Generate(algorithm, *operands[0],
                                                 instruction.shape());
    }
    case HloOpcode::kTopK:
      return EvaluateTopK(*operands[0], instruction.topk_k(),
                          instruction.topk_largest());
    case HloOpcode::kMap:
      return EvaluateMap(instruction, operands, options);
    case HloOpcode::kTuple: {
      std::vector<Literal> elements;
      for (const Literal* operand : operands) elements.push_back(*operand);
      return LiteralUtil::MakeTuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement: {
      const Literal& tuple = *operands[0];
      int64_t index = instruction.tuple_index();
      RET_CHECK(
          tuple.shape().IsTuple() && index >= 0 && index < tuple.tuple_size(),
          "get-tuple-element ", index, " of ", tuple.shape().ToString());
      return tuple.tuple_element(index);
    }
    case HloOpcode::kCall:
      return EvaluateComputation(*instruction.to_apply(), operands, options);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
      return EvaluateSingleDeviceCollective(
          instruction.opcode(), shape,
          instruction.attributes().Has(AttrId::kSourceTargetPairs) &&
              !DecodeIdGroups(*instruction.attributes().Get<std::vector<int64_t>>(
                                  AttrId::kSourceTargetPairs))
                   .empty(),
          operands);
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCallStart:
    case HloOpcode::kCopyStart: {
      // (operands, value, context): the value computed now, as on one
      // device nothing runs alongside; the context is zeros.
      std::vector<Literal> elements;
      if (instruction.opcode() == HloOpcode::kCopyStart) {
        elements.push_back(*operands[0]);
        elements.push_back(*operands[0]);
      } else {
        std::vector<Literal> inputs;
        for (const Literal* operand : operands) inputs.push_back(*operand);
        elements.push_back(LiteralUtil::MakeTuple(std::move(inputs)));
        ASSIGN_OR_RETURN(Literal value,
                         EvaluateComputation(*instruction.to_apply(), operands,
                                             options));
        elements.push_back(std::move(value));
      }
      for (size_t i = 2; i < shape.tuple_shapes().size(); ++i) {
        elements.emplace_back(shape.tuple_shapes(i));
      }
      return LiteralUtil::MakeTuple(std::move(elements));
    }
    case HloOpcode::kAsyncUpdate:
      return *operands[0];
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCallDone:
    case HloOpcode::kCopyDone:
      return operands[0]->tuple_element(1);
    case HloOpcode::kConditional: {
      // pred: true runs branch 0; s32: an index out of range runs the last.
      const auto& branches = instruction.called_computations();
      const Literal& selector = *operands[0];
      int64_t branch = static_cast<int64_t>(branches.size()) - 1;
      if (selector.shape().element_type() == PRED) {
        branch = selector.data<bool>()[0] ? 0 : 1;
      } else {
        const int32_t index = selector.data<int32_t>()[0];
        if (index >= 0 && index < branch) branch = index;
      }
      return EvaluateComputation(*branches[branch], {operands[1 + branch]},
                                 options);
    }
    case HloOpcode::kWhile: {
      // The state goes through the body while the condition holds; a loop
      // that never ends never returns, as in XLA.
      const HloComputation& condition = *instruction.called_computations()[0];
      const HloComputation& body = *instruction.called_computations()[1];
      Literal state = *operands[0];
      for (int64_t trips = 0;; ++trips) {
        ASSIGN_OR_RETURN(Literal go,
                         EvaluateComputation(condition, {&state}, options));
        if (!go.data<bool>()[0]) return state;
        if (options.max_loop_trips >= 0 && trips == options.max_loop_trips) {
          return LoopTripsExceeded(instruction.name(), options.max_loop_trips);
        }
        ASSIGN_OR_RETURN(state, EvaluateComputation(body, {&state}, options));
      }
    }
    case HloOpcode::kFusion:
      if (instruction.called_computations().size() != 1 ||
          instruction.to_apply() == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fusion '", instruction.name(), "' has no fused computation"));
      }
      return EvaluateComputation(*instruction.to_apply(), operands, options);
    default:
      return absl::InternalError(
          absl::StrCat("the evaluator does not know opcode ",
                       HloOpcodeString(instruction.opcode())));
  }
}

// Evaluates on operand values known to be non-null, one per operand.
absl::StatusOr<Literal> Dispatch(const HloInstruction& instruction,
                                 absl::Span<const Literal* const> operands,
                                 const EvaluatorOptions& options) {
  int64_t arity = HloOpcodeArity(instruction.opcode());
  RET_CHECK(arity < 0 || static_cast<int64_t>(operands.size()) == arity,
            "expected ", arity, " operands, got ", operands.size());
  absl::StatusOr<Literal> result;
  switch (GetHloOpcodeCategory(instruction.opcode())) {
    case HloOpcodeCategory::kUnary:
      result = semantics::ApplyUnaryOp(instruction.opcode(), *operands[0]);
      break;
    case HloOpcodeCategory::kBinary:
    case HloOpcodeCategory::kCompare:
      result = EvaluateBinary(instruction, operands);
      break;
    default:
      result = EvaluateOther(instruction, operands, options);
      break;
  }
  // Catches malformed (unverified) instructions, not evaluator logic.
  if (result.ok() && result->shape() != instruction.shape()) {
    return absl::InternalError(absl::StrCat(
        "computed a value of shape ", result->shape().ToString(),
        " but the instruction's shape is ", instruction.shape().ToString()));
  }
  return result;
}

// Where two different tuple shapes first differ, for messages that
// summarize them: " (tuple element {1,0} is f32[3], expected f32[2])", or
// " (2 tuple elements, expected 3)"; "" unless both are tuples.
std::string TupleDifference(const Shape& actual, const Shape& expected,
                            std::vector<int64_t> index = {}) {
  if (!actual.IsTuple() || !expected.IsTuple()) {
    if (index.empty()) return "";
    return absl::StrCat(" (tuple element {", absl::StrJoin(index, ","),
                        "} is ", ShapeSummary(actual), ", expected ",
                        ShapeSummary(expected), ")");
  }
  const size_t size = actual.tuple_shapes().size();
  if (size != expected.tuple_shapes().size()) {
    const std::string where =
        index.empty() ? ""
                      : absl::StrCat("tuple element {",
                                     absl::StrJoin(index, ","), "} has ");
    return absl::StrCat(" (", where, size, " tuple elements, expected ",
                        expected.tuple_shapes().size(), ")");
  }
  for (size_t i = 0; i < size; ++i) {
    if (actual.tuple_shapes(i) == expected.tuple_shapes(i)) continue;
    index.push_back(static_cast<int64_t>(i));
    return TupleDifference(actual.tuple_shapes(i), expected.tuple_shapes(i),
                           std::move(index));
  }
  return "";
}

}  // namespace

absl::Status CheckArguments(const HloComputation& computation,
                            absl::Span<const Literal* const> arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation '", computation.name(), "' expects ",
        computation.num_parameters(), " arguments, got ", arguments.size()));
  }
  for (int64_t i = 0; i < static_cast<int64_t>(arguments.size()); ++i) {
    const HloInstruction* parameter = computation.parameter_instruction(i);
    RET_CHECK(parameter != nullptr, "computation ", computation.name(),
              " has no parameter ", i);
    std::string what =
        absl::StrCat("argument ", i, " (parameter '", parameter->name(), "')");
    if (arguments[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is null"));
    }
    if (arguments[i]->shape() != parameter->shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " has shape ", ShapeSummary(arguments[i]->shape()),
          " but the computation expects ", ShapeSummary(parameter->shape()),
          TupleDifference(arguments[i]->shape(), parameter->shape())));
    }
  }
  return absl::OkStatus();
}

absl::Status LoopTripsExceeded(absl::string_view loop, int64_t limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat("while '", loop, "' went through its body more than ",
                   limit, " times (the limit of max_loop_trips)"));
}

absl::StatusOr<Literal> EvaluateModule(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  return EvaluateComputation(*module.entry_computation(), arguments, options);
}

absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options) {
  RETURN_IF_ERROR(CheckArguments(computation, arguments));
  // Every value must fit before the first one is allocated.
  for (const HloInstruction* instruction : computation.instructions()) {
    RETURN_IF_ERROR(CheckMemoryBudget(
        TotalArrayBytes(instruction->shape()), options.memory_limit_bytes,
        absl::StrCat("the interpreter's value of instruction '",
                     instruction->name(), "' (",
                     instruction->shape().ToString(), ")")));
  }
  ASSIGN_OR_RETURN(Plan plan, MakePlan(computation));
  return RunPlan(plan, arguments, options);
}

absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operand_values) {
  std::string what = absl::StrCat("instruction '", instruction.name(), "' (",
                                  HloOpcodeString(instruction.opcode()), ")");
  if (static_cast<int64_t>(operand_values.size()) !=
      instruction.operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has ", instruction.operand_count(),
                     " operands, got ", operand_values.size(), " values"));
  }
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    const Shape& expected = instruction.operand(i)->shape();
    if (operand_values[i] == nullptr ||
        operand_values[i]->shape() != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": operand ", i, " value ",
          operand_values[i] == nullptr
              ? "is null"
              : absl::StrCat("has shape ",
                             operand_values[i]->shape().ToString()),
          ", expected ", expected.ToString()));
    }
  }
  return Dispatch(instruction, operand_values, EvaluatorOptions{});
}

}  // namespace mxla
