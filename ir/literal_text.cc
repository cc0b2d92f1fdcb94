#include "ir/literal_text.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_util.h"

namespace mxla {
namespace {

template <typename T>
std::string FormatFloat(T value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// Appends the elements of the sub-array at dimension `dim` starting at
// `*next` (row-major order).
void AppendSubArray(const Literal& literal, int64_t dim, int64_t* next,
                    std::string* out) {
  const Shape& shape = literal.shape();
  int64_t size = shape.dimensions(dim);
  bool innermost = dim == shape.rank() - 1;
  if (size == 0) {
    out->append("{}");
    return;
  }
  out->append(innermost ? "{" : "{ ");
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) out->append(", ");
    if (innermost) {
      out->append(FormatLiteralElement(literal, (*next)++, /*in_array=*/true));
    } else {
      AppendSubArray(literal, dim + 1, next, out);
    }
  }
  out->append(innermost ? "}" : " }");
}

// Appends the summarized sub-array at dimension `dim` whose first element
// is `first` (row-major, `strides` elements per step of each dimension):
// the first and last `edge` entries of each long dimension around "...",
// innermost rows one per line, indented by depth.
void AppendSummary(const Literal& literal, int64_t dim, int64_t first,
                   const std::vector<int64_t>& strides, int64_t edge,
                   std::string* out) {
  const Shape& shape = literal.shape();
  const int64_t size = shape.dimensions(dim);
  const bool innermost = dim == shape.rank() - 1;
  std::vector<int64_t> shown;  // -1 marks the "..."
  for (int64_t i = 0; i < size; ++i) {
    if (size > 2 * edge && i == edge) {
      shown.push_back(-1);
      i = size - edge - 1;
      continue;
    }
    shown.push_back(i);
  }
  const std::string indent(2 * (dim + 1), ' ');
  out->append("{");
  for (size_t k = 0; k < shown.size(); ++k) {
    if (k > 0) out->append(innermost ? ", " : ",");
    if (!innermost) absl::StrAppend(out, "\n", indent);
    if (shown[k] < 0) {
      out->append("...");
    } else if (innermost && shape.element_type() == PRED) {
      out->append(literal.data<bool>()[first + shown[k]] ? "True" : "False");
    } else if (innermost) {
      out->append(FormatLiteralElement(literal, first + shown[k],
                                       /*in_array=*/true));
    } else {
      AppendSummary(literal, dim + 1, first + shown[k] * strides[dim],
                    strides, edge, out);
    }
  }
  if (!innermost) absl::StrAppend(out, "\n", std::string(2 * dim, ' '));
  out->append("}");
}

}  // namespace

std::string SummarizedLiteralValues(const Literal& literal, int64_t edge) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray() || shape.rank() == 0 ||
      ShapeUtil::ElementsIn(shape) == 0) {
    return LiteralValuesToString(literal);
  }
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  }
  std::string out;
  AppendSummary(literal, 0, 0, strides, edge, &out);
  return out;
}

std::string FormatLiteralElement(const Literal& literal, int64_t linear_index,
                                 bool in_array) {
  return primitive_util::ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) -> std::string {
        using T = typename decltype(tag)::type;
        T value = literal.data<T>()[linear_index];
        if constexpr (std::is_same_v<T, bool>) {
          if (in_array) return value ? "1" : "0";
          return value ? "true" : "false";
        } else if constexpr (std::is_floating_point_v<T>) {
          return FormatFloat(value);
        } else if constexpr (kIsNarrowFloat<T>) {
          // The shortest float that names the value parses back to it.
          return FormatFloat(static_cast<float>(value));
        } else if constexpr (kIsSubByteInt<T>) {
          return absl::StrCat(value.value());
        } else if constexpr (std::is_signed_v<T>) {
          return absl::StrCat(static_cast<int64_t>(value));
        } else {
          return absl::StrCat(static_cast<uint64_t>(value));
        }
      });
}

std::string LiteralValuesToString(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<std::string> elements;
    for (int64_t i = 0;
         i < static_cast<int64_t>(literal.shape().tuple_shapes().size()); ++i) {
      elements.push_back(LiteralValuesToString(literal.tuple_element(i)));
    }
    return absl::StrCat("(", absl::StrJoin(elements, ", "), ")");
  }
  if (literal.shape().rank() == 0) {
    return FormatLiteralElement(literal, 0, /*in_array=*/false);
  }
  std::string out;
  int64_t next = 0;
  AppendSubArray(literal, 0, &next, &out);
  return out;
}

}  // namespace mxla
