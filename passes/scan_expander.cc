#include "passes/scan_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/counted_loop.h"
#include "passes/expansion_util.h"

namespace mxla {
namespace {

using expansion::S64Constant;
using expansion::TupleElement;

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
    starts.push_back(a == d ? index : S64Constant(computation, 0));
  }
  return starts;
}

// The scan as a counted loop whose state is the operands (inputs, then
// carries) and one stack per output.
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
        length_(scan->operand(0)->shape().dimensions(d_)) {}

  HloInstruction* Build() {
    HloComputation& computation = *scan_->parent();
    std::vector<HloInstruction*> init(scan_->operands().begin(),
                                      scan_->operands().end());
    for (int64_t j = 0; j < outputs_; ++j) {
      init.push_back(computation.AddInstruction(HloInstruction::CreateConstant(
          Literal(scan_->shape().tuple_shapes(j)))));
    }
    const std::vector<HloInstruction*> final_state =
        expansion::BuildCountedLoop(
            module_, computation, scan_->name(), length_, init,
            [&](HloComputation& body, HloInstruction* step,
                const std::vector<HloInstruction*>& state) {
              return Step(body, step, state);
            });
    std::vector<HloInstruction*> results;
    for (int64_t j = 0; j < outputs_; ++j) {
      results.push_back(final_state[inputs_ + carries_ + j]);
    }
    for (int64_t k = 0; k < carries_; ++k) {
      results.push_back(final_state[inputs_ + k]);
    }
    return computation.AddInstruction(HloInstruction::CreateTuple(results));
  }

 private:
  std::vector<HloInstruction*> Step(HloComputation& b, HloInstruction* step,
                                    const std::vector<HloInstruction*>& state) {
    const Shape index_shape = ShapeUtil::MakeShape(S64, {});
    HloInstruction* index = scan_->is_reverse()
                                ? b.AddInstruction(HloInstruction::CreateBinary(
                                      index_shape, HloOpcode::kSubtract,
                                      S64Constant(b, length_ - 1), step))
                                : step;
    std::vector<HloInstruction*> arguments;
    for (int64_t n = 0; n < inputs_; ++n) {
      HloInstruction* input = state[n];
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
    for (int64_t k = 0; k < carries_; ++k) {
      arguments.push_back(state[inputs_ + k]);
    }
    HloInstruction* call = b.AddInstruction(HloInstruction::CreateGeneric(
        HloOpcode::kCall, scan_->to_apply()->root_instruction()->shape(),
        arguments));
    call->set_called_computations({scan_->to_apply()});
    std::vector<HloInstruction*> next(state.begin(), state.begin() + inputs_);
    for (int64_t k = 0; k < carries_; ++k) {
      next.push_back(TupleElement(b, call, outputs_ + k));
    }
    for (int64_t j = 0; j < outputs_; ++j) {
      HloInstruction* stack = state[inputs_ + carries_ + j];
      HloInstruction* output = TupleElement(b, call, j);
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
    return next;
  }

  HloModule& module_;
  HloInstruction* scan_;
  const int64_t carries_;
  const int64_t inputs_;
  const int64_t outputs_;
  const int64_t d_;
  const int64_t length_;
};

}  // namespace

absl::StatusOr<bool> ScanExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* scan : computation->MakeInstructionPostOrder()) {
      if (scan->opcode() != HloOpcode::kScan) continue;
      HloInstruction* loop = ScanLoop(module, scan).Build();
      loop->set_metadata(scan->metadata());
      computation->ReplaceInstruction(scan, loop);
      RETURN_IF_ERROR(computation->RemoveInstruction(scan));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
