#include "passes/reduce_window_expander.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo_clone.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_module.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/expansion_util.h"
#include "passes/window_patches.h"

namespace mxla {
namespace {

using expansion::Iota;

// `reducer` (2N scalars: accumulators, elements) extended with a pred mask
// per side: (acc..., acc_mask, x..., x_mask) -> (x_mask ? reducer(acc, x)
// : acc..., acc_mask). The reducer's instructions are cloned in.
absl::StatusOr<HloComputation*> MaskedReducer(HloModule& module,
                                              const HloComputation& reducer) {
  const int64_t n = reducer.num_parameters() / 2;
  HloComputation* masked =
      module.AddComputation(absl::StrCat(reducer.name(), "_masked"), false);
  const Shape mask = ShapeUtil::MakeShape(PRED, {});
  std::vector<HloInstruction*> acc, x;
  InstructionCloneMap clones;
  for (int64_t side = 0; side < 2; ++side) {
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* original =
          reducer.parameter_instruction(side * n + i);
      HloInstruction* parameter =
          masked->AddInstruction(HloInstruction::CreateParameter(
              side * (n + 1) + i, original->shape(), original->name()));
      clones[original] = parameter;
      (side == 0 ? acc : x).push_back(parameter);
    }
    (side == 0 ? acc : x)
        .push_back(masked->AddInstruction(HloInstruction::CreateParameter(
            side * (n + 1) + n, mask, side == 0 ? "acc_mask" : "tap_mask")));
  }
  std::vector<HloInstruction*> body;
  for (HloInstruction* instruction : reducer.MakeInstructionPostOrder()) {
    if (instruction->opcode() != HloOpcode::kParameter) {
      body.push_back(instruction);
    }
  }
  CloneInstructionsInto(body, *masked, clones, [](HloInstruction* operand) {
    return operand;  // every operand is in the reducer
  });
  const HloInstruction* root = reducer.root_instruction();
  if (n > 1 && root->opcode() != HloOpcode::kTuple) {
    return absl::UnimplementedError(absl::StrCat(
        "reduce-window: the JIT needs a variadic reducer whose root is a "
        "tuple, but '",
        reducer.name(), "' returns ", root->ToString()));
  }
  std::vector<HloInstruction*> outputs;
  for (int64_t i = 0; i < n; ++i) {
    HloInstruction* value =
        clones.at(n == 1 ? root : root->operand(i));
    outputs.push_back(masked->AddInstruction(HloInstruction::CreateSelect(
        acc[i]->shape(), x[n], value, acc[i])));
  }
  outputs.push_back(acc[n]);
  masked->set_root_instruction(
      masked->AddInstruction(HloInstruction::CreateTuple(outputs)));
  return masked;
}

// Reducers a tap chain folds with one elementwise op.
constexpr HloOpcode kChainOps[] = {HloOpcode::kAdd,     HloOpcode::kMultiply,
                                   HloOpcode::kMaximum, HloOpcode::kMinimum,
                                   HloOpcode::kAnd,     HloOpcode::kOr};
// Windows of more taps keep the reduction: a chain's fused kernel grows
// with its taps (kMaxFusedInstructions).
constexpr int64_t kMaxChainTaps = 32;

// The reducer's op where a tap chain can fold it: one input, a plain
// binary reducer of kChainOps, at most kMaxChainTaps taps and a non-empty
// result.
std::optional<HloOpcode> ChainOp(const HloInstruction& reduce_window) {
  if (reduce_window.operand_count() != 2 ||
      !reduce_window.shape().IsArray() ||
      ShapeUtil::ElementsIn(reduce_window.shape()) == 0) {
    return std::nullopt;
  }
  int64_t taps = 1;
  for (const WindowDimension& d : reduce_window.window()) taps *= d.size;
  if (taps > kMaxChainTaps) return std::nullopt;
  for (HloOpcode op : kChainOps) {
    if (IsPlainBinaryReducer(*reduce_window.to_apply(), op)) return op;
  }
  return std::nullopt;
}

// Whether the init value `init` is an exact identity of `op`: op(acc,
// init) has acc's bits for every acc (NaNs and signed zeros included).
// Taps in padding then read it and change nothing, exactly as skipping
// them would, so the chain needs no mask (one that would read each
// accumulator twice, doubling the fused size per tap).
bool IsExactIdentity(const HloInstruction& init, HloOpcode op) {
  if (init.opcode() != HloOpcode::kConstant || !init.shape().IsScalar()) {
    return false;
  }
  const PrimitiveType type = init.shape().element_type();
  const double value = init.literal().GetAsDouble(0);
  if (type == PRED) {
    return (op == HloOpcode::kAnd && value != 0) ||
           (op == HloOpcode::kOr && value == 0);
  }
  if (!primitive_util::IsFloatingPointType(type)) return false;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (op) {
    case HloOpcode::kMaximum: return value == -kInf;
    case HloOpcode::kMinimum: return value == kInf;
    case HloOpcode::kAdd: return value == 0 && std::signbit(value);
    case HloOpcode::kMultiply: return value == 1;
    default: return false;
  }
}

// A reduce-window of ChainOp as the fold, tap by tap in row-major order,
// of strided slices of the base padded with the init value: acc = init,
// then acc = op(acc, tap) (the reducer's operand order), kept where the
// tap lands in padding or a hole (unless the init value is an exact
// identity of the op). The interpreter's order and bits, as
// elementwise work: one loop kernel, vectorized along the minor
// dimension (a max-pool's features) instead of a reduction that gathers
// each window.
absl::Status ExpandAsTapChain(HloComputation& computation,
                              HloInstruction* reduce_window, HloOpcode op) {
  const Window window = reduce_window->window();
  HloInstruction* base = reduce_window->mutable_operand(0);
  HloInstruction* init = reduce_window->mutable_operand(1);
  const Shape& shape = reduce_window->shape();
  const std::vector<int64_t> positions(shape.dimensions().begin(),
                                       shape.dimensions().end());
  ASSIGN_OR_RETURN(HloInstruction * padded,
                   expansion::PadForWindow(computation, base, window, init));
  HloInstruction* on_base = nullptr;
  if (expansion::WindowHasHoles(window) && !IsExactIdentity(*init, op)) {
    HloInstruction* yes = computation.AddInstruction(
        HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true)));
    HloInstruction* all = computation.AddInstruction(
        HloInstruction::CreateBroadcast(
            ShapeUtil::ChangeElementType(base->shape(), PRED), yes, {}));
    ASSIGN_OR_RETURN(on_base, expansion::PadForWindow(
                                  computation, all, window,
                                  expansion::Zero(computation, PRED)));
  }
  // Parameter 0 of the reducer is the accumulator.
  const bool acc_first =
      reduce_window->to_apply()->root_instruction()->operand(0)
          ->parameter_number() == 0;
  HloInstruction* acc = computation.AddInstruction(
      HloInstruction::CreateBroadcast(shape, init, {}));
  for (const std::vector<int64_t>& tap : expansion::WindowTaps(window)) {
    HloInstruction* x =
        expansion::WindowTapSlice(computation, padded, window, tap, positions);
    HloInstruction* next = computation.AddInstruction(
        HloInstruction::CreateBinary(shape, op, acc_first ? acc : x,
                                     acc_first ? x : acc));
    if (on_base != nullptr) {
      next = computation.AddInstruction(HloInstruction::CreateSelect(
          shape,
          expansion::WindowTapSlice(computation, on_base, window, tap,
                                    positions),
          next, acc));
    }
    acc = next;
  }
  acc->set_metadata(reduce_window->metadata());
  computation.ReplaceInstruction(reduce_window, acc);
  return computation.RemoveInstruction(reduce_window);
}

// The inits of `reduce_window` (one per operand).
std::vector<HloInstruction*> Inits(HloInstruction* reduce_window) {
  const int64_t n = reduce_window->operand_count() / 2;
  std::vector<HloInstruction*> inits;
  for (int64_t i = 0; i < n; ++i) {
    inits.push_back(reduce_window->mutable_operand(n + i));
  }
  return inits;
}

// The results of a reduce-window of no window positions: its inits,
// spread over `positions`.
std::vector<HloInstruction*> SpreadInits(
    HloComputation& computation, const std::vector<HloInstruction*>& inits,
    const std::vector<int64_t>& positions) {
  std::vector<HloInstruction*> results;
  for (HloInstruction* init : inits) {
    results.push_back(
        computation.AddInstruction(HloInstruction::CreateBroadcast(
            ShapeUtil::MakeShape(init->shape().element_type(), positions), init,
            {})));
  }
  return results;
}

// The results as one reduce over the taps of each operand's window
// patches [positions..., taps...]; where the window has holes, the tap
// mask is reduced along with them by the masked reducer.
absl::StatusOr<std::vector<HloInstruction*>> ReducePatches(
    HloModule& module, HloComputation& computation,
    HloInstruction* reduce_window, const std::vector<int64_t>& positions) {
  const std::vector<HloInstruction*> inits = Inits(reduce_window);
  const int64_t n = inits.size();
  const Window window = reduce_window->window();
  const int64_t rank = window.size();
  HloComputation* reducer = reduce_window->to_apply();
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(
        HloInstruction * patches,
        expansion::WindowPatches(computation, reduce_window->mutable_operand(i),
                                 0, window, inits[i]));
    operands.push_back(patches);
  }
  const bool masked = expansion::WindowHasHoles(window);
  if (masked) {
    ASSIGN_OR_RETURN(
        HloInstruction * mask,
        expansion::WindowTapMask(
            computation, reduce_window->operand(0)->shape().dimensions(), 0,
            window));
    operands.push_back(mask);
    ASSIGN_OR_RETURN(reducer, MaskedReducer(module, *reducer));
  }
  operands.insert(operands.end(), inits.begin(), inits.end());
  if (masked) {
    operands.push_back(computation.AddInstruction(
        HloInstruction::CreateConstant(LiteralUtil::CreateR0<bool>(true))));
  }
  std::vector<Shape> shapes;
  for (HloInstruction* init : inits) {
    shapes.push_back(
        ShapeUtil::MakeShape(init->shape().element_type(), positions));
  }
  if (masked) shapes.push_back(ShapeUtil::MakeShape(PRED, positions));
  const Shape shape =
      shapes.size() == 1 ? shapes[0] : ShapeUtil::MakeTupleShape(shapes);
  HloInstruction* reduce = computation.AddInstruction(
      HloInstruction::CreateReduce(shape, operands, Iota(rank, rank), reducer));
  if (shapes.size() == 1) return std::vector<HloInstruction*>{reduce};
  std::vector<HloInstruction*> results;
  for (int64_t i = 0; i < n; ++i) {
    results.push_back(computation.AddInstruction(
        HloInstruction::CreateGetTupleElement(shapes[i], reduce, i)));
  }
  return results;
}

absl::Status Expand(HloModule& module, HloComputation& computation,
                    HloInstruction* reduce_window) {
  if (std::optional<HloOpcode> op = ChainOp(*reduce_window)) {
    return ExpandAsTapChain(computation, reduce_window, *op);
  }
  const Window window = reduce_window->window();
  const Shape& base = reduce_window->operand(0)->shape();
  std::vector<int64_t> positions;
  for (int64_t d = 0; d < static_cast<int64_t>(window.size()); ++d) {
    positions.push_back(WindowOutputSize(base.dimensions(d), window[d]));
  }
  std::vector<HloInstruction*> results;
  if (ShapeUtil::ElementsIn(ShapeUtil::MakeShape(PRED, positions)) == 0) {
    results = SpreadInits(computation, Inits(reduce_window), positions);
  } else {
    ASSIGN_OR_RETURN(
        results, ReducePatches(module, computation, reduce_window, positions));
  }
  HloInstruction* result =
      results.size() == 1
          ? results[0]
          : computation.AddInstruction(HloInstruction::CreateTuple(results));
  result->set_metadata(reduce_window->metadata());
  computation.ReplaceInstruction(reduce_window, result);
  return computation.RemoveInstruction(reduce_window);
}

}  // namespace

absl::StatusOr<bool> ReduceWindowExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kReduceWindow) continue;
      RETURN_IF_ERROR(Expand(module, *computation, instruction));
      changed = true;
    }
  }
  return changed;
}

}  // namespace mxla
