// Dispatch on an opcode to one handler per op, generated from the op table
// (ir/hlo_ops.def), so that an op without a handler fails to compile
// instead of failing at run time with "does not know opcode".
//
// A handler set is any object with overloads
//
//     Result Handle(OpTag<HloOpcode::kDot>, Args...);
//
// and VisitOp<Result>(handlers, opcode, args...) calls the one for
// `opcode`. An overload may take a family of ops at once through a
// constrained template, e.g. every unary op:
//
//     template <HloOpcode op>
//       requires(OpCategory(op) == HloOpcodeCategory::kUnary)
//     Result Handle(OpTag<op>, Args...);
//
// which is still a decision the compiler checks per op: a new op of
// another category has no overload until someone writes one.
// VisitUnaryOp and VisitBinaryOp dispatch over the table's unary or binary
// ops only (compare is not one: it has a direction) and call
// handlers.NotInCategory(opcode, args...) for the others.
#ifndef MXLA_IR_HLO_OP_VISITOR_H_
#define MXLA_IR_HLO_OP_VISITOR_H_

#include <utility>

#include "ir/hlo_opcode.h"
#include "ir/op_spec.h"

namespace mxla {

template <HloOpcode op>
struct OpTag {
  static constexpr HloOpcode kOpcode = op;
};

// The table's category and fusion columns, usable in constraints.
constexpr HloOpcodeCategory OpCategory(HloOpcode opcode) {
  switch (opcode) {
#define MXLA_HLO_OP(e, text, category, ...) \
  case HloOpcode::e:                        \
    return HloOpcodeCategory::category;
#include "ir/hlo_ops.def"
  }
  return HloOpcodeCategory::kOther;
}

constexpr bool IsFusibleOp(HloOpcode opcode) {
  switch (opcode) {
#define MXLA_HLO_OP(e, text, category, arity, attributes, shape_rule, \
                    type_rule, cost, fusion, builder)                 \
  case HloOpcode::e:                                                  \
    return FusionClass::fusion == FusionClass::kFusible;
#include "ir/hlo_ops.def"
  }
  return false;
}

// True for the elementwise categories: unary, binary and compare.
constexpr bool IsScalarFunctionOp(HloOpcode opcode) {
  const HloOpcodeCategory category = OpCategory(opcode);
  return category == HloOpcodeCategory::kUnary ||
         category == HloOpcodeCategory::kBinary ||
         category == HloOpcodeCategory::kCompare;
}

// For constraints naming a few ops: OpIn<kAsyncDone, kCallDone>(op).
template <HloOpcode... ops>
constexpr bool OpIn(HloOpcode opcode) {
  return ((opcode == ops) || ...);
}

template <typename Result, typename Handlers, typename... Args>
Result VisitOp(Handlers& handlers, HloOpcode opcode, Args&&... args) {
  switch (opcode) {
#define MXLA_HLO_OP(e, ...) \
  case HloOpcode::e:        \
    return handlers.Handle(OpTag<HloOpcode::e>{}, std::forward<Args>(args)...);
#include "ir/hlo_ops.def"
  }
  // Every enumerator has a case; only a corrupted value gets here.
  __builtin_unreachable();
}

template <typename Result, typename Handlers, typename... Args>
Result VisitUnaryOp(Handlers& handlers, HloOpcode opcode, Args&&... args) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_BINARY_OP(...)
#define MXLA_UNARY_OP(e, ...) \
  case HloOpcode::e:          \
    return handlers.Handle(OpTag<HloOpcode::e>{}, std::forward<Args>(args)...);
#include "ir/hlo_ops.def"
    default:
      return handlers.NotInCategory(opcode, std::forward<Args>(args)...);
  }
}

template <typename Result, typename Handlers, typename... Args>
Result VisitBinaryOp(Handlers& handlers, HloOpcode opcode, Args&&... args) {
  switch (opcode) {
#define MXLA_HLO_OP(...)
#define MXLA_UNARY_OP(...)
#define MXLA_BINARY_OP(e, ...) \
  case HloOpcode::e:           \
    return handlers.Handle(OpTag<HloOpcode::e>{}, std::forward<Args>(args)...);
#include "ir/hlo_ops.def"
    default:
      return handlers.NotInCategory(opcode, std::forward<Args>(args)...);
  }
}

}  // namespace mxla

#endif  // MXLA_IR_HLO_OP_VISITOR_H_
