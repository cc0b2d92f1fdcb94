#include "hlo_text/hlo_literal_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/replica_groups.h"
#include "ir/shape_util.h"
#include "ir/status_macros.h"

namespace mxla::hlo_parser_internal {
namespace {

// A whole-token integer of type T, or nullopt on junk or overflow.
template <typename T>
std::optional<T> ToInteger(const std::string& text) {
  if constexpr (kIsSubByteInt<T>) {
    std::optional<int64_t> wide = ToInteger<int64_t>(text);
    if (!wide.has_value() || *wide < T::kMin || *wide > T::kMax) {
      return std::nullopt;
    }
    return T(*wide);
  } else {
    T value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
  }
}

// True if the decimal number `text` (as the lexer accepts it) has magnitude
// >= 1; decides whether an out-of-range float overflowed or underflowed.
bool MagnitudeAtLeastOne(absl::string_view text) {
  size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
  int64_t exponent10 = -1;  // Of the first significant digit.
  int64_t int_digits = 0;
  bool seen_nonzero = false;
  for (; i < text.size() && absl::ascii_isdigit(text[i]); ++i) {
    if (text[i] != '0') seen_nonzero = true;
    if (seen_nonzero) ++int_digits;
  }
  if (seen_nonzero) {
    exponent10 = int_digits - 1;
  } else if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] == '0'; ++i) --exponent10;
  }
  while (i < text.size() && text[i] != 'e' && text[i] != 'E') ++i;
  if (i < text.size()) {
    // Saturate: the exponent can have any number of digits.
    int64_t e = 0;
    bool negative = i + 1 < text.size() && text[i + 1] == '-';
    for (++i; i < text.size(); ++i) {
      if (!absl::ascii_isdigit(text[i])) continue;
      e = std::min<int64_t>(e * 10 + (text[i] - '0'), int64_t{1} << 20);
    }
    exponent10 += negative ? -e : e;
  }
  return exponent10 >= 0;
}

template <typename T>
absl::StatusOr<T> ParseFloat(const Token& token, PrimitiveType type) {
  T value{};
  const char* begin = token.text.data();
  const char* end = begin + token.text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    if (MagnitudeAtLeastOne(token.text)) {
      return TokenCursor::ErrorAt(
          token, absl::StrCat("value ", token.text, " is out of range for ",
                              primitive_util::LowercaseName(type)));
    }
    // Too small to represent: round to zero, as XLA does.
    return token.text[0] == '-' ? T(-0.0) : T(0.0);
  }
  if (ec != std::errc() || ptr != end) {
    return TokenCursor::ErrorAt(
        token, absl::StrCat("malformed number ", DescribeToken(token)));
  }
  return value;
}

// One scalar value of element type T at the cursor.
template <typename T>
absl::StatusOr<T> ParseScalar(TokenCursor& cursor, PrimitiveType type) {
  const Token& token = cursor.Peek();
  absl::string_view type_name = primitive_util::LowercaseName(type);
  if constexpr (std::is_same_v<T, bool>) {
    bool is_true = cursor.IsName("true") ||
                   (token.kind == TokenKind::kInt && token.text == "1");
    bool is_false = cursor.IsName("false") ||
                    (token.kind == TokenKind::kInt && token.text == "0");
    if (!is_true && !is_false) {
      return cursor.Expected("a pred value (true, false, 0 or 1)");
    }
    cursor.Next();
    return is_true;
  } else if constexpr (std::is_floating_point_v<T>) {
    bool ok = token.kind == TokenKind::kInt ||
              token.kind == TokenKind::kFloat || cursor.IsName("inf") ||
              cursor.IsName("nan");
    if (!ok) return cursor.Expected(absl::StrCat("an ", type_name, " value"));
    ASSIGN_OR_RETURN(T value, ParseFloat<T>(token, type));
    cursor.Next();
    return value;
  } else if constexpr (kIsNarrowFloat<T>) {
    bool ok = token.kind == TokenKind::kInt ||
              token.kind == TokenKind::kFloat || cursor.IsName("inf") ||
              cursor.IsName("nan");
    if (!ok) return cursor.Expected(absl::StrCat("an ", type_name, " value"));
    // Through f32, like every conversion into f16 and bf16.
    ASSIGN_OR_RETURN(float wide, ParseFloat<float>(token, type));
    T value(wide);
    if (std::isfinite(wide) && std::isinf(static_cast<float>(value))) {
      return TokenCursor::ErrorAt(
          token, absl::StrCat("value ", token.text, " is out of range for ",
                              type_name));
    }
    cursor.Next();
    return value;
  } else {
    if (token.kind != TokenKind::kInt) {
      return cursor.Expected(absl::StrCat("an ", type_name, " value"));
    }
    std::optional<T> value = ToInteger<T>(token.text);
    if (!value.has_value()) {
      return TokenCursor::ErrorAt(
          token, absl::StrCat("value ", token.text, " is out of range for ",
                              type_name));
    }
    cursor.Next();
    return *value;
  }
}

// The nested braces of dimension `dim` and deeper, appending row-major.
template <typename T>
absl::Status ParseArrayValues(TokenCursor& cursor, const Shape& shape,
                              int64_t dim, std::vector<T>* values) {
  if (shape.rank() == 0) {
    ASSIGN_OR_RETURN(T value, ParseScalar<T>(cursor, shape.element_type()));
    values->push_back(value);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  const int64_t size = shape.dimensions(dim);
  const bool innermost = dim == shape.rank() - 1;
  int64_t count = 0;
  bool more = !cursor.Is(TokenKind::kRBrace);  // `{}` has no elements.
  while (more) {
    if (count == size) {
      return TokenCursor::ErrorAt(
          cursor.Peek(),
          absl::StrCat("too many elements in dimension ", dim, " of ",
                       shape.ToString(), ": expected ", size));
    }
    if (innermost) {
      ASSIGN_OR_RETURN(T value, ParseScalar<T>(cursor, shape.element_type()));
      values->push_back(value);
    } else {
      RETURN_IF_ERROR(ParseArrayValues(cursor, shape, dim + 1, values));
    }
    ++count;
    more = cursor.TryConsume(TokenKind::kComma);
  }
  if (!cursor.Is(TokenKind::kRBrace)) return cursor.Expected("',' or '}'");
  if (count != size) {
    return TokenCursor::ErrorAt(
        cursor.Peek(), absl::StrCat("too few elements in dimension ", dim,
                                    " of ", shape.ToString(), ": expected ",
                                    size, " but found ", count));
  }
  cursor.Next();
  return absl::OkStatus();
}

absl::StatusOr<Literal> ParseArrayLiteral(TokenCursor& cursor,
                                          const Shape& shape) {
  return primitive_util::ArrayTypeSwitch(
      shape.element_type(), [&](auto tag) -> absl::StatusOr<Literal> {
        using T = typename decltype(tag)::type;
        // A splat or elided constant's memory does not follow the text:
        // bound it, so that a short text cannot demand any amount.
        constexpr int64_t kMaxExpandedBytes = int64_t{1} << 30;
        const bool expanded = shape.rank() > 0 &&
                              (!cursor.Is(TokenKind::kLBrace) ||
                               cursor.Is(TokenKind::kEllipsis, 1));
        if (expanded && ShapeUtil::ByteSizeOf(shape) > kMaxExpandedBytes) {
          return TokenCursor::ErrorAt(
              cursor.Peek(),
              absl::StrCat("a splat or elided constant of shape ",
                           shape.ToString(), " needs ",
                           ShapeUtil::ByteSizeOf(shape),
                           " bytes; mxla allows at most ", kMaxExpandedBytes));
        }
        // `{...}`: XLA elides large constants' values when it prints them.
        // The values are not in the text, so the constant reads as zeros.
        if (shape.rank() > 0 && cursor.Is(TokenKind::kLBrace) &&
            cursor.Is(TokenKind::kEllipsis, 1)) {
          cursor.Next();
          cursor.Next();
          RETURN_IF_ERROR(cursor.Expect(TokenKind::kRBrace));
          return Literal::Create(shape);
        }
        // A splat: one value for every element, `f32[2,2] constant(0)`.
        if (shape.rank() > 0 && !cursor.Is(TokenKind::kLBrace)) {
          ASSIGN_OR_RETURN(T value, ParseScalar<T>(cursor, shape.element_type()));
          ASSIGN_OR_RETURN(Literal literal, Literal::Create(shape));
          std::fill(literal.data<T>().begin(), literal.data<T>().end(), value);
          return literal;
        }
        // Values are collected first so that memory follows the text, not
        // the (possibly huge) declared shape.
        std::vector<T> values;
        RETURN_IF_ERROR(ParseArrayValues<T>(cursor, shape, 0, &values));
        ASSIGN_OR_RETURN(Literal literal, Literal::Create(shape));
        std::copy(values.begin(), values.end(), literal.data<T>().begin());
        return literal;
      });
}

absl::StatusOr<Literal> ParseLiteralNested(TokenCursor& cursor,
                                           const Shape& shape, int depth) {
  if (depth > TokenCursor::kMaxNesting) {
    return TokenCursor::ErrorAt(
        cursor.Peek(), absl::StrCat("nesting deeper than ",
                                    TokenCursor::kMaxNesting, " levels"));
  }
  if (!shape.IsTuple()) {
    // A token has no value to write, and only array types have an element
    // switch (ir/primitive_type.h): refuse before reaching one.
    if (!shape.IsArray()) {
      return TokenCursor::ErrorAt(
          cursor.Peek(),
          absl::StrCat("a literal of shape ", shape.ToString(),
                       " has no values: literals are arrays or tuples of "
                       "arrays"));
    }
    return ParseArrayLiteral(cursor, shape);
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLParen));
  std::vector<Literal> elements;
  for (const Shape& element_shape : shape.tuple_shapes()) {
    if (!elements.empty()) RETURN_IF_ERROR(cursor.Expect(TokenKind::kComma));
    ASSIGN_OR_RETURN(Literal element,
                     ParseLiteralNested(cursor, element_shape, depth + 1));
    elements.push_back(std::move(element));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRParen));
  return LiteralUtil::MakeTuple(std::move(elements));
}

std::string DefaultLayoutString(int64_t rank) {
  std::vector<int64_t> minor_to_major;
  for (int64_t d = rank - 1; d >= 0; --d) minor_to_major.push_back(d);
  return absl::StrCat("{", absl::StrJoin(minor_to_major, ","), "}");
}

// A layout is checked and dropped: its minor-to-major list must be a
// permutation of the shape's dimensions, and what follows a `:` (tiles,
// element size, memory space, ...) is skipped. mxla computes on logical
// arrays, and every buffer it reads or writes is row-major whatever layout
// the text gives: the layout is a physical detail of XLA's devices, and
// the boundary is where mxla's row-major arrays are its logical values.
absl::Status ParseLayout(TokenCursor& cursor, const Shape& shape) {
  const Token open = cursor.Peek();
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  std::vector<int64_t> minor_to_major;
  while (!cursor.Is(TokenKind::kRBrace) && !cursor.Is(TokenKind::kColon)) {
    if (!minor_to_major.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',', ':' or '}'");
    }
    if (!cursor.Is(TokenKind::kInt)) {
      return cursor.Expected("a layout dimension");
    }
    std::optional<int64_t> d = ToInteger<int64_t>(cursor.Next().text);
    minor_to_major.push_back(d.value_or(-1));
  }
  if (cursor.TryConsume(TokenKind::kColon)) {
    while (!cursor.Is(TokenKind::kRBrace)) {
      if (cursor.Is(TokenKind::kEof)) return cursor.Expected("'}'");
      RETURN_IF_ERROR(cursor.SkipValue());
    }
  }
  cursor.Next();
  std::vector<int64_t> sorted = minor_to_major;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = static_cast<int64_t>(sorted.size()) == shape.rank();
  for (size_t i = 0; permutation && i < sorted.size(); ++i) {
    permutation = sorted[i] == static_cast<int64_t>(i);
  }
  if (!permutation) {
    return TokenCursor::ErrorAt(
        open, absl::StrCat("invalid layout {", absl::StrJoin(minor_to_major, ","),
                           "} for ", shape.ToString(),
                           ": not a permutation of its dimensions (row-major "
                           "is ", DefaultLayoutString(shape.rank()), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> ParseDimensionSizes(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLSquare));
  std::vector<int64_t> sizes;
  while (!cursor.Is(TokenKind::kRSquare)) {
    if (!sizes.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or ']'");
    }
    const Token& token = cursor.Peek();
    if (token.kind == TokenKind::kLessEqual) {
      // XLA's bounded dynamic dimension (`<=8`): its size is known only at
      // run time, and mxla's shapes are static.
      return TokenCursor::ErrorAt(
          token, "bounded dynamic dimensions ('<=N') are not supported by "
                 "mxla: its shapes are static");
    }
    if (token.kind != TokenKind::kInt) {
      return cursor.Expected("a dimension size");
    }
    std::optional<int64_t> size = ToInteger<int64_t>(token.text);
    if (!size.has_value() || *size < 0) {
      return TokenCursor::ErrorAt(
          token, absl::StrCat("invalid dimension size ", token.text));
    }
    if (static_cast<int64_t>(sizes.size()) == ShapeUtil::kMaxRank) {
      return TokenCursor::ErrorAt(
          token,
          absl::StrCat("rank exceeds the maximum rank ", ShapeUtil::kMaxRank));
    }
    sizes.push_back(*size);
    cursor.Next();
  }
  cursor.Next();
  return sizes;
}

absl::StatusOr<Shape> ParseArrayShape(TokenCursor& cursor) {
  const Token type_token = cursor.Peek();
  if (type_token.kind != TokenKind::kName) return cursor.Expected("a shape");
  if (type_token.text == "token") {  // `token[]`: no dimensions, no layout
    cursor.Next();
    ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ParseDimensionSizes(cursor));
    if (!sizes.empty()) {
      return TokenCursor::ErrorAt(type_token, "a token has no dimensions");
    }
    return Shape(TOKEN, {});
  }
  absl::StatusOr<PrimitiveType> type =
      primitive_util::ParseArrayType(type_token.text);
  if (!type.ok()) {
    return TokenCursor::ErrorAt(type_token, type.status().message());
  }
  cursor.Next();
  ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ParseDimensionSizes(cursor));
  Shape shape(*type, sizes);
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return TokenCursor::ErrorAt(type_token, valid.message());
  // A `{` is a layout only if an integer or `}` follows: in a signature
  // `-> f32[] {` the brace opens the computation body.
  if (cursor.Is(TokenKind::kLBrace) &&
      (cursor.Is(TokenKind::kInt, 1) || cursor.Is(TokenKind::kRBrace, 1) ||
       cursor.Is(TokenKind::kColon, 1))) {
    RETURN_IF_ERROR(ParseLayout(cursor, shape));
  }
  return shape;
}

absl::StatusOr<Shape> ParseShapeNested(TokenCursor& cursor, int depth) {
  if (AtBufferShape(cursor)) return BufferShapeError(cursor);
  if (!cursor.Is(TokenKind::kLParen)) return ParseArrayShape(cursor);
  if (depth >= TokenCursor::kMaxNesting) {
    return TokenCursor::ErrorAt(
        cursor.Peek(), absl::StrCat("nesting deeper than ",
                                    TokenCursor::kMaxNesting, " levels"));
  }
  cursor.Next();
  std::vector<Shape> elements;
  while (!cursor.Is(TokenKind::kRParen)) {
    if (!elements.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or ')'");
    }
    ASSIGN_OR_RETURN(Shape element, ParseShapeNested(cursor, depth + 1));
    elements.push_back(std::move(element));
  }
  cursor.Next();
  return Shape(std::move(elements));
}

}  // namespace

absl::StatusOr<Shape> ParseShapeAt(TokenCursor& cursor) {
  return ParseShapeNested(cursor, 0);
}

bool AtBufferShape(const TokenCursor& cursor) {
  return cursor.IsName("b") && cursor.Is(TokenKind::kLParen, 1) &&
         cursor.Is(TokenKind::kName, 2) && cursor.Is(TokenKind::kLSquare, 3);
}

absl::Status BufferShapeError(const TokenCursor& cursor) {
  return TokenCursor::ErrorAt(
      cursor.Peek(), "buffer shapes (b(f32[16])) are not supported by mxla: "
                     "it computes on array values");
}

bool AtShape(const TokenCursor& cursor) {
  return cursor.Is(TokenKind::kLParen) ||
         (cursor.Is(TokenKind::kName) && cursor.Is(TokenKind::kLSquare, 1));
}

namespace {

absl::StatusOr<int64_t> ExpectInt64(TokenCursor& cursor) {
  const Token& token = cursor.Peek();
  if (token.kind != TokenKind::kInt) return cursor.Expected("an integer");
  std::optional<int64_t> value = ToInteger<int64_t>(token.text);
  if (!value.has_value()) {
    return TokenCursor::ErrorAt(
        token, absl::StrCat("integer ", token.text, " is out of range"));
  }
  cursor.Next();
  return *value;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseInt64ListAt(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  std::vector<int64_t> values;
  while (!cursor.Is(TokenKind::kRBrace)) {
    if (!values.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or '}'");
    }
    ASSIGN_OR_RETURN(int64_t value, ExpectInt64(cursor));
    values.push_back(value);
  }
  cursor.Next();
  return values;
}


namespace {

// `[a,b,...]`: a non-empty list of non-negative sizes.
absl::StatusOr<std::vector<int64_t>> ParseSquareListAt(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLSquare));
  std::vector<int64_t> values;
  while (!cursor.Is(TokenKind::kRSquare)) {
    if (!values.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or ']'");
    }
    ASSIGN_OR_RETURN(int64_t value, ExpectInt64(cursor));
    if (value < 0) return cursor.Expected("a non-negative size");
    values.push_back(value);
  }
  cursor.Next();
  return values;
}

// XLA's iota groups `[groups,size]<=[dims]T(perm)`.
absl::StatusOr<IdGroups> ParseIotaGroupsAt(TokenCursor& cursor) {
  const Token start = cursor.Peek();
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseSquareListAt(cursor));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLessEqual));
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseSquareListAt(cursor));
  std::vector<int64_t> perm(dims.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  if (cursor.Is(TokenKind::kName) && cursor.Peek().text == "T") {
    cursor.Next();
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kLParen));
    perm.clear();
    while (!cursor.Is(TokenKind::kRParen)) {
      if (!perm.empty() && !cursor.TryConsume(TokenKind::kComma)) {
        return cursor.Expected("',' or ')'");
      }
      ASSIGN_OR_RETURN(int64_t p, ExpectInt64(cursor));
      perm.push_back(p);
    }
    cursor.Next();
  }
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<bool> seen(dims.size(), false);
  bool valid = shape.size() == 2 && shape[0] * shape[1] == total &&
               perm.size() == dims.size() && total <= (int64_t{1} << 20);
  for (size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= 0 && perm[i] < static_cast<int64_t>(dims.size()) &&
            !seen[perm[i]];
    if (valid) seen[perm[i]] = true;
  }
  if (!valid) {
    return TokenCursor::ErrorAt(
        start, "malformed iota device groups: expected [groups,size]<=[dims] "
               "with groups * size ids, optionally T(permutation of dims)");
  }
  // Position k of the transposed array holds the id whose index in `dims`
  // is that position's index permuted back.
  std::vector<int64_t> transposed_dims;
  for (int64_t p : perm) transposed_dims.push_back(dims[p]);
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  std::vector<int64_t> ids;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t k = 0; k < total; ++k) {
    int64_t id = 0;
    for (size_t i = 0; i < perm.size(); ++i) id += index[i] * strides[perm[i]];
    ids.push_back(id);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < transposed_dims[d]) break;
      index[d] = 0;
    }
  }
  IdGroups groups(shape[0]);
  for (int64_t g = 0; g < shape[0]; ++g) {
    groups[g].assign(ids.begin() + g * shape[1],
                     ids.begin() + (g + 1) * shape[1]);
  }
  return groups;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseIdGroupsAt(TokenCursor& cursor) {
  if (cursor.Is(TokenKind::kLSquare)) {
    ASSIGN_OR_RETURN(IdGroups groups, ParseIotaGroupsAt(cursor));
    return EncodeIdGroups(groups);
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  IdGroups groups;
  while (!cursor.Is(TokenKind::kRBrace)) {
    if (!groups.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or '}'");
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> group, ParseInt64ListAt(cursor));
    groups.push_back(std::move(group));
  }
  cursor.Next();
  return EncodeIdGroups(groups);
}

absl::StatusOr<std::vector<int64_t>> ParseSliceRangesAt(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  std::vector<int64_t> triples;
  while (!cursor.Is(TokenKind::kRBrace)) {
    if (!triples.empty() && !cursor.TryConsume(TokenKind::kComma)) {
      return cursor.Expected("',' or '}'");
    }
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kLSquare));
    ASSIGN_OR_RETURN(int64_t start, ExpectInt64(cursor));
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kColon));
    ASSIGN_OR_RETURN(int64_t limit, ExpectInt64(cursor));
    int64_t stride = 1;
    if (cursor.TryConsume(TokenKind::kColon)) {
      ASSIGN_OR_RETURN(stride, ExpectInt64(cursor));
    }
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kRSquare));
    triples.insert(triples.end(), {start, limit, stride});
  }
  cursor.Next();
  return triples;
}

absl::StatusOr<Literal> ParseLiteralAt(TokenCursor& cursor,
                                       const Shape& shape) {
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return TokenCursor::ErrorAt(cursor.Peek(), valid.message());
  return ParseLiteralNested(cursor, shape, 0);
}

}  // namespace mxla::hlo_parser_internal
