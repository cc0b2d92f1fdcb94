// Softmax over the rows of a matrix: the row maximum and the row sum are
// reductions, broadcast back along dimension 0. The JIT runs the whole
// computation as one kernel that makes one pass per row (row fusion).
#include <cmath>
#include <iostream>
#include <vector>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

int main() {
  using namespace mxla;
  using examples::OrDie;
  XlaBuilder b("softmax");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 4}), "x");
  XlaOp row_max =
      Reduce(x, ConstantR0<float>(&b, -INFINITY),
             CreateScalarMaxComputation(F32, &b), /*dimensions_to_reduce=*/{1});
  XlaOp e = Exp(Sub(x, row_max, /*broadcast_dimensions=*/{0}));
  XlaOp row_sum = Reduce(e, ConstantR0<float>(&b, 0.0f),
                         CreateScalarAddComputation(F32, &b), {1});
  XlaOp softmax = Div(e, row_sum, /*broadcast_dimensions=*/{0});
  XlaComputation computation = OrDie(b.Build(softmax));

  std::unique_ptr<Executable> executable = OrDie(Compile(computation));
  Literal xs = LiteralUtil::CreateR2<float>({{1, 2, 3, 4}, {0, 0, 0, 100}});
  Literal out = OrDie(executable->Run({&xs}));
  std::cout << "softmax(x) = " << out.ToString() << "\n";

  std::vector<float> expected;
  for (const std::vector<float>& row :
       std::vector<std::vector<float>>{{1, 2, 3, 4}, {0, 0, 0, 100}}) {
    double sum = 0;
    for (float v : row) sum += std::exp(v - row.back());
    for (float v : row) expected.push_back(std::exp(v - row.back()) / sum);
  }
  return examples::Matches(out, expected, 1e-5f) ? 0 : 1;
}
