// sort, scatter and select-and-scatter in both backends against results
// computed independently of mxla: structured_oracle_table.inc, generated
// with NumPy and plain Python by gen_structured_oracle_table.py (its
// docstring lists XLA's rules it encodes). The JIT runs these ops through
// the interpreter's own loops (semantics/sort_rows.cc,
// scatter_elements.cc, select_and_scatter.cc) and compiles only the
// comparator or combiner, so comparing the backends with each other
// cannot find a misreading of XLA; this table can.
//
// Every input is a parameter (constant folding would run the evaluator in
// both backends). Results must match bit for bit, except where XLA leaves
// a choice: an element several scatter updates reach may hold any order's
// result (the table lists them), and a sort whose comparator is no strict
// weak order (FLOAT LT with NaNs) only has to permute its input.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_computation.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

struct Array {
  PrimitiveType type;
  std::vector<int64_t> dims;
  std::vector<uint64_t> bits;  // row-major, each element's bit pattern
};

struct Alternative {
  int64_t element;
  std::vector<uint64_t> bits;  // other results XLA allows there
};

struct Expected {
  PrimitiveType type;
  std::vector<int64_t> dims;
  std::vector<uint64_t> bits;
  std::vector<Alternative> also;
  bool any_order;  // only the multiset of elements is defined
};

struct Case {
  std::string name;
  std::string hlo;
  std::vector<Array> arguments;
  std::vector<Expected> results;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case>* cases = new std::vector<Case>{
#include "tests/e2e/structured_oracle_table.inc"
  };
  return *cases;
}

Literal FromBits(const Array& array) {
  Literal literal(ShapeUtil::MakeShape(array.type, array.dims));
  const int64_t width = primitive_util::ByteWidth(array.type);
  auto* data = static_cast<char*>(literal.untyped_data());
  for (size_t i = 0; i < array.bits.size(); ++i) {
    std::memcpy(data + i * width, &array.bits[i], width);  // little-endian
  }
  return literal;
}

std::vector<uint64_t> BitsOf(const Literal& literal) {
  const int64_t width =
      primitive_util::ByteWidth(literal.shape().element_type());
  const int64_t count = ShapeUtil::ElementsIn(literal.shape());
  std::vector<uint64_t> bits(count, 0);
  const auto* data = static_cast<const char*>(literal.untyped_data());
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(&bits[i], data + i * width, width);
  }
  return bits;
}

std::string Hex(uint64_t bits) { return absl::StrCat("0x", absl::Hex(bits)); }

// Checks the result leaves a backend returned against the table.
void ExpectResults(const char* backend, const Case& c, const Literal& result) {
  std::vector<const Literal*> leaves;
  if (result.shape().IsTuple()) {
    for (int64_t i = 0; i < static_cast<int64_t>(c.results.size()); ++i) {
      leaves.push_back(&result.tuple_element(i));
    }
  } else {
    leaves.push_back(&result);
  }
  ASSERT_EQ(leaves.size(), c.results.size()) << backend;
  for (size_t k = 0; k < leaves.size(); ++k) {
    const Expected& expected = c.results[k];
    const Shape& shape = leaves[k]->shape();
    ASSERT_EQ(shape.element_type(), expected.type) << backend << " leaf " << k;
    ASSERT_EQ(std::vector<int64_t>(shape.dimensions().begin(),
                                   shape.dimensions().end()),
              expected.dims)
        << backend << " leaf " << k;
    std::vector<uint64_t> actual = BitsOf(*leaves[k]);
    if (expected.any_order) {
      std::vector<uint64_t> want = expected.bits;
      std::sort(actual.begin(), actual.end());
      std::sort(want.begin(), want.end());
      EXPECT_EQ(actual, want)
          << backend << " leaf " << k << ": not a permutation of the input";
      continue;
    }
    int failures = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
      if (actual[i] == expected.bits[i]) continue;
      std::vector<uint64_t> allowed = {expected.bits[i]};
      for (const Alternative& alternative : expected.also) {
        if (alternative.element != static_cast<int64_t>(i)) continue;
        allowed.insert(allowed.end(), alternative.bits.begin(),
                       alternative.bits.end());
      }
      if (std::find(allowed.begin(), allowed.end(), actual[i]) !=
          allowed.end()) {
        continue;
      }
      ADD_FAILURE() << backend << " leaf " << k << " element " << i
                    << ": expected "
                    << absl::StrJoin(allowed, " or ",
                                     [](std::string* out, uint64_t bits) {
                                       out->append(Hex(bits));
                                     })
                    << ", got " << Hex(actual[i]);
      if (++failures == 10) break;
    }
  }
}

TEST(StructuredOracleTest, CoversTheCasesTheIssueNames) {
  int sorts = 0, scatters = 0, select_and_scatters = 0, choices = 0;
  int unstable = 0, permutations = 0;
  for (const Case& c : Cases()) {
    sorts += absl::StartsWith(c.name, "sort/");
    scatters += absl::StartsWith(c.name, "scatter/");
    select_and_scatters += absl::StartsWith(c.name, "select-and-scatter/");
    unstable += absl::StartsWith(c.name, "sort/") &&
                !absl::StrContains(c.hlo, "is_stable=true");
    for (const Expected& e : c.results) {
      choices += !e.also.empty();
      permutations += e.any_order;
    }
  }
  EXPECT_GE(sorts, 20);
  EXPECT_GE(scatters, 20);
  EXPECT_GE(select_and_scatters, 10);
  EXPECT_GE(unstable, 2);       // distinct keys only
  EXPECT_GE(choices, 4);        // duplicate indices, non-commutative
  EXPECT_GE(permutations, 1);   // NaN under FLOAT LT
}

TEST(StructuredOracleTest, InterpreterAndJitGiveXlasResults) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(c.hlo));
    // The inputs reach the op as parameters: nothing to fold.
    ASSERT_EQ(module->entry_computation()->num_parameters(),
              static_cast<int64_t>(c.arguments.size()));
    std::vector<Literal> arguments;
    for (const Array& array : c.arguments) arguments.push_back(FromBits(array));
    std::vector<const Literal*> pointers;
    for (const Literal& argument : arguments) pointers.push_back(&argument);
    for (Backend backend : {Backend::kInterpreter, Backend::kJit}) {
      CompileOptions options;
      options.backend = backend;
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<Executable> executable,
                           Compile(*module, options));
      ASSERT_OK_AND_ASSIGN(Literal result, executable->Run(pointers));
      ExpectResults(std::string(BackendName(backend)).c_str(), c, result);
    }
  }
}

}  // namespace
}  // namespace mxla
