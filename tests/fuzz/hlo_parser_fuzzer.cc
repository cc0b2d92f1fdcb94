// Fuzz target: HLO text -> parser -> verifier -> printer -> parser, and the
// default pass pipeline on what verifies. Properties:
//   * no input crashes, hangs or trips a sanitizer;
//   * errors are InvalidArgument (Internal would be an mxla bug);
//   * a module that parses prints as text that parses to the same text;
//   * a module that verifies survives the pipeline (or fails with a status).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "driver/compile.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_opcode.h"
#include "ir/hlo_verifier.h"
#include "ir/primitive_type.h"
#include "ir/shape_util.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// Passes may fold constants; keep the pipeline to shapes it can afford.
bool SmallEnoughToOptimize(const mxla::HloModule& module) {
  for (const mxla::HloComputation* computation : module.computations()) {
    for (const mxla::HloInstruction* instruction :
         computation->instructions()) {
      const mxla::Shape& shape = instruction->shape();
      if (shape.IsArray() && mxla::ShapeUtil::ElementsIn(shape) > (1 << 16)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

#ifdef MXLA_LIBFUZZER
// libFuzzer inserts and overwrites bytes, dictionary words included, but
// never replaces a word by one of another length, and that is what a type
// or opcode swap in text is: `f32[] constant(1)` -> `token[] constant(1)`.
// In 30 minutes with the dictionary alone it never made that input. So one
// mutation in four is this one: a word of the input that is an element
// type (token and tuple too), an opcode or a comparison direction of the
// tables becomes another of the same kind. The rest are libFuzzer's own,
// which use the dictionary.
namespace {

std::vector<std::vector<std::string>> SwapTables() {
  std::vector<std::string> types, opcodes, directions;
  for (int i = mxla::PRIMITIVE_TYPE_INVALID + 1; i <= mxla::TOKEN; ++i) {
    types.emplace_back(mxla::primitive_util::LowercaseName(
        static_cast<mxla::PrimitiveType>(i)));
  }
#define MXLA_HLO_OP(e, text, ...) opcodes.emplace_back(text);
#include "ir/hlo_ops.def"
  for (mxla::ComparisonDirection direction :
       {mxla::ComparisonDirection::kEq, mxla::ComparisonDirection::kNe,
        mxla::ComparisonDirection::kLt, mxla::ComparisonDirection::kLe,
        mxla::ComparisonDirection::kGt, mxla::ComparisonDirection::kGe}) {
    directions.emplace_back(mxla::ComparisonDirectionString(direction));
  }
  return {types, opcodes, directions};
}

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size,
                                   size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                          size_t max_size, unsigned seed) {
  static const std::vector<std::vector<std::string>> tables = SwapTables();
  std::minstd_rand random(seed);
  if (random() % 4 != 0) return LLVMFuzzerMutate(data, size, max_size);
  // The words that are in a table: (start, length, table).
  struct Word {
    size_t start, length, table;
  };
  std::vector<Word> words;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  for (size_t i = 0; i < size;) {
    if (!IsWordChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < size && IsWordChar(text[end])) ++end;
    const absl::string_view word = text.substr(i, end - i);
    for (size_t t = 0; t < tables.size(); ++t) {
      for (const std::string& entry : tables[t]) {
        if (word == entry) words.push_back({i, end - i, t});
      }
    }
    i = end;
  }
  if (words.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const Word& word = words[random() % words.size()];
  const std::vector<std::string>& table = tables[word.table];
  const std::string& replacement = table[random() % table.size()];
  const size_t new_size = size - word.length + replacement.size();
  if (new_size > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::string mutated(text.data(), word.start);
  mutated += replacement;
  mutated.append(text.substr(word.start + word.length).data(),
                 size - word.start - word.length);
  std::memcpy(data, mutated.data(), new_size);
  return new_size;
}
#endif  // MXLA_LIBFUZZER

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::unique_ptr<mxla::HloModule>> module =
      mxla::ParseHloModule(text);
  if (!module.ok()) {
    FUZZ_CHECK(module.status().code() == absl::StatusCode::kInvalidArgument,
               module.status().ToString());
    return 0;
  }
  std::string printed = (*module)->ToString({.metadata = true});
  absl::StatusOr<std::unique_ptr<mxla::HloModule>> reparsed =
      mxla::ParseHloModule(printed);
  FUZZ_CHECK(reparsed.ok(), absl::StrCat(reparsed.status().ToString(),
                                         "\nwhile reparsing\n", printed));
  FUZZ_CHECK((*reparsed)->ToString({.metadata = true}) == printed,
             absl::StrCat("printing is not a fixed point:\n", printed));

  absl::Status verified =
      mxla::VerifyModule(**module, mxla::VerifierMode::kBuilder);
  if (!verified.ok()) {
    FUZZ_CHECK(verified.code() == absl::StatusCode::kInvalidArgument,
               verified.ToString());
    return 0;
  }
  if (!SmallEnoughToOptimize(**module)) return 0;
  mxla::CompileOptions options;
  options.backend = mxla::Backend::kInterpreter;
  absl::StatusOr<std::unique_ptr<mxla::HloModule>> optimized =
      mxla::OptimizeForBackend(**module, options);
  FUZZ_CHECK(optimized.ok(), absl::StrCat(optimized.status().ToString(),
                                          "\nfor the verified module\n",
                                          printed));
  return 0;
}
