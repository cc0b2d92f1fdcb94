// docs/passes.md against the code: its stage table against the compile
// pipeline's stages, its pass tables against the passes a compile runs (in
// order) and the registry's names, so that the page cannot drift from the
// pipeline (issue 37: headers and lists that named 4 or 7 of 24 passes).
// Also the stage table in driver/compile_pipeline.h's header comment.
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "driver/compile.h"
#include "driver/compile_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "passes/pass_registry.h"
#include "tests/testlib/read_file.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// One row of a Markdown table: its cells, trimmed; the first cell without
// its backquotes.
using Row = std::vector<std::string>;

// The tables' rows in each "## " section of `markdown` whose first cell is
// one `name` in backquotes (header and rule rows have none), by section
// heading.
std::map<std::string, std::vector<Row>> NamedRowsBySection(
    const std::string& markdown) {
  std::map<std::string, std::vector<Row>> sections;
  std::string section;
  bool in_code = false;
  for (absl::string_view line : absl::StrSplit(markdown, '\n')) {
    if (absl::StartsWith(line, "```")) in_code = !in_code;
    if (in_code) continue;
    if (absl::StartsWith(line, "## ")) {
      section = std::string(line.substr(3));
      sections[section];
      continue;
    }
    if (!absl::StartsWith(line, "| `")) continue;
    Row row;
    for (absl::string_view cell : absl::StrSplit(line, '|')) {
      row.push_back(std::string(absl::StripAsciiWhitespace(cell)));
    }
    // "| a | b |" splits into "", "a", "b", "".
    row.erase(row.begin());
    row.pop_back();
    absl::string_view name = row[0];
    if (!absl::ConsumePrefix(&name, "`") || !absl::ConsumeSuffix(&name, "`") ||
        name.find('`') != absl::string_view::npos) {
      continue;
    }
    row[0] = std::string(name);
    sections[section].push_back(std::move(row));
  }
  return sections;
}

std::vector<std::string> Names(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const Row& row : rows) names.push_back(row[0]);
  return names;
}

class PassesDocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path path =
        std::filesystem::path(MXLA_SOURCE_DIR) / "docs" / "passes.md";
    const std::string text = testing::ReadFile(path);
    ASSERT_FALSE(text.empty()) << "cannot read " << path;
    sections_ = NamedRowsBySection(text);
  }

  // The named rows of section `heading`; a missing section fails the test.
  std::vector<Row> Section(const std::string& heading) {
    auto it = sections_.find(heading);
    if (it == sections_.end()) {
      ADD_FAILURE() << "docs/passes.md has no section '## " << heading << "'";
      return {};
    }
    EXPECT_FALSE(it->second.empty())
        << "docs/passes.md's section '" << heading << "' lists nothing";
    return it->second;
  }

  // The passes the hlo-passes stage of a compile for `options` runs on a
  // small module that the default fixed point leaves after one round.
  static std::vector<std::string> PassesRun(const CompileOptions& options) {
    std::unique_ptr<HloModule> module = ParseHloModule(R"(
HloModule bias_relu

ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[3] parameter(1)
  sum = f32[2,3] add(x, v), broadcast_dimensions={1}
  zero = f32[] constant(0)
  ROOT relu = f32[2,3] maximum(sum, zero)
})")
                                            .value();
    StageRange range;
    range.last = "hlo-passes";
    absl::StatusOr<CompiledModule> compiled =
        RunCompilePipeline(*module, options, DefaultSubprogramCompilers(), range);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    std::vector<std::string> names;
    if (!compiled.ok()) return names;
    for (const PassRecord& pass : compiled->report.passes) {
      names.push_back(pass.name);
    }
    return names;
  }

  std::map<std::string, std::vector<Row>> sections_;
};

// A stage list `where` documents, all the jit's and the interpreter's
// part, against each backend's pipeline.
void ExpectStageLists(const std::vector<std::string>& jit_stages,
                      const std::vector<std::string>& interpreter_stages,
                      const std::string& where) {
  for (Backend backend : {Backend::kJit, Backend::kInterpreter}) {
    CompileOptions options;
    options.backend = backend;
    absl::StatusOr<std::unique_ptr<CompilePipeline>> pipeline =
        CompilePipeline::Create(options, DefaultSubprogramCompilers());
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    EXPECT_THAT(backend == Backend::kJit ? jit_stages : interpreter_stages,
                ElementsAreArray((*pipeline)->StageNames()))
        << where << "'s stages are not the " << BackendName(backend)
        << "'s stage list";
  }
}

TEST_F(PassesDocTest, StagesAreThePipelinesStages) {
  std::vector<Row> rows = Section("Stages");
  std::vector<std::string> interpreter_stages;
  for (const Row& row : rows) {
    ASSERT_GE(row.size(), 3u) << "a stage row needs jit and interpreter cells";
    if (row[2] == "yes") interpreter_stages.push_back(row[0]);
  }
  ExpectStageLists(Names(rows), interpreter_stages, "docs/passes.md");
}

TEST_F(PassesDocTest, DefaultPassesAreWhatACompileRuns) {
  CompileOptions options;
  options.backend = Backend::kInterpreter;
  EXPECT_THAT(Names(Section("The default HLO passes")),
              ElementsAreArray(PassesRun(options)))
      << "docs/passes.md's default passes differ from MakeHloPasses's";
}

TEST_F(PassesDocTest, JitPassesAreWhatTheJitAdds) {
  // With an empty pass list the jit runs expand-rngs, then only its own.
  CompileOptions options;
  options.backend = Backend::kJit;
  options.passes = std::vector<std::string>{};
  std::vector<std::string> run = PassesRun(options);
  ASSERT_FALSE(run.empty());
  EXPECT_EQ(run.front(), "expand-rngs");
  run.erase(run.begin());
  EXPECT_THAT(Names(Section("What the jit adds")), ElementsAreArray(run))
      << "docs/passes.md's jit passes differ from MakeHloPasses's";
}

TEST_F(PassesDocTest, RegistryTableIsTheRegistry) {
  EXPECT_THAT(Names(Section("Every registered pass")),
              ElementsAreArray(AvailablePassNames()))
      << "docs/passes.md's registry table is not AvailablePassNames(), in "
         "its order";
}

TEST_F(PassesDocTest, EveryPassACompileRunsIsRegistered) {
  const std::vector<std::string> registered = AvailablePassNames();
  std::vector<std::string> unregistered;
  for (const char* heading : {"The default HLO passes", "What the jit adds"}) {
    for (const std::string& name : Names(Section(heading))) {
      if (std::find(registered.begin(), registered.end(), name) ==
          registered.end()) {
        unregistered.push_back(name);
      }
    }
  }
  EXPECT_THAT(unregistered, IsEmpty())
      << "run by a compile but not in the registry (so --passes and "
         "--disable-pass cannot name them): "
      << absl::StrJoin(unregistered, ", ");
}

// driver/compile_pipeline.h opens with a table of the stages
// ("//   verify          jit, interpreter  -"): the same stages, and the
// same backends for each, as the pipeline's.
TEST(CompilePipelineHeaderTest, StageTableIsThePipelinesStages) {
  const std::filesystem::path path = std::filesystem::path(MXLA_SOURCE_DIR) /
                                     "driver" / "compile_pipeline.h";
  const std::string text = testing::ReadFile(path);
  ASSERT_FALSE(text.empty()) << "cannot read " << path;
  const std::regex row(R"(^//   ([a-z-]+) +(jit|jit, interpreter)  )");
  std::vector<std::string> jit_stages, interpreter_stages;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::smatch match;
    const std::string copy(line);
    if (!std::regex_search(copy, match, row)) continue;
    jit_stages.push_back(match[1]);
    if (match[2] == "jit, interpreter") interpreter_stages.push_back(match[1]);
  }
  ExpectStageLists(jit_stages, interpreter_stages,
                   "driver/compile_pipeline.h");
}

// The parser the tests above rely on: rows outside code blocks, first
// cell a name in backquotes, grouped by section.
TEST(NamedRowsBySectionTest, ReadsNamedRowsOfEachSection) {
  auto sections = NamedRowsBySection(
      "# Title\n## One\n| pass | what |\n| --- | --- |\n| `a` | x |\n"
      "| `b-c` | y `z` |\n```\n| `code` | no |\n```\n## Two\n"
      "| `not a` name` | no |\n| plain | no |\n");
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_THAT(Names(sections["One"]), ElementsAreArray({"a", "b-c"}));
  EXPECT_EQ(sections["One"][1][1], "y `z`");
  EXPECT_THAT(sections["Two"], IsEmpty());
}

}  // namespace
}  // namespace mxla
