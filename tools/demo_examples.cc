#include "tools/demo_examples.h"

#include <numeric>

#include "interpreter/hlo_evaluator.h"
#include "ir/status_macros.h"
#include "tools/doc_figure.h"

namespace mxla::tools {
namespace {

Shape F32Shape(std::initializer_list<int64_t> dims) {
  return ShapeUtil::MakeShape(F32, dims);
}

// Values 1, 2, 3, ... in a literal of `dims`.
Literal Counting(std::initializer_list<int64_t> dims) {
  std::vector<float> values(ShapeUtil::ElementsIn(F32Shape(dims)));
  std::iota(values.begin(), values.end(), 1.0f);
  return LiteralUtil::CreateFromFlat<float>(dims, values);
}

// A binary example `op(x, y, broadcast_dimensions)` on two parameters.
DemoExample Binary(std::string name, std::string title, std::string code,
                   Literal x, Literal y, std::vector<int64_t> dims,
                   std::optional<Literal> expected) {
  Shape x_shape = x.shape();
  Shape y_shape = y.shape();
  DemoExample example =
      NamedExample(std::move(name), std::move(title), std::move(code));
  example.expected = std::move(expected);
  std::string builder_name = example.name;
  example.build = [builder_name, x_shape, y_shape, dims] {
    XlaBuilder b(builder_name);
    XlaOp x = Parameter(&b, 0, x_shape, "x");
    XlaOp y = Parameter(&b, 1, y_shape, "y");
    Add(x, y, dims);
    return b.Build();
  };
  example.inputs.push_back(std::move(x));
  example.inputs.push_back(std::move(y));
  return example;
}

// A term of a figure: an input as given, an input stretched to the result's
// shape (the broadcast the lowering inserts), the result, or an operator.
struct Term {
  enum Kind { kInput, kStretchedInput, kResult, kOperator } kind = kInput;
  int input = 0;
  DrawStyle style;
  std::string op;
  int line = 0;             // the operator's line, or
  bool every_line = false;  // on every line of the figure
};

Term MakeTerm(Term::Kind kind, int input, DrawStyle style) {
  Term term;
  term.kind = kind;
  term.input = input;
  term.style = style;
  return term;
}
Term In(int input, DrawStyle style = {}) {
  return MakeTerm(Term::kInput, input, style);
}
Term Stretched(int input, DrawStyle style = {}) {
  return MakeTerm(Term::kStretchedInput, input, style);
}
Term Out(DrawStyle style = {}) { return MakeTerm(Term::kResult, 0, style); }
Term Op(std::string op, int line = 0) {
  Term term = MakeTerm(Term::kOperator, 0, {});
  term.op = std::move(op);
  term.line = line;
  return term;
}
Term OpOnEveryLine(std::string op) {
  Term term = Op(std::move(op));
  term.every_line = true;
  return term;
}

// `value` broadcast to `shape` as the binary op's broadcast_dimensions say
// (identity for an operand of the result's rank), computed by the
// interpreter from a BroadcastInDim.
absl::StatusOr<Literal> StretchTo(const Literal& value, const Shape& shape,
                                  std::vector<int64_t> dims) {
  if (value.shape().rank() == shape.rank()) {
    dims.resize(shape.rank());
    std::iota(dims.begin(), dims.end(), 0);
  }
  XlaBuilder b("stretch");
  BroadcastInDim(Parameter(&b, 0, value.shape(), "value"), shape.dimensions(),
                 dims);
  ASSIGN_OR_RETURN(XlaComputation computation, b.Build());
  return EvaluateModule(computation.module(), {&value});
}

DocFigure Figure(std::string doc_text, std::vector<Term> terms,
                 std::vector<int64_t> dims = {}) {
  auto draw = [terms, dims](const std::vector<Literal>& inputs,
                            const Literal& result)
      -> absl::StatusOr<std::string> {
    std::vector<Block> blocks;
    size_t height = 0;
    for (const Term& term : terms) {
      Block block;
      if (term.kind == Term::kInput) {
        ASSIGN_OR_RETURN(block, DrawValue(inputs[term.input], term.style));
      } else if (term.kind == Term::kStretchedInput) {
        ASSIGN_OR_RETURN(Literal stretched,
                         StretchTo(inputs[term.input], result.shape(), dims));
        ASSIGN_OR_RETURN(block, DrawValue(stretched, term.style));
      } else if (term.kind == Term::kResult) {
        ASSIGN_OR_RETURN(block, DrawValue(result, term.style));
      }
      height = std::max(height, block.size());
      blocks.push_back(std::move(block));
    }
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].kind != Term::kOperator) continue;
      blocks[i] = terms[i].every_line
                      ? OperatorOnLines(terms[i].op, static_cast<int>(height))
                      : OperatorAt(terms[i].op, terms[i].line);
    }
    return DrawFigure(blocks);
  };
  return DocFigure{std::move(doc_text), std::move(draw)};
}

DemoExample* Find(std::vector<DemoExample>& examples, absl::string_view name) {
  for (DemoExample& example : examples) {
    if (example.name == name) return &example;
  }
  return nullptr;
}

// The figures of docs/broadcasting.md's section on lower ranks, copied from
// it with their indentation (tests/docs/check_docs.py checks they are there).
void AddLowerRankFigures(std::vector<DemoExample>& examples) {
  DrawStyle standing;
  standing.column = true;
  Find(examples, "matrix_plus_vector")->figures = {
      Figure(R"(
    |1 2 3| + |7 8 9|
    |4 5 6|
)",
             {In(0), Op(" + "), In(1)}),
      Figure(R"(
    |1 2 3| + |7 8 9| = |8  10 12|
    |4 5 6|   |7 8 9|   |11 13 15|
)",
             {In(0), Op(" + "), Stretched(1), Op(" = "), Out()}, {1}),
      Figure(R"(
    |7 8 9| ==> |7 8 9|
                |7 8 9|
)",
             {In(1), Op(" ==> "), Stretched(1)}, {1}),
  };
  Find(examples, "matrix_plus_scalar")->figures = {Figure(R"(
    |1 2 3| + 7 = |8  9  10|
    |4 5 6|       |11 12 13|
)",
                                                         {In(0), Op(" + "), In(1),
                                                          Op(" = "), Out()})};
  Find(examples, "vector_as_rows")->figures = {Figure(R"(
    |7 8 9| ==> |7 8 9|
                |7 8 9|
                |7 8 9|
)",
                                                     {In(1), Op(" ==> "), Out()})};
  Find(examples, "vector_as_columns")->figures = {
      Figure(R"(
     |7| ==> |7 7 7|
     |8|     |8 8 8|
     |9|     |9 9 9|
)",
             {In(1, standing), Op(" ==> "), Out()})};
}

// The figures of the composition section, likewise.
void AddCompositionFigures(std::vector<DemoExample>& examples) {
  DrawStyle right_aligned;
  right_aligned.align = Align::kRight;
  DrawStyle brackets;
  brackets.brackets = true;
  Find(examples, "composition_4_1x2")->figures = {
      Figure(R"(
    |1 1| + [5 6]
    |2 2|
    |3 3|
    |4 4|
)",
             {Stretched(0), Op(" + "), In(1, brackets)}, {0}),
      Figure(R"(
    |1 1| + |5 6|     |6  7|
    |2 2| + |5 6|  =  |7  8|
    |3 3| + |5 6|     |8  9|
    |4 4| + |5 6|     |9 10|
)",
             {Stretched(0), OpOnEveryLine(" + "), Stretched(1), Op("  =  ", 1),
              Out(right_aligned)},
             {0}),
  };
}

// "Broadcasting a lower-rank array onto a higher-rank array".
std::vector<DemoExample> LowerRankExamples() {
  std::vector<DemoExample> examples;
  examples.push_back(Binary(
      "matrix_plus_scalar", "|1 2 3; 4 5 6| + 7: a scalar needs no dimensions",
      "Add(x /*f32[2,3]*/, y /*f32[]*/)",
      LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}),
      LiteralUtil::CreateR0<float>(7), {},
      LiteralUtil::CreateR2<float>({{8, 9, 10}, {11, 12, 13}})));
  examples.push_back(Binary(
      "matrix_plus_vector", "X + v: v matched to dimension 1 of X",
      "Add(x /*f32[2,3]*/, y /*f32[3]*/, /*broadcast_dimensions=*/{1})",
      LiteralUtil::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}),
      LiteralUtil::CreateR1<float>({7, 8, 9}), {1},
      LiteralUtil::CreateR2<float>({{8, 10, 12}, {11, 13, 15}})));
  examples.push_back(Binary(
      "vector_as_rows", "3x3 + |7 8 9| on dimension 1: v becomes every row",
      "Add(x /*f32[3,3] zeros*/, y /*f32[3]*/, {1})",
      Literal(F32Shape({3, 3})), LiteralUtil::CreateR1<float>({7, 8, 9}), {1},
      LiteralUtil::CreateR2<float>({{7, 8, 9}, {7, 8, 9}, {7, 8, 9}})));
  examples.push_back(Binary(
      "vector_as_columns",
      "3x3 + |7 8 9| on dimension 0: v becomes every column",
      "Add(x /*f32[3,3] zeros*/, y /*f32[3]*/, {0})",
      Literal(F32Shape({3, 3})), LiteralUtil::CreateR1<float>({7, 8, 9}), {0},
      LiteralUtil::CreateR2<float>({{7, 7, 7}, {8, 8, 8}, {9, 9, 9}})));
  examples.push_back(Binary(
      "cuboid_plus_matrix", "2x3x4 cuboid + 3x4 matrix on dimensions (1,2)",
      "Add(x /*f32[2,3,4]*/, y /*f32[3,4]*/, {1, 2})", Counting({2, 3, 4}),
      Counting({3, 4}), {1, 2}, std::nullopt));
  AddLowerRankFigures(examples);
  return examples;
}

// "Broadcasting similar-rank arrays with degenerate dimensions".
std::vector<DemoExample> DegenerateExamples() {
  std::vector<DemoExample> examples;
  examples.push_back(Binary(
      "degenerate_2x1_2x3", "(2,1) and (2,3) broadcast to (2,3)",
      "Add(x /*f32[2,1]*/, y /*f32[2,3]*/)", Counting({2, 1}),
      Counting({2, 3}), {}, std::nullopt));
  examples.push_back(Binary(
      "degenerate_1x2x5_7x2x5", "(1,2,5) and (7,2,5) broadcast to (7,2,5)",
      "Add(x /*f32[1,2,5]*/, y /*f32[7,2,5]*/)", Counting({1, 2, 5}),
      Counting({7, 2, 5}), {}, std::nullopt));
  examples.push_back(Binary(
      "degenerate_7x2x5_7x1x5", "(7,2,5) and (7,1,5) broadcast to (7,2,5)",
      "Add(x /*f32[7,2,5]*/, y /*f32[7,1,5]*/)", Counting({7, 2, 5}),
      Counting({7, 1, 5}), {}, std::nullopt));
  examples.push_back(Binary(
      "outer_2x1_1x3", "outer operation: (2,1) and (1,3) broadcast to (2,3)",
      "Add(x /*f32[2,1]*/, y /*f32[1,3]*/)",
      LiteralUtil::CreateR2<float>({{1}, {2}}),
      LiteralUtil::CreateR2<float>({{10, 20, 30}}), {},
      LiteralUtil::CreateR2<float>({{11, 21, 31}, {12, 22, 32}})));
  return examples;
}

// "Broadcast composition".
std::vector<DemoExample> CompositionExamples() {
  std::vector<DemoExample> examples;
  examples.push_back(Binary(
      "composition_4_1x2",
      "|1 2 3 4| + [5 6] (a 1x2 matrix) on dimension 0: rank raise, then "
      "degenerate broadcast",
      "Add(x /*f32[4]*/, y /*f32[1,2]*/, {0})",
      LiteralUtil::CreateR1<float>({1, 2, 3, 4}),
      LiteralUtil::CreateR2<float>({{5, 6}}), {0},
      LiteralUtil::CreateR2<float>({{6, 7}, {7, 8}, {8, 9}, {9, 10}})));
  examples.push_back(Binary(
      "composition_1x2_4x3x1",
      "1x2 matrix + 4x3x1 array on dimensions (1,2): both operands stretch",
      "Add(x /*f32[1,2]*/, y /*f32[4,3,1]*/, {1, 2})", Counting({1, 2}),
      Counting({4, 3, 1}), {1, 2}, std::nullopt));
  AddCompositionFigures(examples);
  return examples;
}

// The document's sections in its order, then the kernels.
std::vector<DemoExample> MakeExamples() {
  std::vector<DemoExample> examples;
  for (auto* section : {&LowerRankExamples, &DegenerateExamples,
                        &CompositionExamples, &MakeKernelExamples}) {
    for (DemoExample& example : section()) {
      examples.push_back(std::move(example));
    }
  }
  return examples;
}

}  // namespace

DemoExample NamedExample(std::string name, std::string title,
                         std::string code) {
  DemoExample example;
  example.name = std::move(name);
  example.title = std::move(title);
  example.code = std::move(code);
  return example;
}

const std::vector<DemoExample>& DemoExamples() {
  static const auto* const kExamples =
      new std::vector<DemoExample>(MakeExamples());
  return *kExamples;
}

}  // namespace mxla::tools
