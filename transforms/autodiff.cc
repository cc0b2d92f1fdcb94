#include "transforms/autodiff.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "passes/pass_registry.h"
#include "transforms/gradient_rules.h"

namespace mxla {
namespace {

std::string Prefix(const XlaComputation& f) {
  return absl::StrCat("gradient of '", f.name(), "': ");
}

absl::Status CheckWrt(const XlaComputation& f, absl::Span<const int64_t> wrt) {
  const HloComputation& entry = *f.module().entry_computation();
  absl::flat_hash_set<int64_t> seen;
  for (int64_t number : wrt) {
    if (number < 0 || number >= entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(f), "parameter ", number, " is out of range: it has ",
          entry.num_parameters(), " parameters"));
    }
    if (!seen.insert(number).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(f), "parameter ", number, " is named twice in wrt"));
    }
    const HloInstruction& parameter = *entry.parameter_instruction(number);
    if (!parameter.shape().IsArray() ||
        !primitive_util::IsFloatingPointType(parameter.shape().element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(f), "parameter ", number, " ('", parameter.name(), "', ",
          parameter.shape().ToString(), ") is not a floating-point array, "
          "so it has no gradient"));
    }
  }
  return absl::OkStatus();
}

// f with its implicit broadcasts made explicit, so that every binary op's
// operands have the result's shape, as the rules assume.
absl::StatusOr<std::unique_ptr<HloModule>> Lowered(const XlaComputation& f) {
  std::unique_ptr<HloModule> module = f.CloneModule();
  ASSIGN_OR_RETURN(std::unique_ptr<PassPipeline> pipeline,
                   CreatePipeline({"lower-broadcasts", "dce"}, {}));
  RETURN_IF_ERROR(pipeline->Run(*module).status());
  return module;
}

// The instructions whose value depends on a wrt parameter: the only ones
// a cotangent must reach.
absl::flat_hash_set<const HloInstruction*> DependOnWrt(
    const std::vector<HloInstruction*>& post_order,
    absl::Span<const int64_t> wrt) {
  absl::flat_hash_set<const HloInstruction*> depend;
  for (const HloInstruction* instruction : post_order) {
    bool depends = false;
    if (instruction->opcode() == HloOpcode::kParameter) {
      depends = std::find(wrt.begin(), wrt.end(),
                          instruction->parameter_number()) != wrt.end();
    }
    for (const HloInstruction* operand : instruction->operands()) {
      depends = depends || depend.contains(operand);
    }
    if (depends) depend.insert(instruction);
  }
  return depend;
}

// `cotangent` without what cannot flow into a value of `shape`: the
// cotangents of its arrays that are not floating-point. Internal if its
// structure is not the shape's (a rule's mistake).
absl::StatusOr<Cotangent> Flowing(const Shape& shape, Cotangent cotangent) {
  if (!cotangent.valid()) return Cotangent();
  if (shape.IsTuple() != cotangent.is_tuple ||
      (shape.IsTuple() &&
       cotangent.elements.size() != shape.tuple_shapes().size())) {
    return absl::InternalError(absl::StrCat(
        "a cotangent of another structure than ", shape.ToString()));
  }
  if (!shape.IsTuple()) {
    const bool floating =
        primitive_util::IsFloatingPointType(shape.element_type());
    return floating ? cotangent : Cotangent();
  }
  for (size_t i = 0; i < cotangent.elements.size(); ++i) {
    ASSIGN_OR_RETURN(cotangent.elements[i],
                     Flowing(shape.tuple_shapes(i), cotangent.elements[i]));
  }
  return cotangent;
}

// Two cotangents of one value added, element by element for a tuple.
Cotangent Sum(const Cotangent& a, const Cotangent& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  if (!a.is_tuple) return a.array + b.array;
  std::vector<Cotangent> elements;
  for (size_t i = 0; i < a.elements.size(); ++i) {
    elements.push_back(Sum(a.elements[i], b.elements[i]));
  }
  return Cotangent::OfTuple(std::move(elements));
}

// The reverse sweep: from the root's cotangent, each instruction's rule
// adds to its operands' cotangents, latest instruction first.
class ReverseSweep {
 public:
  ReverseSweep(XlaBuilder& builder, const InlinedValues& values,
               absl::flat_hash_set<const HloInstruction*> depend)
      : builder_(builder), values_(values), depend_(std::move(depend)) {}

  absl::Status Run(const std::vector<HloInstruction*>& post_order,
                   const Cotangent& root_cotangent) {
    RETURN_IF_ERROR(Accumulate(post_order.back(), root_cotangent));
    for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
      RETURN_IF_ERROR(Propagate(**it));
    }
    return builder_.first_error();
  }

  // The cotangent that reached the array `instruction`, or an invalid op
  // for none.
  XlaOp CotangentOf(const HloInstruction* instruction) const {
    auto it = cotangents_.find(instruction);
    return it == cotangents_.end() ? XlaOp() : it->second.array;
  }

 private:
  absl::Status Accumulate(const HloInstruction* instruction,
                          const Cotangent& cotangent) {
    if (!depend_.contains(instruction)) return absl::OkStatus();
    absl::StatusOr<Cotangent> flowing =
        Flowing(instruction->shape(), cotangent);
    if (!flowing.ok()) {
      return absl::InternalError(absl::StrCat(
          "gradient: '", instruction->name(), "' got ",
          flowing.status().message()));
    }
    if (!flowing->valid()) return absl::OkStatus();
    auto [it, inserted] = cotangents_.try_emplace(instruction, *flowing);
    if (!inserted) it->second = Sum(it->second, *flowing);
    return absl::OkStatus();
  }

  absl::Status Propagate(const HloInstruction& instruction) {
    auto found = cotangents_.find(&instruction);
    if (found == cotangents_.end() || instruction.operand_count() == 0) {
      return absl::OkStatus();
    }
    const Cotangent cotangent = found->second;
    GradientContext context{builder_, instruction, {},
                            values_.at(&instruction), cotangent.array,
                            cotangent.elements};
    for (const HloInstruction* operand : instruction.operands()) {
      context.operands.push_back(values_.at(operand));
    }
    ASSIGN_OR_RETURN(OperandCotangents operand_cotangents,
                     OperandCotangentsOf(context));
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      if (i < static_cast<int64_t>(operand_cotangents.size())) {
        RETURN_IF_ERROR(
            Accumulate(instruction.operand(i), operand_cotangents[i]));
      }
    }
    return builder_.first_error();
  }

  XlaBuilder& builder_;
  const InlinedValues& values_;
  const absl::flat_hash_set<const HloInstruction*> depend_;
  absl::flat_hash_map<const HloInstruction*, Cotangent> cotangents_;
};

// The op `value` of `shape` as a cotangent: a tuple's element by element.
Cotangent AsCotangent(XlaOp value, const Shape& shape) {
  if (!shape.IsTuple()) return value;
  std::vector<Cotangent> elements;
  for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
    elements.push_back(
        AsCotangent(GetTupleElement(value, i), shape.tuple_shapes(i)));
  }
  return Cotangent::OfTuple(std::move(elements));
}

absl::StatusOr<std::vector<XlaOp>> Parameters(XlaBuilder& builder,
                                              const XlaComputation& f) {
  // By number: parameter_instructions() is in the order they were added.
  const HloComputation& entry = *f.module().entry_computation();
  std::vector<XlaOp> parameters;
  for (int64_t number = 0; number < entry.num_parameters(); ++number) {
    const HloInstruction& parameter = *entry.parameter_instruction(number);
    parameters.push_back(
        Parameter(&builder, number, parameter.shape(), parameter.name()));
  }
  RETURN_IF_ERROR(builder.first_error());
  return parameters;
}

XlaOp ZerosOfShape(XlaBuilder& builder, const Shape& shape) {
  return BroadcastInDim(
      ConstantLiteral(&builder, LiteralUtil::Zero(shape.element_type())),
      shape.dimensions(), {});
}

Shape ResultShape(const XlaComputation& f) {
  return f.module().entry_computation()->root_instruction()->shape();
}

}  // namespace

absl::StatusOr<VjpOps> EmitVjp(XlaBuilder& builder, const XlaComputation& f,
                               absl::Span<const XlaOp> arguments,
                               XlaOp result_cotangent,
                               absl::Span<const int64_t> wrt) {
  RETURN_IF_ERROR(CheckWrt(f, wrt));
  const Shape result_shape = ResultShape(f);
  ASSIGN_OR_RETURN(Shape cotangent_shape, builder.GetShape(result_cotangent));
  if (cotangent_shape != result_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "the result's cotangent is ", cotangent_shape.ToString(),
        " but the result is ", result_shape.ToString()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> lowered, Lowered(f));
  const HloComputation& entry = *lowered->entry_computation();
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, entry, arguments));
  const std::vector<HloInstruction*> post_order =
      entry.MakeInstructionPostOrder();
  ReverseSweep sweep(builder, values, DependOnWrt(post_order, wrt));
  RETURN_IF_ERROR(
      sweep.Run(post_order, AsCotangent(result_cotangent, result_shape)));
  VjpOps ops{values.at(entry.root_instruction()), {}};
  for (int64_t number : wrt) {
    const HloInstruction* parameter = entry.parameter_instruction(number);
    XlaOp cotangent = sweep.CotangentOf(parameter);
    if (!cotangent.valid()) cotangent = ZerosOfShape(builder, parameter->shape());
    ops.cotangents.push_back(cotangent);
  }
  RETURN_IF_ERROR(builder.first_error());
  return ops;
}

absl::StatusOr<XlaComputation> Vjp(const XlaComputation& f,
                                   absl::Span<const int64_t> wrt) {
  XlaBuilder builder(absl::StrCat(f.name(), ".vjp"));
  ASSIGN_OR_RETURN(std::vector<XlaOp> parameters, Parameters(builder, f));
  const XlaOp cotangent =
      Parameter(&builder, parameters.size(), ResultShape(f), "cotangent");
  ASSIGN_OR_RETURN(VjpOps ops,
                   EmitVjp(builder, f, parameters, cotangent, wrt));
  std::vector<XlaOp> results = {ops.value};
  results.insert(results.end(), ops.cotangents.begin(), ops.cotangents.end());
  return builder.Build(Tuple(&builder, results));
}

namespace {

absl::StatusOr<VjpOps> EmitGradient(XlaBuilder& builder,
                                    const XlaComputation& f,
                                    absl::Span<const int64_t> wrt) {
  const Shape result = ResultShape(f);
  if (!result.IsArray() || !result.dimensions().empty() ||
      !primitive_util::IsFloatingPointType(result.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "it returns ", result.ToString(), ", not a floating-point "
        "scalar; use Vjp with a cotangent for other results"));
  }
  ASSIGN_OR_RETURN(std::vector<XlaOp> parameters, Parameters(builder, f));
  const XlaOp one = ConstantLiteral(&builder, LiteralUtil::One(result.element_type()));
  return EmitVjp(builder, f, parameters, one, wrt);
}

}  // namespace

absl::StatusOr<XlaComputation> ValueAndGradient(const XlaComputation& f,
                                                absl::Span<const int64_t> wrt) {
  XlaBuilder builder(absl::StrCat(f.name(), ".value_and_grad"));
  ASSIGN_OR_RETURN(VjpOps ops, EmitGradient(builder, f, wrt));
  std::vector<XlaOp> results = {ops.value};
  results.insert(results.end(), ops.cotangents.begin(), ops.cotangents.end());
  return builder.Build(Tuple(&builder, results));
}

absl::StatusOr<XlaComputation> Gradient(const XlaComputation& f,
                                        absl::Span<const int64_t> wrt) {
  XlaBuilder builder(absl::StrCat(f.name(), ".grad"));
  ASSIGN_OR_RETURN(VjpOps ops, EmitGradient(builder, f, wrt));
  return builder.Build(Tuple(&builder, ops.cotangents));
}

}  // namespace mxla
