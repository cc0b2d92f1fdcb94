// Emitting a built computation's instructions into another builder, with
// the caller's ops in place of its parameters: what a jitted function
// called inside another, and a gradient's forward pass, are made of.
#ifndef MXLA_BUILDER_INLINE_COMPUTATION_H_
#define MXLA_BUILDER_INLINE_COMPUTATION_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "builder/xla_builder.h"
#include "ir/hlo_clone.h"
#include "ir/hlo_computation.h"

namespace mxla {

// Each instruction of an inlined computation and the op that holds its
// value in the builder.
using InlinedValues = absl::flat_hash_map<const HloInstruction*, XlaOp>;

// Adds every instruction of `computation` except its parameters to
// `builder` (each after its operands, with the same attributes and
// metadata; what they call is copied into the builder's module), with
// `arguments[i]` in place of parameter i. InvalidArgument, naming the
// parameter and both shapes, if the count or a shape differs; the
// builder's first error if it has one.
absl::StatusOr<InlinedValues> InlineComputation(
    XlaBuilder& builder, const HloComputation& computation,
    absl::Span<const XlaOp> arguments);

// The inlined root: the op that holds `computation`'s result.
absl::StatusOr<XlaOp> CallInline(XlaBuilder& builder,
                                 const XlaComputation& computation,
                                 absl::Span<const XlaOp> arguments);

// `computation`, which takes one tuple parameter of `elements` (a while
// loop's condition or body), as a computation of one parameter per
// element, named `name`.
absl::StatusOr<XlaComputation> ComputationOfElements(
    const HloComputation& computation, const std::vector<Shape>& elements,
    const std::string& name);

// Adds a copy of `instruction` (of any module) to `builder` with `shape`
// and `operands` in place of its own, after `adjust` changes its
// attributes (a transformation's new dimensions); what it calls is copied
// into the builder's module once per computation, recorded in `callees`.
// The caller answers for the shape and attributes agreeing: nothing is
// inferred. An operand of another builder records InvalidArgument.
XlaOp EmitCopyOf(XlaBuilder& builder, const HloInstruction& instruction,
                 const Shape& shape, absl::Span<const XlaOp> operands,
                 ComputationCloneMap& callees,
                 absl::FunctionRef<void(HloInstruction&)> adjust =
                     [](HloInstruction&) {});

}  // namespace mxla

#endif  // MXLA_BUILDER_INLINE_COMPUTATION_H_
