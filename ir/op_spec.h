// The op table as data: one OpSpec per opcode, expanded from
// ir/hlo_ops.def. Generic code (printer, parser, verifier, attribute copy
// and comparison, shape inference's type rules, the cost model) reads an
// op's properties here instead of switching on its opcode.
#ifndef MXLA_IR_OP_SPEC_H_
#define MXLA_IR_OP_SPEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/hlo_attribute.h"
#include "ir/hlo_opcode.h"
#include "ir/shape.h"
#include "ir/hlo_form.h"

namespace mxla {

class HloInstruction;

enum class AttrUse {
  kRequired,
  kOptional,
  kPositional,  // printed in the parentheses instead of operands
  kChecked,     // parsed and checked against the operands, not kept
  kIgnored,     // parsed and dropped (accepted for XLA compatibility)
};

struct AttrSlot {
  AttrId id;
  AttrUse use;
};

// Element types a unary or binary op accepts (shape inference words the
// message per category). kIntegral: signed or unsigned integers, not pred
// (the shifts, popcnt, count-leading-zeros).
enum class TypeRule {
  kAnyType,
  kArithmetic,
  kFloating,
  kPredOrIntegral,
  kIntegral
};

enum class CostClass { kCheap, kExpensive };

enum class FusionClass { kFusible, kUnfusible };

struct OpSpec {
  HloOpcode opcode;
  absl::string_view text;
  HloOpcodeCategory category;
  int64_t arity;  // -1: variadic
  std::vector<AttrSlot> attributes;  // in printing order
  TypeRule type_rule;
  CostClass cost;
  FusionClass fusion;
  absl::string_view builder;  // the XlaBuilder function's name

  // The slot of `id`, or null if the op does not take it.
  const AttrSlot* FindAttribute(AttrId id) const;
  // How many computations the op calls (its kComputation attributes), or
  // -1 for any positive number (an op with a kComputationList attribute).
  int64_t called_computation_count() const;
};

const OpSpec& GetOpSpec(HloOpcode opcode);
// Every op, in table order.
const std::vector<OpSpec>& AllOpSpecs();

}  // namespace mxla

#endif  // MXLA_IR_OP_SPEC_H_
