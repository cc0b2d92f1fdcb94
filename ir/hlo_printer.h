// Prints modules, computations and instructions in HLO text (the format the
// parser reads; print -> parse -> print is the identity). Shapes carry their
// row-major layout, computations list instructions operands-first, callees
// come before callers, and the entry is marked ENTRY.
#ifndef MXLA_IR_HLO_PRINTER_H_
#define MXLA_IR_HLO_PRINTER_H_

#include <string>

namespace mxla {

class HloInstruction;
class HloComputation;
class HloModule;

class HloPrinter {
 public:
  static std::string ModuleToString(const HloModule& module);
  static std::string ComputationToString(const HloComputation& computation);
  // One line: `name = f32[2]{0} add(a, b)` (no ROOT, no indentation).
  static std::string InstructionToString(const HloInstruction& instruction);
};

}  // namespace mxla

#endif  // MXLA_IR_HLO_PRINTER_H_
