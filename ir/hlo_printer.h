// Prints modules, computations and instructions in HLO text (the format the
// parser reads; print -> parse -> print is the identity). Shapes carry their
// row-major layout, computations list instructions operands-first, callees
// come before callers, and the entry is marked ENTRY.
//
// The printer trusts its input: every constant needs a literal (else null
// dereference) and every reduce and fusion its called computation (else
// HloInstruction::to_apply() throws). Verified modules satisfy both.
#ifndef MXLA_IR_HLO_PRINTER_H_
#define MXLA_IR_HLO_PRINTER_H_

#include <string>

namespace mxla {

class HloInstruction;
class HloComputation;
class HloModule;

struct HloPrintOptions {
  // `metadata={op_name="Add" source_file="main.cc" source_line=12}` as in
  // XLA's text, for instructions that carry it (the builder records its
  // caller's op and source line). Off by default; dumps turn it on.
  bool metadata = false;
  // Names left out, for structural keys (codegen's kernel deduplication):
  // an instruction prints as its position in its computation's post order
  // (`%3 = f32[8]{0} add(%1, %2)`), an operand outside the computation
  // being printed (the operands of a fusion printed alone) as its shape, a
  // called computation inline as its own canonical text, and a
  // computation's header as just `{`. Not parseable HLO; two fusions that
  // print alike compute alike on operands of their shapes.
  bool canonical = false;
};

class HloPrinter {
 public:
  // "HloModule <name>", then every computation (ComputationToString).
  static std::string ModuleToString(const HloModule& module,
                                    const HloPrintOptions& options = {});
  // "[ENTRY ]name {", one line per instruction with "ROOT " on the root,
  // "}".
  static std::string ComputationToString(const HloComputation& computation,
                                         const HloPrintOptions& options = {});
  // One line: `name = f32[2]{0} add(a, b)` (no ROOT, no indentation).
  static std::string InstructionToString(const HloInstruction& instruction,
                                         const HloPrintOptions& options = {});
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_PRINTER_H_
