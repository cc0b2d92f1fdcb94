#include "builder/xla_builder.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/status_macros.h"

namespace mxla {

std::string CallSiteString(const SourceLocation& location) {
  return absl::StrCat(location.file_name(), ":", location.line());
}

ProgramShape XlaComputation::GetProgramShape() const {
  const HloComputation* entry = module_->entry_computation();
  ProgramShape program_shape;
  program_shape.parameters.resize(entry->num_parameters());
  for (const HloInstruction* parameter : entry->parameter_instructions()) {
    program_shape.parameters[parameter->parameter_number()] =
        parameter->shape();
  }
  program_shape.result = entry->root_instruction()->shape();
  return program_shape;
}

XlaBuilder::XlaBuilder(std::string name)
    : name_(std::move(name)), module_(std::make_unique<HloModule>(name_)) {
  entry_ = module_->AddComputation(name_, /*is_entry=*/true);
}

std::unique_ptr<XlaBuilder> XlaBuilder::CreateSubBuilder(
    const std::string& name) {
  auto sub = std::make_unique<XlaBuilder>(absl::StrCat(name_, ".", name));
  sub->memory_limit_bytes_ = memory_limit_bytes_;
  return sub;
}

void XlaBuilder::NoteError(absl::Status error) {
  if (first_error_.ok()) first_error_ = std::move(error);
}

XlaOp XlaBuilder::ReportErrorOrReturn(
    absl::FunctionRef<absl::StatusOr<XlaOp>()> create,
    absl::FunctionRef<std::string()> context, const SourceLocation& location) {
  if (!first_error_.ok()) return XlaOp();
  absl::StatusOr<XlaOp> op = create();
  if (op.ok()) return *op;
  first_error_ = absl::Status(
      op.status().code(), absl::StrCat(context(), " at ",
                                       CallSiteString(location), ": ",
                                       op.status().message()));
  return XlaOp();
}

XlaBuilder::Checkpoint XlaBuilder::MakeCheckpoint() const {
  return Checkpoint{
      static_cast<int64_t>(instructions_.size()), entry_->instruction_count(),
      static_cast<int64_t>(parameter_numbers_.size()), !first_error_.ok()};
}

absl::Status XlaBuilder::RollBack(const Checkpoint& checkpoint) {
  const std::vector<HloInstruction*> all = entry_->instructions();
  const bool reachable =
      checkpoint.handles <= static_cast<int64_t>(instructions_.size()) &&
      checkpoint.instructions <= static_cast<int64_t>(all.size()) &&
      checkpoint.parameters <= static_cast<int64_t>(parameter_numbers_.size());
  RET_CHECK(reachable, "builder '", name_, "' is behind its checkpoint");
  // Ops made since come after the checkpoint's in insertion order, so
  // every user of one is made since too.
  absl::flat_hash_set<HloInstruction*> dead(
      all.begin() + checkpoint.instructions, all.end());
  if (dead.contains(entry_->root_instruction())) {
    entry_->set_root_instruction(nullptr);
  }
  RETURN_IF_ERROR(entry_->RemoveInstructions(dead));
  // The builder adds computations only for its ops to call, so those of
  // the removed ops are the ones no op reaches now.
  module_->RemoveUnusedComputations();
  std::fill(instructions_.begin() + checkpoint.handles, instructions_.end(),
            nullptr);
  parameter_numbers_.resize(checkpoint.parameters);
  if (!checkpoint.had_error) first_error_ = absl::OkStatus();
  return absl::OkStatus();
}

absl::StatusOr<XlaOp> XlaBuilder::TryOp(absl::FunctionRef<XlaOp()> make) {
  RETURN_IF_ERROR(first_error_);
  const Checkpoint checkpoint = MakeCheckpoint();
  XlaOp op = make();
  if (first_error_.ok() && op.valid()) return op;
  absl::Status error =
      first_error_.ok()
          ? absl::InvalidArgumentError("the op's operands are invalid")
          : first_error_;
  RETURN_IF_ERROR(RollBack(checkpoint));
  return error;
}

absl::StatusOr<HloInstruction*> XlaBuilder::LookUp(XlaOp op) const {
  if (op.builder_ == nullptr || op.handle_ < 0) {
    return absl::InvalidArgumentError(
        "invalid XlaOp (default-constructed, or returned by a failed op)");
  }
  if (op.builder_ != this) {
    return absl::InvalidArgumentError(
        absl::StrCat("XlaOp built by builder '", op.builder_->name(),
                     "' is used in builder '", name_, "'"));
  }
  if (op.handle_ >= static_cast<int64_t>(instructions_.size())) {
    return absl::InternalError(
        absl::StrCat("XlaOp handle ", op.handle_, " out of range"));
  }
  if (instructions_[op.handle_] == nullptr) {
    return absl::InvalidArgumentError(
        "invalid XlaOp (made by a failed op, and rolled back)");
  }
  return instructions_[op.handle_];
}

absl::StatusOr<Shape> XlaBuilder::GetShape(XlaOp op) const {
  RETURN_IF_ERROR(first_error_);
  ASSIGN_OR_RETURN(HloInstruction * instruction, LookUp(op));
  return instruction->shape();
}

XlaOp XlaBuilder::AddInstruction(std::unique_ptr<HloInstruction> instruction,
                                 absl::string_view op_name,
                                 const SourceLocation& location) {
  instruction->set_metadata(OpMetadata{std::string(op_name),
                                       location.file_name(),
                                       static_cast<int64_t>(location.line())});
  instructions_.push_back(entry_->AddInstruction(std::move(instruction)));
  return XlaOp(static_cast<int64_t>(instructions_.size()) - 1, this);
}

XlaOp XlaBuilder::HandleFor(HloInstruction* instruction) {
  instructions_.push_back(instruction);
  return XlaOp(static_cast<int64_t>(instructions_.size()) - 1, this);
}

HloComputation* XlaBuilder::AddCalledComputation(
    const XlaComputation& computation) {
  return AddCalledComputation(*computation.module().entry_computation());
}

HloComputation* XlaBuilder::AddCalledComputation(
    const HloComputation& computation) {
  return module_->DeepCopyComputation(computation);
}

absl::Status XlaBuilder::RegisterParameter(int64_t number) {
  if (number < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter number ", number, " is negative"));
  }
  if (std::find(parameter_numbers_.begin(), parameter_numbers_.end(),
                number) != parameter_numbers_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter ", number, " already registered"));
  }
  parameter_numbers_.push_back(number);
  return absl::OkStatus();
}

absl::Status XlaBuilder::CheckParametersDense() const {
  std::vector<int64_t> numbers = parameter_numbers_;
  std::sort(numbers.begin(), numbers.end());
  for (int64_t i = 0; i < static_cast<int64_t>(numbers.size()); ++i) {
    if (numbers[i] != i) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter numbers must be 0..", numbers.size() - 1,
          " without gaps, but parameter ", i, " is missing (have {",
          absl::StrJoin(numbers, ","), "})"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<XlaComputation> XlaBuilder::Build(
    const SourceLocation location) {
  RETURN_IF_ERROR(first_error_);
  // The last op not rolled back.
  int64_t root = static_cast<int64_t>(instructions_.size()) - 1;
  while (root >= 0 && instructions_[root] == nullptr) --root;
  if (root < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Build() of builder '", name_, "' at ", CallSiteString(location),
        ": the builder has no ops"));
  }
  return BuildWithRoot(root, location);
}

absl::StatusOr<XlaComputation> XlaBuilder::Build(
    XlaOp root, const SourceLocation location) {
  RETURN_IF_ERROR(first_error_);
  absl::StatusOr<HloInstruction*> instruction = LookUp(root);
  if (!instruction.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Build(root) of builder '", name_, "' at ", CallSiteString(location),
        ": ", instruction.status().message()));
  }
  return BuildWithRoot(root.handle_, location);
}

absl::StatusOr<XlaComputation> XlaBuilder::BuildWithRoot(
    int64_t root_handle, const SourceLocation& location) {
  RETURN_IF_ERROR(first_error_);
  absl::Status dense = CheckParametersDense();
  if (!dense.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Build() of builder '", name_, "' at ",
                     CallSiteString(location), ": ", dense.message()));
  }
  entry_->set_root_instruction(instructions_[root_handle]);
  std::unique_ptr<HloModule> module = module_->Clone();
  absl::Status aliases = ResolveInputOutputAliases(*module).status();
  if (!aliases.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Build() of builder '", name_, "' at ",
                     CallSiteString(location), ": ", aliases.message()));
  }
  return XlaComputation(std::move(module));
}

void XlaBuilder::SetUpAlias(std::vector<int64_t> output_index,
                            int64_t param_number,
                            std::vector<int64_t> param_index) {
  std::vector<HloInputOutputAlias> aliases = module_->input_output_aliases();
  aliases.push_back({std::move(output_index), param_number,
                     std::move(param_index), /*must_alias=*/false});
  module_->set_input_output_aliases(std::move(aliases));
}

}  // namespace mxla
