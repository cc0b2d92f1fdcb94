#include "interpreter/hlo_evaluator_index_ops.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/primitive_type.h"
#include "semantics/scalar_semantics.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_evaluator_internal {
namespace {

// Walks the indices of `dims` in row-major order one innermost row at a
// time: calls row(offset, length, stride) where `offset` is the strided
// offset of the row's first element and `stride` that of the innermost
// dimension. A scalar is one row of length 1; zero elements, no rows.
template <typename RowFn>
void ForEachRow(absl::Span<const int64_t> dims,
                absl::Span<const int64_t> strides, RowFn&& row) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (rank == 0) {
    row(int64_t{0}, int64_t{1}, int64_t{0});
    return;
  }
  for (int64_t size : dims) {
    if (size == 0) return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  while (true) {
    row(offset, dims[rank - 1], strides[rank - 1]);
    // Odometer over the outer dimensions, keeping `offset` in step.
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

absl::Status CheckArray(const Literal& literal, absl::string_view op) {
  RET_CHECK(literal.shape().IsArray(), op, " needs an array operand, got ",
            literal.shape().ToString());
  return absl::OkStatus();
}

}  // namespace

Literal StridedGather(const Literal& source,
                      absl::Span<const int64_t> result_dims,
                      absl::Span<const int64_t> strides, int64_t base) {
  Literal result(
      ShapeUtil::MakeShape(source.shape().element_type(), result_dims));
  primitive_util::ArrayTypeSwitch(source.shape().element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = source.data<T>().data() + base;
    T* out = result.data<T>().data();
    ForEachRow(result_dims, strides,
               [&](int64_t offset, int64_t length, int64_t stride) {
                 const T* row = in + offset;
                 for (int64_t j = 0; j < length; ++j) {
                   out[j] = row[j * stride];
                 }
                 out += length;
               });
  });
  return result;
}

std::vector<int64_t> StridedOffsets(absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> strides) {
  std::vector<int64_t> offsets;
  offsets.reserve(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(PRED, dims)));
  ForEachRow(dims, strides,
             [&](int64_t offset, int64_t length, int64_t stride) {
               for (int64_t j = 0; j < length; ++j) {
                 offsets.push_back(offset + j * stride);
               }
             });
  return offsets;
}

absl::StatusOr<Literal> EvaluateBroadcast(
    const Literal& operand, const Shape& shape,
    absl::Span<const int64_t> dimensions) {
  RETURN_IF_ERROR(CheckArray(operand, "broadcast"));
  const Shape& in = operand.shape();
  RET_CHECK(shape.IsArray() && shape.element_type() == in.element_type() &&
                static_cast<int64_t>(dimensions.size()) == in.rank(),
            "broadcast of ", in.ToString(), " to ", shape.ToString(),
            " with dimensions=", DimsString(dimensions));
  std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
  std::vector<int64_t> strides(shape.rank(), 0);
  std::vector<bool> used(shape.rank(), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t d = dimensions[i];
    // Exact sizes and distinct dimensions keep every offset in range.
    RET_CHECK(d >= 0 && d < shape.rank() && !used[d] &&
                  shape.dimensions(d) == in.dimensions(i),
              "broadcast of ", in.ToString(), " to ", shape.ToString(),
              " with dimensions=", DimsString(dimensions));
    used[d] = true;
    strides[d] = in_strides[i];
  }
  return StridedGather(operand, shape.dimensions(), strides);
}

absl::StatusOr<Literal> EvaluateTranspose(
    const Literal& operand, absl::Span<const int64_t> permutation) {
  RETURN_IF_ERROR(CheckArray(operand, "transpose"));
  const Shape& in = operand.shape();
  RET_CHECK(static_cast<int64_t>(permutation.size()) == in.rank(),
            "transpose of ", in.ToString(), " by ", DimsString(permutation));
  std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
  std::vector<int64_t> dims(in.rank());
  std::vector<int64_t> strides(in.rank());
  std::vector<bool> used(in.rank(), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t p = permutation[i];
    RET_CHECK(p >= 0 && p < in.rank() && !used[p], "transpose of ",
              in.ToString(), " by ", DimsString(permutation));
    used[p] = true;
    dims[i] = in.dimensions(p);
    strides[i] = in_strides[p];
  }
  return StridedGather(operand, dims, strides);
}

absl::StatusOr<Literal> EvaluateReverse(
    const Literal& operand, absl::Span<const int64_t> dimensions) {
  RETURN_IF_ERROR(CheckArray(operand, "reverse"));
  const Shape& in = operand.shape();
  if (ShapeUtil::ElementsIn(in) == 0) return operand;
  // A reversed dimension starts at its last element and steps backwards.
  std::vector<int64_t> strides = ShapeUtil::RowMajorStrides(in);
  int64_t base = 0;
  for (int64_t d : dimensions) {
    RET_CHECK(d >= 0 && d < in.rank() && strides[d] > 0, "reverse of ",
              in.ToString(), " in ", DimsString(dimensions));
    base += (in.dimensions(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return StridedGather(operand, in.dimensions(), strides, base);
}

int64_t ClampedIndexAt(const Literal& indices, int64_t linear, int64_t max) {
  return primitive_util::ArrayTypeSwitch(
      indices.shape().element_type(), [&](auto tag) -> int64_t {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          const T value = indices.data<T>()[linear];
          if constexpr (std::is_signed_v<T>) {
            if (value < 0) return 0;
          }
          return static_cast<uint64_t>(value) > static_cast<uint64_t>(max)
                     ? max
                     : static_cast<int64_t>(value);
        } else {
          return 0;  // shape inference admits integers only
        }
      });
}

namespace {

// The scalar integer `index` clamped into [0, max].
int64_t ClampedIndex(const Literal& index, int64_t max) {
  return ClampedIndexAt(index, 0, max);
}

}  // namespace

namespace {

// The start indices `starts` (scalars, or the older form's one vector) of a
// `sizes` window in `in`, each clamped so the window fits.
absl::StatusOr<std::vector<int64_t>> ClampedStarts(
    const Shape& in, absl::Span<const Literal* const> starts,
    absl::Span<const int64_t> sizes) {
  std::vector<Literal> scalars;
  std::vector<const Literal*> start_literals(starts.begin(), starts.end());
  if (start_literals.size() == 1 && start_literals[0]->shape().rank() == 1) {
    for (int64_t d = 0; d < in.rank(); ++d) {
      ASSIGN_OR_RETURN(Literal element,
                       EvaluateSlice(*start_literals[0], {d}, {d + 1}, {1}));
      ASSIGN_OR_RETURN(
          Literal scalar,
          EvaluateReshape(element, ShapeUtil::MakeShape(
                                       element.shape().element_type(), {})));
      scalars.push_back(std::move(scalar));
    }
    start_literals.clear();
    for (const Literal& scalar : scalars) start_literals.push_back(&scalar);
  }
  RET_CHECK(static_cast<int64_t>(start_literals.size()) == in.rank() &&
                static_cast<int64_t>(sizes.size()) == in.rank(),
            "window of ", in.ToString());
  std::vector<int64_t> clamped;
  for (int64_t d = 0; d < in.rank(); ++d) {
    RET_CHECK(start_literals[d]->shape().IsScalar());
    clamped.push_back(
        ClampedIndex(*start_literals[d], in.dimensions(d) - sizes[d]));
  }
  return clamped;
}

}  // namespace

absl::StatusOr<Literal> EvaluateDynamicSlice(
    absl::Span<const Literal* const> operands, absl::Span<const int64_t> sizes) {
  RET_CHECK(!operands.empty() && operands[0]->shape().IsArray());
  const Shape& in = operands[0]->shape();
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   ClampedStarts(in, operands.subspan(1), sizes));
  std::vector<int64_t> limits, strides(in.rank(), 1);
  for (int64_t d = 0; d < in.rank(); ++d) limits.push_back(starts[d] + sizes[d]);
  return EvaluateSlice(*operands[0], starts, limits, strides);
}

absl::StatusOr<Literal> EvaluatePad(const Literal& operand,
                                    const Literal& padding_value,
                                    const PaddingConfig& config,
                                    const Shape& shape) {
  const Shape& in = operand.shape();
  RET_CHECK(in.IsArray() && padding_value.shape().IsScalar() &&
            static_cast<int64_t>(config.size()) == in.rank() &&
            shape.rank() == in.rank());
  ASSIGN_OR_RETURN(Literal result, Literal::Create(shape));
  const int64_t width = primitive_util::ByteWidth(in.element_type());
  auto* to = static_cast<uint8_t*>(result.untyped_data());
  for (int64_t i = 0; i < result.element_count(); ++i) {
    std::memcpy(to + i * width, padding_value.untyped_data(), width);
  }
  const std::vector<int64_t> out_strides = ShapeUtil::RowMajorStrides(shape);
  const auto* from = static_cast<const uint8_t*>(operand.untyped_data());
  std::vector<int64_t> index(in.rank(), 0);
  for (int64_t i = 0; i < operand.element_count(); ++i) {
    int64_t offset = 0;
    bool inside = true;
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t at = config[d].low + index[d] * (config[d].interior + 1);
      inside = inside && at >= 0 && at < shape.dimensions(d);
      offset += at * out_strides[d];
    }
    if (inside) std::memcpy(to + offset * width, from + i * width, width);
    for (int64_t d = in.rank() - 1; d >= 0; --d) {
      if (++index[d] < in.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return result;
}

absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(
    absl::Span<const Literal* const> operands) {
  RET_CHECK(operands.size() >= 2 && operands[0]->shape().IsArray() &&
            operands[1]->shape().IsArray());
  const Shape& in = operands[0]->shape();
  const Shape& update = operands[1]->shape();
  RET_CHECK(update.rank() == in.rank() &&
            update.element_type() == in.element_type());
  ASSIGN_OR_RETURN(
      std::vector<int64_t> starts,
      ClampedStarts(in, operands.subspan(2), update.dimensions()));
  Literal result = *operands[0];
  const int64_t width = primitive_util::ByteWidth(in.element_type());
  const std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
  const int64_t count = ShapeUtil::ElementsIn(update);
  std::vector<int64_t> index(update.rank(), 0);
  const auto* from = static_cast<const uint8_t*>(operands[1]->untyped_data());
  auto* to = static_cast<uint8_t*>(result.untyped_data());
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < in.rank(); ++d) {
      offset += (starts[d] + index[d]) * in_strides[d];
    }
    std::memcpy(to + offset * width, from + i * width, width);
    // Next update index, row-major.
    for (int64_t d = update.rank() - 1; d >= 0; --d) {
      if (++index[d] < update.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return result;
}

absl::StatusOr<Literal> EvaluateSlice(const Literal& operand,
                                      absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides) {
  RETURN_IF_ERROR(CheckArray(operand, "slice"));
  const Shape& in = operand.shape();
  RET_CHECK(static_cast<int64_t>(starts.size()) == in.rank() &&
                limits.size() == starts.size() &&
                strides.size() == starts.size(),
            "slice of ", in.ToString());
  std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
  std::vector<int64_t> dims(in.rank()), gather_strides(in.rank());
  int64_t base = 0;
  for (int64_t d = 0; d < in.rank(); ++d) {
    // Shape inference checked these; a result element never leaves `in`.
    RET_CHECK(0 <= starts[d] && starts[d] <= limits[d] &&
                  limits[d] <= in.dimensions(d) && strides[d] >= 1,
              "slice of ", in.ToString(), " along dimension ", d);
    dims[d] = (limits[d] - starts[d] + strides[d] - 1) / strides[d];
    gather_strides[d] = in_strides[d] * strides[d];
    base += starts[d] * in_strides[d];
  }
  if (ShapeUtil::ElementsIn(ShapeUtil::MakeShape(PRED, dims)) == 0) {
    return Literal(ShapeUtil::MakeShape(in.element_type(), dims));
  }
  return StridedGather(operand, dims, gather_strides, base);
}

// Row-major: each operand contributes, for every index of the dimensions
// before `dimension`, one contiguous run of (its size along `dimension`) x
// (the product of the later dimensions) elements.
absl::StatusOr<Literal> EvaluateConcatenate(
    absl::Span<const Literal* const> operands, const Shape& shape,
    int64_t dimension) {
  RET_CHECK(shape.IsArray() && dimension >= 0 && dimension < shape.rank(),
            "concatenate into ", shape.ToString());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dimension; ++d) outer *= shape.dimensions(d);
  for (int64_t d = dimension + 1; d < shape.rank(); ++d) {
    inner *= shape.dimensions(d);
  }
  const int64_t width = primitive_util::ByteWidth(shape.element_type());
  Literal result(shape);
  char* out = static_cast<char*>(result.untyped_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (const Literal* operand : operands) {
      RETURN_IF_ERROR(CheckArray(*operand, "concatenate"));
      const int64_t run =
          operand->shape().dimensions(dimension) * inner * width;
      std::memcpy(out, static_cast<const char*>(operand->untyped_data()) +
                           o * run, run);
      out += run;
    }
  }
  return result;
}

absl::StatusOr<Literal> EvaluateReshape(const Literal& operand,
                                        const Shape& shape) {
  RETURN_IF_ERROR(CheckArray(operand, "reshape"));
  RET_CHECK(shape.IsArray() &&
                shape.element_type() == operand.shape().element_type() &&
                ShapeUtil::ElementsIn(shape) == operand.element_count(),
            "reshape of ", operand.shape().ToString(), " to ",
            shape.ToString());
  Literal result(shape);
  std::memcpy(result.untyped_data(), operand.untyped_data(),
              operand.size_bytes());
  return result;
}

absl::StatusOr<Literal> EvaluateIota(const Shape& shape,
                                     int64_t iota_dimension) {
  RET_CHECK(
      shape.IsArray() && iota_dimension >= 0 && iota_dimension < shape.rank(),
      "iota ", shape.ToString(), " along ", iota_dimension);
  // 0, 1, ..., n-1 as s64, converted with the convert rules and then
  // broadcast along the iota dimension.
  int64_t n = shape.dimensions(iota_dimension);
  Literal counts(ShapeUtil::MakeShape(S64, {n}));
  for (int64_t i = 0; i < n; ++i) counts.data<int64_t>()[i] = i;
  ASSIGN_OR_RETURN(Literal values,
                   semantics::ApplyConvert(counts, shape.element_type()));
  return EvaluateBroadcast(values, shape, {iota_dimension});
}

absl::StatusOr<Literal> ImplicitBroadcast(
    const Literal& operand, absl::Span<const int64_t> result_dims,
    const std::optional<std::vector<int64_t>>& broadcast_dimensions) {
  RETURN_IF_ERROR(CheckArray(operand, "implicit broadcast"));
  const Shape& in = operand.shape();
  const int64_t rank = static_cast<int64_t>(result_dims.size());
  std::string context = absl::StrCat(
      "implicit broadcast of ", in.ToString(), " to ", DimsString(result_dims),
      " with broadcast_dimensions=",
      DimsString(broadcast_dimensions.value_or(std::vector<int64_t>{})));
  std::vector<int64_t> strides(rank, 0);
  std::vector<bool> used(rank, false);
  if (!in.IsScalar()) {
    RET_CHECK(in.rank() <= rank, context);
    bool mapped = in.rank() < rank;
    RET_CHECK(!mapped || (broadcast_dimensions.has_value() &&
                          static_cast<int64_t>(broadcast_dimensions->size()) ==
                              in.rank()),
              context);
    std::vector<int64_t> in_strides = ShapeUtil::RowMajorStrides(in);
    for (int64_t i = 0; i < in.rank(); ++i) {
      int64_t d = mapped ? (*broadcast_dimensions)[i] : i;
      int64_t size = in.dimensions(i);
      RET_CHECK(d >= 0 && d < rank && !used[d] &&
                    (size == 1 || size == result_dims[d]),
                context);
      used[d] = true;
      // A size-1 dimension always reads index 0, however far it stretches.
      strides[d] = size == 1 ? 0 : in_strides[i];
    }
  }
  return StridedGather(operand, result_dims, strides);
}

}  // namespace mxla::hlo_evaluator_internal
