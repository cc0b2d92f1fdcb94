#include "driver/subprogram.h"

#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/sort_reads.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "passes/sort_key_hoisting.h"
#include "runtime/buffer_leaves.h"
#include "runtime/collective_ops.h"
#include "runtime/native_sort.h"
#include "semantics/select_and_scatter_native.h"

namespace mxla {
namespace {

using Program = JitExecutable::Program;

// Compiles `instruction`'s called computations, each as a module of its own.
class Computations {
 public:
  Computations(const HloInstruction& instruction, const HloModule* input,
               const CompileOptions& options,
               const SubprogramCompilers& compilers)
      : instruction_(instruction),
        input_(input),
        options_(options),
        compilers_(compilers) {
    options_.pipeline.dump_dir.clear();
  }

  // The instruction's called computation `i`.
  absl::StatusOr<std::shared_ptr<const Executable>> Compile(int64_t i) const {
    const HloComputation& computation =
        *instruction_.called_computations()[i];
    std::unique_ptr<HloModule> module =
        CalledComputationModule(instruction_, computation, input_);
    return compilers_.computation(*module, options_);
  }

  const HloInstruction& instruction() const { return instruction_; }
  const HloModule* input() const { return input_; }
  CompileOptions& options() { return options_; }
  const SubprogramCompilers& compilers() const { return compilers_; }

 private:
  const HloInstruction& instruction_;
  const HloModule* input_;
  CompileOptions options_;
  const SubprogramCompilers& compilers_;
};

std::vector<int64_t> Dimensions(const Shape& shape) {
  return {shape.dimensions().begin(), shape.dimensions().end()};
}

int64_t ElementBytes(const Shape& shape) {
  return primitive_util::ByteWidth(shape.element_type());
}

// The array leaves of each operand, in order.
std::vector<int64_t> OperandLeaves(const HloInstruction& instruction) {
  std::vector<int64_t> counts;
  for (const HloInstruction* operand : instruction.operands()) {
    int64_t leaves = 0;
    ForEachArrayLeaf(operand->shape(), [&](const Shape&) { ++leaves; });
    counts.push_back(leaves);
  }
  return counts;
}

// The bytes of each array leaf of the result, depth-first.
std::vector<int64_t> ResultLeafBytes(const HloInstruction& instruction) {
  std::vector<int64_t> bytes;
  ForEachArrayLeaf(instruction.shape(), [&](const Shape& leaf) {
    bytes.push_back(ShapeUtil::ByteSizeOf(leaf));
  });
  return bytes;
}

// A while loop: natively when the options allow and the loop can (its
// step-by-step programs, run only when a run limits the trips, then need
// no native loops of their own), and step by step.
absl::StatusOr<Program::Subprogram> MakeWhileLoop(Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::WhileLoop loop;
  loop.name = instruction.name();
  if (computations.options().native_loops) {
    ASSIGN_OR_RETURN(loop.native, computations.compilers().native_loop(
                                      instruction, computations.input(),
                                      computations.options()));
    if (loop.native != nullptr) computations.options().native_loops = false;
  }
  ASSIGN_OR_RETURN(loop.condition, computations.Compile(0));
  ASSIGN_OR_RETURN(loop.body, computations.Compile(1));
  loop.leaf_bytes = ResultLeafBytes(instruction);
  return loop;
}

absl::StatusOr<Program::Subprogram> MakeConditional(
    const Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::Conditional conditional;
  for (size_t i = 0; i < instruction.called_computations().size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<const Executable> branch,
                     computations.Compile(i));
    conditional.branches.push_back(std::move(branch));
  }
  conditional.operand_leaves = OperandLeaves(instruction);
  conditional.pred_index =
      instruction.operand(0)->shape().element_type() == PRED;
  return conditional;
}

// A sort: natively when its comparator is trivial on a native key type,
// else through its compiled comparator.
absl::StatusOr<Program::Subprogram> MakeSort(
    const Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::Sort sort;
  sort.dims = Dimensions(instruction.operand(0)->shape());
  sort.dimension = instruction.dimensions(0);
  for (const HloInstruction* operand : instruction.operands()) {
    sort.element_bytes.push_back(ElementBytes(operand->shape()));
  }
  std::optional<TrivialSortComparator> trivial =
      MatchTrivialSortComparator(*instruction.to_apply());
  if (trivial.has_value() && IsNativeSortKeyType(trivial->type)) {
    sort.native = std::make_shared<const TrivialSortComparator>(*trivial);
    sort.unread_outputs = UnreadSortOutputs(instruction);
    sort.sorted_prefix = SortedPrefixRead(instruction);
    return sort;
  }
  ASSIGN_OR_RETURN(sort.comparator, computations.Compile(0));
  return sort;
}

absl::StatusOr<Program::Subprogram> MakeScatter(
    const Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::Scatter scatter;
  const int64_t n = instruction.operand_count() / 2;
  const Shape& indices = instruction.operand(n)->shape();
  scatter.dims = Dimensions(instruction.operand(0)->shape());
  scatter.indices_dims = Dimensions(indices);
  scatter.indices_type = indices.element_type();
  scatter.update_dims = Dimensions(instruction.operand(n + 1)->shape());
  scatter.scatter_dnums = instruction.scatter_dimension_numbers();
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (i == n) continue;
    scatter.element_bytes.push_back(
        ElementBytes(instruction.operand(i)->shape()));
  }
  scatter.leaf_bytes = ResultLeafBytes(instruction);
  ASSIGN_OR_RETURN(scatter.combiner, computations.Compile(0));
  return scatter;
}

// A select-and-scatter: natively when its select compares and its scatter
// adds, else through its compiled computations.
absl::StatusOr<Program::Subprogram> MakeSelectAndScatter(
    const Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::SelectAndScatter program;
  const Shape& operand = instruction.operand(0)->shape();
  program.dims = Dimensions(operand);
  program.window = instruction.window();
  for (const Shape* shape : {&operand, &instruction.operand(1)->shape(),
                             &instruction.shape()}) {
    program.element_bytes.push_back(ElementBytes(*shape));
  }
  program.result_bytes = ShapeUtil::ByteSizeOf(instruction.shape());
  if (std::optional<semantics::NativeSelectAndScatter> native =
          semantics::MatchNativeSelectAndScatter(instruction)) {
    program.native =
        std::make_shared<const semantics::NativeSelectAndScatter>(*native);
    return program;
  }
  ASSIGN_OR_RETURN(program.select, computations.Compile(0));
  ASSIGN_OR_RETURN(program.scatter, computations.Compile(1));
  return program;
}

absl::StatusOr<Program::Subprogram> MakeInfeed(
    const HloInstruction& instruction) {
  Program::Infeed infeed;
  infeed.name = instruction.name();
  infeed.data_shape = instruction.shape().tuple_shapes(0);
  infeed.token_leaves = OperandLeaves(instruction)[0];
  return infeed;
}

absl::StatusOr<Program::Subprogram> MakeOutfeed(
    const HloInstruction& instruction) {
  Program::Outfeed outfeed;
  outfeed.name = instruction.name();
  outfeed.data_shape = instruction.operand(0)->shape();
  return outfeed;
}

// A reducer that is no single op: its compiled computation run on each
// element pair (as a scatter's combiner is), into a scalar of its own.
ElementCombiner CompiledCombiner(std::shared_ptr<const Executable> reducer,
                                 int64_t element_bytes) {
  return ElementCombiner{
      element_bytes,
      [reducer, element_bytes](char* accumulator, const char* other,
                               int64_t elements) {
        RunOptions options;
        options.threads = 1;
        std::array<char, 16> combined;
        void* outputs[] = {combined.data()};
        for (int64_t i = 0; i < elements; ++i) {
          char* a = accumulator + i * element_bytes;
          const void* arguments[] = {a, other + i * element_bytes};
          RETURN_IF_ERROR(reducer->RunBuffers(arguments, outputs, options));
          std::memcpy(a, combined.data(), element_bytes);
        }
        return absl::OkStatus();
      }};
}

// A collective, replica-id or partition-id of a program compiled for
// several devices; a reduction gets a combiner per operand.
absl::StatusOr<Program::Subprogram> MakeDeviceStep(
    const Computations& computations) {
  const HloInstruction& instruction = computations.instruction();
  Program::DeviceStep step;
  step.instruction = &instruction;
  if (instruction.opcode() != HloOpcode::kAllReduce &&
      instruction.opcode() != HloOpcode::kReduceScatter) {
    return step;
  }
  const HloComputation& reducer = *instruction.called_computations()[0];
  std::shared_ptr<const Executable> compiled;
  for (const HloInstruction* operand : instruction.operands()) {
    const PrimitiveType type = operand->shape().element_type();
    if (std::optional<ElementCombiner> native = NativeCombiner(reducer, type)) {
      step.combiners.push_back(*std::move(native));
      continue;
    }
    const Shape& takes = reducer.parameter_instruction(0)->shape();
    if (!takes.IsArray() || takes.rank() != 0 || takes.element_type() != type) {
      return absl::InvalidArgumentError(absl::StrCat(
          HloOpcodeString(instruction.opcode()), " '", instruction.name(),
          "': its reducer '", reducer.name(), "' takes ", takes.ToString(),
          " but the operand's elements are ",
          primitive_util::LowercaseName(type),
          "; a reducer of another type is run only when it is one op "
          "(add, multiply, maximum, minimum, ...) of floating types"));
    }
    if (compiled == nullptr) {
      ASSIGN_OR_RETURN(compiled, computations.Compile(0));
    }
    step.combiners.push_back(
        CompiledCombiner(compiled, primitive_util::ByteWidth(type)));
  }
  return step;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Program::Subprogram>> MakeSubprogram(
    const HloInstruction& instruction, const HloModule* input,
    const CompileOptions& options, const SubprogramCompilers& compilers) {
  if (!compilers.computation || !compilers.native_loop) {
    return absl::InternalError(absl::StrCat(
        "no compilers for subprogram '", instruction.name(),
        "': the compile pipeline's caller passes Compile()'s"));
  }
  Computations computations(instruction, input, options, compilers);
  absl::StatusOr<Program::Subprogram> subprogram =
      absl::InternalError(absl::StrCat("no subprogram for '",
                                       instruction.name(), "' (",
                                       HloOpcodeString(instruction.opcode()),
                                       ")"));
  switch (instruction.opcode()) {
    case HloOpcode::kWhile:
      subprogram = MakeWhileLoop(computations);
      break;
    case HloOpcode::kConditional:
      subprogram = MakeConditional(computations);
      break;
    case HloOpcode::kSort:
      subprogram = MakeSort(computations);
      break;
    case HloOpcode::kScatter:
      subprogram = MakeScatter(computations);
      break;
    case HloOpcode::kSelectAndScatter:
      subprogram = MakeSelectAndScatter(computations);
      break;
    case HloOpcode::kInfeed:
      subprogram = MakeInfeed(instruction);
      break;
    case HloOpcode::kOutfeed:
      subprogram = MakeOutfeed(instruction);
      break;
    default:
      if (IsDeviceStepOp(instruction.opcode())) {
        subprogram = MakeDeviceStep(computations);
      }
      break;
  }
  RETURN_IF_ERROR(subprogram.status());
  return std::make_shared<const Program::Subprogram>(*std::move(subprogram));
}

std::unique_ptr<HloModule> CalledComputationModule(
    const HloInstruction& instruction, const HloComputation& computation,
    const HloModule* input) {
  const HloComputation* source = &computation;
  if (input != nullptr) {
    if (const HloComputation* original =
            input->GetComputationWithName(computation.name())) {
      source = original;
    }
  }
  auto module = std::make_unique<HloModule>(absl::StrCat(
      instruction.parent()->parent()->name(), ".", computation.name()));
  module->set_entry_computation(module->DeepCopyComputation(*source));
  if (instruction.opcode() == HloOpcode::kWhile &&
      &computation == instruction.called_computations().back()) {
    // The body updates the loop state in place: each result leaf lives in
    // the parameter leaf it replaces (the runtime passes one set of
    // buffers for both).
    module->set_input_output_aliases(LoopStateAliases(
        module->entry_computation()->root_instruction()->shape()));
  }
  return module;
}

std::vector<HloInputOutputAlias> LoopStateAliases(const Shape& state) {
  std::vector<HloInputOutputAlias> aliases;
  std::vector<int64_t> index;
  std::function<void(const Shape&)> visit = [&](const Shape& shape) {
    if (!shape.IsTuple()) {
      aliases.push_back({index, 0, index, /*must_alias=*/true});
      return;
    }
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      index.push_back(i);
      visit(shape.tuple_shapes(i));
      index.pop_back();
    }
  };
  visit(state);
  return aliases;
}

}  // namespace mxla
