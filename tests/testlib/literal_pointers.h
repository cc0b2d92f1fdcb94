// The argument form Run/EvaluateModule take, from literals a test owns.
#ifndef MXLA_TESTS_TESTLIB_LITERAL_POINTERS_H_
#define MXLA_TESTS_TESTLIB_LITERAL_POINTERS_H_

#include <vector>

#include "ir/literal.h"

namespace mxla::testing {

inline std::vector<const Literal*> Pointers(
    const std::vector<Literal>& literals) {
  std::vector<const Literal*> pointers;
  for (const Literal& literal : literals) pointers.push_back(&literal);
  return pointers;
}

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_LITERAL_POINTERS_H_
