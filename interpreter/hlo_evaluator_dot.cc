// dot in the interpreter: each result element sums, in the accumulation
// type (DotAccumulationType: the element type, f32 for f16 and bf16; s32
// or u32 for sub-byte integers, whose wrapped sums it then converts to),
// the products of its contracted pairs in row-major order of the lhs's
// contracting dimensions, starting from 0 (blocks of elements go through
// the pairs together, each element still in that order). That is the order and rounding
// of the reduce the JIT expands dot into (passes/dot_expander.h), so the
// two agree bit for bit when reductions are not reassociated.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "interpreter/hlo_evaluator_index_ops.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"
#include "semantics/scalar_semantics.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// The dimensions' sizes and the operand strides along them.
struct Walk {
  std::vector<int64_t> sizes, strides;
};

void Append(Walk& walk, const Shape& shape, absl::Span<const int64_t> dims) {
  const std::vector<int64_t> strides = ShapeUtil::RowMajorStrides(shape);
  for (int64_t d : dims) {
    walk.sizes.push_back(shape.dimensions(d));
    walk.strides.push_back(strides[d]);
  }
}

// Offsets of every index of `walk` in row-major order.
std::vector<int64_t> Offsets(const Walk& walk) {
  return StridedOffsets(walk.sizes, walk.strides);
}

// The type the interpreter computes a product of `lhs` and `rhs` into
// `result` in: the accumulation type, but 32 bits wide for a sub-byte
// integer one (s2, s4, u2, u4 have no C++ arithmetic here). Their sums and
// products wrap modulo 2^bits, so computing wide and converting the sum
// back gives the bits that wrapping at each step does.
PrimitiveType EvaluationType(PrimitiveType lhs, PrimitiveType rhs,
                             PrimitiveType result) {
  const PrimitiveType type = DotAccumulationType(lhs, rhs, result);
  if (!primitive_util::IsSubByteIntType(type)) return type;
  return primitive_util::IsSignedIntegralType(type) ? S32 : U32;
}

// Result elements [begin, end) as runs that read one lhs element and
// consecutive rhs elements (the rhs's free dimension is its minor one),
// each {first element, length}; a run of one where they do not.
std::vector<std::pair<int64_t, int64_t>> Runs(
    const std::vector<int64_t>& out_l, const std::vector<int64_t>& out_r,
    int64_t begin, int64_t end) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t i = begin; i < end; ++i) {
    if (!runs.empty()) {
      auto& [first, length] = runs.back();
      if (out_l[i] == out_l[first] && out_r[i] == out_r[first] + length) {
        ++length;
        continue;
      }
    }
    runs.push_back({i, 1});
  }
  return runs;
}

// Every result element sums its products over k in order from 0, as one
// element at a time would, but blocks of elements go through k together:
// k outermost, so each step reads runs of rhs along its rows (with one lhs
// element per run, a loop the compiler vectorizes) while the block's sums
// stay in cache. Walking k per element read rhs a column at a time, at
// about 1 G products a second.
template <typename T>
void SumBlocks(const T* a, const T* b, const std::vector<int64_t>& out_l,
               const std::vector<int64_t>& out_r,
               const std::vector<int64_t>& k_l,
               const std::vector<int64_t>& k_r, T* out) {
  constexpr int64_t kBlock = 2048;
  const int64_t count = static_cast<int64_t>(out_l.size());
  const int64_t steps = static_cast<int64_t>(k_l.size());
  for (int64_t begin = 0; begin < count; begin += kBlock) {
    const int64_t end = std::min(count, begin + kBlock);
    T* sums = out + begin;
    std::fill(sums, out + end, T{});
    const std::vector<std::pair<int64_t, int64_t>> runs =
        Runs(out_l, out_r, begin, end);
    for (int64_t k = 0; k < steps; ++k) {
      for (const auto& [first, length] : runs) {
        const T lhs = a[out_l[first] + k_l[k]];
        const T* rhs = b + out_r[first] + k_r[k];
        T* run = out + first;
        for (int64_t j = 0; j < length; ++j) {
          run[j] = semantics::Add(run[j], semantics::Mul(lhs, rhs[j]));
        }
      }
    }
  }
}

}  // namespace

bool NeedsAccumulationType(const Literal& lhs, const Literal& rhs,
                           const Shape& shape) {
  const PrimitiveType type = shape.element_type();
  return lhs.shape().element_type() != type ||
         rhs.shape().element_type() != type ||
         EvaluationType(type, type, type) != type;
}

absl::StatusOr<Literal> InAccumulationType(
    const Literal& lhs, const Literal& rhs, const Shape& shape,
    absl::FunctionRef<absl::StatusOr<Literal>(const Literal&, const Literal&,
                                              const Shape&)>
        compute) {
  const PrimitiveType accumulate = EvaluationType(
      lhs.shape().element_type(), rhs.shape().element_type(),
      shape.element_type());
  ASSIGN_OR_RETURN(Literal wide_lhs, semantics::ApplyConvert(lhs, accumulate));
  ASSIGN_OR_RETURN(Literal wide_rhs, semantics::ApplyConvert(rhs, accumulate));
  ASSIGN_OR_RETURN(
      Literal result,
      compute(wide_lhs, wide_rhs, ShapeUtil::ChangeElementType(shape, accumulate)));
  return semantics::ApplyConvert(result, shape.element_type());
}

absl::StatusOr<Literal> EvaluateDot(const Literal& lhs, const Literal& rhs,
                                    const DotDimensionNumbers& dnums,
                                    const Shape& shape) {
  RET_CHECK(lhs.shape().IsArray() && rhs.shape().IsArray() &&
                shape.IsArray(),
            "dot of ", lhs.shape().ToString(), " and ",
            rhs.shape().ToString());
  // Mixed or 16-bit float types: in the accumulation type, then converted.
  if (NeedsAccumulationType(lhs, rhs, shape)) {
    return InAccumulationType(
        lhs, rhs, shape,
        [&](const Literal& a, const Literal& b, const Shape& wide) {
          return EvaluateDot(a, b, dnums, wide);
        });
  }
  const Shape& l = lhs.shape();
  const Shape& r = rhs.shape();
  // Result dimensions: batch, lhs free, rhs free. Per result element, the
  // lhs and rhs offsets; per contracted pair, their offsets.
  Walk result_l, result_r, contracted_l, contracted_r;
  Append(result_l, l, dnums.lhs_batch);
  Append(result_r, r, dnums.rhs_batch);
  for (int64_t d :
       DotFreeDimensions(l.rank(), dnums.lhs_batch, dnums.lhs_contracting)) {
    Append(result_l, l, {d});
    result_r.sizes.push_back(l.dimensions(d));
    result_r.strides.push_back(0);
  }
  for (int64_t d :
       DotFreeDimensions(r.rank(), dnums.rhs_batch, dnums.rhs_contracting)) {
    Append(result_r, r, {d});
    result_l.sizes.push_back(r.dimensions(d));
    result_l.strides.push_back(0);
  }
  Append(contracted_l, l, dnums.lhs_contracting);
  Append(contracted_r, r, dnums.rhs_contracting);
  RET_CHECK(result_l.sizes == std::vector<int64_t>(shape.dimensions().begin(),
                                                   shape.dimensions().end()),
            "dot result ", shape.ToString());
  const std::vector<int64_t> out_l = Offsets(result_l);
  const std::vector<int64_t> out_r = Offsets(result_r);
  const std::vector<int64_t> k_l = Offsets(contracted_l);
  const std::vector<int64_t> k_r = Offsets(contracted_r);
  Literal result(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (semantics::Element<T>) {
      SumBlocks<T>(lhs.data<T>().data(), rhs.data<T>().data(), out_l, out_r,
                   k_l, k_r, result.data<T>().data());
    }
  });
  return result;
}

}  // namespace mxla::hlo_evaluator_internal
