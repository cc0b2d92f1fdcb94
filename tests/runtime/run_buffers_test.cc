// Executable::RunBuffers' checks on both backends: the buffer counts (one
// per array leaf) in the unsized form, and in the sized form every size,
// null pointers and overlaps, each error naming the buffer, its parameter,
// tuple element and shape.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "gtest/gtest.h"
#include "hlo_text/hlo_parser.h"
#include "tests/testlib/status_matchers.h"

namespace mxla {
namespace {

using ::mxla::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kModule[] = R"(HloModule run_buffers
ENTRY main {
  p = f32[3] parameter(0)
  a = (f32[3], s32[2]) parameter(1)
  x = f32[3] get-tuple-element(a), index=0
  i = s32[2] get-tuple-element(a), index=1
  s = f32[3] add(p, x)
  ROOT t = (f32[3], s32[2]) tuple(s, i)
})";

class RunBuffersTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module,
                         ParseHloModule(kModule));
    CompileOptions options;
    options.backend = GetParam();
    ASSERT_OK_AND_ASSIGN(executable_, Compile(*module, options));
  }

  absl::Status RunSized(absl::Span<const int64_t> argument_sizes,
                        absl::Span<const int64_t> result_sizes) {
    return executable_->RunBuffers(arguments_, argument_sizes, results_,
                                   result_sizes);
  }

  std::unique_ptr<Executable> executable_;
  std::vector<float> p_ = {1, 2, 3}, x_ = {10, 20, 30}, sum_ = {0, 0, 0};
  std::vector<int32_t> i_ = {7, -7}, i_out_ = {0, 0};
  std::vector<const void*> arguments_ = {p_.data(), x_.data(), i_.data()};
  std::vector<void*> results_ = {sum_.data(), i_out_.data()};
  std::vector<int64_t> argument_sizes_ = {12, 12, 8};
  std::vector<int64_t> result_sizes_ = {12, 8};
};

TEST_P(RunBuffersTest, RunsWithExactSizes) {
  ASSERT_OK(RunSized(argument_sizes_, result_sizes_));
  EXPECT_EQ(sum_, (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(i_out_, i_);
}

TEST_P(RunBuffersTest, UnsizedFormChecksBothCounts) {
  EXPECT_THAT(executable_->RunBuffers(absl::MakeSpan(arguments_).first(2),
                                      results_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 3 argument buffers")));
  EXPECT_THAT(executable_->RunBuffers(arguments_,
                                      absl::MakeSpan(results_).first(1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 2 result buffers, got 1")));
}

TEST_P(RunBuffersTest, SizedFormChecksCounts) {
  EXPECT_THAT(RunSized(absl::MakeSpan(argument_sizes_).first(2), result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 3 argument buffers and sizes, got "
                                 "3 buffers and 2 sizes")));
  EXPECT_THAT(RunSized(argument_sizes_, {12, 8, 4}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected 2 result buffers and sizes, got 2 "
                                 "buffers and 3 sizes")));
}

TEST_P(RunBuffersTest, SizedFormChecksEverySize) {
  EXPECT_THAT(RunSized({12, 12, 4}, result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument buffer 2 (parameter 1 'a', tuple "
                                 "element {1}, s32[2]) has 4 bytes, expected "
                                 "8")));
  EXPECT_THAT(RunSized({16, 12, 8}, result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument buffer 0 (parameter 0 'p', f32[3]) "
                                 "has 16 bytes, expected 12")));
  EXPECT_THAT(RunSized(argument_sizes_, {8, 8}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("result buffer 0 (tuple element {0}, f32[3]) "
                                 "has 8 bytes, expected 12")));
  EXPECT_EQ(sum_, (std::vector<float>{0, 0, 0}));  // Nothing ran.
}

TEST_P(RunBuffersTest, SizedFormChecksNullAndOverlap) {
  arguments_[1] = nullptr;
  EXPECT_THAT(RunSized(argument_sizes_, result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument buffer 1 (parameter 1 'a', tuple "
                                 "element {0}, f32[3]) is null")));
  arguments_[1] = x_.data();
  results_[0] = x_.data() + 1;
  EXPECT_THAT(RunSized(argument_sizes_, result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("result buffer 0 (tuple element {0}, f32[3]) "
                                 "overlaps argument buffer 1 (parameter 1 "
                                 "'a', tuple element {0}, f32[3])")));
  std::vector<float> wide(6);
  results_[0] = wide.data();
  results_[1] = wide.data() + 2;
  EXPECT_THAT(RunSized(argument_sizes_, result_sizes_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("result buffer 1 (tuple element {1}, s32[2]) "
                                 "overlaps result buffer 0")));
  results_[1] = wide.data() + 3;  // Adjacent, not overlapping.
  EXPECT_OK(RunSized(argument_sizes_, result_sizes_));
  EXPECT_EQ(std::vector<float>(wide.begin(), wide.begin() + 3),
            (std::vector<float>{11, 22, 33}));
  int32_t copied[2];
  std::memcpy(copied, wide.data() + 3, sizeof(copied));
  EXPECT_EQ(copied[0], 7);
  EXPECT_EQ(copied[1], -7);
  EXPECT_EQ(wide[5], 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, RunBuffersTest,
                         ::testing::Values(Backend::kJit,
                                           Backend::kInterpreter),
                         [](const auto& info) {
                           return std::string(BackendName(info.param));
                         });

}  // namespace
}  // namespace mxla
