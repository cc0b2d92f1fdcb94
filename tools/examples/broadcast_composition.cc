// docs/broadcasting.md's composition example: |1 2 3 4| + [5 6] (a 1x2 matrix)
// with broadcast_dimensions={0}. The vector first becomes a 4x1 matrix
// (rank raise along dimension 0), then both size-1 dimensions stretch:
//   |1 2 3 4| + [5 6] = |6 7; 7 8; 8 9; 9 10|
// The example also shows the lowered HLO: the reshape + broadcast pair XLA's
// semantics define.
#include <iostream>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "driver/compile.h"
#include "tools/examples/example_util.h"

int main() {
  using namespace mxla;
  using examples::OrDie;
  XlaBuilder b("composition");
  XlaOp v = ConstantR1<float>(&b, {1, 2, 3, 4});
  XlaOp m = ConstantR2<float>(&b, {{5, 6}});
  XlaComputation computation =
      OrDie(b.Build(Add(v, m, /*broadcast_dimensions=*/{0})));

  CompileOptions lower_only;
  lower_only.backend = Backend::kInterpreter;
  lower_only.passes = std::vector<std::string>{"lower-broadcasts"};
  std::cout << OrDie(OptimizeForBackend(computation.module(), lower_only))
                   ->ToString()
            << "\n";

  std::unique_ptr<Executable> executable = OrDie(Compile(computation));
  Literal out = OrDie(executable->Run({}));
  std::cout << "|1 2 3 4| + [5 6] = " << out.ToString() << "\n";
  return examples::Matches(out, {6, 7, 7, 8, 8, 9, 9, 10}) ? 0 : 1;
}
