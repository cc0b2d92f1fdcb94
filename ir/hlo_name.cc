#include "ir/hlo_name.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "ir/primitive_type.h"

namespace mxla {
namespace {

// Element type names are keywords of XLA's lexer (`f32[...]` starts a
// shape), so XLA never uses them as names; "tuple" is not one.
bool IsElementTypeName(absl::string_view name) {
  if (primitive_util::ParseArrayType(name).ok()) return true;
  // XLA's types that mxla has no array type for.
  for (absl::string_view other :
       {"token", "opaque", "c64", "c128", "s1", "u1"}) {
    if (name == other) return true;
  }
  return false;
}

}  // namespace

bool IsHloNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-';
}

std::string SanitizeHloName(absl::string_view name) {
  std::string result(name);
  if (result.empty()) return result;
  if (!absl::ascii_isalpha(static_cast<unsigned char>(result[0])) &&
      result[0] != '_') {
    result[0] = '_';
  }
  for (size_t i = 1; i < result.size(); ++i) {
    if (!IsHloNameChar(result[i])) result[i] = '_';
  }
  if (IsElementTypeName(result)) result += '_';
  if (absl::StartsWith(result, "__") && !absl::StartsWith(result, "__xla_")) {
    result[0] = 'a';
  }
  return result;
}

}  // namespace mxla
