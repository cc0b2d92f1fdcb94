// Ahead-of-time compilation tests' harness: `mxla compile` writes an object
// and a header, a C program built with plain `cc` links the object with
// libc, libm and pthreads only (no mxla, no LLVM), and its results are
// compared with the interpreter's.
#ifndef MXLA_TESTS_TESTLIB_AOT_HARNESS_H_
#define MXLA_TESTS_TESTLIB_AOT_HARNESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/hlo_module.h"
#include "ir/literal.h"

namespace mxla::testing {

// Compiles `hlo` ahead of time as function `name` (with `mxla compile`
// `flags`), links it into a C program and checks its results against the
// interpreter's (within `tolerance`) on one thread and on `threads` through
// a pthread parallel_for; checks that the object needs no C++, mxla or
// LLVM symbol. A module with input_output_alias runs twice more with
// every aliased argument donated (its result buffer is the argument's);
// the runs that do not donate fail if an argument changed. Returns the
// (undonated) parallel run's stdout ("parallel_calls=N").
// Failures are gtest failures.
std::string ExpectMatchesInterpreter(const std::string& name,
                                     const std::string& hlo,
                                     const std::vector<Literal>& arguments,
                                     const std::string& flags = "",
                                     int threads = 2, double tolerance = 1e-4);

// Deterministic arguments for `entry`'s parameters, from `seed`: floats in
// [-1, 1), signed integers in [-8, 8], unsigned ones in [0, 16], booleans.
std::vector<Literal> SeededArguments(const HloComputation& entry,
                                     uint64_t seed = 1);

}  // namespace mxla::testing

#endif  // MXLA_TESTS_TESTLIB_AOT_HARNESS_H_
