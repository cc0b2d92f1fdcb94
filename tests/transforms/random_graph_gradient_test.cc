// Gradients of seeded random graphs (tests/testlib/random_graph.h, f64,
// every op family it draws) against central differences: the sum of the
// graph's floating-point results, differentiated with respect to every
// parameter. Graphs that reach an op with no rule yet are refused by name
// and counted; most graphs must be checked. The arguments are drawn
// afresh, uniform in [-2, 2): the generator's own repeat its constants to
// make ties, and at a tie or kink differences measure neither one-sided
// slope (the rules' choices there are checked by hand in the other
// tests). reduce-precision passes its cotangent straight through
// (docs/autodiff.md) where differences see its steps, so graphs with it
// are left out.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "builder/inline_computation.h"
#include "builder/operators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "tests/testlib/gradient_check.h"
#include "tests/testlib/literal_pointers.h"
#include "tests/testlib/random_graph.h"
#include "transforms/autodiff.h"

namespace mxla {
namespace {

// sum over f's f64 results (each element of a tuple root), or nullopt if
// it has none.
std::optional<XlaComputation> SumOfResults(const XlaComputation& f) {
  const HloComputation& entry = *f.module().entry_computation();
  XlaBuilder b(absl::StrCat(f.name(), ".sum"));
  std::vector<XlaOp> parameters;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    parameters.push_back(Parameter(&b, i, entry.parameter_instruction(i)->shape(),
                                   absl::StrCat("p", i)));
  }
  absl::StatusOr<XlaOp> root = CallInline(b, f, parameters);
  if (!root.ok()) return std::nullopt;
  const Shape& shape = entry.root_instruction()->shape();
  std::vector<XlaOp> sums;
  auto add = [&](XlaOp value, const Shape& element) {
    if (element.IsArray() && element.element_type() == F64) {
      sums.push_back(testing::SumAll(value));
    }
  };
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
      add(GetTupleElement(*root, i), shape.tuple_shapes(i));
    }
  } else {
    add(*root, shape);
  }
  if (sums.empty()) return std::nullopt;
  XlaOp total = sums[0];
  for (size_t i = 1; i < sums.size(); ++i) total = total + sums[i];
  absl::StatusOr<XlaComputation> built = b.Build(total);
  if (!built.ok()) return std::nullopt;
  return *std::move(built);
}

double Evaluate(const XlaComputation& f, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> value = EvaluateModule(f.module(), testing::Pointers(args));
  return value.ok() ? value->data<double>()[0] : NAN;
}

// Whether every element of df/dx matches central differences (elements
// whose differences are not finite are skipped: a log at 0, a jump).
void ExpectMatchesDifferences(const XlaComputation& f, std::vector<Literal> args,
                              const std::vector<int64_t>& wrt,
                              const Literal& gradient, const std::string& what) {
  const double h = 1e-6;
  // The differences' own rounding: f's ulps over 2h.
  const double noise = 8e-16 * std::abs(Evaluate(f, args)) / (2 * h);
  for (size_t k = 0; k < wrt.size(); ++k) {
    const Literal& exact = gradient.tuple_element(k);
    for (int64_t i = 0; i < exact.element_count(); ++i) {
      const double numeric = testing::CentralDifference(f, args, wrt[k], i, h);
      if (!std::isfinite(numeric) || std::abs(numeric) > 1e6) continue;
      EXPECT_NEAR(exact.data<double>()[i], numeric,
                  1e-5 * (1 + std::abs(numeric)) + noise)
          << what << ": d/dp" << wrt[k] << "[" << i << "]";
    }
  }
}

TEST(RandomGraphGradientTest, GradientsOfRandomGraphsMatchDifferences) {
  RandomGraphOptions options;
  options.element_types = {F64};
  options.max_instructions = 10;
  options.allow_zero_sizes = false;
  int checked = 0, refused = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    absl::StatusOr<RandomGraph> graph = GenerateRandomGraph(seed, options);
    ASSERT_TRUE(graph.ok()) << graph.status();
    std::optional<XlaComputation> f = SumOfResults(graph->computation);
    if (!f.has_value()) continue;
    std::vector<int64_t> wrt;
    const HloComputation& entry = *f->module().entry_computation();
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      if (entry.parameter_instruction(i)->shape().element_type() == F64) wrt.push_back(i);
    }
    if (wrt.empty() ||
        graph->description.find("reduce-precision") != std::string::npos) {
      continue;
    }
    std::vector<Literal> args;
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      args.push_back(testing::RandomLiteral(entry.parameter_instruction(i)->shape(),
                                            seed * 16 + i));
    }
    if (!std::isfinite(Evaluate(*f, args))) continue;
    absl::StatusOr<XlaComputation> gradient = Gradient(*f, wrt);
    if (!gradient.ok()) {
      EXPECT_EQ(gradient.status().code(), absl::StatusCode::kUnimplemented)
          << graph->description << ": " << gradient.status();
      EXPECT_THAT(std::string(gradient.status().message()),
                  ::testing::HasSubstr("gradient: no rule for"));
      ++refused;
      continue;
    }
    absl::StatusOr<Literal> exact =
        EvaluateModule(gradient->module(), testing::Pointers(args));
    ASSERT_TRUE(exact.ok()) << graph->description << ": " << exact.status();
    ExpectMatchesDifferences(*f, std::move(args), wrt, *exact,
                             graph->description);
    ++checked;
  }
  EXPECT_GE(checked, 720) << refused << " refused";
  RecordProperty("checked", checked);
  RecordProperty("refused", refused);
}

}  // namespace
}  // namespace mxla
