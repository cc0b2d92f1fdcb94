#include "passes/fusion.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ir/conv_product.h"
#include "ir/fusion_plan.h"
#include "ir/hlo_clone.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/dce.h"
#include "passes/fusion_cost_model.h"
#include "passes/operand_reuse.h"

namespace mxla {
namespace {

bool IsScalarConstant(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kConstant &&
         instruction.shape().IsScalar();
}

// The op table says which ops fuse; scalar constants fuse too.
bool IsFusible(const HloInstruction& instruction) {
  return GetOpSpec(instruction.opcode()).fusion == FusionClass::kFusible ||
         IsScalarConstant(instruction);
}


// A dot left by expand-dots, or a convolution left by expand-convolutions
// (what the JIT's matrix-product kernel computes).
bool IsDot(const HloInstruction& instruction) {
  return IsMatrixProductOp(instruction);
}

// A zero pad of a convolution product's input that only the convolution
// reads: it joins the convolution's fusion, and the kernel reads through it.
bool IsFusedConvolutionInputPad(const HloInstruction& pad) {
  return pad.opcode() == HloOpcode::kPad && pad.user_count() == 1 &&
         IsDot(*pad.users()[0]) &&
         IsConvolutionInputPad(pad, *pad.users()[0]);
}

// The input of a convolution product: its kernel reads it in place, row
// pointers into a materialized buffer, rather than generating each
// element of each window again through fused producers. Behind a fused
// input pad, the pad's operand is that buffer.
bool IsConvolutionInput(const HloInstruction& instruction,
                        const HloInstruction& user) {
  if (user.opcode() == HloOpcode::kConvolution && IsDot(user) &&
      user.operand(0) == &instruction) {
    return !IsFusedConvolutionInputPad(instruction);
  }
  return IsFusedConvolutionInputPad(user) && user.operand(0) == &instruction;
}

// The buffer a dynamic-update-slice updates, when that is another's
// result (a chain of updates, as passes/grouped_convolution.h writes each
// group's features): materialized, so that each update runs in place
// writing its slice alone (ir/fusion_plan.h InPlaceFusionOperand) rather
// than one kernel choosing among all the updates for every element.
bool IsUpdatedByChainedUpdate(const HloInstruction& instruction,
                              const HloInstruction& user) {
  return instruction.opcode() == HloOpcode::kDynamicUpdateSlice &&
         user.opcode() == HloOpcode::kDynamicUpdateSlice &&
         user.operand(0) == &instruction;
}

// A slice read as a convolution product's kernel (a group's weights,
// passes/grouped_convolution.h): materialized, so that the product reads
// a plain buffer while packing rather than computing each element's
// position in the sliced array (a weight gradient's kernel is as large as
// the activations).
bool IsConvolutionKernelSlice(const HloInstruction& instruction,
                              const HloInstruction& user) {
  return (instruction.opcode() == HloOpcode::kSlice ||
          instruction.opcode() == HloOpcode::kDynamicSlice) &&
         user.opcode() == HloOpcode::kConvolution && IsDot(user) &&
         user.operand(1) == &instruction;
}

// Whether `instruction` roots its own fusion. Non-fusible values are never
// roots (they stay in the entry and become fusion parameters); scalar
// constants are always fused, and also stay as they are where the entry
// reads them directly.
bool IsMaterialized(const HloInstruction& instruction,
                    const HloInstruction* root) {
  if (!IsFusible(instruction) || IsScalarConstant(instruction)) return false;
  if (&instruction == root || instruction.opcode() == HloOpcode::kReduce) {
    return true;
  }
  for (const HloInstruction* user : instruction.users()) {
    if (!IsFusible(*user) && !IsDot(*user)) return true;
    if (IsConvolutionInput(instruction, *user) ||
        IsConvolutionKernelSlice(instruction, *user) ||
        IsUpdatedByChainedUpdate(instruction, *user)) {
      return true;
    }
  }
  return IsExpensiveProducer(instruction) && instruction.user_count() > 1;
}

// The instructions of `root`'s fusion in post order: an iterative DFS that
// stops at non-members and visits each member once (a DAG, not a tree).
template <typename IsMember>
std::vector<HloInstruction*> MembersInPostOrder(HloInstruction* root,
                                                const IsMember& is_member) {
  std::vector<HloInstruction*> members;
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<std::pair<HloInstruction*, bool>> stack = {{root, false}};
  while (!stack.empty()) {
    auto [instruction, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      members.push_back(instruction);
      continue;
    }
    if (!visited.insert(instruction).second) continue;
    stack.push_back({instruction, true});
    const std::vector<HloInstruction*>& operands = instruction->operands();
    for (auto it = operands.rbegin(); it != operands.rend(); ++it) {
      if (is_member(*it) && !visited.contains(*it)) {
        stack.push_back({*it, false});
      }
    }
  }
  return members;
}

// Builds the fused computation for `root`: its members cloned in post order;
// everything else they read becomes a parameter. Returns the computation and
// the fusion's operands.
struct FusedGroup {
  HloComputation* computation;
  std::vector<HloInstruction*> operands;
};

FusedGroup BuildGroup(HloModule& module, HloInstruction* root,
                      const absl::flat_hash_set<const HloInstruction*>& roots) {
  auto is_member = [&](const HloInstruction* instruction) {
    return instruction == root ||
           ((IsFusible(*instruction) || IsDot(*instruction)) &&
            !roots.contains(instruction));
  };
  std::vector<HloInstruction*> members = MembersInPostOrder(root, is_member);
  FusedGroup group{module.AddComputation("fused_computation", false), {}};
  InstructionCloneMap clones;
  // What the members read from outside becomes the group's parameters, in
  // the order they are first read.
  CloneInstructionsInto(members, *group.computation, clones,
                        [&](HloInstruction* operand) {
                          int64_t number = group.operands.size();
                          group.operands.push_back(operand);
                          return group.computation->AddInstruction(
                              HloInstruction::CreateParameter(
                                  number, operand->shape(),
                                  absl::StrCat("param_", number)));
                        });
  group.computation->set_root_instruction(clones.at(root));
  return group;
}

// Materializes more values so that no fusion grows far beyond
// kMaxFusedInstructions: LLVM's scheduling is superlinear in a kernel's
// size, and a 100,000-instruction chain must still compile in time linear
// in its length. In post order, each instruction's fused size is itself
// plus its operands' (a shared operand counts once per path, which only
// cuts earlier); one that exceeds the limit becomes a root, so every fusion
// holds at most arity x limit + 1 instructions.
void LimitFusionSizes(const std::vector<HloInstruction*>& order,
                      absl::flat_hash_set<const HloInstruction*>& roots) {
  absl::flat_hash_map<const HloInstruction*, int64_t> fused_size;
  for (const HloInstruction* instruction : order) {
    if (!IsFusible(*instruction)) continue;
    int64_t size = 1;
    for (const HloInstruction* operand : instruction->operands()) {
      if (roots.contains(operand)) continue;
      auto it = fused_size.find(operand);
      if (it != fused_size.end()) size += it->second;
    }
    if (size > kMaxFusedInstructions && !IsScalarConstant(*instruction)) {
      roots.insert(instruction);
    }
    fused_size[instruction] = std::min(size, kMaxFusedInstructions + 1);
  }
}

// Values that may join a fusion: fusible ops and dots.
bool IsFusionMember(const HloInstruction& instruction) {
  return IsFusible(instruction) || IsDot(instruction);
}

// Adds `item` to `set` unless it is there or `set` holds `limit` items
// already; returns false when it had to leave it out.
template <typename Set>
bool AddCapped(Set& set, const HloInstruction* item, size_t limit) {
  if (absl::c_linear_search(set, item)) return true;
  if (set.size() >= limit) return false;
  set.push_back(item);
  return true;
}

// The fusion roots a value's users lead to, up to two.
using FusionsReached = absl::InlinedVector<const HloInstruction*, 2>;

// Those of `value` under `roots`, from its users' (already in `reached`).
FusionsReached ReachedThroughUsers(
    const HloInstruction& value,
    const absl::flat_hash_set<const HloInstruction*>& roots,
    absl::flat_hash_map<const HloInstruction*, FusionsReached>& reached) {
  FusionsReached result;
  for (const HloInstruction* user : value.users()) {
    if (roots.contains(user) || !IsFusionMember(*user)) {
      AddCapped(result, user, 2);
      continue;
    }
    for (const HloInstruction* root : reached[user]) {
      AddCapped(result, root, 2);
    }
  }
  return result;
}

// Every fusion member's FusionsReached under `roots` (a root reaches
// itself). Users before operands; on the way, each of `unroot` that leads
// to at most one fusion stops being a root (its operands then see that).
absl::flat_hash_map<const HloInstruction*, FusionsReached>
FusionsReachedByUsers(const std::vector<HloInstruction*>& order,
                      absl::flat_hash_set<const HloInstruction*>& roots,
                      const absl::flat_hash_set<const HloInstruction*>& unroot) {
  absl::flat_hash_map<const HloInstruction*, FusionsReached> reached;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* value = *it;
    if (!IsFusionMember(*value)) continue;
    FusionsReached through_users = ReachedThroughUsers(*value, roots, reached);
    if (unroot.contains(value) && through_users.size() <= 1) {
      roots.erase(value);
    }
    reached[value] =
        roots.contains(value) ? FusionsReached{value} : through_users;
  }
  return reached;
}

// XLA's rule against duplicating producers that are more than unary. A
// value fused into several fusions is computed, and its inputs read, in
// each. That costs nothing extra when it reads at most one array as large
// as itself (a bias add, x - mean: each consumer reads that array anyway)
// and does little work, but a value that combines two or more (a + b, a
// residual stream x + f(x)), or that recomputes an expensive op at its
// size, or that reads more than a few values, repeats that work in every
// consumer; and a chain of them (each layer's x = x + f(x)) would have every
// layer's kernels redo all earlier layers: quadratic work, and kernels that
// differ per layer. Such a value whose users lead to two or more fusions is
// materialized instead. In post order over the roots decided so far, so a
// value made a root here is one input of the values after it.
void MaterializeWideSharedValues(
    const std::vector<HloInstruction*>& order,
    absl::flat_hash_set<const HloInstruction*>& roots) {
  absl::flat_hash_map<const HloInstruction*, FusionsReached> fusions_reached =
      FusionsReachedByUsers(order, roots, /*unroot=*/{});
  // The values outside the fusion each value's fused computation reads
  // (scalar constants aside), up to kTracked, `overflow` past that; and
  // the most elements an expensive op in it computes.
  constexpr size_t kTracked = 8;
  struct Inputs {
    absl::InlinedVector<const HloInstruction*, kTracked> values;
    bool overflow = false;
    int64_t expensive_elements = 0;
  };
  absl::flat_hash_map<const HloInstruction*, Inputs> inputs_of;
  absl::flat_hash_set<const HloInstruction*> added;
  for (const HloInstruction* value : order) {
    if (!IsFusionMember(*value)) continue;
    Inputs inputs;
    if (IsExpensiveProducer(*value) && value->shape().IsArray()) {
      inputs.expensive_elements = ShapeUtil::ElementsIn(value->shape());
    }
    for (const HloInstruction* operand : value->operands()) {
      if (IsScalarConstant(*operand)) continue;
      if (IsFusionMember(*operand) && !roots.contains(operand)) {
        const Inputs& fused = inputs_of[operand];
        inputs.overflow |= fused.overflow;
        inputs.expensive_elements =
            std::max(inputs.expensive_elements, fused.expensive_elements);
        for (const HloInstruction* input : fused.values) {
          inputs.overflow |= !AddCapped(inputs.values, input, kTracked);
        }
      } else {
        inputs.overflow |= !AddCapped(inputs.values, operand, kTracked);
      }
    }
    if (IsFusible(*value) && !roots.contains(value) &&
        !IsScalarConstant(*value) && value->shape().IsArray() &&
        fusions_reached[value].size() > 1) {
      const int64_t elements = ShapeUtil::ElementsIn(value->shape());
      int64_t wide = inputs.overflow ? 2 : 0;
      for (const HloInstruction* input : inputs.values) {
        wide += input->shape().IsArray() &&
                ShapeUtil::ElementsIn(input->shape()) >= elements;
      }
      if (wide >= 2 || inputs.expensive_elements >= elements) {
        roots.insert(value);
        added.insert(value);
      }
    }
    inputs_of[value] = std::move(inputs);
  }
  // The reach above was taken before the roots this rule adds: a value
  // whose only reader became a root too (a bias add read by a residual add
  // that many fusions read) now leads to that one fusion and joins it. Users
  // before operands, so a chain of such values unwinds in one walk; fusing a
  // value read by one fusion repeats no work, so no other decision changes.
  FusionsReachedByUsers(order, roots, added);
}

// The elementwise values that compute an expensive op of their own shape
// through fused elementwise operands of that shape (no broadcast, no root
// in between).
absl::flat_hash_set<const HloInstruction*> ElementwiseOverExpensive(
    const std::vector<HloInstruction*>& order,
    const absl::flat_hash_set<const HloInstruction*>& roots) {
  absl::flat_hash_set<const HloInstruction*> over_expensive;
  for (const HloInstruction* value : order) {
    if (!IsFusible(*value) || !IsElementwise(value->opcode()) ||
        !value->shape().IsArray()) {
      continue;
    }
    bool expensive = IsExpensiveProducer(*value);
    for (const HloInstruction* operand : value->operands()) {
      expensive = expensive ||
                  (!roots.contains(operand) &&
                   operand->shape().IsArray() &&
                   operand->shape().dimensions() ==
                       value->shape().dimensions() &&
                   over_expensive.contains(operand));
    }
    if (expensive) over_expensive.insert(value);
  }
  return over_expensive;
}

// XLA's rule against repeated work: an expensive value fused into a
// consumer that reuses its elements would be recomputed once per read (each
// exp of multiply(x[512,1024], broadcast(exp(v[1024]))) 512 times). Such a
// value roots its own fusion instead: computed once per element, then read
// from memory. A value is reused if a path from it through fused users to
// a fusion root crosses a reusing read (passes/operand_reuse.h). Walking in
// reverse post order, users are settled before their operands, and a value
// made a root here ends the paths of the values it reads.
void MaterializeReusedExpensiveValues(
    const std::vector<HloInstruction*>& order,
    absl::flat_hash_set<const HloInstruction*>& roots) {
  const absl::flat_hash_set<const HloInstruction*> over_expensive =
      ElementwiseOverExpensive(order, roots);
  absl::flat_hash_set<const HloInstruction*> reused;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* instruction = *it;
    if (!IsFusible(*instruction)) continue;
    bool read_reused = false;  // by a user that reuses its elements itself
    bool reuse = false;
    for (const HloInstruction* user : instruction->users()) {
      if (!IsFusible(*user) && !IsDot(*user)) continue;
      for (int64_t i = 0; i < user->operand_count() && !read_reused; ++i) {
        read_reused = user->operand(i) == instruction &&
                      ReusesOperandElements(*user, i);
      }
      reuse = read_reused ||
              (!roots.contains(user) && reused.contains(user));
      if (reuse) break;
    }
    if (!reuse || roots.contains(instruction)) continue;
    // Where the reused value is itself an elementwise function of an
    // expensive one of its size (gelu's 0.5 v (1 + tanh(...)) read by the
    // next dot), it is materialized whole instead, at the same size: the
    // reader then loads it, and its producer (the previous dot) can take
    // all of it as an epilogue.
    if (IsExpensiveProducer(*instruction) ||
        (read_reused && over_expensive.contains(instruction))) {
      roots.insert(instruction);
    } else {
      reused.insert(instruction);
    }
  }
}

// The root whose fusion `dot` joins as the operand of an epilogue: every
// reader of the dot, directly or through others, is a fusible epilogue op
// (FusedDot's rule) and all of them lead to this one root (so the dot is
// computed once); null when the dot must root a fusion of its own.
const HloInstruction* EpilogueRoot(
    const HloInstruction& dot, const HloInstruction* entry_root,
    const absl::flat_hash_set<const HloInstruction*>& roots) {
  const int64_t k = FlattenProduct(dot).k;
  // A convolution product's slice may be larger (kMaxConvSliceBytes).
  const int64_t max_k =
      IsConvolutionProduct(dot)
          ? std::max(kMaxEpilogueDotK,
                     kMaxConvSliceBytes /
                         (64 * primitive_util::ByteWidth(
                                   dot.shape().element_type())))
          : kMaxEpilogueDotK;
  if (&dot == entry_root || k > max_k) return nullptr;
  const HloInstruction* root = nullptr;
  std::vector<const HloInstruction*> stack = {&dot};
  absl::flat_hash_set<const HloInstruction*> seen = {&dot};
  while (!stack.empty()) {
    const HloInstruction* value = stack.back();
    stack.pop_back();
    if (value != &dot && roots.contains(value)) {
      if (root != nullptr && root != value) return nullptr;
      root = value;
      continue;
    }
    if (value->users().empty()) return nullptr;
    for (const HloInstruction* user : value->users()) {
      if (!IsFusible(*user) || !IsEpilogueOp(*value, *user)) return nullptr;
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return root;
}

// Each dot roots a fusion of its own unless it can be the sole dot of an
// epilogue fusion.
void PlaceDots(const std::vector<HloInstruction*>& order,
               const HloInstruction* entry_root,
               absl::flat_hash_set<const HloInstruction*>& roots) {
  absl::flat_hash_set<const HloInstruction*> with_dot;
  for (const HloInstruction* instruction : order) {
    if (!IsDot(*instruction)) continue;
    const HloInstruction* root = EpilogueRoot(*instruction, entry_root, roots);
    if (root == nullptr || !with_dot.insert(root).second) {
      roots.insert(instruction);
    }
  }
}

}  // namespace

absl::StatusOr<bool> FusionPass::Run(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  RET_CHECK(entry != nullptr);
  RETURN_IF_ERROR(CheckLoweredInput(module, name()));
  // Dead code would stay outside any fusion: sweep it first.
  ASSIGN_OR_RETURN(bool changed, RemoveDeadInstructions(*entry));
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  absl::flat_hash_set<const HloInstruction*> roots;
  for (const HloInstruction* instruction : order) {
    if (IsMaterialized(*instruction, entry->root_instruction())) {
      roots.insert(instruction);
    }
  }
  LimitFusionSizes(order, roots);
  // After the size limit: new roots only shorten fusions.
  MaterializeReusedExpensiveValues(order, roots);
  // After that rule, whose roots end the paths this one follows; the roots
  // added here only shorten paths, so they never make a value reused.
  MaterializeWideSharedValues(order, roots);
  PlaceDots(order, entry->root_instruction(), roots);
  module.AdvanceForm(HloForm::kFused);
  if (roots.empty()) return changed;

  // Operands are fused before their users, so a fusion's operands that are
  // themselves roots have already been replaced by their fusions.
  for (HloInstruction* instruction : order) {
    if (!roots.contains(instruction)) continue;
    FusedGroup group = BuildGroup(module, instruction, roots);
    const bool has_dot = absl::c_any_of(
        group.computation->instructions(),
        [](const HloInstruction* member) { return IsDot(*member); });
    FusionKind kind = instruction->opcode() == HloOpcode::kReduce
                          ? FusionKind::kInput
                      : has_dot ? FusionKind::kOutput
                                : FusionKind::kLoop;
    std::unique_ptr<HloInstruction> fusion = HloInstruction::CreateFusion(
        instruction->shape(), kind, group.operands, group.computation);
    fusion->set_name("fusion");
    fusion->set_metadata(instruction->metadata());
    HloInstruction* added = entry->AddInstruction(std::move(fusion));
    entry->ReplaceInstruction(instruction, added);
  }

  // Sweep what the fusions absorbed.
  RETURN_IF_ERROR(RemoveDeadInstructions(*entry).status());
  return true;
}

}  // namespace mxla
