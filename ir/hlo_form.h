// The form of a module: which HLO rules it follows. A module carries its
// form (HloModule::form()); passes move it forward and the verifier checks
// a module against it.
//   kBuilder  the builder's form: a binary elementwise op may carry
//             broadcast_dimensions and operands whose shapes differ from
//             its result; select may take scalar operands
//   kLowered  XLA's HLO rules: no implicit broadcast anywhere
//   kFused    lowered, and the entry computation holds only parameters,
//             constants, tuples, get-tuple-elements and fusions: one
//             kernel per fusion (what codegen takes)
#ifndef MXLA_IR_HLO_FORM_H_
#define MXLA_IR_HLO_FORM_H_

#include "absl/strings/string_view.h"

namespace mxla {

// Ordered: each form is also the ones before it, with more rules.
enum class HloForm { kBuilder, kLowered, kFused };

absl::string_view HloFormString(HloForm form);

// The verifier and the shape rules check a module against a form.
using VerifierMode = HloForm;

}  // namespace mxla

#endif  // MXLA_IR_HLO_FORM_H_
