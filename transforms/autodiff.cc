#include "transforms/autodiff.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules.h"
#include "transforms/lowered_input.h"

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

  // `seeds`: the cotangents given for the result (the root's, or each
  // element's of a root tuple).
  absl::Status Run(
      const std::vector<HloInstruction*>& post_order,
      absl::Span<const std::pair<const HloInstruction*, Cotangent>> seeds) {
    for (const auto& [instruction, cotangent] : seeds) {
      RETURN_IF_ERROR(Accumulate(instruction, cotangent));
    }
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

// A root tuple of arrays and one cotangent per element, each invalid (no
// cotangent) or of the element's shape.
absl::Status CheckTupleCotangents(XlaBuilder& builder, const XlaComputation& f,
                                  absl::Span<const XlaOp> cotangents) {
  const Shape result = ResultShape(f);
  if (!result.IsTuple()) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "its result is ", result.ToString(),
        ", not a tuple: give one cotangent for it"));
  }
  const int64_t count = result.tuple_shapes().size();
  if (count != static_cast<int64_t>(cotangents.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "its result has ", count, " elements but ",
        cotangents.size(), " cotangents were given"));
  }
  for (int64_t i = 0; i < count; ++i) {
    const Shape& element = result.tuple_shapes(i);
    if (!element.IsArray()) {
      return absl::UnimplementedError(absl::StrCat(
          Prefix(f), "element ", i, " of its result is ", element.ToString(),
          ": only arrays are differentiated yet"));
    }
    if (!cotangents[i].valid()) continue;
    ASSIGN_OR_RETURN(Shape shape, builder.GetShape(cotangents[i]));
    if (shape != element) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(f), "the cotangent of result element ", i, " is ",
          shape.ToString(), " but the element is ", element.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// f's lowered body inlined into `builder` and swept back from `seeds`,
// which name instructions of the lowered entry (given by `choose_seeds`).
template <typename ChooseSeeds>
absl::StatusOr<VjpOps> SweepFrom(XlaBuilder& builder, const XlaComputation& f,
                                 absl::Span<const XlaOp> arguments,
                                 absl::Span<const int64_t> wrt,
                                 ChooseSeeds choose_seeds) {
  RETURN_IF_ERROR(CheckWrt(f, wrt));
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> lowered, LoweredInput(f));
  const HloComputation& entry = *lowered->entry_computation();
  ASSIGN_OR_RETURN(InlinedValues values,
                   InlineComputation(builder, entry, arguments));
  const std::vector<HloInstruction*> post_order =
      entry.MakeInstructionPostOrder();
  ReverseSweep sweep(builder, values, DependOnWrt(post_order, wrt));
  RETURN_IF_ERROR(sweep.Run(post_order, choose_seeds(*entry.root_instruction())));
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

using Seeds = std::vector<std::pair<const HloInstruction*, Cotangent>>;

}  // namespace

absl::StatusOr<VjpOps> EmitVjp(XlaBuilder& builder, const XlaComputation& f,
                               absl::Span<const XlaOp> arguments,
                               XlaOp result_cotangent,
                               absl::Span<const int64_t> wrt) {
  const Shape result_shape = ResultShape(f);
  if (!result_shape.IsArray()) {
    return absl::UnimplementedError(absl::StrCat(
        Prefix(f), "its result is ", result_shape.ToString(),
        ": use EmitTupleVjp, one cotangent per element, for a tuple result"));
  }
  ASSIGN_OR_RETURN(Shape cotangent_shape, builder.GetShape(result_cotangent));
  if (cotangent_shape != result_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        Prefix(f), "the result's cotangent is ", cotangent_shape.ToString(),
        " but the result is ", result_shape.ToString()));
  }
  return SweepFrom(builder, f, arguments, wrt, [&](const HloInstruction& root) {
    return Seeds{{&root, result_cotangent}};
  });
}

absl::StatusOr<VjpOps> EmitTupleVjp(XlaBuilder& builder,
                                    const XlaComputation& f,
                                    absl::Span<const XlaOp> arguments,
                                    absl::Span<const XlaOp> element_cotangents,
                                    absl::Span<const int64_t> wrt) {
  RETURN_IF_ERROR(CheckTupleCotangents(builder, f, element_cotangents));
  // The root's cotangent, element by element: a tuple op's rule hands
  // each its operand, another op's (a sort's) takes them all.
  std::vector<Cotangent> elements(element_cotangents.begin(),
                                  element_cotangents.end());
  return SweepFrom(builder, f, arguments, wrt, [&](const HloInstruction& root) {
    return Seeds{{&root, Cotangent::OfTuple(elements)}};
  });
}

absl::StatusOr<XlaComputation> Vjp(const XlaComputation& f,
                                   absl::Span<const int64_t> wrt) {
  XlaBuilder builder(absl::StrCat(f.name(), ".vjp"));
  ASSIGN_OR_RETURN(std::vector<XlaOp> parameters, Parameters(builder, f));
  const Shape result = ResultShape(f);
  std::vector<XlaOp> cotangents;
  const int64_t count = result.IsTuple() ? static_cast<int64_t>(result.tuple_shapes().size()) : 1;
  for (int64_t i = 0; i < count; ++i) {
    cotangents.push_back(Parameter(
        &builder, parameters.size() + i,
        result.IsTuple() ? result.tuple_shapes(i) : result,
        result.IsTuple() ? absl::StrCat("cotangent.", i) : "cotangent"));
  }
  absl::StatusOr<VjpOps> ops =
      result.IsTuple()
          ? EmitTupleVjp(builder, f, parameters, cotangents, wrt)
          : EmitVjp(builder, f, parameters, cotangents[0], wrt);
  RETURN_IF_ERROR(ops.status());
  std::vector<XlaOp> results = {ops->value};
  results.insert(results.end(), ops->cotangents.begin(), ops->cotangents.end());
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
