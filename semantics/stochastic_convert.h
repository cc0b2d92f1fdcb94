// stochastic-convert(x, random) to a signed integer type R, as XLA's
// decomposition defines it (XLA leaves other result types unimplemented):
//
//   t = floor(|x|), f = |x| - t (exact), u = f * 2^bits(random) truncated
//   into the random type (exact: f < 1 has at most the type's precision);
//   r = R(t) + (random < u ? 1 : 0), negated for x < 0; then R's minimum
//   where x <= R(min) and its maximum where x >= R(max), both as the
//   operand type. NaN gives 0; R(t) saturates.
//
// So |x|'s fraction rounds up with probability f for uniform random bits.
// The interpreter evaluates this here; the JIT's
// expand-stochastic-converts builds the same from HLO ops.
#ifndef MXLA_SEMANTICS_STOCHASTIC_CONVERT_H_
#define MXLA_SEMANTICS_STOCHASTIC_CONVERT_H_

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace mxla::semantics {

absl::StatusOr<Literal> StochasticConvert(const Literal& operand,
                                          const Literal& random,
                                          PrimitiveType new_type);

}  // namespace mxla::semantics

#endif  // MXLA_SEMANTICS_STOCHASTIC_CONVERT_H_
