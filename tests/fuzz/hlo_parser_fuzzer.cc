// Fuzz target: HLO text -> parser -> verifier -> printer -> parser, and the
// default pass pipeline on what verifies. Properties:
//   * no input crashes, hangs or trips a sanitizer;
//   * errors are InvalidArgument (Internal would be an mxla bug);
//   * a module that parses prints as text that parses to the same text;
//   * a module that verifies survives the pipeline (or fails with a status).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_verifier.h"
#include "ir/shape_util.h"
#include "runtime/compile.h"
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
