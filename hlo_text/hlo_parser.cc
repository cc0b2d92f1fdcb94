#include "hlo_text/hlo_parser.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "hlo_text/hlo_instruction_parser.h"
#include "hlo_text/hlo_lexer.h"
#include "hlo_text/hlo_literal_parser.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

using hlo_parser_internal::ComputationParseState;
using hlo_parser_internal::ModuleParseState;
using hlo_parser_internal::ParseInstructionAt;
using hlo_parser_internal::ParseLiteralAt;
using hlo_parser_internal::ParseShapeAt;

// Declared parameter and result shapes: a computation's `(p: shape, ...) ->
// shape` or the module's entry_computation_layout.
struct Signature {
  Token token;  // Where to report a mismatch.
  std::vector<Shape> parameters;
  Shape result;
};

absl::StatusOr<std::optional<Signature>> ParseSignature(TokenCursor& cursor) {
  if (!cursor.Is(TokenKind::kLParen)) return std::nullopt;
  Signature signature;
  signature.token = cursor.Next();
  bool more = !cursor.Is(TokenKind::kRParen);
  while (more) {
    RETURN_IF_ERROR(cursor.ExpectName("a parameter name").status());
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kColon));
    ASSIGN_OR_RETURN(Shape shape, ParseShapeAt(cursor));
    signature.parameters.push_back(std::move(shape));
    more = cursor.TryConsume(TokenKind::kComma);
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRParen));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kArrow));
  ASSIGN_OR_RETURN(signature.result, ParseShapeAt(cursor));
  return signature;
}

absl::Status CheckSignature(const Signature& signature, absl::string_view what,
                            const HloComputation& computation) {
  const std::string& name = computation.name();
  int64_t count = signature.parameters.size();
  if (count != computation.num_parameters()) {
    return TokenCursor::ErrorAt(
        signature.token,
        absl::StrCat(what, " has ", count, " parameters but computation '",
                     name, "' has ", computation.num_parameters()));
  }
  for (int64_t i = 0; i < count; ++i) {
    const Shape& actual = computation.parameter_instruction(i)->shape();
    if (signature.parameters[i] != actual) {
      return TokenCursor::ErrorAt(
          signature.token,
          absl::StrCat(what, " parameter ", i, " is ",
                       signature.parameters[i].ToString(), " but parameter ", i,
                       " of computation '", name, "' is ", actual.ToString()));
    }
  }
  const Shape& root = computation.root_instruction()->shape();
  if (signature.result != root) {
    return TokenCursor::ErrorAt(
        signature.token,
        absl::StrCat(what, " result is ", signature.result.ToString(),
                     " but the root of computation '", name, "' is ",
                     root.ToString()));
  }
  return absl::OkStatus();
}

// Parameter numbers are unique (checked as they are parsed); here they must
// also be dense: 0..n-1. Reports the first offending parameter in the text.
absl::Status CheckParameterNumbersDense(const ComputationParseState& state) {
  const int64_t count = state.parameter_numbers.size();
  const Token* first = nullptr;
  int64_t first_number = 0;
  for (const auto& [number, token] : state.parameter_numbers) {
    bool earlier = first == nullptr || token.line < first->line ||
                   (token.line == first->line && token.column < first->column);
    if (number >= count && earlier) {
      first = &token;
      first_number = number;
    }
  }
  if (first == nullptr) return absl::OkStatus();
  return TokenCursor::ErrorAt(
      *first,
      absl::StrCat("parameter number ", first_number,
                   " is out of range: computation '", state.computation->name(),
                   "' has ", count, " parameters, which must be numbered 0 to ",
                   count - 1));
}

class ModuleParser {
 public:
  explicit ModuleParser(absl::string_view text) : cursor_(text) {}
  absl::StatusOr<std::unique_ptr<HloModule>> Parse();

 private:
  absl::Status ParseHeader();
  absl::Status SkipStackFrameTables();
  absl::Status ParseEntryLayout(const Token& name);
  absl::StatusOr<int64_t> ParseDeviceCount(const Token& name);
  absl::Status ParseInputOutputAlias(const Token& name);
  absl::StatusOr<std::vector<int64_t>> ParseShapeIndex();
  absl::Status ParseComputation();
  // `{ instruction+ }` in place of a called computation's name, as XLA's
  // parser allows; named inline_computation(.N).
  absl::StatusOr<HloComputation*> ParseInlineComputation(TokenCursor& cursor);
  absl::Status ParseBody(ComputationParseState& state);

  TokenCursor cursor_;
  std::unique_ptr<HloModule> module_;
  ModuleParseState state_;
  std::optional<Signature> entry_layout_;
  HloComputation* last_ = nullptr;
  int inline_computations_ = 0;
};

absl::StatusOr<std::unique_ptr<HloModule>> ModuleParser::Parse() {
  state_.parse_inline_computation = [this](TokenCursor& cursor) {
    return ParseInlineComputation(cursor);
  };
  RETURN_IF_ERROR(ParseHeader());
  RETURN_IF_ERROR(SkipStackFrameTables());
  do {
    RETURN_IF_ERROR(ParseComputation());
  } while (!cursor_.Is(TokenKind::kEof));
  // Without an ENTRY, the last computation is the entry.
  if (module_->entry_computation() == nullptr) {
    module_->set_entry_computation(last_);
  }
  if (entry_layout_.has_value()) {
    RETURN_IF_ERROR(CheckSignature(*entry_layout_, "entry_computation_layout",
                                   *module_->entry_computation()));
  }
  return std::move(module_);
}

// `HloModule name (, attribute=value)*`. As in XLA, the header may be
// left out: the module is then named "_".
absl::Status ModuleParser::ParseHeader() {
  if (!cursor_.IsName("HloModule")) {
    if (!cursor_.Is(TokenKind::kName)) {
      return cursor_.Expected("'HloModule' or a computation");
    }
    module_ = std::make_unique<HloModule>("_");
    state_.module = module_.get();
    return absl::OkStatus();
  }
  cursor_.Next();
  ASSIGN_OR_RETURN(std::string name, cursor_.ExpectName("a module name"));
  module_ = std::make_unique<HloModule>(std::move(name));
  state_.module = module_.get();
  while (cursor_.TryConsume(TokenKind::kComma)) {
    const Token attribute = cursor_.Peek();
    RETURN_IF_ERROR(cursor_.ExpectName("a module attribute name").status());
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kEqual));
    if (attribute.text == "entry_computation_layout") {
      RETURN_IF_ERROR(ParseEntryLayout(attribute));
    } else if (attribute.text == "input_output_alias") {
      RETURN_IF_ERROR(ParseInputOutputAlias(attribute));
    } else if (attribute.text == "replica_count") {
      ASSIGN_OR_RETURN(int64_t count, ParseDeviceCount(attribute));
      module_->set_replica_count(count);
    } else if (attribute.text == "num_partitions") {
      ASSIGN_OR_RETURN(int64_t count, ParseDeviceCount(attribute));
      module_->set_num_partitions(count);
    } else {
      // Other XLA attributes, dropped; their values may hold any text
      // (frontend_attributes={xla.sdy.meshes={m = #sdy.mesh<[]>}}).
      RETURN_IF_ERROR(cursor_.SkipOpaqueValue());
    }
  }
  return absl::OkStatus();
}

// XLA's dumps may follow the header with the tables that metadata's
// stack_frame_id points into: `FileNames`, `FunctionNames`,
// `FileLocations`, `StackFrames`, each a list of `N <value>` lines. mxla
// keeps no stack frames, so they are read and dropped.
absl::Status ModuleParser::SkipStackFrameTables() {
  // A table's name is followed by its entries or the next table; a
  // computation's (a computation may be named `FileNames`) by '{' or '('.
  while ((cursor_.IsName("FileNames") || cursor_.IsName("FunctionNames") ||
          cursor_.IsName("FileLocations") || cursor_.IsName("StackFrames")) &&
         !cursor_.Is(TokenKind::kLBrace, 1) &&
         !cursor_.Is(TokenKind::kLParen, 1)) {
    cursor_.Next();
    while (cursor_.Is(TokenKind::kInt)) {
      cursor_.Next();
      RETURN_IF_ERROR(cursor_.SkipValue());
    }
  }
  return absl::OkStatus();
}

// replica_count=N or num_partitions=N: a count of at least 1.
absl::StatusOr<int64_t> ModuleParser::ParseDeviceCount(const Token& name) {
  const Token value = cursor_.Peek();
  ASSIGN_OR_RETURN(int64_t count,
                   cursor_.ExpectNonNegativeInt("a device count"));
  if (count < 1) {
    return TokenCursor::ErrorAt(
        value, absl::StrCat("module attribute '", name.text,
                            "' must be at least 1; got ", count));
  }
  return count;
}

// `{(shape, ...)->shape}`, checked against the entry once it is parsed.
absl::Status ModuleParser::ParseEntryLayout(const Token& name) {
  if (entry_layout_.has_value()) {
    return TokenCursor::ErrorAt(
        name, "duplicate attribute 'entry_computation_layout'");
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLBrace));
  if (!cursor_.Is(TokenKind::kLParen)) return cursor_.Expected("'('");
  Signature layout;
  layout.token = name;
  ASSIGN_OR_RETURN(Shape parameters, ParseShapeAt(cursor_));
  layout.parameters = parameters.tuple_shapes();
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kArrow));
  ASSIGN_OR_RETURN(layout.result, ParseShapeAt(cursor_));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRBrace));
  entry_layout_ = std::move(layout);
  return absl::OkStatus();
}

// `{ 1, 0 }`: a shape index.
absl::StatusOr<std::vector<int64_t>> ModuleParser::ParseShapeIndex() {
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLBrace));
  std::vector<int64_t> index;
  if (cursor_.TryConsume(TokenKind::kRBrace)) return index;
  do {
    ASSIGN_OR_RETURN(int64_t i,
                     cursor_.ExpectNonNegativeInt("a shape index element"));
    index.push_back(i);
  } while (cursor_.TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRBrace));
  return index;
}

// `{ {1}: (0, {}, may-alias), ... }`: XLA's input_output_alias. The kind
// may be left out (may-alias). The verifier checks the entries against the
// entry computation.
absl::Status ModuleParser::ParseInputOutputAlias(const Token& name) {
  if (!module_->input_output_aliases().empty()) {
    return TokenCursor::ErrorAt(name,
                                "duplicate attribute 'input_output_alias'");
  }
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLBrace));
  std::vector<HloInputOutputAlias> aliases;
  while (!cursor_.TryConsume(TokenKind::kRBrace)) {
    if (!aliases.empty()) RETURN_IF_ERROR(cursor_.Expect(TokenKind::kComma));
    HloInputOutputAlias alias;
    ASSIGN_OR_RETURN(alias.output_index, ParseShapeIndex());
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kColon));
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLParen));
    ASSIGN_OR_RETURN(alias.parameter_number,
                     cursor_.ExpectNonNegativeInt("a parameter number"));
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kComma));
    ASSIGN_OR_RETURN(alias.parameter_index, ParseShapeIndex());
    if (cursor_.TryConsume(TokenKind::kComma)) {
      if (cursor_.IsName("may-alias")) {
        alias.must_alias = false;
      } else if (cursor_.IsName("must-alias")) {
        alias.must_alias = true;
      } else {
        return cursor_.Expected("'may-alias' or 'must-alias'");
      }
      cursor_.Next();
    }
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kRParen));
    aliases.push_back(std::move(alias));
  }
  module_->set_input_output_aliases(std::move(aliases));
  return absl::OkStatus();
}

// `[ENTRY] name [signature] { instruction+ }`.
absl::Status ModuleParser::ParseComputation() {
  bool is_entry = cursor_.IsName("ENTRY") && cursor_.Is(TokenKind::kName, 1);
  if (is_entry) {
    const Token entry = cursor_.Next();
    if (module_->entry_computation() != nullptr) {
      return TokenCursor::ErrorAt(
          entry, absl::StrCat("more than one ENTRY computation (the first is '",
                              module_->entry_computation()->name(), "')"));
    }
  }
  const Token name = cursor_.Peek();
  RETURN_IF_ERROR(cursor_.ExpectName("a computation name").status());
  if (state_.computations.contains(name.text)) {
    return TokenCursor::ErrorAt(
        name, absl::StrCat("duplicate computation name '", name.text, "'"));
  }
  ASSIGN_OR_RETURN(std::optional<Signature> signature, ParseSignature(cursor_));
  RETURN_IF_ERROR(cursor_.Expect(TokenKind::kLBrace));
  ComputationParseState state;
  state.computation = module_->AddComputation(name.text, is_entry);
  // AddComputation renames on a clash with an instruction name; the two
  // kinds of names are separate in HLO text.
  if (state.computation->name() != name.text) {
    state.computation->set_name(name.text);
  }
  RETURN_IF_ERROR(ParseBody(state));
  // `}, execution_thread="..."`: the thread an async computation runs on;
  // mxla runs everything on its own threads, so it is dropped.
  while (cursor_.Is(TokenKind::kComma) && cursor_.IsName("execution_thread", 1)) {
    cursor_.Next();
    cursor_.Next();
    RETURN_IF_ERROR(cursor_.Expect(TokenKind::kEqual));
    if (!cursor_.Is(TokenKind::kString)) return cursor_.Expected("a string");
    cursor_.Next();
  }
  if (signature.has_value()) {
    RETURN_IF_ERROR(
        CheckSignature(*signature, "signature", *state.computation));
  }
  state_.computations[name.text] = state.computation;
  last_ = state.computation;
  return absl::OkStatus();
}

absl::StatusOr<HloComputation*> ModuleParser::ParseInlineComputation(
    TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  // Numbered in the order their braces open (an outer one before those
  // nested in it), skipping names the text gives its computations.
  std::string name;
  do {
    name = inline_computations_ == 0
               ? "inline_computation"
               : absl::StrCat("inline_computation.", inline_computations_);
    ++inline_computations_;
  } while (state_.computations.contains(name));
  ComputationParseState state;
  state.computation = module_->AddComputation(name, false);
  RETURN_IF_ERROR(ParseBody(state));
  state_.computations[state.computation->name()] = state.computation;
  return state.computation;
}

// The instructions up to and including the closing brace.
absl::Status ModuleParser::ParseBody(ComputationParseState& state) {
  while (!cursor_.Is(TokenKind::kRBrace)) {
    if (cursor_.Is(TokenKind::kEof)) {
      return cursor_.Expected("an instruction or '}'");
    }
    RETURN_IF_ERROR(ParseInstructionAt(cursor_, state_, state));
  }
  const Token close = cursor_.Next();
  if (state.last == nullptr) {
    return TokenCursor::ErrorAt(
        close, absl::StrCat("computation '", state.computation->name(),
                            "' has no instructions"));
  }
  // Without a ROOT, the last instruction is the root.
  state.computation->set_root_instruction(state.root != nullptr ? state.root
                                                                : state.last);
  return CheckParameterNumbersDense(state);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text) {
  return ModuleParser(text).Parse();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  TokenCursor cursor(text);
  ASSIGN_OR_RETURN(Shape shape, ParseShapeAt(cursor));
  if (!cursor.Is(TokenKind::kEof)) return cursor.Expected("end of input");
  return shape;
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const Shape& shape) {
  TokenCursor cursor(text);
  ASSIGN_OR_RETURN(Literal literal, ParseLiteralAt(cursor, shape));
  if (!cursor.Is(TokenKind::kEof)) return cursor.Expected("end of input");
  return literal;
}

}  // namespace mxla
