// The options fusion plans depend on, defined once: fusion planning
// (passes/fusion_planning.h) decides with them, and CodegenOptions
// (codegen/codegen_options.h) extends them, so a jit compile plans with the
// very values its emitters use.
#ifndef MXLA_IR_FUSION_PLAN_OPTIONS_H_
#define MXLA_IR_FUSION_PLAN_OPTIONS_H_

#include <cstdint>

namespace mxla {

struct FusionPlanningOptions {
  // Lets plain float add reducers (root = add of the two parameters, one
  // output; no other reducer, variadic or compensated, and never multiply,
  // whose partial products overflow where the sequential ones do not) be
  // reassociated: reductions over a contiguous dimension use vector
  // accumulators, and reductions to few outputs sum fixed chunks in
  // parallel. Results then differ from the interpreter's sequential order by
  // rounding only, and never depend on the thread count (see
  // docs/numerics.md); off gives the interpreter's bits exactly.
  bool reassociate_reductions = true;
  // Loop and row fusions whose result (an entry result) has at least this
  // many bytes store it with non-temporal stores of the host's vector width
  // (codegen/streaming_store_emitter.h), which skip reading the lines they
  // overwrite, whatever the row length; 0 turns them off.
  int64_t streaming_store_min_bytes = int64_t{8} << 20;

  bool operator==(const FusionPlanningOptions&) const = default;
};

}  // namespace mxla

#endif  // MXLA_IR_FUSION_PLAN_OPTIONS_H_
