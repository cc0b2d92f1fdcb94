#include "passes/scan_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

HloInstruction* Index(HloComputation& computation, int64_t value) {
  return computation.AddInstruction(
      HloInstruction::CreateConstant(LiteralUtil::CreateR0<int64_t>(value)));
}

HloInstruction* Element(HloComputation& computation, HloInstruction* tuple,
                        int64_t index) {
  return computation.AddInstruction(HloInstruction::CreateGetTupleElement(
      tuple->shape().tuple_shapes(index), tuple, index));
}

Shape WithDimension(const Shape& shape, int64_t d, int64_t size) {
  std::vector<int64_t> dims(shape.dimensions().begin(),
                            shape.dimensions().end());
  dims.insert(dims.begin() + d, size);
  return ShapeUtil::MakeShape(shape.element_type(), dims);
}

// Start indices for a slice of rank `rank` at `index` in dimension `d`.
std::vector<HloInstruction*> Starts(HloComputation& computation, int64_t rank,
                                    int64_t d, HloInstruction* index) {
  std::vector<HloInstruction*> starts;
  for (int64_t a = 0; a < rank; ++a) {
    starts.push_back(a == d ? index : Index(computation, 0));
  }
  return starts;
}

class ScanLoop {
 public:
  ScanLoop(HloModule& module, HloInstruction* scan)
      : module_(module),
        scan_(scan),
        carries_(scan->num_carries()),
        inputs_(scan->operand_count() - carries_),
        outputs_(static_cast<int64_t>(scan->shape().tuple_shapes().size()) -
                 carries_),
        d_(scan->dimensions(0)),
        length_(scan->operand(0)->shape().dimensions(d_)) {
    std::vector<Shape> state = {ShapeUtil::MakeShape(S64, {})};
    for (const HloInstruction* operand : scan->operands()) {
      state.push_back(operand->shape());
    }
    for (int64_t j = 0; j < outputs_; ++j) {
      state.push_back(scan->shape().tuple_shapes(j));
    }
    state_ = ShapeUtil::MakeTupleShape(state);
  }

  absl::StatusOr<HloInstruction*> Build() {
    HloComputation& computation = *scan_->parent();
    std::vector<HloInstruction*> init = {Index(computation, 0)};
    for (HloInstruction* operand : scan_->operands()) init.push_back(operand);
    for (int64_t j = 0; j < outputs_; ++j) {
      init.push_back(computation.AddInstruction(
          HloInstruction::CreateConstant(Literal(scan_->shape().tuple_shapes(j)))));
    }
    HloInstruction* loop = computation.AddInstruction(
        HloInstruction::CreateGeneric(HloOpcode::kWhile, state_,
                                      {computation.AddInstruction(
                                          HloInstruction::CreateTuple(init))}));
    loop->set_called_computations({Condition(), Body()});
    std::vector<HloInstruction*> results;
    for (int64_t j = 0; j < outputs_; ++j) {
      results.push_back(Element(computation, loop, 1 + inputs_ + carries_ + j));
    }
    for (int64_t k = 0; k < carries_; ++k) {
      results.push_back(Element(computation, loop, 1 + inputs_ + k));
    }
    return computation.AddInstruction(HloInstruction::CreateTuple(results));
  }

 private:
  HloComputation* NewComputation(absl::string_view suffix) {
    return module_.AddComputation(absl::StrCat(scan_->name(), suffix), false);
  }

  HloComputation* Condition() {
    HloComputation* condition = NewComputation("_condition");
    HloInstruction* state = condition->AddInstruction(
        HloInstruction::CreateParameter(0, state_, "state"));
    condition->set_root_instruction(
        condition->AddInstruction(HloInstruction::CreateCompare(
            ShapeUtil::MakeShape(PRED, {}), Element(*condition, state, 0),
            Index(*condition, length_), ComparisonDirection::kLt)));
    return condition;
  }

  HloComputation* Body() {
    HloComputation* body = NewComputation("_body");
    HloComputation& b = *body;
    HloInstruction* state = b.AddInstruction(
        HloInstruction::CreateParameter(0, state_, "state"));
    HloInstruction* step = Element(b, state, 0);
    const Shape index_shape = ShapeUtil::MakeShape(S64, {});
    HloInstruction* index =
        scan_->is_reverse()
            ? b.AddInstruction(HloInstruction::CreateBinary(
                  index_shape, HloOpcode::kSubtract, Index(b, length_ - 1), step))
            : step;
    std::vector<HloInstruction*> arguments;
    std::vector<HloInstruction*> inputs;
    for (int64_t n = 0; n < inputs_; ++n) {
      HloInstruction* input = Element(b, state, 1 + n);
      inputs.push_back(input);
      const Shape& shape = input->shape();
      std::vector<HloInstruction*> operands = {input};
      for (HloInstruction* start : Starts(b, shape.rank(), d_, index)) {
        operands.push_back(start);
      }
      std::vector<int64_t> sizes(shape.dimensions().begin(),
                                 shape.dimensions().end());
      sizes[d_] = 1;
      HloInstruction* slice = b.AddInstruction(HloInstruction::CreateGeneric(
          HloOpcode::kDynamicSlice,
          ShapeUtil::MakeShape(shape.element_type(), sizes), operands));
      slice->set_dynamic_slice_sizes(sizes);
      arguments.push_back(b.AddInstruction(HloInstruction::CreateReshape(
          ShapeUtil::DeleteDimension(shape, d_), slice)));
    }
    std::vector<HloInstruction*> carries;
    for (int64_t k = 0; k < carries_; ++k) {
      arguments.push_back(Element(b, state, 1 + inputs_ + k));
    }
    HloInstruction* call = b.AddInstruction(HloInstruction::CreateGeneric(
        HloOpcode::kCall, scan_->to_apply()->root_instruction()->shape(),
        arguments));
    call->set_called_computations({scan_->to_apply()});
    std::vector<HloInstruction*> next = {b.AddInstruction(
        HloInstruction::CreateBinary(index_shape, HloOpcode::kAdd, step,
                                     Index(b, 1)))};
    next.insert(next.end(), inputs.begin(), inputs.end());
    for (int64_t k = 0; k < carries_; ++k) {
      next.push_back(Element(b, call, outputs_ + k));
    }
    for (int64_t j = 0; j < outputs_; ++j) {
      HloInstruction* stack = Element(b, state, 1 + inputs_ + carries_ + j);
      HloInstruction* output = Element(b, call, j);
      HloInstruction* update = b.AddInstruction(HloInstruction::CreateReshape(
          WithDimension(output->shape(), d_, 1), output));
      std::vector<HloInstruction*> operands = {stack, update};
      for (HloInstruction* start :
           Starts(b, stack->shape().rank(), d_, index)) {
        operands.push_back(start);
      }
      next.push_back(b.AddInstruction(HloInstruction::CreateGeneric(
          HloOpcode::kDynamicUpdateSlice, stack->shape(), operands)));
    }
    b.set_root_instruction(b.AddInstruction(HloInstruction::CreateTuple(next)));
    return body;
  }

  HloModule& module_;
  HloInstruction* scan_;
  const int64_t carries_;
  const int64_t inputs_;
  const int64_t outputs_;
  const int64_t d_;
  const int64_t length_;
  Shape state_;
};

}  // namespace

absl::StatusOr<bool> ScanExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* scan : computation->MakeInstructionPostOrder()) {
      if (scan->opcode() != HloOpcode::kScan) continue;
      ASSIGN_OR_RETURN(HloInstruction * loop, ScanLoop(module, scan).Build());
      loop->set_metadata(scan->metadata());
      computation->ReplaceInstruction(scan, loop);
      RETURN_IF_ERROR(computation->RemoveInstruction(scan));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
