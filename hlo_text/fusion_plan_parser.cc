#include "hlo_text/fusion_plan_parser.h"

#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo_text/hlo_literal_parser.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

// The keys each kind takes (`kind` itself aside) and must have.
struct KindKeys {
  std::set<std::string> allowed;
  std::set<std::string> required;
};

// The keys of a row plan, also those of a row dot's rows.
const std::set<std::string>& RowKeys() {
  static const auto* keys =
      new std::set<std::string>{"rows", "columns", "store", "buffered"};
  return *keys;
}

// A row dot's keys: the row plan's and its block.
const std::set<std::string>& RowDotKeys() {
  static const auto* keys = new std::set<std::string>{
      "row_block", "rows", "columns", "store", "buffered"};
  return *keys;
}

KindKeys KeysOf(const FusionPlan& plan) {
  if (plan.is_loop()) return {{"store", "one_unit"}, {"store"}};
  if (plan.is_reduction()) {
    return {{"units", "column_block", "column_blocks", "chunks",
             "chunk_elements", "scratch_bytes"},
            {"units"}};
  }
  if (plan.is_dot()) {  // a row dot adds RowDotKeys
    return {{"units", "m_block", "n_block", "k_block", "row_block", "rows",
             "columns", "store", "buffered"},
            {"units", "m_block", "n_block", "k_block"}};
  }
  return {RowKeys(), RowKeys()};
}

absl::StatusOr<StoreKind> ParseStore(TokenCursor& cursor) {
  const Token token = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a store kind").status());
  if (token.text == "plain") return StoreKind::kPlain;
  if (token.text == "streaming") return StoreKind::kStreaming;
  return TokenCursor::ErrorAt(
      token, absl::StrCat("unknown store kind '", token.text,
                          "' (expected plain or streaming)"));
}

absl::StatusOr<bool> ParseBool(TokenCursor& cursor) {
  const Token token = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("true or false").status());
  if (token.text == "true") return true;
  if (token.text == "false") return false;
  return TokenCursor::ErrorAt(token, "expected true or false");
}

// `{name:writer, ...}`
absl::StatusOr<std::vector<BufferedValue>> ParseBuffered(TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  std::vector<BufferedValue> values;
  while (!cursor.TryConsume(TokenKind::kRBrace)) {
    if (!values.empty()) RETURN_IF_ERROR(cursor.Expect(TokenKind::kComma));
    BufferedValue value;
    ASSIGN_OR_RETURN(value.name, cursor.ExpectName("a buffered value's name"));
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kColon));
    ASSIGN_OR_RETURN(value.writer,
                     cursor.ExpectNonNegativeInt("the writing phase"));
    values.push_back(std::move(value));
  }
  return values;
}

// A non-negative count into the field `key` names.
absl::Status ParseCount(
    TokenCursor& cursor, const std::string& key,
    std::initializer_list<std::pair<const char*, int64_t*>> fields) {
  for (const auto& [name, field] : fields) {
    if (key == name) {
      ASSIGN_OR_RETURN(*field, cursor.ExpectNonNegativeInt(key));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseRowValue(TokenCursor& cursor, const std::string& key,
                           RowPlan& row) {
  if (key == "rows") {
    ASSIGN_OR_RETURN(row.row_dimensions,
                     hlo_parser_internal::ParseInt64ListAt(cursor));
  } else if (key == "columns") {
    ASSIGN_OR_RETURN(row.column_dimensions,
                     hlo_parser_internal::ParseInt64ListAt(cursor));
  } else if (key == "store") {
    ASSIGN_OR_RETURN(row.store, ParseStore(cursor));
  } else {
    ASSIGN_OR_RETURN(row.buffered, ParseBuffered(cursor));
  }
  return absl::OkStatus();
}

absl::Status ParseValue(TokenCursor& cursor, const std::string& key,
                        FusionPlan& plan) {
  if (auto* loop = std::get_if<LoopPlan>(&plan.config)) {
    if (key == "store") {
      ASSIGN_OR_RETURN(loop->store, ParseStore(cursor));
    } else {
      ASSIGN_OR_RETURN(loop->one_unit, ParseBool(cursor));
    }
    return absl::OkStatus();
  }
  if (auto* reduction = std::get_if<ReductionPlan>(&plan.config)) {
    return ParseCount(cursor, key,
                      {{"units", &reduction->units},
                       {"column_block", &reduction->column_block},
                       {"column_blocks", &reduction->column_blocks},
                       {"chunks", &reduction->chunks},
                       {"chunk_elements", &reduction->chunk_elements},
                       {"scratch_bytes", &reduction->scratch_bytes}});
  }
  if (auto* dot = std::get_if<DotPlan>(&plan.config)) {
    // store= alone is the dot's own (an epilogue's stores); with the other
    // row keys, the row plan's (ParseFusionPlan moves it there).
    if (key == "store" && !dot->rows) {
      ASSIGN_OR_RETURN(dot->store, ParseStore(cursor));
      return absl::OkStatus();
    }
    if (RowDotKeys().count(key) > 0 && !dot->rows) dot->rows.emplace();
    if (RowKeys().count(key) > 0) {
      return ParseRowValue(cursor, key, *dot->rows);
    }
    return ParseCount(cursor, key,
                      {{"units", &dot->units},
                       {"m_block", &dot->m_block},
                       {"n_block", &dot->n_block},
                       {"k_block", &dot->k_block},
                       {"row_block", &dot->row_block}});
  }
  return ParseRowValue(cursor, key, std::get<RowPlan>(plan.config));
}

absl::StatusOr<FusionPlan> ParseKind(TokenCursor& cursor) {
  if (!cursor.IsName("kind")) return cursor.Expected("'kind' (a plan's first key)");
  cursor.Next();
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
  const Token kind = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a plan kind").status());
  if (kind.text == "loop") return FusionPlan{LoopPlan{}};
  if (kind.text == "reduction") return FusionPlan{ReductionPlan{}};
  if (kind.text == "row") return FusionPlan{RowPlan{}};
  if (kind.text == "dot") return FusionPlan{DotPlan{}};
  return TokenCursor::ErrorAt(
      kind, absl::StrCat("unknown plan kind '", kind.text,
                         "' (expected loop, reduction, row or dot)"));
}

}  // namespace

absl::StatusOr<FusionPlan> ParseFusionPlan(TokenCursor& cursor) {
  const Token open = cursor.Peek();
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLBrace));
  ASSIGN_OR_RETURN(FusionPlan plan, ParseKind(cursor));
  const KindKeys keys = KeysOf(plan);
  std::set<std::string> seen;
  while (cursor.TryConsume(TokenKind::kComma)) {
    const Token key = cursor.Peek();
    RETURN_IF_ERROR(cursor.ExpectName("a plan key").status());
    if (keys.allowed.count(key.text) == 0) {
      return TokenCursor::ErrorAt(
          key, absl::StrCat("unknown key '", key.text, "' in a ",
                            plan.kind_name(), " plan"));
    }
    if (!seen.insert(key.text).second) {
      return TokenCursor::ErrorAt(
          key, absl::StrCat("duplicate key '", key.text, "' in a plan"));
    }
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
    RETURN_IF_ERROR(ParseValue(cursor, key.text, plan));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRBrace));
  std::set<std::string> required = keys.required;
  if (auto* dot = std::get_if<DotPlan>(&plan.config); dot && dot->rows) {
    required.insert(RowDotKeys().begin(), RowDotKeys().end());
    if (dot->store != StoreKind::kPlain) {  // store= came before row_block
      dot->rows->store = dot->store;
      dot->store = StoreKind::kPlain;
    }
  }
  for (const std::string& key : required) {
    if (seen.count(key) == 0) {
      return TokenCursor::ErrorAt(
          open, absl::StrCat("a ", plan.kind_name(), " plan needs '", key,
                             "'"));
    }
  }
  return plan;
}

}  // namespace mxla
