// The batching rule of rng-bit-generator with a batched state: each
// example draws from its own state, exactly as the function run on that
// example would. A while loop over the batch takes example b's state
// (dynamic-slice), runs the generator on it, and writes its new state and
// bits into row b of the results (dynamic-update-slice). The generators
// are counter-based and cheap next to a loop trip, and a loop keeps the
// bits those of XLA's generator whatever the algorithm.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/batching_rules_internal.h"

namespace mxla::batching_rules {
namespace {

// (b, states, new states, bits): the loop's carried tuple.
std::vector<Shape> Carried(const BatchContext& context) {
  const Shape& shape = context.instruction.shape();
  return {
      ShapeUtil::MakeShape(S32, {}),
      WithBatch(context.instruction.operand(0)->shape(), context.batch_size),
      WithBatch(shape.tuple_shapes()[0], context.batch_size),
      WithBatch(shape.tuple_shapes()[1], context.batch_size)};
}

absl::StatusOr<XlaComputation> Condition(const BatchContext& context) {
  XlaBuilder builder(
      absl::StrCat(context.instruction.name(), ".batch_condition"));
  const XlaOp carried =
      Parameter(&builder, 0, Shape(Carried(context)), "carried");
  Lt(GetTupleElement(carried, 0),
     ConstantR0<int32_t>(&builder, static_cast<int32_t>(context.batch_size)));
  return builder.Build();
}

// Row b of `batched` written with `value` (one example's shape).
XlaOp WriteRow(XlaOp batched, XlaOp value, XlaOp b, const Shape& example) {
  std::vector<int64_t> row = {1};
  row.insert(row.end(), example.dimensions().begin(),
             example.dimensions().end());
  std::vector<XlaOp> starts = {b};
  const XlaOp zero = ConstantR0<int32_t>(batched.builder(), 0);
  for (size_t d = 0; d < example.dimensions().size(); ++d)
    starts.push_back(zero);
  return DynamicUpdateSlice(batched, Reshape(value, row), starts);
}

absl::StatusOr<XlaComputation> Body(const BatchContext& context) {
  const HloInstruction& generator = context.instruction;
  XlaBuilder builder(absl::StrCat(generator.name(), ".batch_body"));
  const XlaOp carried =
      Parameter(&builder, 0, Shape(Carried(context)), "carried");
  const XlaOp b = GetTupleElement(carried, 0);
  const Shape& state = generator.operand(0)->shape();
  std::vector<XlaOp> starts = {b};
  std::vector<int64_t> sizes = {1};
  for (int64_t size : state.dimensions()) {
    starts.push_back(ConstantR0<int32_t>(&builder, 0));
    sizes.push_back(size);
  }
  const XlaOp own =
      Reshape(DynamicSlice(GetTupleElement(carried, 1), starts, sizes),
              state.dimensions());
  ComputationCloneMap callees;
  const XlaOp drawn =
      EmitCopyOf(builder, generator, generator.shape(), {own}, callees);
  const Shape& shape = generator.shape();
  Tuple(&builder,
        {b + ConstantR0<int32_t>(&builder, 1), GetTupleElement(carried, 1),
         WriteRow(GetTupleElement(carried, 2), GetTupleElement(drawn, 0), b,
                  shape.tuple_shapes()[0]),
         WriteRow(GetTupleElement(carried, 3), GetTupleElement(drawn, 1), b,
                  shape.tuple_shapes()[1])});
  return builder.Build();
}

XlaOp Zeros(XlaBuilder* builder, const Shape& shape) {
  return Broadcast(
      ConvertElementType(ConstantR0<int32_t>(builder, 0), shape.element_type()),
      shape.dimensions());
}

}  // namespace

Result BatchingRules::Handle(OpTag<Op::kRngBitGenerator>,
                             const BatchContext& context) {
  ASSIGN_OR_RETURN(XlaComputation condition, Condition(context));
  ASSIGN_OR_RETURN(XlaComputation body, Body(context));
  const std::vector<Shape> carried = Carried(context);
  XlaBuilder* builder = &context.builder;
  const XlaOp init =
      Tuple(builder, {ConstantR0<int32_t>(builder, 0), context.operands[0],
                      Zeros(builder, carried[2]), Zeros(builder, carried[3])});
  const XlaOp done = While(condition, body, init);
  return Tuple(builder, {GetTupleElement(done, 2), GetTupleElement(done, 3)});
}

}  // namespace mxla::batching_rules
