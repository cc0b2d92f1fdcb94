// The built-in examples that `mxla demo` walks through the pipeline: every
// example of the broadcasting document (docs/broadcasting.md) plus a few
// real kernels (bias + relu, softmax, layer normalization). Each carries its
// builder code as text, the inputs, the result the document prints and the
// document's figures, so tests can hold the demo to the document.
#ifndef MXLA_TOOLS_DEMO_EXAMPLES_H_
#define MXLA_TOOLS_DEMO_EXAMPLES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "builder/xla_builder.h"

namespace mxla::tools {

// One of docs/broadcasting.md's figures, e.g. `|1 2 3| + 7 = |8  9  10|` over
// two lines, and how to draw it from the example's inputs and result.
struct DocFigure {
  std::string doc_text;  // as the document has it (indentation aside)
  std::function<absl::StatusOr<std::string>(const std::vector<Literal>& inputs,
                                            const Literal& result)>
      draw;
};

struct DemoExample {
  std::string name;         // "matrix_plus_vector"
  std::string title;        // one line for humans
  std::string code;         // the builder calls, as shown to the user
  std::function<absl::StatusOr<XlaComputation>()> build;
  std::vector<Literal> inputs;          // one per parameter
  std::optional<Literal> expected;      // the document's result, if it has one
  std::vector<DocFigure> figures;       // the document's figures, if any
  // 0: the jit must match the interpreter bit for bit. Kernels whose float
  // reductions the jit may reassociate (docs/numerics.md) allow this much
  // absolute and relative difference.
  double tolerance = 0;
};

// An example with its name, title and code set; the rest is the caller's.
DemoExample NamedExample(std::string name, std::string title,
                         std::string code);

// The document's examples first, then the kernels.
const std::vector<DemoExample>& DemoExamples();

// The kernels alone (tools/demo_kernels.cc).
std::vector<DemoExample> MakeKernelExamples();

}  // namespace mxla::tools

#endif  // MXLA_TOOLS_DEMO_EXAMPLES_H_
