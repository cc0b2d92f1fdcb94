#include "runtime/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/shape_summary.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

constexpr absl::string_view kMagic("\x93NUMPY", 6);

struct TypeCode {
  const char* descr;
  PrimitiveType type;
};
// bf16 has no NumPy dtype: its raw bits are written as <u2 (npy.h).
constexpr TypeCode kTypes[] = {
    {"<f4", F32}, {"<f8", F64}, {"<f2", F16}, {"<i4", S32}, {"<i8", S64},
    {"|i1", S8},  {"<i2", S16}, {"|u1", U8},  {"<u2", U16}, {"<u4", U32},
    {"<u8", U64}, {"|b1", PRED}};
constexpr TypeCode kBFloat16Bits = {"<u2", BF16};
// s2..u4 have no NumPy dtype either: their bytes hold the values, extended.
constexpr TypeCode kSubByteInts[] = {
    {"|i1", S2}, {"|i1", S4}, {"|u1", U2}, {"|u1", U4}};

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed .npy: ", what));
}

// The quoted or bare value after `'key':` in the header dictionary.
absl::StatusOr<std::string> HeaderValue(absl::string_view header,
                                        absl::string_view key) {
  std::string quoted = absl::StrCat("'", key, "'");
  size_t at = header.find(quoted);
  if (at == absl::string_view::npos) {
    return Malformed(absl::StrCat("header has no ", quoted, " entry"));
  }
  size_t colon = header.find(':', at + quoted.size());
  if (colon == absl::string_view::npos) return Malformed("header lacks ':'");
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(colon + 1));
  if (!rest.empty() && rest[0] == '(') {
    size_t close = rest.find(')');
    if (close == absl::string_view::npos) return Malformed("unclosed shape tuple");
    return std::string(rest.substr(0, close + 1));
  }
  if (!rest.empty() && rest[0] == '\'') {
    size_t close = rest.find('\'', 1);
    if (close == absl::string_view::npos) return Malformed("unclosed string");
    return std::string(rest.substr(1, close - 1));
  }
  size_t end = rest.find_first_of(",}");
  return std::string(absl::StripAsciiWhitespace(rest.substr(0, end)));
}

absl::StatusOr<std::vector<int64_t>> ParseShapeTuple(absl::string_view tuple) {
  std::vector<int64_t> dims;
  absl::string_view inner = tuple.substr(1, tuple.size() - 2);
  for (absl::string_view part : absl::StrSplit(inner, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t size;
    if (!absl::SimpleAtoi(part, &size) || size < 0) {
      return Malformed(absl::StrCat("bad dimension '", part, "' in shape ", tuple));
    }
    dims.push_back(size);
  }
  return dims;
}

absl::StatusOr<absl::string_view> SplitHeader(absl::string_view bytes,
                                              absl::string_view* data) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) {
    return Malformed("missing the \\x93NUMPY magic");
  }
  uint8_t major = bytes[6];
  size_t length_bytes = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (length_bytes == 0) {
    return Malformed(absl::StrCat("unsupported format version ", major));
  }
  if (bytes.size() < 8 + length_bytes) return Malformed("truncated header");
  uint64_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[8 + i]))
                     << (8 * i);
  }
  size_t start = 8 + length_bytes;
  if (header_length > bytes.size() - start) return Malformed("truncated header");
  *data = bytes.substr(start + header_length);
  return bytes.substr(start, header_length);
}

}  // namespace

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 const BufferAllocator& allocator) {
  absl::string_view data;
  ASSIGN_OR_RETURN(absl::string_view header, SplitHeader(bytes, &data));
  ASSIGN_OR_RETURN(std::string descr, HeaderValue(header, "descr"));
  ASSIGN_OR_RETURN(std::string fortran, HeaderValue(header, "fortran_order"));
  ASSIGN_OR_RETURN(std::string shape_text, HeaderValue(header, "shape"));
  const TypeCode* code = nullptr;
  for (const TypeCode& candidate : kTypes) {
    if (descr == candidate.descr) code = &candidate;
  }
  if (code == nullptr) {
    std::vector<std::string> supported;
    for (const TypeCode& candidate : kTypes) supported.push_back(candidate.descr);
    return Malformed(absl::StrCat("unsupported dtype '", descr, "' (supported: ",
                                  absl::StrJoin(supported, " "), ")"));
  }
  if (fortran != "False") {
    return Malformed("Fortran-order arrays are not supported (need C order)");
  }
  if (shape_text.empty() || shape_text[0] != '(') {
    return Malformed(absl::StrCat("bad shape '", shape_text, "'"));
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseShapeTuple(shape_text));
  Shape shape = ShapeUtil::MakeShape(code->type, dims);
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  int64_t expected = ShapeUtil::ByteSizeOf(shape);
  if (static_cast<int64_t>(data.size()) != expected) {
    return Malformed(absl::StrCat("shape ", shape.ToString(), " needs ",
                                  expected, " data bytes, the file has ",
                                  data.size()));
  }
  ASSIGN_OR_RETURN(Literal literal,
                   Literal::CreateForOverwrite(shape, allocator));
  std::memcpy(literal.untyped_data(), data.data(), data.size());
  if (code->type == PRED) {
    // NumPy booleans are 0/1 bytes; normalize anything else.
    for (bool& value : literal.data<bool>()) {
      value = *reinterpret_cast<uint8_t*>(&value) != 0;
    }
  }
  return literal;
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  const TypeCode* code = nullptr;
  for (const TypeCode& candidate : kTypes) {
    if (shape.IsArray() && candidate.type == shape.element_type()) code = &candidate;
  }
  if (shape.IsArray() && shape.element_type() == BF16) code = &kBFloat16Bits;
  for (const TypeCode& candidate : kSubByteInts) {
    if (shape.IsArray() && candidate.type == shape.element_type()) code = &candidate;
  }
  // The 8-bit floats have no NumPy dtype: their bits go out as |u1.
  const TypeCode small_float_bits = {"|u1", PRIMITIVE_TYPE_INVALID};
  if (shape.IsArray() &&
      primitive_util::SmallFloatFormatOf(shape.element_type()) != nullptr) {
    code = &small_float_bits;
  }
  if (code == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write ", ShapeSummary(shape), " as .npy (arrays only)"));
  }
  std::string dims = absl::StrJoin(shape.dimensions(), ", ");
  if (shape.rank() == 1) dims += ",";
  std::string header = absl::StrCat("{'descr': '", code->descr,
                                    "', 'fortran_order': False, 'shape': (",
                                    dims, "), }");
  // Pad with spaces so the data starts 64-byte aligned; end with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes(kMagic);
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  bytes += header;
  bytes.append(static_cast<const char*>(literal.untyped_data()),
               literal.size_bytes());
  return bytes;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path,
                                    const BufferAllocator& allocator) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  absl::StatusOr<Literal> literal = ParseNpy(contents.str(), allocator);
  if (!literal.ok()) {
    return absl::Status(literal.status().code(),
                        absl::StrCat(path, ": ", literal.status().message()));
  }
  return literal;
}

absl::Status WriteNpyFile(const std::string& path, const Literal& literal) {
  ASSIGN_OR_RETURN(std::string bytes, SerializeNpy(literal));
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), bytes.size());
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace mxla
