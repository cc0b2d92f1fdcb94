// Reading `mxla run`'s inputs and writing its results (tools/run_inputs.h).
#include "tools/run_inputs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "ir/host_feed.h"
#include "ir/shape_summary.h"
#include "ir/status_macros.h"
#include "runtime/buffer_leaves.h"
#include "runtime/jit_executable.h"
#include "runtime/npy.h"
#include "runtime/npz.h"
#include "semantics/scalar_semantics.h"
#include "tools/commands.h"
#include "tools/compare_results.h"
#include "tools/file_util.h"
#include "tools/stopwatch.h"

namespace mxla::tools {
namespace {

// One `I=PATH` or `I.J.K=PATH` binding: a parameter and, for a tuple
// parameter, the tuple index path of one array element.
struct Binding {
  const HloInstruction* parameter;
  std::vector<int64_t> index;
  std::string path;
};

std::string LeafKey(const HloInstruction& parameter,
                    absl::Span<const int64_t> index) {
  std::string key = absl::StrCat(parameter.parameter_number());
  for (int64_t i : index) absl::StrAppend(&key, ".", i);
  return key;
}

// The parameter an `I` names (a number or a parameter name), or null.
const HloInstruction* FindParameter(const HloComputation& entry,
                                    absl::string_view key) {
  int64_t number;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    bool by_number = absl::SimpleAtoi(key, &number) &&
                     number == parameter->parameter_number();
    if (by_number || parameter->name() == key) return parameter;
  }
  return nullptr;
}

// Parses the `I` or `I.J.K` of a binding. Names may contain dots, so the
// longest prefix naming a parameter wins and the rest must be indices.
absl::StatusOr<Binding> ParseBinding(const HloComputation& entry,
                                     absl::string_view key,
                                     std::string path) {
  std::vector<int64_t> reversed_index;
  absl::string_view prefix = key;
  while (true) {
    if (const HloInstruction* parameter = FindParameter(entry, prefix)) {
      return Binding{parameter, {reversed_index.rbegin(),
                                 reversed_index.rend()}, std::move(path)};
    }
    size_t dot = prefix.rfind('.');
    int64_t index;
    if (dot == absl::string_view::npos ||
        !absl::SimpleAtoi(prefix.substr(dot + 1), &index) || index < 0) {
      break;
    }
    reversed_index.push_back(index);
    prefix = prefix.substr(0, dot);
  }
  std::vector<std::string> parameters;
  for (const HloInstruction* parameter : entry.parameter_instructions()) {
    parameters.push_back(absl::StrCat(parameter->parameter_number(), " '",
                                      parameter->name(), "'"));
  }
  constexpr size_t kShown = 8;
  std::string listed = absl::StrJoin(
      parameters.begin(),
      parameters.begin() + std::min(parameters.size(), kShown), ", ");
  if (parameters.size() > kShown) {
    absl::StrAppend(&listed, ", ... ", parameters.size() - kShown, " more");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--input ", key, "=...: the entry computation has no parameter named "
      "or numbered '", key, "'; name one of its parameters (",
      parameters.empty() ? "it has none" : listed,
      "), and a tuple parameter's elements as I.J, e.g. 0.1"));
}

// An s8 or u8 input for a sub-byte parameter: the values, which must fit.
absl::StatusOr<Literal> NarrowedToSubByte(const Literal& bytes,
                                          PrimitiveType type,
                                          const std::string& label) {
  const int bits = primitive_util::BitWidth(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1
                               : (int64_t{1} << bits) - 1;
  for (int64_t i = 0; i < bytes.element_count(); ++i) {
    const double value = bytes.GetAsDouble(i);
    if (value < lo || value > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": element ", i, " is ", value, ", out of range for ",
          primitive_util::LowercaseName(type), " [", lo, ", ", hi, "]"));
    }
  }
  return semantics::ApplyConvert(bytes, type);
}

// bf16 and the 8-bit and smaller floats, which NumPy has no dtype for.
bool IsFloatWithoutNumpyType(PrimitiveType type) {
  return type == BF16 || primitive_util::SmallFloatFormatOf(type) != nullptr;
}

// How to make a .npy file of `type` with NumPy (or ml_dtypes).
std::string HowToMake(PrimitiveType type) {
  const std::string name(primitive_util::LowercaseName(type));
  if (IsFloatWithoutNumpyType(type)) {
    // ml_dtypes spells f8e4m3fn float8_e4m3fn, bf16 bfloat16.
    const std::string ml_name =
        type == BF16 ? "bfloat16"
                     : absl::StrCat("float", name.substr(1, 1), "_",
                                    name.substr(2));
    const bool two_bytes = type == BF16;
    return absl::StrCat(
        "pass float16, float32 or float64 values (converted as HLO's convert "
        "does, rounding to nearest even) or the ",
        name, " bits as ", two_bytes ? "<u2" : "|u1", " (a.astype(ml_dtypes.",
        ml_name, ").view(numpy.", two_bytes ? "uint16" : "uint8", "))");
  }
  if (primitive_util::IsSubByteIntType(type)) {
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    return absl::StrCat("pass ", is_signed ? "int8" : "uint8",
                        " values that fit ", name, " (a.astype(numpy.",
                        is_signed ? "int8" : "uint8", "))");
  }
  std::string dtype;
  if (type == PRED) {
    dtype = "bool_";
  } else if (primitive_util::IsFloatingPointType(type)) {
    dtype = absl::StrCat("float", primitive_util::BitWidth(type));
  } else {
    dtype = absl::StrCat(primitive_util::IsSignedIntegralType(type) ? "int"
                                                                    : "uint",
                         primitive_util::BitWidth(type));
  }
  return absl::StrCat("convert the array (a.astype(numpy.", dtype, "))");
}

}  // namespace

// A value read from a file (`label`: "--input 0=x.npy", "--infeed x.npy")
// as the array of `shape` it stands for (`what`: "parameter 0 ('x')"):
//   * bf16 comes as its raw bits in a <u2 file, the 8-bit floats in a |u1
//     file, or either as float16/32/64 values, converted as HLO's convert
//     does (round to nearest even);
//   * s2..u4 as |i1 or |u1 values, which must fit;
//   * anything else must match: a file of another element type is an
//     error that says how to make the right one.
absl::StatusOr<Literal> AsArrayOf(Literal literal, const Shape& shape,
                                  const std::string& label,
                                  const std::string& what) {
  const PrimitiveType type = shape.element_type();
  const PrimitiveType file_type = literal.shape().element_type();
  if (!shape.IsArray() || literal.shape() == shape ||
      !ShapeUtil::SameDimensions(literal.shape(), shape)) {
    return literal;  // equal, or the run reports the different shapes
  }
  const bool bits_file =
      (type == BF16 && file_type == U16) ||
      (primitive_util::SmallFloatFormatOf(type) != nullptr && file_type == U8);
  if (bits_file) {
    Literal bits(shape);
    std::memcpy(bits.untyped_data(), literal.untyped_data(),
                literal.size_bytes());
    return bits;
  }
  if (IsFloatWithoutNumpyType(type) &&
      (file_type == F16 || file_type == F32 || file_type == F64)) {
    return semantics::ApplyConvert(literal, type);
  }
  const PrimitiveType byte_type =
      primitive_util::IsSignedIntegralType(type) ? S8 : U8;
  if (primitive_util::IsSubByteIntType(type) && file_type == byte_type) {
    return NarrowedToSubByte(literal, type, label);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      label, ": the file holds ", literal.shape().ToString(), ", and ", what,
      " is ", shape.ToString(), ": ", HowToMake(type)));
}


// The array in PATH.npy, or in PATH.npz:NAME (NAME may be left out when
// the archive holds one array).
absl::StatusOr<Literal> ReadInputFile(const std::string& path,
                                      NpzArchives& archives) {
  const size_t npz = path.rfind(".npz");
  if (npz != std::string::npos &&
      (npz + 4 == path.size() || path[npz + 4] == ':')) {
    const std::string file = path.substr(0, npz + 4);
    auto archive = archives.find(file);
    if (archive == archives.end()) {
      ASSIGN_OR_RETURN(NpzArchive opened, NpzArchive::Open(file));
      archive = archives.emplace(file, std::move(opened)).first;
    }
    return archive->second.Member(
        npz + 4 == path.size() ? "" : path.substr(npz + 5));
  }
  return ReadNpyFile(path);
}



namespace {

// An --input value and its flag ("--input 0=x.npy"), for messages.
struct Input {
  Literal literal;
  std::string label;
};

// The literal of `shape` (the part of `parameter` at `index`) from the
// bindings, which are consumed.
absl::StatusOr<Literal> AssembleInput(const HloInstruction& parameter,
                                      const Shape& shape,
                                      std::vector<int64_t>& index,
                                      std::map<std::string, Input>& leaves) {
  if (!shape.IsTuple()) {
    auto it = leaves.find(LeafKey(parameter, index));
    if (it == leaves.end()) {
      std::string what = absl::StrCat("parameter ",
                                      parameter.parameter_number(), " ('",
                                      parameter.name(), "', ");
      if (!index.empty()) {
        absl::StrAppend(&what, "tuple element {", absl::StrJoin(index, ","),
                        "} ");
      }
      return absl::InvalidArgumentError(
          absl::StrCat("missing input for ", what, ShapeSummary(shape),
                       "): pass --input ", LeafKey(parameter, index),
                       "=PATH.npy"));
    }
    Input input = std::move(it->second);
    leaves.erase(it);
    std::string what = absl::StrCat("parameter ", parameter.parameter_number(),
                                    " ('", parameter.name(), "')");
    if (!index.empty()) {
      absl::StrAppend(&what, " tuple element {", absl::StrJoin(index, ","),
                      "}");
    }
    return AsArrayOf(std::move(input.literal), shape, input.label, what);
  }
  std::vector<Literal> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
       ++i) {
    index.push_back(i);
    absl::StatusOr<Literal> element =
        AssembleInput(parameter, shape.tuple_shapes(i), index, leaves);
    index.pop_back();
    if (!element.ok()) return element.status();
    elements.push_back(*std::move(element));
  }
  return LiteralUtil::MakeTuple(std::move(elements));
}

}  // namespace

// One literal per parameter, in parameter order, from the --input flags:
// one per array parameter, one per array element of a tuple parameter.
absl::StatusOr<std::vector<Literal>> LoadInputs(
    const HloComputation& entry, const std::vector<std::string>& bindings) {
  std::map<std::string, Input> leaves;  // by LeafKey
  NpzArchives archives;
  for (const std::string& text : bindings) {
    std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input expects I=PATH.npy (I a parameter number or name, I.J "
          "for element J of a tuple parameter), got '", text, "'"));
    }
    ASSIGN_OR_RETURN(Binding binding, ParseBinding(entry, parts[0], parts[1]));
    const HloInstruction& parameter = *binding.parameter;
    std::string key = LeafKey(parameter, binding.index);
    std::string what = absl::StrCat("parameter ", key, " ('",
                                    parameter.name(), "'");
    if (leaves.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ") is given twice: pass one --input for it"));
    }
    const Shape* shape = &parameter.shape();
    for (int64_t i : binding.index) {
      if (!shape->IsTuple() ||
          i >= static_cast<int64_t>(shape->tuple_shapes().size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input ", parts[0], "=...: parameter ",
            parameter.parameter_number(), " ('", parameter.name(),
            "') of shape ", ShapeSummary(parameter.shape()),
            " has no tuple element {", absl::StrJoin(binding.index, ","),
            "}"));
      }
      shape = &shape->tuple_shapes(i);
    }
    if (shape->IsTuple()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input ", parts[0], "=...: ", what, ") is the tuple ",
          ShapeSummary(*shape),
          ": pass one .npy per array element, as --input ",
          key, ".0=PATH.npy ..."));
    }
    ASSIGN_OR_RETURN(Literal literal, ReadInputFile(binding.path, archives));
    leaves.emplace(key, Input{std::move(literal), "--input " + text});
  }
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction& parameter = *entry.parameter_instruction(i);
    std::vector<int64_t> index;
    ASSIGN_OR_RETURN(Literal input, AssembleInput(parameter, parameter.shape(),
                                                  index, leaves));
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// Writes the result to `path`: PATH.npz holds one array per leaf, DIR/ (or
// an existing directory) one .npy per leaf, both named by index path
// (runtime/npz.h); any other path is one .npy, for an array.
absl::Status WriteResult(const std::string& path, const Literal& result) {
  std::error_code error;
  if (absl::EndsWith(path, "/") || std::filesystem::is_directory(path, error)) {
    return WriteNpyDirectory(path, result);
  }
  if (absl::EndsWith(path, ".npz")) return WriteNpzFile(path, result);
  if (!result.shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o ", path, ": the result is ", ShapeSummary(result.shape()),
        ", and a .npy file holds one array: write -o PATH.npz (one array "
        "per element, named by its index path: 0, 1, 1.0, ...) or -o DIR/ "
        "(one .npy per element)"));
  }
  return WriteNpyFile(path, result);
}

absl::StatusOr<Literal> FileHostFeed::Infeed(const Shape& shape) {
  if (next_ == paths_.size()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "infeed of ", ShapeSummary(shape), ": no --infeed file left (",
        paths_.size(), " given): pass one --infeed per infeed the module "
        "runs, in order"));
  }
  const std::string& path = paths_[next_++];
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--infeed ", path, ": the infeed reads the tuple ",
        ShapeSummary(shape),
        ", and an --infeed file holds one array"));
  }
  ASSIGN_OR_RETURN(Literal literal, ReadInputFile(path, archives_));
  return AsArrayOf(std::move(literal), shape, "--infeed " + path,
                   "the infeed's data");
}

}  // namespace mxla::tools
