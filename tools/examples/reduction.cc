// Reductions: column sums (dimension 0) and row maxima (dimension 1) of the
// same matrix, returned together as a tuple.
#include <iostream>

#include "builder/arithmetic.h"
#include "builder/xla_builder.h"
#include "driver/client.h"
#include "tools/examples/example_util.h"

int main() {
  using namespace mxla;
  using examples::OrDie;
  XlaBuilder b("reduction");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3, 4}), "x");
  XlaOp column_sums = Reduce(x, ConstantR0<float>(&b, 0.0f),
                             CreateScalarAddComputation(F32, &b), {0});
  XlaOp row_maxima = Reduce(x, ConstantR0<float>(&b, -INFINITY),
                            CreateScalarMaxComputation(F32, &b), {1});
  XlaComputation computation =
      OrDie(b.Build(Tuple(&b, {column_sums, row_maxima})));

  std::unique_ptr<Executable> executable = OrDie(Compile(computation));
  Literal xs = LiteralUtil::CreateR2<float>(
      {{1, 2, 3, 4}, {5, -6, 7, 8}, {-9, 10, 11, -12}});
  Literal out = OrDie(executable->Run({&xs}));
  std::cout << "column sums = " << out.tuple_element(0).ToString()
            << "\nrow maxima = " << out.tuple_element(1).ToString() << "\n";
  return examples::Matches(out.tuple_element(0), {-3, 6, 21, 0}) &&
                 examples::Matches(out.tuple_element(1), {4, 8, 11})
             ? 0
             : 1;
}
