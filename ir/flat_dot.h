// A dot as one batched matrix product: its batch, lhs-free (m), rhs-free
// (n) and contracting (k) dimension groups, each flattened row-major in
// order (the contracting ones in the order lhs_contracting lists them).
// The dot's result is then batch x m x n row-major, exactly: its dimensions
// are the batch ones, lhs's free ones, then rhs's free ones.
#ifndef MXLA_IR_FLAT_DOT_H_
#define MXLA_IR_FLAT_DOT_H_

#include <cstdint>
#include <vector>

#include "ir/dot_dimension_numbers.h"
#include "ir/shape.h"

namespace mxla {

struct FlatDot {
  DotDimensionNumbers dnums;
  std::vector<int64_t> lhs_free, rhs_free;  // dimension numbers
  int64_t batch = 1, m = 1, n = 1, k = 1;
};

inline FlatDot FlattenDot(const Shape& lhs, const Shape& rhs,
                          const DotDimensionNumbers& dnums) {
  FlatDot flat;
  flat.dnums = dnums;
  flat.lhs_free =
      DotFreeDimensions(lhs.rank(), dnums.lhs_batch, dnums.lhs_contracting);
  flat.rhs_free =
      DotFreeDimensions(rhs.rank(), dnums.rhs_batch, dnums.rhs_contracting);
  for (int64_t d : dnums.lhs_batch) flat.batch *= lhs.dimensions(d);
  for (int64_t d : flat.lhs_free) flat.m *= lhs.dimensions(d);
  for (int64_t d : flat.rhs_free) flat.n *= rhs.dimensions(d);
  for (int64_t d : dnums.lhs_contracting) flat.k *= lhs.dimensions(d);
  return flat;
}

}  // namespace mxla

#endif  // MXLA_IR_FLAT_DOT_H_
