#include "hlo_text/hlo_instruction_parser.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hlo_text/fusion_plan_parser.h"
#include "hlo_text/hlo_literal_parser.h"
#include "ir/hlo_opcode.h"
#include "ir/convolution_dimension_numbers.h"
#include "ir/op_spec.h"
#include "ir/shape_util.h"
#include "ir/window.h"
#include "ir/status_macros.h"
#include "shape_inference/op_shape_rules.h"

namespace mxla::hlo_parser_internal {
namespace {

// Attributes every op accepts besides its own: metadata is kept, the rest
// is accepted for XLA compatibility and ignored, since none changes what a
// single-device CPU computes: sharding and parameter_replication describe
// other devices; backend_config, frontend_attributes, origin and statistics
// are annotations; control-predecessors orders side effects, and mxla has
// none (it runs in data-dependence order); execution_thread names an
// async thread; result_accuracy allows less accurate transcendentals.
constexpr absl::string_view kCommonAttributes[] = {
    "metadata",         "sharding",          "frontend_attributes",
    "backend_config",   "parameter_replication", "origin",
    "statistics",       "control-predecessors",  "execution_thread",
    "result_accuracy"};

bool IsCommonAttribute(absl::string_view name) {
  for (absl::string_view common : kCommonAttributes) {
    if (common == name) return true;
  }
  return false;
}

// The part of an instruction before its operands.
struct Header {
  bool is_root = false;
  Token root_token;
  Token name_token;
  Shape shape;
  bool shape_given = true;  // false: `name = opcode(...)`, to be inferred
  Token shape_token;
  Token opcode_token;
  HloOpcode opcode = HloOpcode::kParameter;
  // XLA's generic asynchronous form `<op>-start`, `<op>-update`,
  // `<op>-done` (`fusion-start(x), kind=kLoop, calls=f`): `opcode` is the
  // async-start/-update/-done and `wrapped` the op it runs.
  std::optional<HloOpcode> wrapped;
};

// The async op and the op it wraps for `<op>-start`, `<op>-update` and
// `<op>-done`, when <op> is an opcode.
std::optional<std::pair<HloOpcode, HloOpcode>> GenericAsync(
    absl::string_view text) {
  static constexpr std::pair<absl::string_view, HloOpcode> kSuffixes[] = {
      {"-start", HloOpcode::kAsyncStart},
      {"-update", HloOpcode::kAsyncUpdate},
      {"-done", HloOpcode::kAsyncDone}};
  for (const auto& [suffix, async] : kSuffixes) {
    if (!absl::EndsWith(text, suffix)) continue;
    absl::StatusOr<HloOpcode> wrapped =
        StringToHloOpcode(text.substr(0, text.size() - suffix.size()));
    if (wrapped.ok()) return std::make_pair(async, *wrapped);
  }
  return std::nullopt;
}

struct Attributes {
  // Value tokens of the attributes seen, by name: for duplicates, the
  // checked attributes and error locations.
  std::map<std::string, Token, std::less<>> seen;
  HloAttributes values;
  // In the order of the op's computation attributes.
  std::vector<HloComputation*> callees;
  OpMetadata metadata;
};

absl::StatusOr<Header> ParseHeader(TokenCursor& cursor,
                                   const ComputationParseState& computation) {
  Header header;
  // `ROOT` is a keyword unless it is itself the name (`ROOT = ...`).
  if (cursor.IsName("ROOT") && !cursor.Is(TokenKind::kEqual, 1)) {
    header.is_root = true;
    header.root_token = cursor.Next();
  }
  header.name_token = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("an instruction name").status());
  // Names are scoped per computation, as in XLA.
  if (computation.instructions.contains(header.name_token.text)) {
    return TokenCursor::ErrorAt(
        header.name_token,
        absl::StrCat("duplicate instruction name '", header.name_token.text,
                     "' in computation '", computation.computation->name(),
                     "'"));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
  header.shape_token = cursor.Peek();
  if (AtBufferShape(cursor)) return BufferShapeError(cursor);
  // A name then `(` is an opcode, never a shape: XLA lets the shape go
  // when it follows from the operands.
  header.shape_given =
      !(cursor.Is(TokenKind::kName) && cursor.Is(TokenKind::kLParen, 1));
  if (header.shape_given) {
    ASSIGN_OR_RETURN(header.shape, ParseShapeAt(cursor));
  }
  header.opcode_token = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("an opcode").status());
  absl::StatusOr<HloOpcode> opcode =
      StringToHloOpcode(header.opcode_token.text);
  if (!opcode.ok()) {
    auto async = GenericAsync(header.opcode_token.text);
    if (!async.has_value()) {
      return TokenCursor::ErrorAt(header.opcode_token,
                                  opcode.status().message());
    }
    opcode = async->first;
    header.wrapped = async->second;
  }
  header.opcode = *opcode;
  return header;
}

absl::StatusOr<HloInstruction*> ParseInstructionRest(
    TokenCursor& cursor, ModuleParseState& module,
    ComputationParseState& computation, const Header& header, bool nested);

// An operand written as an instruction, `shape opcode(operands)` (no name,
// no attributes), as XLA's parser allows: added under a generated name.
absl::StatusOr<HloInstruction*> ParseNestedInstruction(
    TokenCursor& cursor, ModuleParseState& module,
    ComputationParseState& computation, const Shape& shape) {
  Header header;
  header.shape = shape;
  header.opcode_token = cursor.Next();
  absl::StatusOr<HloOpcode> opcode =
      StringToHloOpcode(header.opcode_token.text);
  if (!opcode.ok()) {
    return TokenCursor::ErrorAt(header.opcode_token, opcode.status().message());
  }
  header.opcode = *opcode;
  header.name_token = header.opcode_token;
  header.shape_token = header.opcode_token;
  return ParseInstructionRest(cursor, module, computation, header,
                              /*nested=*/true);
}

// `[shape] name` operands, or nested `shape opcode(...)` instructions, up to
// (not including) the closing parenthesis.
absl::StatusOr<std::vector<HloInstruction*>> ParseOperands(
    TokenCursor& cursor, ModuleParseState& module,
    ComputationParseState& computation) {
  std::vector<HloInstruction*> operands;
  bool more = !cursor.Is(TokenKind::kRParen);
  while (more) {
    std::optional<Shape> prefix;
    const Token prefix_token = cursor.Peek();
    if (AtShape(cursor)) {
      ASSIGN_OR_RETURN(prefix, ParseShapeAt(cursor));
    }
    if (prefix.has_value() && cursor.Is(TokenKind::kName) &&
        cursor.Is(TokenKind::kLParen, 1)) {
      ASSIGN_OR_RETURN(HloInstruction * nested,
                       ParseNestedInstruction(cursor, module, computation,
                                              *prefix));
      operands.push_back(nested);
      more = cursor.TryConsume(TokenKind::kComma);
      continue;
    }
    const Token name_token = cursor.Peek();
    RETURN_IF_ERROR(cursor.ExpectName("an operand name").status());
    auto it = computation.instructions.find(name_token.text);
    if (it == computation.instructions.end()) {
      std::string message =
          absl::StrCat("undefined instruction '", name_token.text, "'");
      auto owner = module.instruction_owners.find(name_token.text);
      if (owner != module.instruction_owners.end()) {
        absl::StrAppend(&message, " (it is in computation '", owner->second,
                        "')");
      }
      return TokenCursor::ErrorAt(name_token, message);
    }
    if (prefix.has_value() && *prefix != it->second->shape()) {
      return TokenCursor::ErrorAt(
          prefix_token,
          absl::StrCat("operand shape ", prefix->ToString(), " of '",
                       name_token.text, "' does not match its shape ",
                       it->second->shape().ToString()));
    }
    operands.push_back(it->second);
    more = cursor.TryConsume(TokenKind::kComma);
  }
  return operands;
}

absl::Status CheckOperandCount(const Header& header, int64_t count) {
  absl::string_view opcode = HloOpcodeString(header.opcode);
  int64_t arity = HloOpcodeArity(header.opcode);
  if (arity >= 0 && count != arity) {
    return TokenCursor::ErrorAt(
        header.opcode_token,
        absl::StrCat(opcode, " expects ", arity, " operand",
                     arity == 1 ? "" : "s", " but has ", count));
  }
  if (header.opcode == HloOpcode::kReduce && (count < 2 || count % 2 != 0)) {
    return TokenCursor::ErrorAt(
        header.opcode_token,
        absl::StrCat("reduce expects inputs then as many init values (an "
                     "even count of at least 2) but has ",
                     count, " operands"));
  }
  return absl::OkStatus();
}

// `{op_name="..." source_file="..." source_line=N}`; other keys are
// skipped. Entries may be separated by spaces or commas.
absl::StatusOr<OpMetadata> ParseMetadata(TokenCursor& cursor) {
  OpMetadata metadata;
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  while (!cursor.TryConsume(TokenKind::kRBrace)) {
    if (cursor.TryConsume(TokenKind::kComma)) continue;
    ASSIGN_OR_RETURN(std::string key,
                     cursor.ExpectName("a metadata key or '}'"));
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
    if (key == "op_name" || key == "source_file") {
      if (!cursor.Is(TokenKind::kString)) return cursor.Expected("a string");
      std::string value = cursor.Next().text;
      (key == "op_name" ? metadata.op_name : metadata.source_file) = value;
    } else if (key == "source_line") {
      ASSIGN_OR_RETURN(metadata.source_line,
                       cursor.ExpectNonNegativeInt("source_line"));
    } else {
      RETURN_IF_ERROR(cursor.SkipValue());
    }
  }
  return metadata;
}

absl::StatusOr<HloComputation*> ParseComputationName(
    TokenCursor& cursor, const ModuleParseState& module) {
  if (cursor.Is(TokenKind::kLBrace) && module.parse_inline_computation) {
    return module.parse_inline_computation(cursor);
  }
  const Token token = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a computation name").status());
  auto it = module.computations.find(token.text);
  if (it == module.computations.end()) {
    return TokenCursor::ErrorAt(
        token, absl::StrCat("computation does not exist: ", token.text));
  }
  return it->second;
}

absl::StatusOr<ComparisonDirection> ParseDirection(TokenCursor& cursor) {
  const Token value = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a comparison direction").status());
  absl::StatusOr<ComparisonDirection> direction =
      StringToComparisonDirection(value.text);
  if (!direction.ok()) {
    return TokenCursor::ErrorAt(
        value, absl::StrCat("unknown comparison direction '", value.text,
                            "' (expected EQ, NE, LT, LE, GT or GE)"));
  }
  return *direction;
}

absl::StatusOr<FusionKind> ParseFusionKind(TokenCursor& cursor) {
  const Token value = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a fusion kind").status());
  absl::StatusOr<FusionKind> kind = StringToFusionKind(value.text);
  if (!kind.ok()) {
    return TokenCursor::ErrorAt(
        value, absl::StrCat("unknown fusion kind '", value.text,
                            "' (expected kLoop, kInput, kOutput or "
                            "kCustom)"));
  }
  return *kind;
}

// The position of `id` among the op's computation attributes.
size_t CalleeIndex(const OpSpec& spec, AttrId id) {
  size_t index = 0;
  for (const AttrSlot& slot : spec.attributes) {
    if (slot.id == id) break;
    if (GetAttrInfo(slot.id).type == AttrType::kComputation) ++index;
  }
  return index;
}

// `{a, b, ...}`: the computations a kComputationList attribute names.
absl::StatusOr<std::vector<HloComputation*>> ParseComputationList(
    TokenCursor& cursor, const ModuleParseState& module) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  std::vector<HloComputation*> callees;
  while (!cursor.Is(TokenKind::kRBrace)) {
    if (!callees.empty()) RETURN_IF_ERROR(cursor.Expect(TokenKind::kComma));
    ASSIGN_OR_RETURN(HloComputation * callee,
                     ParseComputationName(cursor, module));
    callees.push_back(callee);
  }
  cursor.Next();
  return callees;
}

// A kComputation attribute: its computation, put at its place among the
// op's callees (CalleeIndex).
absl::Status ParseCallee(TokenCursor& cursor, const OpSpec& spec, AttrId id,
                         const ModuleParseState& module,
                         std::vector<HloComputation*>& callees) {
  ASSIGN_OR_RETURN(HloComputation * callee,
                   ParseComputationName(cursor, module));
  size_t index = CalleeIndex(spec, id);
  if (callees.size() <= index) callees.resize(index + 1, nullptr);
  callees[index] = callee;
  return absl::OkStatus();
}

// A padding configuration, as (low, high, interior) per dimension.
absl::StatusOr<std::vector<int64_t>> ParsePaddingTriples(TokenCursor& cursor) {
  // The lexer checked the form: -?N_-?N(_N)? per dimension, 'x' between.
  if (!cursor.Is(TokenKind::kPadding)) {
    return cursor.Expected("a padding configuration like 1_2x0_0_1");
  }
  const Token token = cursor.Next();
  std::vector<int64_t> triples;
  for (absl::string_view dim : absl::StrSplit(token.text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    int64_t low = 0, high = 0, interior = 0;
    if (!absl::SimpleAtoi(parts[0], &low) ||
        !absl::SimpleAtoi(parts[1], &high) ||
        (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &interior))) {
      return TokenCursor::ErrorAt(
          token, absl::StrCat("padding value out of range in '", dim, "'"));
    }
    triples.insert(triples.end(), {low, high, interior});
  }
  return triples;
}

// `{size=3x3 stride=2x1 pad=1_1x0_0 ...}`: key=value, no commas. Returns
// the window encoded as the attribute holds it (EncodeWindow).
absl::StatusOr<std::vector<int64_t>> ParseWindowAttribute(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  Window window;
  while (!cursor.Is(TokenKind::kRBrace)) {
    const Token key = cursor.Peek();
    RETURN_IF_ERROR(cursor.ExpectName("a window field").status());
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
    const Token value = cursor.Peek();
    if (!cursor.Is(TokenKind::kInt) && !cursor.Is(TokenKind::kDimsX) &&
        !cursor.Is(TokenKind::kPadding)) {
      return cursor.Expected(
          absl::StrCat("a value for window field ", key.text));
    }
    cursor.Next();
    absl::Status set = SetWindowField(key.text, value.text, window);
    if (!set.ok()) return TokenCursor::ErrorAt(key, set.message());
  }
  cursor.Next();
  return EncodeWindow(window);
}

// `b01f_01io->b01f`: a name, '->', a name, checked as convolution labels.
absl::StatusOr<std::string> ParseConvDimLabels(TokenCursor& cursor) {
  const Token start = cursor.Peek();
  ASSIGN_OR_RETURN(std::string lhs_rhs,
                   cursor.ExpectName("convolution dim_labels"));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kArrow));
  ASSIGN_OR_RETURN(std::string output,
                   cursor.ExpectName("convolution output dim_labels"));
  std::string labels = absl::StrCat(lhs_rhs, "->", output);
  absl::Status valid = ParseConvolutionDimLabels(labels).status();
  if (!valid.ok()) return TokenCursor::ErrorAt(start, valid.message());
  return labels;
}

// A number for attribute `name`, kept as it was written.
absl::StatusOr<std::string> ParseNumberText(TokenCursor& cursor,
                                            absl::string_view name) {
  if (!cursor.Is(TokenKind::kFloat) && !cursor.Is(TokenKind::kInt)) {
    return cursor.Expected(absl::StrCat("a number for ", name));
  }
  return std::string(cursor.Next().text);
}

// A string for attribute `name`.
absl::StatusOr<std::string> ParseStringText(TokenCursor& cursor,
                                            absl::string_view name) {
  if (!cursor.Is(TokenKind::kString)) {
    return cursor.Expected(absl::StrCat("a string for ", name));
  }
  return cursor.Next().text;
}

// A kName attribute (an operand's name, checked against the operands
// later): kept unless the op only checks it.
absl::Status ParseNameAttribute(TokenCursor& cursor, const OpSpec& spec,
                                AttrId id, Attributes& attributes) {
  const Token name = cursor.Peek();
  RETURN_IF_ERROR(
      cursor.ExpectName(absl::StrCat("a ", GetAttrInfo(id).name)).status());
  const AttrSlot* slot = spec.FindAttribute(id);
  if (slot != nullptr && slot->use != AttrUse::kChecked) {
    attributes.values.Set(id, name.text);
  }
  return absl::OkStatus();
}

// XLA's text gives the peers of a send or recv between devices as a
// frontend attribute, _xla_send_recv_source_target_pairs="{{0,1},{1,2}}"
// (or unquoted)
// (in `text`, the attributes' raw `{...}`): kept as source_target_pairs,
// unless that attribute is given itself.
absl::Status KeepSendRecvPairs(const std::string& text, const Token& at,
                               Attributes& attributes) {
  constexpr absl::string_view kKey = "_xla_send_recv_source_target_pairs";
  const size_t key = absl::string_view(text).find(kKey);
  if (key == std::string::npos ||
      attributes.seen.contains("source_target_pairs")) {
    return absl::OkStatus();
  }
  // The value: quoted ("{{0,1}}"), or bare braces ({{0,1}}).
  size_t open = text.find_first_not_of(" =", key + kKey.size());
  size_t close = std::string::npos;
  if (open != std::string::npos && text[open] == '"') {
    close = text.find('"', open + 1);
  } else if (open != std::string::npos && text[open] == '{') {
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
      depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
      if (depth == 0) {
        close = i + 1;
        break;
      }
    }
    --open;  // the value keeps its braces
  }
  if (close == std::string::npos) {
    return TokenCursor::ErrorAt(
        at, absl::StrCat(kKey, " needs a list of pairs, {{0,1},...}"));
  }
  TokenCursor pairs(absl::string_view(text).substr(open + 1, close - open - 1));
  absl::StatusOr<std::vector<int64_t>> groups = ParseIdGroupsAt(pairs);
  if (!groups.ok()) {
    return TokenCursor::ErrorAt(
        at, absl::StrCat(kKey, ": ", groups.status().message()));
  }
  attributes.values.Set(AttrId::kSourceTargetPairs, *std::move(groups));
  return absl::OkStatus();
}

// Parses the value of the op's attribute `id` by its type.
absl::Status ParseAttributeValue(TokenCursor& cursor, const OpSpec& spec,
                                 AttrId id, const ModuleParseState& module,
                                 Attributes& attributes) {
  const AttrInfo& info = GetAttrInfo(id);
  auto keep = [&](auto value) -> absl::Status {
    if (!value.ok()) return value.status();
    attributes.values.Set(id, *std::move(value));
    return absl::OkStatus();
  };
  switch (info.type) {
    case AttrType::kInt64:
      return keep(cursor.ExpectNonNegativeInt(info.name));
    case AttrType::kInt64List:
      return keep(ParseInt64ListAt(cursor));
    case AttrType::kSliceRanges:
      return keep(ParseSliceRangesAt(cursor));
    case AttrType::kIdGroups:
      return keep(ParseIdGroupsAt(cursor));
    case AttrType::kComparisonDirection:
      return keep(ParseDirection(cursor));
    case AttrType::kFusionKind:
      return keep(ParseFusionKind(cursor));
    case AttrType::kFusionPlan: {
      ASSIGN_OR_RETURN(FusionPlan plan, ParseFusionPlan(cursor));
      attributes.values.Set(id,
                            std::make_shared<const FusionPlan>(std::move(plan)));
      return absl::OkStatus();
    }
    case AttrType::kComputationList: {
      ASSIGN_OR_RETURN(attributes.callees,
                       ParseComputationList(cursor, module));
      return absl::OkStatus();
    }
    case AttrType::kComputation:
      return ParseCallee(cursor, spec, id, module, attributes.callees);
    case AttrType::kPaddingConfig:
      return keep(ParsePaddingTriples(cursor));
    case AttrType::kWindow:
      return keep(ParseWindowAttribute(cursor));
    case AttrType::kConvDimLabels:
      return keep(ParseConvDimLabels(cursor));
    case AttrType::kFloat:
      return keep(ParseNumberText(cursor, info.name));
    case AttrType::kString:
      return keep(ParseStringText(cursor, info.name));
    case AttrType::kName:
      return ParseNameAttribute(cursor, spec, id, attributes);
    case AttrType::kShape:
      return ParseShapeAt(cursor).status();
    case AttrType::kLiteral:
    case AttrType::kSkipped:
      break;
  }
  return cursor.SkipValue();
}

// The attribute of that text name, the op's own first (two attributes may
// share a name, as gather's and collective-permute's slice_sizes do).
std::optional<AttrId> AttributeNamed(const OpSpec& spec,
                                     absl::string_view name) {
  for (const AttrSlot& slot : spec.attributes) {
    if (GetAttrInfo(slot.id).name == name) return slot.id;
  }
  return AttrIdFromName(name);
}

// `, key=value` pairs after the operands.
absl::StatusOr<Attributes> ParseAttributes(TokenCursor& cursor,
                                           const Header& header,
                                           const ModuleParseState& module) {
  Attributes attributes;
  const OpSpec& spec = GetOpSpec(header.opcode);
  while (cursor.TryConsume(TokenKind::kComma)) {
    const Token name = cursor.Peek();
    RETURN_IF_ERROR(cursor.ExpectName("an attribute name").status());
    std::optional<AttrId> id = AttributeNamed(spec, name.text);
    const AttrSlot* slot = id.has_value() ? spec.FindAttribute(*id) : nullptr;
    // `<op>-start` takes <op>'s attributes and its own thread name.
    const bool common =
        IsCommonAttribute(name.text) ||
        (header.wrapped.has_value() && name.text == "async_execution_thread");
    if (!common && (slot == nullptr || slot->use == AttrUse::kPositional)) {
      return TokenCursor::ErrorAt(
          name,
          absl::StrCat("unknown attribute '", name.text, "' for ", spec.text));
    }
    if (attributes.seen.contains(name.text)) {
      return TokenCursor::ErrorAt(
          name, absl::StrCat("duplicate attribute '", name.text, "'"));
    }
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
    attributes.seen[name.text] = cursor.Peek();
    if (name.text == "metadata") {
      ASSIGN_OR_RETURN(attributes.metadata, ParseMetadata(cursor));
    } else if (name.text == "frontend_attributes" &&
               (header.opcode == HloOpcode::kSend ||
                header.opcode == HloOpcode::kRecv)) {
      std::string text;
      const Token at = cursor.Peek();
      RETURN_IF_ERROR(cursor.SkipOpaqueValue(&text));
      RETURN_IF_ERROR(KeepSendRecvPairs(text, at, attributes));
    } else if (name.text == "frontend_attributes" ||
               name.text == "backend_config") {
      // Opaque text to XLA too, and dropped: JAX writes MLIR attributes
      // (`{xla.sdy.sharding="#sdy.sharding_per_value<...>"}`, or unquoted).
      RETURN_IF_ERROR(cursor.SkipOpaqueValue());
    } else if (common || (slot->use == AttrUse::kIgnored &&
                          GetAttrInfo(*id).type != AttrType::kShape)) {
      // A shape is no one value to skip (`s32[2]{0}`): it is parsed.
      RETURN_IF_ERROR(cursor.SkipValue());
    } else {
      RETURN_IF_ERROR(
          ParseAttributeValue(cursor, spec, *id, module, attributes));
    }
  }
  for (const AttrSlot& slot : spec.attributes) {
    absl::string_view name = GetAttrInfo(slot.id).name;
    // A broadcast of a scalar may leave out dimensions={} (checked once
    // the operand is known).
    if (header.opcode == HloOpcode::kBroadcast &&
        slot.id == AttrId::kDimensions) {
      continue;
    }
    if (slot.use == AttrUse::kRequired && !attributes.seen.contains(name)) {
      return TokenCursor::ErrorAt(
          header.opcode_token,
          absl::StrCat("missing attribute '", name, "' for ", spec.text));
    }
  }
  return attributes;
}

// A compare's comparison type: the default of the operand type (dropped),
// or TOTALORDER for floats (kept).
absl::Status CheckComparisonType(Attributes& attributes,
                                 const std::vector<HloInstruction*>& operands) {
  auto it = attributes.seen.find(GetAttrInfo(AttrId::kComparisonType).name);
  if (it == attributes.seen.end()) return absl::OkStatus();
  PrimitiveType type = operands[0]->shape().element_type();
  absl::string_view expected = "";
  if (primitive_util::IsFloatingPointType(type)) expected = "FLOAT";
  if (primitive_util::IsSignedIntegralType(type)) expected = "SIGNED";
  if (type == PRED || primitive_util::IsUnsignedIntegralType(type)) {
    expected = "UNSIGNED";
  }
  if (it->second.text == expected) {
    attributes.values.Erase(AttrId::kComparisonType);
    return absl::OkStatus();
  }
  if (it->second.text == "TOTALORDER" && expected == "FLOAT") {
    return absl::OkStatus();
  }
  return TokenCursor::ErrorAt(
      it->second,
      absl::StrCat("unsupported comparison type '", it->second.text, "' for ",
                   primitive_util::LowercaseName(type), " operands",
                   expected.empty()
                       ? ""
                       : absl::StrCat(" (only ", expected,
                                      expected == "FLOAT" ? " or TOTALORDER" : "",
                                      " is supported)")));
}

// Index attributes that later code uses to index shapes.
absl::Status CheckIndices(const Header& header, const Attributes& attributes,
                          const std::vector<HloInstruction*>& operands) {
  if (const int64_t* index = attributes.values.Get<int64_t>(AttrId::kTupleIndex)) {
    const Shape& tuple = operands[0]->shape();
    if (!tuple.IsTuple() ||
        *index >= static_cast<int64_t>(tuple.tuple_shapes().size())) {
      return TokenCursor::ErrorAt(
          attributes.seen.at("index"),
          absl::StrCat("tuple index ", *index,
                       " is out of range for operand shape ",
                       tuple.ToString()));
    }
  }
  const int64_t* iota = attributes.values.Get<int64_t>(AttrId::kIotaDimension);
  if (iota != nullptr &&
      (!header.shape.IsArray() || *iota >= header.shape.rank())) {
    return TokenCursor::ErrorAt(
        attributes.seen.at("iota_dimension"),
        absl::StrCat("iota_dimension ", *iota,
                     " is out of range for shape ", header.shape.ToString()));
  }
  return absl::OkStatus();
}

// The result shape of an instruction written without one, from its op's
// shape rule; ops whose result is not a function of their operands and
// attributes (parameter, constant, iota, reshape, bitcast, broadcast,
// convert) must spell it out.
absl::Status CheckShapeCanBeInferred(const Header& header) {
  static constexpr HloOpcode kNeedShape[] = {
      HloOpcode::kParameter, HloOpcode::kConstant,  HloOpcode::kIota,
      HloOpcode::kReshape,   HloOpcode::kBitcast,   HloOpcode::kBroadcast,
      HloOpcode::kConvert};
  for (HloOpcode opcode : kNeedShape) {
    if (!header.shape_given && header.opcode == opcode) {
      return TokenCursor::ErrorAt(
          header.opcode_token,
          absl::StrCat("'", header.name_token.text, "' (",
                       HloOpcodeString(opcode),
                       ") needs a result shape: it does not follow from the "
                       "operands"));
    }
  }
  return absl::OkStatus();
}

absl::Status InferResultShape(const Header& header,
                              HloInstruction& instruction) {
  absl::StatusOr<Shape> shape =
      InferInstructionShape(instruction, VerifierMode::kBuilder);
  if (!shape.ok()) {
    return TokenCursor::ErrorAt(header.opcode_token, shape.status().message());
  }
  instruction.set_shape(*shape);
  return absl::OkStatus();
}

// XLA:CPU's "TopK" custom call (one operand, result (values, s32
// indices) of k per row) is XLA's topk op with largest=true, as XLA's own
// TopkRewriter reads it: it parses as that op.
bool IsTopKCustomCall(const Header& header, const Attributes& attributes,
                      size_t operand_count) {
  const auto* target =
      attributes.values.Get<std::string>(AttrId::kCustomCallTarget);
  return header.opcode == HloOpcode::kCustomCall && header.shape_given &&
         target != nullptr &&
         *target == "TopK" && operand_count == 1 && header.shape.IsTuple() &&
         header.shape.tuple_shapes().size() == 2 &&
         header.shape.tuple_shapes(0).IsArray() &&
         header.shape.tuple_shapes(0).rank() >= 1;
}

// XLA's tests spell some math-library functions as custom calls
// ("xla_builder.math.Acosh"), which a test-only XLA pass replaces with
// the library's HLO. Those mxla has as elementwise ops parse as the op.
std::optional<HloOpcode> MathLibraryOp(const Header& header,
                                       const Attributes& attributes,
                                       size_t operand_count) {
  static constexpr std::pair<absl::string_view, HloOpcode> kOps[] = {
      {"xla_builder.math.Acos", HloOpcode::kAcos},
      {"xla_builder.math.Acosh", HloOpcode::kAcosh},
      {"xla_builder.math.Asin", HloOpcode::kAsin},
      {"xla_builder.math.Asinh", HloOpcode::kAsinh},
      {"xla_builder.math.Atan", HloOpcode::kAtan},
      {"xla_builder.math.Cosh", HloOpcode::kCosh},
      {"xla_builder.math.Sinh", HloOpcode::kSinh},
  };
  const auto* target =
      attributes.values.Get<std::string>(AttrId::kCustomCallTarget);
  if (header.opcode != HloOpcode::kCustomCall || !header.shape_given ||
      target == nullptr || operand_count != 1) {
    return std::nullopt;
  }
  for (const auto& [name, opcode] : kOps) {
    if (*target == name) return opcode;
  }
  return std::nullopt;
}

std::unique_ptr<HloInstruction> Build(
    const Header& header, const std::vector<HloInstruction*>& operands,
    Attributes attributes) {
  if (std::optional<HloOpcode> math =
          MathLibraryOp(header, attributes, operands.size())) {
    auto instruction =
        HloInstruction::CreateGeneric(*math, header.shape, operands);
    instruction->set_name(header.name_token.text);
    instruction->set_metadata(std::move(attributes.metadata));
    return instruction;
  }
  if (IsTopKCustomCall(header, attributes, operands.size())) {
    const Shape& values = header.shape.tuple_shapes(0);
    HloAttributes topk;
    topk.Set(AttrId::kK, values.dimensions(values.rank() - 1));
    topk.Set(AttrId::kLargest, std::string("true"));
    attributes.values = std::move(topk);
    auto instruction =
        HloInstruction::CreateGeneric(HloOpcode::kTopK, header.shape, operands);
    instruction->set_name(header.name_token.text);
    instruction->mutable_attributes() = std::move(attributes.values);
    instruction->set_metadata(std::move(attributes.metadata));
    return instruction;
  }
  auto instruction =
      HloInstruction::CreateGeneric(header.opcode, header.shape, operands);
  instruction->set_name(header.name_token.text);
  instruction->mutable_attributes() = std::move(attributes.values);
  instruction->set_called_computations(std::move(attributes.callees));
  instruction->set_metadata(std::move(attributes.metadata));
  return instruction;
}

// The first leaf of `shape` that is not an array (a token), or null.
const Shape* FirstNonArrayLeaf(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray() ? nullptr : &shape;
  for (const Shape& element : shape.tuple_shapes()) {
    if (const Shape* leaf = FirstNonArrayLeaf(element)) return leaf;
  }
  return nullptr;
}

// A constant holds an array or a tuple of arrays: `token[] constant(0)`
// has no value to read, whatever follows it.
absl::Status CheckConstantShape(const Header& header) {
  const Shape* leaf = FirstNonArrayLeaf(header.shape);
  if (leaf == nullptr) return absl::OkStatus();
  const bool whole = leaf == &header.shape;
  // A nested operand instruction has no name of its own.
  const bool nested = header.name_token.line == header.opcode_token.line &&
                      header.name_token.column == header.opcode_token.column;
  return TokenCursor::ErrorAt(
      header.shape_token,
      absl::StrCat(nested ? std::string("a constant operand")
                          : absl::StrCat("constant '", header.name_token.text,
                                         "'"),
                   " has shape ",
                   header.shape.ToString(),
                   whole ? "" : absl::StrCat(", which holds ", leaf->ToString()),
                   ": a constant is an array or a tuple of arrays"));
}

// The operands of parameter and constant, or the operand list.
absl::Status ParseOperandsOf(TokenCursor& cursor, const Header& header,
                             ModuleParseState& module,
                             ComputationParseState& computation,
                             std::vector<HloInstruction*>& operands,
                             std::optional<int64_t>& parameter_number,
                             std::optional<Literal>& literal) {
  if (header.opcode == HloOpcode::kParameter) {
    const Token token = cursor.Peek();
    ASSIGN_OR_RETURN(parameter_number,
                     cursor.ExpectNonNegativeInt("a parameter number"));
    if (!computation.parameter_numbers.emplace(*parameter_number, token)
             .second) {
      return TokenCursor::ErrorAt(
          token,
          absl::StrCat("duplicate parameter number ", *parameter_number));
    }
    return absl::OkStatus();
  }
  if (header.opcode == HloOpcode::kConstant) {
    RETURN_IF_ERROR(CheckConstantShape(header));
    ASSIGN_OR_RETURN(literal, ParseLiteralAt(cursor, header.shape));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(operands, ParseOperands(cursor, module, computation));
  return CheckOperandCount(header, operands.size());
}

// The computation `<op>-start` runs: parameters of its operands' shapes
// and <op> with the instruction's attributes, whose result is element 1 of
// the start's declared ((operands), result, context...) shape.
absl::StatusOr<HloComputation*> WrapAsync(
    const Header& header, const std::vector<HloInstruction*>& operands,
    Attributes attributes, ModuleParseState& module) {
  const Shape& shape = header.shape;
  if (!header.shape_given || !shape.IsTuple() ||
      shape.tuple_shapes().size() < 2) {
    return TokenCursor::ErrorAt(
        header.opcode_token,
        absl::StrCat("'", header.name_token.text, "' (",
                     header.opcode_token.text,
                     ") needs its shape ((operands), result, context...)"));
  }
  HloComputation* computation = module.module->AddComputation(
      absl::StrCat(header.name_token.text, ".wrapped"), /*is_entry=*/false);
  std::vector<HloInstruction*> parameters;
  for (size_t i = 0; i < operands.size(); ++i) {
    parameters.push_back(computation->AddInstruction(
        HloInstruction::CreateParameter(static_cast<int64_t>(i),
                                        operands[i]->shape(),
                                        absl::StrCat("p", i))));
  }
  Header inner = header;
  inner.opcode = *header.wrapped;
  inner.shape = shape.tuple_shapes(1);
  inner.wrapped.reset();
  std::unique_ptr<HloInstruction> op =
      Build(inner, parameters, std::move(attributes));
  // Named after the start, so the text's own names keep theirs.
  op->set_name(absl::StrCat(header.name_token.text, ".",
                            HloOpcodeString(inner.opcode)));
  HloInstruction* added = computation->AddInstruction(std::move(op));
  module.instruction_names.insert(added->name());  // taken in the module
  for (HloInstruction* parameter : parameters) {
    module.instruction_names.insert(parameter->name());
  }
  computation->set_root_instruction(added);
  return computation;
}

// The attributes after the operands (none for a nested instruction: its
// `,` goes on with the operands), completed and checked against them: an
// async start's wrapped op, a compare's type, a broadcast of a scalar's
// dimensions.
absl::StatusOr<Attributes> ParseAttributesFor(
    TokenCursor& cursor, ModuleParseState& module, const Header& header,
    const std::vector<HloInstruction*>& operands, bool nested) {
  Attributes attributes;
  const bool wraps = header.wrapped.has_value() &&
                     header.opcode == HloOpcode::kAsyncStart;
  if (!nested) {
    // `<op>-start` carries the attributes of <op>.
    Header attributes_of = header;
    if (wraps) attributes_of.opcode = *header.wrapped;
    ASSIGN_OR_RETURN(attributes,
                     ParseAttributes(cursor, attributes_of, module));
  }
  if (wraps) {
    ASSIGN_OR_RETURN(HloComputation * computation,
                     WrapAsync(header, operands, std::move(attributes), module));
    attributes = Attributes();
    attributes.callees = {computation};
  }
  if (header.opcode == HloOpcode::kCompare) {
    RETURN_IF_ERROR(CheckComparisonType(attributes, operands));
  }
  if (header.opcode == HloOpcode::kBroadcast &&
      !attributes.seen.contains("dimensions")) {
    if (operands.size() != 1 || !operands[0]->shape().IsScalar()) {
      return TokenCursor::ErrorAt(
          header.opcode_token,
          "missing attribute 'dimensions' for broadcast (only a broadcast of "
          "a scalar may leave it out)");
    }
    attributes.values.Set(AttrId::kDimensions, std::vector<int64_t>{});
  }
  RETURN_IF_ERROR(CheckIndices(header, attributes, operands));
  return attributes;
}

// Adds `built` to the computation under the text's name, and records the
// name in the module and (unless nested) in the computation.
HloInstruction* AddNamed(std::unique_ptr<HloInstruction> built,
                         ModuleParseState& module,
                         ComputationParseState& computation,
                         const Header& header, bool nested) {
  const std::string& name = header.name_token.text;
  HloInstruction* added =
      computation.computation->AddInstruction(std::move(built));
  // AddInstruction makes the name unique in the module. A clash with a
  // computation name does not count (HLO text keeps those apart), but one
  // with an instruction of another computation does: like XLA, the module
  // then holds the later one under a suffixed name, while the text's name
  // still refers to it within its computation. A nested instruction keeps
  // the generated name: the text has none.
  if (!nested && added->name() != name &&
      !module.instruction_names.contains(name)) {
    added->set_name(name);
  }
  module.instruction_names.insert(added->name());
  if (!nested) {
    module.instruction_owners.emplace(name, computation.computation->name());
    computation.instructions[name] = added;
  }
  return added;
}

absl::StatusOr<HloInstruction*> ParseInstructionRest(
    TokenCursor& cursor, ModuleParseState& module,
    ComputationParseState& computation, const Header& header, bool nested) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLParen));
  std::vector<HloInstruction*> operands;
  std::optional<int64_t> parameter_number;
  std::optional<Literal> literal;
  RETURN_IF_ERROR(ParseOperandsOf(cursor, header, module, computation, operands,
                                  parameter_number, literal));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRParen));
  ASSIGN_OR_RETURN(
      Attributes attributes,
      ParseAttributesFor(cursor, module, header, operands, nested));
  std::unique_ptr<HloInstruction> built =
      Build(header, operands, std::move(attributes));
  if (!header.shape_given) RETURN_IF_ERROR(InferResultShape(header, *built));
  if (parameter_number.has_value()) {
    built->set_parameter_number(*parameter_number);
  }
  if (literal.has_value()) built->set_literal(*std::move(literal));
  return AddNamed(std::move(built), module, computation, header, nested);
}

}  // namespace

absl::Status ParseInstructionAt(TokenCursor& cursor, ModuleParseState& module,
                                ComputationParseState& computation) {
  ASSIGN_OR_RETURN(Header header, ParseHeader(cursor, computation));
  RETURN_IF_ERROR(CheckShapeCanBeInferred(header));
  if (header.is_root && computation.root != nullptr) {
    return TokenCursor::ErrorAt(
        header.root_token,
        absl::StrCat("computation '", computation.computation->name(),
                     "' has more than one ROOT"));
  }
  ASSIGN_OR_RETURN(HloInstruction * added,
                   ParseInstructionRest(cursor, module, computation, header,
                                        /*nested=*/false));
  computation.last = added;
  if (header.is_root) computation.root = added;
  return absl::OkStatus();
}

}  // namespace mxla::hlo_parser_internal
