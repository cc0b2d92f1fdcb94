#include "tests/testlib/batching_check.h"

#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/hlo_evaluator.h"
#include "ir/primitive_type.h"
#include "tests/testlib/hlo_test_base.h"
#include "tests/testlib/literal_pointers.h"
#include "transforms/batching.h"

namespace mxla::testing {
namespace {

int64_t ElementBytes(const Literal& literal) {
  return literal.element_count() == 0
             ? 0
             : literal.size_bytes() / literal.element_count();
}

// Each element's index, row-major, advanced in place; false past the end.
bool Next(std::vector<int64_t>& index, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

int64_t Linear(absl::Span<const int64_t> index,
               absl::Span<const int64_t> dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

void ExpectClose(const Literal& got, const Literal& want, double tolerance,
                 const std::string& where) {
  ASSERT_EQ(got.shape(), want.shape()) << where;
  const PrimitiveType type = got.shape().element_type();
  if (type != F64 && type != F32) {
    EXPECT_TRUE(got == want) << where;
    return;
  }
  for (int64_t k = 0; k < got.element_count(); ++k) {
    const double g = type == F64 ? got.data<double>()[k] : got.data<float>()[k];
    const double w =
        type == F64 ? want.data<double>()[k] : want.data<float>()[k];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << where << ", index " << k;
      continue;
    }
    EXPECT_NEAR(g, w, tolerance * (1 + std::abs(w)))
        << where << ", index " << k;
  }
}

}  // namespace

XlaComputation Build(
    const std::string& name, const std::vector<Shape>& shapes,
    const std::function<void(XlaBuilder&, const std::vector<XlaOp>&)>& body) {
  XlaBuilder b(name);
  std::vector<XlaOp> p;
  for (size_t i = 0; i < shapes.size(); ++i) {
    p.push_back(Parameter(&b, i, shapes[i], absl::StrCat("p", i)));
  }
  body(b, p);
  absl::StatusOr<XlaComputation> f = b.Build();
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

Literal RandomBytesLiteral(const Shape& shape, uint64_t seed) {
  Literal literal(shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-2, 2);
  if (shape.element_type() == F64) {
    for (double& x : literal.data<double>()) x = value(rng);
  } else if (shape.element_type() == F32) {
    for (float& x : literal.data<float>()) x = static_cast<float>(value(rng));
  } else {
    auto* bytes = static_cast<unsigned char*>(literal.untyped_data());
    for (int64_t i = 0; i < literal.size_bytes(); ++i) bytes[i] = rng() & 0xff;
  }
  return literal;
}

Literal SliceAt(const Literal& batched, int64_t dimension, int64_t b) {
  const absl::Span<const int64_t> all = batched.shape().dimensions();
  std::vector<int64_t> dims(all.begin(), all.end());
  dims.erase(dims.begin() + dimension);
  Literal slice(ShapeUtil::MakeShape(batched.shape().element_type(), dims));
  const int64_t bytes = ElementBytes(batched);
  if (slice.element_count() == 0) return slice;
  std::vector<int64_t> index(dims.size(), 0);
  do {
    std::vector<int64_t> full = index;
    full.insert(full.begin() + dimension, b);
    std::memcpy(
        static_cast<char*>(slice.untyped_data()) + Linear(index, dims) * bytes,
        static_cast<const char*>(batched.untyped_data()) +
            Linear(full, all) * bytes,
        bytes);
  } while (Next(index, dims));
  return slice;
}

void ExpectBatchMatchesLoop(const XlaComputation& f, const BatchDims& in_dims,
                            const BatchCheck& check) {
  SCOPED_TRACE(f.name());
  const HloComputation& entry = *f.module().entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Shape& shape = entry.parameter_instruction(i)->shape();
    std::vector<int64_t> dims(shape.dimensions().begin(),
                              shape.dimensions().end());
    if (in_dims[i]) dims.insert(dims.begin() + *in_dims[i], check.size);
    args.push_back(RandomBytesLiteral(
        ShapeUtil::MakeShape(shape.element_type(), dims), check.seed + i));
  }
  absl::StatusOr<XlaComputation> batched = Batch(f, in_dims, check.size);
  ASSERT_TRUE(batched.ok()) << batched.status();
  absl::StatusOr<Literal> all =
      EvaluateModule(batched->module(), Pointers(args));
  ASSERT_TRUE(all.ok()) << all.status();
  for (int64_t b = 0; b < check.size; ++b) {
    std::vector<Literal> one;
    for (size_t i = 0; i < args.size(); ++i) {
      one.push_back(in_dims[i] ? SliceAt(args[i], *in_dims[i], b)
                               : Literal(args[i]));
    }
    absl::StatusOr<Literal> want = EvaluateModule(f.module(), Pointers(one));
    ASSERT_TRUE(want.ok()) << want.status();
    const bool tuple = want->shape().IsTuple();
    for (int64_t e = 0; e < (tuple ? want->tuple_size() : 1); ++e) {
      ExpectClose(SliceAt(tuple ? all->tuple_element(e) : *all, 0, b),
                  tuple ? want->tuple_element(e) : *want, check.tolerance,
                  absl::StrCat("element ", e, " of batch ", b));
    }
  }
  RunAndCompareOptions options;
  options.error = ErrorSpec{check.tolerance, check.tolerance};
  EXPECT_TRUE(RunAndCompare(batched->module(), Pointers(args), options));
}

}  // namespace mxla::testing
