// Gradient rules of gather and scatter (JAX's _gather_transpose_rule,
// _scatter_add_transpose_rule and _scatter_jvp, jax/_src/lax/slicing.py).
// A gather's operand gets the cotangent scatter-added back where each
// slice was read; the indices get none. A scatter-add's operand gets the
// whole cotangent and its updates the cotangent gathered where they
// landed. An overwriting scatter's operand gets the cotangent where no
// update landed, and each update element gets it only where it was the one
// that stayed: which one did is found, as JAX's _scatter_jvp does, by
// scattering update ids the same way (so repeated indices need no promise
// of uniqueness). XLA's two ways with a window that does not fit are kept:
// a gather clamps its start (so the cotangent goes back to the clamped
// window), a scatter skips the update (so it gets no cotangent).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/fusion_plan.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

std::vector<int64_t> DimensionsOf(XlaOp op) {
  const Shape shape = ShapeOf(op);
  return {shape.dimensions().begin(), shape.dimensions().end()};
}

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

ScatterDimensionNumbers ScatterNumbersOf(const GatherDimensionNumbers& g) {
  ScatterDimensionNumbers s;
  s.update_window_dims = g.offset_dims;
  s.inserted_window_dims = g.collapsed_slice_dims;
  s.scatter_dims_to_operand_dims = g.start_index_map;
  s.input_batching_dims = g.operand_batching_dims;
  s.scatter_indices_batching_dims = g.start_indices_batching_dims;
  s.index_vector_dim = g.index_vector_dim;
  return s;
}

GatherDimensionNumbers GatherNumbersOf(const ScatterDimensionNumbers& s) {
  GatherDimensionNumbers g;
  g.offset_dims = s.update_window_dims;
  g.collapsed_slice_dims = s.inserted_window_dims;
  g.start_index_map = s.scatter_dims_to_operand_dims;
  g.operand_batching_dims = s.input_batching_dims;
  g.start_indices_batching_dims = s.scatter_indices_batching_dims;
  g.index_vector_dim = s.index_vector_dim;
  return g;
}

// A scatter's window size in each operand dimension (JAX's slice_sizes
// for the gather that undoes it).
std::vector<int64_t> ScatterWindowSizes(const ScatterDimensionNumbers& s,
                                        int64_t operand_rank,
                                        const std::vector<int64_t>& updates) {
  std::vector<int64_t> sizes;
  size_t next = 0;
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (Contains(s.inserted_window_dims, d) ||
        Contains(s.input_batching_dims, d)) {
      sizes.push_back(1);
    } else {
      sizes.push_back(updates[s.update_window_dims[next++]]);
    }
  }
  return sizes;
}

// The largest start that fits the window, per index vector component, in
// the indices' shape and type (a scalar when the index vector is implicit).
XlaOp LargestStarts(XlaOp indices, int64_t index_vector_dim,
                    const std::vector<int64_t>& index_map,
                    const std::vector<int64_t>& operand,
                    const std::vector<int64_t>& window) {
  std::vector<int64_t> largest;
  for (int64_t d : index_map) largest.push_back(operand[d] - window[d]);
  const PrimitiveType type = ShapeOf(indices).element_type();
  const std::vector<int64_t> dims = DimensionsOf(indices);
  if (index_vector_dim == static_cast<int64_t>(dims.size())) {
    return ConvertTo(ConstantR0<int64_t>(indices.builder(), largest[0]), type);
  }
  const XlaOp vector = ConvertTo(
      ConstantR1<int64_t>(indices.builder(), largest), type);
  return BroadcastInDim(vector, dims, {index_vector_dim});
}

// Per scatter position (the updates' non-window dimensions, stretched over
// the window ones): whether its window fit, so the scatter applied it.
absl::StatusOr<XlaOp> WindowFits(const GradientContext& context,
                                 const ScatterDimensionNumbers& s,
                                 const std::vector<int64_t>& window) {
  const XlaOp& indices = context.operands[1];
  const XlaOp largest =
      LargestStarts(indices, s.index_vector_dim, s.scatter_dims_to_operand_dims,
                    DimensionsOf(context.operands[0]), window);
  XlaOp fits = And(Ge(indices, ScalarLike(indices, 0)),
                   Le(indices, largest, {}), {});
  const std::vector<int64_t> index_dims = DimensionsOf(indices);
  if (s.index_vector_dim < static_cast<int64_t>(index_dims.size())) {
    ASSIGN_OR_RETURN(XlaComputation all,
                     ScalarComputation(context.builder, "and", PRED,
                                       [](XlaOp a, XlaOp b) { return And(a, b); }));
    fits = Reduce(fits, ConstantR0<bool>(&context.builder, true), all,
                  {s.index_vector_dim});
  }
  const std::vector<int64_t> updates = DimensionsOf(context.operands[2]);
  std::vector<int64_t> scatter_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(updates.size()); ++d) {
    if (!Contains(s.update_window_dims, d)) scatter_dims.push_back(d);
  }
  return BroadcastInDim(fits, updates, scatter_dims);
}

// An id per update (1, 2, ... by scatter position, the same across its
// window), in the updates' shape.
XlaOp UpdateIds(XlaBuilder& builder, const std::vector<int64_t>& updates,
                const ScatterDimensionNumbers& s) {
  std::vector<int64_t> positions = updates;
  int64_t count = 1;
  for (int64_t d : s.update_window_dims) positions[d] = 1;
  for (int64_t size : positions) count *= size;
  const XlaOp ids =
      Iota(&builder, ShapeUtil::MakeShape(S32, {count}), 0) +
      ConstantR0<int32_t>(&builder, 1);
  std::vector<int64_t> all(updates.size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = d;
  return BroadcastInDim(Reshape(ids, positions), updates, all);
}

// An overwriting scatter's cotangents: JAX's _scatter_jvp's ids, reversed.
absl::StatusOr<OperandCotangents> OverwriteCotangents(
    const GradientContext& context, const ScatterDimensionNumbers& s,
    const std::vector<int64_t>& window) {
  XlaBuilder& builder = context.builder;
  const XlaOp& indices = context.operands[1];
  const XlaOp ids = UpdateIds(builder, DimensionsOf(context.operands[2]), s);
  ASSIGN_OR_RETURN(XlaComputation overwrite,
                   ScalarComputation(builder, "overwrite", S32,
                                     [](XlaOp, XlaOp b) { return b; }));
  const std::vector<int64_t> operand = DimensionsOf(context.operands[0]);
  const XlaOp zero_ids = BroadcastInDim(ConstantR0<int32_t>(&builder, 0),
                                        operand, {});
  const XlaOp landed = Scatter(zero_ids, indices, ids, overwrite, s);
  const GatherDimensionNumbers g = GatherNumbersOf(s);
  const XlaOp stayed = Eq(Gather(landed, indices, g, window), ids);
  const XlaOp& cotangent = context.cotangent;
  const XlaOp gathered = Gather(cotangent, indices, g, window);
  return OperandCotangents{
      Select(Eq(landed, zero_ids), cotangent, Filled(cotangent, 0)), XlaOp(),
      Select(stayed, gathered, Filled(gathered, 0))};
}

bool IsOverwrite(const HloComputation& update) {
  const HloInstruction* root = update.root_instruction();
  return root->opcode() == Op::kParameter && root->parameter_number() == 1;
}

}  // namespace

// The indices are clamped as the gather clamped them, so that the scatter
// (which would skip a window that does not fit) writes where it read.
Result GradientRules::Handle(OpTag<Op::kGather>,
                             const GradientContext& context) {
  const GatherDimensionNumbers g =
      context.instruction.gather_dimension_numbers();
  const std::vector<int64_t> window = context.instruction.gather_slice_sizes();
  const XlaOp& operand = context.operands[0];
  const XlaOp& indices = context.operands[1];
  const XlaOp largest = LargestStarts(indices, g.index_vector_dim,
                                      g.start_index_map,
                                      DimensionsOf(operand), window);
  const XlaOp clamped =
      Min(Max(indices, Filled(indices, 0)), largest, {});
  const PrimitiveType type = ShapeOf(operand).element_type();
  return OperandCotangents{
      Scatter(Filled(operand, 0), clamped, context.cotangent,
              CreateScalarAddComputation(type, &context.builder),
              ScatterNumbersOf(g)),
      XlaOp()};
}

Result GradientRules::Handle(OpTag<Op::kScatter>,
                             const GradientContext& context) {
  const HloInstruction& scatter = context.instruction;
  if (context.operands.size() != 3) {
    return NoRuleError(context, "with several operands");
  }
  const ScatterDimensionNumbers s = scatter.scatter_dimension_numbers();
  const std::vector<int64_t> window =
      ScatterWindowSizes(s, DimensionsOf(context.operands[0]).size(),
                         DimensionsOf(context.operands[2]));
  const HloComputation& update = *scatter.to_apply();
  if (IsOverwrite(update)) return OverwriteCotangents(context, s, window);
  if (!IsPlainBinaryReducer(update, Op::kAdd)) {
    return NoRuleError(context, "with an update computation other than add "
                                "or overwrite");
  }
  ASSIGN_OR_RETURN(XlaOp fits, WindowFits(context, s, window));
  const XlaOp gathered =
      Gather(context.cotangent, context.operands[1], GatherNumbersOf(s), window);
  return OperandCotangents{context.cotangent, XlaOp(),
                           Select(fits, gathered, Filled(gathered, 0))};
}

}  // namespace mxla::gradient_rules
