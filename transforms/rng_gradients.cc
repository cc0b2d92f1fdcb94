// Gradient rule of rng: its numbers are fixed by its name (rng_expander.h),
// so the result is arithmetic of its scalar parameters on a fixed draw,
// x = a + (b - a) u (uniform) or x = mu + sigma z (normal), and they get
// the cotangent of that arithmetic, as JAX's uniform and normal samplers
// do for minval, maxval, a location and a scale. The draw is read back from
// the result (u = (x - a) / (b - a), z = (x - mu) / sigma), so the rule
// needs no second rng, whose name, and so numbers, would differ. Where the
// draw cannot be read back (b = a, sigma = 0) it is taken as 0: x then
// moves with a (mu) alone.
#include <cstdint>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/operators.h"
#include "ir/status_macros.h"
#include "transforms/gradient_rules_internal.h"

namespace mxla::gradient_rules {
namespace {

// (x - low) / span, 0 where span is 0.
XlaOp Draw(XlaOp x, XlaOp low, XlaOp span) {
  const Shape shape = ShapeOf(x);
  const XlaOp low_all = BroadcastInDim(low, shape.dimensions(), {});
  const XlaOp span_all = BroadcastInDim(span, shape.dimensions(), {});
  const XlaOp zero = Filled(x, 0);
  const XlaOp degenerate = Eq(span_all, zero);
  const XlaOp safe_span = Select(degenerate, Filled(x, 1), span_all);
  return Select(degenerate, zero, (x - low_all) / safe_span);
}

XlaOp SumAll(XlaOp value) {
  std::vector<int64_t> all(ShapeOf(value).rank());
  for (size_t d = 0; d < all.size(); ++d) all[d] = d;
  return SumOver(value, all);
}

}  // namespace

Result GradientRules::Handle(OpTag<Op::kRng>, const GradientContext& context) {
  ASSIGN_OR_RETURN(RandomDistribution distribution,
                   context.instruction.rng_distribution());
  const XlaOp first = context.operands[0];
  const XlaOp second = context.operands[1];
  const XlaOp x = context.result;
  const XlaOp ct = context.cotangent;
  if (distribution == RandomDistribution::kNormal) {
    // x = mu + sigma z.
    const XlaOp z = Draw(x, first, second);
    return OperandCotangents{SumAll(ct), SumAll(ct * z)};
  }
  // x = a + (b - a) u = a (1 - u) + b u.
  const XlaOp u = Draw(x, first, second - first);
  return OperandCotangents{SumAll(ct * (Filled(x, 1) - u)), SumAll(ct * u)};
}

}  // namespace mxla::gradient_rules
