// Names that HLO text reads back. The parser takes names of the form
// `[A-Za-z_][A-Za-z0-9_.-]*` (hlo_text/hlo_lexer.h); a name given through
// the API (a builder named after a Python `<lambda>`, a computation named
// "my model") is made one by SanitizeHloName when the module, computation
// or instruction is created (HloModule, HloModule::AddComputation,
// HloComputation::AddInstruction), as XLA's NameUniquer::GetSanitizedName
// does, so that every printed module parses back to an equal one.
#ifndef MXLA_IR_HLO_NAME_H_
#define MXLA_IR_HLO_NAME_H_

#include <string>

#include "absl/strings/string_view.h"

namespace mxla {

// Whether `c` may appear in a name after its first character.
bool IsHloNameChar(char c);

// `name` as a valid HLO name, following XLA's rule: a first character that
// is not a letter or '_' becomes '_', as does every later byte outside
// [A-Za-z0-9_.-] (each byte of a UTF-8 sequence); a name that spells an
// element type (`f32`, `token`; XLA's keywords) gets a '_' appended; a
// leading "__" other than XLA's "__xla_" becomes "a_" (backends reserve
// such prefixes). "" stays "" (callers pick a default).
// Examples: "<lambda>" -> "_lambda_", "my model" -> "my_model",
// "1st" -> "_st", "f32" -> "f32_", "x.1" -> "x.1".
std::string SanitizeHloName(absl::string_view name);

}  // namespace mxla

#endif  // MXLA_IR_HLO_NAME_H_
