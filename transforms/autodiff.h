// Reverse-mode automatic differentiation of built computations: the
// gradient and the vector-Jacobian product (JAX's grad, value_and_grad
// and vjp) as new computations, written with the per-op rules of
// transforms/gradient_rules.h. XlaBuilder never had this.
//
//   XlaComputation loss = ...;                        // f32[] of (w, x)
//   XlaComputation grad = *Gradient(loss, {0});       // (dloss/dw)
//   XlaComputation both = *ValueAndGradient(loss, {0});  // (loss, dloss/dw)
//
// Cotangents flow only through floating-point values; an index, a
// predicate or a constant has none. Where a derivative does not exist the
// rules choose as JAX does (docs/autodiff.md). A computation whose result
// depends on a wrt parameter through an op without a rule yet is refused
// with Unimplemented naming the op; ops that do not lie on such a path
// need no rule. The results are ordinary computations: compile them, or
// differentiate them again (higher-order gradients).
#ifndef MXLA_TRANSFORMS_AUTODIFF_H_
#define MXLA_TRANSFORMS_AUTODIFF_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "builder/xla_builder.h"

namespace mxla {

struct VjpOps {
  XlaOp value;                      // f(arguments)
  std::vector<XlaOp> cotangents;    // one per wrt entry, in its order
};

// In `builder`: `f` applied to `arguments` (inlined) and the cotangents of
// the arguments numbered in `wrt`, given `result_cotangent` (the shape of
// f's result). InvalidArgument if an argument count or shape is wrong, a
// wrt number is out of range or repeated, or names a parameter that is not
// a floating-point array; Unimplemented for a tuple result (see the
// EmitTupleVjp) or an op with no rule on the way.
absl::StatusOr<VjpOps> EmitVjp(XlaBuilder& builder, const XlaComputation& f,
                               absl::Span<const XlaOp> arguments,
                               XlaOp result_cotangent,
                               absl::Span<const int64_t> wrt);

// EmitVjp for an `f` whose result is a tuple of arrays (a tuple op's, or
// another tuple-shaped op's, as a sort of several operands): one cotangent per
// element, an invalid XlaOp for an element that gets none (an auxiliary
// output, an index). `value` is the whole tuple. InvalidArgument if the
// result is not a tuple or a count or shape differs.
absl::StatusOr<VjpOps> EmitTupleVjp(XlaBuilder& builder,
                                    const XlaComputation& f,
                                    absl::Span<const XlaOp> arguments,
                                    absl::Span<const XlaOp> element_cotangents,
                                    absl::Span<const int64_t> wrt);

// A computation of f's parameters and then the result's cotangent
// (parameter number n, for f's n parameters; for a tuple result, one per
// element from n on) that returns the tuple (f(x), cotangent of wrt[0],
// ...).
absl::StatusOr<XlaComputation> Vjp(const XlaComputation& f,
                                   absl::Span<const int64_t> wrt);

// For an `f` that returns a floating-point scalar (InvalidArgument
// otherwise): a computation of f's parameters that returns the tuple
// (f(x), df/dx[wrt[0]], ...).
absl::StatusOr<XlaComputation> ValueAndGradient(const XlaComputation& f,
                                                absl::Span<const int64_t> wrt);

// The same without the value: the tuple (df/dx[wrt[0]], ...).
absl::StatusOr<XlaComputation> Gradient(const XlaComputation& f,
                                        absl::Span<const int64_t> wrt);

}  // namespace mxla

#endif  // MXLA_TRANSFORMS_AUTODIFF_H_
