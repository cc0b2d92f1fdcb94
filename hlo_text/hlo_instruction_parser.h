// Internal to the HLO parser: one instruction line, from `[ROOT] name =` to
// the end of its attributes, added to the computation being parsed.
#ifndef MXLA_HLO_TEXT_HLO_INSTRUCTION_PARSER_H_
#define MXLA_HLO_TEXT_HLO_INSTRUCTION_PARSER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hlo_text/hlo_lexer.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"

namespace mxla::hlo_parser_internal {

// What the whole module parse knows so far.
struct ModuleParseState {
  HloModule* module = nullptr;
  // Every instruction name in the text -> the first computation using it.
  absl::flat_hash_map<std::string, std::string> instruction_owners;
  // The names the module's instructions hold (unique in the module).
  absl::flat_hash_set<std::string> instruction_names;
  // Finished computations, the only ones instructions may call.
  absl::flat_hash_map<std::string, HloComputation*> computations;
  // Parses a computation written in place of a called computation's name
  // (`to_apply={ ... }`), at its '{', and adds it to the module.
  std::function<absl::StatusOr<HloComputation*>(TokenCursor&)>
      parse_inline_computation;
};

// What one computation's parse knows so far.
struct ComputationParseState {
  HloComputation* computation = nullptr;
  absl::flat_hash_map<std::string, HloInstruction*> instructions;
  HloInstruction* root = nullptr;  // The ROOT-marked instruction, if any.
  HloInstruction* last = nullptr;
  // Parameter numbers with the tokens that gave them (for error locations).
  absl::flat_hash_map<int64_t, Token> parameter_numbers;
};

// Parses one instruction and adds it, keeping its name exactly.
absl::Status ParseInstructionAt(TokenCursor& cursor, ModuleParseState& module,
                                ComputationParseState& computation);

}  // namespace mxla::hlo_parser_internal

#endif  // MXLA_HLO_TEXT_HLO_INSTRUCTION_PARSER_H_
