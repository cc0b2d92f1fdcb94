#include "runtime/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
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

// Where the header's text lies: [start, end) of the file, end being where
// the data starts. Needs only the magic, the version and the length (the
// first 12 bytes at most).
struct HeaderSpan {
  size_t start = 0;
  size_t end = 0;
};

absl::StatusOr<HeaderSpan> FindHeader(absl::string_view bytes) {
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
  const size_t start = 8 + length_bytes;
  return HeaderSpan{start, start + header_length};
}

absl::StatusOr<absl::string_view> SplitHeader(absl::string_view bytes,
                                              absl::string_view* data) {
  ASSIGN_OR_RETURN(HeaderSpan span, FindHeader(bytes));
  if (span.end > bytes.size()) return Malformed("truncated header");
  *data = bytes.substr(span.end);
  return bytes.substr(span.start, span.end - span.start);
}

}  // namespace

namespace {

// What a header says: the array's shape and type, and where its data
// starts in the file; `bytes` holds the header and perhaps data after it.
struct NpyHeader {
  Shape shape;
  size_t data_offset = 0;
};

absl::StatusOr<NpyHeader> ParseHeader(absl::string_view bytes) {
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
  NpyHeader result;
  result.shape = ShapeUtil::MakeShape(code->type, dims);
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(result.shape));
  result.data_offset = bytes.size() - data.size();
  return result;
}

// The header's literal, for `data_bytes` bytes of data after it.
absl::StatusOr<Literal> CreateForData(const Shape& shape, int64_t data_bytes,
                                      const BufferAllocator& allocator) {
  const int64_t expected = ShapeUtil::ByteSizeOf(shape);
  if (data_bytes != expected) {
    return Malformed(absl::StrCat("shape ", shape.ToString(), " needs ",
                                  expected, " data bytes, the file has ",
                                  data_bytes));
  }
  return Literal::CreateForOverwrite(shape, allocator);
}

// NumPy booleans are 0/1 bytes; normalize anything else.
void NormalizePred(Literal& literal) {
  if (literal.shape().element_type() != PRED) return;
  for (bool& value : literal.data<bool>()) {
    value = *reinterpret_cast<uint8_t*>(&value) != 0;
  }
}

}  // namespace

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 const BufferAllocator& allocator) {
  ASSIGN_OR_RETURN(NpyHeader header, ParseHeader(bytes));
  const absl::string_view data = bytes.substr(header.data_offset);
  ASSIGN_OR_RETURN(Literal literal,
                   CreateForData(header.shape, data.size(), allocator));
  std::memcpy(literal.untyped_data(), data.data(), data.size());
  NormalizePred(literal);
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
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  auto fail = [&](const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(path, ": ", status.message()));
  };
  const int64_t file_bytes = file.tellg();
  file.seekg(0);
  // The header's length is in its first 12 bytes (8 + 4 at most); then
  // the data goes straight into the literal's buffer: one read of a
  // model's gigabytes, no copies.
  std::string prefix(std::min<int64_t>(file_bytes, 12), '\0');
  file.read(prefix.data(), prefix.size());
  absl::StatusOr<HeaderSpan> span = FindHeader(prefix);
  if (!span.ok()) return fail(span.status());
  std::string header_bytes(std::min<int64_t>(file_bytes, span->end), '\0');
  file.seekg(0);
  file.read(header_bytes.data(), header_bytes.size());
  absl::StatusOr<NpyHeader> header = ParseHeader(header_bytes);
  if (!header.ok()) return fail(header.status());
  absl::StatusOr<Literal> literal = CreateForData(
      header->shape, file_bytes - int64_t(header->data_offset), allocator);
  if (!literal.ok()) return fail(literal.status());
  file.read(static_cast<char*>(literal->untyped_data()),
            literal->size_bytes());
  if (!file) {
    return absl::DataLossError(absl::StrCat(
        "cannot read '", path, "': ", std::strerror(errno)));
  }
  NormalizePred(*literal);
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
