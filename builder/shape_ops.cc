// Op functions other than the elementwise unary/binary ones: select,
// convert, the broadcasts, reshape, transpose, reduce and tuples.
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builder/op_helpers.h"
#include "builder/xla_builder.h"
#include "ir/hlo_verifier.h"
#include "ir/status_macros.h"
#include "shape_inference/broadcast_sequence.h"

namespace mxla {

using builder_internal::CheckCalledComputation;
using builder_internal::DimsString;
using builder_internal::LookedUp;
using builder_internal::LookUpAll;
using builder_internal::PickBuilder;
using builder_internal::RecordOp;

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false,
             SourceLocation location) {
  XlaBuilder* builder = PickBuilder({pred, on_true, on_false});
  return RecordOp(
      builder, "Select", {pred, on_true, on_false}, "", location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * p, builder->LookUp(pred));
        ASSIGN_OR_RETURN(HloInstruction * t, builder->LookUp(on_true));
        ASSIGN_OR_RETURN(HloInstruction * f, builder->LookUp(on_false));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferSelectShape(
                                          p->shape(), t->shape(), f->shape(),
                                          /*allow_scalar_broadcast=*/true));
        return builder->AddInstruction(
            HloInstruction::CreateSelect(shape, p, t, f), "Select", location);
      });
}

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type,
                         SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, "ConvertElementType", {operand},
      std::string(primitive_util::LowercaseName(new_element_type)), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferConvertShape(
                                          x->shape(), new_element_type));
        return builder->AddInstruction(HloInstruction::CreateConvert(shape, x),
                                       "ConvertElementType", location);
      });
}

XlaOp Broadcast(XlaOp operand, Dims broadcast_sizes, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, "Broadcast", {operand},
      absl::StrCat("broadcast_sizes=", DimsString(broadcast_sizes)), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferPrependBroadcastShape(
                             x->shape(), broadcast_sizes));
        // Operand dimension i lands after the prepended ones.
        std::vector<int64_t> dimensions(x->shape().rank());
        std::iota(dimensions.begin(), dimensions.end(),
                  static_cast<int64_t>(broadcast_sizes.size()));
        return builder->AddInstruction(
            HloInstruction::CreateBroadcast(shape, x, dimensions), "Broadcast",
            location);
      });
}

XlaOp BroadcastInDim(XlaOp operand, Dims out_dimension_sizes,
                     Dims broadcast_dimensions, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, "BroadcastInDim", {operand},
      absl::StrCat("out_dimension_sizes=", DimsString(out_dimension_sizes),
                   ", broadcast_dimensions=", DimsString(broadcast_dimensions)),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferBroadcastInDimShape(
                             x->shape(), out_dimension_sizes,
                             broadcast_dimensions));
        // XLA's builder emits an in-dim broadcast, then reshape + broadcast
        // for stretched size-1 dimensions; so does mxla.
        BroadcastSequenceOptions options;
        options.always_emit_rank_raise = true;
        options.metadata = OpMetadata{"BroadcastInDim", location.file_name(),
                                      static_cast<int64_t>(location.line())};
        ASSIGN_OR_RETURN(HloInstruction * result,
                         EmitBroadcastSequence(builder->computation(), x,
                                               shape.dimensions(),
                                               broadcast_dimensions, options));
        return builder->HandleFor(result);
      });
}

XlaOp Reshape(XlaOp operand, Dims new_sizes, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(builder, "Reshape", {operand},
                  absl::StrCat("new_sizes=", DimsString(new_sizes)), location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    ASSIGN_OR_RETURN(HloInstruction * x,
                                     builder->LookUp(operand));
                    ASSIGN_OR_RETURN(Shape shape,
                                     ShapeInference::InferReshapeShape(
                                         x->shape(), new_sizes));
                    return builder->AddInstruction(
                        HloInstruction::CreateReshape(shape, x), "Reshape",
                        location);
                  });
}

XlaOp Transpose(XlaOp operand, Dims permutation, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, "Transpose", {operand},
      absl::StrCat("permutation=", DimsString(permutation)), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferTransposeShape(
                                          x->shape(), permutation));
        return builder->AddInstruction(
            HloInstruction::CreateTranspose(shape, x, permutation),
            "Transpose", location);
      });
}

XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, Dims dimensions_to_reduce,
             SourceLocation location) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  return RecordOp(
      builder, "Reduce", all,
      absl::StrCat("dimensions=", DimsString(dimensions_to_reduce),
                   ", to_apply=", computation.name()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        if (operands.size() != init_values.size() || operands.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "reduce needs as many init values as operands (at least one), "
              "got ", operands.size(), " operands and ", init_values.size(),
              " init values"));
        }
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, all));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(computation, "reducer"));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferReduceShape(
                                          shapes, dimensions_to_reduce,
                                          computation.GetProgramShape()));
        HloComputation* to_apply = builder->AddCalledComputation(computation);
        return builder->AddInstruction(
            HloInstruction::CreateReduce(shape, instructions,
                                         dimensions_to_reduce, to_apply),
            "Reduce", location);
      });
}

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             Dims dimensions_to_reduce, SourceLocation location) {
  return Reduce(PickBuilder({operand, init_value}), {operand}, {init_value},
                computation, dimensions_to_reduce, location);
}

XlaOp Slice(XlaOp operand, Dims start_indices, Dims limit_indices,
            Dims strides, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  return RecordOp(
      builder, "Slice", {operand},
      absl::StrCat("start_indices=", DimsString(start_indices),
                   ", limit_indices=", DimsString(limit_indices),
                   ", strides=", DimsString(strides)),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferSliceShape(
                                          x->shape(), start_indices,
                                          limit_indices, strides));
        auto slice = HloInstruction::CreateGeneric(HloOpcode::kSlice, shape, {x});
        slice->set_slice(start_indices, limit_indices, strides);
        return builder->AddInstruction(std::move(slice), "Slice", location);
      });
}

XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   Dims slice_sizes, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand});
  std::vector<XlaOp> all = {operand};
  all.insert(all.end(), start_indices.begin(), start_indices.end());
  return RecordOp(
      builder, "DynamicSlice", all,
      absl::StrCat("slice_sizes=", DimsString(slice_sizes)), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, all));
        const auto& [instructions, shapes] = looked_up;
        std::vector<const Shape*> starts(shapes.begin() + 1, shapes.end());
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferDynamicSliceShape(
                                          *shapes[0], starts, slice_sizes));
        auto slice = HloInstruction::CreateGeneric(HloOpcode::kDynamicSlice,
                                                   shape, instructions);
        slice->set_dynamic_slice_sizes(
            std::vector<int64_t>(slice_sizes.begin(), slice_sizes.end()));
        return builder->AddInstruction(std::move(slice), "DynamicSlice",
                                       location);
      });
}

XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update,
                         absl::Span<const XlaOp> start_indices,
                         SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand, update});
  std::vector<XlaOp> all = {operand, update};
  all.insert(all.end(), start_indices.begin(), start_indices.end());
  return RecordOp(
      builder, "DynamicUpdateSlice", all, "", location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, all));
        const auto& [instructions, shapes] = looked_up;
        std::vector<const Shape*> starts(shapes.begin() + 2, shapes.end());
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferDynamicUpdateSliceShape(
                             *shapes[0], *shapes[1], starts));
        return builder->AddInstruction(
            HloInstruction::CreateGeneric(HloOpcode::kDynamicUpdateSlice,
                                          shape, instructions),
            "DynamicUpdateSlice", location);
      });
}

XlaOp CustomCall(XlaBuilder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape,
                 SourceLocation location) {
  return RecordOp(
      builder, "CustomCall", operands,
      absl::StrCat("call_target_name=\"", call_target_name, "\""), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        const auto& [instructions, shapes] = looked_up;
        ASSIGN_OR_RETURN(Shape inferred, ShapeInference::InferCustomCallShape(
                                             call_target_name, shapes, shape));
        auto call = HloInstruction::CreateGeneric(HloOpcode::kCustomCall,
                                                  inferred, instructions);
        call->set_custom_call_target(call_target_name);
        return builder->AddInstruction(std::move(call), "CustomCall", location);
      });
}

namespace {

XlaOp DeviceId(XlaBuilder* builder, HloOpcode opcode, const char* name,
               SourceLocation location) {
  return RecordOp(builder, name, {}, "", location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    return builder->AddInstruction(
                        HloInstruction::CreateGeneric(
                            opcode, ShapeUtil::MakeShape(U32, {}), {}),
                        name, location);
                  });
}

}  // namespace

XlaOp ReplicaId(XlaBuilder* builder, SourceLocation location) {
  return DeviceId(builder, HloOpcode::kReplicaId, "ReplicaId", location);
}

XlaOp PartitionId(XlaBuilder* builder, SourceLocation location) {
  return DeviceId(builder, HloOpcode::kPartitionId, "PartitionId", location);
}

XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& config,
          SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand, padding_value});
  std::vector<std::string> dims;
  for (const PaddingDimension& d : config) {
    dims.push_back(absl::StrCat(d.low, "_", d.high, "_", d.interior));
  }
  return RecordOp(
      builder, "Pad", {operand, padding_value},
      absl::StrCat("padding_config=", absl::StrJoin(dims, "x")), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(operand));
        ASSIGN_OR_RETURN(HloInstruction * v, builder->LookUp(padding_value));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferPadShape(
                                          x->shape(), v->shape(), config));
        auto pad = HloInstruction::CreateGeneric(HloOpcode::kPad, shape, {x, v});
        pad->set_padding_config(config);
        return builder->AddInstruction(std::move(pad), "Pad", location);
      });
}

XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands,
                  int64_t dimension, SourceLocation location) {
  return RecordOp(
      builder, "ConcatInDim", operands, absl::StrCat("dimension=", dimension),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        const auto& [instructions, shapes] = looked_up;
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferConcatenateShape(
                                          shapes, dimension));
        auto concat = HloInstruction::CreateGeneric(HloOpcode::kConcatenate,
                                                    shape, instructions);
        concat->set_dimensions({dimension});
        return builder->AddInstruction(std::move(concat), "ConcatInDim",
                                       location);
      });
}

namespace {

// A dot's dimension numbers as the builder's error messages quote them.
std::string DotAttributes(const DotDimensionNumbers& d) {
  return absl::StrCat("lhs_batch_dims=", DimsString(d.lhs_batch),
                      ", lhs_contracting_dims=", DimsString(d.lhs_contracting),
                      ", rhs_batch_dims=", DimsString(d.rhs_batch),
                      ", rhs_contracting_dims=", DimsString(d.rhs_contracting));
}

}  // namespace

XlaOp DotGeneral(XlaOp lhs, XlaOp rhs,
                 const DotDimensionNumbers& dimension_numbers,
                 SourceLocation location) {
  XlaBuilder* builder = PickBuilder({lhs, rhs});
  return RecordOp(
      builder, "DotGeneral", {lhs, rhs},
      DotAttributes(dimension_numbers),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * a, builder->LookUp(lhs));
        ASSIGN_OR_RETURN(HloInstruction * b, builder->LookUp(rhs));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferDotShape(a->shape(), b->shape(),
                                                       dimension_numbers));
        auto dot = HloInstruction::CreateGeneric(HloOpcode::kDot, shape, {a, b});
        dot->set_dot_dimension_numbers(dimension_numbers);
        return builder->AddInstruction(std::move(dot), "DotGeneral", location);
      });
}

XlaOp ScaledDot(XlaOp lhs, XlaOp rhs, XlaOp lhs_scale, XlaOp rhs_scale,
                const DotDimensionNumbers& dimension_numbers,
                SourceLocation location) {
  XlaBuilder* builder = PickBuilder({lhs, rhs, lhs_scale, rhs_scale});
  return RecordOp(
      builder, "ScaledDot", {lhs, rhs, lhs_scale, rhs_scale},
      DotAttributes(dimension_numbers),
      location, [&]() -> absl::StatusOr<XlaOp> {
        std::vector<HloInstruction*> operands;
        for (XlaOp op : {lhs, rhs, lhs_scale, rhs_scale}) {
          ASSIGN_OR_RETURN(HloInstruction * operand, builder->LookUp(op));
          operands.push_back(operand);
        }
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferScaledDotShape(
                             operands[0]->shape(), operands[1]->shape(),
                             operands[2]->shape(), operands[3]->shape(),
                             dimension_numbers));
        auto dot = HloInstruction::CreateGeneric(HloOpcode::kScaledDot, shape,
                                                 operands);
        dot->set_dot_dimension_numbers(dimension_numbers);
        return builder->AddInstruction(std::move(dot), "ScaledDot", location);
      });
}

XlaOp Dot(XlaOp lhs, XlaOp rhs, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({lhs, rhs});
  absl::StatusOr<Shape> lhs_shape = builder->GetShape(lhs);
  DotDimensionNumbers dimension_numbers;
  if (lhs_shape.ok() && lhs_shape->IsArray() && lhs_shape->rank() > 0) {
    dimension_numbers.lhs_contracting = {lhs_shape->rank() - 1};
  }
  dimension_numbers.rhs_contracting = {0};
  return DotGeneral(lhs, rhs, dimension_numbers, location);
}

XlaOp While(const XlaComputation& condition, const XlaComputation& body,
            XlaOp init, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({init});
  return RecordOp(
      builder, "While", {init},
      absl::StrCat("condition=", condition.name(), ", body=", body.name()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(init));
        RETURN_IF_ERROR(CheckCalledComputation(condition, "condition"));
        RETURN_IF_ERROR(CheckCalledComputation(body, "body"));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferWhileShape(
                                          condition.GetProgramShape(),
                                          body.GetProgramShape(), x->shape()));
        auto loop = HloInstruction::CreateGeneric(HloOpcode::kWhile, shape, {x});
        loop->set_called_computations({builder->AddCalledComputation(condition),
                                       builder->AddCalledComputation(body)});
        return builder->AddInstruction(std::move(loop), "While", location);
      });
}

XlaOp Conditional(XlaOp branch_index,
                  absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands,
                  SourceLocation location) {
  XlaBuilder* builder = PickBuilder({branch_index});
  std::vector<XlaOp> all = {branch_index};
  all.insert(all.end(), branch_operands.begin(), branch_operands.end());
  std::vector<std::string> names;
  for (const XlaComputation* branch : branch_computations) {
    names.push_back(branch == nullptr ? "<null>" : branch->name());
  }
  return RecordOp(
      builder, "Conditional", all,
      absl::StrCat("branch_computations={", absl::StrJoin(names, ", "), "}"),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, all));
        const auto& [instructions, shapes] = looked_up;
        std::vector<ProgramShape> programs;
        for (const XlaComputation* branch : branch_computations) {
          if (branch == nullptr) {
            return absl::InvalidArgumentError("a branch computation is null");
          }
          RETURN_IF_ERROR(CheckCalledComputation(*branch, "branch"));
          programs.push_back(branch->GetProgramShape());
        }
        ASSIGN_OR_RETURN(
            Shape shape,
            ShapeInference::InferConditionalShape(
                *shapes[0], programs,
                absl::Span<const Shape* const>(shapes).subspan(1)));
        auto conditional = HloInstruction::CreateGeneric(
            HloOpcode::kConditional, shape, instructions);
        std::vector<HloComputation*> callees;
        for (const XlaComputation* branch : branch_computations) {
          callees.push_back(builder->AddCalledComputation(*branch));
        }
        conditional->set_called_computations(std::move(callees));
        return builder->AddInstruction(std::move(conditional), "Conditional",
                                       location);
      });
}

XlaOp Conditional(XlaOp predicate, XlaOp true_operand,
                  const XlaComputation& true_computation, XlaOp false_operand,
                  const XlaComputation& false_computation,
                  SourceLocation location) {
  const XlaComputation* branches[] = {&true_computation, &false_computation};
  return Conditional(predicate, branches, {true_operand, false_operand},
                     location);
}

XlaOp Gather(XlaOp input, XlaOp start_indices,
             const GatherDimensionNumbers& dimension_numbers,
             Dims slice_sizes, bool indices_are_sorted,
             SourceLocation location) {
  XlaBuilder* builder = PickBuilder({input, start_indices});
  (void)indices_are_sorted;  // a hint mxla does not need
  return RecordOp(
      builder, "Gather", {input, start_indices},
      absl::StrCat("offset_dims=", DimsString(dimension_numbers.offset_dims),
                   ", collapsed_slice_dims=",
                   DimsString(dimension_numbers.collapsed_slice_dims),
                   ", start_index_map=",
                   DimsString(dimension_numbers.start_index_map),
                   ", index_vector_dim=", dimension_numbers.index_vector_dim,
                   ", slice_sizes=", DimsString(slice_sizes)),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * x, builder->LookUp(input));
        ASSIGN_OR_RETURN(HloInstruction * i, builder->LookUp(start_indices));
        ASSIGN_OR_RETURN(Shape shape, ShapeInference::InferGatherShape(
                                          x->shape(), i->shape(),
                                          dimension_numbers, slice_sizes));
        auto gather =
            HloInstruction::CreateGeneric(HloOpcode::kGather, shape, {x, i});
        gather->set_gather_dimension_numbers(dimension_numbers);
        gather->mutable_attributes().Set(
            AttrId::kSliceSizes,
            std::vector<int64_t>(slice_sizes.begin(), slice_sizes.end()));
        return builder->AddInstruction(std::move(gather), "Gather", location);
      });
}

XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted, bool unique_indices,
              SourceLocation location) {
  XlaBuilder* builder = PickBuilder({input, scatter_indices, updates});
  (void)indices_are_sorted;  // hints mxla does not need
  (void)unique_indices;
  const ScatterDimensionNumbers& d = dimension_numbers;
  return RecordOp(
      builder, "Scatter", {input, scatter_indices, updates},
      absl::StrCat("update_window_dims=", DimsString(d.update_window_dims),
                   ", inserted_window_dims=",
                   DimsString(d.inserted_window_dims),
                   ", scatter_dims_to_operand_dims=",
                   DimsString(d.scatter_dims_to_operand_dims),
                   ", index_vector_dim=", d.index_vector_dim,
                   ", to_apply=", update_computation.name()),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up,
                         LookUpAll(builder, {input, scatter_indices, updates}));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(
            CheckCalledComputation(update_computation, "update"));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferScatterShape(
                             shapes, dimension_numbers,
                             update_computation.GetProgramShape()));
        auto scatter = HloInstruction::CreateGeneric(HloOpcode::kScatter,
                                                     shape, instructions);
        scatter->set_scatter_dimension_numbers(dimension_numbers);
        scatter->set_called_computations(
            {builder->AddCalledComputation(update_computation)});
        return builder->AddInstruction(std::move(scatter), "Scatter",
                                       location);
      });
}

XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands,
          const XlaComputation& computation, Dims dimensions,
          SourceLocation location) {
  return RecordOp(
      builder, "Map", operands,
      absl::StrCat("computation=", computation.name(),
                   ", dimensions=", DimsString(dimensions)),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(computation, "mapped"));
        ASSIGN_OR_RETURN(
            Shape shape,
            ShapeInference::InferMapShape(
                shapes, computation.GetProgramShape(),
                std::vector<int64_t>(dimensions.begin(), dimensions.end())));
        auto map = HloInstruction::CreateGeneric(HloOpcode::kMap, shape,
                                                 instructions);
        map->set_dimensions({dimensions.begin(), dimensions.end()});
        map->set_called_computations(
            {builder->AddCalledComputation(computation)});
        return builder->AddInstruction(std::move(map), "Map", location);
      });
}

XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator,
           int64_t dimension, bool is_stable, SourceLocation location) {
  XlaBuilder* builder =
      operands.empty() ? nullptr : PickBuilder({operands[0]});
  (void)is_stable;  // mxla's sort is always stable
  return RecordOp(
      builder, "Sort", operands,
      absl::StrCat("comparator=", comparator.name(), ", dimension=",
                   dimension),
      location, [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(comparator, "comparator"));
        const int64_t d =
            dimension == -1 ? shapes[0]->rank() - 1 : dimension;
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferSortShape(
                             shapes, d, comparator.GetProgramShape()));
        auto sort = HloInstruction::CreateGeneric(HloOpcode::kSort, shape,
                                                  instructions);
        sort->set_dimensions({d});
        sort->set_called_computations(
            {builder->AddCalledComputation(comparator)});
        return builder->AddInstruction(std::move(sort), "Sort", location);
      });
}

XlaOp Call(XlaBuilder* builder, const XlaComputation& computation,
           absl::Span<const XlaOp> operands, SourceLocation location) {
  return RecordOp(
      builder, "Call", operands,
      absl::StrCat("to_apply=", computation.name()), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(LookedUp looked_up, LookUpAll(builder, operands));
        const auto& [instructions, shapes] = looked_up;
        RETURN_IF_ERROR(CheckCalledComputation(computation, "called"));
        ASSIGN_OR_RETURN(Shape shape,
                         ShapeInference::InferCallShape(
                             shapes, computation.GetProgramShape()));
        auto call =
            HloInstruction::CreateGeneric(HloOpcode::kCall, shape, instructions);
        call->set_called_computations(
            {builder->AddCalledComputation(computation)});
        return builder->AddInstruction(std::move(call), "Call", location);
      });
}

XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements,
            SourceLocation location) {
  return RecordOp(builder, "Tuple", elements, "", location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    std::vector<HloInstruction*> instructions;
                    for (const XlaOp& op : elements) {
                      ASSIGN_OR_RETURN(HloInstruction * instruction,
                                       builder->LookUp(op));
                      instructions.push_back(instruction);
                    }
                    return builder->AddInstruction(
                        HloInstruction::CreateTuple(instructions), "Tuple",
                        location);
                  });
}

XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens,
               SourceLocation location) {
  return RecordOp(builder, "AfterAll", tokens, "", location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    std::vector<HloInstruction*> operands;
                    std::vector<Shape> shapes;
                    for (const XlaOp& op : tokens) {
                      ASSIGN_OR_RETURN(HloInstruction * token,
                                       builder->LookUp(op));
                      operands.push_back(token);
                      shapes.push_back(token->shape());
                    }
                    ASSIGN_OR_RETURN(Shape shape,
                                     ShapeInference::InferAfterAllShape(shapes));
                    return builder->AddInstruction(
                        HloInstruction::CreateGeneric(HloOpcode::kAfterAll,
                                                      shape, operands),
                        "AfterAll", location);
                  });
}

XlaOp CreateToken(XlaBuilder* builder, SourceLocation location) {
  return AfterAll(builder, {}, location);
}

XlaOp InfeedWithToken(XlaOp token, const Shape& shape,
                      SourceLocation location) {
  XlaBuilder* builder = PickBuilder({token});
  return RecordOp(
      builder, "InfeedWithToken", {token},
      absl::StrCat("shape=", shape.ToString()), location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * t, builder->LookUp(token));
        ASSIGN_OR_RETURN(Shape result,
                         ShapeInference::InferInfeedShape(
                             t->shape(), ShapeUtil::MakeTupleShape(
                                             {shape, Shape(TOKEN, {})})));
        return builder->AddInstruction(
            HloInstruction::CreateGeneric(HloOpcode::kInfeed, result, {t}),
            "InfeedWithToken", location);
      });
}

XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({operand, token});
  return RecordOp(
      builder, "OutfeedWithToken", {operand, token}, "", location,
      [&]() -> absl::StatusOr<XlaOp> {
        ASSIGN_OR_RETURN(HloInstruction * data, builder->LookUp(operand));
        ASSIGN_OR_RETURN(HloInstruction * t, builder->LookUp(token));
        ASSIGN_OR_RETURN(Shape result, ShapeInference::InferOutfeedShape(
                                           data->shape(), t->shape()));
        return builder->AddInstruction(
            HloInstruction::CreateGeneric(HloOpcode::kOutfeed, result,
                                          {data, t}),
            "OutfeedWithToken", location);
      });
}

XlaOp GetTupleElement(XlaOp tuple, int64_t index, SourceLocation location) {
  XlaBuilder* builder = PickBuilder({tuple});
  return RecordOp(builder, "GetTupleElement", {tuple},
                  absl::StrCat("index=", index), location,
                  [&]() -> absl::StatusOr<XlaOp> {
                    ASSIGN_OR_RETURN(HloInstruction * t,
                                     builder->LookUp(tuple));
                    ASSIGN_OR_RETURN(Shape shape,
                                     ShapeInference::InferGetTupleElementShape(
                                         t->shape(), index));
                    return builder->AddInstruction(
                        HloInstruction::CreateGetTupleElement(shape, t, index),
                        "GetTupleElement", location);
                  });
}

}  // namespace mxla
