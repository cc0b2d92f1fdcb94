// The built-in examples that `mxla demo` walks through the pipeline: every
// example of the broadcasting document (../shared/broadcasting.md) plus a few
// small kernels. Each carries its builder code as text, the inputs, and the
// result the document prints, so tests can hold the demo to the document.
#ifndef MXLA_TOOLS_DEMO_EXAMPLES_H_
#define MXLA_TOOLS_DEMO_EXAMPLES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"

namespace mxla::tools {

struct DemoExample {
  std::string name;         // "matrix_plus_vector"
  std::string title;        // one line for humans
  std::string code;         // the builder calls, as shown to the user
  std::function<absl::StatusOr<XlaComputation>()> build;
  std::vector<Literal> inputs;          // one per parameter
  std::optional<Literal> expected;      // the document's result, if it has one
};

const std::vector<DemoExample>& DemoExamples();

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_DEMO_EXAMPLES_H_
