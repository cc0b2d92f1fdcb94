// The processes gloo_communicator_test launches: copies of the test binary
// that run one scenario as one device of a multi-process run.
//
//   <binary> --gloo_child=<scenario> <device> <devices> <directory> <run>
//            <timeout ms>
//
// Each copy connects through the store in <directory>, runs the scenario
// and writes its report to <directory>/report_<device>.txt: "OK" or
// "FAIL <status>" on the first line, then "key: value" lines the parent
// checks. It exits with 0 when the scenario went as it should, 1 when not,
// and a dying device exits with kDiedCode.
#ifndef MXLA_TESTS_DISTRIBUTED_GLOO_CHILD_H_
#define MXLA_TESTS_DISTRIBUTED_GLOO_CHILD_H_

namespace mxla::gloo_test {

inline constexpr char kChildFlag[] = "--gloo_child=";
inline constexpr int kDiedCode = 3;

// Runs the child named by argv; returns its exit code.
int ChildMain(int argc, char** argv);

}  // namespace mxla::gloo_test

#endif  // MXLA_TESTS_DISTRIBUTED_GLOO_CHILD_H_
