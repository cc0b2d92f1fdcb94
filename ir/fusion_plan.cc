#include "ir/fusion_plan.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/hlo_computation.h"
#include "ir/hlo_lexer.h"
#include "ir/memory_budget.h"
#include "ir/hlo_literal_parser.h"
#include "ir/status_macros.h"

namespace mxla {
namespace {

absl::string_view StoreName(StoreKind store) {
  return store == StoreKind::kStreaming ? "streaming" : "plain";
}

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string LoopToString(const LoopPlan& loop) {
  return absl::StrCat("store=", StoreName(loop.store),
                      loop.one_unit ? ", one_unit=true" : "");
}

// Only the fields of the plan's form: blocks, chunks, or neither.
std::string ReductionToString(const ReductionPlan& plan) {
  std::string text = absl::StrCat("units=", plan.units);
  if (plan.column_block > 0) {
    absl::StrAppend(&text, ", column_block=", plan.column_block,
                    ", column_blocks=", plan.column_blocks);
  }
  if (plan.chunks > 0) {
    absl::StrAppend(&text, ", chunks=", plan.chunks,
                    ", chunk_elements=", plan.chunk_elements,
                    ", scratch_bytes=", plan.scratch_bytes);
  }
  return text;
}

std::string RowToString(const RowPlan& row) {
  std::vector<std::string> buffered;
  for (const BufferedValue& value : row.buffered) {
    buffered.push_back(absl::StrCat(value.name, ":", value.writer));
  }
  return absl::StrCat("rows=", Dims(row.row_dimensions),
                      ", columns=", Dims(row.column_dimensions),
                      ", store=", StoreName(row.store), ", buffered={",
                      absl::StrJoin(buffered, ", "), "}");
}

// The keys each kind takes (`kind` itself aside) and must have.
struct KindKeys {
  std::set<std::string> allowed;
  std::set<std::string> required;
};

KindKeys KeysOf(const FusionPlan& plan) {
  if (plan.is_loop()) return {{"store", "one_unit"}, {"store"}};
  if (plan.is_reduction()) {
    return {{"units", "column_block", "column_blocks", "chunks",
             "chunk_elements", "scratch_bytes"},
            {"units"}};
  }
  return {{"rows", "columns", "store", "buffered"},
          {"rows", "columns", "store", "buffered"}};
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
    int64_t* fields[] = {&reduction->units,  &reduction->column_block,
                         &reduction->column_blocks, &reduction->chunks,
                         &reduction->chunk_elements, &reduction->scratch_bytes};
    const char* names[] = {"units",  "column_block",   "column_blocks",
                           "chunks", "chunk_elements", "scratch_bytes"};
    for (int i = 0; i < 6; ++i) {
      if (key == names[i]) {
        ASSIGN_OR_RETURN(*fields[i], cursor.ExpectNonNegativeInt(key));
      }
    }
    return absl::OkStatus();
  }
  RowPlan& row = std::get<RowPlan>(plan.config);
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

absl::StatusOr<FusionPlan> ParseKind(TokenCursor& cursor) {
  if (!cursor.IsName("kind")) return cursor.Expected("'kind' (a plan's first key)");
  cursor.Next();
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual));
  const Token kind = cursor.Peek();
  RETURN_IF_ERROR(cursor.ExpectName("a plan kind").status());
  if (kind.text == "loop") return FusionPlan{LoopPlan{}};
  if (kind.text == "reduction") return FusionPlan{ReductionPlan{}};
  if (kind.text == "row") return FusionPlan{RowPlan{}};
  return TokenCursor::ErrorAt(
      kind, absl::StrCat("unknown plan kind '", kind.text,
                         "' (expected loop, reduction or row)"));
}

}  // namespace

absl::string_view FusionPlan::kind_name() const {
  if (is_loop()) return "loop";
  if (is_reduction()) return "reduction";
  return "row";
}

std::string FusionPlan::ToString() const {
  std::string fields;
  if (const auto* loop = std::get_if<LoopPlan>(&config)) {
    fields = LoopToString(*loop);
  } else if (const auto* reduction = std::get_if<ReductionPlan>(&config)) {
    fields = ReductionToString(*reduction);
  } else {
    fields = RowToString(std::get<RowPlan>(config));
  }
  return absl::StrCat("{kind=", kind_name(), ", ", fields, "}");
}

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
  for (const std::string& key : keys.required) {
    if (seen.count(key) == 0) {
      return TokenCursor::ErrorAt(
          open, absl::StrCat("a ", plan.kind_name(), " plan needs '", key,
                             "'"));
    }
  }
  return plan;
}

std::vector<const HloInstruction*> ReducesInPostOrder(
    const HloComputation& computation) {
  std::vector<const HloInstruction*> reduces;
  for (const HloInstruction* instruction :
       computation.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kReduce) {
      reduces.push_back(instruction);
    }
  }
  return reduces;
}

bool IsPlainBinaryReducer(const HloComputation& reducer, HloOpcode opcode) {
  if (reducer.num_parameters() != 2) return false;
  const HloInstruction* root = reducer.root_instruction();
  if (root == nullptr || root->opcode() != opcode ||
      root->shape().IsTuple() || root->operand_count() != 2) {
    return false;
  }
  const HloInstruction* lhs = root->operand(0);
  const HloInstruction* rhs = root->operand(1);
  return lhs != rhs && lhs->opcode() == HloOpcode::kParameter &&
         rhs->opcode() == HloOpcode::kParameter;
}

int64_t FusionTrafficBytes(const HloInstruction& fusion) {
  int64_t bytes = TotalArrayBytes(fusion.shape());
  for (const HloInstruction* operand : fusion.operands()) {
    bytes += TotalArrayBytes(operand->shape());
  }
  return bytes;
}

}  // namespace mxla
