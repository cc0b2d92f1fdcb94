#include "driver/native_loop_compile.h"

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/aot_compile.h"
#include "driver/subprogram.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

bool UsesHostFeed(const HloComputation& computation) {
  for (const HloInstruction* instruction : computation.instructions()) {
    if (instruction->opcode() == HloOpcode::kInfeed ||
        instruction->opcode() == HloOpcode::kOutfeed) {
      return true;
    }
    for (const HloComputation* called : instruction->called_computations()) {
      if (UsesHostFeed(*called)) return true;
    }
  }
  return false;
}

// Instructions in `computation` and everything it calls.
int64_t InstructionsWithin(const HloComputation& computation) {
  int64_t count = 0;
  for (const HloInstruction* instruction : computation.instructions()) {
    ++count;
    for (const HloComputation* called : instruction->called_computations()) {
      count += InstructionsWithin(*called);
    }
  }
  return count;
}

// Distinct external names for the drivers (each is in a JIT library of its
// own; distinct names keep symbol lookups and dumps unambiguous).
std::string NextDriverName() {
  static std::atomic<int64_t> next{0};
  return absl::StrCat("mxla_loop_", next.fetch_add(1));
}

}  // namespace

absl::StatusOr<std::unique_ptr<NativeLoop>> CompileNativeLoop(
    const HloInstruction& loop, const HloModule* input,
    const CompileOptions& options) {
  RET_CHECK(loop.opcode() == HloOpcode::kWhile, "not a while: ", loop.name());
  int64_t instructions = 0;
  for (const HloComputation* computation : loop.called_computations()) {
    if (UsesHostFeed(*computation)) return std::unique_ptr<NativeLoop>();
    instructions += InstructionsWithin(*computation);
  }
  // A large body spends its trips in its kernels, not in dispatch, and a
  // native copy would double its compile (a model's generate loop holds
  // thousands of instructions; dispatch-bound bodies a few hundred).
  if (instructions > kMaxNativeLoopInstructions) {
    return std::unique_ptr<NativeLoop>();
  }
  // (state) -> while(state), every leaf aliased to itself.
  HloModule module(
      absl::StrCat(loop.parent()->parent()->name(), ".", loop.name()));
  std::vector<HloComputation*> called;
  for (const HloComputation* computation : loop.called_computations()) {
    const HloComputation* source = computation;
    if (input != nullptr) {
      if (const HloComputation* original =
              input->GetComputationWithName(computation->name())) {
        source = original;
      }
    }
    called.push_back(module.DeepCopyComputation(*source));
  }
  const Shape& state = loop.shape();
  HloComputation* entry = module.AddComputation("main", /*is_entry=*/true);
  HloInstruction* parameter = entry->AddInstruction(
      HloInstruction::CreateParameter(0, state, "state"));
  HloInstruction* root = entry->AddInstruction(
      HloInstruction::CreateGeneric(HloOpcode::kWhile, state, {parameter}));
  root->set_called_computations(called);
  entry->set_root_instruction(root);
  module.set_input_output_aliases(LoopStateAliases(state));

  AotOptions aot;
  aot.function = NextDriverName();
  aot.compile = options;
  aot.compile.pipeline.dump_dir.clear();
  absl::StatusOr<AotObject> object = CompileAotObject(module, aot);
  if (absl::IsUnimplemented(object.status())) {
    return std::unique_ptr<NativeLoop>();  // runs step by step
  }
  RETURN_IF_ERROR(object.status());
  return NativeLoop::Load(std::move(object->object), aot.function + "_parallel",
                          object->temp_bytes);
}

}  // namespace mxla
