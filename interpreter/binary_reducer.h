// A reducer computation that is one binary op on its two scalar
// parameters (the sums, products, maxima and minima of reduce and
// all-reduce): the interpreter then combines elements with a typed loop
// over the scalar semantics (semantics/scalar_semantics.h) instead of
// evaluating the computation once per element on scalar literals, which
// allocates for every element. Both give the same bits: the same op on the
// same values in the same order.
#ifndef MXLA_INTERPRETER_BINARY_REDUCER_H_
#define MXLA_INTERPRETER_BINARY_REDUCER_H_

#include <optional>
#include <type_traits>

#include "ir/hlo_computation.h"
#include "ir/hlo_opcode.h"
#include "ir/narrow_float.h"
#include "ir/primitive_type.h"
#include "semantics/scalar_semantics.h"

namespace mxla::hlo_evaluator_internal {

struct BinaryReducer {
  HloOpcode opcode;
  // The root is op(parameter 1, parameter 0): op(element, accumulator).
  bool swapped = false;
};

// The one op of `reducer` when its root is a binary op whose operands are
// its parameters 0 and 1 (either order), all scalars of `type`; nullopt
// for anything else, including an unverified reducer without a root.
std::optional<BinaryReducer> AsBinaryReducer(const HloComputation& reducer,
                                             PrimitiveType type);

// Calls fn(op), op(accumulator, element) -> T being `reducer` with its
// parameter 0 the accumulator and 1 the element, on elements of type T:
// narrow floats computed in f32 and rounded back, as ApplyBinaryOp does
// for each pair. False, without calling fn, where the op has no typed form
// for T.
template <typename T, typename Fn>
bool WithReducerOp(const BinaryReducer& reducer, Fn&& fn) {
  using Wide = std::conditional_t<kIsNarrowFloat<T>, float, T>;
  return semantics::WithBinaryOp<Wide>(reducer.opcode, [&](auto wide) {
    auto apply = [&](T a, T b) -> T {
      if constexpr (kIsNarrowFloat<T>) {
        return semantics::Convert<T>(
            wide(semantics::Convert<float>(a), semantics::Convert<float>(b)));
      } else {
        return wide(a, b);
      }
    };
    const bool swapped = reducer.swapped;
    fn([&](T accumulator, T element) -> T {
      return swapped ? apply(element, accumulator) : apply(accumulator, element);
    });
  });
}

// A select computation that is one compare of its two scalar parameters
// (max-pool's ge), in either order.
struct BinarySelect {
  ComparisonDirection direction;
  bool total_order = false;
  bool swapped = false;  // compare(parameter 1, parameter 0)
};
std::optional<BinarySelect> AsBinarySelect(const HloComputation& select,
                                           PrimitiveType type);

// Calls fn(keep), keep(selected, candidate) -> bool being `select` on
// elements of type T as ApplyCompare computes it (narrow floats widened,
// floats by their total order where the compare says so). False, without
// calling fn, for types without a typed compare (sub-byte integers).
template <typename T, typename Fn>
bool WithSelect(const BinarySelect& select, Fn&& fn) {
  using Wide = std::conditional_t<kIsNarrowFloat<T>, float, T>;
  if constexpr (!semantics::Element<Wide>) {
    return false;
  } else {
    auto compare = [&](Wide a, Wide b) {
      if constexpr (semantics::Float<Wide>) {
        if (select.total_order) {
          return semantics::Compare(select.direction,
                                    semantics::TotalOrderKey(a),
                                    semantics::TotalOrderKey(b));
        }
      }
      return semantics::Compare(select.direction, a, b);
    };
    auto widen = [](T x) -> Wide {
      if constexpr (kIsNarrowFloat<T>) {
        return semantics::Convert<float>(x);
      } else {
        return x;
      }
    };
    const bool swapped = select.swapped;
    fn([&](T selected, T candidate) -> bool {
      return swapped ? compare(widen(candidate), widen(selected))
                     : compare(widen(selected), widen(candidate));
    });
    return true;
  }
}

}  // namespace mxla::hlo_evaluator_internal

#endif  // MXLA_INTERPRETER_BINARY_REDUCER_H_
