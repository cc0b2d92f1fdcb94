// ragged-all-to-all in the text and the verifier: print -> parse -> print
// is identical, the shape rule's errors (XLA's messages where XLA has
// them), and XLA's own modules (../shared/real-hlo/modules, when present)
// parse and verify.
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "ir/hlo_module.h"
#include "ir/hlo_verifier.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

std::string Module(const std::string& header, const std::string& input,
                   const std::string& output,
                   const std::string& input_offsets,
                   const std::string& metadata,
                   const std::string& attributes = "replica_groups={}") {
  return absl::StrCat("HloModule m", header, R"(
ENTRY main {
  input = )", input, R"( parameter(0)
  output = )", output, R"( parameter(1)
  input_offsets = )", input_offsets, R"( parameter(2)
  send_sizes = )", metadata, R"( parameter(3)
  output_offsets = )", metadata, R"( parameter(4)
  recv_sizes = )", metadata, R"( parameter(5)
  ROOT r = )", output, R"( ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes), )",
                      attributes, "\n}\n");
}

absl::Status ParseAndVerify(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyModule(**module);
}

TEST(RaggedAllToAllVerifyTest, PrintParsePrintIsIdentical) {
  for (const std::string& attributes :
       {std::string("replica_groups={{0,1}}"),
        std::string("channel_id=3, replica_groups={{1,0}}")}) {
    const std::string text = Module(", replica_count=2, num_partitions=2",
                                    "f32[8,3]", "f32[6,3]", "s64[4]",
                                    "s64[4]", attributes);
    absl::StatusOr<std::unique_ptr<HloModule>> first = ParseHloModule(text);
    ASSERT_OK(first.status());
    ASSERT_OK(VerifyModule(**first));
    const std::string printed = (*first)->ToString();
    EXPECT_THAT(printed, HasSubstr("ragged-all-to-all(input, output"));
    absl::StatusOr<std::unique_ptr<HloModule>> second = ParseHloModule(printed);
    ASSERT_OK(second.status());
    EXPECT_EQ((*second)->ToString(), printed);
  }
}

TEST(RaggedAllToAllVerifyTest, InputAndOutputHoldRowsOfOneKind) {
  EXPECT_THAT(
      ParseAndVerify(Module("", "s32[6]", "f32[6]", "s32[2]", "s32[2]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-all-to-all: the input s32[6] and the output "
                         "f32[6] have different element types")));
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6,2]", "f32[6,3]", "s32[2]", "s32[2]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("differ in dimension 1; rows must have one shape")));
  EXPECT_THAT(ParseAndVerify(Module("", "f32[6]", "f32[6,1]", "s32[2]",
                                    "s32[2]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have one rank of at least 1")));
  EXPECT_THAT(ParseAndVerify(Module("", "f32[]", "f32[]", "s32[2]", "s32[2]")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have one rank of at least 1")));
}

TEST(RaggedAllToAllVerifyTest, OffsetsAndSizesShareOneShape) {
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6]", "f32[6]", "s32[2]", "s32[3]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("RaggedAllToAll operands have different shapes (2, "
                         "3): s32[2] and s32[3]")));
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6]", "f32[6]", "s32[]", "s32[]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("RaggedAllToAll operand 2 must be rank 1 or 2: "
                         "input_offsets is s32[]")));
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6]", "f32[6]", "f32[2]", "f32[2]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the offsets and sizes must be s32 or s64; got "
                         "f32[2]")));
  // XLA's rank 2, [peers, updates per peer], verifies; its element count
  // must split over the group like rank 1's.
  EXPECT_OK(ParseAndVerify(
      Module(", replica_count=2", "f32[6]", "f32[6]", "s32[2,2]", "s32[2,2]")));
  EXPECT_THAT(
      ParseAndVerify(Module(", replica_count=2", "f32[6]", "f32[6]",
                            "s32[3,1]", "s32[3,1]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the offsets and sizes have 3 elements, not a "
                         "multiple of the group size 2")));
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6]", "f32[6]", "s32[2,1]", "s32[1,2]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("RaggedAllToAll operands have different shapes (2, "
                         "3): s32[2,1] and s32[1,2]")));
  EXPECT_THAT(
      ParseAndVerify(Module("", "f32[6]", "f32[6]", "s32[2,1,1]",
                            "s32[2,1,1]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("RaggedAllToAll operand 2 must be rank 1 or 2: "
                         "input_offsets is s32[2,1,1]")));
}

TEST(RaggedAllToAllVerifyTest, EachPeerTakesAsManyUpdates) {
  EXPECT_OK(ParseAndVerify(
      Module(", replica_count=2", "f32[6]", "f32[6]", "s32[4]", "s32[4]")));
  EXPECT_THAT(
      ParseAndVerify(Module(", replica_count=2", "f32[6]", "f32[6]", "s32[3]",
                            "s32[3]")),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("ragged-all-to-all: the offsets and sizes have 3 "
                         "elements, not a multiple of the group size 2")));
  // Groups are checked as for the other collectives.
  EXPECT_THAT(ParseAndVerify(Module(", replica_count=2", "f32[6]", "f32[6]",
                                    "s32[2]", "s32[2]",
                                    "replica_groups={{0},{1,2}}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ragged-all-to-all 'r'")));
}

// ../shared/real-hlo/modules beside the checkout or a parent of it, or "".
std::string RealHloModules() {
  for (std::filesystem::path at = MXLA_SOURCE_DIR;; at = at.parent_path()) {
    const std::filesystem::path modules = at / "shared" / "real-hlo" / "modules";
    if (std::filesystem::is_directory(modules)) return modules.string();
    if (at == at.parent_path()) return "";
  }
}

TEST(RaggedAllToAllVerifyTest, XlasModulesParseAndVerify) {
  const std::string dir = RealHloModules();
  if (dir.empty()) GTEST_SKIP() << "no ../shared/real-hlo/modules";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("ragged_all_to_all_", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_OK(ParseAndVerify(text.str())) << name;
    ++count;
  }
  EXPECT_GE(count, 1);
}

}  // namespace
}  // namespace mxla
