// relu(x + b): a bias vector added to every row of a matrix (XLA's
// broadcast_dimensions={1}), then max with 0. Builds the computation, prints
// the HLO the builder recorded, compiles it with the JIT and runs it.
#include <iostream>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

int main() {
  using namespace mxla;
  using examples::OrDie;
  XlaBuilder b("bias_relu");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp bias = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "bias");
  XlaOp y = Max(Add(x, bias, /*broadcast_dimensions=*/{1}),
                ConstantR0<float>(&b, 0.0f));
  XlaComputation computation = OrDie(b.Build(y));
  std::cout << computation.ToString() << "\n";

  std::unique_ptr<Executable> executable = OrDie(Compile(computation));
  Literal xs = LiteralUtil::CreateR2<float>({{1, -2, 3}, {-4, 5, -6}});
  Literal biases = LiteralUtil::CreateR1<float>({0.5f, 1, -1});
  Literal out = OrDie(executable->Run({&xs, &biases}));
  std::cout << "relu(x + bias) = " << out.ToString() << "\n";
  return examples::Matches(out, {1.5f, 0, 2, 0, 6, 0}) ? 0 : 1;
}
