// The reference evaluator: mxla's semantics in executable form and the
// correctness oracle every later stage is compared against. Passes also use
// EvaluateInstruction to fold constants.
//
// Before: a module (or computation) that passes VerifyModule in either mode:
// the builder form, where binary elementwise ops may broadcast implicitly
// via broadcast_dimensions and select may mix scalars with arrays, or the
// lowered form. Unverified modules are not supported, but the evaluator
// checks what keeps it in bounds (operand counts, shapes, dimensions) and
// returns an Internal error instead of reading out of range. One gap: a
// reduce's reducer root is inspected unchecked (a rootless reducer, or a
// binary root without two operands, is read out of bounds). In
// EvaluateModule/EvaluateComputation an instruction's error is prefixed
// "evaluating <name> (<opcode>): " and keeps its code.
// After: the value of the root, as a fresh literal (a tuple literal for a
// tuple root). Evaluating a module before and after lower-broadcasts gives
// bitwise identical results.
//
// Semantics:
//   * every element follows scalar_semantics.h;
//   * reduce: each output element starts from its init value and visits its
//     reduced elements in increasing row-major order of the operand,
//     acc = reducer(acc, element) (for N inputs, accumulators then elements);
//     this fixed order is the oracle's, so float sums are reproducible. No
//     reduced elements gives the init value; dimensions={} gives
//     reducer(init, x) per element;
//   * builder-form implicit broadcast: a scalar operand is used everywhere;
//     a lower-rank operand's dimension i is result dimension
//     broadcast_dimensions[i]; an equal-rank operand's dimension i is
//     dimension i; a size-1 operand dimension always reads index 0;
//   * fusion evaluates its called computation on its operands;
//   * reshape reinterprets row-major order; transpose: result dimension i is
//     operand dimension dimensions[i]; broadcast: operand dimension i is
//     result dimension dimensions[i] (unsorted allowed).
//
// Instructions run once each in an operand-before-user order, without
// recursion per instruction; intermediate values are freed after their last
// user runs, and instructions the root does not depend on are skipped.
//
// Arguments are borrowed for the call only; the result is owned by the
// caller. The IR is only read, so concurrent evaluations of a module nobody
// is changing are safe (the interpreter backend relies on this). Values are
// Literals, which trap if memory runs out; EvaluatorOptions bounds them
// first.
#ifndef MXLA_INTERPRETER_HLO_EVALUATOR_H_
#define MXLA_INTERPRETER_HLO_EVALUATOR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_instruction.h"
#include "ir/hlo_module.h"
#include "ir/host_feed.h"
#include "ir/run_device.h"
#include "ir/literal.h"
#include "ir/memory_budget.h"

namespace mxla {

struct EvaluatorOptions {
  // The budget (ir/memory_budget.h) every value of the evaluated
  // computation must fit, checked before the first one is allocated:
  // InvalidArgument "the interpreter's value of instruction '<name>'
  // (<shape>) needs N bytes, over the memory limit of L bytes ...".
  int64_t memory_limit_bytes = PhysicalMemoryBytes();
  // The most times one run of a while loop may go through its body (or a
  // scan through its computation); beyond, ResourceExhausted
  // (LoopTripsExceeded). Negative: no limit (a
  // loop that never ends never returns, as in XLA).
  int64_t max_loop_trips = -1;
  // What infeed reads and outfeed writes (ir/host_feed.h), borrowed for
  // the run; null: an infeed or outfeed is FailedPrecondition.
  HostFeed* host_feed = nullptr;
  // Which copy of a replicated program this run is (ir/run_device.h),
  // borrowed for the run; null: device 0 of one replica of one partition.
  const RunDevice* device = nullptr;
};

// "while 'w' went through its body more than N times (the limit of
// max_loop_trips)": the error of both backends.
absl::Status LoopTripsExceeded(absl::string_view loop, int64_t limit);

// Evaluates the entry computation. `arguments[i]` is parameter i's value;
// a wrong count is InvalidArgument, and so is a null argument or a shape or
// element type that differs from the parameter's, naming the parameter,
// e.g. "argument 1 (parameter 'v') has shape f32[4] but the computation
// expects f32[3]". A module without an entry is InvalidArgument.
absl::StatusOr<Literal> EvaluateModule(
    const HloModule& module, absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options = {});

// The argument check EvaluateModule does, for other backends: count, null
// and shape, with the message above. Internal if `computation` has no
// parameter numbered i for some i < count (numbers not 0..n-1).
absl::Status CheckArguments(const HloComputation& computation,
                            absl::Span<const Literal* const> arguments);

// Same as EvaluateModule, for any computation of a module (a reducer, a
// fusion body).
absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation,
    absl::Span<const Literal* const> arguments,
    const EvaluatorOptions& options = {});

// One instruction on given operand values (one per operand, with the
// operands' shapes: InvalidArgument otherwise). Constants return their
// literal; parameters have no value here and fail. Reduce and fusion
// evaluate their called computation.
absl::StatusOr<Literal> EvaluateInstruction(
    const HloInstruction& instruction,
    absl::Span<const Literal* const> operand_values);

}  // namespace mxla

#endif  // MXLA_INTERPRETER_HLO_EVALUATOR_H_
