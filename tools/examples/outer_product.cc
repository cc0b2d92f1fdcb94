// An outer product by degenerate broadcasting: a column (n,1) times a row
// (1,m) stretches both size-1 dimensions to give (n,m), as in XLA's
// "Broadcasting semantics". No broadcast_dimensions are needed: the ranks
// are equal.
#include <iostream>

#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

int main() {
  using namespace mxla;
  using examples::OrDie;
  XlaBuilder b("outer_product");
  XlaOp column = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3, 1}), "column");
  XlaOp row = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {1, 4}), "row");
  XlaComputation computation = OrDie(b.Build(Mul(column, row)));

  std::unique_ptr<Executable> executable = OrDie(Compile(computation));
  Literal c = LiteralUtil::CreateR2<float>({{1}, {2}, {3}});
  Literal r = LiteralUtil::CreateR2<float>({{1, 10, 100, 1000}});
  Literal out = OrDie(executable->Run({&c, &r}));
  std::cout << "column * row = " << out.ToString() << "\n";
  return examples::Matches(out, {1, 10, 100, 1000, 2, 20, 200, 2000, 3, 30,
                                 300, 3000})
             ? 0
             : 1;
}
